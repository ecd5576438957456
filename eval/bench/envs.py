"""The speed of random play through the environments, side by side on one core: gammon's
native vector env (``gammon.envs``), pgx's backgammon on JAX's CPU backend, and the bare
game loop.

    python -m gammon.eval.bench.envs [--batch 1024] [--seconds 30] [--core 0] [--skip-pgx] [--json]

Three measurements, each in a process of its own, one after the other, pinned to one core
(``--core``, by the scheduler's affinity) with every thread pool at one thread
(OMP/MKL/OpenBLAS, XLA's Eigen pool):

  vector env  ``python -m gammon.envs.speed``: ``--batch`` games of an agent choosing
              uniformly among its legal actions (a checker step at a time) against the
              ``random`` bot, autoreset; games ending per second after a warm-up. (A
              process, not an import: the eval layer stays below gammon's.)
  pgx         ``pgx.make("backgammon")``, ``--batch`` games under ``jax.vmap`` and
              ``jax.jit`` (compiled before the timing), each player choosing uniformly
              among its legal actions, games restarted where they end; games ending per
              second after a warm-up.
  engine      ``engine.game.play`` of ``--batch`` games at a time between two random
              policies (uniform among the legal plays), game after game: what ``gammon
              match random random`` plays; and ``eval.playing.match.run_match("random",
              "random")`` itself (paired chunks of 2,000), in the same process.

Each line gives games per wall second and per CPU second of its process (on a machine
busy with other work the CPU seconds are the fairer measure). The targets: the vector env
at least 5x pgx and at least 0.5x the bare engine. pgx and JAX are optional (``pip install
pgx jax``); without them that line says so and the rest is measured.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
THREADS = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"}


def engine_rate(batch: int, seconds: float, seed: int) -> dict:
    """The bare game loop: ``engine.game.play`` of ``batch`` games between two random
    policies, again and again for ``seconds``."""
    from gammon.engine.game import play, random_policy
    rng = np.random.default_rng(seed)
    policy = random_policy(rng)
    play((policy, policy), batch, rng)  # warm-up
    games, wall, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        play((policy, policy), batch, rng)
        games += batch
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"what": "engine.game.play", "batch": batch, "games": games, "seconds": wall,
            "cpu_seconds": cpu, "games_per_s": games / wall, "games_per_cpu_s": games / cpu}


def match_rate(games: int, seed: int) -> dict:
    """``gammon match random random --games N`` without its printing."""
    from gammon.eval.playing.match import run_match
    cpu = time.process_time()
    result = run_match("random", "random", games, seed=seed, progress=False)
    cpu = time.process_time() - cpu
    return {"what": "run_match random random", "batch": 2000, "games": games,
            "seconds": result.seconds, "cpu_seconds": cpu,
            "games_per_s": games / result.seconds, "games_per_cpu_s": games / cpu}


def pgx_rate(batch: int, seconds: float, warmup: int, seed: int) -> dict:
    """pgx's backgammon, random legal actions, ``batch`` games under vmap and jit."""
    try:
        import jax
        import jax.numpy as jnp
        import pgx
    except ImportError as e:
        return {"what": "pgx", "error": f"not installed: {e}"}
    env = pgx.make("backgammon")
    init, step = jax.vmap(env.init), jax.vmap(env.step)

    def one(state, key):
        k1, k2, k3 = jax.random.split(key, 3)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        state = step(state, jax.random.categorical(k1, logits, axis=-1),
                     jax.random.split(k2, batch))
        done = state.terminated | state.truncated
        fresh = init(jax.random.split(k3, batch))
        state = jax.tree_util.tree_map(
            lambda a, b: jnp.where(done.reshape((-1,) + (1,) * (a.ndim - 1)), b, a),
            state, fresh)
        return state, done.sum()

    one = jax.jit(one)
    key = jax.random.PRNGKey(seed)
    state = jax.jit(init)(jax.random.split(key, batch))
    for _ in range(warmup):  # compiles, then spreads the games' ends out
        key, sub = jax.random.split(key)
        state, _ = one(state, sub)
    games = steps = 0
    wall, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        key, sub = jax.random.split(key)
        state, done = one(state, sub)
        games += int(done)
        steps += 1
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"what": f"pgx {pgx.__version__} (jax {jax.__version__}, CPU)", "batch": batch,
            "games": games, "steps": steps, "seconds": wall, "cpu_seconds": cpu,
            "games_per_s": games / wall, "games_per_cpu_s": games / cpu}


def child(argv: list[str], core: int | None) -> dict:
    """One measurement in a process of its own, pinned to ``core``: its JSON line."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), **THREADS)

    def pin():
        if core is not None and hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, {core})

    done = subprocess.run([sys.executable, *argv], capture_output=True, text=True, env=env,
                          cwd=ROOT, preexec_fn=pin)
    if done.returncode:
        return {"what": " ".join(argv[:2]), "error": done.stderr.strip()[-500:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m gammon.eval.bench.envs",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch", type=int, default=1024, help="games played at once")
    parser.add_argument("--seconds", type=float, default=30.0, help="time measured, each")
    parser.add_argument("--warmup", type=int, default=300,
                        help="steps of the vector env and of pgx played before the timing")
    parser.add_argument("--core", type=int, default=0, help="the core every process runs on")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-pgx", action="store_true")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.add_argument("--child", choices=("engine", "match", "pgx"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        out = (engine_rate(args.batch, args.seconds, args.seed) if args.child == "engine"
               else match_rate(4000, args.seed) if args.child == "match"
               else pgx_rate(args.batch, args.seconds, args.warmup, args.seed))
        print(json.dumps(out))
        return
    common = ["--batch", str(args.batch), "--seconds", str(args.seconds),
              "--seed", str(args.seed)]
    rows = [child(["-m", "gammon.envs.speed", *common, "--warmup-steps", str(args.warmup)],
                  args.core),
            child(["-m", "gammon.eval.bench.envs", "--child", "engine", *common], args.core),
            child(["-m", "gammon.eval.bench.envs", "--child", "match", *common], args.core)]
    if not args.skip_pgx:
        rows.append(child(["-m", "gammon.eval.bench.envs", "--child", "pgx", *common,
                           "--warmup", str(args.warmup)], args.core))
    report(rows, args.json)


def report(rows: list[dict], as_json: bool) -> None:
    env = rows[0]
    ratios = {}
    for row in rows[1:]:
        if "error" not in row and "error" not in env:
            ratios[row["what"]] = {k: env[k] / row[k] for k in ("games_per_s", "games_per_cpu_s")}
    if as_json:
        print(json.dumps({"rows": rows, "vector env / each": ratios}))
        return
    print(f"{'':40} {'games/s':>9} {'games/CPU s':>12} {'games':>7} {'batch':>6}")
    for row in rows:
        if "error" in row:
            print(f"{row['what']:40} {row['error']}")
            continue
        print(f"{row['what']:40} {row['games_per_s']:9.1f} {row['games_per_cpu_s']:12.1f} "
              f"{row['games']:7d} {row['batch']:6d}")
    for what, r in ratios.items():
        print(f"vector env / {what}: {r['games_per_s']:.2f}x (wall), "
              f"{r['games_per_cpu_s']:.2f}x (CPU)")


if __name__ == "__main__":
    main()
