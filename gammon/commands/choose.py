"""``gammon choose``: the play a bot makes, one position or a stream of them."""

from __future__ import annotations

import argparse

import numpy as np

from engine.formats import posid
from engine.rules import VARIANTS, variant as get_variant
from engine.movegen import legal_plays
from eval.registry import valid_names

from ..errors import UsageError
from ..positions import answer_requests, read_die, read_position
from .match import load_bot

HELP = f"""\
Print the play a bot chooses as the Position ID of its result (not flipped: the player
who moved is still on roll in the key, as in `gammon moves`). Nothing when no play is legal.

With --batch, read 'POSID D1 D2' lines from stdin and answer each with exactly one line,
flushed at once: the chosen result's Position ID, an empty line when no play is legal, or
a line starting 'error:' for a bad request.

bots: {valid_names()}

examples:
  gammon choose 4HPwATDgc/ABMA 3 1 --bot pubeval
  printf '4HPwATDgc/ABMA 6 5\\n' | gammon choose --bot pubeval --batch
"""


def add_parser(sub) -> None:
    p = sub.add_parser("choose", help="the play a bot chooses (one position or --batch)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("posid", nargs="?", help="gnubg Position ID, e.g. 4HPwATDgc/ABMA")
    p.add_argument("d1", nargs="?", help="first die, 1..6")
    p.add_argument("d2", nargs="?", help="second die, 1..6")
    p.add_argument("--bot", default="pubeval", help="the bot that chooses (default: pubeval)")
    p.add_argument("--batch", action="store_true",
                   help="read 'POSID D1 D2' lines on stdin, answer one line each")
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant (default: standard)")
    p.add_argument("--seed", type=int, default=None, help="seed for bots that draw numbers")
    p.set_defaults(run=run)


def chosen_result(bot, board: np.ndarray, d1: int, d2: int, variant: str = "standard") -> str:
    """Position ID of the bot's result, not flipped; empty when no play is legal."""
    boards, dice = board[None], np.array([[d1, d2]])  # (1, 26), (1, 2)
    plays = legal_plays(boards, dice, get_variant(variant))
    if plays.dice_used[0] == 0:
        return ""
    return posid.encode(plays.boards[int(bot.choose(plays, boards, dice)[0])])


def run(args) -> int:
    if args.batch and args.posid is not None:
        raise UsageError("--batch reads positions from stdin; give no POSID")
    if not args.batch and args.d2 is None:
        raise UsageError("give POSID D1 D2 (or --batch)")
    bot = load_bot(args.bot, args.seed, args.variant)
    if args.batch:
        return _batch(bot, args.variant)
    board = read_position(args.posid, args.variant)
    answer = chosen_result(bot, board, read_die(args.d1), read_die(args.d2), args.variant)
    if answer:
        print(answer)
    return 0


def _batch(bot, variant: str) -> int:
    return answer_requests(lambda board, d1, d2: chosen_result(bot, board, d1, d2, variant),
                           variant)
