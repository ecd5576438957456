"""Dice for a batch of games, drawn up front so that two games can share one sequence.

Each row of a ``DiceTable`` is one sequence: an opening roll (two different dice, one per
seat) and then one roll per later turn. Games that play the same row with the seats
swapped get exactly the same luck: that is how paired matches cancel it.
"""

from __future__ import annotations

import numpy as np

from .game import opening_roll


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
