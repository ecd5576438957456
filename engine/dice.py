"""Dice: rolls, the opening roll, the 21 distinct rolls, and tables of dice drawn up front
so that two games can share one sequence.

Dice always come from an explicit ``np.random.Generator`` so that every game is
reproducible from its seed. Each row of a ``DiceTable`` is one sequence: an opening roll (two different dice, one per
seat) and then one roll per later turn. Games that play the same row with the seats
swapped get exactly the same luck: that is how paired matches cancel it.
"""

from __future__ import annotations

import numpy as np

# the 21 distinct rolls (high die first) and their chances: (21, 2) int8, (21,) float64
ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, a + 1)], dtype=np.int8)
ROLL_WEIGHTS = np.array([1 if a == b else 2 for a, b in ROLLS], dtype=np.float64) / 36


def roll(rng: np.random.Generator, n: int) -> np.ndarray:
    """n rolls of two dice: (n, 2) int8 in 1..6."""
    return rng.integers(1, 7, size=(n, 2), dtype=np.int8)


def opening_roll(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The opening roll of n games: each side throws one die, ties are thrown again.

    Returns (first, dice): first (n,) int8 is 0 when side 0 threw higher (and so moves
    first), 1 otherwise; dice (n, 2) int8 is (side 0's die, side 1's die), which the
    higher side plays as its first roll.
    """
    dice = roll(rng, n)
    tied = dice[:, 0] == dice[:, 1]
    while tied.any():
        dice[tied] = roll(rng, int(tied.sum()))
        tied = dice[:, 0] == dice[:, 1]
    first = (dice[:, 1] > dice[:, 0]).astype(np.int8)
    return first, dice


class DiceTable:
    """Dice sequences for ``rows`` games: (rows, plies, 2) rolls plus an opening roll each.

    A game longer than ``plies`` turns starts the row again (still reproducible; games of
    over 512 turns are vanishingly rare in backgammon).
    """

    def __init__(self, rng: np.random.Generator, rows: int, plies: int = 512):
        self.first, self.opening = opening_roll(rng, rows)  # (rows,), (rows, 2)
        self.rolls = rng.integers(1, 7, size=(rows, plies, 2), dtype=np.int8)
        self.plies = plies

    def roll(self, rows: np.ndarray, ply: int) -> np.ndarray:
        """The rolls of turn ``ply`` (>= 1) for the given rows: (len(rows), 2) int8."""
        return self.rolls[rows, ply % self.plies]
