"""The rollout speed tools: ``eval.bench.rollouts``' batch part (today's tree in a worker
of its own) and ``eval.reports.rollout_check``'s batch check in rounds taken in turns."""

from __future__ import annotations

import json

import pytest

from gammon.eval.bots.registry import make_bot


def test_the_bench_times_a_batch_of_positions_at_once(capsys):
    from gammon.eval.bench.rollouts import main
    assert main(["--parts", "batch", "--batch", "3", "--batch-trials", "4", "--rounds", "1",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    row = report["parts"]["batch"]["current"]
    assert row["median_seconds"] > 0 and len(row["seconds"]) == 1 and len(row["digest"]) == 16


@pytest.mark.parametrize("argv", [["--batch", "0"], ["--batch-trials", "0"],
                                  ["--parts", "bogus"]])
def test_the_bench_refuses_bad_sizes_in_one_line(argv, capsys):
    from gammon.eval.bench.rollouts import main
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("eval.bench.rollouts: error:") and "\n" not in err


def test_batch_check_rounds_give_the_median_ratio_and_the_same_numbers():
    from gammon.eval.reports.rollout_check import batch_check
    out = batch_check(make_bot("net:"), 3, 4, False, 7, rounds=3)
    assert out["same_numbers"] is True and out["rounds"] == 3
    assert len(out["seconds_together"]) == len(out["seconds_one_by_one"]) == 3
    ratios = sorted(out["speedup_each_round"])
    assert out["speedup"] == pytest.approx(ratios[1], abs=1e-3)
    assert out["trials_per_s_together"] > 0 and out["trials_per_s_one_by_one"] > 0
