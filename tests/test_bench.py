"""The benchmark scripts stay runnable and print what they promise."""

import json
import subprocess
import sys


def test_movegen_benchmark_prints_every_row():
    out = subprocess.run([sys.executable, "-m", "eval.bench_movegen", "--seconds", "0.05",
                          "--games", "3", "--json"], capture_output=True, text=True,
                         timeout=300, check=True)
    rows = {row["name"]: row for row in json.loads(out.stdout)["rows"]}
    assert "scalar reference" in rows
    for batch in (1, 64, 1024, 8192):
        row = rows[f"vectorised, batch {batch}"]
        assert row["positions_per_s"] > 0 and row["afterstates_per_s"] > row["positions_per_s"]


def test_training_benchmark_splits_the_time():
    from train.bench import measure
    result = measure(games=60, hidden=8, parallel=32, threads=1)
    assert result["games"] >= 60 and result["games_per_s"] > 0
    split = result["split"]
    assert set(split) == {"rules", "network", "update", "other"}
    assert abs(sum(split.values()) - 1) < 1e-9 and min(split.values()) >= 0
