"""The bot's advice to the person in a game of the board: the cube action before his roll
(``advice``, the answer of ``gammon cube`` for the same position and state) and the ranked
plays of his roll (``hint``), the bot looking 0, 1 or 2 plies ahead as asked.

Both take the game (``gammon.web.game.WebGame``) and answer a dict for the page; a bot
looking further ahead is the game's bot by name with ``@plies`` (networks only), made once
per game and depth.
"""

from __future__ import annotations

import time

from ..errors import UsageError
from ..http_api import BadRequest
from ..table import HUMAN
from .refusals import Refused
from .view import match_state


def bot_at(game, plies: int | None) -> tuple:
    """(the game's bot looking ``plies`` ahead, its plies): the bot itself for None or its
    own depth, else the same bot by name with ``@plies``; a BadRequest naming ``plies`` for
    a bot that is no network."""
    from gammon.eval.bots.registry import bot_plies
    from ..options import load_bot, with_plies
    own = bot_plies(game.bot_name)
    if plies is None or plies == own:
        return game.plain_bot, own
    if plies not in game.deeper:
        try:
            game.deeper[plies] = load_bot(with_plies(game.bot_name.split("@")[0], plies),
                                          None, game.variant.name)
        except UsageError as e:
            raise BadRequest(str(e), "plies") from None
    return game.deeper[plies], plies


def hint(game, count: int, plies: int | None = None) -> dict:
    """The bot's best ``count`` plays for the person's roll, with their probabilities,
    looking ``plies`` ahead (default: the bot's own depth)."""
    from gammon.eval.analysis import ranked
    game.expect("move", "ask for a hint on a play")
    bot, plies = bot_at(game, plies)
    game.tell_extra()
    game.tell_score()
    d1, d2 = game.dice
    started = time.perf_counter()
    rows = ranked(bot, game.board, d1, d2, game.variant.name)[:count]
    label = getattr(bot, "score_label", "score")
    if rows and "probabilities" in rows[0]:
        label = "cubeless equity"
    return {"id": game.id, "dice": [d1, d2], "score": label, "plies": plies,
            "seconds": round(time.perf_counter() - started, 3), "plays": rows}


def cube_state(game):
    """The person's position as ``gammon cube`` reads a POSID:MATCHID (the person player 0,
    on roll); None for money play with a centred 1-cube (a plain Position ID)."""
    if not game.length and game.cube == 1 and game.owner is None:
        return None
    return match_state(game)


def advice(game, plies: int | None = None) -> dict:
    """The cube action before the person's roll with its equities (no double, double/take,
    double/pass: points per cube in money play, match winning chances at a match score), as
    ``gammon cube`` (and ``gammon analyze``) give it for this position and state, the cube
    looking ``plies`` ahead (default: the bot's own depth; at a match score the cube action
    is 0-ply, as ``gammon cube`` has it, and the answer says so)."""
    from gammon.eval.analysis import (NoProbabilities, analyze_position, cube_action,
                                      evaluator, is_match)
    from gammon.model.cube import EFFICIENCY
    game.expect("roll", "ask for cube advice (it comes before the roll)")
    if game.cube_rules is None:
        raise Refused("these games are played without the cube: no cube advice")
    bot, plies = bot_at(game, plies)
    try:
        evaluate = evaluator(bot)
    except NoProbabilities:
        raise Refused(f"{game.bot_name} estimates no probabilities: no cube advice "
                      f"(a network bot, net:, gives it)") from None
    state = cube_state(game)
    note = None
    if is_match(state) and plies:
        note = (f"at a match score the cube action is 0-ply (asked for {plies}), as gammon "
                f"cube gives it")
        plies = 0
    game.tell_extra()
    started = time.perf_counter()
    found = analyze_position(evaluate, game.board, state, EFFICIENCY, game.jacoby(),
                             bool(game.cube_rules.beavers and not game.length), plies)
    answer = {"id": game.id, "plies": plies,
              "seconds": round(time.perf_counter() - started, 3),
              **cube_action(found),
              "decision": found.get("decision"),
              "equities": {k: float(v) for k, v in found["cubeful"].items()},
              "unit": "match winning chance" if game.length else "points per cube",
              "probabilities": found.get("probabilities"),
              "may_double": game.may_double(HUMAN)}
    if note:
        answer["note"] = note
    return answer


__all__ = ["advice", "bot_at", "cube_state", "hint"]
