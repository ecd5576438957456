"""The heuristic bot: the classic strategy principles as one weighted sum over afterstates.

Every afterstate of a batch is scored at once, from the side that just moved (not flipped).
Whether the game is a race is decided on the position before the play, as pubeval does, so
all the plays of one position are scored by the same formula:

- **Race** (no contact left): the racer's pip-count score (``eval.racer.race_scores``):
  checkers off, pips, crossovers, a smooth bear-off.
- **Contact**: ``sum(weight * feature)`` over the features below, every weight in
  ``Weights`` with the principle it stands for. The scale is arbitrary; only the
  order of the plays of one position matters.

The features, all computed with array operations over the K afterstates:

- ``shot``: the chance (rolls out of 36, by the real dice, blocked points respected, the
  opponent's bar checkers entering first) that the opponent hits at least one of our blots
  on its next roll. ``shot_pips``: the pips we expect to lose to that hit (the blot
  nearest our home, which loses the most, counted per roll). Both grow with the
  opponent's home board (``shot_board``), where a hit checker must come in.
- ``points``: made points (two or more of ours), each valued by where it stands: the
  6-, 5-, 4- and bar points most; anchors in the opponent's home board, its 5-point best.
- ``prime``: the longest run of made points, valued much more when an opponent checker
  is stuck behind it.
- ``opp_bar``: opponent checkers on the bar, more with each point of our home board made
  (a hit that gains).
- ``builders``: our spare checkers within six pips above a point we still want to make.
- ``blocked``: for each checker of ours, the opponent points in the six in front of it.
- ``blot``, ``stack``, ``back``, ``pip``: small terms: any blot is a later risk, a tall
  stack wastes checkers, back checkers have far to go, a race lead helps.

Opponent shots are found with 25-bit masks per afterstate (bit q = cell q: bit 0 the
opponent's bar, bits 1..24 the points), so "an opponent checker q pips from a blot"
is a shift and an AND over the whole batch, once per roll of the dice (21 rolls).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.movegen import Plays

from .bot import Bot
from .pubeval import is_race
from .racer import race_scores, weighted_rows


@dataclass(frozen=True)
class Weights:
    """Every weight of the contact score, one principle each.

    Written from the principles first, then tuned by coordinate search (each weight scaled or
    nudged in turn, kept when it won more paired games against pubeval on fixed dice).
    """

    # --- safety
    shot: float = -0.125  # per chance (0..1) of being hit next roll: avoid direct, indirect shots
    shot_pips: float = -0.034  # per pip we expect to lose to that hit: far from home costs most
    shot_board: float = 0.07  # shot terms grow by this share per point of the opponent's board
    blot: float = -0.05  # per blot of ours, in range or not: a blot is a later target
    # --- making points, priming, anchors: a made point's value by where it stands,
    # ``points[p - 1]`` for point p (our home board is 1..6, the opponent's 19..24)
    points: tuple[float, ...] = (
        0.00, 0.10, 0.35, 0.45, 0.60, 0.65,  # home board: the 6- and 5-points, then 4 and 3
        0.45, 0.20, 0.15, 0.10, 0.05, 0.02,  # the bar point (7), then the outfield
        0.12, 0.00, 0.00, 0.00, 0.00, 0.30,  # the midpoint (13); the opponent's bar point (18)
        0.20, 0.50, 0.35, 0.25, 0.10, -0.10,  # anchors: the opponent's 5-point (20) best; not 24
    )
    prime: tuple[float, ...] = (0.0, 0.0, 0.05, 0.15, 0.35, 0.7, 1.1)  # by longest run 0..6
    prime_free: float = 0.3  # share of the prime's value when no opponent checker is behind it
    # --- hitting
    opp_bar: float = 0.3  # per opponent checker on the bar: a hit gains tempo and pips
    opp_bar_board: float = 0.04  # more per bar checker for each point of our home board made
    pip: float = 0.029  # per pip of race lead (opponent's pips minus ours): hits and running gain
    # --- shape
    builders: float = 0.03  # per builder (up to 3) within 6 pips of each point 4..8 not yet made
    stack: float = -0.04  # per checker above three on one point: spares are wasted there
    back: float = -0.03  # per checker of ours in the opponent's home board or on the bar: escape
    blocked: float = -0.034  # per opponent point in the six in front of each checker of ours


WEIGHTS = Weights()

_FULL = np.uint32((1 << 25) - 1)  # bits 0..24: the opponent's bar and the 24 points
_ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]  # the 21 distinct rolls
_ROLL_WEIGHTS = [np.float32(1 if a == b else 2) for a, b in _ROLLS]  # of 36
_BUILDER_TARGETS = (4, 5, 6, 7, 8)  # points worth making with builders
_INDEX = np.arange(26, dtype=np.float32)
# pips lost when a blot on the lowest hit cell is hit, indexed by the float32 exponent byte of
# that cell's bit (2**q has exponent byte 127 + q; no hit, 0.0, has 0)
_LOSS_BY_EXPONENT = np.zeros(256, dtype=np.float32)
_LOSS_BY_EXPONENT[127:152] = 25 - np.arange(25)


def _masks(cond: np.ndarray) -> np.ndarray:
    """(K, 25) bool over cells 0..24 -> (K,) uint32 with bit q set where cond[:, q]."""
    packed = np.packbits(cond, axis=1, bitorder="little")  # (K, 4) uint8, bits 25..31 zero
    return np.ascontiguousarray(packed).view("<u4").ravel()


def _shift(bits: np.ndarray, pips: int) -> np.ndarray:
    """Opponent checkers in ``bits`` moved ``pips`` further (bearing off drops out)."""
    return (bits << np.uint32(pips)) & _FULL


def _bar_hits(d1: int, d2: int, src, open_, blot, on_bar):
    """Hit masks for a mixed roll when the opponent has checkers on the bar (K' rows)."""
    points = src & ~np.uint32(1)
    b1, b2 = np.uint32(1 << d1), np.uint32(1 << d2)
    in1, in2 = (open_ & b1) > 0, (open_ & b2) > 0  # may enter with d1, with d2
    zero = np.uint32(0)
    one = on_bar == 1  # one enters, the other die moves any checker; else only entering hits
    hits1 = np.where(in1, (b1 | np.where(one, _shift(points | b1, d2), zero)) & blot, zero)
    hits2 = np.where(in2, (b2 | np.where(one, _shift(points | b2, d1), zero)) & blot, zero)
    return hits1 | hits2


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


def _shots_of_masks(src, open_, blot, on_bar) -> tuple[np.ndarray, np.ndarray]:
    """opponent_shots on masks, counted in rolls out of 36: src, open_, blot (K,) uint32,
    on_bar (K,) int. Returns (hitting rolls, pips lost summed over them), (K,) float32.

    Shifts stay inside 32 bits without masking: a mask ANDed with ``open_`` or ``blot`` has
    bits 0..24 only, and one die moves it at most 6 further.
    """
    k = len(src)
    barred = np.flatnonzero(on_bar > 0)  # few rows: their own (slower) rules
    if len(barred):
        bsrc, bopen, bblot, bbar = src[barred], open_[barred], blot[barred], on_bar[barred]
    ahead = [None] + [src << np.uint32(d) for d in range(1, 7)]  # a checker moved by die d
    landed = [None] + [m & open_ for m in ahead[1:]]  # ... where it may stop on the way
    chance = np.zeros(k, dtype=np.float32)
    lost = np.zeros(k, dtype=np.float32)
    for (d1, d2), weight in zip(_ROLLS, _ROLL_WEIGHTS):
        if d1 != d2:
            hits = (ahead[d1] | ahead[d2] | (landed[d1] << np.uint32(d2))
                    | (landed[d2] << np.uint32(d1))) & blot
            if len(barred):
                hits[barred] = _bar_hits(d1, d2, bsrc, bopen, bblot, bbar)
        else:  # one checker walks up to four steps over open points
            hits = ahead[d1] & blot
            walk = landed[d1]
            for _ in range(3):
                walk = walk << np.uint32(d1)
                hits |= walk & blot
                walk &= open_
            if len(barred):
                hits[barred] = _double_hits(d1, bsrc, bopen, bblot, bbar)
        # the lowest blot hit: the float32 exponent of its bit names it
        lowest = (hits & (np.uint32(0) - hits)).astype(np.float32).view(np.int32) >> 23
        chance += weight * (hits > 0)
        lost += weight * _LOSS_BY_EXPONENT[lowest]
    return chance, lost  # out of 36 rolls (whole numbers, exact in float32)


def _board_masks(a: np.ndarray):
    """(src, open, blot) uint32 masks and on_bar (K,) of afterstates a (K, 26) int8."""
    cells = a[:, :25]
    src = _masks(cells < 0)  # opponent checkers, bar (bit 0) included
    open_ = _masks(cells < 2)  # where the opponent may land
    blot = _masks(cells == 1)  # our blots (never on cell 0)
    return src, open_, blot, -a[:, 0].astype(np.int64)


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
    chance, lost = _shots_of_masks(*_board_masks(a))
    return chance.astype(np.float64) / 36, lost.astype(np.float64) / 36


def _longest_run(made: np.ndarray, opp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Longest run of made points (capped at 6) and whether an opponent checker is behind it.

    made, opp (K,) uint32 masks. "Behind" = on a lower cell than the run's start (the
    opponent moves up); of several longest runs the highest is taken.
    """
    length = np.zeros(len(made), dtype=np.int64)
    starts = made.copy()  # after j rounds: bit i set when points i..i+j are all made
    start_of_longest = made.copy()
    for _ in range(6):
        alive = starts > 0
        length += alive
        start_of_longest = np.where(alive, starts, start_of_longest)
        starts = starts & (starts >> np.uint32(1))
    # highest set bit via the float32 exponent (2**q <= x < 2**(q+1) has exponent byte 127 + q)
    top = np.maximum((start_of_longest.astype(np.float32).view(np.int32) >> 23) - 127, 0)
    below = (np.uint32(1) << top.astype(np.uint32)) - np.uint32(1)
    return length, (opp & below) > 0


def contact_features(afterstates: np.ndarray) -> dict[str, np.ndarray]:
    """The contact features of each afterstate (see the module docstring): dict of (K,).

    Works cell-major, (26, K), so that every sum over points is a few long vector adds.
    """
    a = np.ascontiguousarray(afterstates, dtype=np.int8)  # (K, 26)
    cells = np.ascontiguousarray(a.T)  # (26, K)
    k = len(a)
    mine = np.maximum(cells, 0)  # (26, K) int8; cell 0 never holds ours
    opp = np.maximum(-cells, 0)  # (26, K) int8; cell 25 never holds theirs
    made = mine[1:25] >= 2  # (24, K) points 1..24
    opp_made = opp[1:25] >= 2  # (24, K)
    src, open_, blot, on_bar = _board_masks(a)
    chance, lost = _shots_of_masks(src, open_, blot, on_bar)
    chance, lost = chance / np.float32(36), lost / np.float32(36)
    run, trapped = _longest_run(_masks(a[:, :25] >= 2), src)  # cell 0 never holds ours

    # builders: spares (a blot, or checkers above two) on the six points above each target
    spare = np.zeros((26, k), dtype=np.int8)
    np.subtract(mine[1:25], made.view(np.int8) * np.int8(2), out=spare[1:25])  # (26, K)
    builders = np.zeros(k, dtype=np.int8)
    for t in _BUILDER_TARGETS:
        near = (mine[t] == 1).view(np.int8).copy()  # a slot on the point itself counts
        for p in range(t + 1, min(t + 6, 24) + 1):
            near += spare[p]
        np.minimum(near, np.int8(3), out=near)
        near[made[t - 1]] = 0
        builders += near

    # our checkers facing opponent points: for cell p (7..25), opponent points on p-6..p-1
    walls = opp_made.view(np.int8)  # (24, K) 0/1 for points 1..24
    facing = walls[0:6].sum(axis=0, dtype=np.int8)  # opponent points on 1..6: cell 7's view
    blocked = np.zeros(k, dtype=np.int16)
    for p in range(7, 26):
        blocked += mine[p] * facing
        if p < 25:  # slide the window: add point p, drop point p - 6
            facing += walls[p - 1] - walls[p - 7]

    mine_f = mine.astype(np.float32)
    pip = weighted_rows(25 - _INDEX, opp.astype(np.float32)) - weighted_rows(_INDEX, mine_f)
    return {
        "shot": chance,
        "shot_pips": lost,
        "opp_board": opp_made[18:24].sum(axis=0, dtype=np.int8).astype(np.float32),
        "blot": (mine[1:25] == 1).sum(axis=0, dtype=np.int8).astype(np.float32),
        "made": made,  # (24, K) bool, valued through Weights.points
        "run": run,
        "trapped": trapped,
        "opp_bar": on_bar.astype(np.float32),
        "home": made[:6].sum(axis=0, dtype=np.int8).astype(np.float32),
        "pip": pip,
        "builders": builders.astype(np.float32),
        "stack": np.maximum(mine[1:25] - 3, 0).sum(axis=0, dtype=np.int16).astype(np.float32),
        "back": mine_f[19:26].sum(axis=0),
        "blocked": blocked.astype(np.float32),
    }


def contact_scores(afterstates: np.ndarray, w: Weights = WEIGHTS) -> np.ndarray:
    """The weighted contact score of each afterstate: (K,) float64."""
    f = contact_features(afterstates)
    danger = 1.0 + w.shot_board * f["opp_board"]
    prime = np.asarray(w.prime)[f["run"]] * np.where(f["trapped"], 1.0, w.prime_free)
    score = (danger * (w.shot * f["shot"] + w.shot_pips * f["shot_pips"])
             + w.blot * f["blot"]
             + weighted_rows(np.asarray(w.points, dtype=np.float32), f["made"])
             + prime
             + f["opp_bar"] * (w.opp_bar + w.opp_bar_board * f["home"])
             + w.pip * f["pip"]
             + w.builders * f["builders"]
             + w.stack * f["stack"]
             + w.back * f["back"]
             + w.blocked * f["blocked"])
    return score.astype(np.float64)


class HeuristicBot(Bot):
    """Plays by the classic principles: safety, points, primes, hits, anchors, builders;
    in a race, the racer's pip count and bear-off."""

    name = "heuristic"
    score_label = "heuristic score"

    def __init__(self, weights: Weights = WEIGHTS, checkers: int = 15):
        self.weights = weights
        self.checkers = checkers

    def scores(self, plays: Plays, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        race = is_race(boards)[plays.root]  # (K,) decided before the play, as pubeval
        out = np.empty(len(plays))
        if race.any():
            out[race] = race_scores(plays.boards[race], self.checkers)
        if not race.all():
            out[~race] = contact_scores(plays.boards[~race], self.weights)
        return out


__all__ = ["Weights", "WEIGHTS", "HeuristicBot", "opponent_shots", "contact_features",
           "contact_scores"]
