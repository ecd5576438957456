"""``gammon analyze``: a money position's probabilities, equities, cube action and plays."""

from __future__ import annotations

import argparse
import json

import numpy as np

from engine.board import on_board
from engine.rules import VARIANTS

from ..errors import UsageError
from ..positions import read_die, read_position
from .match import load_bot, with_lookahead

HELP = """\
Analyse a money position before the roll, the player on roll holding a centred cube he may
turn: the five outcome probabilities (win, gammon, backgammon, each side), the cubeless
equity, the cubeful equities of no double, double/take and double/pass (Janowski's model,
per unit of the current cube, cube efficiency --efficiency), the proper cube action in words
("No double, take", "Double, take", "Double, pass", "Too good, pass", "Double, beaver",
...) and the take point: the winning chances the opponent needs to take a double.

With --dice D1 D2, also every legal play of that roll, best first, with its cubeless
equity and its loss against the best play (the bot's own scores), in Magriel notation with
the resulting Position ID (not flipped).

The bot must estimate probabilities: net:PATH (net: alone for the shipped
checkpoints/default.pt) or gnubg.

examples:
  gammon analyze 4HPwATDgc/ABMA
  gammon analyze 4HPwATDgc/ABMA --dice 3 1 --bot net:runs/strong/model.pt --json
"""


def add_parser(sub) -> None:
    p = sub.add_parser("analyze", help="probabilities, equities and cube action of a position",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("posid", help="gnubg Position ID, e.g. 4HPwATDgc/ABMA")
    add_cube_options(p)
    p.add_argument("--dice", nargs=2, metavar=("D1", "D2"),
                   help="also rank every legal play of this roll")
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant (default: standard)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plies", type=int, choices=[0, 2], default=0,
                   help="look-ahead for ranking the plays of --dice with a net: bot: 0 "
                        "(default) or 2 (the opponent's best reply to all 21 rolls)")
    p.set_defaults(run=run)


def add_cube_options(p) -> None:
    """The options ``analyze`` and ``cube`` share: the bot and the cube model."""
    p.add_argument("--bot", default="net:",
                   help="the bot that estimates (default: net:, the shipped network)")
    p.add_argument("--efficiency", type=float, default=None, metavar="X",
                   help="Janowski's cube efficiency, 0 (dead cube) to 1 (default: 0.68)")
    p.add_argument("--jacoby", action="store_true",
                   help="Jacoby rule: gammons count single while the cube is centred")
    p.add_argument("--no-beavers", action="store_true",
                   help="the taker may not beaver (default: beavers allowed)")
    p.add_argument("--seed", type=int, default=None, help="seed for bots that draw numbers")


def cube_model(args):
    """(evaluate, efficiency) of the chosen bot; a usage error when it has no probabilities."""
    from eval.cube_bots import probability_source
    from model.cube import EFFICIENCY
    efficiency = EFFICIENCY if args.efficiency is None else args.efficiency
    if not 0 <= efficiency <= 1:
        raise UsageError(f"--efficiency is between 0 and 1, got {efficiency}")
    bot = load_bot(args.bot, args.seed, args.variant)
    evaluate = probability_source(bot)
    if evaluate is None:
        raise UsageError(f"the bot {args.bot!r} estimates no probabilities; "
                         f"use net:PATH (net: for the shipped network) or gnubg")
    return bot, evaluate, efficiency


def check_in_play(board: np.ndarray) -> None:
    """A usage error for a finished game: both sides need a checker in play."""
    mover, opponent = on_board(board[None])
    if mover[0] == 0 or opponent[0] == 0:
        raise UsageError("the game is over in this position: nothing to analyse")


def run(args) -> int:
    from eval.analysis import analyze_cube
    board = read_position(args.posid, args.variant)
    check_in_play(board)
    dice = [read_die(d) for d in args.dice] if args.dice else None
    bot, evaluate, efficiency = cube_model(args)
    bot = with_lookahead(bot, getattr(args, "plies", 0))
    result = analyze_cube(evaluate, board[None], efficiency, args.jacoby,
                          not args.no_beavers)[0]
    out = {"posid": args.posid, "bot": args.bot, "efficiency": efficiency,
           "jacoby": args.jacoby, "beavers": not args.no_beavers, **result}
    if dice:
        out["dice"] = dice
        out["plays"] = ranked_with_loss(bot, board, *dice, variant=args.variant)
    if args.json:
        print(json.dumps(out))
    else:
        print(report(out), end="")
    return 0


def ranked_with_loss(bot, board: np.ndarray, d1: int, d2: int,
                     variant: str = "standard") -> list[dict]:
    """``gammon hint``'s ranking with each play's equity and loss against the best."""
    from .hint import ranked
    rows = ranked(bot, board, d1, d2, variant)
    best = max((r["score"] for r in rows), default=0.0)
    return [{"rank": r["rank"], "play": r["play"], "equity": r["score"],
             "loss": best - r["score"], "result": r["result"]} for r in rows]


def report(a: dict) -> str:
    """The analysis for people."""
    p = a["probabilities"]
    c = a["cubeful"]
    beavers = "beavers allowed" if a["beavers"] else "no beavers"
    lines = [
        f"{a['posid']}  {a['bot']}",
        f"money game, centred cube, Jacoby {'on' if a['jacoby'] else 'off'}, {beavers}, "
        f"cube efficiency {a['efficiency']:.2f}",
        "",
        f"{'':12}{'win':>8}{'gammon':>9}{'bg':>8}",
        f"{'on roll':12}{p['win']:8.1%}{p['win_gammon']:9.1%}{p['win_backgammon']:8.1%}",
        f"{'opponent':12}{1 - p['win']:8.1%}{p['lose_gammon']:9.1%}{p['lose_backgammon']:8.1%}",
        "",
        f"{'cubeless equity':24}{a['cubeless_equity']:+.4f}",
        "cubeful equities (per cube):",
        f"{'  no double':24}{c['no_double']:+.4f}",
        f"{'  double, take':24}{c['double_take']:+.4f}",
        f"{'  double, pass':24}{c['double_pass']:+.4f}",
        f"{'proper cube action':24}{a['decision']}",
        f"{'take point':24}{a['take_point']:.1%} (the opponent has {a['taker_chances']:.1%})",
    ]
    plays = a.get("plays")
    if plays is not None:
        d1, d2 = a["dice"]
        lines += ["", f"plays of {d1}-{d2}, best first:"]
        if not plays:
            lines.append("  no legal play")
        else:
            width = max(len(r["play"]) for r in plays)
            lines.append(f"{'#':>4}  {'play':<{width}}  {'equity':>8}  {'loss':>7}  result")
        for r in plays:
            lines.append(f"{r['rank']:>4}  {r['play']:<{width}}  {r['equity']:+8.4f}  "
                         f"{r['loss']:7.4f}  {r['result']}")
    return "\n".join(lines) + "\n"
