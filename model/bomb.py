"""Nuclear's bomb for network bots (NumPy only: torch networks and bot files alike).

A Nuclear network reads the bomb's owner as an input; on the networks' side a position
carries the bomb folded into its 26 cells (``model.encoding.fold_bomb``).
"""

from __future__ import annotations

import numpy as np

from gammon.engine.movegen import Plays
from gammon.engine.rules.nuclear import NUCLEAR

from . import encoding
from .actions import MARGIN, act_by_equity
from .encoding import fold_bomb


def plain_boards(evaluator, boards: np.ndarray) -> np.ndarray:
    """The boards an evaluator was given, without a folded bomb (for the rules)."""
    return encoding.plain_boards(evaluator.encoding, boards)


class BombInput:
    """Network bots of Nuclear: the bomb's owner is an input of the network.

    The game loop tells the bot the bomb before it chooses (``observe_extra``); the plays'
    afterstates are then evaluated with it folded in (after our play the bomb is still
    where it was). ``detonate`` compares the position with and without the explosion
    (``eval.bots.nuclear.EquityDetonate``): only a net of the nuclear encoding has it."""

    _bomb = None

    def observe_extra(self, extra: dict) -> None:
        self._bomb = extra.get("bomb")

    def afterstates(self, plays: Plays) -> np.ndarray:
        """The plays' afterstates as the network reads them: the bomb folded in when the
        loop told one for these positions (used once)."""
        bomb, self._bomb = self._bomb, None
        if self.evaluator.encoding != "nuclear" or bomb is None:
            return plays.boards
        return fold_bomb(plays.boards, np.asarray(bomb)[plays.root])

    def __getattr__(self, name):
        # only a Nuclear net has ``detonate`` (the game loop asks for it where it exists)
        if name == "detonate" and self.__dict__.get("evaluator") is not None \
                and self.evaluator.encoding == "nuclear":
            return self._detonate
        raise AttributeError(name)

    def _detonate(self, boards: np.ndarray, bomb: np.ndarray) -> np.ndarray:
        return detonate_by_equity(self.evaluator.equity_before_roll, boards, bomb)


def detonate_by_equity(equity_before_roll, boards: np.ndarray, bomb: np.ndarray,
                       margin: float = MARGIN) -> np.ndarray:
    """Detonate where the position after the explosion (still on roll, the bomb the
    opponent's) is worth more to the player on roll than as it stands, by ``margin`` at
    least (``model.actions.act_by_equity``): (N,) bool. ``equity_before_roll(boards, bomb)
    -> (N,)`` values positions before the roll."""
    return act_by_equity(equity_before_roll, NUCLEAR, "detonate", boards, (bomb,), margin)
