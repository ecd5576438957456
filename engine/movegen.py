"""Vectorised legal plays: every distinct legal afterstate of a whole batch of (board, roll).

One NumPy step, "move one checker by one die" (the rules object's ``steps``, with its tables
of what each step code does), is applied to a frontier of partial plays;
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

from .plays import Plays
from .rules import STANDARD, Rules, variant

CELLS = 26
BAR = 25
HASH_BITS = 40
MAX_BATCH = 1 << (64 - HASH_BITS)  # the root index lives in the high bits of the sort key

# Exact key of a board change: two words, cells 0..12 and 13..25, in balanced base 11.
# One play changes a cell by -5..+5 (four checkers leave; a blot hit and four land), so each
# word is an injective sum(change * 11**i) with |value| < 11**13 / 2. A rules object that
# tracks a play state (``Rules.track``, small non-negative ints) adds state * 11**13 to the
# second word for merging: still exact, so plays in different states are never merged.
_BASE = 11
_POWER = np.array([_BASE ** (c % 13) for c in range(CELLS)], dtype=np.int64)
_STATE_UNIT = _BASE ** 13
_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F))


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
    step: np.ndarray  # (M,) int16 the last step's code (the rules' code, packed as in Plays)
    state: np.ndarray | None = None  # (M,) int64 the rules' play state, when they track one


def _key_tables(rules) -> tuple[np.ndarray, np.ndarray]:
    """The change of the exact key's two words for each of the rules' step codes."""
    if rules not in _KEYS:  # rules objects hash by identity
        # the change the key follows: the cells, unless the rules name another exact one
        change = (rules.delta if rules.key_delta is None else rules.key_delta).astype(np.int64)  # (C, 26)
        low = np.where(np.arange(CELLS) < 13, _POWER, 0)
        _KEYS[rules] = (change @ low, change @ (_POWER - low))
    return _KEYS[rules]


_KEYS: dict = {}


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


def legal_plays(boards: np.ndarray, dice: np.ndarray, rules: Rules = STANDARD) -> Plays:
    """Every distinct legal afterstate of each (board, roll) under ``rules``.

    boards (N, 26) int8 from the mover's view; dice (N, 2) int, each 1..6, any order.
    The rules give the single steps; the rules on whole plays are the generator's: "both
    numbers of a roll must be played if possible" (doubles: four times); "if either number
    can be played but not both, the larger one must be played"; then the rules' own filter
    on whole plays, if they have one.
    """
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    dice = np.asarray(dice, dtype=np.int64).reshape(-1, 2)
    n = len(boards)
    if n > MAX_BATCH:
        raise ValueError(f"legal_plays takes at most {MAX_BATCH} positions at once, got {n}")
    rules = variant(rules)
    key_lo, key_hi = _key_tables(rules)
    delta, came_home = rules.delta, rules.came_home
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
    outside = rules.outside(boards)
    zeros = np.zeros(k0, np.int64)
    track = rules.track  # None for rules without a play state
    levels = [_Level(boards[root0], root0, np.where(second, low[root0], high[root0]),
                     zeros, zeros, outside[root0], np.full(k0, -1), np.full(k0, -1, np.int16),
                     None if track is None else zeros)]

    for depth in range(4):
        level = levels[-1]
        if depth < 2:
            rows, now = None, level  # every partial play takes another step
        else:  # mixed rolls stopped after two steps
            rows = np.flatnonzero(double[level.root])
            if len(rows) == 0:
                break
            now = _Level(np.take(level.boards, rows, axis=0), None, level.first[rows],
                         None, None, level.outside[rows], None, None,
                         None if track is None else level.state[rows])
        if depth == 1:  # a mixed roll plays the other die second (a double the same)
            die = high[level.root] + low[level.root] - level.first
        else:
            die = now.first
        parent, code = rules.steps(now.boards, die, now.outside)
        if len(parent) == 0:
            break
        state = None
        if track is not None:  # the rules follow something along the play (may branch)
            branch, state = track(now.boards, parent, code, now.state)
            parent, code = parent[branch], code[branch]
        whole = parent if rows is None else rows[parent]  # rows of the whole level
        root = level.root[whole]
        lo = level.lo[whole] + key_lo[code]
        hi = level.hi[whole] + key_hi[code]
        if depth > 0:  # (one step from one board never repeats a board)
            # merge partial plays that reach the same board, then build only the kept ones
            keep = _unique_rows(root, lo, hi if state is None else hi + state * _STATE_UNIT)
            parent, code, whole, root, lo, hi = (
                parent[keep], code[keep], whole[keep], root[keep], lo[keep], hi[keep])
            state = None if state is None else state[keep]
        levels.append(_Level(
            np.take(now.boards, parent, axis=0) + np.take(delta, code, axis=0), root,
            level.first[whole], lo, hi, level.outside[whole] - came_home[code], whole,
            code.astype(np.int16), state))
    plays = _collect(levels, n, high, double)
    if rules.filter_plays is not None:
        plays = rules.filter_plays(plays, boards, dice)
    return plays


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
    state = None if levels[0].state is None else np.empty(k, dtype=np.int64)
    start = 0
    for depth, rows in picks:
        at = where if len(picks) == 1 else where[start:start + len(rows)]
        start += len(rows)
        out[at] = np.take(levels[depth].boards, rows, axis=0)
        used[at] = depth
        if state is not None:
            state[at] = levels[depth].state[rows]
        cur = rows
        for d in range(depth, 0, -1):  # walk the parents back to the root
            packed[at, d - 1] = levels[d].step[cur]
            cur = levels[d].parent[cur]
    return Plays(out, roots[by_root], used, packed, state)
