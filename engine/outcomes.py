"""The six outcomes of a game and their arithmetic, for every evaluator (NumPy only).

A probability vector (..., 6) is always for the player on roll (or, after a play, the
player who moved), over six exclusive outcomes:

    0 win by backgammon   1 win by gammon   2 single win
    3 single loss         4 loss by gammon  5 loss by backgammon

GNU Backgammon's five outputs are sums of these: P(win) = 0+1+2, P(wg) = 0+1 (gammons
include backgammons), P(wbg) = 0, P(lg) = 4+5, P(lbg) = 5. Changing sides reverses the six
(a probability vector is not negated). The torch network (``model.net``) uses the same
points on tensors.
"""

from __future__ import annotations

import numpy as np

from .board import flip

OUTCOMES = ("win_backgammon", "win_gammon", "win", "lose", "lose_gammon", "lose_backgammon")
# points won by the player on roll in each exclusive outcome: (6,)
OUTCOME_POINTS = np.array((3.0, 2.0, 1.0, -1.0, -2.0, -3.0))
FIVE = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")


def equity(probs: np.ndarray) -> np.ndarray:
    """Cubeless money equity (points per game) of six-outcome probabilities (..., 6)."""
    return np.asarray(probs) @ OUTCOME_POINTS


def flip_outcomes(probs: np.ndarray) -> np.ndarray:
    """The same outcomes seen by the other player: the six reversed. (..., 6)"""
    return probs[..., ::-1]


def certain(points: np.ndarray) -> np.ndarray:
    """The outcome of finished games, one-hot: points (N,) in +-1..3 from the player whose
    view is wanted (+ won, - lost) -> (N, 6) float32."""
    points = np.asarray(points).astype(np.int64)
    out = np.zeros((len(points), 6), dtype=np.float32)
    out[np.arange(len(points)), np.where(points > 0, 3 - points, 2 - points)] = 1.0
    return out


def to_five(probs: np.ndarray) -> np.ndarray:
    """gnubg's five outputs (..., 5) of six outcomes (..., 6); five outputs pass through."""
    p = np.asarray(probs, dtype=np.float64)
    if p.shape[-1] == 5:
        return p
    return np.stack([p[..., 0] + p[..., 1] + p[..., 2], p[..., 0] + p[..., 1], p[..., 0],
                     p[..., 4] + p[..., 5], p[..., 5]], axis=-1)


def equity_of_five(p5) -> np.ndarray:
    """Cubeless money equity of gnubg's five outputs (..., 5) -> (...)."""
    p5 = np.asarray(p5, dtype=np.float64)
    return 2 * p5[..., 0] - 1 + p5[..., 1] - p5[..., 3] + p5[..., 2] - p5[..., 4]


def after_play(evaluate, afterstates: np.ndarray, rules, plain: np.ndarray | None = None) -> np.ndarray:
    """Probabilities (K, 6) for the player who just moved, of afterstates (K, 26) int8.

    ``evaluate(boards (N, 26)) -> (N, 6)`` values positions for the player on roll: each
    afterstate is flipped (the opponent is on roll), evaluated and its outcomes reversed.
    A play that ends the game (``rules.end_of_game``) is valued by its result, not
    estimated: an evaluator never sees finished games. ``plain``: the afterstates as the
    rules read them, when the evaluator's boards carry more (a network's folded state).
    """
    probs = np.ascontiguousarray(flip_outcomes(np.asarray(evaluate(flip(afterstates)))),
                                 dtype=np.float32)
    points = rules.end_of_game(afterstates if plain is None else plain)
    over = points != 0
    if over.any():
        probs[over] = certain(points[over])
    return probs


__all__ = ["OUTCOMES", "OUTCOME_POINTS", "FIVE", "equity", "flip_outcomes", "certain",
           "to_five", "equity_of_five", "after_play"]
