"""``gammon hint``: every legal play of a position and roll, ranked by a bot."""

from __future__ import annotations

import argparse
import json

import numpy as np

from engine.formats import posid
from engine.rules import VARIANTS, variant as get_variant
from engine.movegen import legal_plays
from engine.formats.notation import format_play
from eval.bot import Bot, best_per_root
from eval.registry import valid_names

from ..positions import read_die, read_position
from .match import load_bot, with_lookahead

HELP = f"""\
Rank every legal play of a position and roll by a bot's scores, best first: the rank, the
play in Magriel notation, the bot's score (higher is better for the player on roll) and the
resulting Position ID (not flipped: the player who moved is still on roll in the key, as in
`gammon moves`). Rank 1 is the play the bot would make. Nothing is printed when no play is
legal.

bots: {valid_names()}

examples:
  gammon hint 4HPwATDgc/ABMA 3 1 --bot pubeval
  gammon hint 4HPwATDgc/ABMA 6 5 --bot gnubg --json
"""


def add_parser(sub) -> None:
    p = sub.add_parser("hint", help="rank the legal plays of a position by a bot",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("posid", help="gnubg Position ID, e.g. 4HPwATDgc/ABMA")
    p.add_argument("d1", help="first die, 1..6")
    p.add_argument("d2", help="second die, 1..6")
    p.add_argument("--bot", default="pubeval", help="the bot that ranks (default: pubeval)")
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant (default: standard)")
    p.add_argument("--seed", type=int, default=None, help="seed for bots that draw numbers")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plies", type=int, choices=[0, 2], default=0,
                   help="look-ahead of a net: bot: 0 (default) or 2 (each play scored by "
                        "the opponent's best reply to all 21 rolls; slower)")
    p.set_defaults(run=run)


def ranked(bot, board: np.ndarray, d1: int, d2: int, variant: str = "standard") -> list[dict]:
    """The legal plays of one position, best first: rank, play, score, result.

    The bot's own choice comes first; the rest follow by score (ties by Position ID).
    Empty when no play is legal.
    """
    boards, dice = board[None], np.array([[d1, d2]])  # (1, 26), (1, 2)
    plays = legal_plays(boards, dice, get_variant(variant))
    if plays.dice_used[0] == 0:
        return []
    scores = np.asarray(bot.scores(plays, boards, dice), dtype=np.float64)  # (K,)
    chosen = _choice(bot, plays, boards, dice, scores)
    ids = posid.encode_many(plays.boards)
    order = sorted(range(len(plays)), key=lambda k: (k != chosen, -scores[k], ids[k]))
    steps, hits = plays.steps, plays.hits
    return [{"rank": rank, "play": format_play(steps[k], hits[k]), "score": float(scores[k]),
             "result": ids[k]} for rank, k in enumerate(order, 1)]


def _choice(bot, plays, boards, dice, scores: np.ndarray) -> int:
    """The row the bot plays; from the scores already drawn when it plays the best score
    (so a random bot's ranking and choice agree)."""
    if type(bot).choose is Bot.choose:
        return int(best_per_root(scores, plays.root, 1)[0])
    return int(bot.choose(plays, boards, dice)[0])


def run(args) -> int:
    board = read_position(args.posid, args.variant)
    d1, d2 = read_die(args.d1), read_die(args.d2)
    bot = with_lookahead(load_bot(args.bot, args.seed, args.variant), args.plies)
    rows = ranked(bot, board, d1, d2, args.variant)
    if args.json:
        print(json.dumps({"posid": args.posid, "dice": [d1, d2], "bot": args.bot,
                          "score": bot.score_label, "plays": rows}))
        return 0
    if not rows:
        return 0
    width = max(len(r["play"]) for r in rows)
    label = max(14, len(bot.score_label))
    print(f"{'#':>3}  {'play':<{width}}  {bot.score_label:>{label}}  result")
    for r in rows:
        print(f"{r['rank']:>3}  {r['play']:<{width}}  {r['score']:>{label}.6f}  {r['result']}")
    return 0
