"""``gammon choose``: the play a bot makes, one position or a stream of them."""

from __future__ import annotations

import argparse

import numpy as np

from gammon.engine.formats import position
from gammon.engine.rules import VARIANTS, variant as get_variant
from gammon.engine.movegen import legal_plays
from gammon.eval.bots.registry import DEFAULT_BOT, valid_names

from ..errors import UsageError
from ..positions import (SEED_RANGE, answer_requests, dice_words, read_position, read_roll,
                         seed_type)
from ..options import load_bot

HELP = f"""\
Print the play a bot chooses as the Position ID of its result (not flipped: the player
who moved is still on roll in the key, as in `gammon moves`). Nothing when no play is legal.
The dice may be written 3 1, 31 or 3-1. The bot is the shipped network (net:) unless
--bot names another.

With --batch, read 'POSID D1 D2' lines from stdin and answer each with exactly one line,
flushed at once: the chosen result's Position ID, an empty line when no play is legal, or
a line starting 'error:' for a bad request.

bots: {valid_names()}

examples:
  gammon choose 4HPwATDgc/ABMA 31
  gammon choose 4HPwATDgc/ABMA 3 1 --bot pubeval
  printf '4HPwATDgc/ABMA 6 5\\n' | gammon choose --bot pubeval --batch
"""


def add_parser(sub) -> None:
    p = sub.add_parser("choose", help="the play a bot chooses (one position or --batch)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("posid", nargs="?", help="gnubg Position ID, e.g. 4HPwATDgc/ABMA")
    p.add_argument("d1", nargs="?", help="first die, 1..6 (or both dice: 31, 3-1)")
    p.add_argument("d2", nargs="?", help="second die, 1..6")
    p.add_argument("--bot", default=DEFAULT_BOT,
                   help=f"the bot that chooses (default: {DEFAULT_BOT}, the shipped network)")
    p.add_argument("--batch", action="store_true",
                   help="read 'POSID D1 D2' lines on stdin, answer one line each")
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant (default: standard)")
    p.add_argument("--seed", type=seed_type, default=None,
                   help=f"seed for bots that draw numbers, {SEED_RANGE}")
    p.set_defaults(run=run)


def chosen_result(bot, board: np.ndarray, d1: int, d2: int, variant: str = "standard") -> str:
    """The bot's result written as the input is (Position ID, or ``plakoto:`` text), not
    flipped; empty when no play is legal."""
    boards, dice = board[None], np.array([[d1, d2]])  # (1, 26), (1, 2)
    plays = legal_plays(boards, dice, get_variant(variant))
    if plays.dice_used[0] == 0:
        return ""
    return position.write(plays.boards[int(bot.choose(plays, boards, dice)[0])], variant)


def run(args) -> int:
    if args.batch and args.posid is not None:
        raise UsageError("--batch reads positions from stdin; give no POSID")
    if not args.batch and args.d1 is None:
        raise UsageError("give POSID D1 D2 (or --batch)")
    if not args.batch:  # the arguments first: a bad one is named before any bot loads
        board = read_position(args.posid, args.variant)
        d1, d2 = read_roll(dice_words(args))
    bot = load_bot(args.bot, args.seed, args.variant)
    if args.batch:
        return _batch(bot, args.variant)
    answer = chosen_result(bot, board, d1, d2, args.variant)
    if answer:
        print(answer)
    return 0


def _batch(bot, variant: str) -> int:
    return answer_requests(lambda board, d1, d2: chosen_result(bot, board, d1, d2, variant),
                           variant)
