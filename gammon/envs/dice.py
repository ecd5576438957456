"""Where the environments' dice come from: a generator (``RandomDice``), a table of dice
shared with the game loop (``TableDice``), or rolls set by hand (``SetDice``, for search).

A source gives, for games starting in some slots, who opens, the opening roll and the tied
opening throws (automatic doubles); and for games on roll, their roll at a turn (``plies``:
the plays made so far in the game, as ``engine.game.play`` counts its turns).
"""

from __future__ import annotations

import numpy as np

from gammon.engine.cube import opening_ties
from gammon.engine.dice import DiceTable, opening_roll, roll


class RandomDice:
    """Dice from a NumPy generator (the env's ``np_random``)."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def reset(self, n: int) -> None:
        pass

    def start(self, slots: np.ndarray, ties: bool = False):
        """(first (R,) int8 the seat that opens, opening (R, 2) its first roll, ties (R,))."""
        first, opening = opening_roll(self.rng, len(slots))
        tied = (opening_ties(self.rng, len(slots)) if ties
                else np.zeros(len(slots), dtype=np.int32))
        return first, opening, tied

    def roll(self, slots: np.ndarray, plies: np.ndarray) -> np.ndarray:
        return roll(self.rng, len(slots))


class TableDice:
    """The rows of a ``engine.dice.DiceTable``, one per game in the order the games start
    (in whatever slot), from row ``offset``: the same dice ``engine.game.play`` gives game
    ``k`` of a series played on that table. ``swapped``: the env's seat 0 sits in the
    table's seat 1 (the second game of a pair of paired dice, ``eval.playing.match``)."""

    def __init__(self, table: DiceTable, swapped: bool = False, offset: int = 0):
        self.table, self.swapped, self.next = table, swapped, offset
        self.row = np.zeros(0, dtype=np.int64)

    def reset(self, n: int) -> None:
        if len(self.row) != n:
            self.row = np.zeros(n, dtype=np.int64)

    def start(self, slots: np.ndarray, ties: bool = False):
        rows = self.next + np.arange(len(slots))
        if rows[-1] >= len(self.table.first):
            raise IndexError(f"the dice table has {len(self.table.first)} rows; game "
                             f"{rows[-1] + 1} asks for more")
        self.next += len(slots)
        self.row[slots] = rows
        first, opening = self.table.first[rows], self.table.opening[rows]
        if self.swapped:  # the same dice in the same order, the other seat
            first = (1 - first).astype(np.int8)
        return first, opening.copy(), np.zeros(len(slots), dtype=np.int32)

    def roll(self, slots: np.ndarray, plies: np.ndarray) -> np.ndarray:
        return self.table.rolls[self.row[slots], np.asarray(plies) % self.table.plies]


class SetDice:
    """Rolls given by hand, first in first out, then those of ``then`` (a search's chance
    nodes: ``queue`` the rolls to come, whoever rolls them)."""

    def __init__(self, then, rolls=()):
        self.then = then
        self.queue = [tuple(int(d) for d in r) for r in rolls]

    def reset(self, n: int) -> None:
        self.then.reset(n)

    def start(self, slots: np.ndarray, ties: bool = False):
        return self.then.start(slots, ties)

    def roll(self, slots: np.ndarray, plies: np.ndarray) -> np.ndarray:
        out = self.then.roll(slots, plies) if len(self.queue) < len(slots) else \
            np.zeros((len(slots), 2), dtype=np.int8)
        for i in range(min(len(slots), len(self.queue))):
            out[i] = self.queue.pop(0)
        return out


__all__ = ["RandomDice", "TableDice", "SetDice"]
