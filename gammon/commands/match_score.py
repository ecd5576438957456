"""Cube decisions at a match score for ``gammon analyze`` and ``gammon cube`` (a helper
module, not a command): the score and cube options, POSID:MATCHID read through ``gammon
show``'s helper, and the decision of ``model.match_cube`` with ``engine.met``'s live-cube
match equity table (gammon rate 0.26), the table ``eval.gnubg.match_cube`` checks the
model with against GNU Backgammon.

A position's "state" here is an ``engine.formats.matchid.MatchState``: the Match ID's, or
one made of --score, --length, --crawford, --cube-value and --cube-owner (the player on
roll is player 0), or None for a plain Position ID with none of those options: money play,
a centred 1-cube, exactly as the commands answered before match play.
"""

from __future__ import annotations

import argparse
import re

import numpy as np

from engine.formats.matchid import CENTRED, GAME_STATES, PLAYING, MatchState

from ..errors import UsageError, quote
from ..positions import read_whole, whole_type
from .show import match_fields, match_lines, read_position_and_match

MAX_LENGTH = 64  # engine.met's longest table
MET_LENGTHS = (11, 25, MAX_LENGTH)  # the tables built, smallest that holds the match
MAX_CUBE = 2 ** 15  # what a Match ID holds
OWNERS = ("centred", "mover", "opponent")
_OWNER_OF = {"centred": CENTRED, "mover": 0, "opponent": 1}  # the mover is player 0
# why the player on roll may not double (the "cube" key of the answers)
CRAWFORD, OWNED, DEAD = "crawford", "owned by opponent", "dead"
REASON_WORDS = {CRAWFORD: "the Crawford game", OWNED: "the opponent owns the cube",
                DEAD: "dead cube: a single win already wins the match"}
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


def check_match_id(state: MatchState, matchid: str) -> None:
    """A usage error for a Match ID whose state has no cube decision to make here."""
    if state.game_state != PLAYING:
        raise UsageError(f"Match ID {quote(matchid.strip())}: no game in play (game state "
                         f"{GAME_STATES[state.game_state]!r}): no cube action to give")
    if state.length > MAX_LENGTH:
        raise UsageError(f"Match ID {quote(matchid.strip())}: a {state.length}-point match "
                         f"is beyond the match equity table ({MAX_LENGTH} points at most)")


def read_at_score(text: str, args, given: MatchState | None = None,
                  variant: str = "standard") -> tuple[np.ndarray, MatchState | None]:
    """The board of a POSID or POSID:MATCHID and its state: the Match ID's, else
    ``given`` (the options'). A Match ID with score or cube options is a conflict."""
    board, state = read_position_and_match(text, variant)
    if state is None:
        return board, given
    for names, what in ((SCORE_OPTIONS, "match length and score"),
                        (CUBE_OPTIONS, "cube")):
        clash = _given(args, names)
        if clash:
            raise UsageError(f"a POSID:MATCHID holds the {what}: give no "
                             f"{' or '.join(clash)} with it")
    check_match_id(state, str(text).partition(":")[2])
    return board, state


def is_match(state: MatchState | None) -> bool:
    return state is not None and state.length > 0


def check_money_rules(args, state: MatchState | None) -> None:
    """--jacoby and --beavers are money rules: an error with a match score."""
    if is_match(state):
        clash = _given(args, ("jacoby", "beavers"))
        if clash:
            rules = "a money rule" if len(clash) == 1 else "money rules"
            raise UsageError(f"{' and '.join(clash)}: {rules}, not used in a match; give "
                             f"{'it' if len(clash) == 1 else 'them'} only for money play")


def match_score(state: MatchState | None):
    """model.match_cube's MatchScore of the state, from the player on roll's side."""
    from model.match_cube import MatchScore
    return MatchScore() if state is None else MatchScore.from_match_state(state)


def no_double_reason(state: MatchState | None) -> str | None:
    """Why the player on roll may not double (CRAWFORD, OWNED, DEAD), or None."""
    from model.match_cube import OPPONENT
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
    from model.match_cube import GAMMON_RATE, default_met
    size = next(n for n in MET_LENGTHS if n >= length)
    return default_met(size, GAMMON_RATE)


def met_words() -> str:
    from model.match_cube import GAMMON_RATE
    return f"engine.met live cube, gammon rate {GAMMON_RATE:g}"


def analyze_match_cube(evaluate, board: np.ndarray, state: MatchState,
                       efficiency: float) -> dict:
    """The cube analysis of one position before the roll at a match score (``state``,
    length > 0), as ``model.match_cube`` makes it: probabilities (0-ply), cubeless and
    cubeful match winning chances and their EMG, the action and response."""
    from engine.outcomes import FIVE, to_five
    from model.cube import ACTIONS, RESPONSES
    from model.match_cube import (
        match_cube_equities,
        match_decide,
        match_winning_chances,
        to_emg,
    )
    score, met = match_score(state), match_met(state.length)
    p5 = to_five(np.asarray(evaluate(board[None]), dtype=np.float64)).reshape(-1, 5)
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


def analyze_money_cube(evaluate, board: np.ndarray, state: MatchState | None,
                       efficiency: float, jacoby: bool, beavers: bool, plies: int) -> dict:
    """``eval.analysis.cube.analyze_cube`` of one money position, the cube as ``state`` says
    (None: centred, exactly today's analysis); the opponent's cube: no double, and why."""
    from eval.analysis.cube import analyze_cube
    from model.cube import NO_DOUBLE
    owner = int(match_score(state).owner)
    a = analyze_cube(evaluate, board[None], efficiency, jacoby, beavers, owner=owner,
                     plies=plies)[0]
    reason = no_double_reason(state)
    if reason is not None:
        from model.cube import ACTIONS
        a["action"] = ACTIONS[NO_DOUBLE]
        a["decision"] = f"No double ({REASON_WORDS[reason]})"
        a["cubeful_equity"] = a["cubeful"]["no_double"]
        a["cube"] = reason
    return a


def cube_answer(evaluate, board: np.ndarray, state: MatchState | None, efficiency: float,
                jacoby: bool, beavers: bool, plies: int) -> dict:
    """``gammon cube``'s answer: {"action", "response"} and, where the player on roll may
    not double, "cube" saying why."""
    if is_match(state):
        if plies:
            raise UsageError("the cube look-ahead (--plies, net:PATH@N) is for money play; "
                             "at a match score the cube action is 0-ply: drop the plies")
        a = analyze_match_cube(evaluate, board, state, efficiency)
    else:
        a = analyze_money_cube(evaluate, board, state, efficiency, jacoby, beavers, plies)
    out = {"action": a["action"], "response": a["response"]}
    if "cube" in a:
        out["cube"] = a["cube"]
    return out


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


__all__ = ["CRAWFORD", "DEAD", "OWNED", "add_score_options", "analyze_match_cube",
           "analyze_money_cube", "check_money_rules", "cube_answer",
           "is_match", "match_met", "no_double_reason", "options_state", "read_at_score",
           "state_fields", "state_lines"]
