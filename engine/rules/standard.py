"""The standard rules of movement, and the variants that only change the start.

A single step moves one of the mover's checkers by one die (the rules as our source states
them, quoted where they are enforced):

- "A checker may be moved only to an open point, one that is not occupied by two or more
  opposing checkers"; landing on a single opposing checker (a blot) hits it: it goes to
  the bar.
- "Any time a player has one or more checkers on the bar, his first obligation is to enter
  those checker(s) into the opposing home board": no other checker moves while one is on
  the bar (the bar is source 25; entering with die d lands on point 25 - d).
- "Once a player has moved all fifteen checkers into his home board, he may commence
  bearing off": a die bears a checker off from the point it names; "if there is no checker
  on the point indicated by the roll, the player must make a legal move using a checker on
  a higher-numbered point. If there are no checkers on higher-numbered points, the player
  is permitted (and required) to remove a checker from the highest point".

The rules on whole plays (use both dice if possible, the larger one when only one can be
played, all four of a double if possible) are the generator's: they hold in every variant.

Each step is written twice on purpose: ``steps`` (vectorised, for ``engine.movegen``) and
``step`` (scalar and plain, for ``engine.reference``, notation and pubeval's move order);
the tests compare them on hundreds of thousands of positions.
"""

from __future__ import annotations

import numpy as np

from ..board import BAR, CELLS
from .base import Rules

OFF = 0
_SOURCES = np.arange(1, 26)  # points 1..24 and the bar


def step_code(source, target, hit):
    """One step as a small int: source << 6 | target << 1 | hit (target 0 = borne off)."""
    return (source << 6) | (target << 1) | hit


def _step_tables():
    """What each step code does: the board change and whether a checker comes home."""
    size = step_code(25, 24, 1) + 1
    delta = np.zeros((size, CELLS), dtype=np.int8)  # (C, 26) change of the board
    came_home = np.zeros(size, dtype=np.int64)  # 1 when a checker enters the home board
    for source in range(1, 26):
        for target in range(0, source):
            for hit in (0, 1) if target else (0,):
                code = step_code(source, target, hit)
                delta[code, source] -= 1
                if target:
                    delta[code, target] += 2 if hit else 1  # a hit blot's point: -1 -> +1
                delta[code, 0] -= hit  # the hit checker goes to the opponent's bar
                came_home[code] = source >= 7 and target <= 6
    return delta, came_home


def _move_tables():
    """Per (die, source column): the target point and the step code without a hit."""
    die, column = np.divmod(np.arange(7 * 32), 32)
    source = column + 1
    target = np.maximum(source - die, 0)
    return target, step_code(source, target, 0)


_DELTA, _CAME_HOME = _step_tables()
_TARGET, _CODE = _move_tables()  # (7 * 32,) indexed by die * 32 + column


class StandardRules(Rules):
    """Standard backgammon's movement, end of game and points; any start layout."""

    delta = _DELTA
    came_home = _CAME_HOME

    def steps(self, boards: np.ndarray, dice: np.ndarray, outside: np.ndarray):
        """All single legal steps: each row of ``boards`` moves one checker by its die.

        boards (M, 26) int8, dice (M,) int64, outside (M,) checkers not yet home.
        Returns (parent, code): (S,) row of each step's board and the step's code.
        """
        m = len(boards)
        mine = boards[:, 1:26] > 0  # (M, 25): a checker of ours on source point 1..25
        on_bar = mine[:, 24]
        if on_bar.any():
            mine[on_bar, :24] = False  # a checker on the bar enters before any other move
        all_home = outside == 0
        # landing[:, t + 6] for targets t = -5..24 (t <= 0 bears off, only when all home)
        landing = np.empty((m, 31), dtype=bool)
        landing[:, 0] = False
        landing[:, 1:7] = all_home[:, None]
        np.greater_equal(boards[:, 1:25], -1, out=landing[:, 7:31])  # open: not 2+ of theirs
        # window w = 7 - d holds, at column j, the landing of source j + 1 moved by die d
        windows = np.ndarray((m, 7, 25), dtype=bool, buffer=landing, strides=(31, 1, 1))
        legal = np.zeros((m, 32), dtype=bool)  # 32 columns: row and column are shifts, not //
        np.logical_and(mine, windows[np.arange(m), 7 - dice], out=legal[:, :25])

        bearing = np.flatnonzero(all_home)
        if len(bearing):
            # a die larger than needed bears off only from the highest occupied point
            home = mine[bearing, :6]  # (B, 6)
            highest = 6 - np.argmax(home[:, ::-1], axis=1)  # (B,) 1..6
            lower = _SOURCES[None, :6] < highest[:, None]
            overshoot = _SOURCES[None, :6] < dice[bearing, None]
            legal[bearing, :6] &= ~(lower & overshoot)

        found = np.flatnonzero(legal)
        parent, column = found >> 5, found & 31
        move = dice[parent] * 32 + column  # (die, source) of each step, for the tables
        target = _TARGET[move]  # 0: borne off
        # a blot where we land is hit (for a bear-off, target 0 reads the opponent's bar: masked)
        hit = (boards.reshape(-1)[parent * CELLS + target] == -1) & (target > 0)
        return parent, _CODE[move] + hit

    def step(self, board, source: int, die: int):
        """One checker from ``source`` by ``die``, plainly: (new board, hit) or why not."""
        b = list(board)
        if b[source] <= 0:
            return f"no checker on {'bar' if source == BAR else source}"
        if b[BAR] > 0 and source != BAR:
            return "a checker on the bar must enter first"
        target = source - die
        if target >= 1:
            if b[target] <= -2:
                return f"point {target} is closed"
            hit = b[target] == -1
            b[source] -= 1
            if hit:
                b[target] = 1
                b[0] -= 1  # the hit checker goes to the opponent's bar
            else:
                b[target] += 1
            return tuple(b), hit
        if any(b[p] > 0 for p in range(7, 26)):
            return "checkers bear off only when all of them are in the home board"
        if target < 0 and any(b[p] > 0 for p in range(source + 1, 7)):
            return (f"a {die} bears off from {source} only when no checker stands higher "
                    f"in the home board")
        b[source] -= 1
        return tuple(b), False


STANDARD = StandardRules("standard", 15, ((24, 2), (13, 5), (8, 3), (6, 5)))
NACKGAMMON = StandardRules("nackgammon", 15, ((24, 2), (23, 2), (13, 4), (8, 3), (6, 4)))
HYPERGAMMON = StandardRules("hypergammon", 3, ((24, 1), (23, 1), (22, 1)))
LONGGAMMON = StandardRules("longgammon", 15, ((24, 15),))
