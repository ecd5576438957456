"""Shared fixtures: the GNU Backgammon move-generation corpus, positions of every phase."""

import fcntl
import json
import os
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def corpus():
    """The 1,200 (position, roll) cases of tests/data/movegen_public.jsonl."""
    with open(DATA / "movegen_public.jsonl") as f:
        return [json.loads(line) for line in f]


@pytest.fixture(scope="session")
def corpus_arrays(corpus):
    """The corpus as (boards (N, 26) int8, dice (N, 2))."""
    boards = np.array([case["board28"][:26] for case in corpus], dtype=np.int8)
    dice = np.array([[case["d1"], case["d2"]] for case in corpus])
    return boards, dice


@pytest.fixture(scope="session")
def phase_positions():
    """Unique positions of random self-play games (``engine.sample.from_random_play``),
    10,000 of each phase (``train.rollout_positions.phase_of``: contact, crashed, race):
    {phase: (boards (10000, 26) int8, dice (10000, 2))}."""
    from gammon.engine.sample import from_random_play
    from gammon.train.rollout_positions import PHASES, phase_of
    rng = np.random.default_rng(7)
    boards, dice = from_random_play(rng, 900)
    _, first = np.unique(boards, axis=0, return_index=True)
    first = np.sort(first)
    boards, dice = boards[first], dice[first]
    phase = phase_of(boards)
    picked = {}
    for p, name in enumerate(PHASES):
        rows = rng.permutation(np.flatnonzero(phase == p))
        assert len(rows) >= 10_000, (name, len(rows))
        picked[name] = (boards[rows[:10_000]], dice[rows[:10_000]])
    return picked


@pytest.fixture(scope="session", autouse=True)
def bearoff_database():
    """The bear-off database, loaded (built and cached the first time, about half a minute)
    before any test, so that no test or subprocess builds it on the way."""
    from gammon.engine import bearoff
    return bearoff.database()


@pytest.fixture(autouse=True)
def _exclusive(request, tmp_path_factory):
    """A test marked ``exclusive`` (it holds a server to a latency or a rate on the wall
    clock) runs while no other test of the run does: under pytest-xdist it holds the run's
    lock file exclusively and every other test holds it shared, so the other worker waits
    rather than taking half of the 2 cores from it. The turnstile keeps a waiting exclusive
    test from being overtaken by the next shared ones. Without workers there is nothing to
    wait for."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        yield
        return
    folder = tmp_path_factory.getbasetemp().parent  # the run's, above each worker's own
    how = fcntl.LOCK_EX if request.node.get_closest_marker("exclusive") else fcntl.LOCK_SH
    with open(folder / "exclusive.turnstile", "a") as turnstile, \
            open(folder / "exclusive.lock", "a") as lock:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        try:
            fcntl.flock(lock, how)
        finally:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def pytest_terminal_summary(terminalreporter):
    """The totals that tests record (``record_property("total", line)``: the inputs of
    test_fuzz, the faults of test_write_faults), printed at the end of the run: a worker of
    pytest-xdist's own prints never reach the terminal, the properties of its reports do."""
    for outcome in ("passed", "failed"):
        for report in terminalreporter.stats.get(outcome, []):
            for name, value in getattr(report, "user_properties", ()):
                if name == "total":
                    terminalreporter.write_line(value)
