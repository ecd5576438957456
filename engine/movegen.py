"""Vectorised legal plays: every distinct legal afterstate of a whole batch of (board, roll).

One NumPy step, "move one checker by one die", is applied to a frontier of partial plays;
the only Python loop is over the (at most four) dice steps. Mixed rolls are walked in both
orders, doubles four steps deep, and partial plays reaching the same board are merged after
each step. Per input position the results are the boards at the deepest step reached (use
as many dice as possible); when only one die of a mixed roll can be used, the larger wins
if it can be played.

Merging uses a 40-bit hash of the change from the root board with the root index in the
high bits, so one sort dedups and orders by root at once. Every merge is then verified
cell by cell against the board kept, and a (never yet seen) collision falls back to an
exact sort, so results are exact, not probabilistic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CELLS = 26
BAR = 25
HASH_BITS = 40
_HASH_MASK = np.uint64((1 << HASH_BITS) - 1)
_ORDER_SALT = np.uint64(0x9E3779B97F4A7C15)

# Random odd 64-bit weight per cell; the hash of a board change is sum(change * weight).
_W = (np.random.default_rng(20261129).integers(0, 2**63, CELLS, dtype=np.uint64) * 2 + 1)
_W_OPP_BAR = _W[0]
# pieces of the hash change for a step landing on point t: plain, hitting, bearing off
_LAND = np.concatenate([np.zeros(1, np.uint64), _W[1:25]])  # index t (0 = off)
_LAND_HIT = _LAND * np.uint64(2) - _W_OPP_BAR

_SOURCES = np.arange(1, 26)  # points 1..24 and the bar


@dataclass
class Plays:
    """The legal plays of a batch.

    boards: (K, 26) int8 -- each distinct legal afterstate, still from the mover's view
    root:   (K,)  int64  -- index of the input position it came from, sorted ascending
    steps:  (K, 4, 2) int8 -- one play reaching it: (from, to) per step, to 0 = borne off,
            from 25 = the bar; unused steps are (-1, -1)
    hits:   (K, 4) bool  -- whether each step hit a blot
    dice_used: (K,) int8 -- how many dice the play uses (0 when no play is legal)

    A position with no legal play yields itself once (dice_used 0), so every root appears.
    """

    boards: np.ndarray
    root: np.ndarray
    steps: np.ndarray
    hits: np.ndarray
    dice_used: np.ndarray

    def __len__(self) -> int:
        return len(self.boards)

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
    root: np.ndarray  # (M,) int64
    order: np.ndarray  # (M,) int8: 0 = larger die first, 1 = smaller first
    key: np.ndarray  # (M,) uint64: hash of the change from the root board
    parent: np.ndarray  # (M,) int64 row in the previous level
    source: np.ndarray  # (M,) int8 point the last step left
    target: np.ndarray  # (M,) int8 point it reached, 0 = off
    hit: np.ndarray  # (M,) bool


def _step(boards: np.ndarray, dice: np.ndarray, active: np.ndarray):
    """All single legal steps: each active row of ``boards`` moves one checker by its die.

    boards (M, 26) int8, dice (M,) int, active (M,) bool. Returns (parent, source, target, hit, children):
    (S,) arrays and children (S, 26) int8.
    """
    m = len(boards)
    mine = boards[:, 1:26] > 0  # (M, 25): a checker of ours on source point 1..25
    mine &= active[:, None]
    on_bar = boards[:, BAR] > 0
    mine[:, :24] &= ~on_bar[:, None]  # a checker on the bar enters before any other move

    all_home = ~(boards[:, 7:26] > 0).any(axis=1)  # (M,)
    # landing[:, t + 6] for targets t = -5..24 (t <= 0 bears off)
    landing = np.empty((m, 31), dtype=bool)
    landing[:, 0] = False
    landing[:, 1:7] = all_home[:, None]
    landing[:, 7:31] = boards[:, 1:25] >= -1  # open: empty, ours or a single blot
    # window w = 7 - die gives, at column j, the landing of source j + 1 minus that die
    windows = np.lib.stride_tricks.sliding_window_view(landing, 25, axis=1)  # (M, 7, 25)
    legal = mine & windows[np.arange(m), 7 - dice]

    # bearing off with a die larger than needed: only from the highest occupied point
    overshoot = _SOURCES[None, :] < dice[:, None]  # (M, 25)
    if overshoot.any():
        highest = 25 - np.argmax(mine[:, ::-1] | (boards[:, 25:0:-1] > 0), axis=1)
        legal &= ~overshoot | (_SOURCES[None, :] >= highest[:, None])

    parent, col = np.nonzero(legal)
    source = col + 1
    target = source - dice[parent]
    on_point = target > 0
    target = np.where(on_point, target, 0)
    children = boards[parent]  # (S, 26) copy
    s = len(parent)
    flat = children.reshape(-1)
    base = np.arange(s) * CELLS
    flat[base + source] -= 1
    hit = on_point & (flat[base + target] == -1)
    landed = base[on_point] + target[on_point]
    flat[landed] += np.where(hit[on_point], 2, 1).astype(np.int8)
    flat[base[hit]] -= 1  # the hit checker goes to the opponent's bar (cell 0)
    return parent, source, target, hit, children


def _unique_rows(key: np.ndarray, root: np.ndarray, boards: np.ndarray) -> np.ndarray:
    """Indices of one row per distinct (root, board), sorted by (root, key)."""
    full = (root.astype(np.uint64) << np.uint64(HASH_BITS)) | (key & _HASH_MASK)
    order = np.argsort(full, kind="stable")
    ordered = full[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    keep = order[first]
    if not first.all():
        group = np.cumsum(first) - 1
        if not (boards[order] == boards[keep[group]]).all():
            return _unique_rows_exact(root, boards)
    return keep


def _unique_rows_exact(root: np.ndarray, boards: np.ndarray) -> np.ndarray:
    """The slow, exact path of _unique_rows, used only on a hash collision."""
    columns = [boards[:, c] for c in range(CELLS - 1, -1, -1)] + [root]
    order = np.lexsort(columns)
    rows = np.column_stack([root, boards])[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    return order[first]


def legal_plays(boards: np.ndarray, dice: np.ndarray) -> Plays:
    """Every distinct legal afterstate of each (board, roll).

    boards (N, 26) int8 from the mover's view; dice (N, 2) int, each 1..6, any order.
    """
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    dice = np.asarray(dice)
    n = len(boards)
    high = dice.max(axis=1).astype(np.int64)
    low = dice.min(axis=1).astype(np.int64)
    double = high == low

    # Level 0: doubles once, mixed rolls twice (larger die first, smaller first).
    mixed = np.nonzero(~double)[0]
    root0 = np.concatenate([np.arange(n), mixed])
    order0 = np.concatenate([np.zeros(n, np.int8), np.ones(len(mixed), np.int8)])
    empty8 = np.full(len(root0), -1, np.int8)
    levels = [_Level(boards[root0], root0, order0, np.zeros(len(root0), np.uint64),
                     np.full(len(root0), -1), empty8, empty8, np.zeros(len(root0), bool))]

    for depth in range(4):
        level = levels[-1]
        r = level.root
        active = double[r] | (depth < 2)  # mixed rolls stop after two steps
        if not active.any():
            break
        larger_now = (level.order == 0) ^ (depth == 1)
        die = np.where(double[r] | larger_now, high[r], low[r])
        parent, source, target, hit, children = _step(level.boards, die, active)
        if len(parent) == 0:
            break
        key = level.key[parent] - _W[source] + np.where(hit, _LAND_HIT[target], _LAND[target])
        order = level.order[parent]
        # after the first step of a mixed roll the dice left differ by order: keep both
        salted = key + _ORDER_SALT * order.astype(np.uint64) if depth == 0 else key
        rows = level.root[parent]
        keep = _unique_rows(salted, rows, children)
        levels.append(_Level(children[keep], rows[keep], order[keep], key[keep],
                             parent[keep],
                             source[keep].astype(np.int8), target[keep].astype(np.int8),
                             hit[keep]))
    return _collect(levels, n, high, double)


def _collect(levels: list[_Level], n: int, high: np.ndarray, double: np.ndarray) -> Plays:
    """Pick the results of each root from its deepest level and trace one play back."""
    deepest = np.zeros(n, dtype=np.int64)
    for depth, level in enumerate(levels):
        deepest[level.root] = depth

    picked_depth, picked_rows = [], []
    for depth, level in enumerate(levels):
        if depth == 0:
            # level 0 holds mixed roots twice; take each root's first copy
            rows = np.nonzero(deepest[level.root] == 0)[0]
            rows = rows[level.order[rows] == 0]
        else:
            rows = np.nonzero(deepest[level.root] == depth)[0]
        if depth == 1 and len(rows):
            # only one die of a mixed roll can be used: the larger when it can be
            r = level.root[rows]
            one_die = ~double[r]
            has_larger = np.zeros(n, dtype=bool)
            has_larger[r[one_die & (level.order[rows] == 0)]] = True
            drop = one_die & has_larger[r] & (level.order[rows] == 1)
            rows = rows[~drop]
        picked_depth.append(np.full(len(rows), depth, np.int8))
        picked_rows.append(rows)

    depth_of = np.concatenate(picked_depth)
    parts = [(levels[d], rows) for d, rows in enumerate(picked_rows)]
    roots = np.concatenate([lv.root[rows] for lv, rows in parts])
    out_boards = np.concatenate([lv.boards[rows] for lv, rows in parts])
    order = np.argsort(roots, kind="stable")

    k = len(roots)
    steps = np.full((k, 4, 2), -1, dtype=np.int8)
    hits = np.zeros((k, 4), dtype=bool)
    offset = 0
    for depth, (level, rows) in enumerate(parts):
        cur = rows
        span = slice(offset, offset + len(rows))
        for d in range(depth, 0, -1):
            lv = levels[d]
            steps[span, d - 1, 0] = lv.source[cur]
            steps[span, d - 1, 1] = lv.target[cur]
            hits[span, d - 1] = lv.hit[cur]
            cur = lv.parent[cur]
        offset += len(rows)
    return Plays(out_boards[order], roots[order], steps[order], hits[order], depth_of[order])
