"""The one game loop: G games in lock-step between two policies.

A policy is any callable ``policy(plays, boards, dice) -> (N,) int`` that, given the legal
plays of N positions, returns for each position the row of ``plays`` it chooses. Training
and evaluation both play through this loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .board import flip
from .rules import start_boards, variant as get_variant
from .dice import DiceTable
from .game import finished, result_points
from .movegen import Plays, legal_plays

Policy = Callable[[Plays, np.ndarray, np.ndarray], np.ndarray]


def random_policy(rng: np.random.Generator) -> Policy:
    """A policy choosing uniformly among the distinct legal results."""

    def choose(plays: Plays, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        n = len(boards)
        counts = plays.counts(n)
        start = plays.offsets(n)[:-1]
        return start + (rng.random(n) * counts).astype(np.int64)

    return choose


def play_turn(policies: tuple[Policy, Policy], boards: np.ndarray, side: np.ndarray,
              roll: np.ndarray) -> np.ndarray:
    """Each game's seat on roll plays its roll: afterstates (N, 26) int8, not flipped.

    boards (N, 26) from the seat on roll, side (N,) that seat (0 or 1), roll (N, 2).
    """
    after = np.empty((len(boards), 26), dtype=np.int8)
    for s in (0, 1):
        mine = np.flatnonzero(side == s)
        if len(mine) == 0:
            continue
        plays = legal_plays(boards[mine], roll[mine])
        after[mine] = plays.boards[policies[s](plays, boards[mine], roll[mine])]
    return after


@dataclass
class Results:
    """Outcome of G games, from seat 0's view.

    points: (G,) int8 -- +1/+2/+3 when seat 0 won a single/gammon/backgammon, negative when
            seat 1 won, 0 when the game hit the ply limit unfinished
    plies:  (G,) int32 -- plays made (including passes) in each game
    """

    points: np.ndarray
    plies: np.ndarray


def play(policies: tuple[Policy, Policy], games: int, rng: np.random.Generator,
         variant: str = "standard", max_plies: int = 10_000,
         on_position: Callable[[np.ndarray, np.ndarray], None] | None = None,
         dice: DiceTable | None = None, dice_rows: np.ndarray | None = None,
         on_play: Callable[..., None] | None = None) -> Results:
    """Play ``games`` games between policies[0] (seat 0) and policies[1] (seat 1).

    The opening roll decides who moves first and is that seat's first roll. Dice come from
    ``dice`` (row ``dice_rows[g]`` for game g) when given, else from a new table drawn from
    ``rng``. Every position a seat faces, with its roll, is passed to
    ``on_position(boards, dice)`` when given; every play made, to
    ``on_play(games, seats, boards, dice, afterstates)`` (games (M,) indices, for recording).
    """
    checkers = get_variant(variant).checkers
    if dice is None:
        dice = DiceTable(rng, games)
    rows = np.arange(games) if dice_rows is None else np.asarray(dice_rows)
    boards = start_boards(games, variant)  # (G, 26) from the seat on roll
    side = dice.first[rows].copy()  # (G,) seat on roll
    roll = dice.opening[rows]
    points = np.zeros(games, dtype=np.int8)
    plies = np.zeros(games, dtype=np.int32)
    live = np.arange(games)
    for ply in range(max_plies):
        if len(live) == 0:
            break
        if ply > 0:
            roll = dice.roll(rows[live], ply)
        if on_position is not None:
            on_position(boards[live], roll)
        after = play_turn(policies, boards[live], side[live], roll)
        if on_play is not None:
            on_play(live, side[live], boards[live], roll, after)
        plies[live] += 1
        won = finished(after)
        if won.any():
            pts = result_points(after[won], checkers)
            points[live[won]] = np.where(side[live[won]] == 0, pts, -pts)
        boards[live] = flip(after)
        side[live] ^= 1
        live = live[~won]
    return Results(points, plies)
