"""Vectorised legal plays: every distinct legal afterstate of a whole batch of (board, roll).

One NumPy step, "move one checker by one die", is applied to a frontier of partial plays;
the only Python loop is over the (at most four) dice steps. Mixed rolls are walked in both
orders, doubles four steps deep, and partial plays reaching the same board are merged after
each step. Per input position the results are the boards at the deepest step reached (use
as many dice as possible); when only one die of a mixed roll can be used, the larger wins
if it can be played.

Each partial play carries an exact two-word key of its change from the root board. Merging
sorts once on the root index (high bits) and a 40-bit hash of that key, so one sort dedups
and orders by root at once; every merge is then checked against the exact key, and a
collision falls back to an exact sort, so results are exact, not probabilistic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CELLS = 26
BAR = 25
HASH_BITS = 40
MAX_BATCH = 1 << (64 - HASH_BITS)  # the root index lives in the high bits of the sort key

# Exact key of a board change: two words, cells 0..12 and 13..25, in balanced base 11.
# One play changes a cell by -5..+5 (four checkers leave; a blot hit and four land), so each
# word is an injective sum(change * 11**i) with |value| < 11**13 / 2.
_BASE = 11
_POWER = np.array([_BASE ** (c % 13) for c in range(CELLS)], dtype=np.int64)
_SOURCES = np.arange(1, 26)  # points 1..24 and the bar
_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F))

@dataclass
class Plays:
    """The legal plays of a batch.

    boards: (K, 26) int8 -- each distinct legal afterstate, still from the mover's view
    root:   (K,) int64 -- index of the input position it came from, sorted ascending
    dice_used: (K,) int8 -- how many dice the play uses (0 when no play is legal)
    packed: (K, 4) int16 -- one play reaching each result, step by step: source << 6 |
            target << 1 | hit, -1 for unused steps (read it through ``steps`` and ``hits``)

    A position with no legal play yields itself once (dice_used 0), so every root appears.
    """

    boards: np.ndarray
    root: np.ndarray
    dice_used: np.ndarray
    packed: np.ndarray

    def __len__(self) -> int:
        return len(self.boards)

    @property
    def steps(self) -> np.ndarray:
        """(K, 4, 2) int8: (from, to) per step; to 0 = borne off, from 25 = the bar;
        unused steps are (-1, -1)."""
        steps = np.empty(self.packed.shape + (2,), dtype=np.int8)
        steps[..., 0] = self.packed >> 6
        steps[..., 1] = (self.packed >> 1) & 31
        steps[self.packed < 0] = -1
        return steps

    @property
    def hits(self) -> np.ndarray:
        """(K, 4) bool: whether each step hit a blot."""
        return (self.packed >= 0) & ((self.packed & 1) == 1)

    def counts(self, n: int) -> np.ndarray:
        """Number of distinct results per input position: (n,)."""
        return np.bincount(self.root, minlength=n)

    def offsets(self, n: int) -> np.ndarray:
        """Start of each input position's results in the arrays: (n + 1,)."""
        return np.concatenate([[0], np.cumsum(self.counts(n))])


@dataclass
class _Level:
    """Partial plays after some number of steps (M rows)."""

    boards: np.ndarray  # (M, 26) int8
    root: np.ndarray  # (M,) int64 input position
    first: np.ndarray  # (M,) int64 die played first (decides which die comes next)
    lo: np.ndarray  # (M,) int64 exact key of the change from the root, cells 0..12
    hi: np.ndarray  # (M,) int64 the same for cells 13..25
    outside: np.ndarray  # (M,) int64 mover's checkers outside the home board (bar included)
    parent: np.ndarray  # (M,) int64 row in the previous level
    step: np.ndarray  # (M,) int16 the last step's code (see _step_code)


def _step_code(source, target, hit):
    """One step as a small int: source << 6 | target << 1 | hit (target 0 = borne off)."""
    return (source << 6) | (target << 1) | hit


def _step_tables():
    """What each step code does: the board change, the exact key change, home entry."""
    size = _step_code(25, 24, 1) + 1
    delta = np.zeros((size, CELLS), dtype=np.int8)  # (C, 26) change of the board
    key = np.zeros((size, 2), dtype=np.int64)  # change of the exact key's two words
    came_home = np.zeros(size, dtype=np.int64)  # 1 when a checker enters the home board
    word = (np.arange(CELLS) >= 13).astype(int)
    for source in range(1, 26):
        for target in range(0, source):
            for hit in (0, 1) if target else (0,):
                code = _step_code(source, target, hit)
                change = np.zeros(CELLS, dtype=np.int64)
                change[source] -= 1
                if target:
                    change[target] += 2 if hit else 1  # a hit blot's point goes -1 -> +1
                change[0] -= hit  # the hit checker goes to the opponent's bar
                delta[code] = change
                for c in np.flatnonzero(change):
                    key[code, word[c]] += change[c] * _POWER[c]
                came_home[code] = source >= 7 and target <= 6
    return delta, key[:, 0].copy(), key[:, 1].copy(), came_home


_DELTA, _KEY_LO, _KEY_HI, _CAME_HOME = _step_tables()


def _move_tables():
    """Per (die, source column): the target point and the step code without a hit."""
    die, column = np.divmod(np.arange(7 * 32), 32)
    source = column + 1
    target = np.maximum(source - die, 0)
    return target, _step_code(source, target, 0)


_TARGET, _CODE = _move_tables()  # (7 * 32,) indexed by die * 32 + column


def _step(boards: np.ndarray, dice: np.ndarray, outside: np.ndarray):
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
    # landing[:, t + 6] for targets t = -5..24 (t <= 0 bears off)
    landing = np.empty((m, 31), dtype=bool)
    landing[:, 0] = False
    landing[:, 1:7] = all_home[:, None]
    np.greater_equal(boards[:, 1:25], -1, out=landing[:, 7:31])  # empty, ours or a blot
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


def _unique_rows(root: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Indices of one row per distinct (root, board change), sorted by root.

    Sorts once on (root, 40-bit hash of the exact key); then checks each merged row's exact
    key against its neighbour's, so a hash collision can never merge two different boards.
    """
    mixed = (lo.view(np.uint64) * _MIX[0]) ^ (hi.view(np.uint64) * _MIX[1])
    full = (root.astype(np.uint64) << np.uint64(HASH_BITS)) | (mixed >> np.uint64(64 - HASH_BITS))
    order = np.argsort(full, kind="stable")  # rows come grouped by root: timsort is quick
    ordered = full[order]
    first = np.ones(len(order), dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    if not first.all():
        # a merged row must equal its neighbour in the exact key too (and so, step by step,
        # the first of its group)
        lo_s, hi_s = lo[order], hi[order]
        same = (lo_s[1:] == lo_s[:-1]) & (hi_s[1:] == hi_s[:-1])
        if not (same | first[1:]).all():
            return _unique_rows_exact(root, lo, hi)
    return order[first]


def _unique_rows_exact(root: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The slower exact path of _unique_rows, taken only after a hash collision."""
    order = np.lexsort((hi, lo, root))
    r, a, b = root[order], lo[order], hi[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = (r[1:] != r[:-1]) | (a[1:] != a[:-1]) | (b[1:] != b[:-1])
    return order[first]


def legal_plays(boards: np.ndarray, dice: np.ndarray) -> Plays:
    """Every distinct legal afterstate of each (board, roll).

    boards (N, 26) int8 from the mover's view; dice (N, 2) int, each 1..6, any order.
    """
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    dice = np.asarray(dice, dtype=np.int64).reshape(-1, 2)
    n = len(boards)
    if n > MAX_BATCH:
        raise ValueError(f"legal_plays takes at most {MAX_BATCH} positions at once, got {n}")
    if n == 0:
        return Plays(np.zeros((0, CELLS), np.int8), np.zeros(0, np.int64),
                     np.zeros(0, np.int8), np.zeros((0, 4), np.int16))
    high = dice.max(axis=1)
    low = dice.min(axis=1)
    double = high == low

    # Level 0: doubles once, mixed rolls twice (larger die first, then smaller first),
    # kept in root order so that every level stays sorted by root.
    root0 = np.repeat(np.arange(n), 2 - double)
    k0 = len(root0)
    second = np.zeros(k0, dtype=bool)
    second[1:] = root0[1:] == root0[:-1]
    outside = np.where(boards[:, 7:26] > 0, boards[:, 7:26], 0).sum(axis=1, dtype=np.int64)
    zeros = np.zeros(k0, np.int64)
    levels = [_Level(boards[root0], root0, np.where(second, low[root0], high[root0]),
                     zeros, zeros, outside[root0], np.full(k0, -1), np.full(k0, -1, np.int16))]

    for depth in range(4):
        level = levels[-1]
        if depth < 2:
            rows, now = None, level  # every partial play takes another step
        else:  # mixed rolls stopped after two steps
            rows = np.flatnonzero(double[level.root])
            if len(rows) == 0:
                break
            now = _Level(np.take(level.boards, rows, axis=0), None, level.first[rows],
                         None, None, level.outside[rows], None, None)
        if depth == 1:  # a mixed roll plays the other die second (a double the same)
            die = high[level.root] + low[level.root] - level.first
        else:
            die = now.first
        parent, code = _step(now.boards, die, now.outside)
        if len(parent) == 0:
            break
        whole = parent if rows is None else rows[parent]  # rows of the whole level
        root = level.root[whole]
        lo = level.lo[whole] + _KEY_LO[code]
        hi = level.hi[whole] + _KEY_HI[code]
        if depth > 0:  # (one step from one board never repeats a board)
            # merge partial plays that reach the same board, then build only the kept ones
            keep = _unique_rows(root, lo, hi)
            parent, code, whole, root, lo, hi = (
                parent[keep], code[keep], whole[keep], root[keep], lo[keep], hi[keep])
        levels.append(_Level(
            np.take(now.boards, parent, axis=0) + np.take(_DELTA, code, axis=0), root,
            level.first[whole], lo, hi, level.outside[whole] - _CAME_HOME[code], whole,
            code.astype(np.int16)))
    return _collect(levels, n, high, double)


def _picks(levels: list[_Level], n: int, high: np.ndarray,
           double: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """Each root's results: the rows of its deepest level, as (depth, rows) per level.

    Level 0 lists a mixed root twice (one per order) and level 1 holds one-die plays of
    both dice: when only one die can be played, the larger must be when it can be.
    """
    if n == 1:  # one position: its deepest level is the last one
        depth = len(levels) - 1
        level = levels[depth]
        if depth >= 2 or double[0]:
            return [(depth, np.arange(len(level.root)))]
        larger = level.first == high[0]
        return [(depth, np.flatnonzero(larger) if depth == 0 or larger.any()
                 else np.arange(len(level.root)))]
    deepest = np.zeros(n, dtype=np.int64)
    for depth, level in enumerate(levels):
        deepest[level.root] = depth
    larger_ok = np.zeros(n, dtype=bool)
    if len(levels) > 1:
        one = levels[1]
        larger_ok[one.root[one.first == high[one.root]]] = True
    picks = []
    for depth, level in enumerate(levels):
        mine = deepest[level.root] == depth
        if depth <= 1:
            plays_larger = level.first == high[level.root]
            mine &= plays_larger | double[level.root] | ((depth == 1) & ~larger_ok[level.root])
        rows = np.flatnonzero(mine)
        if len(rows):
            picks.append((depth, rows))
    return picks


def _collect(levels: list[_Level], n: int, high: np.ndarray, double: np.ndarray) -> Plays:
    """Gather each root's results, in root order, and trace one play back to each."""
    picks = _picks(levels, n, high, double)
    roots = [levels[d].root[rows] for d, rows in picks]
    if len(picks) == 1:  # every level is in root order already
        roots = roots[0]
        by_root = where = slice(None)
    else:
        # place each pick straight at its sorted position: one copy of the boards, not two
        roots = np.concatenate(roots)
        by_root = np.argsort(roots, kind="stable")
        where = np.empty(len(roots), dtype=np.int64)
        where[by_root] = np.arange(len(roots))
    k = len(roots)
    out = np.empty((k, CELLS), dtype=np.int8)
    used = np.empty(k, dtype=np.int8)
    packed = np.full((k, 4), -1, dtype=np.int16)
    start = 0
    for depth, rows in picks:
        at = where if len(picks) == 1 else where[start:start + len(rows)]
        start += len(rows)
        out[at] = np.take(levels[depth].boards, rows, axis=0)
        used[at] = depth
        cur = rows
        for d in range(depth, 0, -1):  # walk the parents back to the root
            packed[at, d - 1] = levels[d].step[cur]
            cur = levels[d].parent[cur]
    return Plays(out, roots[by_root], used, packed)
