"""Random play through the native vector env, timed: games finished per second.

    python -m gammon.envs.speed [--batch 1024] [--seconds 20] [--warmup-steps 300] [--seed 1]
                                [--opponent random] [--variant standard] [--cube]

Every game of the batch is an agent choosing uniformly among its legal actions (one
checker step at a time) against the ``--opponent`` bot (``random``: uniformly among the
legal plays); episodes restart by themselves (NEXT_STEP). After ``--warmup-steps`` steps
(the games' ends spread out: they all start together) the games that end within
``--seconds`` are counted. One JSON line on stdout: games, steps,
wall and CPU seconds, games per second of each. ``eval.bench.envs`` runs it as a process,
beside pgx and the bare game loop.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def measure(batch: int, seconds: float, warmup: int, seed: int, opponent: str,
            variant: str, cube: bool) -> dict:
    from .vector import BackgammonVectorEnv
    env = BackgammonVectorEnv(batch, opponent=opponent, variant=variant, cube=cube or None)
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)

    def run(limit: float, most: int) -> tuple[int, int, float, float]:
        nonlocal info
        games = steps = 0
        wall, cpu = time.perf_counter(), time.process_time()
        while time.perf_counter() - wall < limit and steps < most:
            mask = info["action_mask"]
            actions = np.argmax(rng.random(mask.shape, dtype=np.float32) * mask, axis=1)
            _, _, terminated, _, info = env.step(actions)
            games += int(terminated.sum())
            steps += 1
        return games, steps, time.perf_counter() - wall, time.process_time() - cpu

    run(float("inf"), warmup)
    games, steps, wall, cpu = run(seconds, 1 << 62)
    return {"what": "vector env", "batch": batch, "games": games, "steps": steps,
            "seconds": wall, "cpu_seconds": cpu, "games_per_s": games / wall,
            "games_per_cpu_s": games / cpu}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m gammon.envs.speed",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch", type=int, default=1024, help="games in the batch")
    parser.add_argument("--seconds", type=float, default=20.0, help="time measured")
    parser.add_argument("--warmup-steps", type=int, default=300, help="steps played first")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--opponent", default="random", help="the opponent bot's name")
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--cube", action="store_true", help="the cube on")
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.batch, args.seconds, args.warmup_steps, args.seed, args.opponent,
                             args.variant, args.cube)))


if __name__ == "__main__":
    main()
