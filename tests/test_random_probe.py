"""The random-exploit probe (eval.bots.random_probe): its values against a plain loop, and it
beats random."""

from __future__ import annotations

import numpy as np
import pytest

from gammon.engine.board import flip
from gammon.engine.dice import ROLL_WEIGHTS, ROLLS
from gammon.engine.movegen import legal_plays
from gammon.engine.rules import HYPERGAMMON
from gammon.eval.playing.match import run_match
from gammon.eval.bots.random_probe import RandomExploit
from gammon.model.player import load_net_bot


@pytest.fixture(scope="module")
def evaluator():
    return load_net_bot(None, "hypergammon").evaluator


def test_values_are_the_mean_over_rolls_of_the_mean_over_random_replies(evaluator):
    start = HYPERGAMMON.start_board()
    plays = legal_plays(start[None], np.array([[3, 1]]), HYPERGAMMON)
    probe = RandomExploit(evaluator).probabilities(plays.boards)
    for row, after in enumerate(plays.boards):
        expected = np.zeros(6)
        for (d1, d2), weight in zip(ROLLS, ROLL_WEIGHTS):
            replies = legal_plays(flip(after)[None], np.array([[d1, d2]]), HYPERGAMMON)
            mine = evaluator.after_play(replies.boards)[:, ::-1]  # back to our view
            expected += weight * mine.mean(axis=0)
        np.testing.assert_allclose(probe[row], expected, atol=1e-5)


@pytest.mark.slow
def test_the_probe_beats_random(evaluator):
    r = run_match(RandomExploit(evaluator), "random", 60, seed=4, variant="hypergammon",
                  progress=False)
    assert (r.points > 0).mean() > 0.7
