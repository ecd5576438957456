"""The benchmark scripts stay runnable and print what they promise."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _half_unit(text: str) -> float:
    """Half a unit of the last digit ``text`` prints: the most its rounding moved it."""
    return 0.5 * 10.0 ** -len(text.partition(".")[2])


def assert_printed_ratio(ratio: str, top: str, bottom: str) -> None:
    """``ratio`` is top/bottom, all three as printed (rounded): within what the rounding
    of each allows, however few digits the rates have (a few games/s on a busy machine)."""
    r, t, b = float(ratio), float(top), float(bottom)
    dr, dt, db = _half_unit(ratio), _half_unit(top), _half_unit(bottom)
    assert b > db, (ratio, top, bottom)
    assert (t - dt) / (b + db) - dr <= r <= (t + dt) / (b - db) + dr, (ratio, top, bottom)


def test_movegen_benchmark_prints_every_row():
    out = subprocess.run([sys.executable, "-m", "gammon.eval.bench.movegen", "--seconds", "0.05",
                          "--games", "3", "--json"], capture_output=True, text=True,
                         timeout=300, check=True)
    rows = {row["name"]: row for row in json.loads(out.stdout)["rows"]}
    assert "scalar reference" in rows
    for batch in (1, 64, 1024, 8192):
        row = rows[f"vectorised, batch {batch}"]
        assert row["positions_per_s"] > 0 and row["afterstates_per_s"] > row["positions_per_s"]


def test_training_benchmark_splits_the_time():
    from gammon.train.bench.selfplay import measure
    result = measure(games=60, hidden=8, parallel=32, threads=1)
    assert result["games"] >= 60 and result["games_per_s"] > 0
    split = result["split"]
    assert set(split) == {"rules", "network", "update", "other"}
    assert abs(sum(split.values()) - 1) < 1e-9 and min(split.values()) >= 0


# --baseline: today's code against an older git revision, here HEAD itself -------------------

def _head() -> str:
    """The commit HEAD of this checkout, or skip where there is no git repository."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a .git repository")
    found = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                           text=True)
    if found.returncode:
        pytest.skip("git rev-parse HEAD failed: " + found.stderr.strip())
    return found.stdout.strip()


def test_movegen_benchmark_against_a_baseline_revision():
    head = _head()
    out = subprocess.run([sys.executable, "-m", "gammon.eval.bench.movegen", "--seconds", "0.05",
                          "--games", "3", "--rounds", "2", "--baseline", head, "--json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300, check=True)
    result = json.loads(out.stdout)
    names = {row["name"] for row in result["rows"]}
    baseline = result["baseline"]
    assert baseline["commit"] == head and baseline["notes"] == []
    assert len(baseline["rows"]) == len(baseline["comparison"]) == 4
    for row, entry in zip(baseline["rows"], baseline["comparison"]):
        batch = entry["batch"]
        assert f"vectorised, batch {batch}" in names
        assert row["name"] == f"baseline {head[:8]}, batch {batch}"
        assert row["afterstates_per_s"] > row["positions_per_s"] > 0
        assert entry["current_over_baseline"] == pytest.approx(
            entry["current_positions_per_s"] / entry["baseline_positions_per_s"])
        assert len(entry["round_ratios"]) == 2 and entry["median_round_ratio"] > 0
        if "gnubg-nn moves() (C)" in names:
            assert entry["current_over_gnubg"] > 0 and entry["baseline_over_gnubg"] > 0
    assert "scalar reference" in names


@pytest.mark.slow  # a git archive and two training runs in subprocesses: 15 s
def test_training_benchmark_against_a_baseline_revision(capsys):
    from gammon.train.bench.selfplay import main
    head = _head()
    assert main(["--baseline", head, "--games", "8", "--hidden", "4", "--parallel", "8",
                 "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert head[:12] in out
    assert "round 1, current" in out and "round 1, baseline" in out
    lines = out.strip().splitlines()
    assert lines[-1].startswith("positions per game: current ")
    last = lines[-2].split()
    assert last[0] == "median" and float(last[1]) > 0 and float(last[2]) > 0
    assert_printed_ratio(last[3], last[1], last[2])


@pytest.mark.parametrize("module", ["gammon.eval.bench.movegen", "gammon.train.bench"])
def test_a_bad_baseline_revision_is_a_clean_error(module):
    _head()
    done = subprocess.run([sys.executable, "-m", module, "--baseline", "no-such-rev-4f2a9c"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert "no-such-rev-4f2a9c" in done.stderr and "Traceback" not in done.stderr


def test_movegen_benchmark_times_a_variant_against_the_standard_rules(capsys):
    from gammon.eval.bench.movegen import main
    assert main(["--variant", "caucasian", "--seconds", "0.05", "--games", "3", "--rounds", "1",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    ratios = [c["current_over_baseline"] for c in result["baseline"]["comparison"]]
    assert len(ratios) == 4 and all(r > 0 for r in ratios)


# --encodings: two input encodings side by side in one process ------------------------------

def test_training_benchmark_compares_two_encodings(capsys):
    from gammon.train.bench.selfplay import main
    assert main(["--encodings", "classic,advanced", "--games", "8", "--hidden", "4",
                 "--parallel", "8", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "round 1, classic" in out and "round 1, advanced" in out
    lines = out.strip().splitlines()
    assert lines[-1].startswith("positions/s advanced/classic")
    median = lines[-2].split()
    assert median[0] == "median"
    assert_printed_ratio(median[3], median[2], median[1])


def test_training_benchmark_names_a_bad_encoding(capsys):
    from gammon.train.bench.selfplay import main
    with pytest.raises(SystemExit):
        main(["--encodings", "classic,onehot"])
    assert "unknown encoding 'onehot'" in capsys.readouterr().err


# --- train.bench.gpu and train.bench.scale ------------------------------------------------------

def test_bench_gpu_runs_on_the_cpu_and_says_so(capsys):
    from gammon.train.bench.gpu import main
    assert main(["--device", "auto", "--batches", "32,64", "--seconds", "0.3", "--hidden", "8",
                 "--json"]) == 0
    out, err = capsys.readouterr()
    result = json.loads(out)
    assert [r["batch"] for r in result["rows"]] == [32, 64]
    assert all(r["evaluations_per_s"] > 0 and r["games_per_s"] > 0 for r in result["rows"])
    import torch
    if not torch.cuda.is_available():
        assert result["device"] == "cpu" and "measuring on the CPU" in err


def test_bench_gpu_refuses_bad_options_in_one_line(capsys):
    from gammon.train.bench.gpu import main
    for argv in (["--batches", "0"], ["--batches", "a,b"], ["--seconds", "0"],
                 ["--encoding", "nope"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("bench_gpu: ")


def test_bench_scale_projects_up_to_the_learners_ceiling():
    from gammon.train.bench.scale import project
    # the learner absorbs 50,000 positions/s: 1,000 games/s of 50 positions
    learner = {"positions_per_s": 50_000.0, "positions_per_update": 5_000,
               "broadcast_bytes": 100_000}
    rows = {r["actors"]: r for r in project(300.0, 50.0, learner)}
    assert rows[1]["games_per_s"] == 300 and rows[1]["bound"] == "actors"
    assert rows[2]["games_per_s"] == 600
    assert rows[8]["games_per_s"] == 1000 and rows[8]["bound"] == "learner"
    # 1000 games/s x 50 positions / 5,000 per update = 10 updates/s, 100 kB to each of 32
    assert rows[32]["broadcast_mb_per_s"] == pytest.approx(10 * 0.1 * 32)


# --- eval.bench.cli: the gammon command line of today's tree against a baseline revision ----

def test_cli_benchmark_a_bad_baseline_revision_is_a_clean_error():
    _head()
    done = subprocess.run([sys.executable, "-m", "gammon.eval.bench.cli", "--baseline",
                           "no-such-rev-4f2a9c"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert "no-such-rev-4f2a9c" in done.stderr and "Traceback" not in done.stderr


def test_cli_benchmark_positions_are_fixed_by_the_seed():
    from gammon.eval.bench.cli import batch_lines
    lines = batch_lines(50, seed=3)
    assert lines == batch_lines(50, seed=3) and lines != batch_lines(50, seed=4)
    assert len(lines) == 50 and len(set(lines)) > 40  # shuffled, not 50 opening positions
    for line in lines:
        posid, d1, d2 = line.split()
        assert len(posid) == 14 and 1 <= int(d1) <= 6 and 1 <= int(d2) <= 6


@pytest.mark.slow  # for the suite's 10 minutes: two trees, every workload; the bad-revision test keeps the CLI in the default run
def test_cli_benchmark_against_head_runs_every_workload_in_both_trees():
    head = _head()
    out = subprocess.run([sys.executable, "-m", "gammon.eval.bench.cli", "--baseline", head,
                          "--quick", "--positions", "5", "--requests", "10", "--rounds", "1",
                          "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout)
    assert result["commit"] == head and result["rounds"] == 1 and result["order"] == "ABBA"
    assert result["positions"] == 5 and result["requests"] == 10
    assert result["ratio"].startswith("current/baseline time")
    trees = result["trees"]  # both copies, neither the checkout itself
    assert Path(result["source"]) == ROOT and ROOT not in map(Path, trees.values())
    assert trees["current"] != trees["baseline"]
    for side in ("current", "baseline"):  # each side imported its own tree's gammon
        cli = Path(result["imports"][side]["cli"]).resolve()
        assert cli == (Path(trees[side]) / "gammon" / "cli.py").resolve()
        assert result["imports"][side]["modules"] > 10
    assert set(result["workloads"]) == {"startup", "choose_batch", "hint", "serve_http",
                                        "choose_batch_less_startup", "hint_less_startup"}
    for name in ("startup", "choose_batch", "hint", "serve_http"):
        entry = result["workloads"][name]
        assert len(entry["current_seconds"]) == len(entry["baseline_seconds"]) == 1
        assert min(entry["current_seconds"] + entry["baseline_seconds"]) > 0
        assert entry["median_ratio"] > 0 and entry["round_ratios"] == [pytest.approx(
            entry["current_seconds"][0] / entry["baseline_seconds"][0])]
    assert result["workloads"]["choose_batch"]["cpu"]["median_ratio"] > 0
    assert result["workloads"]["serve_http"]["p99_seconds"]["current"][0] > 0


@pytest.mark.slow  # two rounds of every workload on both trees, text output: about 30 s
def test_cli_benchmark_prints_every_measurement_and_the_medians(capsys):
    from gammon.eval.bench.cli import main
    head = _head()
    assert main(["--baseline", head, "--quick", "--rounds", "2"]) == 0
    out = capsys.readouterr().out
    assert head[:12] in out and "(2 modules" not in out
    for r in (1, 2):
        for workload in ("startup", "choose_batch", "hint", "serve_http"):
            for side in ("current", "baseline"):
                assert f"round {r}, {workload:<12} {side:<8}:" in out
    medians = [line.split() for line in out.splitlines() if line.startswith("  median ")]
    assert len(medians) == 6
    assert "ratio = current/baseline time" in out
    summary = out[out.index("median of the per-round ratios current/baseline time"):]
    for label in ("choose --batch ", "hint, one position ", "serve-http, concurrent requests ",
                  "choose --batch less start-up "):
        row = next(line for line in summary.splitlines() if line.startswith("  " + label))
        assert float(row[len(label) + 2:].split()[0]) > 0
