"""Shared fixtures: the GNU Backgammon move-generation corpus."""

import json
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


@pytest.fixture(scope="session", autouse=True)
def bearoff_database():
    """The bear-off database, loaded (built and cached the first time, about half a minute)
    before any test, so that no test or subprocess builds it on the way."""
    from engine import bearoff
    return bearoff.database()
