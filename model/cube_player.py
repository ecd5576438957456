"""The net's cube decisions: 0-ply probabilities before the roll through the cube heads.

``HeadsCube(evaluate)`` is a cube strategy (``engine.cube_policy``) for any evaluator
``boards (N, 26) -> (N, 6) or (N, 5)`` probabilities for the player on roll: a
``NetEvaluator``, or gnubg's nets. Both questions see the doubler's position (he is on
roll), so one evaluation serves the offer and the answer alike. The heads know no cube
limit: next to the maximum cube, where the taker could not redouble, they still treat his
cube as live.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.match import ToldScore

from .cube import EFFICIENCY, decide


class HeadsCube(ToldScore):
    """Doubles, takes and beavers as ``model.cube.decide`` says for the evaluator's
    probabilities of the position before the roll (Janowski, efficiency x)."""

    name = "heads"

    def __init__(self, evaluate, efficiency: float = EFFICIENCY, jacoby: bool = False,
                 beavers: bool = False):
        self.evaluate, self.efficiency = evaluate, efficiency
        self.jacoby, self.beavers = jacoby, beavers

    def decision(self, boards: np.ndarray, cube_owner):
        """The full decision (``model.cube.CubeDecision``) of N positions before the roll."""
        probs = np.asarray(self.evaluate(boards), dtype=np.float64)  # (N, 6|5)
        if self.score is not None:
            from .match_cube import match_decide, met_for
            return match_decide(probs, self.score, met_for(self.score), self.efficiency)
        return decide(probs, np.asarray(cube_owner), self.efficiency, self.jacoby,
                      self.beavers)

    def offer_double(self, boards, cube_value, cube_owner) -> np.ndarray:
        return self.decision(boards, cube_owner).double

    def respond(self, boards, cube_value, cube_owner) -> np.ndarray:
        return self.decision(boards, cube_owner).response.astype(np.int8)


__all__ = ["HeadsCube"]
