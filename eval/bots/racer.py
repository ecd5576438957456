"""The racer: a pip-count bot that runs home and bears off, scoring every afterstate at once.

It knows one idea, the race, and plays it everywhere. Its score of an afterstate, in pips,
for the player who just moved (higher is better)::

    score =  W_OFF    * checkers borne off          bear off whenever a checker can go
           - pips                                   fewer pips left (wasted pips cost)
           - W_CROSS  * crossovers left             bring checkers into the next quarter
           - W_DEEP   * depth of checkers on 1..3   don't bury checkers deep: wastage later
           - W_STACK  * checkers above 3 on a home point    spread the bear-off
           - W_GAP    * empty points among 4..6 below the rearmost home checker  no gaps
           + opponent's pips, in contact only       a hit sends a checker back: a race gain
           - W_BLOT   * blots of ours, in contact only  keep checkers in pairs

``crossovers`` counts, per checker, the quarter boundaries it must still cross to reach the
home board (points 7..12: 1, 13..18: 2, 19..24: 3, the bar: 4). Every play of a roll moves
the same number of pips unless a checker is borne off from below the die, so the pip term
only separates plays by wasted pips and hits; the other terms break the ties between them.

In contact it does not count shots (that is the heuristic bot's job): it races home, hits
when hitting gains pips, and keeps its checkers in pairs with a flat cost per blot wherever
the blot stands. Without that one term a racer leaves blots all the way home and beats
random play only about 87% of the time instead of over 99%. Simple on purpose, as a second
benchmark beside pubeval and a sanity check for training.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.movegen import Plays

from gammon.eval.bots.simple import Bot
from gammon.engine.phase import is_race

W_OFF = 8.0  # pips per checker borne off: more than any shape term, so bearing off comes first
W_CROSS = 1.0  # pips per quarter boundary still to cross
W_DEEP = 0.25  # pips per point of depth below 4 (a checker on 1 counts 3, on 3 counts 1)
W_STACK = 0.5  # pips per checker above three on one home point
W_GAP = 0.75  # pips per empty point among 4..6 with a checker of ours above it
W_BLOT = 4.0  # pips per blot of ours, in contact only: keep checkers in pairs (no shot counting)

_INDEX = np.arange(26, dtype=np.float32)  # cell = pips a mover's checker still needs (bar 25)
# quarter boundaries each cell's checker must cross to get home (cell 0 holds none of ours)
_CROSS = np.array([0] + [(p - 1) // 6 for p in range(1, 25)] + [4], dtype=np.float32)


def weighted_rows(weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """sum_i weights[i] * rows[i] over a cell-major (M, K) array: (K,) float32.

    A loop of M vector adds: a BLAS matrix-vector product measured about 20 times slower
    here (thread start-up on a busy machine), and whole-batch sums run fastest cell-major.
    """
    out = np.zeros(rows.shape[1], dtype=np.float32)
    for w, row in zip(weights, rows):
        if w:
            out += np.float32(w) * row
    return out


def race_features(afterstates: np.ndarray, checkers: int = 15) -> dict[str, np.ndarray]:
    """The racer's terms for each afterstate, mover's view: a dict of (K,) float32 arrays."""
    cells = np.ascontiguousarray(np.asarray(afterstates, dtype=np.int8).T)  # (26, K)
    mine = np.maximum(cells, 0)  # (26, K) int8; cell 0 never holds ours
    opp = np.maximum(-cells, 0)  # (26, K) int8; cell 25 never holds theirs
    on_board = mine.sum(axis=0, dtype=np.int16)  # (K,)
    # a gap is an empty point 4..6 with a checker of ours on a higher cell
    below = mine[1:4].sum(axis=0, dtype=np.int16)  # checkers on points 1..3
    gaps = np.zeros(len(on_board), dtype=np.int8)
    for p in (4, 5, 6):
        below += mine[p]
        gaps += (mine[p] == 0) & (on_board > below)
    home = mine[1:7]  # (6, K)
    return {
        "off": (checkers - on_board).astype(np.float32),
        "pips": weighted_rows(_INDEX, mine),
        "opp_pips": weighted_rows(25 - _INDEX, opp),
        "crossovers": weighted_rows(_CROSS, mine),
        "depth": weighted_rows(np.array([0, 3, 2, 1], np.float32), mine[:4]),
        "stack": np.maximum(home - 3, 0).sum(axis=0, dtype=np.int16).astype(np.float32),
        "gaps": gaps.astype(np.float32),
        "blots": (mine[1:25] == 1).sum(axis=0, dtype=np.int16).astype(np.float32),
    }


def race_scores(afterstates: np.ndarray, checkers: int = 15,
                contact: np.ndarray | bool = False) -> np.ndarray:
    """The racer's score of each afterstate (formula in the module docstring): (K,) float64.

    contact (K,) bool or a scalar: where true, the two contact terms are added: the
    opponent's pips (a hit gains) and the flat cost of each blot.
    """
    f = race_features(afterstates, checkers)
    score = (W_OFF * f["off"] - f["pips"] - W_CROSS * f["crossovers"] - W_DEEP * f["depth"]
             - W_STACK * f["stack"] - W_GAP * f["gaps"])
    score = score.astype(np.float64)
    return score + np.where(contact, f["opp_pips"] - W_BLOT * f["blots"], 0.0)


class RacerBot(Bot):
    """Races home and bears off by pip count and a few shape terms; counts no shots."""

    name = "racer"
    score_label = "racer score (pips)"

    def __init__(self, checkers: int = 15):
        self.checkers = checkers

    def scores(self, plays: Plays, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        contact = ~is_race(boards)[plays.root]  # (K,) decided before the play, as pubeval
        return race_scores(plays.boards, self.checkers, contact)


__all__ = ["RacerBot", "race_features", "race_scores", "weighted_rows"]
