"""Resignations: what a resignation may offer, and whether a bot accepts one.

A resignation offers the opponent a single game (1), a gammon (2) or a backgammon (3),
times the cube. The levels a player may offer are those the game could still end with:
a gammon only while he has borne off no checker, a backgammon only while, besides, he has
a checker on the bar or in the opponent's home board (``resign_levels``).

A bot accepts when the offer gives at least what playing on is worth to it: the offered
points are at least its cubeless equity of the position (its own estimate, from its
0-ply probabilities; ``eval.bots.cube.probability_source``). A bot that estimates no
probabilities accepts only what it could win at most now (so it never gives anything
away): a backgammon when one is still possible, else a gammon when one is, else a single.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.board import flip
from gammon.engine.outcomes import equity, equity_of_five, flip_outcomes, to_five
from gammon.engine.rules import Rules, variant as get_variant

from gammon.eval.bots.cube import probability_source


def resign_levels(board: np.ndarray, rules: Rules | str = "standard") -> int:
    """The most the player on roll could lose in ``board`` (26,) if the game ended now
    with the opponent bearing off at once: 1, 2 (he has borne off no checker) or 3
    (and a checker of his is on the bar or in the opponent's home board)."""
    rules = get_variant(rules)
    theirs = flip(np.asarray(board, dtype=np.int8)).copy()  # the opponent's view
    theirs[theirs > 0] = 0  # as if the opponent had borne everything off
    return int(rules.end_of_game(theirs[None])[0])


def accepts_resignation(bot, board: np.ndarray, points: int, on_roll: bool = True,
                        rules: Rules | str = "standard") -> bool:
    """Whether ``bot`` accepts a resignation giving it ``points`` (1, 2 or 3, per cube).

    ``board`` (26,) is seen from the player on roll: the bot when ``on_roll``, else the
    resigner (then it is flipped here to see it from the bot's side).
    """
    board = np.asarray(board, dtype=np.int8)
    mine = board if on_roll else flip(board)  # the bot's view, as if on roll
    most = resign_levels(flip(mine), rules)  # what the resigner could lose at most now
    source = probability_source(bot)
    if source is None:
        return points >= most
    probs = np.asarray(source(board[None]))[0]  # for the player on roll in ``board``
    if not on_roll:  # the resigner is on roll: see it from the bot's side
        probs = flip_outcomes(probs) if probs.shape[-1] == 6 else _flip_five(probs)
    value = float(equity(probs)) if probs.shape[-1] == 6 else float(equity_of_five(probs))
    return points >= min(value, most)


def _flip_five(p5: np.ndarray) -> np.ndarray:
    """gnubg's five outputs seen from the other side: (win, wg, wbg, lg, lbg) swapped."""
    p5 = to_five(p5)
    return np.array([1 - p5[0], p5[3], p5[4], p5[1], p5[2]])


__all__ = ["resign_levels", "accepts_resignation"]
