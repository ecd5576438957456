"""Benchmark of self-play training: games/s and where the time goes (rules, network,
update, the rest), measured on a short real run of the trainer.

With ``--baseline REV`` it instead runs this benchmark on today's tree and on a copy of
git revision REV (``git archive REV``) in turns, each run a fresh ``python -m gammon.train.bench
--json`` process, ``--rounds`` times (ABBA order), and prints every run's games/s, the median
of each side and the median of the per-round ratios current/baseline.

With ``--encodings A,B`` it instead trains a network of each input encoding (same hidden
size) in turns in this one process, ``--rounds`` times (ABBA order), and prints every run's
games/s, the median of each and the median of the per-round ratios B/A.

    python -m gammon.train.bench [--games 6000] [--hidden 80] [--parallel 512] [--threads 1]
                          [--encoding classic] [--baseline REV | --encodings A,B]
                          [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import gammon.engine.game
import gammon.engine.movegen
from gammon.eval.bench.revision import (BaselineError, extract_revision, in_tree_names,
                                        last_line, resolve_revision)
from gammon.model.policy import NetEvaluator
from gammon.train.config import Config
from gammon.train.trainer import Trainer


REPO_ROOT = Path(__file__).resolve().parents[2]


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
    saved = (gammon.engine.game.legal_plays, NetEvaluator.__call__, Trainer._update)
    gammon.engine.game.legal_plays = watch.wrap("rules", gammon.engine.movegen.legal_plays)
    NetEvaluator.__call__ = watch.wrap("network", saved[1])
    Trainer._update = watch.wrap("update", saved[2])
    try:
        yield
    finally:
        gammon.engine.game.legal_plays, NetEvaluator.__call__, Trainer._update = saved


def measure(games: int, hidden: int, parallel: int, threads: int, seed: int = 1,
            encoding: str = "classic") -> dict:
    """One short training run of ``games`` self-play games: games/s and the time split."""
    config = Config().with_overrides(
        model={"hidden": (hidden,), "encoding": encoding},
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
            "encoding": encoding, "save_seconds": save}


def extract_tree(commit: str, into: Path, root: Path = REPO_ROOT) -> Path:
    """The tree of ``commit`` extracted into the new folder ``into``; it must have the
    self-play benchmark."""
    extract_revision(commit, into, root)
    if not ((into / "train" / "bench.py").is_file()
            or (into / "train" / "bench" / "__main__.py").is_file()):
        raise BaselineError(f"revision {commit[:12]} has no train.bench")
    return into


def _environment(tree: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree)
    return env


def _check_imports(tree: Path) -> None:
    """The packages a run in ``tree`` imports come from ``tree`` (not an installed copy)."""
    probe = in_tree_names("import importlib.util as u\n"
                          "for name in ('gammon.engine', 'gammon.model', 'gammon.train'):\n"
                          "    print(u.find_spec(name).origin)", tree)
    done = subprocess.run([sys.executable, "-c", probe], cwd=tree, env=_environment(tree),
                          capture_output=True, text=True, timeout=120)
    if done.returncode:
        raise BaselineError(f"cannot find the packages of {tree}: {last_line(done.stderr)}")
    for origin in done.stdout.split():
        if not Path(origin).resolve().is_relative_to(tree.resolve()):
            raise BaselineError(f"a run in {tree} would import {origin}")


def run_tree(tree: Path, games: int, hidden: int, parallel: int, threads: int) -> dict:
    """``python -m gammon.train.bench --json`` of the source tree ``tree`` in a fresh process."""
    command = [sys.executable, "-m", in_tree_names("gammon.train.bench", tree), "--json",
               "--games", str(games), "--hidden", str(hidden), "--parallel", str(parallel),
               "--threads", str(threads)]
    done = subprocess.run(command, cwd=tree, env=_environment(tree), capture_output=True,
                          text=True)
    if done.returncode:
        raise RuntimeError(f"train.bench in {tree} exited with {done.returncode}:\n"
                           f"{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def compare_with(commit: str, games: int, hidden: int, parallel: int, threads: int,
                 rounds: int, scratch: Path, report=print) -> dict:
    """Today's tree and ``commit``'s in turns (ABBA...), ``rounds`` runs each."""
    trees = {"current": REPO_ROOT, "baseline": extract_tree(commit, scratch / "baseline")}
    for tree in trees.values():
        _check_imports(tree)
    runs = {"current": [], "baseline": []}
    for r in range(rounds):
        for side in (("current", "baseline") if r % 2 == 0 else ("baseline", "current")):
            result = run_tree(trees[side], games, hidden, parallel, threads)
            runs[side].append(result)
            report(f"  round {r + 1}, {side:<8}: {result['games_per_s']:8.1f} games/s "
                   f"({result['games']} games in {result['seconds']:.1f} s)")
    current = [run["games_per_s"] for run in runs["current"]]
    baseline = [run["games_per_s"] for run in runs["baseline"]]
    ratios = [c / b for c, b in zip(current, baseline)]
    # the two revisions may play games of different lengths from the same seed: positions/s
    # compares the work done regardless
    position_ratios = [(c["games_per_s"] * c["positions_per_game"])
                       / (b["games_per_s"] * b["positions_per_game"])
                       for c, b in zip(runs["current"], runs["baseline"])]
    return {"commit": commit, "games": games, "hidden": hidden, "parallel_games": parallel,
            "threads": threads, "rounds": rounds,
            "current_games_per_s": current, "baseline_games_per_s": baseline,
            "round_ratios": ratios,
            "median_current_games_per_s": statistics.median(current),
            "median_baseline_games_per_s": statistics.median(baseline),
            "median_ratio": statistics.median(ratios),
            "positions_per_game": {side: statistics.median(run["positions_per_game"]
                                                           for run in runs[side])
                                   for side in runs},
            "position_round_ratios": position_ratios,
            "median_position_ratio": statistics.median(position_ratios),
            "current_runs": runs["current"], "baseline_runs": runs["baseline"]}


def compare_encodings(first: str, second: str, games: int, hidden: int, parallel: int,
                      threads: int, rounds: int, report=print) -> dict:
    """Training runs of the two encodings in turns (ABBA...) in this process, ``rounds``
    runs each; the per-round ratios are second / first."""
    runs = {first: [], second: []}
    for r in range(rounds):
        for encoding in ((first, second) if r % 2 == 0 else (second, first)):
            result = measure(games, hidden, parallel, threads, encoding=encoding)
            runs[encoding].append(result)
            report(f"  round {r + 1}, {encoding:<9}: {result['games_per_s']:8.1f} games/s "
                   f"({result['games']} games in {result['seconds']:.1f} s)")
    rates = {e: [run["games_per_s"] for run in runs[e]] for e in runs}
    ratios = [b / a for a, b in zip(rates[first], rates[second])]
    position_ratios = [(b["games_per_s"] * b["positions_per_game"])
                       / (a["games_per_s"] * a["positions_per_game"])
                       for a, b in zip(runs[first], runs[second])]
    return {"encodings": [first, second], "games": games, "hidden": hidden,
            "parallel_games": parallel, "threads": threads, "rounds": rounds,
            "games_per_s": rates, "median_games_per_s": {e: statistics.median(rates[e])
                                                         for e in rates},
            "round_ratios": ratios, "median_ratio": statistics.median(ratios),
            "position_round_ratios": position_ratios,
            "median_position_ratio": statistics.median(position_ratios), "runs": runs}


def _main_encodings(args) -> int:
    names = [name.strip() for name in args.encodings.split(",")]
    first, second = names
    if not args.json:
        print(f"{args.games} self-play training games per run, {args.hidden} hidden units, "
              f"{args.parallel} in lock-step, {args.threads} threads; the {first} and "
              f"{second} encodings in turns, {args.rounds} rounds, one process", flush=True)
    result = compare_encodings(first, second, args.games, args.hidden, args.parallel,
                               args.threads, args.rounds,
                               report=(lambda line: None) if args.json
                               else (lambda line: print(line, flush=True)))
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    rates = result["games_per_s"]
    print(f"{'round':>6}{first + ' games/s':>20}{second + ' games/s':>20}"
          f"{second + '/' + first:>20}")
    for r, (a, b, q) in enumerate(zip(rates[first], rates[second], result["round_ratios"]), 1):
        print(f"{r:>6}{a:>20.1f}{b:>20.1f}{q:>20.3f}")
    medians = result["median_games_per_s"]
    print(f"{'median':>6}{medians[first]:>20.1f}{medians[second]:>20.1f}"
          f"{result['median_ratio']:>20.3f}   (median of the per-round ratios)")
    print(f"positions/s {second}/{first}, median of the rounds: "
          f"{result['median_position_ratio']:.3f}")
    return 0


def _main_baseline(args) -> int:
    with tempfile.TemporaryDirectory(prefix="train_bench_") as scratch:
        try:
            commit = resolve_revision(args.baseline)
            if not args.json:
                print(f"{args.games} self-play training games per run, {args.hidden} hidden "
                      f"units, {args.parallel} in lock-step, {args.threads} threads; today's "
                      f"tree ({REPO_ROOT}) against {args.baseline} = {commit[:12]}, "
                      f"{args.rounds} rounds, each run a fresh process", flush=True)
            result = compare_with(commit, args.games, args.hidden, args.parallel,
                                  args.threads, args.rounds, Path(scratch),
                                  report=(lambda line: None) if args.json
                                  else (lambda line: print(line, flush=True)))
        except BaselineError as error:
            print(f"train.bench: error: --baseline: {error}", file=sys.stderr)
            return 2
    result["revision"] = args.baseline
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"{'round':>6}{'current games/s':>17}{'baseline games/s':>18}{'current/baseline':>18}")
    for r, (c, b, q) in enumerate(zip(result["current_games_per_s"],
                                      result["baseline_games_per_s"],
                                      result["round_ratios"]), 1):
        print(f"{r:>6}{c:>17.1f}{b:>18.1f}{q:>18.3f}")
    print(f"{'median':>6}{result['median_current_games_per_s']:>17.1f}"
          f"{result['median_baseline_games_per_s']:>18.1f}{result['median_ratio']:>18.3f}"
          f"   (median of the per-round ratios)")
    per_game = result["positions_per_game"]
    print(f"positions per game: current {per_game['current']:.2f}, baseline "
          f"{per_game['baseline']:.2f}; positions/s current/baseline, median of the rounds: "
          f"{result['median_position_ratio']:.3f}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=6000,
                        help="self-play games to train on (default 6000)")
    parser.add_argument("--hidden", type=int, default=80,
                        help="hidden units of the network (default 80)")
    parser.add_argument("--parallel", type=int, default=512,
                        help="games played in lock-step (default 512)")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads (default 1, as training's default)")
    parser.add_argument("--encoding", default="classic",
                        help="the network's input encoding (default classic)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--baseline", metavar="REV",
                        help="instead compare today's tree with this git revision (a commit, "
                             "tag or branch of this repository), fresh process per run")
    parser.add_argument("--encodings", metavar="A,B",
                        help="instead compare two input encodings at the same hidden size, "
                             "in turns in this process (e.g. classic,advanced)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="with --baseline or --encodings: runs of each side, taken in "
                             "turns (default 3)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    from gammon.model.encoding import ENCODINGS
    names = [args.encoding] if args.encodings is None else args.encodings.split(",")
    if args.encodings is not None and len(names) != 2:
        parser.error("--encodings takes two names separated by a comma, e.g. classic,advanced")
    for name in names:
        if name.strip() not in ENCODINGS:
            parser.error(f"unknown encoding {name.strip()!r}; valid: {', '.join(ENCODINGS)}")
    if args.baseline is not None and args.encodings is not None:
        parser.error("--baseline and --encodings are two different comparisons; pick one")
    if args.baseline is not None:
        return _main_baseline(args)
    if args.encodings is not None:
        return _main_encodings(args)
    result = measure(args.games, args.hidden, args.parallel, args.threads,
                     encoding=args.encoding)
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"{result['games']} self-play training games, {args.encoding} encoding, "
          f"{args.hidden} hidden units, {args.parallel} in lock-step, {args.threads} threads")
    print(f"  {result['games_per_s']:.0f} games/s ({result['seconds']:.1f} s, "
          f"{result['positions_per_game']:.1f} positions per game)")
    for label in ("rules", "network", "update", "other"):
        print(f"  {label:<8} {result['split'].get(label, 0):6.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
