"""Self-play games/s and network evaluations/s by batch size, on a GPU or on the CPU.

For each batch size (default 512, 1024, 2048, 4096, 8192, 16384):

- **evaluations/s**: the network valuing that many positions of real games in one call
  (``model.policy.NetEvaluator``, bear-off races included), the median of several calls;
- **self-play games/s**: that many games in lock-step (``train.selfplay.SelfPlay``), one
  network call per ply for every afterstate of every game, over ``--seconds`` after a
  warm-up; games/s = positions/s / the mean plies of a game, the positions counted as
  plies x batch (the games in flight count as much as those that end).

``--device cuda`` (the default when torch sees a CUDA device) runs the network there;
without one it runs on the CPU and says so. Prints a table, or JSON (``--json``).

    python -m gammon.train.bench.gpu [--device auto|cpu|cuda] [--batches 512,1024,...]
                             [--hidden 80] [--encoding classic] [--seconds 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import numpy as np

BATCHES = (512, 1024, 2048, 4096, 8192, 16384)


def _device(name: str):
    import torch
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda: torch sees no CUDA device")
    return torch.device(name)


def _sync(device) -> None:
    import torch
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def measure(batch: int, evaluator, device, seconds: float, rng: np.random.Generator) -> dict:
    from gammon.engine.sample import from_random_play
    from gammon.train.selfplay import SelfPlay
    # evaluations: positions of random games, the batch filled by repeating them
    boards, _ = from_random_play(rng, 4)
    boards = boards[rng.integers(0, len(boards), batch)]
    evaluator(boards)
    _sync(device)
    times = []
    for _ in range(5):
        start = time.perf_counter()
        evaluator(boards)
        _sync(device)
        times.append(time.perf_counter() - start)
    evaluations = batch / statistics.median(times)
    # self-play: warm up for a third of the time, then count plies
    play = SelfPlay(batch, rng)
    lengths = []

    def ply():
        finished = play.ply(evaluator.after_play)
        if finished is not None:
            lengths.extend(finished.plies.tolist())

    start = time.perf_counter()
    while time.perf_counter() - start < seconds / 3:
        ply()
    plies, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds or plies < 2:
        ply()
        plies += 1
    elapsed = time.perf_counter() - start
    per_game = float(np.mean(lengths)) if lengths else 57.0  # plies of a game
    positions = plies * batch / elapsed
    return {"batch": batch, "evaluations_per_s": evaluations, "positions_per_s": positions,
            "plies_per_game": per_game, "games_per_s": positions / per_game,
            "games_ended": len(lengths)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gammon.train.bench.gpu", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"],
                        help="where the network runs (default: cuda when torch sees one)")
    parser.add_argument("--batches", default=",".join(map(str, BATCHES)),
                        help="comma-separated batch sizes (default 512 to 16384)")
    parser.add_argument("--hidden", type=int, default=80, help="hidden units (default 80)")
    parser.add_argument("--encoding", default="classic", help="input encoding (default classic)")
    parser.add_argument("--seconds", type=float, default=5.0,
                        help="measured self-play time per batch size (default 5)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        batches = [int(b) for b in args.batches.split(",")]
        if not batches or not all(1 <= b <= 1 << 20 for b in batches):
            raise ValueError
    except ValueError:
        print(f"bench_gpu: --batches must be sizes 1..{1 << 20} separated by commas, got "
              f"{args.batches[:60]!r}", file=sys.stderr)
        return 2
    if not 0.1 <= args.seconds <= 600 or not 1 <= args.hidden <= 4096:
        print("bench_gpu: --seconds 0.1..600, --hidden 1..4096", file=sys.stderr)
        return 2
    import torch

    from gammon.model.encoding import ENCODINGS, width
    from gammon.model.net import ValueNet
    from gammon.model.policy import NetEvaluator
    if args.encoding not in ENCODINGS:
        print(f"bench_gpu: unknown --encoding {args.encoding[:40]!r}; valid: "
              f"{', '.join(ENCODINGS)}", file=sys.stderr)
        return 2
    try:
        device = _device(args.device)
    except ValueError as e:
        print(f"bench_gpu: {e}", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    net = ValueNet(width(args.encoding), (args.hidden,)).to(device).eval()
    evaluator = NetEvaluator(net, args.encoding, "standard", device)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else \
        f"CPU, {torch.get_num_threads()} torch threads"
    if device.type != "cuda":
        print(f"note: no CUDA device in use; measuring on the CPU ({name})", file=sys.stderr)
    rng = np.random.default_rng(1)
    rows = []
    for batch in batches:
        rows.append(measure(batch, evaluator, device, args.seconds, rng))
        if not args.json:
            print(f"batch {batch}: done", file=sys.stderr)
    result = {"device": str(device), "device_name": name, "hidden": args.hidden,
              "encoding": args.encoding, "rows": rows}
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"device: {name}; network {args.encoding} [{args.hidden}]")
    print(f"{'batch':>7} {'evaluations/s':>14} {'self-play positions/s':>22} {'games/s':>9}")
    for r in rows:
        print(f"{r['batch']:>7} {r['evaluations_per_s']:>14,.0f} "
              f"{r['positions_per_s']:>22,.0f} {r['games_per_s']:>9,.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
