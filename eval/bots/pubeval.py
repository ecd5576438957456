"""Tesauro's pubeval: the public linear evaluation benchmark bot, vectorised over afterstates.

pubeval (Gerald Tesauro, IBM, 1993) scores the board *after* a play from the side that made
it, with one 122-weight linear function for contact positions and another for races, and
picks the play with the highest score. Its input encoding (``setx`` in pubeval.c), per point
from the mover's 24 down to 1, five units:

    unit 0  1 if the point holds exactly one opponent checker (n == -1)
    unit 1  1 if it holds exactly one mover checker (n == 1)
    unit 2  1 if it holds two or more (n >= 2)
    unit 3  1 if it holds exactly three (n == 3)
    unit 4  (n - 3) / 2 if it holds four or more (n >= 4)

then unit 120 = opponent's checkers on the bar / 2 and unit 121 = mover's checkers off / 15.
The mover's own bar checkers are not encoded at all, and a board with all 15 borne off scores
99999999 ("best possible move").

Matching the reference exactly: gnubg (Joseph Heled's 2001 rewrite of pub_eval.c, used by
gnubg_nn) computes the same sum in 32-bit floats, arranged differently: the unit-4 and bar
weights are stored pre-divided by 2 and the off weight by 15 (each rounded to float from the
double quotient), the sum starts with bar + off terms, and each point 24..1 then adds one
float, ``w2 + w3`` for three checkers and ``w2 + w4/2 * (n - 3)`` for n >= 4. We do the same
float32 operations in the same order, so scores agree bit for bit with gnubg's
``pub_eval_score`` and near-ties between plays break the same way. Mathematically this is
Tesauro's ``setx``/``pubeval`` exactly; only float rounding (within ~1e-6) differs.

Race or contact: Tesauro's instructions say to decide on the position *before* the move, and
gnubg's ``FindPubevalMove`` (behind ``gnubg_nn.pub_best_move``) does exactly that, with
``ClassifyPosition(board) <= CLASS_RACE`` on the position on roll; ``pubeval_policy`` follows
it. ``gnubg_nn.pub_eval_score`` classifies the board it is given, which ``pubeval_scores``
does when no ``race`` flags are passed.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.movegen import Plays
from gammon.engine.phase import is_race, race_of_cells
from gammon.engine.policy import best_per_root
from gammon.engine.rules import STANDARD

# fmt: off
# Tesauro's published contact weights (pubeval.c, "wc"): 24 points x 5 units, bar, off.
CONTACT_WEIGHTS = np.array([
    .25696, -.66937, -1.66135, -2.02487, -2.53398, -.16092, -1.11725, -1.06654, -.92830,
    -1.99558, -1.10388, -.80802, .09856, -.62086, -1.27999, -.59220, -.73667, .89032,
    -.38933, -1.59847, -1.50197, -.60966, 1.56166, -.47389, -1.80390, -.83425, -.97741,
    -1.41371, .24500, .10970, -1.36476, -1.05572, 1.15420, .11069, -.38319, -.74816,
    -.59244, .81116, -.39511, .11424, -.73169, -.56074, 1.09792, .15977, .13786,
    -1.18435, -.43363, 1.06169, -.21329, .04798, -.94373, -.22982, 1.22737, -.13099,
    -.06295, -.75882, -.13658, 1.78389, .30416, .36797, -.69851, .13003, 1.23070,
    .40868, -.21081, -.64073, .31061, 1.59554, .65718, .25429, -.80789, .08240,
    1.78964, .54304, .41174, -1.06161, .07851, 2.01451, .49786, .91936, -.90750,
    .05941, 1.83120, .58722, 1.28777, -.83711, -.33248, 2.64983, .52698, .82132,
    -.58897, -1.18223, 3.35809, .62017, .57353, -.07276, -.36214, 4.37655, .45481,
    .21746, .10504, -.61977, 3.54001, .04612, -.18108, .63211, -.87046, 2.47673,
    -.48016, -1.27157, .86505, -1.11342, 1.24612, -.82385, -2.77082, 1.23606,
    -1.59529, .10438, -1.30206, -4.11520, 5.62596, -2.75800,
], dtype=np.float64)  # (122,)

# Tesauro's published race weights (pubeval.c, "wr").
RACE_WEIGHTS = np.array([
    .00000, -.17160, .27010, .29906, -.08471, .00000, -1.40375, -1.05121, .07217,
    -.01351, .00000, -1.29506, -2.16183, .13246, -1.03508, .00000, -2.29847, -2.34631,
    .17253, .08302, .00000, -1.27266, -2.87401, -.07456, -.34240, .00000, -1.34640,
    -2.46556, -.13022, -.01591, .00000, .27448, .60015, .48302, .25236, .00000,
    .39521, .68178, .05281, .09266, .00000, .24855, -.06844, -.37646, .05685, .00000,
    .17405, .00430, .74427, .00576, .00000, .12392, .31202, -.91035, -.16270, .00000,
    .01418, -.10839, -.02781, -.88035, .00000, 1.07274, 2.00366, 1.16242, .22520,
    .00000, .85631, 1.06349, 1.49549, .18966, .00000, .37183, -.50352, -.14818,
    .12039, .00000, .13681, .13978, 1.11245, -.12707, .00000, -.22082, .20178, -.06285,
    -.52728, .00000, -.13597, -.19412, -.09308, -1.26062, .00000, 3.05454, 5.16874,
    1.50680, 5.35000, .00000, 2.19605, 3.85390, .88296, 2.30052, .00000, .92321,
    1.08744, -.11696, -.78560, .00000, -.09795, -.83050, -1.09167, -4.94251, .00000,
    -1.00316, -3.66465, -2.56906, -9.67677, .00000, -2.77982, -7.26713, -3.40177,
    -12.32252, .00000, 3.42040,
], dtype=np.float64)  # (122,)
# fmt: on

ALL_OFF_SCORE = np.float32(99999999.0)  # what pubeval returns when the mover has borne off all
_MAX = 15  # largest checker count on a point that the lookup table covers
_SLOT_POINTS = np.arange(24, 0, -1)  # slot s (units 5s..5s+4) encodes point 24 - s


def _point_table(weights: np.ndarray) -> np.ndarray:
    """What each slot adds to the score for each checker count, as gnubg computes it.

    weights (122,) float64, the published values. Returns (24, 2 * _MAX + 1) float32 indexed
    by [slot, n + _MAX] for a count n in -_MAX.._MAX (negative = opponent's checkers).
    """
    w = weights[:120].reshape(24, 5)
    table = np.zeros((24, 2 * _MAX + 1), dtype=np.float32)
    table[:, -1 + _MAX] = w[:, 0].astype(np.float32)  # an opponent blot
    table[:, 1 + _MAX] = w[:, 1].astype(np.float32)  # a blot of ours
    w2 = w[:, 2].astype(np.float32)
    table[:, 2 + _MAX] = w2
    table[:, 3 + _MAX] = w2 + w[:, 3].astype(np.float32)  # float32 sum, as in C
    w4_half = (w[:, 4] / 2.0).astype(np.float32)  # C: static float = literal / 2.0
    for n in range(4, _MAX + 1):
        table[:, n + _MAX] = w2 + w4_half * np.float32(n - 3)
    return table


# per slot, (2 * 31,) float32: the contact table's row, then the race table's
_SLOT_TABLES = np.ascontiguousarray(
    np.stack([_point_table(CONTACT_WEIGHTS), _point_table(RACE_WEIGHTS)], axis=1)
).reshape(24, -1)  # (24, 62)
# (2,) float32 per opponent checker on the bar and per mover checker off: the input
# scalings (/ 2 and / 15) folded into the weights, as gnubg stores them
_BAR_W = (np.array([CONTACT_WEIGHTS[120], RACE_WEIGHTS[120]]) / 2.0).astype(np.float32)
_OFF_W = (np.array([CONTACT_WEIGHTS[121], RACE_WEIGHTS[121]]) / 15.0).astype(np.float32)


def pubeval_scores(afterstates: np.ndarray, checkers: int = 15,
                   race: np.ndarray | None = None) -> np.ndarray:
    """pubeval's score of each afterstate, for the side that just played: (K,) float64.

    afterstates (K, 26) int8: boards after the mover's play, NOT flipped (mover positive).
    race (K,) bool picks the race weights per row; by default each afterstate is classified
    itself (as gnubg_nn.pub_eval_score does). pubeval proper decides on the position before
    the move: pass that flag per row, as pubeval_policy does.

    The values are float32 results (see the module docstring) widened to float64. Checkers
    off are scaled by 15 whatever ``checkers`` is (the published encoding), and a board with
    no mover checker in play scores 99999999 (as float32: 1e8), pubeval's "all men off".
    """
    cells = np.ascontiguousarray(np.asarray(afterstates, dtype=np.int8).T)  # (26, K)
    if race is None:
        race = race_of_cells(cells)
    w = np.asarray(race, dtype=bool).astype(np.intp)  # (K,) 0 contact, 1 race
    row = w * (2 * _MAX + 1) + _MAX  # (K,) where count 0 sits in a slot's table

    opp_bar = (-cells[0]).astype(np.float32)  # (K,)
    on_board = np.maximum(cells[1:], 0).sum(axis=0, dtype=np.int64)  # (K,) points + bar
    off = (checkers - on_board).astype(np.float32)  # (K,)

    # float32 throughout, one add per point in gnubg's order: bar and off first, then 24..1
    score = _BAR_W[w] * opp_bar + _OFF_W[w] * off  # (K,) float32
    for slot, point in enumerate(_SLOT_POINTS):
        score += _SLOT_TABLES[slot][row + cells[point]]
    score[on_board == 0] = ALL_OFF_SCORE
    return score.astype(np.float64)


def _highest(b: list[int]) -> int:
    """The mover's rearmost occupied cell (25 = the bar), 0 when none is left."""
    for p in range(25, 0, -1):
        if b[p] > 0:
            return p
    return 0


def _step(b: list[int], point: int, die: int) -> list[int] | None:
    """One checker from ``point`` by ``die`` (the rules' own step), or None if not legal."""
    moved = STANDARD.step(b, point, die)
    return None if isinstance(moved, str) else list(moved[0])


def _gnubg_sequences(b: list[int], d1: int, d2: int):
    """Yield (rank, afterstate) for every play in gnubg's move-generation order.

    gnubg_nn generates moves with gnubg-nn's "egg" generator (eGenerateMoves): a mixed
    roll is searched with d1 first and then with d2 first; the first checker is tried from
    the back (bar, then points 24 down to 1), the second from the first one's point down
    (strictly below it in the second pass); a double tries non-increasing points, four
    deep. Its move list holds the plays of the highest rank in this order, so the first
    occurrence of an afterstate here is its place in gnubg's list. The rank is the number
    of dice used, and for a mixed roll of which one die only can be played, gnubg keeps
    the one-die plays that move a checker farthest (a fraction added to the rank here).
    """
    if d1 != d2:
        for second_pass, (a, c) in enumerate(((d1, d2), (d2, d1))):
            top = _highest(b)
            for p1 in range(top, 0, -1):
                b1 = _step(b, p1, a) if b[p1] > 0 else None
                if b1 is None:
                    continue
                for p2 in range(p1 - second_pass, 0, -1):
                    b2 = _step(b1, p2, c) if b1[p2] > 0 else None
                    if b2 is not None:
                        yield 2, b2
                # a one-die play ranks by the distance it moves (to the edge when off)
                yield 1 + min(a, p1) / 8, b1
        return

    def deeper(board: list[int], start: int, used: int):
        for p in range(start, 0, -1):
            after = _step(board, p, d1) if board[p] > 0 else None
            if after is None:
                continue
            yield used + 1, after
            if used + 1 < 4:
                yield from deeper(after, p, used + 1)

    yield from deeper(b, _highest(b), 0)


def gnubg_move_order(board: np.ndarray, d1: int, d2: int) -> list[bytes]:
    """The distinct legal afterstates of a position in gnubg's move-list order.

    board (26,) int8 from the mover's view; the dice in the order given to gnubg. Each
    afterstate is returned as ``bytes`` of its (26,) int8 board.
    """
    found = list(_gnubg_sequences([int(x) for x in board], d1, d2))
    most = max((rank for rank, _ in found), default=0)
    order: dict[bytes, None] = {}
    for rank, after in found:
        if rank == most:
            order.setdefault(np.array(after, dtype=np.int8).tobytes())
    return list(order)


def _break_ties(chosen: np.ndarray, scores: np.ndarray, plays: Plays,
                boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
    """Re-pick, where several plays share the best score, the one gnubg would take first.

    Exact ties are rare (about one position in 70,000 of random play), so a slow scalar
    walk through gnubg's move order is fine here. chosen (N,) rows; returns (N,) rows.
    """
    n = len(boards)
    best = scores[chosen]  # (N,)
    tied = np.bincount(plays.root[scores == best[plays.root]], minlength=n) > 1
    offsets = plays.offsets(n)
    for i in np.flatnonzero(tied):
        rows = np.arange(offsets[i], offsets[i + 1])
        rows = rows[scores[rows] == best[i]]
        by_board = {plays.boards[r].tobytes(): r for r in rows}
        for key in gnubg_move_order(boards[i], int(dice[i, 0]), int(dice[i, 1])):
            if key in by_board:
                chosen[i] = by_board[key]
                break
    return chosen


def pubeval_policy(checkers: int = 15):
    """A policy playing pubeval: per position, the legal result with the highest score.

    Race or contact is decided on the position before the play (Tesauro's rule, and what
    gnubg_nn.pub_best_move does). An exact tie goes, as in gnubg, to the play that comes
    first in gnubg's move-generation order, which depends on the order of the two dice.
    """

    def choose(plays: Plays, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        race = is_race(boards)[plays.root]  # (K,)
        scores = pubeval_scores(plays.boards, checkers, race)
        chosen = best_per_root(scores, plays.root, len(boards))
        return _break_ties(chosen, scores, plays, boards, np.asarray(dice))

    return choose


__all__ = ["CONTACT_WEIGHTS", "RACE_WEIGHTS", "is_race", "pubeval_scores", "gnubg_move_order",
           "pubeval_policy"]
