"""The cubeful game loop: G money games in lock-step, with cube decisions before each roll.

The sibling of ``engine.loop.play`` (same dice, same checker play through
``engine.loop.play_turn``), with the doubling cube of ``engine.cube``: before every roll
but the opening one, the player on roll is asked whether to double (where the rules allow
it), and the opponent whether to take, pass or beaver (``engine.cube_policy``). A pass ends
the game; a finished game scores ``cube value x 1/2/3`` (Jacoby aware).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .board import flip
from .rules import start_boards, variant as get_variant
from .cube import (BEAVER, PASS, TAKE, Cube, CubeRules, accept, game_points, legal_responses,
                   may_double, opening_ties, pass_points, start_cubes)
from .cube_policy import offers, responses
from .dice import DiceTable
from .game import finished, result_points
from .loop import play_turn


@dataclass
class CubefulResults:
    """Outcome of G cubeful money games, from seat 0's view.

    points:  (G,) int32 -- seat 0's points: cube value x 1/2/3 for a game played out (x 1
             under Jacoby with the cube centred), the cube value before the offer for a
             passed double; negative when seat 1 won, 0 when cut off at the ply limit
    plies:   (G,) int32 -- plays made (passes of the dice included)
    cube:    (G,) int32 -- the cube value at the end (for a passed double: the value won)
    passed:  (G,) bool  -- the game ended on a passed double
    offers:  (G, 2) int16 -- doubles offered by seat 0 and seat 1
    takes:   (G, 2) int16 -- doubles taken (plain takes) by seat 0 and seat 1
    beavers: (G, 2) int16 -- doubles beavered by seat 0 and seat 1
    passes:  (G, 2) int16 -- doubles passed by seat 0 and seat 1 (at most one per game)
    """

    points: np.ndarray
    plies: np.ndarray
    cube: np.ndarray
    passed: np.ndarray
    offers: np.ndarray
    takes: np.ndarray
    beavers: np.ndarray
    passes: np.ndarray


def play_cubeful(policies: tuple, games: int, rng: np.random.Generator,
                 rules: CubeRules = CubeRules(), variant: str = "standard",
                 max_plies: int = 10_000, dice: DiceTable | None = None,
                 dice_rows: np.ndarray | None = None,
                 ties: np.ndarray | None = None, on_play=None, on_cube=None) -> CubefulResults:
    """Play ``games`` cubeful money games between policies[0] (seat 0) and policies[1].

    The policies are bots: callables choosing plays (as for ``engine.loop.play``), with
    ``offer_double`` and ``respond`` when they use the cube (``engine.cube_policy``; without
    them: never double, always take). Dice come from ``dice`` rows ``dice_rows`` as in
    ``play``; ``ties`` (one per dice row) counts the tied opening throws that trigger
    automatic doubles, drawn from ``rng`` when not given. ``on_play`` is told every play
    as in ``play``; ``on_cube(games, doubler_seats, values, answers)`` every double offered,
    with the value offered and the answer (engine.cube PASS, TAKE or BEAVER).
    """
    checkers = get_variant(variant).checkers
    if dice is None:
        dice = DiceTable(rng, games)
    rows = np.arange(games) if dice_rows is None else np.asarray(dice_rows)
    if ties is None:
        ties = opening_ties(rng, len(dice.first))
    cube = start_cubes(np.asarray(ties)[rows], rules)  # owner relative to the seat on roll
    boards = start_boards(games, variant)  # (G, 26) from the seat on roll
    side = dice.first[rows].copy()  # (G,) seat on roll
    roll = dice.opening[rows]
    points = np.zeros(games, dtype=np.int32)
    plies = np.zeros(games, dtype=np.int32)
    passed = np.zeros(games, dtype=bool)
    count = {k: np.zeros((games, 2), dtype=np.int16)
             for k in ("offers", "takes", "beavers", "passes")}
    live = np.arange(games)
    for ply in range(max_plies):
        if len(live) == 0:
            break
        if ply > 0:  # the opening roll is played at once: no cube action before it
            over = _cube_action(policies, boards, side, cube, live, rules, points, count,
                                on_cube)
            passed[live[over]] = True
            live = live[~over]
            roll = dice.roll(rows[live], ply)
        after = play_turn(policies, boards[live], side[live], roll)
        if on_play is not None:
            on_play(live, side[live], boards[live], roll, after)
        plies[live] += 1
        won = finished(after)
        if won.any():
            g = live[won]
            pts = game_points(Cube(cube.value[g], cube.owner[g]),
                              result_points(after[won], checkers), rules)
            points[g] = np.where(side[g] == 0, pts, -pts)
        boards[live] = flip(after)
        side[live] ^= 1
        cube.owner[live] = -cube.owner[live]
        live = live[~won]
    return CubefulResults(points, plies, cube.value, passed, **count)


def _cube_action(policies, boards, side, cube: Cube, live, rules: CubeRules, points, count,
                 on_cube=None) -> np.ndarray:
    """Offers and answers before the roll of the live games; updates cube, points and the
    counts in place. Returns (len(live),) bool: games ended by a passed double."""
    over = np.zeros(len(live), dtype=bool)
    can = np.flatnonzero(may_double(Cube(cube.value[live], cube.owner[live]), rules))
    for doubler in (0, 1):
        at = can[side[live[can]] == doubler]  # positions in live
        if len(at) == 0:
            continue
        g = live[at]
        doubled = offers(policies[doubler], boards[g], cube.value[g], cube.owner[g])
        at, g = at[doubled], g[doubled]
        if len(g) == 0:
            continue
        count["offers"][g, doubler] += 1
        taker = 1 - doubler
        before = Cube(cube.value[g], cube.owner[g])
        answer = legal_responses(
            responses(policies[taker], boards[g], before.value, before.owner), before, rules)
        if on_cube is not None:
            on_cube(g, np.full(len(g), doubler), 2 * before.value, answer)
        for code, key in ((PASS, "passes"), (TAKE, "takes"), (BEAVER, "beavers")):
            count[key][g[answer == code], taker] += 1
        dropped = answer == PASS
        won = pass_points(before)[dropped]
        points[g[dropped]] = won if doubler == 0 else -won
        over[at[dropped]] = True
        after = accept(before, answer)
        cube.value[g], cube.owner[g] = after.value, after.owner
    return over


__all__ = ["CubefulResults", "play_cubeful"]
