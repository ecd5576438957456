"""What the page is told of a game of the board (``gammon.web.game.WebGame``): its state as
JSON (``state``), and the words of its plays and endings.

The board is sent from the person's side (``engine.board`` cells: 1..24 the points, 25 the
person's bar, 0 the bot's, the person's checkers positive). Plakoto keeps its pins in the
cells (``engine.rules.plakoto``: a cell's count plus 16 when a checker of the other side is
pinned beneath), so its pips, checkers borne off and mothers are read with that module's
``per_point``: this module draws the variants, the turn itself goes through the rules
object (``gammon.table``).
"""

from __future__ import annotations

import numpy as np

from gammon.engine.board import OPP_BAR, borne_off, flip, pip_counts
from gammon.engine.formats import position as positions, xgid
from gammon.engine.formats.matchid import CENTRED, MatchState, encode_match_id
from gammon.engine.formats.notation import format_play
from gammon.engine.rules import plakoto

from ..table import BOT, HUMAN

SIDES = {HUMAN: "you", BOT: "bot", None: None}

# what the page says of each variant's rules when a game starts (the status line)
RULE_WORDS = {
    "nackgammon": "Nackgammon: two checkers each start on the 23- and the 24-point.",
    "hypergammon": "Hypergammon: three checkers a side, on the 24-, 23- and 22-points.",
    "longgammon": "LongGammon: all fifteen start on your 24-point.",
    "caucasian": ("The Caucasian rule: a checker that hits in your home board may not hide "
                  "on your own checkers or bear off in the same turn."),
    "suddendeath": ("Sudden death: whoever first hits a checker wins (a single game, times "
                    "the cube); no gammons or backgammons."),
    "nuclear": ("Nuclear: before your roll you may detonate the bomb when it is centred or "
                "yours; every blot of both sides goes to the bar, and the bomb passes to "
                "the other side."),
    "plakoto": ("Plakoto: a lone checker is pinned, not hit: it cannot move until the "
                "pinner leaves. Pinning the mother (the last checker on the starting point) "
                "wins a gammon. Bear off when all fifteen are home."),
}


def _pins_in_cells(rules) -> bool:
    return rules.position_format == "plakoto"


# --- the words of plays and endings ---------------------------------------------------------

def pinned_points(plays, row: int, rules) -> list[int]:
    """Plakoto: the points (the mover's numbering) where play ``row`` pinned a checker (its
    steps' hit flags are pins); [] in the other variants."""
    if not _pins_in_cells(rules):
        return []
    return sorted({int(b) for (a, b), h in zip(plays.steps[row], plays.hits[row])
                   if a >= 0 and h and b > 0})


def play_words(plays, row: int, dice, rules) -> str:
    """The play in notation; in Plakoto a ``*`` marks a pin, said in words after it."""
    text = format_play(plays.steps[row], plays.hits[row], dice)
    pinned = pinned_points(plays, row, rules)
    if pinned:
        text += f" (pinning on {', '.join(map(str, pinned))})"
    return text


def pins_of(plays, row: int, player: int, rules) -> dict:
    """An event's ``pins``: the points pinned, numbered from the person's side."""
    pinned = pinned_points(plays, row, rules)
    if not pinned:
        return {}
    return {"pins": pinned if player == HUMAN else [25 - p for p in pinned]}


def ending_words(after: np.ndarray, rules, who: str, bot_name: str) -> str:
    """Why the game ended, where the variant ends it its own way: Plakoto's mother pinned
    (the afterstate's cell 0 counts the mother's pins), sudden death's first hit."""
    if _pins_in_cells(rules) and after[0] > 0:
        whose = f"You pinned {bot_name}'s" if who == "you" else f"{bot_name} pinned your"
        return f" {whose} mother checker (the last one on the starting point): a gammon."
    if rules.name == "suddendeath" and after[OPP_BAR] < 0:
        return " Sudden death: the first hit wins the game."
    return ""


# --- the board's figures ----------------------------------------------------------------------

def pips_and_off(board: np.ndarray, rules) -> tuple[tuple[int, int], tuple[int, int]]:
    """((pips of the person, of the bot), (borne off by each)) of ``board`` (26,), the
    person's side; in Plakoto pinned checkers count where they lie."""
    if _pins_in_cells(rules):
        mine, theirs = plakoto.per_point(board[None])  # (1, 24) each
        points = np.arange(1, 25)
        pips = (int((mine[0] * points).sum()), int((theirs[0] * (25 - points)).sum()))
        return pips, (rules.checkers - int(mine.sum()), rules.checkers - int(theirs.sum()))
    p = pip_counts(board[None])
    o = borne_off(board[None], rules.checkers)
    return (int(p[0][0]), int(p[1][0])), (int(o[0][0]), int(o[1][0]))


def mothers(board: np.ndarray, rules) -> dict | None:
    """Plakoto: each side's mother checker, the last one on its starting point (the
    person's 24-point, the bot's 1-point, numbered from the person's side); a side without
    one is absent. None in the other variants."""
    if not _pins_in_cells(rules):
        return None
    mine, theirs = plakoto.per_point(board[None])
    out = {}
    if mine[0, 23] == 1:
        out["you"] = 24
    if theirs[0, 0] == 1:
        out["bot"] = 1
    return out


def match_state(game) -> MatchState:
    """The gnubg Match ID's state of ``game``, the person player 0 and on roll (before his
    roll; his dice once rolled)."""
    left, right = game.match.total()
    owner = {None: CENTRED, HUMAN: 0, BOT: 1}[game.owner]
    dice = tuple(game.dice) if game.dice and game.phase == "move" else (0, 0)
    return MatchState(cube_value=game.cube, cube_owner=owner, on_roll=0, turn=0,
                      crawford=game.crawford, dice=dice, length=game.length,
                      score=(left, right), jacoby=game.jacoby())


def xgid_of(game, board: np.ndarray) -> str | None:
    """The XGID of the position from the person's side (the person at the bottom); None in
    Plakoto (an XGID cannot hold pins)."""
    if _pins_in_cells(game.variant):
        return None
    left, right = game.match.total()
    owner = {None: CENTRED, HUMAN: xgid.BOTTOM, BOT: xgid.TOP}[game.owner]
    on_roll = xgid.BOTTOM if game.turn == HUMAN else xgid.TOP
    offered = game.phase == "answer"
    dice = tuple(game.dice) if game.dice and game.turn == HUMAN else (0, 0)
    state = MatchState(cube_value=game.cube, cube_owner=owner, on_roll=on_roll,
                       turn=1 - on_roll if offered else on_roll, crawford=game.crawford,
                       dice=dice, length=game.length, score=(right, left),
                       jacoby=game.jacoby(), double_offered=offered)
    mine = board if game.turn == HUMAN else flip(board)
    try:
        return xgid.encode(mine, state, bool(game.cube_rules and game.cube_rules.beavers))
    except ValueError:
        return None


# --- the state --------------------------------------------------------------------------------

def state(game) -> dict:
    """The game's state for the page, with the events since the last one (then cleared)."""
    rules = game.variant
    board = game.person_board()
    pips, off = pips_and_off(board, rules)
    left, right = game.match.total()
    playing = game.phase not in ("over", "match_over")
    plays = []
    if game.phase == "move" and game.plays is not None and game.plays.dice_used[0]:
        steps, hits = game.plays.steps, game.plays.hits
        ids = positions.write_many(game.plays.boards, rules)
        plays = [{"play": play_words(game.plays, k, game.dice, rules),
                  "steps": [[int(a), int(b)] for a, b in steps[k] if a >= 0],
                  "hits": [bool(h) for h, (a, _) in zip(hits[k], steps[k]) if a >= 0],
                  "result": ids[k]} for k in range(len(game.plays))]
    cube = None
    if game.cube_rules is not None:
        cube = {"value": game.cube, "owner": SIDES[game.owner],
                "may_double": playing and game.phase == "roll" and game.may_double(HUMAN),
                "may_beaver": game.phase == "answer" and game.may_beaver()}
    bomb = None
    if game.has_bomb:  # Nuclear: the bomb's owner, seen from the person
        held = int(game.state.extra["bomb"][0]) * (1 if game.turn == HUMAN else -1)
        bomb = {"owner": {0: "centred", 1: "you", -1: "bot"}[held],
                "may_detonate": (playing and game.phase == "roll" and game.turn == HUMAN
                                 and game.may_detonate())}
    events, game.events = game.events, []
    return {
        "id": game.id, "bot": game.bot_name, "variant": rules.name,
        "checkers": game.checkers,
        "seed": game.seed, "length": game.length, "crawford": game.crawford,
        "rules": {"cube": game.cube_rules is not None, "jacoby": game.jacoby(),
                  "beavers": bool(game.cube_rules and game.cube_rules.beavers
                                  and not game.length)},
        "rule_words": RULE_WORDS.get(rules.name),
        "game": len(game.match.games), "score": {"you": left, "bot": right},
        "phase": game.phase, "turn": SIDES[game.turn] if playing else None,
        "board": [int(c) for c in board],
        "posid": positions.write(board, rules),
        "xgid": xgid_of(game, board) if playing else None,
        "matchid": (encode_match_id(match_state(game))
                    if playing and game.turn == HUMAN and game.phase != "answer"
                    and not _pins_in_cells(rules) else None),
        "pips": {"you": pips[0], "bot": pips[1]},
        "off": {"you": off[0], "bot": off[1]},
        "dice": list(game.dice) if game.dice else None,
        "bot_dice": list(game.bot_dice) if game.bot_dice else None,
        "plays": plays,
        "moves": game.graph if game.phase == "move" and plays else None,
        "cube": cube,
        "bomb": bomb,
        "mothers": mothers(board, rules),
        "resign": game.loss_if_resigned() if playing else 0,
        "winner": SIDES[game.game.winner], "points": game.game.points,
        "match_winner": SIDES[game.match_winner()],
        "events": events,
    }


__all__ = ["RULE_WORDS", "SIDES", "ending_words", "match_state", "mothers", "pins_of",
           "pips_and_off", "play_words", "state", "xgid_of"]
