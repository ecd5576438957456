"""Position analysis for money play: probabilities, cubeless and cubeful equities, the
proper cube action and the take point of one position before the roll.

The probabilities come from any evaluator ``boards (N, 26) -> (N, 6) or (N, 5)`` for the
player on roll (``eval.bots.cube.probability_source``: a net's ``NetEvaluator``, gnubg);
the cube part is ``model.cube`` (Janowski, efficiency x). The player on roll is the one who
may double; the cube is centred unless ``owner`` says otherwise.
"""

from __future__ import annotations

import numpy as np

from engine.outcomes import FIVE, equity_of_five as cubeless_equity, to_five as five
from model.cube import (ACTIONS, EFFICIENCY, RESPONSES, cube_equities, decide_from,
                        take_point)


def analyze_cube(evaluate, boards: np.ndarray, efficiency: float = EFFICIENCY,
                 jacoby: bool = False, beavers: bool = True, owner: int = 0,
                 plies: int = 0) -> list[dict]:
    """The money cube analysis of positions before the roll, boards (N, 26): one dict each.

    ``plies`` > 0 (a network's evaluator only) values the cube that many plies ahead
    (``model.cube_lookahead``); the probabilities, take point and chances stay 0-ply.

    Keys: ``probabilities`` (gnubg's five, for the player on roll), ``cubeless_equity``,
    ``cubeful`` (``no_double``, ``double_take``, ``double_pass``: the doubler's equities per
    current cube), ``action`` (no_double, double, too_good), ``response`` (take, pass,
    beaver), ``decision`` in words, ``take_point`` (the winning chances the opponent needs
    to take) and ``taker_chances`` (his chances here).
    """
    probs = np.asarray(evaluate(boards), dtype=np.float64)  # (N, 6|5)
    if plies:
        from model.cube_lookahead import cube_equities_ahead
        eq = cube_equities_ahead(evaluate, boards, plies, efficiency, jacoby, beavers, owner)
    else:
        eq = cube_equities(probs, owner, efficiency, jacoby)
    decision = decide_from(eq, beavers)
    p5 = five(probs)
    tp = take_point(probs, efficiency)
    words = decision.words()
    return [{
        "probabilities": {k: float(v) for k, v in zip(FIVE, p5[i])},
        "cubeless_equity": float(cubeless_equity(p5[i])),
        "cubeful": {"no_double": float(eq.no_double[i]), "double_take": float(eq.double_take[i]),
                    "double_pass": float(eq.double_pass[i])},
        "action": ACTIONS[int(decision.action[i])],
        "response": RESPONSES[int(decision.response[i])],
        "decision": words[i],
        "cubeful_equity": float(decision.equity[i]),
        "take_point": float(tp[i]),
        "taker_chances": float(1 - p5[i, 0]),
        "cube_plies": plies,
    } for i in range(len(boards))]


__all__ = ["FIVE", "five", "cubeless_equity", "analyze_cube"]
