"""Benchmark of rollouts and of what they spend their time on, today's code against an older
git revision's, side by side on one machine.

    python -m gammon.eval.bench.rollouts [--baseline REV] [--rounds 3] [--trials 1296] [--vr]
                                  [--positions 3] [--batch 64] [--batch-trials 144]
                                  [--parts rollout,batch,features,evaluator] [--json]

Each tree (today's working tree, and with ``--baseline REV`` that revision's, extracted by
``git archive``) runs in a worker process of its own that stays up for the whole run (its
imports, nets and bear-off database loaded once, torch on one thread, ``OMP_NUM_THREADS=1``);
the two take turns, ABBA order over ``--rounds`` rounds, so that a noisy machine slows both
alike. Each turn times

- ``rollout``: the positions of ``eval.gnubg.rollouts``' committed set that its ``--speed``
  uses (one per phase: contact, crashed, race), rolled out one call per position with
  ``--trials`` (plain, or with ``--vr``), the shipped net at 0-ply: seconds per position
  and in all;
- ``batch``: ``--batch`` positions of self-play (``eval.reports.rollout_check``'s, as its
  ``batch`` part draws them) rolled out in one call with ``--batch-trials`` each, on one
  dice stream: seconds in all;
- ``features``: ``model.features.feature_rows`` of ``--boards`` boards of self-play
  (afterstates of every phase, each seen from both sides), ns a board;
- ``evaluator``: the shipped net's evaluator (``NetEvaluator``, inside
  ``model.rows.batch_independent`` as in a rollout) on the same boards, ns a board.

Every turn also prints a digest (SHA-256) of what it computed: equal digests of the two trees
mean the same numbers bit for bit (the trials' outcomes and plies, the features' floats, the
probabilities). The report gives each tree's median time per part and the ratio
baseline/current (above 1: today's is faster). Without ``--baseline`` today's tree alone is
timed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from gammon.eval.bench.revision import (BaselineError, extract_revision, in_tree_names,
                                        resolve_revision)

REPO_ROOT = Path(__file__).resolve().parents[2]
PARTS = ("rollout", "batch", "features", "evaluator")

# The worker: plain code both trees can run (only what every revision with rollouts has).
# It reads one JSON job a line and answers one JSON line: {"seconds": ..., "digest": ...}.
WORKER = r'''
import hashlib, json, sys, time
import numpy as np
import torch
torch.set_num_threads(1)
from gammon.engine.formats.posid import decode
from gammon.eval.bots.registry import make_bot
from gammon.eval.analysis.rollouts import Settings, rollout
from gammon.eval.gnubg.rollouts import load, speed_positions
from gammon.model.features import feature_rows
from gammon.model.rows import batch_independent
from gammon.engine.board import flip

bot = make_bot("net:")
cache = {}

def boards_of(job):
    if "boards" not in cache:
        from gammon.engine.game import play
        seen = []
        play((bot, bot), max(64, job["boards"] // 40), np.random.default_rng(job["seed"]),
             on_position=lambda b, d: seen.append(b.copy()))
        b = np.concatenate(seen)
        b = b[(b > 0).any(axis=1) & (b < 0).any(axis=1)]
        b = np.concatenate([b, flip(b)])
        cache["boards"] = b[np.random.default_rng(job["seed"]).permutation(len(b))][:job["boards"]]
    return cache["boards"]

def digest(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]

print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    job = json.loads(line)
    if job["part"] == "rollout":
        _, rows = load()
        rows = speed_positions(rows, job["positions"])
        seconds, parts = [], []
        for r in rows:
            board = decode(r["posid"])[None]
            start = time.perf_counter()
            res = rollout(bot, board, Settings(trials=job["trials"], seed=job["seed"],
                                               vr=job["vr"]))[0]
            seconds.append(time.perf_counter() - start)
            parts += [res.outcomes, res.plies]
        out = {"seconds": sum(seconds), "each": seconds,
               "phases": [r["phase"] for r in rows], "digest": digest(*parts)}
    elif job["part"] == "batch":
        if "batch" not in cache:
            from gammon.eval.reports.rollout_check import play_positions
            cache["batch"] = play_positions(bot, 2 * job["batch"], job["seed"])[:job["batch"]]
        boards = cache["batch"]
        start = time.perf_counter()
        res = rollout(bot, boards, Settings(trials=job["batch_trials"], seed=job["seed"],
                                            vr=job["vr"]),
                      keys=np.zeros(len(boards), dtype=np.int64))
        out = {"seconds": time.perf_counter() - start,
               "digest": digest(*[r.outcomes for r in res], *[r.plies for r in res])}
    else:
        b = boards_of(job)
        if job["part"] == "features":
            run = lambda: feature_rows(b)
        else:
            def run():
                with batch_independent():
                    return bot.evaluator(b)
        run()
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            value = run()
            best = min(best, time.perf_counter() - start)
        out = {"seconds": best, "ns_per_board": 1e9 * best / len(b), "boards": len(b),
               "digest": digest(value)}
    print(json.dumps(out), flush=True)
'''


class Worker:
    """A worker process running ``WORKER`` in the tree at ``root``."""

    def __init__(self, root: Path, label: str):
        env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(root))
        self.label = label
        self.process = subprocess.Popen([sys.executable, "-c", in_tree_names(WORKER, root)],
                                        cwd=root, env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True)
        self._answer()

    def _answer(self) -> dict:
        line = self.process.stdout.readline()
        if not line:
            raise BaselineError(f"the {self.label} worker stopped (its error is above)")
        return json.loads(line)

    def run(self, job: dict) -> dict:
        self.process.stdin.write(json.dumps(job) + "\n")
        self.process.stdin.flush()
        return self._answer()

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)


def turns(workers: list[Worker], jobs: list[dict], rounds: int, log) -> dict:
    """Every job on every worker, ABBA order per round: {label: {part: [answers]}}."""
    out = {w.label: {j["part"]: [] for j in jobs} for w in workers}
    for r in range(rounds):
        order = workers if r % 2 == 0 else workers[::-1]
        for job in jobs:
            for w in (order + order[::-1]) if len(order) > 1 else order:
                answer = w.run(job)
                out[w.label][job["part"]].append(answer)
                log(f"round {r + 1} {job['part']:9} {w.label:8} {answer['seconds']:.3f} s "
                    f"digest {answer['digest']}")
    return out


def summary(results: dict) -> dict:
    """Median seconds per part and tree, the ratio baseline/current, equal digests."""
    labels = list(results)
    report = {}
    for part in results[labels[0]]:
        row = {}
        for label in labels:
            answers = results[label][part]
            row[label] = {"median_seconds": statistics.median(a["seconds"] for a in answers),
                          "seconds": [round(a["seconds"], 4) for a in answers],
                          "digest": answers[0]["digest"]}
            if part == "rollout":
                row[label]["median_each"] = [statistics.median(e) for e in
                                             zip(*(a["each"] for a in answers))]
                row["phases"] = answers[0]["phases"]
            elif part != "batch":
                row[label]["median_ns_per_board"] = statistics.median(
                    a["ns_per_board"] for a in answers)
        if len(labels) == 2:
            cur, base = (row[x]["median_seconds"] for x in labels)
            row["baseline_over_current"] = base / cur
            row["same_numbers"] = row[labels[0]]["digest"] == row[labels[1]]["digest"]
        report[part] = row
    return report


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m gammon.eval.bench.rollouts", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--baseline", metavar="REV", help="an older revision to time beside today's")
    p.add_argument("--rounds", type=int, default=3, help="rounds of turns (default 3)")
    p.add_argument("--trials", type=int, default=1296, help="rollout trials (default 1296)")
    p.add_argument("--vr", action="store_true", help="rollouts with variance reduction")
    p.add_argument("--positions", type=int, default=3,
                   help="rollout positions, one per phase in turn (default 3)")
    p.add_argument("--batch", type=int, default=64,
                   help="batch: positions rolled out at once (default 64)")
    p.add_argument("--batch-trials", type=int, default=144,
                   help="batch: trials of each (default 144)")
    p.add_argument("--boards", type=int, default=50_000,
                   help="boards for the features and the evaluator (default 50000)")
    p.add_argument("--parts", default=",".join(PARTS),
                   help=f"what to time, comma-separated (default {','.join(PARTS)})")
    p.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    args = p.parse_args(argv)
    parts = [x for x in args.parts.split(",") if x]
    bad = [x for x in parts if x not in PARTS]
    if bad or not parts:
        print(f"eval.bench.rollouts: error: --parts are among {', '.join(PARTS)}, got "
              f"{args.parts!r}", file=sys.stderr)
        return 2
    if min(args.rounds, args.trials, args.positions, args.boards, args.batch,
           args.batch_trials) < 1:
        print("eval.bench.rollouts: error: --rounds, --trials, --positions, --batch, "
              "--batch-trials and --boards are whole numbers >= 1", file=sys.stderr)
        return 2
    jobs = [{"part": x, "trials": args.trials, "vr": args.vr, "positions": args.positions,
             "boards": args.boards, "batch": args.batch, "batch_trials": args.batch_trials,
             "seed": args.seed} for x in parts]

    def log(text):
        print(text, file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="gammon-bench-") as scratch:
        workers = []
        try:
            commit = None
            if args.baseline is not None:
                commit = resolve_revision(args.baseline)
                tree = extract_revision(commit, Path(scratch) / "baseline")
            workers.append(Worker(REPO_ROOT, "current"))
            if commit is not None:
                workers.append(Worker(tree, "baseline"))
            results = turns(workers, jobs, args.rounds, log)
        except BaselineError as error:
            print(f"eval.bench.rollouts: error: {error}", file=sys.stderr)
            return 2
        finally:
            for w in workers:
                w.close()
    report = {"baseline": args.baseline and {"revision": args.baseline, "commit": commit},
              "trials": args.trials, "vr": args.vr, "rounds": args.rounds,
              "boards": args.boards, "parts": summary(results)}
    if args.json:
        print(json.dumps(report))
        return 0
    for part, row in report["parts"].items():
        line = f"{part:9}"
        for label in ("current", "baseline"):
            if label in row:
                r = row[label]
                line += (f"  {label} {r['median_seconds']:.3f} s" if part in ("rollout", "batch")
                         else f"  {label} {r['median_ns_per_board']:.0f} ns/board")
        if "baseline_over_current" in row:
            line += (f"  baseline/current {row['baseline_over_current']:.2f}  same numbers: "
                     f"{'yes' if row['same_numbers'] else 'NO'}")
        print(line)
        if part == "rollout":
            for label in ("current", "baseline"):
                if label in row:
                    each = ", ".join(f"{ph} {s:.3f} s" for ph, s in
                                     zip(row["phases"], row[label]["median_each"]))
                    print(f"{'':9}  {label}: {each}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
