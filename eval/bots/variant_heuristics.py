"""The heuristic bot of each variant: ``heuristic_bot(variant)``, behind ``make_bot("heuristic")``.

Every variant's ``heuristic`` scores afterstates (not flipped, the side that just moved) and
plays the best one, like ``eval.bots.heuristic.HeuristicBot``:

- standard, nackgammon, hypergammon, longgammon, caucasian, nuclear: the standard heuristic
  (``HeuristicBot``) itself. Their boards are standard boards, their legal plays come from the
  generator (Caucasian's rule already removes the illegal ones) and Nuclear's bomb decision
  is added by the registry (``eval.bots.nuclear``).
- suddendeath (``SuddenDeathHeuristicBot``): "whoever first hits an opponent's checker wins".
  A play that wins (a hit, or the last checker off) is taken; otherwise the opponent's chance
  to hit on its next roll is the chance to lose the game then, so the play that leaves the
  fewest shots is taken (``SuddenDeathWeights``: win, then shots, then the rest); the
  standard contact score (without its shot terms, which count pips lost to a hit that here
  ends the game) or, in a race, the racer's score decide between equally safe plays.
- plakoto (``PlakotoHeuristicBot``): pins instead of hits, the mothers, no bar. Its board
  (``engine.rules.plakoto``): 26 cells from the mover's view, cell 1..24 the signed count on
  top, +16 (same sign) when a checker of the other side is pinned beneath; we move 24 -> 1,
  the opponent 1 -> 24; our mother starts on our 24-point, the opponent's on our 1-point.
  Features and weights in ``PlakotoWeights`` (one principle each).

Opponent reach is counted as in ``eval.bots.heuristic``: 25-bit masks per afterstate (bit q =
point q) and the 21 rolls, so "an opponent checker can land on q next roll" is a few shifts
and ANDs over the whole batch (``_reach_hits``: a die from a checker that many pips
behind, or both dice, or a double's 3 or 4 steps, over open points on the way).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from gammon.engine.movegen import Plays
from gammon.engine.policy import Bot
from gammon.engine.rules import PLAKOTO, SUDDENDEATH, variant as get_variant
from gammon.engine.rules.plakoto import PIN

from gammon.eval.bots.heuristic import (WEIGHTS, HeuristicBot, Weights, _longest_run, contact_scores,
                        opponent_shots)
from gammon.engine.phase import is_race
from gammon.eval.bots.racer import race_scores, weighted_rows

# --- sudden death -----------------------------------------------------------------------------


@dataclass(frozen=True)
class SuddenDeathWeights:
    """The sudden-death score: win now, else do not be hit next roll, else play well.

    Lexicographic by the size of the weights: a winning play beats every other, then the
    opponent's chance to hit (counted in 36ths) decides, and the standard contact score (a
    few units; its differences between the plays of one roll stay far below 1000 / 36)
    only breaks the ties between equally safe plays. Measured: shot weights from -20 to
    -1000 play alike against each other, so the strict order costs nothing.
    """

    win: float = 1e6  # per point a play wins at once (a hit, or the last checker off)
    shot: float = -1000.0  # per chance (0..1) the opponent hits next roll: that ends the game
    # the standard contact score for the rest (priming, points, builders, pips), without its
    # shot terms (pips lost to a hit mean nothing when the hit ends the game) or bar terms
    contact: Weights = dataclasses.replace(WEIGHTS, shot=0.0, shot_pips=0.0, opp_bar=0.0,
                                           opp_bar_board=0.0)


SUDDENDEATH_WEIGHTS = SuddenDeathWeights()


class SuddenDeathHeuristicBot(Bot):
    """Sudden death: takes a winning hit, else minimises the opponent's chance to hit next
    roll, else plays the standard heuristic (the racer's score in a race)."""

    name = "heuristic"
    score_label = "sudden-death heuristic score"

    def __init__(self, weights: SuddenDeathWeights = SUDDENDEATH_WEIGHTS, rules=SUDDENDEATH):
        self.weights = weights
        self.rules = rules

    def scores(self, plays: Plays, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        w = self.weights
        after = plays.boards
        race = is_race(boards)[plays.root]  # decided before the play, as the standard bot
        out = np.empty(len(plays))
        if race.any():
            out[race] = race_scores(after[race], self.rules.checkers)
        contact = np.flatnonzero(~race)
        if len(contact):
            a = after[contact]
            chance, _ = opponent_shots(a)
            out[contact] = w.shot * chance + contact_scores(a, w.contact)
        return out + w.win * self.rules.end_of_game(after)


# --- plakoto ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlakotoWeights:
    """Every weight of the Plakoto score, one principle each; roughly in points per game.

    Tables by point are ``table[p - 1]`` for point p of the mover's view (our home board is
    1..6; the opponent starts on our 1 and moves up to its home board, our 19..24).

    Written from the principles, then tuned lightly in self-play (1000 paired games against
    the previous weights per try): pins held x2.5, blocks x2, primes x0.5, and the flat cost
    of every blot dropped (it lost games: only blots in reach are costed). The mother terms,
    ``pip``, ``pinned``, ``off``, ``stack`` and ``blocked`` changed little between two copies
    of this bot at half or double their value; the mother terms decide the rare positions
    the tests show. ``win`` is far above the rest: a play that ends the game is always
    taken, the one that wins more first.
    """

    # --- the end of the game
    win: float = 1000.0  # per point a play wins at once: the mother pinned (2), the race won
    # --- our mother (our last checker on our 24-point)
    mother_shot: float = -2.5  # per chance (0..1) the opponent pins it next roll: -2 points
    mother_alone: float = -0.1  # a lone mother, in range or not: a target later
    # --- the opponent's mother (its last checker on our 1-point)
    their_mother: float = 0.5  # per chance we could pin it if it stayed: it must run or be lost
    # --- safety of our other checkers
    pin_shot: float = -0.5  # per chance the opponent pins one of our other blots next roll
    pin_shot_point: float = -0.02  # per point number of the highest blot it can pin: a checker
    # pinned far back (in its home board, our 19..24) stays pinned longest and has far to go
    # --- pins: an opponent checker pinned under ours, by point: held in our home board it
    # blocks its whole side's bear-off and has the whole board to go; deep in its home board
    # (our 19..24) it is nearly home and our pinner must leave it soon
    pin_held: tuple[float, ...] = (
        0.00, 1.40, 1.40, 1.25, 1.25, 1.10,  # our home board (1: its mother, ends the game)
        1.00, 0.95, 0.90, 0.85, 0.80, 0.75,
        0.70, 0.65, 0.60, 0.55, 0.50, 0.45,
        0.40, 0.30, 0.25, 0.20, 0.15, 0.10,  # its home board
    )
    # our checker pinned under theirs, by point: far back (its home board) it costs most
    pinned: tuple[float, ...] = (
        -0.10, -0.12, -0.14, -0.16, -0.18, -0.20,
        -0.25, -0.28, -0.31, -0.34, -0.37, -0.40,
        -0.43, -0.46, -0.49, -0.52, -0.55, -0.58,
        -0.62, -0.66, -0.70, -0.74, -0.78, -0.00,  # 24: our mother pinned ends the game
    )
    # --- blocks: a closed point (two of ours, or one of ours pinning) by where it stands:
    # in front of the opponent's start (our low points) it blocks all 15 of theirs
    points: tuple[float, ...] = (
        0.00, 0.24, 0.24, 0.24, 0.24, 0.24,
        0.20, 0.16, 0.12, 0.10, 0.08, 0.06,
        0.06, 0.06, 0.04, 0.04, 0.04, 0.04,
        0.04, 0.04, 0.04, 0.04, 0.04, 0.00,
    )
    prime: tuple[float, ...] = (0.0, 0.0, 0.02, 0.06, 0.12, 0.22, 0.38)  # by longest run 0..6
    prime_free: float = 0.3  # share of the prime's value when no opponent checker is behind it
    # --- the race
    pip: float = 0.012  # per pip of race lead (the opponent's pips minus ours)
    off: float = 0.05  # per checker of ours borne off: bear off when a checker can go
    stack: float = -0.01  # per checker above three on one point (not the 24): spares wasted
    blocked: float = -0.01  # per opponent point in the six in front of each checker of ours


PLAKOTO_WEIGHTS = PlakotoWeights()

_FULL = np.uint32((1 << 25) - 1)  # bits 0..24 (bit 0 unused: Plakoto has no bar)
_ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]  # the 21 distinct rolls
_ROLL_WEIGHTS = [1.0 if a == b else 2.0 for a, b in _ROLLS]  # out of 36
_BIT24 = np.uint32(1 << 24)
_POINTS = np.arange(1, 25)


def _masks(cond: np.ndarray) -> np.ndarray:
    """(K, 24) bool over points 1..24 -> (K,) uint32 with bit p set where cond[:, p - 1]."""
    packed = np.zeros((len(cond), 4), dtype=np.uint8)
    packed[:, :3] = np.packbits(cond, axis=1, bitorder="little")
    return packed.view("<u4").ravel() << np.uint32(1)


def _highest_bit(masks: np.ndarray) -> np.ndarray:
    """The highest set bit of masks with bits 1..24 only (0 for none): (K,) int32. Such a
    mask is even and below 2**25, so float32 holds it exactly and its exponent names it."""
    exponent = (masks.astype(np.float32).view(np.int32) >> 23) - 127
    return np.maximum(exponent, 0)


def _reach_hits(src: np.ndarray, open_: np.ndarray, target: np.ndarray):
    """For each of the 21 rolls: (weight of 36, mask of the targets a checker of ``src``
    can land on with that roll, moving up over points of ``open_``). Masks (K,) uint32."""
    ahead = [None] + [(src << np.uint32(d)) & _FULL for d in range(1, 7)]
    landed = [None] + [m & open_ for m in ahead[1:]]
    for (d1, d2), weight in zip(_ROLLS, _ROLL_WEIGHTS):
        if d1 != d2:
            hits = (ahead[d1] | ahead[d2] | (landed[d1] << np.uint32(d2))
                    | (landed[d2] << np.uint32(d1))) & target
        else:  # one checker walks up to four steps over open points
            hits = ahead[d1] & target
            walk = landed[d1]
            for _ in range(3):
                walk = (walk << np.uint32(d1)) & _FULL
                hits |= walk & target
                walk &= open_
        yield weight, hits


def plakoto_features(afterstates: np.ndarray) -> dict[str, np.ndarray]:
    """The Plakoto features of each afterstate (mover's view, before the sides change):
    a dict of (K,) arrays, and (24, K) cell-major tables ``pin_held``, ``pinned``, ``made``
    over points 1..24."""
    a = np.asarray(afterstates, dtype=np.int8)
    rows = a[:, 1:25]  # (K, 24) points 1..24, for the masks
    v = np.ascontiguousarray(rows.T)  # (24, K) the same, cell-major, for the sums
    k = v.shape[1]
    size = np.abs(v)
    pin = size >= PIN
    top = size & np.int8(PIN - 1)  # checkers on top
    mine = np.where(v > 0, top, np.int8(0))  # ours on top (they move)
    theirs = np.where(v < 0, top, np.int8(0))  # theirs on top (they move)
    held = pin & (v > 0)  # one of theirs pinned under ours
    caught = pin & (v < 0)  # one of ours pinned under theirs

    # the opponent's reach: its free checkers move up and land where v <= 1 (empty, its own,
    # or one of ours alone, which it pins; two of ours or one of ours pinning are closed)
    src = _masks(rows < 0)
    open_ = _masks(rows <= 1)
    made = v >= 2  # closed to the opponent: two of ours, or one of ours pinning
    blots = _masks(rows == 1)
    lone_mother = v[23] == 1  # our last checker on our 24
    mother = np.where(lone_mother, _BIT24, np.uint32(0))
    others = blots & ~mother
    mother_shot = np.zeros(k, dtype=np.float32)
    pin_shot = np.zeros(k, dtype=np.float32)
    pin_point = np.zeros(k, dtype=np.float32)
    for weight, hits in _reach_hits(src, open_, blots):
        mother_shot += weight * ((hits & mother) > 0)
        rest = hits & others
        pin_shot += weight * (rest > 0)
        pin_point += weight * _highest_bit(rest)

    # our reach on its mother (a lone checker of theirs on our 1): we move down, so mirror
    # the board (point p -> 25 - p) and let our free checkers play the opponent's part
    their_mother = np.zeros(k, dtype=np.float32)
    alone = np.flatnonzero(v[0] == -1)
    if len(alone):
        w = rows[alone, ::-1]
        target = np.full(len(alone), _BIT24, dtype=np.uint32)  # our 1-point, mirrored
        for weight, hits in _reach_hits(_masks(w > 0), _masks(w >= -1), target):
            their_mother[alone] += weight * (hits > 0)

    run, trapped = _longest_run(_masks(rows >= 2), src)
    ours_all = mine + caught  # (24, K) our checkers per point, pinned ones included
    theirs_all = theirs + held
    # opponent points in the six in front of each checker of ours: for point p, the closed
    # points p-6..p-1, a window slid up the board
    walls = (v <= -2).view(np.int8)  # closed to us: two of theirs, or one pinning ours
    facing = np.zeros(k, dtype=np.int8)
    blocked = np.zeros(k, dtype=np.int16)
    for p in range(2, 25):  # add point p - 1, drop point p - 7
        facing += walls[p - 2]
        if p >= 8:
            facing -= walls[p - 8]
        blocked += ours_all[p - 1] * facing
    ours_f = ours_all.astype(np.float32)
    pip = (weighted_rows(25 - _POINTS, theirs_all.astype(np.float32))
           - weighted_rows(_POINTS, ours_f))
    return {
        "mother_shot": mother_shot / 36,
        "mother_alone": lone_mother.astype(np.float32),
        "their_mother": their_mother / 36,
        "pin_shot": pin_shot / 36,
        "pin_point": pin_point / 36,
        "pin_held": held,
        "pinned": caught,
        "made": made,
        "run": run,
        "trapped": trapped,
        "pip": pip,
        "off": PLAKOTO.checkers - ours_f.sum(axis=0),
        "stack": np.maximum(mine[:23] - 3, 0).sum(axis=0, dtype=np.int16).astype(np.float32),
        "blocked": blocked.astype(np.float32),
    }


def plakoto_contact_scores(afterstates: np.ndarray,
                           w: PlakotoWeights = PLAKOTO_WEIGHTS) -> np.ndarray:
    """The weighted Plakoto score of each afterstate in contact: (K,) float64."""
    f = plakoto_features(afterstates)
    prime = np.asarray(w.prime)[f["run"]] * np.where(f["trapped"], 1.0, w.prime_free)
    score = (w.mother_shot * f["mother_shot"]
             + w.mother_alone * f["mother_alone"]
             + w.their_mother * f["their_mother"]
             + w.pin_shot * f["pin_shot"]
             + w.pin_shot_point * f["pin_point"]
             + weighted_rows(np.asarray(w.pin_held), f["pin_held"].view(np.int8))
             + weighted_rows(np.asarray(w.pinned), f["pinned"].view(np.int8))
             + weighted_rows(np.asarray(w.points), f["made"].view(np.int8))
             + prime
             + w.pip * f["pip"]
             + w.off * f["off"]
             + w.stack * f["stack"]
             + w.blocked * f["blocked"])
    return score.astype(np.float64)


def plakoto_race(boards: np.ndarray) -> np.ndarray:
    """Whether contact is over: every checker of ours (pinned ones included) on a lower
    point than every checker of theirs, or a side with none left. (N,) bool."""
    v = np.asarray(boards)[:, 1:25].astype(np.int16)
    pin = np.abs(v) >= PIN
    ours = (v > 0) | (pin & (v < 0))
    theirs = (v < 0) | (pin & (v > 0))
    our_back = np.where(ours.any(axis=1), 23 - np.argmax(ours[:, ::-1], axis=1), -1)
    their_back = np.where(theirs.any(axis=1), np.argmax(theirs, axis=1), 99)
    return (our_back < their_back) | (our_back < 0) | (their_back > 23)


def _as_standard(afterstates: np.ndarray) -> np.ndarray:
    """A race's Plakoto boards as standard boards (no pins in a race; cell 0 cleared)."""
    b = np.asarray(afterstates, dtype=np.int8).copy()
    v = b[:, 1:25]
    b[:, 1:25] = np.sign(v) * (np.abs(v) & (PIN - 1))
    b[:, 0] = 0
    return b


class PlakotoHeuristicBot(Bot):
    """Plakoto: pins the opponent's mother when it can, guards its own, pins and avoids being
    pinned, blocks, and in a race runs and bears off by the racer's score."""

    name = "heuristic"
    score_label = "plakoto heuristic score"

    def __init__(self, weights: PlakotoWeights = PLAKOTO_WEIGHTS, rules=PLAKOTO):
        self.weights = weights
        self.rules = rules

    def scores(self, plays: Plays, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        after = plays.boards
        race = plakoto_race(boards)[plays.root]  # decided before the play
        out = np.empty(len(plays))
        if race.any():
            out[race] = race_scores(_as_standard(after[race]), self.rules.checkers)
        if not race.all():
            out[~race] = plakoto_contact_scores(after[~race], self.weights)
        return out + self.weights.win * self.rules.end_of_game(after)


# --- by variant -------------------------------------------------------------------------------


def heuristic_bot(variant="standard") -> Bot:
    """The ``heuristic`` bot of a variant (a name or a rules object)."""
    rules = get_variant(variant)
    if rules.name == "suddendeath":
        return SuddenDeathHeuristicBot(rules=rules)
    if rules.name == "plakoto":
        return PlakotoHeuristicBot(rules=rules)
    return HeuristicBot(checkers=rules.checkers)


__all__ = ["SuddenDeathWeights", "SUDDENDEATH_WEIGHTS", "SuddenDeathHeuristicBot",
           "PlakotoWeights", "PLAKOTO_WEIGHTS", "PlakotoHeuristicBot", "plakoto_features",
           "plakoto_contact_scores", "plakoto_race", "heuristic_bot"]
