"""How a rollout is played: ``Settings`` (every option with its default), the limits they
are checked against, and ``RolloutError`` for what a rollout cannot take.

    settings = Settings(trials=1296, seed=1, cubeful=True)
    settings.check()                       # RolloutError naming the first bad option
    check_bot(settings, has_probabilities)  # what needs the bot's probabilities

The rollout itself is ``eval.analysis.rollouts.rollout``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from gammon.engine.rules import variant as get_variant
from gammon.model.cube import EFFICIENCY

MAX_TRIALS = 1_000_000  # trials per position at most
DEFAULT_TRIALS = 1296  # 36 x 36: every pair of first two rolls once
SE_CHECK = 144  # with until_se, the standard error is looked at every this many trials
MAX_PLIES = 10_000  # a trial longer than this is valued by the net, as if truncated there


class RolloutError(ValueError):
    """Settings or positions a rollout cannot take; the message says why."""


@dataclass(frozen=True)
class Settings:
    """How to roll out (every option with its default; ``check`` says what is wrong).

    trials          trials per position, 1 .. MAX_TRIALS (the most, with ``until_se``)
    seed            the seed of every roll (a rerun with the same seed is bit-identical)
    truncate        stop each trial after this many plies and take the net's value of the
                    position reached (0: of the position itself); None: play to the end
    vr              variance reduction (the luck of each roll taken out)
    quasi           quasi-random dice: the first two rolls of the trials stratified
    bearoff         stop once both sides are in the bear-off database (None: where the
                    variant has it, i.e. on; it does nothing in Nuclear and Plakoto)
    cubeful         the cube as the bot plays it (cube heads: doubles, takes, passes)
    efficiency, jacoby, beavers   the cube model and the money rules of a cubeful rollout
    double_at_start the player on roll may double before his first roll (False: the
                    rollout of "no double now")
    until_se        stop a position early once its equity's standard error is below this
    variant         the rules
    """

    trials: int = DEFAULT_TRIALS
    seed: int = 0
    truncate: int | None = None
    vr: bool = True
    quasi: bool = True
    bearoff: bool | None = None
    cubeful: bool = False
    efficiency: float = EFFICIENCY
    jacoby: bool = False
    beavers: bool = False
    double_at_start: bool = True
    until_se: float | None = None
    variant: str = "standard"

    def check(self) -> None:
        """RolloutError naming the first setting out of range."""
        if isinstance(self.trials, bool) or not isinstance(self.trials, (int, np.integer)) \
                or not 1 <= self.trials <= MAX_TRIALS:
            raise RolloutError(f"trials are 1 to {MAX_TRIALS:,} per position, got "
                               f"{self.trials!r}")
        if not isinstance(self.seed, (int, np.integer)) or not 0 <= self.seed < 2 ** 63:
            raise RolloutError(f"a seed is a whole number from 0 to 2**63-1, got {self.seed!r}")
        if self.truncate is not None and (isinstance(self.truncate, bool) or not isinstance(
                self.truncate, (int, np.integer)) or not 0 <= self.truncate <= MAX_PLIES):
            raise RolloutError(f"truncation is after 0 to {MAX_PLIES:,} plies, got "
                               f"{self.truncate!r}")
        if self.until_se is not None and not (isinstance(self.until_se, (int, float))
                                              and math.isfinite(self.until_se)
                                              and self.until_se > 0):
            raise RolloutError(f"the standard error to stop at is a number above 0, got "
                               f"{self.until_se!r}")
        if not 0 <= self.efficiency <= 1:
            raise RolloutError(f"cube efficiency is between 0 and 1, got {self.efficiency!r}")
        get_variant(self.variant)

    @property
    def rules(self):
        return get_variant(self.variant)

    @property
    def stops_in_bearoff(self) -> bool:
        """Whether trials stop once both sides are in the bear-off database."""
        return (True if self.bearoff is None else bool(self.bearoff)) \
            and self.rules.bearoff_races

    def vr_words(self, match: bool = False) -> str:
        """What the variance reduction applies to, in words (for --help and the output)."""
        if not self.vr:
            return "off"
        if not self.cubeful:
            return "on (lookahead, 0-ply)"
        if match:
            return "on for the cubeless results; none for the cubeful match winning chance"
        return "on (cubeless luck; the cubeful result less the same luck times the cube)"

    def to_dict(self, match: bool = False) -> dict:
        """The settings as JSON values, the effective bear-off stop included."""
        out = asdict(self)
        out["bearoff"] = self.stops_in_bearoff
        out["variance_reduction"] = self.vr_words(match)
        if not self.cubeful:
            for key in ("efficiency", "jacoby", "beavers", "double_at_start"):
                out.pop(key)
        return out


def check_bot(settings: Settings, has_probabilities: bool) -> None:
    """RolloutError for settings that need the bot's probabilities when it has none."""
    if has_probabilities:
        return
    needs = [what for what, on in (("variance reduction", settings.vr),
                                   ("truncation", settings.truncate is not None),
                                   ("a cubeful rollout", settings.cubeful)) if on]
    if needs:
        raise RolloutError(f"{' and '.join(needs)} need{'s' if len(needs) == 1 else ''} a "
                           f"bot that estimates probabilities (net:, net:PATH or gnubg); "
                           f"for this bot roll out with no variance reduction (vr off), no "
                           f"truncation and no cube")


__all__ = ["DEFAULT_TRIALS", "MAX_PLIES", "MAX_TRIALS", "SE_CHECK", "RolloutError",
           "Settings", "check_bot"]
