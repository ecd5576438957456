"""``gammon hint``: every legal play of a position and roll, ranked by a bot."""

from __future__ import annotations

import argparse
import json
from gammon.engine.rules import VARIANTS
from gammon.eval.analysis import CubeView, equity_type, ranked
from gammon.eval.bots.registry import DEFAULT_BOT, valid_names
from gammon.model.lookahead import FILTER_EQUITY, FILTER_PLAYS

from ..errors import UsageError, quote
from ..options import add_cube_model_options, add_plies_option, cube_settings, load_bot, with_plies
from ..positions import SEED_RANGE, dice_words, read_position, read_roll, seed_type
from ..rollout_options import (add_rollout_flag, check_rollout_args, check_rollout_bot,
                               progress_bar, rollout_seed, rollout_settings, settings_words)
from ..tables import ply_cells, probability_cells, probability_header

HELP = f"""\
Rank every legal play of a position and roll by a bot's scores, best first: the rank, the
play in Magriel notation, the bot's score (higher is better for the player on roll) and the
resulting Position ID (not flipped: the player who moved is still on roll in the key, as in
`gammon moves`). Rank 1 is the play the bot would make. A roll with no legal play says so.
The dice may be written 3 1, 31 or 3-1.

Bots that estimate probabilities (net:PATH, net: alone for the shipped network, which is
the default; gnubg) also show each play's probabilities for the player who moved: win,
win a gammon, win a backgammon, lose a gammon, lose a backgammon (gammons include
backgammons). Their score is the cubeless money equity (points per game, no cube);
--cubeful ranks by the cubeful money equity instead: after the play the opponent, on roll
with a centred cube, doubles, takes or passes as Janowski's model says (cube efficiency
--efficiency; Jacoby and beavers off unless --jacoby, --beavers), as `gammon analyze`.

With --plies N (or the bot net:PATH@N) a network looks N plies ahead, as GNU Backgammon
counts them: 0-ply = the network alone, 1-ply = looks at the opponent's 21 rolls (his best
reply to each), 2-ply = also at our 21 rolls after each of his replies. Only the plays
the move filter keeps (at most {FILTER_PLAYS}, within {FILTER_EQUITY} equity of the best at
0-ply) are looked ahead: they come first, with their N-ply values; the rest follow with
their 0-ply values, the ply column saying which is which (in --json each play's "plies").

With --rollout the plays the move filter keeps (the best {FILTER_PLAYS} at 0-ply, within
{FILTER_EQUITY} of the best) are rolled out instead, each from the position after it, the
opponent on roll, all on the same dice (trial t of every play sees the same rolls), so
that each play's difference to the best has its own, paired, standard error and 95%
interval; ranked by the rollout's mean: cubeless equity, or with --cubeful the cubeful
equity of cubeful rollouts (the cube played inside every trial). Settings as for `gammon
rollout`: --trials (default 1,296), --seed (default a fresh one, printed), --truncate,
--no-vr, --no-quasi, --no-bearoff; the bot (and --plies) plays both sides in the trials.

bots: {valid_names()}

examples:
  gammon hint 4HPwATDgc/ABMA 3 1
  gammon hint 4HPwATDgc/ABMA 3 1 --plies 1
  gammon hint 4HPwATDgc/ABMA 31 --cubeful
  gammon hint 4HPwATDgc/ABMA 3 1 --bot pubeval
  gammon hint 4HPwATDgc/ABMA 6 5 --bot gnubg --json
  gammon hint 4HPwATDgc/ABMA 3 1 --rollout --trials 144 --seed 1
"""


def add_parser(sub) -> None:
    p = sub.add_parser("hint", help="rank the legal plays of a position by a bot",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("posid", help="gnubg Position ID, e.g. 4HPwATDgc/ABMA")
    p.add_argument("d1", nargs="?", help="first die, 1..6 (or both dice: 31, 3-1)")
    p.add_argument("d2", nargs="?", help="second die, 1..6")
    p.add_argument("--bot", default=DEFAULT_BOT,
                   help=f"the bot that ranks (default: {DEFAULT_BOT}, the shipped network)")
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant (default: standard)")
    p.add_argument("--seed", type=seed_type, default=None,
                   help=f"seed for bots that draw numbers and, with --rollout, of the dice, "
                        f"{SEED_RANGE}")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_plies_option(p)
    p.add_argument("--cubeful", action="store_true",
                   help="rank by cubeful money equity (bots with probabilities: net:, gnubg)")
    add_cube_model_options(p)
    add_rollout_flag(p, "the plays the move filter keeps, on the same dice")
    p.set_defaults(run=run)


def run(args) -> int:
    if args.d1 is None:
        raise UsageError("give POSID D1 D2")
    board = read_position(args.posid, args.variant)
    d1, d2 = read_roll(dice_words(args))
    check_rollout_args(args)
    efficiency, jacoby, beavers = cube_settings(args)
    cube = CubeView(efficiency, jacoby, beavers) if args.cubeful else None
    name = with_plies(args.bot, args.plies)
    bot = load_bot(name, args.seed, args.variant)
    kind = equity_type(bot, cube)
    if cube is not None and kind is None:
        raise UsageError(f"--cubeful needs a bot that estimates probabilities (net:, "
                         f"net:PATH or gnubg), not {quote(args.bot)}")
    if args.rollout:
        return _rollout(args, bot, name, board, d1, d2)
    rows = ranked(bot, board, d1, d2, args.variant, cube)
    if args.json:
        out = {"posid": args.posid.strip(), "dice": [d1, d2], "bot": name,
               "score": bot.score_label, "equity_type": kind, "plays": rows}
        if cube is not None:
            out["cube"] = cube.to_dict()
        print(json.dumps(out))
        return 0
    if not rows:
        print(f"no legal play for {max(d1, d2)}-{min(d1, d2)}: the roll cannot be played "
              f"and the turn passes")
        return 0
    width = max(len(r["play"]) for r in rows)
    if kind is None:  # the bot's own score, as it always was
        label = max(14, len(bot.score_label))
        print(f"{'#':>3}  {'play':<{width}}  {bot.score_label:>{label}}  result")
        for r in rows:
            print(f"{r['rank']:>3}  {r['play']:<{width}}  {r['score']:>{label}.6f}  "
                  f"{r['result']}")
        return 0
    first = "cubeful equity" if cube is not None else "cubeless equity"
    extra = f"  {'cubeless':>9}" if cube is not None else ""
    ply_header, ply_cell = ply_cells(rows)
    print(f"{'#':>3}  {'play':<{width}}  {ply_header}{first:>15}{extra}  "
          f"{probability_header()}  result")
    for r in rows:
        value = r["cubeful_equity"] if cube is not None else r["cubeless_equity"]
        more = f"  {r['cubeless_equity']:>+9.4f}" if cube is not None else ""
        print(f"{r['rank']:>3}  {r['play']:<{width}}  {ply_cell(r)}{value:>+15.4f}{more}  "
              f"{probability_cells(r)}  {r['result']}")
    return 0


def _rollout(args, bot, name: str, board, d1: int, d2: int) -> int:
    """The move filter's plays rolled out on the same dice, best first."""
    from gammon.eval.analysis.rollout_decisions import rollout_plays
    from gammon.eval.analysis.rollouts import RolloutError
    settings = rollout_settings(args, rollout_seed(args), args.cubeful)
    check_rollout_bot(settings, bot)
    with progress_bar(FILTER_PLAYS * settings.trials, args) as bar:
        try:
            rows = rollout_plays(bot, board, d1, d2, settings, progress=bar.update)
        except RolloutError as e:
            raise UsageError(str(e)) from None
    kind = "cubeful" if args.cubeful else "cubeless"
    words = {"bot": name, **settings.to_dict()}
    if args.json:
        print(json.dumps({"posid": args.posid.strip(), "dice": [d1, d2], "bot": name,
                          "equity_type": kind, "rollout": words, "plays": rows}))
        return 0
    if not rows:
        print(f"no legal play for {max(d1, d2)}-{min(d1, d2)}: the roll cannot be played "
              f"and the turn passes")
        return 0
    print(rollout_table(rows, kind))
    print("settings: " + settings_words(words))
    return 0


def rollout_table(rows: list[dict], kind: str) -> str:
    """Rolled-out plays for people: equity, s.e., the difference to the best with its
    paired 95% interval, the probabilities, the result."""
    width = max(len(r["play"]) for r in rows)
    lines = [f"{'#':>3}  {'play':<{width}}  {kind + ' equity':>15}  {'s.e.':>6}  "
             f"{'difference (95% interval)':>33}  {probability_header()}  result"]
    for r in rows:
        e, d = r["equity"], r["difference"]
        se = "-" if e["se"] is None else f"{e['se']:.4f}"
        if d is None:
            diff = ""
        elif d["ci95"] is None:
            diff = f"{d['mean']:+.4f}"
        else:
            diff = f"{d['mean']:+.4f} ({d['ci95'][0]:+.4f} .. {d['ci95'][1]:+.4f})"
        lines.append(f"{r['rank']:>3}  {r['play']:<{width}}  {e['mean']:>+15.4f}  {se:>6}  "
                     f"{diff:>33}  {probability_cells(r)}  {r['result']}")
    trials = max(r["trials"] for r in rows)
    lines.append(f"{len(rows)} plays rolled out, {trials:,} trials each on the same dice")
    return "\n".join(lines)
