"""A play made one checker step at a time, for a batch of games: ``StepPlays``.

When a seat of a game rolls, the generator (``engine.movegen.legal_plays``) gives every
distinct legal afterstate and one play reaching each, traced step by step (``Plays.packed``:
the rules' step codes in order; the generator keeps the largest-dice and use-every-die
rules and the rules' own filter, so every traced play is a whole legal play). Those traced
plays are the only ways offered: at each sub-step the actions allowed are the next steps of
the plays whose steps so far are the steps taken, so

- every allowed step is a legal single step, and the steps of a turn always end on a legal
  afterstate (a play can never be left half made or made illegal);
- every legal afterstate is reached by exactly one sequence of actions (its traced order),
  so the action sequences of a roll and its distinct plays are one to one: no play is
  counted twice under two orders of the same checkers.

A step is named by (source, die) (``gammon.envs.actions``). The die of a move is source -
target; a bear-off names the die it uses: the exact one when it is still to play, else the
smallest larger one left (the dice left larger than the point are then interchangeable:
no checker stands above it). The board changes by the rules' own table of each step code
(``Rules.delta``), as in the generator.

All games' plays live in flat arrays (rows of every game concatenated), so a batch of games
is narrowed and stepped by NumPy alone.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.movegen import Plays
from gammon.engine.rules import Rules

from .actions import STEP_ACTIONS


def _bear_off_dice() -> np.ndarray:
    """(128, 26) int8: for the dice left as a bit set (bit d: a d is left) and a source
    point, the die a bear-off from it names: the exact die if left, else the smallest larger
    one left (0: none)."""
    table = np.zeros((128, 26), dtype=np.int8)
    for bits in range(128):
        left = [d for d in range(1, 7) if bits >> d & 1]
        for source in range(1, 7):
            larger = [d for d in left if d >= source]
            table[bits, source] = larger[0] if larger else 0
    return table


_OFF_DIE = _bear_off_dice()


class StepPlays:
    """The traced legal plays of the games whose seat on roll is moving checkers, narrowed
    step by step. Per slot (of ``n``): ``board`` the position with the steps taken so far,
    ``taken`` and ``used`` the steps taken and to take, ``left`` (n, 7) the dice still to
    play (counts by value, column 0 unused); per row: ``code`` (K, 4) the traced steps,
    ``after`` (K, 26) the afterstate, ``game`` (K,) its slot."""

    def __init__(self, n: int, rules: Rules):
        self.rules = rules
        self.board = np.zeros((n, 26), dtype=np.int8)
        self.taken = np.zeros(n, dtype=np.int8)
        self.used = np.zeros(n, dtype=np.int8)
        self.left = np.zeros((n, 7), dtype=np.int8)
        self.code = np.zeros((0, 4), dtype=np.int16)
        self.after = np.zeros((0, 26), dtype=np.int8)
        self.game = np.zeros(0, dtype=np.int64)
        self._labels = None  # the rows' labels, until the rows or the steps taken change

    def clear(self, slots: np.ndarray) -> None:
        """Forget the plays of ``slots``."""
        if (self.taken[slots] < self.used[slots]).any():  # some are in the middle of a play
            keep = ~np.isin(self.game, slots)
            self.code, self.after, self.game = (self.code[keep], self.after[keep],
                                                self.game[keep])
            self._labels = None
        self.taken[slots] = self.used[slots] = 0
        self.left[slots] = 0

    def start(self, slots: np.ndarray, boards: np.ndarray, dice: np.ndarray,
              plays: Plays) -> np.ndarray:
        """The rolls ``dice`` (R, 2) of the positions ``boards`` (R, 26) of ``slots``, whose
        legal plays are ``plays`` (roots 0..R-1): keep the plays of the slots that can move.
        Returns (R,) bool: the slots whose roll has no legal play (nothing is kept)."""
        r = len(slots)
        first = plays.offsets(r)[:-1]
        used = plays.dice_used[first].astype(np.int8)
        keep = used[plays.root] > 0
        self.board[slots] = boards
        self.taken[slots] = 0
        self.used[slots] = used
        high, low = dice.max(axis=1), dice.min(axis=1)
        self.left[slots] = 0
        double = high == low
        self.left[slots, high] = np.where(double, 4, 1)
        self.left[slots[~double], low[~double]] = 1
        self.code = np.concatenate([self.code, plays.packed[keep]])
        self.after = np.concatenate([self.after, plays.boards[keep]])
        self.game = np.concatenate([self.game, slots[plays.root[keep]]])
        self._labels = None
        return used == 0

    def labels(self) -> np.ndarray:
        """The action of each row's next step: (K,) int64 (rows whose play is whole: -1)."""
        if self._labels is None:
            self._labels = self._label_rows()
        return self._labels

    def _label_rows(self) -> np.ndarray:
        k = len(self.game)
        t = self.taken[self.game].astype(np.intp)
        code = self.code[np.arange(k), np.minimum(t, 3)].astype(np.int64)
        source = (code >> 6) & 31
        target = (code >> 1) & 31
        bits = (self.left[self.game, 1:] > 0) @ (2 ** np.arange(1, 7))
        die = np.where(target > 0, source - target,
                       _OFF_DIE[bits, np.minimum(source, 25)].astype(np.int64))
        label = source * 6 + die - 1
        return np.where((t < self.used[self.game]) & (code >= 0) & (die > 0), label, -1)

    def masks(self, n: int) -> np.ndarray:
        """(n, 156) bool: the checker steps each slot may take now."""
        out = np.zeros((n, STEP_ACTIONS), dtype=bool)
        label = self.labels()
        ok = label >= 0
        out[self.game[ok], label[ok]] = True
        return out

    def step(self, slots: np.ndarray, actions: np.ndarray):
        """Each of ``slots`` takes the step ``actions`` (R,). Returns (legal (R,) bool,
        done (D,) the slots whose play is now whole, after (D, 26) their afterstates).
        A slot whose action is not an allowed step is left as it was."""
        n = len(self.taken)
        action = np.full(n, -2, dtype=np.int64)
        action[slots] = actions
        label = self.labels()
        match = label == action[self.game]
        legal = np.zeros(n, dtype=bool)
        legal[self.game[match]] = True
        # rows of slots not stepping now, or stepping illegally, stay
        keep = match | ~legal[self.game]
        self.code, self.after, self.game = self.code[keep], self.after[keep], self.game[keep]
        self._labels = None
        label = label[keep]
        # one row per slot that moved gives the step's code (all its rows share it)
        rows = np.flatnonzero(match[keep])
        moved, first = np.unique(self.game[rows], return_index=True)
        rows = rows[first]
        code = self.code[rows, self.taken[moved].astype(np.intp)].astype(np.intp)
        self.board[moved] += self.rules.delta[code]
        die = label[rows] % 6 + 1
        self.left[moved, die] -= 1
        self.taken[moved] += 1
        done = moved[self.taken[moved] >= self.used[moved]]
        after = np.zeros((len(done), 26), dtype=np.int8)
        if len(done):
            whole = np.isin(self.game, done)
            at = np.flatnonzero(whole)
            order = np.searchsorted(done, self.game[at])
            after[order] = self.after[at]
            if len(at) != len(done):
                raise AssertionError("a whole play must leave one traced play per game")
            self.code, self.after, self.game = (self.code[~whole], self.after[~whole],
                                                self.game[~whole])
        return legal[slots], done, after


__all__ = ["StepPlays"]
