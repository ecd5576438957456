"""Benchmark of legal-play generation: the vectorised generator at several batch sizes, the
scalar reference, and GNU Backgammon's C generator (PyPI ``gnubg-nn``) when installed, all
in one process on the same positions from random play. Prints a table (or JSON).

    python -m eval.bench_movegen [--seconds 2] [--games 200] [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, as the targets are stated

import numpy as np  # noqa: E402

from engine import reference
from engine.formats import posid  # noqa: E402
from engine.movegen import legal_plays  # noqa: E402
from engine.sample import from_random_play  # noqa: E402

BATCHES = (1, 64, 1024, 8192)


def _timed(run_chunk, total: int, seconds: float) -> tuple[int, int, float]:
    """Call run_chunk(i) -> (positions, afterstates) on successive chunks for ``seconds``.

    Returns (positions, afterstates, elapsed).
    """
    positions = afterstates = 0
    i = 0
    start = time.perf_counter()
    while True:
        p, a = run_chunk(i % total)
        positions += p
        afterstates += a
        i += p
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return positions, afterstates, elapsed


def bench_vectorised(boards, dice, batch: int, seconds: float) -> dict:
    if len(boards) < batch:  # too few positions for one batch: repeat them
        copies = -(-batch // len(boards))
        boards, dice = np.tile(boards, (copies, 1)), np.tile(dice, (copies, 1))
    n = len(boards) - len(boards) % batch

    def chunk(i):
        i -= i % batch
        if i + batch > n:
            i = 0
        plays = legal_plays(boards[i:i + batch], dice[i:i + batch])
        return batch, len(plays)

    legal_plays(boards[:batch], dice[:batch])  # warm up
    p, a, t = _timed(chunk, n, seconds)
    return {"name": f"vectorised, batch {batch}", "positions_per_s": p / t,
            "afterstates_per_s": a / t, "us_per_position": 1e6 * t / p}


def bench_reference(boards, dice, seconds: float) -> dict:
    def chunk(i):
        found = reference.legal_results(boards[i], int(dice[i, 0]), int(dice[i, 1]))
        return 1, len(found)

    p, a, t = _timed(chunk, len(boards), seconds)
    return {"name": "scalar reference", "positions_per_s": p / t,
            "afterstates_per_s": a / t, "us_per_position": 1e6 * t / p}


def bench_gnubg(boards, dice, seconds: float) -> dict | None:
    try:
        import gnubg_nn
    except ImportError:
        return None
    ids = posid.encode_many(boards)
    gboards = [gnubg_nn.board_from_position_id(text) for text in ids]  # outside the timing

    def chunk(i):
        return 1, len(gnubg_nn.moves(gboards[i], int(dice[i, 0]), int(dice[i, 1])))

    p, a, t = _timed(chunk, len(boards), seconds)
    return {"name": "gnubg-nn moves() (C)", "positions_per_s": p / t,
            "afterstates_per_s": a / t, "us_per_position": 1e6 * t / p}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per row (default 2)")
    parser.add_argument("--games", type=int, default=200,
                        help="random games to draw positions from (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random games")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    boards, dice = from_random_play(rng, args.games)
    order = rng.permutation(len(boards))  # mix early and late game in every batch
    boards, dice = boards[order], dice[order]

    rows = [bench_reference(boards, dice, args.seconds)]
    rows += [bench_vectorised(boards, dice, b, args.seconds) for b in BATCHES]
    gnubg = bench_gnubg(boards, dice, args.seconds)
    if gnubg:
        rows.append(gnubg)
    base = rows[0]["positions_per_s"]
    for row in rows:
        row["x_reference"] = row["positions_per_s"] / base

    if args.json:
        print(json.dumps({"positions": len(boards), "rows": rows}, indent=1))
        return 0
    print(f"{len(boards)} positions from {args.games} random games (seed {args.seed}), "
          f"{args.seconds:g} s per row, one thread")
    print(f"{'generator':<26}{'positions/s':>14}{'afterstates/s':>16}{'us/position':>14}"
          f"{'x reference':>13}")
    for row in rows:
        print(f"{row['name']:<26}{row['positions_per_s']:>14,.0f}"
              f"{row['afterstates_per_s']:>16,.0f}{row['us_per_position']:>14.1f}"
              f"{row['x_reference']:>13.1f}")
    if not gnubg:
        print("(install gnubg-nn for GNU Backgammon's generator as a reference column)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
