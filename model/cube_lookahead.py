"""Cube decisions looking ahead: cubeful money equities N plies deep (NumPy around the net).

At 0-ply the cube heads (``model.cube``) turn the network's cubeless probabilities into
cubeful equities with Janowski's model. Looking ahead, the cube is played at every turn of
the tree, as GNU Backgammon's cubeful evaluation does:

    value(position, n, cube) for the player on roll, per current cube, his cube action
    included (he doubles when it pays, the opponent then takes or passes):
      n = 0:  the cube heads on the network's probabilities;
      n > 0:  no double  ND = the mean over his 21 rolls, each with his best play by 0-ply
                              cubeless equity, of minus the opponent's value(after, n-1)
                              with the cube seen from the opponent's side;
              double/take DT = 2 x the same with the opponent owning the cube; DP = +1;
              the value is what proper cube play makes of ND, DT, DP
              (``model.cube.decide_from``), or ND when he may not double.

Three cube states are carried through the tree at once, from the side of the player on
roll: centred, his own cube, the opponent's (which he cannot turn). A play that ends the
game is worth its points (per current cube) at every depth. Moves are chosen at 0-ply, so
the tree has one branch per roll: 21 positions at 1-ply, 441 at 2-ply.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.board import flip
from gammon.engine.dice import ROLL_WEIGHTS, ROLLS
from gammon.engine.movegen import legal_plays
from gammon.engine.outcomes import equity
from gammon.engine.policy import best_per_root

from .cube import EFFICIENCY, CubeEquities, cube_equities, cubeful_equity, decide_from

CENTRED, OWN, THEIRS = 0, 1, 2  # the cube states, from the side of the player on roll
# the same cube seen by the other player: centred stays centred, mine is his opponent's
SEEN_BY_OPPONENT = (CENTRED, THEIRS, OWN)


def cube_values(evaluator, boards: np.ndarray, plies: int, efficiency: float = EFFICIENCY,
                jacoby: bool = False, beavers: bool = False) -> np.ndarray:
    """(N, 3) the cubeful value per current cube of boards (N, 26) for the player on roll,
    cube centred / his / the opponent's, ``plies`` ahead, his cube action included."""
    if plies == 0:
        probs = np.asarray(evaluator(boards), dtype=np.float64)  # (N, 6)
        return _decided(cube_equities(probs, 0, efficiency, jacoby),
                        cube_equities(probs, 1, efficiency, jacoby),
                        cubeful_equity(probs, -1, efficiency, jacoby), beavers)
    nd = no_double(evaluator, boards, plies, efficiency, jacoby, beavers)  # (N, 3)
    double_take = 2 * nd[:, THEIRS]  # after his double the opponent owns the cube
    one = np.ones(len(boards))
    return _decided(CubeEquities(nd[:, CENTRED], double_take, one),
                    CubeEquities(nd[:, OWN], double_take, one), nd[:, THEIRS], beavers)


def _decided(centred: CubeEquities, own: CubeEquities, theirs, beavers: bool) -> np.ndarray:
    """(N, 3): proper cube play's value with the cube centred and his, ND with theirs."""
    return np.stack([decide_from(centred, beavers).equity, decide_from(own, beavers).equity,
                     np.asarray(theirs, dtype=np.float64)], axis=1)


def no_double(evaluator, boards: np.ndarray, plies: int, efficiency: float = EFFICIENCY,
              jacoby: bool = False, beavers: bool = False) -> np.ndarray:
    """(N, 3) the value of rolling without doubling, per cube state: the roll-weighted
    mean of his best 0-ply play's value, the opponent's value ``plies - 1`` ahead seen
    back from his side (a play that ends the game: its points)."""
    n = len(boards)
    rolled = np.repeat(boards, len(ROLLS), axis=0)  # (n*21, 26)
    plays = legal_plays(rolled, np.tile(ROLLS, (n, 1)), evaluator.rules)
    probs = evaluator.after_play(plays.boards)  # (P, 6) for the mover
    chosen = best_per_root(equity(probs), plays.root, len(rolled))  # (n*21,)
    after = plays.boards[chosen]
    points = evaluator.rules.end_of_game(after).astype(np.float64)  # (n*21,)
    values = np.repeat(points[:, None], 3, axis=1)  # a finished game: its points
    going = np.flatnonzero(points == 0)
    if len(going):
        theirs = cube_values(evaluator, flip(after[going]), plies - 1, efficiency, jacoby,
                             beavers)  # (g, 3) from the opponent's side
        values[going] = -theirs[:, list(SEEN_BY_OPPONENT)]
    return np.einsum("nrs,r->ns", values.reshape(n, len(ROLLS), 3), ROLL_WEIGHTS)


def cube_equities_ahead(evaluator, boards: np.ndarray, plies: int,
                        efficiency: float = EFFICIENCY, jacoby: bool = False,
                        beavers: bool = False, owner: int = 0) -> CubeEquities:
    """The doubler's ND, DT, DP (N,) each, per current cube, ``plies`` ahead (0: the cube
    heads alone); ``owner`` +1 when he owns the cube, 0 centred, -1 the opponent's (then
    only ND means anything: he cannot double)."""
    if plies == 0:
        probs = np.asarray(evaluator(boards), dtype=np.float64)
        return cube_equities(probs, owner, efficiency, jacoby)
    nd = no_double(evaluator, boards, plies, efficiency, jacoby, beavers)
    state = OWN if owner > 0 else THEIRS if owner < 0 else CENTRED
    return CubeEquities(nd[:, state], 2 * nd[:, THEIRS], np.ones(len(boards)))


__all__ = ["cube_values", "no_double", "cube_equities_ahead"]
