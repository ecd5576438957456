"""``gammon cube``: the proper money cube action of positions, as JSON lines."""

from __future__ import annotations

import argparse
import json

from engine.rules import VARIANTS

from ..errors import UsageError, quote
from ..positions import answer_lines, read_position
from .analyze import add_cube_options, check_in_play, cube_model, cube_settings
from .match import add_plies_option

HELP = """\
The proper money cube action of a position before the roll, centred cube, the player on
roll free to double: one JSON line {"action": "no_double"|"double"|"too_good",
"response": "take"|"pass"|"beaver"}, the response being what the opponent should answer
to a double (see `gammon analyze` for the equities behind it). Jacoby and beavers are off
unless asked for (--jacoby, --beavers), as in `gammon analyze` and `gammon match --cube`.
The bot is the shipped network (net:) unless --bot names another (net:PATH, gnubg).

With --plies N (or the bot net:PATH@N) the cube is played N plies ahead, as GNU
Backgammon's cubeful evaluation does: each of the 21 rolls with its best play (0-ply), then
the opponent's cube action and rolls, each side doubling, taking or passing at every turn,
the cube heads at the end (0-ply = the cube heads alone; 2-ply takes about 0.1 s a position).

With --batch, read one Position ID per line on stdin and answer each with one such line,
flushed at once; a bad line is answered {"error": "..."} and the stream goes on.

examples:
  gammon cube 4HPwATDgc/ABMA
  printf '4HPwATDgc/ABMA\\n' | gammon cube --batch --beavers
"""


def add_parser(sub) -> None:
    p = sub.add_parser("cube", help="the money cube action of positions (JSON lines)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("posid", nargs="?", help="gnubg Position ID, e.g. 4HPwATDgc/ABMA")
    p.add_argument("--batch", action="store_true",
                   help="read one Position ID per line on stdin, answer one JSON line each")
    add_cube_options(p)
    add_plies_option(p)
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant (default: standard)")
    p.set_defaults(run=run)


def answer(evaluate, efficiency: float, args, text: str, plies: int = 0) -> dict:
    """The action and response for one Position ID (a UsageError for a bad one)."""
    from eval.analysis import analyze_cube
    words = text.split()
    if len(words) != 1:
        raise UsageError(f"expected one Position ID, got {quote(text.strip())}")
    board = read_position(words[0], args.variant)
    check_in_play(board)
    _, jacoby, beavers = cube_settings(args)
    a = analyze_cube(evaluate, board[None], efficiency, jacoby, beavers, plies=plies)[0]
    return {"action": a["action"], "response": a["response"]}


def run(args) -> int:
    if args.batch and args.posid is not None:
        raise UsageError("--batch reads positions from stdin; give no POSID")
    if not args.batch and args.posid is None:
        raise UsageError("give a POSID (or --batch)")
    bot, evaluate, efficiency = cube_model(args)
    plies = getattr(bot, "plies", 0)
    if not args.batch:
        print(json.dumps(answer(evaluate, efficiency, args, args.posid, plies)))
        return 0
    return answer_lines(lambda line: json.dumps(answer(evaluate, efficiency, args, line,
                                                       plies)),
                        lambda message: json.dumps({"error": message}))
