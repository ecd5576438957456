"""Do the plan bots play their plans, and which plans come up in play?

``style_table``: each plan bot (``eval.bots.plans``) plays paired games against pubeval, and
the measure of its plan (``plan_measures``: race lead, anchors held, longest prime, hits)
is averaged over the plays of each side: the bot's against pubeval's, on the same dice.

``plan_frequencies``: the game plan (``engine.plan``) of the player on roll before each
play of a bot's self-play games, as shares.

    python -m gammon.eval.reports.plans [--games 2000] [--bot net:] [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from gammon.engine.game import play
from gammon.engine.plan import PLANS, plans

from gammon.eval.playing.match import run_match
from gammon.eval.bots.plans import PLAN_BOTS, plan_measures
from gammon.eval.bots.registry import make_bot


def style_table(games: int = 2000, seed: int = 1) -> list[dict]:
    """For each plan bot: its plan's measure per play, its and pubeval's, in ``games``
    paired games against pubeval (the same dice with the seats swapped)."""
    rows = []
    for name in PLAN_BOTS:
        sums = np.zeros(2)
        counts = np.zeros(2)

        def record(game, players, boards, roll, after, name=name):
            m = plan_measures(boards, after)[name]
            for p in (0, 1):
                mine = np.asarray(players) == p
                sums[p] += m[mine].sum()
                counts[p] += mine.sum()

        result = run_match(make_bot(name), make_bot("pubeval"), games, seed, progress=False,
                           on_play=record)
        rows.append({"bot": name, "measure": MEASURES[name], "bot_mean": sums[0] / counts[0],
                     "pubeval_mean": sums[1] / counts[1], "ppg_vs_pubeval": result.ppg_a,
                     "games": games})
    return rows


MEASURES = {"runner": "race lead after the play (pips)",
            "holder": "anchors held on points 18..21",
            "blocker": "longest run of made points",
            "attacker": "hits per play"}


def plan_frequencies(bot: str = "net:", games: int = 2000, seed: int = 1) -> dict[str, float]:
    """The share of each plan (``engine.plan.PLANS``) among the positions the player on roll
    faces before each play in ``games`` self-play games of ``bot``."""
    player = make_bot(bot, seed)
    counts = np.zeros(len(PLANS))

    def seen(boards, dice):
        counts[:] += np.bincount(plans(boards), minlength=len(PLANS))

    play((player, player), games, np.random.default_rng(seed), on_position=seen)
    return {name: float(c / counts.sum()) for name, c in zip(PLANS, counts)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m gammon.eval.reports.plans",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=2000, help="games per measure (default 2000)")
    p.add_argument("--bot", default="net:", help="the bot whose self-play is classified")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.games < 2 or args.games % 2:
        p.error("--games must be even and at least 2 (paired games)")
    styles = style_table(args.games, args.seed)
    freq = plan_frequencies(args.bot, args.games, args.seed)
    if args.json:
        print(json.dumps({"styles": styles, "plans": freq, "bot": args.bot}))
        return 0
    print(f"each plan bot against pubeval, {args.games} paired games: its plan's measure "
          f"per play, the bot's and pubeval's")
    print(f"{'bot':10}{'measure':36}{'bot':>8}{'pubeval':>9}{'ppg':>9}")
    for r in styles:
        print(f"{r['bot']:10}{r['measure']:36}{r['bot_mean']:8.3f}{r['pubeval_mean']:9.3f}"
              f"{r['ppg_vs_pubeval']:+9.3f}")
    print(f"\nplans of the positions in {args.games} self-play games of {args.bot}:")
    for name, share in freq.items():
        print(f"  {name:10}{share:7.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
