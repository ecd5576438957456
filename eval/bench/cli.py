"""Benchmark of the ``gammon`` command line against an older git revision: whole processes,
as a user runs them, today's tree and a copy of revision REV taking turns.

Both sides run from copies in a temporary folder, made at the start: revision REV by ``git
archive``, today's tree from its working tree as it is then (tracked and untracked files
that git does not ignore, edits not committed included), each compiled to bytecode
beforehand (so that neither pays for compiling in its runs, even where the environment sets
PYTHONDONTWRITEBYTECODE, nor sees edits made while the benchmark runs).

    python -m gammon.eval.bench.cli --baseline REV [--rounds 3] [--positions 1000] [--requests 200]
                             [--http-bot pubeval] [--threads 1] [--seed 1] [--quick] [--json]
                             [--workloads serve_http,...]

Three workloads, each run as a fresh ``gammon`` process of the tree being timed (``python -c
"from gammon.cli import entry; entry()" ...`` with the tree as working directory and
PYTHONPATH, so that it imports that tree's code and not the installed one; checked once per
tree before the rounds, every gammon/engine/model/eval/train module it loads being read from
inside the tree):

  choose --batch   ``gammon choose --batch`` answering --positions (1,000) 'POSID D1 D2'
                   lines on stdin: positions met in random games (seeded, ``--seed``) with the
                   roll met there; the whole process is timed.
  hint             ``gammon hint 4HPwATDgc/ABMA 3 1``: the default bot (the shipped network)
                   ranking one position's plays; the whole process.
  serve-http       the load of tests/test_servers.py::test_http_200_concurrent_requests_p99_
                   under_a_second: ``gammon serve-http --port 0 --bot pubeval`` (the test's
                   bot) started and its port read from its stderr, then --requests (200)
                   clients connecting together (threads released by one barrier, http.client,
                   127.0.0.1), each sending one ``GET /move?posid=4HPwATDgc/ABMA&dice=i%6+1,1``
                   and reading the whole answer; timed from the first request to the last
                   answer (the server's start-up and stop outside the timing).

A fourth, ``gammon moves 4HPwATDgc/ABMA 3 1`` on one position, is the cost of starting a
process at all; it is timed too and subtracted from choose and hint in the rows
"... less start-up" (the same round and side). ``--workloads`` picks some of them (e.g.
``--workloads serve_http``: the HTTP servers' latencies alone, each round's p50, p99 and
slowest answer of both trees printed); the rows "... less start-up" need their two.

Every round runs each workload once on each side, the order of the sides reversed every
other round (ABBA...), the two runs of a workload back to back, so that a slow spell of a
noisy machine falls on both. Printed: every measurement, the median of each side and the
median of the per-round ratios current/baseline *time* (above 1: today's tree is slower;
1.10 = 10% slower). The CPU seconds of each process (user + system) are reported beside the
wall time.

Every process runs with OMP_NUM_THREADS=1 (and MKL's, OpenBLAS's) unless --threads says
otherwise (0: the environment's). torch's default pool of one thread per core makes a stream
of one-position forward passes slow and erratic on a busy machine: on the 2-core development
machine with other jobs running, choose --batch on 1,000 positions took 12 to 43 s with the
default pool (per-round ratios 0.77 to 2.96) and 5.1 to 5.7 s with one thread (ratios 1.00
to 1.08).
"""

from __future__ import annotations

import argparse
import compileall
import http.client
import json
import os
import queue
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from gammon.eval.bench.revision import (REPO_ROOT, BaselineError, extract_revision, git, last_line,
                                 resolve_revision)
PROG = "bench_cli"
CLI = "from gammon.cli import entry; entry()"
START = "4HPwATDgc/ABMA"
HINT = (START, 3, 1)
PACKAGES = ("gammon", "engine", "model", "eval", "train")
WORKLOADS = ("startup", "choose_batch", "hint", "serve_http")
DERIVED = {"choose_batch_less_startup": "choose_batch", "hint_less_startup": "hint"}
RUN_TIMEOUT = 900  # seconds for one process (1,000 positions take ~30 s on a busy 2-core box)
SERVER_START_TIMEOUT = 120
TOLERANCE = 0.10  # "within 10% of before"

# Asks a tree's gammon which files it imports (run with the tree as cwd and PYTHONPATH).
PROBE = """
import json, sys
import gammon.cli, gammon.http_api
print(json.dumps({"cli": gammon.cli.__file__,
                  "modules": {name: getattr(module, "__file__", None)
                              for name, module in sorted(sys.modules.items())
                              if name.split(".")[0] in %r}}))
""" % (PACKAGES,)


class RunError(Exception):
    """A tree's gammon failed or answered wrongly during the benchmark (a one-line reason)."""


# --- the trees -----------------------------------------------------------------------------

def extract_tree(commit: str, into: Path, root: Path = REPO_ROOT) -> Path:
    """The tree of ``commit`` extracted into the new folder ``into``, its modules compiled
    (as today's snapshot: ``snapshot_worktree``)."""
    extract_revision(commit, into, root)
    if not (into / "gammon" / "cli.py").is_file():
        raise BaselineError(f"revision {commit[:12]} has no gammon/cli.py")
    _compile(into)
    return into


def snapshot_worktree(into: Path, root: Path = REPO_ROOT) -> Path:
    """A copy of today's working tree at ``root`` (the files git tracks, as they are now, and
    the untracked ones it does not ignore) in the new folder ``into``, compiled as the
    baseline's copy is: both sides then load their bytecode alike (an interpreter that writes
    none, PYTHONDONTWRITEBYTECODE, would otherwise compile today's tree from source in every
    process and the baseline's not), and edits made while the benchmark runs do not reach
    it."""
    listed = git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"], root)
    if listed.returncode:
        raise BaselineError(f"git ls-files in {root} failed: {last_line(listed.stderr)}")
    into.mkdir()
    for name in sorted(set(listed.stdout.decode(errors="surrogateescape").split("\0"))):
        source = root / name
        if not name or not source.is_file():  # deleted in the working tree, or a submodule
            continue
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    _compile(into)
    return into


def _compile(tree: Path) -> None:
    for package in PACKAGES:
        if (tree / package).is_dir():
            compileall.compile_dir(tree / package, quiet=2)


def environment(tree: Path, threads: int | None) -> dict:
    """The environment of a process of ``tree``: its code first on the path; with
    ``threads``, torch's and BLAS's thread pools that size."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree)
    if threads:
        for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            env[name] = str(threads)
    return env


def check_imports(tree: Path, env: dict) -> dict:
    """The files a gammon process of ``tree`` imports, all checked to lie inside ``tree``:
    {"cli": gammon.cli's __file__, "modules": how many of PACKAGES' modules it loaded}."""
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    if done.returncode:
        raise BaselineError(f"cannot import gammon.cli in {tree}: {last_line(done.stderr)}")
    found = json.loads(done.stdout.strip().splitlines()[-1])
    root = tree.resolve()
    for name, origin in found["modules"].items():
        if origin and not Path(origin).resolve().is_relative_to(root):
            raise BaselineError(f"a gammon process in {tree} imports {name} from {origin}")
    return {"cli": found["cli"], "modules": len(found["modules"])}


# --- the positions -------------------------------------------------------------------------

def batch_lines(count: int, seed: int) -> list[str]:
    """``count`` 'POSID D1 D2' lines: positions met in seeded random games, each with the
    roll met there, in a seeded random order (not game by game)."""
    import numpy as np

    from gammon.engine.formats import position
    from gammon.engine.sample import from_random_play

    rng = np.random.default_rng(seed)
    games = max(2, count // 40 + 2)
    while True:
        boards, dice = from_random_play(rng, games)
        if len(boards) >= count:
            break
        games *= 2
    chosen = rng.permutation(len(boards))[:count]
    ids = position.write_many(boards[chosen], "standard")
    return [f"{posid} {int(d[0])} {int(d[1])}" for posid, d in zip(ids, dice[chosen])]


# --- one measurement ----------------------------------------------------------------------

def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_gammon(tree: Path, env: dict, args: list[str], stdin: str | None = None
               ) -> tuple[float, float, str]:
    """One ``gammon ARGS`` process of ``tree``: (wall seconds, CPU seconds, stdout)."""
    cpu = _children_cpu()
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-c", CLI, *args], cwd=tree, env=env,
                              input=stdin if stdin is not None else "",
                              capture_output=True, text=True, timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise RunError(f"gammon {args[0]} in {tree} took over {RUN_TIMEOUT} s") from None
    wall = time.perf_counter() - start
    cpu = _children_cpu() - cpu
    if done.returncode:
        raise RunError(f"gammon {' '.join(args)} in {tree} exited with {done.returncode}: "
                       f"{last_line(done.stderr)}")
    return wall, cpu, done.stdout


def time_choose(tree: Path, env: dict, lines: list[str]) -> dict:
    wall, cpu, out = run_gammon(tree, env, ["choose", "--batch"], "".join(f"{line}\n"
                                                                          for line in lines))
    answers = out.split("\n")[:-1] if out.endswith("\n") else out.split("\n")
    if len(answers) != len(lines):
        raise RunError(f"gammon choose --batch in {tree} answered {len(answers)} lines "
                       f"to {len(lines)}")
    errors = [a for a in answers if a.startswith("error:")]
    if errors:
        raise RunError(f"gammon choose --batch in {tree} refused {len(errors)} of "
                       f"{len(lines)} lines, e.g. {errors[0]!r}")
    return {"seconds": wall, "cpu_seconds": cpu, "output": answers}


def time_command(tree: Path, env: dict, args: list[str]) -> dict:
    wall, cpu, out = run_gammon(tree, env, args)
    if not out.strip():
        raise RunError(f"gammon {' '.join(args)} in {tree} printed nothing")
    return {"seconds": wall, "cpu_seconds": cpu, "output": out}


def _client(port: int, path: str, barrier: threading.Barrier, slot: list) -> None:
    """One client of the load: wait for the others, connect, GET ``path``, read it all."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        barrier.wait(timeout=60)
        start = time.perf_counter()
        conn.request("GET", path, headers={"Connection": "close"})  # connects here
        reply = conn.getresponse()
        body = reply.read()
        slot[:] = [reply.status, start, time.perf_counter(), body]
    except Exception as error:  # noqa: BLE001 - counted and reported as a failed request
        slot[:] = [None, None, None, f"{type(error).__name__}: {error}"]
    finally:
        conn.close()


def http_load(port: int, count: int) -> dict:
    """``count`` clients at once, as test_http_200_concurrent_requests_p99_under_a_second:
    (each its own thread and connection) ``/move?posid=START&dice={i % 6 + 1},1``."""
    barrier = threading.Barrier(count)
    slots = [[] for _ in range(count)]
    threads = [threading.Thread(target=_client, daemon=True,
                                args=(port, f"/move?posid={START}&dice={i % 6 + 1},1",
                                      barrier, slots[i]))
               for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    failed = [s for s in slots if not s or s[0] != 200]
    if failed:
        first = failed[0]
        why = "no answer" if not first else (first[3] if first[0] is None
                                              else f"status {first[0]}")
        raise RunError(f"{len(failed)} of {count} requests to serve-http failed ({why})")
    latencies = sorted(s[2] - s[1] for s in slots)
    return {"seconds": max(s[2] for s in slots) - min(s[1] for s in slots),
            "p50_seconds": latencies[len(latencies) // 2],
            "p99_seconds": latencies[max(0, int(0.99 * len(latencies)) - 1)],
            "max_seconds": latencies[-1],
            "output": {f"{i % 6 + 1},1": slots[i][3].decode(errors="replace")
                       for i in range(min(count, 6))}}


def time_serve_http(tree: Path, env: dict, requests: int, bot: str) -> dict:
    """serve-http of ``tree`` started (its port read from its stderr), loaded with
    ``requests`` concurrent requests (timed), then stopped with SIGTERM."""
    server = subprocess.Popen([sys.executable, "-c", CLI, "serve-http", "--port", "0",
                               "--bot", bot], cwd=tree, env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue = queue.Queue()
    said: list[str] = []

    def drain():  # keep reading so that a chatty server never blocks on a full pipe
        for line in server.stderr:
            said.append(line)
            lines.put(line)
        lines.put(None)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        port, deadline = None, time.monotonic() + SERVER_START_TIMEOUT
        while port is None:
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise RunError(f"serve-http in {tree} said no port within "
                               f"{SERVER_START_TIMEOUT} s") from None
            if line is None:
                server.wait(timeout=10)
                raise RunError(f"serve-http in {tree} exited with {server.returncode} before "
                               f"serving: {last_line(''.join(said))}")
            found = re.search(r"http://[^\s:/]+:(\d+)", line)
            if found:
                port = int(found.group(1))
        result = http_load(port, requests)
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        reader.join(timeout=5)
    result["cpu_seconds"] = None  # the server's start-up would be in it
    return result


# --- the rounds ------------------------------------------------------------------------------

LABELS = {"startup": "moves, one position (start-up)", "choose_batch": "choose --batch",
          "hint": "hint, one position", "serve_http": "serve-http, concurrent requests",
          "choose_batch_less_startup": "choose --batch less start-up",
          "hint_less_startup": "hint less start-up"}


def _median(values: list) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _summary(current: list[float], baseline: list[float]) -> dict:
    ratios = [c / b if b > 0 else None for c, b in zip(current, baseline)]
    return {"current_seconds": current, "baseline_seconds": baseline, "round_ratios": ratios,
            "median_current_seconds": _median(current),
            "median_baseline_seconds": _median(baseline),
            "median_ratio": _median(ratios)}


def compare_with(commit: str, scratch: Path, rounds: int, positions: int, requests: int,
                 http_bot: str, threads: int | None, seed: int, report=print,
                 warmup: bool = True, workloads: tuple[str, ...] = WORKLOADS) -> dict:
    """Today's tree and ``commit``'s in turns (ABBA...), every workload ``rounds`` times
    on each side (after one untimed ``hint`` on each when ``warmup``); the per-round ratios
    are current/baseline time."""
    trees = {"current": snapshot_worktree(scratch / "current"),
             "baseline": extract_tree(commit, scratch / "baseline")}
    envs = {side: environment(tree, threads) for side, tree in trees.items()}
    imports = {}
    for side, tree in trees.items():
        imports[side] = check_imports(tree, envs[side])
        report(f"  {side:<8}: gammon.cli from {imports[side]['cli']} "
               f"({imports[side]['modules']} modules of {'/'.join(PACKAGES)}, all in the tree)")
    lines = batch_lines(positions, seed)
    hint_args = ["hint", *map(str, HINT)]
    jobs = {"startup": lambda side: time_command(trees[side], envs[side],
                                                 ["moves", *map(str, HINT)]),
            "choose_batch": lambda side: time_choose(trees[side], envs[side], lines),
            "hint": lambda side: time_command(trees[side], envs[side], hint_args),
            "serve_http": lambda side: time_serve_http(trees[side], envs[side], requests,
                                                       http_bot)}
    for side in trees if warmup else ():  # the disk cache, torch's first load: untimed
        jobs["hint"](side)
    chosen = tuple(w for w in WORKLOADS if w in workloads)
    runs = {w: {"current": [], "baseline": []} for w in chosen}
    outputs = {w: {} for w in chosen}
    wall = time.perf_counter()
    for r in range(rounds):
        order = ("current", "baseline") if r % 2 == 0 else ("baseline", "current")
        for workload in chosen:
            for side in order:
                result = jobs[workload](side)
                outputs[workload].setdefault(side, result.pop("output"))
                runs[workload][side].append(result)
                extra = ""
                if result.get("cpu_seconds") is not None:
                    extra = f", CPU {result['cpu_seconds']:.3f} s"
                if "p99_seconds" in result:
                    extra = (f", p50 {result['p50_seconds']:.3f} s, "
                             f"p99 {result['p99_seconds']:.3f} s, "
                             f"max {result['max_seconds']:.3f} s")
                report(f"  round {r + 1}, {workload:<12} {side:<8}: "
                       f"{result['seconds']:8.3f} s{extra}")
    wall = time.perf_counter() - wall
    workloads = {}
    for workload in chosen:
        sides = runs[workload]
        entry = _summary([x["seconds"] for x in sides["current"]],
                         [x["seconds"] for x in sides["baseline"]])
        cpu = {side: [x.get("cpu_seconds") for x in sides[side]] for side in sides}
        if all(v is not None for v in cpu["current"] + cpu["baseline"]):
            entry["cpu"] = _summary(cpu["current"], cpu["baseline"])
        if workload == "serve_http":
            for key in ("p50_seconds", "p99_seconds", "max_seconds"):
                entry[key] = {side: [x[key] for x in sides[side]] for side in sides}
        workloads[workload] = entry
    for name, of in DERIVED.items():
        if of not in workloads or "startup" not in workloads:
            continue
        workloads[name] = _summary(
            [a - s for a, s in zip(workloads[of]["current_seconds"],
                                   workloads["startup"]["current_seconds"])],
            [a - s for a, s in zip(workloads[of]["baseline_seconds"],
                                   workloads["startup"]["baseline_seconds"])])
    notes = []
    for w in chosen:
        new, old = outputs[w].get("current"), outputs[w].get("baseline")
        if new == old:
            continue
        if w == "choose_batch":
            differ = [i for i, (a, b) in enumerate(zip(new, old)) if a != b]
            notes.append(f"{LABELS[w]}: the trees choose differently in {len(differ)} of "
                         f"{len(new)} positions, e.g. {lines[differ[0]]!r}: "
                         f"{new[differ[0]] or '(no play)'} today, "
                         f"{old[differ[0]] or '(no play)'} at the baseline")
        else:
            notes.append(f"{LABELS[w]}: the two trees' output differs")
    return {"commit": commit, "rounds": rounds, "order": "ABBA", "positions": positions,
            "requests": requests, "http_bot": http_bot, "threads": threads, "seed": seed,
            "hint": " ".join(map(str, HINT)), "warmup": warmup,
            "ratio": "current/baseline time (seconds): above 1 means today's tree is slower",
            "source": str(REPO_ROOT), "trees": {side: str(tree) for side, tree in trees.items()},
            "imports": imports,
            "workloads": workloads, "notes": notes, "rounds_wall_seconds": wall}


# --- output ---------------------------------------------------------------------------------

def _number(value, width: int, digits: int = 3) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}.{digits}f}"


def _verdict(ratio: float | None) -> str:
    if ratio is None:
        return "-"
    if abs(ratio - 1) <= TOLERANCE:
        return f"within {TOLERANCE:.0%}"
    return f"{'slower' if ratio > 1 else 'faster'} by over {TOLERANCE:.0%}"


def print_text(result: dict) -> None:
    print("seconds per run, lower is faster; ratio = current/baseline time: above 1 = today's "
          "tree slower (1.10 = 10% slower)")
    sizes = {"choose_batch": f"{result['positions']} positions",
             "serve_http": f"{result['requests']} requests, --bot {result['http_bot']}",
             "hint": result["hint"], "startup": result["hint"]}
    for name, entry in result["workloads"].items():
        size = sizes.get(name, sizes.get(DERIVED.get(name), ""))
        print(f"\n{LABELS[name]} ({size})")
        print(f"{'round':>8}{'current s':>12}{'baseline s':>12}{'current/baseline':>18}"
              + (f"{'CPU cur/base':>14}" if "cpu" in entry else ""))
        rows = zip(entry["current_seconds"], entry["baseline_seconds"], entry["round_ratios"],
                   entry["cpu"]["round_ratios"] if "cpu" in entry else
                   [None] * len(entry["round_ratios"]))
        for r, (c, b, q, cq) in enumerate(rows, 1):
            print(f"{r:>8}{_number(c, 12)}{_number(b, 12)}{_number(q, 18)}"
                  + (_number(cq, 14) if "cpu" in entry else ""))
        print(f"{'median':>8}{_number(entry['median_current_seconds'], 12)}"
              f"{_number(entry['median_baseline_seconds'], 12)}"
              f"{_number(entry['median_ratio'], 18)}"
              + (_number(entry["cpu"]["median_ratio"], 14) if "cpu" in entry else "")
              + "   (median of the per-round ratios)")
        if name == "serve_http":
            p99 = entry["p99_seconds"]
            for r, (c, b) in enumerate(zip(p99["current"], p99["baseline"]), 1):
                print(f"{'p99 ' + str(r):>8}{_number(c, 12)}{_number(b, 12)}"
                      f"{_number(c / b if b else None, 18)}   (round {r}'s p99 latency)")
            print(f"{'p99 s':>8}{_number(_median(p99['current']), 12)}"
                  f"{_number(_median(p99['baseline']), 12)}   (median of the rounds' p99)")
    print(f"\nmedian of the per-round ratios current/baseline time "
          f"(within {TOLERANCE:.0%}: {1 - TOLERANCE:.2f} to {1 + TOLERANCE:.2f}):")
    print(f"  {'':<32}{'wall':>7}  {'':<24}{'CPU':>7}")
    for name in ("choose_batch", "hint", "serve_http", "choose_batch_less_startup"):
        if name not in result["workloads"]:
            continue
        entry = result["workloads"][name]
        q = entry["median_ratio"]
        cpu = entry["cpu"]["median_ratio"] if "cpu" in entry else None
        print(f"  {LABELS[name]:<32}{_number(q, 7)}  {_verdict(q):<24}{_number(cpu, 7)}"
              + (f"  {_verdict(cpu)}" if cpu is not None else ""))
    for note in result["notes"]:
        print(f"note: {note}")
    print(f"rounds took {result['rounds_wall_seconds']:.1f} s, the whole run "
          f"{result['wall_seconds']:.1f} s")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gammon.eval.bench.cli",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", metavar="REV", required=True,
                        help="the git revision (commit, tag or branch of this repository) "
                             "to time today's tree against")
    parser.add_argument("--rounds", type=int, default=3,
                        help="runs of every workload on each side, in turns, ABBA (default 3)")
    parser.add_argument("--positions", type=int, default=None,
                        help="positions for choose --batch (default 1000; --quick: 20)")
    parser.add_argument("--requests", type=int, default=None,
                        help="concurrent requests to serve-http (default 200, as the test; "
                             "--quick: 20)")
    parser.add_argument("--http-bot", default="pubeval",
                        help="serve-http's bot (default pubeval, the 200-request test's)")
    parser.add_argument("--threads", type=int, default=1,
                        help="OMP/MKL/OPENBLAS_NUM_THREADS of every gammon process (default "
                             "1; 0: leave the environment's, as a user runs it)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random games")
    parser.add_argument("--quick", action="store_true",
                        help="small sizes (20 positions, 20 requests) and no untimed warm-up "
                             "run: a smoke test")
    parser.add_argument("--workloads", default=",".join(WORKLOADS), metavar="W,W,...",
                        help=f"the workloads to time, comma-separated (default: all, "
                             f"{','.join(WORKLOADS)})")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    workloads = tuple(w.strip() for w in args.workloads.split(",") if w.strip())
    unknown = sorted(set(workloads) - set(WORKLOADS))
    if unknown or not workloads:
        parser.error(f"--workloads takes some of {', '.join(WORKLOADS)}; got "
                     f"{args.workloads!r}")
    small = 20 if args.quick else None
    args.positions = args.positions or small or 1000
    args.requests = args.requests or small or 200
    if args.rounds < 1 or args.positions < 1 or args.requests < 1:
        parser.error("--rounds, --positions and --requests must be at least 1")
    if args.threads < 0:
        parser.error("--threads must be 0 (the environment's) or more")

    report = (lambda line: None) if args.json else (lambda line: print(line, flush=True))
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench_cli_") as scratch:
        try:
            commit = resolve_revision(args.baseline)
            report(f"gammon's command line: today's tree ({REPO_ROOT}, a snapshot copy) against "
                   f"{args.baseline} = {commit[:12]}, {args.rounds} rounds (ABBA), each run a "
                   f"fresh process; choose --batch on {args.positions} positions, hint on "
                   f"one, serve-http with {args.requests} concurrent requests")
            result = compare_with(commit, Path(scratch), args.rounds, args.positions,
                                  args.requests, args.http_bot, args.threads or None,
                                  args.seed,
                                  report, warmup=not args.quick and "hint" in workloads,
                                  workloads=workloads)
        except BaselineError as error:
            print(f"{PROG}: error: --baseline: {error}", file=sys.stderr)
            return 2
        except RunError as error:
            print(f"{PROG}: error: {error}", file=sys.stderr)
            return 1
    result["revision"] = args.baseline
    result["wall_seconds"] = time.perf_counter() - began
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print_text(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
