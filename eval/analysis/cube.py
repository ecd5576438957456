"""The cube analysis of positions before the roll: probabilities, cubeless and cubeful
equities, the proper cube action and the take point; for money play (``analyze_cube``) and
at a match score (``analyze_match_cube``), one door for both (``analyze_position``).

The probabilities come from any evaluator ``boards (N, 26) -> (N, 6) or (N, 5)`` for the
player on roll (``eval.bots.cube.probability_source``: a net's ``NetEvaluator``, gnubg);
the cube part is ``model.cube`` (Janowski, efficiency x). The player on roll is the one who
may double; the cube is centred unless ``owner`` says otherwise.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.outcomes import FIVE, equity_of_five as cubeless_equity, to_five as five
from gammon.model.cube import (ACTIONS, EFFICIENCY, RESPONSES, cube_equities, decide_from,
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
        from gammon.model.cube_lookahead import cube_equities_ahead
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




# At a match score: a position's "state" is an ``engine.formats.matchid.MatchState`` (a
# Match ID's, or one the command line's options make; the player on roll is player 0), or
# None for money play with a centred 1-cube.
MET_LENGTHS = (11, 25, 64)  # engine.met's tables built: the smallest that holds the match
# why the player on roll may not double (the "cube" key of the answers)
CRAWFORD, OWNED, DEAD = "crawford", "owned by opponent", "dead"
REASON_WORDS = {CRAWFORD: "the Crawford game", OWNED: "the opponent owns the cube",
                DEAD: "dead cube: a single win already wins the match"}


def is_match(state) -> bool:
    """Whether a state is a match (a length), not money play."""
    return state is not None and state.length > 0


def match_score(state):
    """model.match_cube's MatchScore of the state, from the player on roll's side."""
    from gammon.model.match_cube import MatchScore
    return MatchScore() if state is None else MatchScore.from_match_state(state)


def no_double_reason(state) -> str | None:
    """Why the player on roll may not double (CRAWFORD, OWNED, DEAD), or None."""
    from gammon.model.match_cube import OPPONENT
    s = match_score(state)
    if is_match(state) and s.crawford:
        return CRAWFORD
    if s.owner == OPPONENT:
        return OWNED
    if is_match(state) and s.cube >= s.away:
        return DEAD
    return None


def match_met(length: int):
    """engine.met's live-cube table (gammon rate 0.26) that holds a ``length``-point match:
    the smallest of 11, 25 and 64 points (their common entries are the same; cached)."""
    from gammon.model.match_cube import GAMMON_RATE, default_met
    size = next(n for n in MET_LENGTHS if n >= length)
    return default_met(size, GAMMON_RATE)


def met_words() -> str:
    from gammon.model.match_cube import GAMMON_RATE
    return f"engine.met live cube, gammon rate {GAMMON_RATE:g}"


def analyze_match_cube(evaluate, board: np.ndarray, state, efficiency: float) -> dict:
    """The cube analysis of one position before the roll at a match score (``state``,
    length > 0), as ``model.match_cube`` makes it: probabilities (0-ply), cubeless and
    cubeful match winning chances and their EMG, the action and response."""
    from gammon.model.match_cube import (
        match_cube_equities,
        match_decide,
        match_winning_chances,
        to_emg,
    )
    score, met = match_score(state), match_met(state.length)
    p5 = five(np.asarray(evaluate(board[None]), dtype=np.float64)).reshape(-1, 5)
    eq = match_cube_equities(p5, score, met, efficiency)
    decision = match_decide(p5, score, met, efficiency)
    cubeless = match_winning_chances(p5, score, met)
    action, response = ACTIONS[int(decision.action[0])], RESPONSES[int(decision.response[0])]
    reason = no_double_reason(state)
    words = (decision.words()[0] if reason is None
             else f"No double ({REASON_WORDS[reason]})")
    names = ("no_double", "double_take", "double_pass")
    values = (eq.no_double, eq.double_take, eq.double_pass)

    def emg(x) -> float:
        return float(to_emg(x, score, met)[0])
    out = {"probabilities": {k: float(v) for k, v in zip(FIVE, p5[0])},
           "cubeless_mwc": float(cubeless[0]), "cubeless_emg": emg(cubeless),
           "cubeful": {k: float(v[0]) for k, v in zip(names, values)},
           "cubeful_emg": {k: emg(v) for k, v in zip(names, values)},
           "action": action, "response": response, "decision": words,
           "cubeful_equity": float(decision.equity[0]),
           "cubeful_equity_emg": emg(decision.equity),
           "taker_chances": float(1 - p5[0, 0]), "cube_plies": 0}
    if reason is not None:
        out["cube"] = reason
    return out


def analyze_money_cube(evaluate, board: np.ndarray, state, efficiency: float, jacoby: bool,
                       beavers: bool, plies: int) -> dict:
    """``analyze_cube`` of one money position, the cube as ``state`` says (None: centred);
    the opponent's cube: no double, and why."""
    from gammon.model.cube import NO_DOUBLE
    owner = int(match_score(state).owner)
    a = analyze_cube(evaluate, board[None], efficiency, jacoby, beavers, owner=owner,
                     plies=plies)[0]
    reason = no_double_reason(state)
    if reason is not None:
        a["action"] = ACTIONS[NO_DOUBLE]
        a["decision"] = f"No double ({REASON_WORDS[reason]})"
        a["cubeful_equity"] = a["cubeful"]["no_double"]
        a["cube"] = reason
    return a


class MatchLookAhead(ValueError):
    """The cube look-ahead was asked for at a match score, where the cube is 0-ply."""


def analyze_position(evaluate, board: np.ndarray, state=None, efficiency: float = EFFICIENCY,
                     jacoby: bool = False, beavers: bool = False, plies: int = 0) -> dict:
    """The cube analysis of one position before the roll, board (26,): money play with a
    centred cube (``state`` None), money play with the cube as ``state`` lies, or at
    ``state``'s match score (0-ply only: ``MatchLookAhead`` for ``plies`` > 0)."""
    if is_match(state):
        if plies:
            raise MatchLookAhead("the cube look-ahead is for money play; at a match score "
                                 "the cube action is 0-ply")
        return analyze_match_cube(evaluate, board, state, efficiency)
    if state is None:
        return analyze_cube(evaluate, board[None], efficiency, jacoby, beavers,
                            plies=plies)[0]
    return analyze_money_cube(evaluate, board, state, efficiency, jacoby, beavers, plies)


def cube_action(analysis: dict) -> dict:
    """The action and response of an analysis (``gammon cube``'s answer) and, where the
    player on roll may not double, ``cube`` saying why."""
    out = {"action": analysis["action"], "response": analysis["response"]}
    if "cube" in analysis:
        out["cube"] = analysis["cube"]
    return out
