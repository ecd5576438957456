"""``train.bench.teacher_gap``: each student's loss on the same decisions by one fixed
teacher's look-ahead, checked against a plain loop over the decisions; the cache; the
one-line refusals."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from gammon.engine.outcomes import equity
from gammon.eval.bots.registry import make_bot
from gammon.model.lookahead import look_ahead
from gammon.train.bench import teacher_gap as tg

TEACHER = "checkpoints/expert-gen3.pt"
STUDENT = "checkpoints/td-2026.pt"


@pytest.fixture(scope="module")
def data():
    return tg.decisions(TEACHER, 40, 1, 3)


def test_the_gap_is_the_loop_over_decisions(data):
    teacher = make_bot(f"net:{TEACHER}").evaluator
    student = make_bot(f"net:{STUDENT}").evaluator
    losses, agree = [], []
    for i in range(len(data["boards"])):
        rows = np.flatnonzero((data["root"] == i) & data["kept"])
        if len(rows) < 2:
            continue
        after = data["plays"][rows]
        ended = teacher.rules.end_of_game(after) != 0
        value = equity(teacher.after_play(after)).astype(np.float64)
        if (~ended).any():
            value[~ended] = equity(look_ahead(teacher, after[~ended], 1))
        assert np.allclose(value, data["value"][rows], atol=1e-9)
        pick = int(np.argmax(equity(student.after_play(after))))
        losses.append(1000 * (value.max() - value[pick]))
        agree.append(value[pick] == value.max())
    got = tg.gap(data, STUDENT)
    assert got["decisions"] == len(losses) >= 10
    assert got["mp"] == pytest.approx(np.mean(losses), abs=1e-6)
    assert got["agree"] == pytest.approx(np.mean(agree))
    assert min(losses) >= 0 and got["mp"] > 0  # the TD net errs somewhere by gen3's look
    assert tg.gap(data, TEACHER)["mp"] >= 0


def test_the_cache_keeps_the_teachers_values(tmp_path):
    cache = tmp_path / "t.npz"
    first = tg.load_or_make(cache, TEACHER, 20, 1, 5, lambda _: None)
    assert cache.exists()
    again = tg.load_or_make(cache, TEACHER, 20, 1, 5,
                            lambda _: pytest.fail("made again from a good cache"))
    assert np.array_equal(first["value"], again["value"])
    said = []
    other = tg.load_or_make(cache, TEACHER, 20, 1, 6, said.append)
    assert said and len(other["boards"]) > 0


@pytest.mark.parametrize("args, says", [
    (["--teacher", "nowhere.pt", "--net", STUDENT], "nowhere.pt"),
    (["--teacher", TEACHER, "--net", STUDENT, "--plies", "0"], "1 or 2"),
    (["--teacher", TEACHER, "--net", STUDENT, "--positions", "0"], "--positions"),
])
def test_the_command_refuses_in_one_line(args, says):
    done = subprocess.run([sys.executable, "-m", "gammon.train.bench.teacher_gap", *args],
                          capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1
