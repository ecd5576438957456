"""``gammon tournament``: a round robin between bots, with a cross table and ratings."""

from __future__ import annotations

import argparse
import json
import os
import sys

from gammon.engine.rules import VARIANTS
from gammon.eval.bots.registry import valid_names

from ..errors import UsageError, quote
from ..positions import SEED_RANGE, seed_type, whole_type
from ..options import check_bot_name, load_bot

MAX_GAMES = 10_000_000

HELP = f"""\
Play every pair of the bots named against each other (a round robin): GAMES cubeless money
games a pair with paired dice (each dice sequence twice, seats swapped; GAMES even), the
pairs spread over WORKERS processes (default: every core). Prints a cross table: the points
per game of each row bot against each column bot with its 95% interval (over the pairs of
games), each bot's mean, and an Elo-style rating fitted to the games won (Bradley-Terry,
averaging 1500: 100 points apart is a 64% share of the games). The same --seed gives the
same games, however many workers.

bots: {valid_names()}

examples:
  gammon tournament random pubeval heuristic --games 2000
  gammon tournament runner holder blocker attacker pubeval --games 2000 --json
"""


def add_parser(sub) -> None:
    p = sub.add_parser("tournament", help="a round robin between bots: cross table, ratings",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("bots", nargs="*", metavar="BOT", help="two or more different bots")
    p.add_argument("--games", type=whole_type("--games", 0, MAX_GAMES), default=2000,
                   help="paired games a pair (even; default: 2000)")
    p.add_argument("--seed", type=seed_type, default=None,
                   help=f"seed of the whole tournament, {SEED_RANGE} (default: a fresh one, "
                        f"printed)")
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant (default: standard)")
    p.add_argument("--workers", type=whole_type("--workers", 1, 1024), default=None,
                   metavar="K", help="processes playing pairs at once (default: every core)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(run=run)


def run(args) -> int:
    from gammon.eval.playing.match import new_seed
    from gammon.eval.playing.tournament import cross_table, run_tournament
    bots = list(args.bots)
    if len(bots) < 2:
        raise UsageError(f"a tournament needs two or more bots, got {len(bots)}"
                         + (f" ({quote(bots[0])})" if bots else ""))
    seen = set()
    for name in bots:
        if name in seen:
            raise UsageError(f"the bot {quote(name)} is named twice; name each bot once")
        seen.add(name)
        check_bot_name(name)
    if args.games < 2 or args.games % 2:
        raise UsageError(f"--games must be even and at least 2 (paired games), got {args.games}")
    for name in bots:  # every bot loads here (a missing file, gnubg-nn absent, ...)
        load_bot(name, 0, args.variant)
    seed = new_seed() if args.seed is None else args.seed
    if args.seed is None and not args.json:
        print(f"seed {seed}", file=sys.stderr)
    from tqdm import tqdm
    pairs = len(bots) * (len(bots) - 1) // 2
    with tqdm(total=pairs * args.games, unit="game", leave=False, dynamic_ncols=True,
              disable=True if args.no_progress else None) as bar:
        result = run_tournament(bots, args.games, seed, args.variant,
                                args.workers or os.cpu_count() or 1, bar.update)
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        sys.stdout.write(cross_table(result))
    return 0
