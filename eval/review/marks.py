"""The marks a review puts on decisions and rolls, with GNU Backgammon 1.07's default
thresholds (``show analysis`` in gnubg prints them), all in normalised EMG (per 1-cube):

    decisions:  doubtful  loss > 0.03     bad  loss > 0.06     very bad  loss > 0.12
    rolls:      lucky     luck > +0.3     very lucky  luck > +0.6
                unlucky   luck < -0.3     very unlucky  luck < -0.6

A decision is marked by the largest threshold its loss is past (strictly), a roll likewise
by its luck.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

DOUBTFUL, BAD, VERY_BAD = "doubtful", "bad", "very bad"
LUCKY, VERY_LUCKY, UNLUCKY, VERY_UNLUCKY = "lucky", "very lucky", "unlucky", "very unlucky"
MARKS = (DOUBTFUL, BAD, VERY_BAD)


@dataclass(frozen=True)
class Thresholds:
    """Loss thresholds (>= 0) and luck thresholds (lucky > 0, unlucky < 0), EMG per 1-cube."""

    doubtful: float = 0.03
    bad: float = 0.06
    very_bad: float = 0.12
    lucky: float = 0.3
    very_lucky: float = 0.6
    unlucky: float = -0.3
    very_unlucky: float = -0.6

    def problem(self) -> str | None:
        """Why the thresholds do not make sense, or None."""
        if not 0 <= self.doubtful <= self.bad <= self.very_bad:
            return ("the loss thresholds need 0 <= doubtful <= bad <= very bad, got "
                    f"{self.doubtful:g}, {self.bad:g}, {self.very_bad:g}")
        if not 0 < self.lucky <= self.very_lucky:
            return (f"the luck thresholds need 0 < lucky <= very lucky, got {self.lucky:g}, "
                    f"{self.very_lucky:g}")
        if not self.very_unlucky <= self.unlucky < 0:
            return (f"the luck thresholds need very unlucky <= unlucky < 0, got "
                    f"{self.unlucky:g}, {self.very_unlucky:g}")
        return None

    def to_dict(self) -> dict:
        return asdict(self)

    def mark(self, loss: float) -> str | None:
        """The mark of a decision that lost ``loss``."""
        if loss > self.very_bad:
            return VERY_BAD
        if loss > self.bad:
            return BAD
        if loss > self.doubtful:
            return DOUBTFUL
        return None

    def luck_mark(self, luck: float | None) -> str | None:
        """The mark of a roll of luck ``luck``."""
        if luck is None:
            return None
        if luck > self.very_lucky:
            return VERY_LUCKY
        if luck > self.lucky:
            return LUCKY
        if luck < self.very_unlucky:
            return VERY_UNLUCKY
        if luck < self.unlucky:
            return UNLUCKY
        return None


GNUBG = Thresholds()

__all__ = ["Thresholds", "GNUBG", "MARKS", "DOUBTFUL", "BAD", "VERY_BAD", "LUCKY",
           "VERY_LUCKY", "UNLUCKY", "VERY_UNLUCKY"]
