"""Shots: how the opponent, on roll next, can hit the mover's blots, over its 36 rolls.

Boards are seen from the mover (``engine.board``); the opponent's checkers move up, from its
bar (cell 0) towards point 24. Every board of a batch is a few 25-bit masks (bit q = cell q:
bit 0 the opponent's bar, bits 1..24 the points), so "an opponent checker d pips behind a
blot" is a shift and an AND over the whole batch, once per roll of the dice (21 rolls).

Used by the heuristic bot (``eval.heuristic``) and the networks' expert inputs
(``model.features``). NumPy only.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

FULL = np.uint32((1 << 25) - 1)  # bits 0..24: the opponent's bar and the 24 points
ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]  # the 21 distinct rolls
ROLL_WEIGHTS = [np.float32(1 if a == b else 2) for a, b in ROLLS]  # of 36
_ZERO = np.uint32(0)
# pips lost when a blot on the lowest hit cell is hit, indexed by the float32 exponent byte of
# that cell's bit (2**q has exponent byte 127 + q; no hit, 0.0, has 0)
_LOSS_BY_EXPONENT = np.zeros(256, dtype=np.float32)
_LOSS_BY_EXPONENT[127:152] = 25 - np.arange(25)


def cell_masks(cond: np.ndarray) -> np.ndarray:
    """(K, 25) bool over cells 0..24 -> (K,) uint32 with bit q set where cond[:, q]."""
    packed = np.packbits(cond, axis=1, bitorder="little")  # (K, 4) uint8, bits 25..31 zero
    return np.ascontiguousarray(packed).view("<u4").ravel()


def _shift(bits: np.ndarray, pips: int) -> np.ndarray:
    """Opponent checkers in ``bits`` moved ``pips`` further (bearing off drops out)."""
    return (bits << np.uint32(pips)) & FULL


def _many(bits: np.ndarray) -> np.ndarray:
    """Masks holding two bits or more: (K,) bool."""
    return (bits & (bits - np.uint32(1))) > 0


def _bar_hits(d1: int, d2: int, src, open_, blot, on_bar):
    """Hit masks for a mixed roll when the opponent has checkers on the bar (K' rows)."""
    points = src & ~np.uint32(1)
    b1, b2 = np.uint32(1 << d1), np.uint32(1 << d2)
    in1, in2 = (open_ & b1) > 0, (open_ & b2) > 0  # may enter with d1, with d2
    one = on_bar == 1  # one enters, the other die moves any checker; else only entering hits
    hits1 = np.where(in1, (b1 | np.where(one, _shift(points | b1, d2), _ZERO)) & blot, _ZERO)
    hits2 = np.where(in2, (b2 | np.where(one, _shift(points | b2, d1), _ZERO)) & blot, _ZERO)
    return hits1 | hits2


def _bar_two_hits(d1: int, d2: int, src, blot, on_bar) -> np.ndarray:
    """Whether a mixed roll hits two blots when the opponent has checkers on the bar: with
    two or more there, both dice enter (both entry points blots); with one, the entering
    die hits and the other die hits again from any checker, the entered one too. (K',) bool."""
    points = src & ~np.uint32(1)
    b1, b2 = np.uint32(1 << d1), np.uint32(1 << d2)
    at1, at2 = (blot & b1) > 0, (blot & b2) > 0
    one = on_bar == 1
    then1 = (_shift(points | b1, d2) & blot & ~b1) > 0  # after entering with d1, d2 hits
    then2 = (_shift(points | b2, d1) & blot & ~b2) > 0
    return np.where(one, (at1 & then1) | (at2 & then2), at1 & at2)


def _double_hits(d: int, src, open_, blot, on_bar):
    """Hit masks for the double d-d when the opponent has checkers on the bar (K' rows).

    Entering needs point d open; a bar checker may then take the steps its fellows leave
    (5 - on_bar), the checkers on points 4 - on_bar.
    """
    points = src & ~np.uint32(1)
    enter = (open_ & np.uint32(1 << d)) > 0
    steps_points = np.where(enter, np.clip(4 - on_bar, 0, 4), 0)
    steps_bar = np.clip(5 - on_bar, 1, 4)
    hits = np.zeros_like(src)
    from_points, from_bar = points, np.ones_like(src)
    for step in range(1, 5):
        from_points, from_bar = _shift(from_points, d), _shift(from_bar, d)
        hits |= np.where(step <= steps_points, from_points, 0) & blot
        hits |= np.where(step <= steps_bar, from_bar, 0) & blot
        from_points &= open_
        from_bar &= open_
    return hits


def _mixed_two_hits(d1: int, d2: int, ahead, two_ahead, blot) -> np.ndarray:
    """Whether the mixed roll d1-d2 (d1 < d2) hits two blots, no opponent checker on the bar.

    Either one checker hits with one die and goes on to hit again with the other, or one
    checker hits with d1 and another with d2. The second fails only when both hits need the
    same lone checker: the blots a (hit with d1) and a + d2 - d1 (hit with d2) both from
    point a - d1 holding one checker. ahead[d], two_ahead[d]: cells d pips in front of the
    opponent's checkers, of its points holding two or more. (K,) bool.
    """
    t1, t2 = ahead[d1] & blot, ahead[d2] & blot  # blots hit with d1, with d2
    chain = ((t1 << np.uint32(d2)) | (t2 << np.uint32(d1))) & blot
    lone1 = t1 & ~two_ahead[d1]  # hit with d1 by a lone checker
    low = t2 & (np.uint32(0) - t2)  # the (up to) two lowest blots hit with d2
    rest = t2 ^ low
    high = rest & (np.uint32(0) - rest)
    gap = np.uint32(d2 - d1)

    def with_other(b):  # a blot hit with d1 besides b and not by b's own lone checker
        return (b > 0) & ((t1 & ~(b | ((b >> gap) & lone1))) > 0)

    return (chain > 0) | (((rest ^ high) > 0) & (t1 > 0)) | with_other(low) | with_other(high)


def _double_two_hits(d: int, sources, open_, blot, steps, entry_hit) -> np.ndarray:
    """Whether the double d-d hits two blots with ``steps`` steps left (4, or (K,) fewer
    after entering from the bar) for the checkers on ``sources``, a blot already hit on
    entering where ``entry_hit``. One checker may hit, go on and hit again; two checkers
    may hit two blots whose nearest steps add up to at most the steps left. (K,) bool."""
    reached = sources  # where a checker stands after k steps over open points
    hit_on_way = np.zeros_like(sources)  # ... having hit on the way (or just now)
    within = [entry_hit]  # within[k]: blots hit with k steps or fewer (entering: 0 steps)
    chain = np.zeros(len(sources), dtype=bool)
    for k in range(1, 5):
        moved = reached << np.uint32(d)
        hit = moved & blot
        chain |= (k <= steps) & (((hit_on_way << np.uint32(d)) & blot) > 0)
        hit_on_way = ((hit_on_way << np.uint32(d)) & open_) | hit
        reached = moved & open_
        within.append(within[-1] | hit)
    if np.isscalar(steps):  # no bar: the nearer blot within 1 step and the other within 3,
        return chain | ((within[1] > 0) & _many(within[3])) | _many(within[2])  # or 2 and 2
    table = np.stack(within)  # (5, K)
    rows = np.arange(len(sources))
    two = chain
    for k in range(3):  # the nearer blot within k steps, the other within steps - k
        far = table[np.clip(steps - k, 0, 4), rows]
        two |= (steps - k >= k) & (within[k] > 0) & _many(far)
    return two


class ShotMasks(NamedTuple):
    """A batch of boards as masks for shot counting, (K,) each."""

    src: np.ndarray  # uint32: cells holding opponent checkers (bit 0 its bar)
    doubled: np.ndarray  # uint32: points holding two opponent checkers or more
    open_: np.ndarray  # uint32: cells where the opponent may land (fewer than two of ours)
    blot: np.ndarray  # uint32: our blots
    on_bar: np.ndarray  # int64: opponent checkers on its bar


def shot_masks(boards: np.ndarray) -> ShotMasks:
    """The masks of boards (K, 26) int8 (our blots are never on cell 0)."""
    cells = np.ascontiguousarray(boards[:, :25], dtype=np.int8)
    return ShotMasks(cell_masks(cells < 0), cell_masks(cells < -1) & ~np.uint32(1),
                     cell_masks(cells < 2), cell_masks(cells == 1),
                     -boards[:, 0].astype(np.int64))


def shot_rolls(m: ShotMasks, two: bool = False):
    """Hits of the opponent's next roll, counted in rolls out of 36: (rolls hitting at least
    one blot, pips lost summed over them) and, with ``two``, rolls hitting two blots or
    more; (K,) float32 each, whole numbers. See ``opponent_shots`` for what is counted.

    Shifts stay inside 32 bits without masking: a mask ANDed with ``open_`` or ``blot`` has
    bits 0..24 only, and one die moves it at most 6 further.
    """
    src, open_, blot = m.src, m.open_, m.blot
    k = len(src)
    barred = np.flatnonzero(m.on_bar > 0)  # few rows: their own (slower) rules
    if len(barred):
        bsrc, bopen, bblot, bbar = src[barred], open_[barred], blot[barred], m.on_bar[barred]
        bpoints = bsrc & ~np.uint32(1)
    ahead = [None] + [src << np.uint32(d) for d in range(1, 7)]  # a checker moved by die d
    landed = [None] + [a & open_ for a in ahead[1:]]  # ... where it may stop on the way
    if two:
        two_ahead = [None] + [m.doubled << np.uint32(d) for d in range(1, 7)]
    chance = np.zeros(k, dtype=np.float32)
    lost = np.zeros(k, dtype=np.float32)
    twice = np.zeros(k, dtype=np.float32)
    for (d1, d2), weight in zip(ROLLS, ROLL_WEIGHTS):
        if d1 != d2:
            hits = (ahead[d1] | ahead[d2] | (landed[d1] << np.uint32(d2))
                    | (landed[d2] << np.uint32(d1))) & blot
            if len(barred):
                hits[barred] = _bar_hits(d1, d2, bsrc, bopen, bblot, bbar)
            if two:
                double_hit = _mixed_two_hits(d1, d2, ahead, two_ahead, blot)
                if len(barred):
                    double_hit[barred] = _bar_two_hits(d1, d2, bsrc, bblot, bbar)
        else:  # one checker walks up to four steps over open points
            hits = ahead[d1] & blot
            walk = landed[d1]
            for _ in range(3):
                walk = walk << np.uint32(d1)
                hits |= walk & blot
                walk &= open_
            if len(barred):
                hits[barred] = _double_hits(d1, bsrc, bopen, bblot, bbar)
            if two:
                double_hit = _double_two_hits(d1, src, open_, blot, 4, _ZERO)
                if len(barred):
                    entry = np.uint32(1 << d1)
                    enter = (bopen & entry) > 0
                    steps = np.where(enter, np.clip(4 - bbar, 0, 4), -1)  # -1: nothing moves
                    double_hit[barred] = _double_two_hits(
                        d1, bpoints | entry, bopen, bblot, steps,
                        np.where(enter, bblot & entry, _ZERO))
        # the lowest blot hit: the float32 exponent of its bit names it
        lowest = (hits & (np.uint32(0) - hits)).astype(np.float32).view(np.int32) >> 23
        chance += weight * (hits > 0)
        lost += weight * _LOSS_BY_EXPONENT[lowest]
        if two:
            twice += weight * double_hit
    if two:
        return chance, lost, twice
    return chance, lost  # out of 36 rolls (whole numbers, exact in float32)


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
