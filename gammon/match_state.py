"""A position's match score and cube on the command line: POSID:MATCHID or an XGID read,
the options --score, --length, --crawford, --cube-value and --cube-owner turned into a
state, and the state in words and fields (``gammon show``, ``analyze``, ``cube``).

A position's "state" is an ``engine.formats.matchid.MatchState``: the Match ID's, the
XGID's (``engine.formats.xgid``: its bottom player is player 1), or one made of the
options (the player on roll is player 0), or None for a plain Position ID with none of
those options: money play, a centred 1-cube.
"""

from __future__ import annotations

import argparse
import re

import numpy as np

from gammon.engine.formats.matchid import (CENTRED, DROPPED, GAME_STATES, NO_GAME, OVER, PLAYING,
                                    RESIGNED, MatchState, decode_match_id)
from gammon.engine.formats.xgid import looks_like_xgid
from gammon.engine.rules import variant as get_variant
from gammon.engine.rules.plakoto import PREFIX as PLAKOTO_PREFIX
from gammon.eval.analysis import is_match

from .errors import UsageError, quote
from .positions import read_position, read_whole, read_xgid, whole_type


RESIGN_WORDS = {1: "single", 2: "gammon", 3: "backgammon"}


MONEY = MatchState()  # a plain Position ID: money play, centred 1-cube, mover to roll


def read_position_and_match(text: str, variant: str) -> tuple[np.ndarray, MatchState | None]:
    """The board and, for POSID:MATCHID, the Match ID's state (None for a plain position);
    for an XGID its board and state (``engine.formats.xgid``); a UsageError for either part
    being bad."""
    word = str(text).strip()
    rules = get_variant(variant)
    if looks_like_xgid(word):
        found = read_xgid(word, variant)
        return found.board, found.state
    if rules.position_format != "posid" or word.startswith(PLAKOTO_PREFIX):
        if word.count(":") > 1:
            raise UsageError("a Match ID goes with a gnubg Position ID (POSID:MATCHID); "
                             "the plakoto: text takes none")
        return read_position(word, variant), None
    posid, colon, matchid = word.partition(":")
    board = read_position(posid, variant)
    if not colon:
        return board, None
    try:
        return board, decode_match_id(matchid)
    except ValueError as e:
        raise UsageError(str(e)) from None


def _side(player: int, mover: int) -> str:
    return "mover" if player == mover else "opponent"


def match_fields(state: MatchState | None) -> dict:
    """The Match ID's state from the mover's side (the player on roll)."""
    s = MONEY if state is None else state
    me, you = s.on_roll, 1 - s.on_roll
    return {
        "length": s.length,
        "score": [s.score[me], s.score[you]],
        "crawford": s.crawford,
        "cube_value": s.cube_value,
        "cube_owner": "centred" if s.cube_owner == CENTRED else _side(s.cube_owner, me),
        "turn": _side(s.turn, me),
        "double_offered": s.double_offered,
        "dice": list(s.dice) if s.dice[0] else None,
        "resign": RESIGN_WORDS.get(s.resign),
        "game_state": GAME_STATES[s.game_state],
        "jacoby": s.jacoby,
    }


def match_lines(state: MatchState) -> list[str]:
    """What the Match ID says, in words, X the mover (the player on roll) and O."""
    f = match_fields(state)
    x, o = f["score"]
    if f["length"]:
        head = f"{f['length']}-point match, score X {x}, O {o}"
        if state.game_state == PLAYING or max(x, o) < f["length"]:
            head += f" (X needs {max(f['length'] - x, 0)}, O {max(f['length'] - o, 0)})"
        if f["crawford"]:
            head += ("; the Crawford game" if state.game_state in (PLAYING, NO_GAME)
                     else "; the next game is the Crawford game")
    else:
        head = "Money game" + (f", session score X {x}, O {o}" if x or o else "")
        head += ", Jacoby rule" if f["jacoby"] else ""
    owner = {"centred": "centred", "mover": "owned by X", "opponent": "owned by O"}
    lines = [head, f"Cube {f['cube_value']}, {owner[f['cube_owner']]}"]
    decider = "X" if f["turn"] == "mover" else "O"
    other = "O" if decider == "X" else "X"
    if state.game_state == NO_GAME:
        lines.append("No game in progress")
    elif state.game_state == OVER:
        lines.append("The game is over")
    elif state.game_state == RESIGNED:
        lines.append(f"The game is over: a {f['resign'] or 'single'} was resigned")
    elif state.game_state == DROPPED:
        lines.append("The game is over: a double was passed")
    elif f["double_offered"]:
        lines.append(f"{other} doubles: {decider} to take or pass")
    elif f["resign"]:
        lines.append(f"{other} offers to resign a {f['resign']}: {decider} to accept or reject")
    elif f["dice"]:
        lines.append(f"X rolled {f['dice'][0]}-{f['dice'][1]}")
    else:
        lines.append("X to roll")
    return lines


MAX_LENGTH = 64  # engine.met's longest table


MAX_CUBE = 2 ** 15  # what a Match ID holds


OWNERS = ("centred", "mover", "opponent")


_OWNER_OF = {"centred": CENTRED, "mover": 0, "opponent": 1}  # the mover is player 0


SCORE_OPTIONS = ("score", "length", "crawford")


CUBE_OPTIONS = ("cube_value", "cube_owner")


def cube_value_type(text: str) -> int:
    """The argparse ``type`` of ``--cube-value``: a power of two from 1 to 2**15."""
    try:
        value = read_whole(text, "--cube-value", 1, MAX_CUBE)
    except UsageError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    if value & (value - 1):
        raise argparse.ArgumentTypeError(f"--cube-value is a power of two (1, 2, 4, .. "
                                         f"{MAX_CUBE}), got {quote(text)}")
    return value


def add_score_options(p) -> None:
    """--score, --length, --crawford, --cube-value and --cube-owner."""
    p.add_argument("--score", metavar="A-B",
                   help="the match score in points already won: A by the player on roll, B "
                        "by his opponent (needs --length)")
    p.add_argument("--length", type=whole_type("--length", 1, MAX_LENGTH), default=None,
                   metavar="N",
                   help=f"the match length, 1 to {MAX_LENGTH} points (the score is 0-0 "
                        f"unless --score says otherwise; default: money play)")
    p.add_argument("--crawford", action="store_true",
                   help="this game is the Crawford game (no doubling): exactly one player "
                        "has N-1 points, and this is the first game since he got there "
                        "(without it, a player at N-1 means post-Crawford)")
    p.add_argument("--cube-value", type=cube_value_type, default=None, metavar="V",
                   help=f"the cube's value, a power of two from 1 to {MAX_CUBE} (default: 1)")
    p.add_argument("--cube-owner", choices=OWNERS, default=None,
                   help="who holds the cube: centred (the default), mover (the player on "
                        "roll) or opponent")


def _given(args, names) -> list[str]:
    """The options of ``names`` given on the command line, as --option-name."""
    return ["--" + n.replace("_", "-") for n in names
            if getattr(args, n, None) not in (None, False)]


def read_score(text: str, length: int) -> tuple[int, int]:
    """--score A-B: both whole numbers, each below the match length."""
    word = str(text).strip()
    parts = re.fullmatch(r"([^-]+)-([^-]+)", word)
    if not parts:
        raise UsageError(f"--score is two scores A-B (the player on roll's points, then "
                         f"his opponent's), like 2-4; got {quote(text)}")
    a, b = (read_whole(x, "each score of --score", 0, MAX_LENGTH) for x in parts.groups())
    if max(a, b) >= length:
        raise UsageError(f"--score {a}-{b} has reached the match length {length}: the match "
                         f"is over (a score goes from 0 to {length - 1})")
    return a, b


def options_state(args) -> MatchState | None:
    """The state the score and cube options give, checked; None when none is given (money
    play, centred 1-cube). Missing attributes count as not given (callers that build
    ``args`` themselves)."""
    if not _given(args, SCORE_OPTIONS + CUBE_OPTIONS):
        return None
    length = getattr(args, "length", None)
    if length is None:
        if getattr(args, "score", None) is not None:
            raise UsageError("--score needs --length N, the match length")
        if getattr(args, "crawford", False):
            raise UsageError("--crawford is for a match: give --length N (and --score A-B)")
    score = (0, 0)
    if length is not None and getattr(args, "score", None) is not None:
        score = read_score(args.score, length)
    value = getattr(args, "cube_value", None) or 1
    owner = _OWNER_OF[getattr(args, "cube_owner", None) or "centred"]
    crawford = bool(getattr(args, "crawford", False))
    if crawford:
        at = [s for s in score if s == length - 1]
        if len(at) != 1:
            raise UsageError(f"--crawford: the Crawford game needs exactly one player at "
                             f"{length - 1} points (1-away) in a {length}-point match; the "
                             f"score is {score[0]}-{score[1]}")
        if value != 1 or owner != CENTRED:
            raise UsageError("--crawford: nobody doubles in the Crawford game, so the cube "
                             "stays at 1 in the middle (no --cube-value or --cube-owner)")
    return MatchState(cube_value=value, cube_owner=owner, on_roll=0, turn=0,
                      crawford=crawford, length=length or 0, score=score)


def check_match_id(state: MatchState, matchid: str, what: str = "Match ID") -> None:
    """A usage error for a Match ID (or, ``what``, an XGID) whose state has no cube
    decision to make here."""
    if state.game_state != PLAYING:
        raise UsageError(f"{what} {quote(matchid.strip())}: no game in play (game state "
                         f"{GAME_STATES[state.game_state]!r}): no cube action to give")
    if state.length > MAX_LENGTH:
        raise UsageError(f"{what} {quote(matchid.strip())}: a {state.length}-point match "
                         f"is beyond the match equity table ({MAX_LENGTH} points at most)")


def read_at_score(text: str, args, given: MatchState | None = None,
                  variant: str = "standard") -> tuple[np.ndarray, MatchState | None]:
    """The board of a POSID, POSID:MATCHID or XGID and its state: the Match ID's (the
    XGID's), else ``given`` (the options'). A Match ID or XGID with score or cube options
    is a conflict."""
    board, state = read_position_and_match(text, variant)
    if state is None:
        return board, given
    is_xgid = looks_like_xgid(str(text))
    for names, what in ((SCORE_OPTIONS, "match length and score"),
                        (CUBE_OPTIONS, "cube")):
        clash = _given(args, names)
        if clash:
            raise UsageError(f"{'an XGID' if is_xgid else 'a POSID:MATCHID'} holds the "
                             f"{what}: give no {' or '.join(clash)} with it")
    if is_xgid:
        check_match_id(state, str(text), "XGID")
    else:
        check_match_id(state, str(text).partition(":")[2])
    return board, state


def check_money_rules(args, state: MatchState | None) -> None:
    """--jacoby and --beavers are money rules: an error with a match score."""
    if is_match(state):
        clash = _given(args, ("jacoby", "beavers"))
        if clash:
            rules = "a money rule" if len(clash) == 1 else "money rules"
            raise UsageError(f"{' and '.join(clash)}: {rules}, not used in a match; give "
                             f"{'it' if len(clash) == 1 else 'them'} only for money play")


def state_fields(state: MatchState) -> dict:
    """The match and cube of a state, from the player on roll's side (``show --json``'s
    fields): length, score [mover, opponent], away, crawford, cube_value, cube_owner."""
    f = match_fields(state)
    out = {k: f[k] for k in ("length", "score", "crawford", "cube_value", "cube_owner")}
    if state.length:
        out["away"] = [state.length - x for x in f["score"]]
    return out


def state_lines(state: MatchState) -> list[str]:
    """The match and cube in words (``show``'s lines, less the dice and turn)."""
    return match_lines(state)[:2]
