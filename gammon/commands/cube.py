"""``gammon cube``: the proper money cube action of positions, as JSON lines."""

from __future__ import annotations

import argparse
import json

from engine.rules import VARIANTS

from eval.analysis import MatchLookAhead, analyze_position, cube_action

from ..errors import UsageError, quote
from ..match_state import add_score_options, check_money_rules, options_state, read_at_score
from ..options import add_cube_options, add_plies_option, check_in_play, cube_model, cube_settings
from ..positions import answer_lines

HELP = """\
The proper cube action of a position before the roll: money play, centred cube, the player
on roll free to double (unless a match score or the cube options say otherwise, below): one
JSON line {"action": "no_double"|"double"|"too_good", "response": "take"|"pass"|"beaver"},
the response being what the opponent should answer to a double (see `gammon analyze` for
the equities behind it). Jacoby and beavers are off unless asked for (--jacoby, --beavers),
as in `gammon analyze` and `gammon match --cube`. The bot is the shipped network (net:)
unless --bot names another (net:PATH, gnubg).

With --plies N (or the bot net:PATH@N) the cube is played N plies ahead, as GNU
Backgammon's cubeful evaluation does: each of the 21 rolls with its best play (0-ply), then
the opponent's cube action and rolls, each side doubling, taking or passing at every turn,
the cube heads at the end (0-ply = the cube heads alone; 2-ply takes about 0.1 s a position).

At a match score (GNU Backgammon's POSID:MATCHID, or --score A-B --length N [--crawford],
A the points of the player on roll, B his opponent's) the action comes from the score-aware
cube model (model.match_cube) with the live-cube match equity table of engine.met (gammon
rate 0.26) and the cube efficiency of --efficiency; the answer is the same JSON line. Where
the player on roll may not double the action is "no_double" (the response still says what
his opponent should do were he doubled) and an extra key says why: "cube": "crawford" (the
Crawford game), "owned by opponent" (in money play too: --cube-owner opponent) or "dead" (a
single win at this cube already wins him the match, e.g. the leader post-Crawford).
--crawford marks the Crawford game (exactly one player at N-1 points); a player at N-1
without it is post-Crawford. --cube-value and --cube-owner set the cube (money play or
--score); a Match ID carries its own score and cube, so none of these five options go with
a POSID:MATCHID. Jacoby, beavers and the cube look-ahead (--plies) are money play only: at
a match score they are an error (the Match ID's Jacoby flag is not read: --jacoby says it).
The Match ID's dice, pending double or resignation are ignored: the answer is the cube
action before the roll.

With --batch, read one Position ID or POSID:MATCHID per line on stdin and answer each with
one such line, flushed at once; a bad line is answered {"error": "..."} and the stream goes
on. The score and cube options apply to the plain Position IDs (a POSID:MATCHID line with
them is an error line), --jacoby and --beavers to the money lines, and --plies makes each
match line an error line.

examples:
  gammon cube 4HPwATDgc/ABMA
  gammon cube 4HPwATDgc/ABMA:cAkAAAAAAAAA
  gammon cube 4HPwATDgc/ABMA --score 5-5 --length 7
  gammon cube 4HPwATDgc/ABMA --score 6-3 --length 7 --crawford
  printf '4HPwATDgc/ABMA\\n' | gammon cube --batch --beavers
"""


def add_parser(sub) -> None:
    p = sub.add_parser("cube", help="the cube action of positions, money or at a match score "
                                    "(JSON lines)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("posid", nargs="?",
                   help="gnubg Position ID, e.g. 4HPwATDgc/ABMA, or POSID:MATCHID, e.g. "
                        "4HPwATDgc/ABMA:cAkAAAAAAAAA")
    p.add_argument("--batch", action="store_true",
                   help="read one Position ID or POSID:MATCHID per line on stdin, answer one "
                        "JSON line each")
    add_cube_options(p)
    add_score_options(p)
    add_plies_option(p)
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant (default: standard)")
    p.set_defaults(run=run)


def answer(evaluate, efficiency: float, args, text: str, plies: int = 0) -> dict:
    """The action and response for one Position ID or POSID:MATCHID (a UsageError for a
    bad one): money play as ever, or at the score of the Match ID or of the options."""
    words = text.split()
    if len(words) != 1:
        raise UsageError(f"expected one Position ID or POSID:MATCHID, got {quote(text.strip())}")
    given = options_state(args)
    board, state = read_at_score(words[0], args, given, args.variant)
    check_in_play(board)
    _, jacoby, beavers = cube_settings(args)
    if state is not None and not getattr(args, "batch", False):
        check_money_rules(args, state)  # in a stream they are for the money lines
    try:
        return cube_action(analyze_position(evaluate, board, state, efficiency, jacoby,
                                            beavers, plies))
    except MatchLookAhead:
        raise UsageError("the cube look-ahead (--plies, net:PATH@N) is for money play; at a "
                         "match score the cube action is 0-ply: drop the plies") from None


def run(args) -> int:
    if args.batch and args.posid is not None:
        raise UsageError("--batch reads positions from stdin; give no POSID")
    if not args.batch and args.posid is None:
        raise UsageError("give a POSID (or --batch)")
    check_money_rules(args, options_state(args))  # bad options: an error before any line
    bot, evaluate, efficiency = cube_model(args)
    plies = getattr(bot, "plies", 0)
    if not args.batch:
        print(json.dumps(answer(evaluate, efficiency, args, args.posid, plies)))
        return 0
    return answer_lines(lambda line: json.dumps(answer(evaluate, efficiency, args, line,
                                                       plies)),
                        lambda message: json.dumps({"error": message}))
