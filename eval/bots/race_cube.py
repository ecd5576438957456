"""The race cube: Keith count doubling, redoubling and take rules, for bots without a net.

Tom Keith's count (2004) for a pure race, in pips, each side from its own home board:

    pip count
    + 2 per checker beyond one on the 1-point
    + 1 per checker beyond one on the 2-point
    + 1 per checker beyond three on the 3-point
    + 1 per empty point among the 4-, 5- and 6-points

The player on roll adds 1/7 of his count to it. He doubles when his count then exceeds the
opponent's by at most 4 (redoubles, owning the cube, by at most 3); the opponent takes when
it exceeds his by at least 2. In contact this strategy never doubles and always takes: it
has no model of contact positions, and never beavers. Vectorised over the batch.

In match play (told the score by ``observe_score``) two plain match rules come on top: a
player whose single win at the current cube already wins the match never doubles (his cube
is dead), and post-Crawford the trailer doubles at his first chance (he loses the match
with any lost game anyway) while the leader always takes.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.board import flip
from gammon.engine.match import ToldScore

from gammon.engine.phase import is_race

DOUBLE_WITHIN = 4.0  # pips: roller's adjusted count minus the opponent's, centred cube
REDOUBLE_WITHIN = 3.0  # the same when the roller owns the cube
TAKE_FROM = 2.0  # the opponent takes when the difference is at least this


def keith_count(boards: np.ndarray) -> np.ndarray:
    """The Keith count of the player on roll in each board (no roller's 1/7): (N,) float64."""
    b = np.maximum(np.asarray(boards, dtype=np.int32), 0)  # (N, 26) the mover's checkers
    b[:, 0] = 0
    pips = b @ np.arange(26)
    wastage = (2 * np.maximum(b[:, 1] - 1, 0) + np.maximum(b[:, 2] - 1, 0)
               + np.maximum(b[:, 3] - 3, 0) + (b[:, 4:7] == 0).sum(axis=1))
    return (pips + wastage).astype(np.float64)


def keith_margin(boards: np.ndarray) -> np.ndarray:
    """The roller's adjusted count minus the opponent's count: (N,) float64 (lower: better
    for the roller)."""
    roller = keith_count(boards)
    return roller * 8 / 7 - keith_count(flip(boards))


class KeithCube(ToldScore):
    """Cube decisions by the Keith count in races; never doubles, always takes in contact."""

    name = "race"

    def _post_crawford(self, n: int):
        """(trailer, leader): (N,) bool, the doubler is the post-Crawford trailer/leader."""
        a, b, _, crawford, _, _ = self.score.arrays(n)
        post = ~crawford & ((a == 1) | (b == 1))
        return post & (a > 1), post & (a == 1)

    def offer_double(self, boards, cube_value, cube_owner) -> np.ndarray:
        within = np.where(np.asarray(cube_owner) > 0, REDOUBLE_WITHIN, DOUBLE_WITHIN)
        double = is_race(boards) & (keith_margin(boards) <= within)
        if self.score is None:
            return double
        a = self.score.arrays(len(boards))[0]
        trailer, _ = self._post_crawford(len(boards))
        return (double | trailer) & (np.asarray(cube_value) < a)

    def respond(self, boards, cube_value, cube_owner) -> np.ndarray:
        take = ~is_race(boards) | (keith_margin(boards) >= TAKE_FROM)
        if self.score is not None:  # the doubler's side: he is the trailer, we lead
            trailer, _ = self._post_crawford(len(boards))
            take |= trailer
        return take.astype(np.int8)  # 1 take, 0 pass


__all__ = ["KeithCube", "keith_count", "keith_margin"]
