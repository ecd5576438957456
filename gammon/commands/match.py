"""``gammon match``: play two bots against each other and report honest statistics."""

from __future__ import annotations

import argparse
import json
import sys

from engine.board import VARIANTS
from eval.registry import BotUnavailable, valid_names

from ..errors import UsageError

HELP = f"""\
Play GAMES cubeless money games of bot A against bot B and report, from A's side: wins,
points per game with a 95% confidence interval, gammon and backgammon rates of both sides,
plies per game and games per second.

By default the dice are paired: each dice sequence is played twice with the seats swapped,
so the luck of the dice largely cancels (GAMES must be even). The confidence interval is
then computed from the per-pair means, the pairs being the independent units; the width
the same games would give if independent is shown beside it. The same --seed replays the
same games bit for bit.

bots: {valid_names()}

examples:
  gammon match pubeval random --games 1000
  gammon match heuristic pubeval --games 10000 --seed 7 --json
"""


def add_parser(sub) -> None:
    p = sub.add_parser("match", help="play two bots against each other, with statistics",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", metavar="A", help="bot A (statistics are from its side)")
    p.add_argument("b", metavar="B", help="bot B")
    p.add_argument("--games", type=int, default=1000, help="games to play (default: 1000)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed for dice and bots (default: a fresh one, printed)")
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant (default: standard)")
    p.add_argument("--no-pairing", action="store_true",
                   help="independent dice for every game instead of pairs of games")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(run=run)


def load_bot(name: str, seed: int | None = None, variant: str = "standard"):
    """``eval.registry.make_bot``, its errors turned into one-line usage errors."""
    from eval.registry import make_bot
    try:
        return make_bot(name, seed, variant)
    except (ValueError, BotUnavailable, OSError) as e:
        raise UsageError(str(e)) from None


def run(args) -> int:
    from eval.match import match_seeds, new_seed, run_match
    paired = not args.no_pairing
    if args.games < 1 or (paired and args.games % 2):
        raise UsageError(f"--games must be positive{' and even with paired dice' if paired else ''}"
                         f" (or use --no-pairing), got {args.games}")
    seed = new_seed() if args.seed is None else args.seed
    _, seed_a, seed_b = match_seeds(seed)
    bot_a = load_bot(args.a, seed_a, args.variant)
    bot_b = load_bot(args.b, seed_b, args.variant)
    result = run_match(bot_a, bot_b, args.games, seed, args.variant, paired,
                       progress=not args.no_progress)
    result.names = (args.a, args.b)
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        sys.stdout.write(table(result))
    return 0


def _count(n: int, games: int) -> str:
    return f"{f'{n:,} ({100 * n / games:.2f}%)':>20}"


def table(r) -> str:
    """The match report for people: one row per statistic, A's and B's columns."""
    a, b = r.names
    how = "paired dice" if r.paired else "independent dice"
    units = f"{r.games // 2:,} pairs" if r.paired else f"{r.games:,} games"
    lines = [
        f"{a} (A) vs {b} (B): {r.games:,} games, {r.variant}, {how}, seed {r.seed}",
        f"{'':22}{'A: ' + a:>20}  {'B: ' + b:>20}",
        f"{'wins':22}{_count(r.wins_a, r.games)}  {_count(r.wins_b, r.games)}",
        f"{'gammons':22}{_count(r.gammons_a, r.games)}  {_count(r.gammons_b, r.games)}",
        f"{'backgammons':22}{_count(r.backgammons_a, r.games)}  "
        f"{_count(r.backgammons_b, r.games)}",
        f"{'A points per game':22}{r.ppg_a:+.4f} ± {r.ppg_a_ci95:.4f} (95% CI over {units})",
    ]
    if r.paired:
        lines.append(f"{'':22}(± {r.ci95_unpaired:.4f} if the games were independent)")
    if r.unfinished:
        lines.append(f"{'unfinished':22}{r.unfinished:>8,} (cut off at the ply limit, 0 points)")
    lines += [
        f"{'plies per game':22}{r.plies_per_game:8.1f}",
        f"{'games per second':22}{r.games_per_s:8,.0f}",
    ]
    return "\n".join(lines) + "\n"
