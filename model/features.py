"""Expert inputs of one side: hand-made features of the mover of boards (N, 26) int8.

Written from the published descriptions of GNU Backgammon's inputs, in our own definitions.
Each feature is one vectorised function of boards seen from the player on roll (the mover,
``engine.board``) describing the mover's side; the opponent's are the same functions of the
flipped boards (``engine.board.flip``). ``side_features`` gives them all, (N, WIDTH).

Terms. A *point* of a side: two or more of its checkers on one cell. The mover's checker on
cell c travels 25 - c pips from its bar; the opponent's on cell q travels q from its bar
(cell 0). The *blockade in front* of a checker: the other side's points among the 11 cells in
front of it (the farthest one non-double roll reaches) that lie before the checker's own home
board (points there are passed by bearing in, not escaped). A checker *escapes* with a roll
when, moving alone, it can land past the farthest point of that blockade: with one die, or
both through an open intermediate point (either order), or a double's steps, every stop
and the landing open (not the other side's point, not off the board). With no blockade in
front, all 36 rolls escape. The checker's fellows, the bar-first rule and "play both dice"
are not considered.

Every function takes boards (N, 26) int8, or a ``Side`` of them (which carries the checkers
per side, 15 for plain boards, and works out the masks and counts the features share once),
and returns (N,) float32 (``checkers_off``: (N, 3)), its range after scaling in its
docstring. NumPy only: bots load it without torch.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from gammon.engine.board import positive
from gammon.engine.shots import (FULL, ROLL_WEIGHTS, ROLLS, SIDES, ShotMasks, board_masks, shot_masks,
                          shot_rolls_into)

WINDOW = 11  # the blockade in front of a checker: the other side's points this many pips ahead
HOME_TRAVEL = 18  # a checker's travel from its bar to its own 7-point: its home board lies beyond
_KEY_BITS = 15  # escaping needs at most 15 pips: the first multiple of a double past pip 11
_KEY = np.uint32((1 << _KEY_BITS) - 1)


def _escape_table() -> np.ndarray:
    """Escaping rolls out of 36, (WINDOW + 1, 2**15) int8: by the farthest point of the
    blockade (1..11 pips ahead; 0: none, all 36 escape) and the closed cells 1..15 pips
    ahead (bit k - 1: k pips), where a stop or landing cannot be."""
    keys = np.arange(1 << _KEY_BITS)
    opened = [np.ones_like(keys, dtype=bool)] + [(keys >> (k - 1)) & 1 == 0
                                                  for k in range(1, _KEY_BITS + 1)]
    table = np.full((WINDOW + 1, len(keys)), 36, dtype=np.int8)
    for farthest in range(1, WINDOW + 1):
        rolls = np.zeros_like(keys)
        for (a, b), weight in zip(ROLLS, ROLL_WEIGHTS):
            if a != b:  # one die, or both through an open intermediate point
                escape = ((opened[a] & (a > farthest)) | (opened[b] & (b > farthest))
                          | (opened[a + b] & (opened[a] | opened[b]) & (a + b > farthest)))
            else:  # the double's steps over open stops, until one lands past the blockade
                escape = np.zeros_like(keys, dtype=bool)
                walking = np.ones_like(keys, dtype=bool)
                for pips in range(a, 4 * a + 1, a):
                    if pips <= _KEY_BITS:  # (past pip 15 a walk has escaped already)
                        walking = walking & opened[pips]
                    escape |= walking & (pips > farthest)
            rolls += int(weight) * escape
        table[farthest] = rolls
    return table


def _tables_by_travel() -> np.ndarray:
    """Escaping rolls out of 36 of a checker ``t`` pips from its bar (0..25), by the other
    side's points 1..15 pips ahead (bit k - 1: k pips): (26, 2**15) int8. Its blockade: those
    within 11 pips and before its home board (travel 18 or less); off the board is closed."""
    by_farthest = _escape_table()
    keys = np.arange(1 << _KEY_BITS)
    highest = np.zeros(len(keys), dtype=np.int64)  # highest set bit + 1 (0 for none)
    for k in range(1, _KEY_BITS + 1):
        highest[1 << (k - 1):1 << k] = k
    tables = np.empty((26, len(keys)), dtype=np.int8)
    for t in range(26):
        closed = keys | sum(1 << (k - 1) for k in range(25 - t, _KEY_BITS + 1) if k >= 1)
        blockade = closed & ((1 << max(0, min(WINDOW, HOME_TRAVEL - t))) - 1)
        tables[t] = by_farthest[highest[blockade], closed]
    return tables


ESCAPES_UP = _tables_by_travel()
"""(26, 2**15) int8: escaping rolls of a checker moving up (the opponent's) from cell t,
by the other side's points on cells t + 1 .. t + 15 (bit k - 1: cell t + k)."""
_REVERSED = np.array([int(f"{key:015b}"[::-1], 2) for key in range(1 << _KEY_BITS)])
ESCAPES_DOWN = np.ascontiguousarray(ESCAPES_UP[::-1][:, _REVERSED])
"""(26, 2**15) int8: escaping rolls of a checker moving down (the mover's) from cell c, by
the other side's points on cells c - 15 .. c - 1 (bit j: cell c - 15 + j)."""


def escapes_up(points: np.ndarray, cell: int) -> np.ndarray:
    """Escaping rolls out of 36 of an opponent checker on ``cell`` (0..25) against the
    mover's points (uint32 masks by cell): (N,) int8."""
    return ESCAPES_UP[cell].take((points >> np.uint32(cell + 1)) & _KEY)


def escapes_down(points: np.ndarray, cell) -> np.ndarray:
    """Escaping rolls out of 36 of a checker of the mover's on ``cell`` (0..25: one number,
    or (N,) int) against the opponent's points (uint32 masks by cell): (N,) int8."""
    if np.isscalar(cell):  # bits of cells c - 15 .. c - 1, by one shift (low bits kept)
        key = ((points >> np.uint32(cell - 15)) if cell >= 15
               else (points << np.uint32(15 - cell))) & _KEY
        return ESCAPES_DOWN[cell].take(key)
    cell = np.asarray(cell, dtype=np.int64)
    key = ((points.astype(np.uint64) << np.uint64(15)) >> cell.astype(np.uint64)) & np.uint64(
        (1 << _KEY_BITS) - 1)
    return ESCAPES_DOWN.ravel().take((cell << _KEY_BITS) + key.astype(np.int64))


_POPCOUNT = np.array([bin(i).count("1") for i in range(1 << 16)], dtype=np.uint8)
_BITWISE_COUNT = getattr(np, "bitwise_count", None)


def popcount(masks: np.ndarray) -> np.ndarray:
    """Set bits of uint32 masks: (K,) uint8."""
    if _BITWISE_COUNT is not None:  # NumPy 2
        return _BITWISE_COUNT(masks)
    return _POPCOUNT[masks & np.uint32(0xFFFF)] + _POPCOUNT[masks >> np.uint32(16)]


def highest_bit(masks: np.ndarray) -> np.ndarray:
    """The highest set bit of uint32 masks, 0 for none: (K,) int64 (float64 holds them
    exactly; its exponent names the bit)."""
    return np.maximum((masks.astype(np.float64).view(np.int64) >> 52) - 1023, 0)


def lowest_bit(masks: np.ndarray, none: int) -> np.ndarray:
    """The lowest set bit of uint32 masks, ``none`` for none: (K,) int64."""
    return np.where(masks > 0, highest_bit(masks & (np.uint32(0) - masks)), none)


class Side:
    """Boards (N, 26) int8, with the masks and counts the features share, each worked out
    once when first asked for. Masks are uint32 (N,), bit q = cell q."""

    def __init__(self, boards: np.ndarray, checkers: int = 15):
        self.boards = np.ascontiguousarray(boards, dtype=np.int8)
        self.checkers = checkers

    @cached_property
    def _mine(self) -> np.ndarray:
        """The mover's checkers per cell: (N, 26) int8."""
        return positive(self.boards)

    @cached_property
    def counts(self) -> np.ndarray:
        """The mover's checkers per cell: (N, 26) float32."""
        return self._mine.astype(np.float32)

    @cached_property
    def by_cell(self) -> np.ndarray:
        """The mover's checkers per cell, cell-major: (26, N) int8."""
        return np.ascontiguousarray(self._mine.T)

    @cached_property
    def masks(self) -> np.ndarray:
        """Cells holding opponent checkers, two or more, the mover's checkers, two or more
        (``engine.shots.SIDES``): (4, N) uint32, packed at once."""
        return board_masks(self.boards, SIDES)

    @cached_property
    def shot_masks(self) -> ShotMasks:
        """The masks ``engine.shots`` counts the opponent's shots on."""
        return shot_masks(self.boards, self.masks)

    @property
    def mine(self) -> np.ndarray:
        """Cells 1..25 holding checkers of the mover's (bit 25 its bar)."""
        return self.masks[2]

    @cached_property
    def made(self) -> np.ndarray:
        """The mover's points: cells 1..24 holding two of its checkers or more."""
        return self.masks[3] & FULL

    @property
    def their_made(self) -> np.ndarray:
        """The opponent's points: cells 1..24 holding two of its checkers or more."""
        return self.shot_masks.doubled

    @cached_property
    def rearmost(self) -> np.ndarray:
        """The highest cell holding a checker of the mover's (0 when none): (N,) int64."""
        return highest_bit(self.mine)

    @cached_property
    def their_rearmost(self) -> np.ndarray:
        """The lowest cell holding an opponent checker (its bar 0; 25 when none): (N,)."""
        return lowest_bit(self.shot_masks.src, 25)

    @cached_property
    def contact(self) -> bool:
        """Whether any board has a checker of the mover's beyond the opponent's rearmost
        checker (the sides can still meet; ``engine.phase``'s contact). Without, the mover
        has nothing to break contact with, no blot can be hit and no point of the
        opponent's stands in front of a checker of his."""
        return bool((self.rearmost > self.their_rearmost).any())

    @cached_property
    def shots(self) -> np.ndarray:
        """(rolls hitting one blot or more, pips lost, rolls hitting two or more) out of 36
        when the opponent rolls next: (3, N) float32; worked out on boards with a blot of
        the mover's in front of an opponent checker (two for the last), zero on the others."""
        out = np.zeros((3, len(self.boards)), dtype=np.float32)
        masks = self.shot_masks
        behind = self.their_rearmost.astype(np.uint32)  # a blot up to here cannot be hit
        exposed = highest_bit(masks.blot) > behind
        # two blots in front of an opponent checker (with one, no roll hits two)
        pairs = popcount(masks.blot & ~((np.uint32(2) << behind) - np.uint32(1))) >= 2
        for rows, two in ((exposed & ~pairs, False), (exposed & pairs, True)):
            rows = np.flatnonzero(rows)
            if len(rows):
                shot_rolls_into(masks, rows, two, out)
        return out


def _side(boards) -> Side:
    return boards if isinstance(boards, Side) else Side(boards)


# --- the features: (N, 26) int8 or Side -> (N,) float32 ----------------------------------

_CELLS_F = np.arange(26, dtype=np.float32)


def pips(boards) -> np.ndarray:
    """Pip count: the pips the mover needs to bear off all its checkers / 200; [0, 1.875].
    (``engine.board.pip_counts``' count, here one product with the side's counts.)"""
    return np.einsum("ij,j->i", _side(boards).counts, _CELLS_F / 200)  # (no BLAS threads)


def checkers_off(boards) -> np.ndarray:
    """Checkers borne off in thirds of the side's checkers (5, 5, 5 of 15), each filled
    in turn: (N, 3) float32 in [0, 1]."""
    side = _side(boards)
    third = np.float32(side.checkers / 3)
    off = side.checkers - side.by_cell.sum(axis=0, dtype=np.int16)[:, None]  # (N, 1)
    return np.clip((off - third * np.arange(3, dtype=np.float32)) / third, 0, 1)


def break_contact(boards) -> np.ndarray:
    """Pips the mover's checkers need to come level with the opponent's rearmost checker
    (its bar counts as cell 0), summed / 200; 0 when there is no contact; [0, 1.875]."""
    side = _side(boards)
    rearmost = side.their_rearmost.astype(np.int16)
    pips = np.zeros(len(rearmost), dtype=np.int16)
    if not side.contact:  # every checker of the mover's is behind the opponent's: 0
        return pips / np.float32(200)
    zero = np.zeros_like(rearmost)  # (a maximum against an array runs vectorised)
    for cell in range(1, 26):
        pips += side.by_cell[cell] * np.maximum(cell - rearmost, zero)
    return pips / np.float32(200)


def back_checker(boards) -> np.ndarray:
    """Where the mover's rearmost checker stands: its cell / 25 (the bar 1, none left 0);
    [0, 1]."""
    return (_side(boards).rearmost / 25).astype(np.float32)


def back_anchor(boards) -> np.ndarray:
    """The mover's rearmost point (two or more checkers): its cell / 24, 0 when it has no
    point; [0, 1]."""
    return (highest_bit(_side(boards).made) / 24).astype(np.float32)


def forward_anchor(boards) -> np.ndarray:
    """The mover's most forward anchor in the opponent's home board (points 19..24):
    (25 - point) / 6, so the 24-point 1/6 and the 19-point 1; 0 when none; [0, 1]."""
    anchors = _side(boards).made >> np.uint32(19)  # bits 0..5: points 19..24
    return ((6 - lowest_bit(anchors, 6)) / 6).astype(np.float32)


def hit_one(boards) -> np.ndarray:
    """Share of the opponent's 36 rolls (it on roll next) that hit at least one blot of the
    mover's (``engine.shots``): a die hits from a checker that many pips behind a blot, both
    dice or a double's steps through open stops; the opponent's bar checkers enter first
    (one on the bar: one die enters, the other moves any checker; more: only entering
    checkers move). "Play both dice when you can" is not applied: rarely a roll is counted
    that could only hit by leaving a die unplayed. [0, 1]."""
    return _side(boards).shots[0] / 36


def pip_loss(boards) -> np.ndarray:
    """Pips the mover expects to lose to the opponent's next roll, direct and indirect
    shots alike: over the 36 rolls, the pips of the hit blot nearest the mover's home
    (25 - point), 0 for a roll that hits nothing; / 36 rolls / 24 pips; [0, 1]."""
    return _side(boards).shots[1] / (36 * 24)


def hit_two(boards) -> np.ndarray:
    """Share of the opponent's 36 rolls that hit two blots of the mover's or more: one
    checker hitting and going on to hit again, or two checkers each hitting with its own
    die (a lone checker cannot hit with both), or with a double's steps (the nearest steps
    to two blots adding up to four at most); the bar as in ``hit_one``; [0, 1]."""
    return _side(boards).shots[2] / 36


def back_escapes(boards) -> np.ndarray:
    """Share of the 36 rolls with which the mover's rearmost checker escapes the blockade
    in front of it (see the module docstring); 1 when none is left; [0, 1]."""
    side = _side(boards)
    rolls = escapes_down(side.their_made, side.rearmost)
    return np.where(side.rearmost > 0, rolls / 36, 1).astype(np.float32)


def containment(boards) -> np.ndarray:
    """How well the mover's points hold the opponent's back checkers: 1 - (fewest escaping
    rolls of an opponent checker on its bar or its points 24..15, our cells 0..10) / 36;
    [0, 1]."""
    made = _side(boards).made
    fewest = escapes_up(made, 0)
    for cell in range(1, 11):  # the opponent's bar and its points 24..15
        np.minimum(fewest, escapes_up(made, cell), out=fewest)
    return (1 - fewest / 36).astype(np.float32)


def mobility(boards) -> np.ndarray:
    """For every checker of the mover's outside its home board (cells 7..25): its escaping
    rolls times the pips it has to go to reach home (cell - 6), summed / 3600;
    [0, 2.85] (15 checkers on the bar, all rolls free)."""
    side = _side(boards)
    if not side.contact:  # no point of the opponent's in front: each checker's free rolls
        total = np.einsum("cn,c->n", side.by_cell[7:26], _FREE_MOBILITY, dtype=np.int16)
        return total / np.float32(3600)
    total = np.zeros(len(side.boards), dtype=np.int16)  # at most 15 * 19 * 36
    for cell in range(7, 26):
        rolls = escapes_down(side.their_made, cell)
        total += np.multiply(side.by_cell[cell], rolls, dtype=np.int16) * np.int16(cell - 6)
    return total / np.float32(3600)


def entering(boards) -> np.ndarray:
    """Chance that a checker of the mover's on the bar enters with its next roll: rolls of
    36 with a die on a point of the opponent's home board (cells 19..24) holding fewer than
    two opponent checkers, 1 - (closed / 6)**2, whether or not a checker is on the bar;
    [0, 1]."""
    closed = popcount(_side(boards).their_made >> np.uint32(19))
    return (1 - (closed / 6) ** 2).astype(np.float32)


def timing(boards) -> np.ndarray:
    """Pips the mover can play before it must break an anchor in the opponent's home board
    or move inside its own: the pips its checkers outside home (cells 7..25) travel to its
    6-point, less those of two checkers of each anchor on 19..24 (they stay), / 150;
    [0, 1.9]."""
    side = _side(boards)
    held = _ANCHOR_PIPS[(side.made >> np.uint32(19)) & np.uint32(63)]
    # whole pips: every product and sum is exact, so a matrix product gives the same floats
    return (side.counts @ _TO_HOME - held) / np.float32(150)


def backbone(boards) -> np.ndarray:
    """How the mover's points hang together: the share of its points (cells 1..24) with
    another of its points 1..6 pips in front (a die apart), 0 with fewer than two; [0, 1]."""
    made = _side(boards).made
    in_front = np.zeros_like(made)  # bit p: a point among p - 6 .. p - 1
    for pips in range(1, 7):
        in_front |= made << np.uint32(pips)
    linked, count = popcount(made & in_front), popcount(made)
    return np.where(count >= 2, linked / np.maximum(count, 1), 0).astype(np.float32)


_FREE_MOBILITY = (ESCAPES_DOWN[7:26, 0].astype(np.int16)
                  * np.arange(1, 20, dtype=np.int16))  # (19,) cells 7..25: rolls x pips home
_TO_HOME = np.maximum(np.arange(26) - 6, 0).astype(np.float32)  # pips from a cell to the 6-point
_ANCHOR_PIPS = np.array([sum(2 * (13 + j) for j in range(6) if bits >> j & 1)
                         for bits in range(64)], dtype=np.float32)  # anchors on 19..24: pips


FEATURES = (
    ("pips", pips, 1), ("checkers_off", checkers_off, 3), ("break_contact", break_contact, 1),
    ("back_checker", back_checker, 1), ("back_anchor", back_anchor, 1),
    ("forward_anchor", forward_anchor, 1), ("pip_loss", pip_loss, 1), ("hit_one", hit_one, 1),
    ("hit_two", hit_two, 1), ("back_escapes", back_escapes, 1),
    ("containment", containment, 1), ("mobility", mobility, 1), ("entering", entering, 1),
    ("timing", timing, 1), ("backbone", backbone, 1),
)
"""(name, function, units) of every feature, in the order of ``side_features``' columns."""
WIDTH = sum(units for _, _, units in FEATURES)
NAMES = tuple(name if units == 1 else f"{name}{i}" for name, _, units in FEATURES
              for i in range(units))
"""The name of every column of ``side_features``."""


def feature_rows(boards: np.ndarray, checkers: int = 15, out: np.ndarray | None = None
                 ) -> np.ndarray:
    """Every feature of the mover's side, feature-major: (N, 26) int8 -> (WIDTH, N)
    float32 (rows in the order of FEATURES). ``out``: where to write them instead, (WIDTH,
    ...) float32 with N values a row in C order (e.g. (WIDTH, 2, N / 2): the two halves of
    the boards apart); returned."""
    side = Side(boards, checkers)
    out = np.empty((WIDTH, len(side.boards)), dtype=np.float32) if out is None else out
    shape = out.shape[1:]
    row = 0
    for _, function, units in FEATURES:
        value = function(side)
        value = value.T if units > 1 else value[None]  # (units, N)
        out[row:row + units] = value.reshape((units,) + shape)
        row += units
    return out


def side_features(boards: np.ndarray, checkers: int = 15) -> np.ndarray:
    """Every feature of the mover's side: (N, 26) int8 -> (N, WIDTH) float32."""
    return np.ascontiguousarray(feature_rows(boards, checkers).T)
