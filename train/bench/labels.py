"""Labels per core-second: what each way of labelling the second stage's positions costs,
side by side in one process on one thread (issue 37).

    python -m gammon.train.bench.labels                     # 64 positions, the shipped net
    python -m gammon.train.bench.labels --positions 128 --net checkpoints/stage2-gen1.pt --json

The same positions (drawn as the second stage draws them, ``sample_positions``) are
labelled by

- ``1-ply`` and ``2-ply``: the net's look-ahead value (``model.lookahead.position_values``);
- ``rollout``: today's rollout labels (36 trials, variance reduction, truncated after 7
  plies: the committed datasets' settings);

and ``mining`` judges the decisions of a block of games (``train.mining.mine_block``, the
teacher at 2-ply) and counts the rows it keeps; ``mining, keep_deep`` the same block,
keeping every play the teacher valued at 2-ply. The time is the process's CPU time (the
core-seconds it used, whatever else the machine runs); the rounds take turns (ABAB...) so
that a slow spell of the machine falls on each.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np


def measure(positions: int = 64, rounds: int = 1, net: str = "", games: int = 8,
            seed: int = 1, log=None) -> dict:
    """{method: {"labels", "core_seconds", "per_core_second"}} over ``rounds`` rounds."""
    from gammon.eval.analysis.rollouts import Settings, one_thread, rollout
    from gammon.eval.bots.registry import make_bot
    from gammon.model.lookahead import position_values
    from gammon.train import mining
    from gammon.train.rollout_positions import sample_positions
    bot = make_bot(f"net:{net}")
    ev = bot.evaluator
    boards, _ = sample_positions(bot, positions, seed, opponents=(make_bot("pubeval"),),
                                 opponent_share=0.2)
    settings = Settings(trials=36, seed=seed, truncate=7, vr=True)
    methods = {
        "1-ply": lambda: len(position_values(ev, boards, 1)),
        "2-ply": lambda: len(position_values(ev, boards, 2)),
        "rollout": lambda: len(rollout(bot, boards, settings)),
        "mining": lambda: len(mining.mine_block(
            ev, bot, mining.MiningSettings(games=games), seed)[0]),
        "mining, keep_deep": lambda: len(mining.mine_block(
            ev, bot, mining.MiningSettings(games=games, keep_deep=True), seed)[0]),
    }
    out = {name: {"labels": 0, "core_seconds": 0.0} for name in methods}
    with one_thread():
        for r in range(rounds):
            for name, run in methods.items():
                start = time.process_time()
                labels = run()
                spent = time.process_time() - start
                out[name]["labels"] += labels
                out[name]["core_seconds"] += spent
                if log:
                    log(f"round {r + 1}: {name}: {labels} labels in {spent:.1f} core-s")
    for row in out.values():
        row["per_core_second"] = row["labels"] / max(row["core_seconds"], 1e-9)
    return out


def table(result: dict) -> str:
    lines = ["| labels | labels | core-seconds | labels per core-second |",
             "|---|---|---|---|"]
    for name, row in result.items():
        lines.append(f"| {name} | {row['labels']:,} | {row['core_seconds']:.1f} | "
                     f"{row['per_core_second']:.2f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    from gammon.eval.bots.registry import BotUnavailable
    from gammon.eval.gnubg.cli import OneLineParser, UsageError, first_line
    p = OneLineParser(prog="python -m gammon.train.bench.labels", description=__doc__,
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--positions", type=int, default=64,
                   help="positions labelled by each look-ahead and by rollouts (default 64)")
    p.add_argument("--games", type=int, default=8, help="games of the mining block (default 8)")
    p.add_argument("--rounds", type=int, default=1, help="rounds, in turns (default 1)")
    p.add_argument("--net", default="", help="the net's checkpoint (default: the shipped one)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true", help="the figures as JSON")
    try:
        args = p.parse_args(argv)
        for name in ("positions", "games", "rounds"):
            if getattr(args, name) < 1:
                raise UsageError(f"--{name} is 1 or more, got {getattr(args, name)}")
        result = measure(args.positions, args.rounds, args.net, args.games, args.seed,
                         lambda text: print(text, file=sys.stderr, flush=True))
    except (UsageError, ValueError, OSError, BotUnavailable) as e:
        print(f"error: {first_line(e)}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=1) if args.json else table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
