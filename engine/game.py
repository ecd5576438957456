"""Game mechanics for a batch: dice, the opening roll, the end of a game and its result.

Dice always come from an explicit ``np.random.Generator`` so that every game is
reproducible from its seed.
"""

from __future__ import annotations

import numpy as np

from .board import BAR, OPP_BAR, on_board

SINGLE, GAMMON, BACKGAMMON = 1, 2, 3


def roll(rng: np.random.Generator, n: int) -> np.ndarray:
    """n rolls of two dice: (n, 2) int8 in 1..6."""
    return rng.integers(1, 7, size=(n, 2), dtype=np.int8)


def opening_roll(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The opening roll of n games: each side throws one die, ties are thrown again.

    Returns (first, dice): first (n,) int8 is 0 when side 0 threw higher (and so moves
    first), 1 otherwise; dice (n, 2) int8 is (side 0's die, side 1's die), which the
    higher side plays as its first roll.
    """
    dice = roll(rng, n)
    tied = dice[:, 0] == dice[:, 1]
    while tied.any():
        dice[tied] = roll(rng, int(tied.sum()))
        tied = dice[:, 0] == dice[:, 1]
    first = (dice[:, 1] > dice[:, 0]).astype(np.int8)
    return first, dice


def finished(boards: np.ndarray) -> np.ndarray:
    """Games the mover has just won by bearing off the last checker: (N,) bool.

    Call on afterstates, before changing sides: the player who moved is still the mover.
    """
    mover, _ = on_board(boards)
    return mover == 0


def result_points(boards: np.ndarray, checkers: int) -> np.ndarray:
    """Points the mover wins on finished afterstates: 1 single, 2 gammon, 3 backgammon.

    boards (N, 26) int8 after the winning play, before changing sides. A gammon when the
    loser has borne off no checker; a backgammon when, besides, the loser still has a
    checker on the bar or in the winner's home board (points 1..6).
    """
    _, opponent = on_board(boards)
    gammon = opponent == checkers
    back = (boards[:, OPP_BAR] < 0) | (boards[:, 1:7] < 0).any(axis=1)
    return np.where(gammon, np.where(back, BACKGAMMON, GAMMON), SINGLE).astype(np.int8)


__all__ = ["roll", "opening_roll", "finished", "result_points", "SINGLE", "GAMMON",
           "BACKGAMMON", "BAR"]
