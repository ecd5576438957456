"""The position box of the board in the browser: a Position ID or an XGID (and dice) set up
and analysed, without HTTP.

``analyse(bot, evaluate, variant, position, dice)`` reads the position (``gammon.positions``:
a Position ID is money play with a centred cube; an XGID brings its cube, score, match
length, Jacoby and beavers, and its dice when rolled), and answers with the analysis
library (``eval.analysis``): the probabilities, cubeless and cubeful equities and the cube
action before the roll (``analyze_position``, bots with probabilities), and with a roll the
legal plays ranked (``ranked_with_loss``: each play's equity and loss, its probabilities).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from gammon.engine.board import borne_off, pip_counts
from gammon.engine.formats import posid, xgid
from gammon.engine.formats.matchid import MatchState
from gammon.engine.rules import variant as get_variant

from ..errors import UsageError
from ..http_api import BadRequest, read_dice
from ..positions import read_position, read_xgid


def analyse(bot, evaluate, variant: str, position: str, dice: str | None = None) -> dict:
    """The analysis of ``position`` (a Position ID or an XGID) and, with ``dice`` (``3,1``;
    default: the XGID's roll, if any), of its roll. BadRequest names the field at fault."""
    from gammon.eval.analysis import MatchLookAhead, analyze_position, cube_action, ranked_with_loss
    rules = get_variant(variant)
    text = str(position).strip()
    state, beavers = None, False
    try:
        if xgid.looks_like_xgid(text):
            found = read_xgid(text, variant)
            board, state, beavers = found.board, found.state, found.beavers
        else:
            board = read_position(text, variant)
    except UsageError as e:
        raise BadRequest(str(e), "position") from None
    mover, opponent = (int(n[0]) for n in rules.in_play(board[None]))
    if mover == 0 or opponent == 0:
        raise BadRequest("the game is over in this position: nothing to analyse", "position")
    roll = None
    if dice not in (None, ""):
        roll = read_dice(dice)
    elif state is not None and state.dice != (0, 0):
        roll = state.dice
    if state is not None and state.double_offered:
        raise BadRequest("the XGID has a double waiting for an answer; give the position "
                         "before the double (dice 00)", "position")
    money = state is None or not state.length
    answer = {"posid": posid.encode(board), "xgid": None, "board": [int(c) for c in board],
              "dice": list(roll) if roll else None,
              "pips": [int(p[0]) for p in pip_counts(board[None])],
              "off": [int(n[0]) for n in borne_off(board[None], rules.checkers)],
              "match": None if money else {"length": state.length,
                                           "score": list(_score(state)),
                                           "crawford": state.crawford},
              "cube": _cube(state), "analysis": None, "action": None, "plays": None,
              "note": None}
    shown = state or MatchState(on_roll=xgid.BOTTOM, turn=xgid.BOTTOM)
    if roll is not None:
        shown = replace(shown, dice=tuple(roll))
    try:
        answer["xgid"] = xgid.encode(board, shown, beavers)
    except ValueError:
        pass  # more than 16 checkers on a point: no XGID
    if evaluate is None:
        answer["note"] = "the bot estimates no probabilities: no cube analysis"
    else:
        jacoby = bool(state is not None and state.jacoby)
        try:
            found = analyze_position(evaluate, board, None if _centred_money(state) else state,
                                     jacoby=jacoby, beavers=beavers)
        except MatchLookAhead as e:
            raise BadRequest(str(e), "position") from None
        answer["analysis"] = _plain(found)
        answer["action"] = cube_action(found)
    if roll is not None:
        answer["plays"] = ranked_with_loss(bot, board, roll[0], roll[1], variant, None,
                                           None if money else state)
    return answer


def _score(state) -> tuple[int, int]:
    """(player on roll, opponent) of a match state."""
    return state.score[state.on_roll], state.score[1 - state.on_roll]


def _cube(state) -> dict:
    if state is None:
        return {"value": 1, "owner": "centred"}
    owner = "centred" if state.cube_owner == 3 else (
        "on roll" if state.cube_owner == state.on_roll else "opponent")
    return {"value": state.cube_value, "owner": owner}


def _centred_money(state) -> bool:
    return state is None or (not state.length and state.cube_owner == 3
                             and state.cube_value == 1 and not state.jacoby)


def _plain(value):
    """JSON-ready: NumPy numbers as Python numbers, recursively."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


__all__ = ["analyse"]
