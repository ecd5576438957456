"""The shipped variant models measured: each against ``random`` and against its variant's
heuristic bot, over paired cubeless money games (``eval.playing.match.run_match``).

    python -m gammon.eval.reports.variants                      # the seven, 4,000 games each
    python -m gammon.eval.reports.variants --variants plakoto --games 2000

Prints a Markdown table: win rate, points per game and share of all points won by the
model, each with its 95% interval (computed from the pairs of games that share dice).
"""

from __future__ import annotations

import argparse
import json
import sys

from gammon.engine.rules import VARIANTS

from gammon.eval.playing.match import run_match
from gammon.eval.bots.registry import make_bot

SHIPPED = [v for v in VARIANTS if v != "standard"]


def measure(variant: str, opponent: str, games: int, seed: int, bot: str = "net:") -> dict:
    """One paired match of ``bot`` (the variant's shipped model by default) against
    ``opponent`` in ``variant``: its statistics from the model's side."""
    model = make_bot(bot, seed, variant)
    r = run_match(model, make_bot(opponent, seed + 1, variant), games, seed, variant,
                  progress=sys.stderr.isatty())
    return {"variant": variant, "opponent": opponent, "games": r.games,
            "win_rate": r.rate(r.wins_a), "win_rate_ci95": r.wins_a_ci95,
            "ppg": r.ppg_a, "ppg_ci95": r.ppg_a_ci95,
            "points_share": r.points_share_a, "points_share_ci95": r.points_share_a_ci95,
            "seconds": r.seconds}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gammon.eval.reports.variants", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=SHIPPED)
    parser.add_argument("--games", type=int, default=4000,
                        help="paired games per match (even; default 4000)")
    parser.add_argument("--opponents", nargs="+", default=["random", "heuristic"])
    parser.add_argument("--bot", default="net:", help="the bot measured (default net:, "
                        "the variant's shipped model)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    args = parser.parse_args(argv)
    if args.games < 2 or args.games % 2:
        parser.error("--games must be an even number of at least 2")
    if not args.json:
        print("| variant | opponent | games | win rate | ppg | share of points |")
        print("|---|---|---:|---:|---:|---:|")
    for variant in args.variants:
        for opponent in args.opponents:
            row = measure(variant, opponent, args.games, args.seed, args.bot)
            if args.json:
                print(json.dumps(row), flush=True)
                continue
            print(f"| {variant} | {opponent} | {row['games']:,} | "
                  f"{row['win_rate']:.1%} ± {row['win_rate_ci95']:.1%} | "
                  f"{row['ppg']:+.3f} ± {row['ppg_ci95']:.3f} | "
                  f"{row['points_share']:.1%} ± {row['points_share_ci95']:.1%} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
