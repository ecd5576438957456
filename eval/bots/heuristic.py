"""The heuristic bot: the classic strategy principles as one weighted sum over afterstates.

Every afterstate of a batch is scored at once, from the side that just moved (not flipped).
Whether the game is a race is decided on the position before the play, as pubeval does, so
all the plays of one position are scored by the same formula:

- **Race** (no contact left): the racer's pip-count score (``eval.bots.racer.race_scores``):
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

Opponent shots are counted by ``engine.shots`` (25-bit masks per afterstate, one shift and
AND over the whole batch per roll of the dice).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gammon.engine.movegen import Plays
from gammon.engine.shots import cell_masks, opponent_shots, shot_masks, shot_rolls

from gammon.eval.bots.simple import Bot
from gammon.engine.phase import is_race
from gammon.eval.bots.racer import race_scores, weighted_rows


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

_BUILDER_TARGETS = (4, 5, 6, 7, 8)  # points worth making with builders
_INDEX = np.arange(26, dtype=np.float32)


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
    shots = shot_masks(a)
    chance, lost = shot_rolls(shots)
    chance, lost = chance / np.float32(36), lost / np.float32(36)
    run, trapped = _longest_run(cell_masks(a[:, :25] >= 2), shots.src)  # cell 0: never ours

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
        "opp_bar": shots.on_bar.astype(np.float32),
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
