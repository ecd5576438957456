"""Benchmark of self-play training: games/s and where the time goes (rules, network,
update, the rest), measured on a short real run of the trainer.

    python -m train.bench [--games 6000] [--hidden 80] [--parallel 512] [--threads 2]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from contextlib import contextmanager

import engine.game
import engine.movegen
from model.policy import NetEvaluator
from train.config import Config
from train.trainer import Trainer


class Stopwatch:
    """Seconds spent inside wrapped functions, by label (a call inside another counts once)."""

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self._depth = 0

    def wrap(self, label: str, fn):
        def timed(*args, **kwargs):
            if self._depth:
                return fn(*args, **kwargs)
            self._depth += 1
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[label] = self.seconds.get(label, 0.0) + time.perf_counter() - start
                self._depth -= 1
        return timed


@contextmanager
def _patched(watch: Stopwatch):
    """Time the rules (legal plays), the network (forward passes) and the updates."""
    saved = (engine.game.legal_plays, NetEvaluator.__call__, Trainer._update)
    engine.game.legal_plays = watch.wrap("rules", engine.movegen.legal_plays)
    NetEvaluator.__call__ = watch.wrap("network", saved[1])
    Trainer._update = watch.wrap("update", saved[2])
    try:
        yield
    finally:
        engine.game.legal_plays, NetEvaluator.__call__, Trainer._update = saved


def measure(games: int, hidden: int, parallel: int, threads: int, seed: int = 1) -> dict:
    config = Config().with_overrides(
        model={"hidden": (hidden,)},
        train={"games": games, "parallel_games": parallel, "threads": threads, "seed": seed,
               "device": "cpu"},
        eval={"every_games": 0}, run={"checkpoint_every_games": 0})
    watch = Stopwatch()
    with tempfile.TemporaryDirectory() as out:
        trainer = Trainer(config, out)
        with _patched(watch):
            start = time.perf_counter()
            counters = trainer.run()
            total = time.perf_counter() - start
    save = total - counters.seconds if counters.seconds < total else 0.0
    split = {k: watch.seconds.get(k, 0.0) / total for k in ("rules", "network", "update")}
    split["other"] = 1 - sum(split.values())
    return {"games": counters.games, "seconds": total, "games_per_s": counters.games / total,
            "positions_per_game": counters.positions / counters.games,
            "split": split, "hidden": hidden, "parallel_games": parallel, "threads": threads,
            "save_seconds": save}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=6000)
    parser.add_argument("--hidden", type=int, default=80)
    parser.add_argument("--parallel", type=int, default=512)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = measure(args.games, args.hidden, args.parallel, args.threads)
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"{result['games']} self-play training games, {args.hidden} hidden units, "
          f"{args.parallel} in lock-step, {args.threads} threads")
    print(f"  {result['games_per_s']:.0f} games/s ({result['seconds']:.1f} s, "
          f"{result['positions_per_game']:.1f} positions per game)")
    for label in ("rules", "network", "update", "other"):
        print(f"  {label:<8} {result['split'].get(label, 0):6.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
