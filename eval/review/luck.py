"""The luck of a roll, as GNU Backgammon measures it: the value of the position after the
roll (the mover's best play for it, cubeful EMG per 1-cube at the cube of the moment)
minus the mean of that value over the 36 rolls he could have rolled.

The opening roll of a game is special: it cannot be a double, and it also decides who
moves. Its mean runs over the 30 ways two players' dice can differ: each of the 15
non-double rolls is played by the player with the higher die, so it is worth V_m(r) to
the mover when he has it and -V_o(r) to him when his opponent has it (EMG is the same
number from either side with its sign turned, money or match); the mean is
sum((V_m(r) - V_o(r)) / 2) / 15. In money play from the start position it is 0, and the
opening roll's luck is the value of its best play.
"""

from __future__ import annotations

import numpy as np

from .rolls import ROLLS, WEIGHTS, TurnRolls


def roll_luck(rolls: TurnRolls, roll) -> float:
    """The luck of ``roll`` (d1, d2) for the mover, EMG per 1-cube."""
    own = rolls.own
    values = own.best()  # (21,)
    got = values[own.index(roll)]
    if rolls.other is None:
        return float(got - np.dot(WEIGHTS, values))
    mixed = ROLLS[:, 0] != ROLLS[:, 1]  # (21,) the 15 non-doubles, in NON_DOUBLES' order
    mean = np.mean((values[mixed] - rolls.other.best()) / 2.0)
    return float(got - mean)


__all__ = ["roll_luck"]
