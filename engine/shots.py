"""Shots: how the opponent, on roll next, can hit the mover's blots, over its 36 rolls.

Boards are seen from the mover (``engine.board``); the opponent's checkers move up, from its
bar (cell 0) towards point 24. Every board of a batch is a few 25-bit masks (bit q = cell q:
bit 0 the opponent's bar, bits 1..24 the points), so "an opponent checker d pips behind a
blot" is a shift and an AND over the whole batch, once per roll of the dice (21 rolls).

Used by the heuristic bot (``eval.bots.heuristic``) and the networks' expert inputs
(``model.features``). NumPy only.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

FULL = np.uint32((1 << 25) - 1)  # bits 0..24: the opponent's bar and the 24 points
ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]  # the 21 distinct rolls
ROLL_WEIGHTS = [np.float32(1 if a == b else 2) for a, b in ROLLS]  # of 36
_ZERO = np.uint32(0)


def cell_masks(cond: np.ndarray) -> np.ndarray:
    """(..., W) bool over cells 0..W-1, W <= 32 -> (...) uint32 with bit q set where
    cond[..., q]."""
    padded = np.zeros(cond.shape[:-1] + (32,), dtype=bool)  # rows of 4 bytes: one flat pack
    padded[..., :cond.shape[-1]] = cond
    return np.packbits(padded, bitorder="little").view("<u4").reshape(cond.shape[:-1])


def board_masks(boards: np.ndarray, tests) -> np.ndarray:
    """Masks of cells 0..25 of boards (K, 26) int8 where each test (a ufunc and a number,
    false on an empty cell, e.g. (np.less, 0)) holds: (len(tests), K) uint32, in one pack."""
    padded = np.zeros((len(boards), 32), dtype=np.int8)  # rows of 32 cells: 4 bytes packed
    padded[:, :26] = boards
    found = np.empty((len(tests), len(boards), 32), dtype=bool)
    for out, (test, value) in zip(found, tests):
        test(padded, value, out=out)
    return np.packbits(found, bitorder="little").view("<u4").reshape(len(tests), -1)


def _many(bits: np.ndarray) -> np.ndarray:
    """Masks holding two bits or more: (K,) bool."""
    return (bits & (bits - np.uint32(1))) > 0


class ShotMasks(NamedTuple):
    """A batch of boards as masks for shot counting, (K,) each."""

    src: np.ndarray  # uint32: cells holding opponent checkers (bit 0 its bar)
    doubled: np.ndarray  # uint32: points holding two opponent checkers or more
    open_: np.ndarray  # uint32: cells where the opponent may land (fewer than two of ours)
    blot: np.ndarray  # uint32: our blots
    on_bar: np.ndarray  # int64: opponent checkers on its bar


SIDES = ((np.less, 0), (np.less, -1), (np.greater, 0), (np.greater, 1))
"""``board_masks`` tests of the cells holding opponent checkers, two or more of them, our
checkers, two or more of ours: what ``shot_masks`` is made of."""


def shot_masks(boards: np.ndarray, sides: np.ndarray | None = None) -> ShotMasks:
    """The masks of boards (K, 26) int8 (our blots are never on cell 0; cell 25, our bar,
    is left out), from their ``board_masks`` by SIDES when given."""
    cells = np.ascontiguousarray(boards, dtype=np.int8)
    theirs, their_points, ours, our_points = board_masks(cells, SIDES) if sides is None else sides
    return ShotMasks(theirs, their_points & ~np.uint32(1), ~our_points & FULL,
                     ours & ~our_points & FULL, -cells[:, 0].astype(np.int64))


_MIXED = [r for r, (a, b) in enumerate(ROLLS) if a != b]  # rows of the 15 mixed rolls
_FIRST = np.array([[ROLLS[r][0]] for r in _MIXED], dtype=np.uint32)  # (15, 1) smaller die
_SECOND = np.array([[ROLLS[r][1]] for r in _MIXED], dtype=np.uint32)  # (15, 1) larger die
_GAP = _SECOND - _FIRST
_DIE = np.arange(1, 7, dtype=np.uint32)[:, None]  # (6, 1): the dice, and the doubles' die
_I1, _I2 = _FIRST[:, 0] - 1, _SECOND[:, 0] - 1  # rows of the dice in (6, K) tables


def _lowest(bits: np.ndarray) -> np.ndarray:
    """The lowest set bit of each mask (0 for none)."""
    return bits & (_ZERO - bits)


def _mixed_two_hits(hit_by, lone_by, blot) -> np.ndarray:
    """Whether each mixed roll hits two blots, no opponent checker on the bar: (15, K) bool.

    Either one checker hits with one die and goes on to hit again with the other, or one
    checker hits with the smaller die d1 and another with the larger d2. The second fails
    only when both hits need the same lone checker: the blots a (hit with d1) and
    a + d2 - d1 (hit with d2) both from point a - d1 holding one checker. hit_by[d - 1],
    lone_by[d - 1] (6, K): the blots die d hits, those it hits from a point of one checker.
    """
    t1, t2 = hit_by[_I1], hit_by[_I2]  # (15, K) blots hit with d1, with d2
    chain = ((t1 << _SECOND) | (t2 << _FIRST)) & blot
    low = _lowest(hit_by)  # (6, K): the lowest blot each die hits, the next, more?
    rest = hit_by ^ low
    high = _lowest(rest)
    more = (rest ^ high) > 0
    lone1 = lone_by[_I1]

    def with_other(b):  # a blot hit with d1 besides b and not by b's own lone checker
        return (b > 0) & ((t1 & ~(b | ((b >> _GAP) & lone1))) > 0)

    return ((chain > 0) | (more[_I2] & (t1 > 0)) | with_other(low[_I2])
            | with_other(high[_I2]))


def _double_walk(d, sources, open_, blot, two: bool):
    """The double d-d, four steps, no opponent checker on the bar: (mask of the blots it
    can hit, whether it can hit two), (K,) each, or (R, K) for doubles d (R, 1) uint32.

    A checker takes up to four steps of d, every stop open. Two blots are hit when one
    checker hits, goes on and hits again, or two checkers hit blots whose nearest steps add
    up to four at most (with the same lone checker nearest to both, it hits one on its way
    to the other).
    """
    within, chain = _walk(d, sources, open_, blot, _ZERO, 4, two)
    if not two:
        return within[4], False
    # the nearer blot within 1 step and the other within 3, or both within 2
    return within[4], chain | ((within[1] > 0) & _many(within[3])) | _many(within[2])


def _bar_double_walk(d, sources, open_, blot, steps: np.ndarray, entry_hit, two: bool):
    """The doubles d-d (R, 1) uint32 after the bar checkers entered (hitting ``entry_hit``,
    (R, K)): (masks of the blots they can hit, whether they can hit two), (R, K) each. The
    checkers on ``sources`` have ``steps`` (K,) 0..3 steps left; two blots are hit as in
    ``_double_walk``, the entering hit costing no step."""
    within, chain = _walk(d, sources, open_, blot, entry_hit, steps, two)
    if not two:
        return within[3], False
    nearest_two = (within[0] > 0) & _many(within[3])  # the entry hit and another
    return within[3], (chain | nearest_two | ((steps == 3) & (within[1] > 0) & _many(within[2]))
                       | ((steps == 2) & _many(within[1])))


def _walk(d, sources, open_, blot, entry_hit, steps, two: bool):
    """Checkers on ``sources`` stepping d over open stops: (within, chain), where within[k]
    holds the blots hit with k steps or fewer (within[0]: ``entry_hit``) and chain whether
    one checker hits twice. ``steps``: 4, or (K,) 0..3 per board (further steps are not
    taken there; within[3] then holds every blot hit)."""
    reached = sources  # where a checker stands after k steps over open points
    hit_on_way = _ZERO  # ... having hit on the way (or just now)
    within = [entry_hit]
    chain = False
    d = d if isinstance(d, np.ndarray) else np.uint32(d)  # or (R, 1) uint32: several doubles
    for k in range(1, 4 if np.ndim(steps) else steps + 1):
        moved = reached << d
        hit = moved & blot
        allowed = None if np.ndim(steps) == 0 else _ZERO - (steps >= k).astype(np.uint32)
        if allowed is not None:
            hit &= allowed
        if two:
            again = (hit_on_way << d) & blot
            chain = chain | ((again if allowed is None else again & allowed) > 0)
            hit_on_way = ((hit_on_way << d) & open_) | hit
        reached = moved & open_
        within.append(within[-1] | hit)
    return within, chain


def _bar_mixed(d1, d2, m: ShotMasks, two: bool):
    """Mixed rolls d1-d2 ((R, 1) uint32 arrays, or numbers) with opponent checkers on the
    bar: (masks of the blots they can hit, whether they can hit two), (R, K) each. With one
    checker there, one die enters and the other moves any checker (the entered one too);
    with two or more, only entering checkers move. A closed entry point blocks its die."""
    one, b1, b2 = np.uint32(1), np.uint32(1) << d1, np.uint32(1) << d2
    points = m.src & ~one
    alone = _ZERO - (m.on_bar == 1).astype(np.uint32)  # all bits where one is there
    in1 = _ZERO - ((m.open_ >> d1) & one)  # all bits where d1 enters
    in2 = _ZERO - ((m.open_ >> d2) & one)
    then1 = ((points | b1) << d2) & alone  # after entering with d1, d2 moves on
    then2 = ((points | b2) << d1) & alone
    hits = (((b1 | then1) & in1) | ((b2 | then2) & in2)) & m.blot
    if not two:
        return hits, False
    at1, at2 = (m.blot & b1) > 0, (m.blot & b2) > 0  # a blot on the entry point: open
    again1 = (then1 & m.blot & ~b1) > 0
    again2 = (then2 & m.blot & ~b2) > 0
    return hits, (at1 & again1) | (at2 & again2) | ((alone == 0) & at1 & at2)


def _free_rolls(m: ShotMasks, two: bool):
    """No opponent checker on the bar, all the rolls at once: ((blots hit (15, K), two hit
    (15, K) or None, 2), (the same (6, K) for the doubles, 1)), each with its rolls of 36."""
    ahead = m.src << _DIE  # (6, K): the opponent's checkers moved by each die
    landed = ahead & m.open_  # ... where they may stop on the way
    # mixed rolls: one die, or both through an open point
    mixed = (ahead[_I1] | ahead[_I2] | (landed[_I1] << _SECOND)
             | (landed[_I2] << _FIRST)) & m.blot
    doubles, pair = _double_walk(_DIE, m.src, m.open_, m.blot, two)
    if not two:
        return (mixed, None, 2), (doubles, None, 1)
    hit_by = ahead & m.blot
    return ((mixed, _mixed_two_hits(hit_by, hit_by & ~(m.doubled << _DIE), m.blot), 2),
            (doubles, pair, 1))


def _barred_rolls(m: ShotMasks, two: bool):
    """The opponent on the bar, all the rolls at once (few rows): as ``_free_rolls``."""
    mixed, mixed_pair = _bar_mixed(_FIRST, _SECOND, m, two)
    # the doubles: the bar checkers enter on point d first, then the steps left move on
    entry = np.uint32(1) << _DIE  # (6, 1)
    enter = (m.open_ & entry) > 0  # (6, K)
    steps = 4 - np.minimum(m.on_bar, 4)
    hit, pair = _bar_double_walk(_DIE, (m.src & ~np.uint32(1)) | entry, m.open_, m.blot,
                                 steps, m.blot & entry, two)
    doubles = np.where(enter, hit, _ZERO)
    if not two:
        return (mixed, None, 2), (doubles, None, 1)
    return (mixed, mixed_pair, 2), (doubles, enter & pair, 1)


_PIPS_BY_EXPONENT = 152  # 2**q has float32 exponent byte 127 + q: pips lost 25 - q = 152 - it


def _tally(groups, two: bool) -> np.ndarray:
    """Hit masks and two-hit flags of groups of rolls ((R, K) each, with the group's rolls
    of 36 per roll) -> (rolls hitting, pips lost[, rolls hitting two]) out of 36: (2 or 3,
    K) float32, whole numbers, summed exactly in integers."""
    rolls = pips = pairs = 0
    for hits, pair, weight in groups:
        # the lowest blot hit by each roll: the float32 exponent byte of its bit names it
        # (127 + its cell; 0 for no hit), so its pips lost are 152 less the byte
        byte = (hits & (_ZERO - hits)).astype(np.float32).view(np.int32) >> 23  # (R, K)
        hit = np.count_nonzero(byte, axis=0)
        rolls = rolls + weight * hit
        pips = pips + weight * (_PIPS_BY_EXPONENT * hit - byte.sum(axis=0))
        if two:
            pairs = pairs + weight * np.count_nonzero(pair, axis=0)
    counts = (rolls, pips, pairs) if two else (rolls, pips)
    return np.stack(counts).astype(np.float32)


def shot_rolls(m: ShotMasks, two: bool = False):
    """Hits of the opponent's next roll, counted in rolls out of 36: (rolls hitting at least
    one blot, pips lost summed over them) and, with ``two``, rolls hitting two blots or
    more; (K,) float32 each, whole numbers. See ``opponent_shots`` for what is counted.

    Shifts stay inside 32 bits without masking: a mask ANDed with ``open_`` or ``blot`` has
    bits 0..24 only, and one die moves it at most 6 further.
    """
    if not (m.on_bar > 0).any():
        return tuple(_tally(_free_rolls(m, two), two))
    out = np.empty((3 if two else 2, len(m.src)), dtype=np.float32)
    shot_rolls_into(m, np.arange(len(m.src)), two, out)
    return tuple(out)  # out of 36 rolls (whole numbers, exact in float32)


def shot_rolls_into(m: ShotMasks, rows: np.ndarray, two: bool, out: np.ndarray) -> None:
    """``shot_rolls`` of the boards ``rows`` (int indices) of ``m``, written into
    ``out[:2 or 3, rows]`` ((2 or 3, K) float32): the rows with opponent checkers on the
    bar and the others each gathered once from ``m``."""
    barred = m.on_bar[rows] > 0
    for pick, rolls in ((rows[~barred], _free_rolls), (rows[barred], _barred_rolls)):
        if len(pick):
            out[:3 if two else 2, pick] = _tally(rolls(ShotMasks(*(a[pick] for a in m)), two),
                                                 two)


def opponent_shots(afterstates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How the opponent, on roll next, can hit our blots: (chance, expected pips lost), (K,).

    Counted over the 36 rolls: a die hits from a checker that many pips behind a blot; both
    dice (or a double's 2..4 steps) hit when the points touched on the way are open. The
    opponent's bar checkers must come in first: with one on the bar, one die enters and the
    other moves any checker; with two or more, only the entering checkers can hit; a closed
    entry point blocks its die. Pips lost per roll are those of the blot nearest our home
    (25 - point), the worst hit the opponent can choose. Checked against the engine's legal
    plays (tests): no hit is missed; rarely (about one position in 300) a hit is counted that
    the rule "use both dice when you can" forbids.
    """
    a = np.ascontiguousarray(afterstates, dtype=np.int8)  # (K, 26)
    chance, lost = shot_rolls(shot_masks(a))
    return chance.astype(np.float64) / 36, lost.astype(np.float64) / 36
