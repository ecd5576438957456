"""Matches to N points in the environments: the score of each slot's match, its Crawford
game, and the rewards in match winning chance (MWC).

A match episode is the whole match. Each game's reward to a seat is the change of its
match winning chance from the score before the game to the score after it, read from a
match equity table (``engine.met``; by default Kazaross's XG2 table that ships,
``kazaross-xg2``, as GNU Backgammon uses; for a match longer than its 25 points the live-cube
table of ``engine.met.met_from_gammon_rate``). The rewards of a match so add up to the
result (1 won, 0 lost) less the chance at the start (0.5 at an even start): the end of the
match is what counts, and every game on the way says how much it moved it.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.match import MatchContext, Matches
from gammon.engine.met import MatchEquityTable, met_from_gammon_rate, named_met

DEFAULT_MET = "kazaross-xg2"
UNITS = 5  # the observation's match units


def default_met(length: int) -> MatchEquityTable:
    """The table the environments score a match of ``length`` with."""
    met = named_met(DEFAULT_MET)
    return met if length <= met.length else met_from_gammon_rate(length, cube=True)


class MatchScores:
    """The matches of ``n`` slots to ``length`` points, seat 0 as player A: the score and
    Crawford game (``engine.match.Matches``), the game loop's view of each game
    (``ctx``, a ``MatchContext`` by slot) and the MWC of each score."""

    def __init__(self, n: int, length: int, met: MatchEquityTable | None = None):
        if length < 1:
            raise ValueError(f"a match is played to 1 point or more, got {length}")
        self.length = length
        self.met = met or default_met(length)
        if length > self.met.length:
            raise ValueError(f"the match equity table goes to {self.met.length} points; "
                             f"the match is to {length}")
        self.matches = Matches.start(n, length)
        self.ctx = MatchContext(np.full(n, length, dtype=np.int64),
                                np.zeros((n, 2), dtype=np.int64), np.zeros(n, dtype=bool))

    def start(self, slots: np.ndarray) -> None:
        """New matches in ``slots``."""
        m = self.matches
        m.score[slots], m.had_crawford[slots] = 0, False
        m.games[slots] = m.crawford_games[slots] = 0

    def begin_game(self, slots: np.ndarray) -> None:
        """The next game of each match of ``slots`` is starting: its score and Crawford flag
        for the game loop."""
        self.ctx.score[slots] = self.matches.score[slots]
        self.ctx.crawford[slots] = self.matches.crawford(slots)

    def mwc(self, slots: np.ndarray) -> np.ndarray:
        """Seat 0's chance to win each match of ``slots`` from its score now (before its
        next game): (R,) float64; 1 or 0 once it is over."""
        m = self.matches
        out = np.empty(len(slots))
        crawford = m.crawford(slots)
        for i, slot in enumerate(slots):
            a, b = (self.length - int(s) for s in m.score[slot])
            post = not crawford[i] and min(a, b) == 1
            out[i] = self.met.win_probability(a, b, post_crawford=post)
        return out

    def record(self, slots: np.ndarray, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A game of each match of ``slots`` ended with ``points`` to seat 0 (negative: to
        seat 1). Returns (seat 0's MWC gained (R,), the match is over (R,) bool)."""
        before = self.mwc(slots)
        self.matches.record(slots, points)
        return self.mwc(slots) - before, self.matches.over[slots]

    def units(self, slots: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The observation's match units from ``seats``: (R, 5) float32 (a match; this
        seat's points to go / length; the opponent's; the Crawford game; post-Crawford)."""
        m, n = self.matches, self.length
        seats = np.asarray(seats, dtype=np.intp)
        out = np.empty((len(slots), UNITS), dtype=np.float32)
        out[:, 0] = 1
        out[:, 1] = np.maximum(n - m.score[slots, seats], 0) / n
        out[:, 2] = np.maximum(n - m.score[slots, 1 - seats], 0) / n
        out[:, 3] = self.ctx.crawford[slots]
        out[:, 4] = m.had_crawford[slots] & ~self.ctx.crawford[slots]
        return out


__all__ = ["MatchScores", "default_met", "DEFAULT_MET", "UNITS"]
