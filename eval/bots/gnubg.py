"""GNU Backgammon's 0-ply player as a bot, through the PyPI package ``gnubg-nn``.

gnubg_nn speaks gnubg boards: two lists of 25 counts, ``[side not on roll, side on roll]``,
each from its own side (index 0..23 = points 1..24, 24 = the bar). For each position with a
choice we ask ``gnubg_nn.best_move(..., n=0, list=1)``, which scores every legal play with
gnubg's neural nets (cubeless money equity for the player who moved) and names the best
one by the position key of the afterstate seen by the opponent (the board flipped). A
position with a single legal play is not scored by gnubg's move list, so we score its
afterstate with ``gnubg_nn.probabilities`` ourselves (the same number, checked in tests).

The bot plays exactly gnubg's choice, ties included: it takes the row whose key is the
first of gnubg's list. Install with ``pip install 'gammon[gnubg]'``.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.board import flip
from gammon.engine.outcomes import equity_of_five
from gammon.engine.movegen import Plays

from gammon.eval.bots.simple import Bot


def _import_gnubg_nn():
    """The gnubg_nn module, or ImportError saying which package to install."""
    try:
        import gnubg_nn
    except ImportError:
        raise ImportError(
            "the gnubg bot needs the gnubg-nn package: pip install 'gammon[gnubg]' "
            "(or pip install gnubg-nn)"
        ) from None
    return gnubg_nn


def gnubg_board(board: np.ndarray) -> list[list[int]]:
    """Our (26,) board as gnubg's [[25 ints of the side not on roll], [25 of the mover]]."""
    b = [int(x) for x in board]
    mover = [max(b[p], 0) for p in range(1, 25)] + [b[25]]
    opponent = [max(-b[25 - q], 0) for q in range(1, 25)] + [-b[0]]
    return [opponent, mover]


def cubeless_equity(p) -> float:
    """Cubeless money equity of gnubg's five probabilities (win, wg, wbg, lg, lbg)."""
    return float(equity_of_five(p))


class GnubgBot(Bot):
    """GNU Backgammon's neural-net player at 0 ply (cubeless money equity)."""

    name = "gnubg"
    score_label = "gnubg 0-ply equity"

    def __init__(self):
        self._g = _import_gnubg_nn()

    def _afterstate_key(self, afterstate: np.ndarray) -> str:
        """gnubg's key of an afterstate as gnubg's move list names it (opponent on roll)."""
        return self._g.key_of_board(gnubg_board(flip(afterstate)))

    def _single_score(self, afterstate: np.ndarray) -> float:
        """Equity for the player who moved, from gnubg's 0-ply view of the opponent's turn."""
        return -cubeless_equity(self._g.probabilities(gnubg_board(flip(afterstate)), 0))

    def _rank(self, plays: Plays, boards: np.ndarray, dice: np.ndarray):
        """Scores (K,) float64 and gnubg's chosen row per position (N,) int64."""
        n = len(boards)
        offsets = plays.offsets(n)  # (N + 1,)
        scores = np.zeros(len(plays))  # (K,)
        chosen = offsets[:-1].astype(np.int64).copy()  # (N,)
        for i in range(n):
            rows = range(offsets[i], offsets[i + 1])
            if len(rows) == 1:
                scores[rows[0]] = self._single_score(plays.boards[rows[0]])
                continue
            _, _, listed = self._g.best_move(gnubg_board(boards[i]), int(dice[i, 0]),
                                             int(dice[i, 1]), n=0, b=1, list=1)
            equity = {key: e for key, _, _, e in listed}
            keys = [self._afterstate_key(plays.boards[r]) for r in rows]
            scores[list(rows)] = [equity[k] for k in keys]
            # gnubg's best play that is legal here: under the Caucasian rule some of the
            # standard plays gnubg lists are not (a hitter in the home board may not hide)
            ours = {k: j for j, k in enumerate(keys)}
            chosen[i] = rows[next(ours[key] for key, *_ in listed if key in ours)]
        return scores, chosen

    def scores(self, plays, boards, dice):
        return self._rank(plays, boards, np.asarray(dice))[0]

    def choose(self, plays, boards, dice):
        return self._rank(plays, boards, np.asarray(dice))[1]
