"""Positions for the rollout stage (``train.rollout_positions``): exploration among the
near-best plays, the phase shares, no duplicates, the openings and settled races left out."""

from __future__ import annotations

import numpy as np
import pytest

from gammon.engine.bearoff import all_home
from gammon.engine.formats.posid import decode
from gammon.engine.movegen import legal_plays
from gammon.eval.bots.registry import make_bot
from gammon.train.rollout_positions import Exploring, phase_of, sample_positions


@pytest.fixture(scope="module")
def net():
    return make_bot("net:")


def test_exploring_plays_only_near_best_plays(net):
    board = decode("4HPwATDgc/ABMA")
    boards = np.repeat(board[None], 400, axis=0)
    dice = np.tile([[6, 4]], (400, 1))
    plays = legal_plays(boards, dice)
    scores = np.asarray(net.scores(plays, boards, dice))
    starts = np.searchsorted(plays.root, np.arange(401))
    best = np.array([scores[starts[i]:starts[i + 1]].max() for i in range(400)])
    never = Exploring(net, 0.0, 0.1, np.random.default_rng(1))
    assert np.array_equal(never.choose(plays, boards, dice), net.choose(plays, boards, dice))
    always = Exploring(net, 1.0, 0.1, np.random.default_rng(1))
    rows = always.choose(plays, boards, dice)
    assert (plays.root[rows] == np.arange(400)).all()
    assert (scores[rows] >= best - 0.1).all()
    assert len(set((rows - starts[:-1]).tolist())) > 1  # it does wander


def test_sample_positions_shares_and_uniqueness(net):
    boards, phase = sample_positions(net, 100, 3, opponents=(make_bot("pubeval"),),
                                     opponent_share=0.25)
    assert len(boards) == 100 and len(np.unique(boards, axis=0)) == 100
    assert np.array_equal(phase, phase_of(boards))
    counts = np.bincount(phase, minlength=3)
    assert counts.tolist() == [50, 20, 30]
    assert not all_home(boards).any()
    assert not (boards == decode("4HPwATDgc/ABMA")).all(axis=1).any()  # no opening
    # the seed fixes the list; positions excluded are left out of it
    some = {b.tobytes() for b in boards[:30]}
    again, _ = sample_positions(net, 100, 3, opponents=(make_bot("pubeval"),),
                                opponent_share=0.25, exclude=some)
    assert not any(b.tobytes() in some for b in again)
    same, _ = sample_positions(net, 100, 3, opponents=(make_bot("pubeval"),),
                               opponent_share=0.25)
    assert np.array_equal(same, boards)


def test_alternatives_are_the_results_of_the_best_plays_not_taken(net):
    """alternatives = 1: each position also adds the results of its two best plays of the
    roll (within `within`), as the positions the opponent then faces; the positions the
    games reach stay, and the rest are those results."""
    from gammon.engine.board import flip
    from gammon.train.rollout_positions import alternative_positions, candidate_positions
    board = decode("4HPwATDgc/ABMA")
    dice = np.array([[6, 4]])
    plays = legal_plays(board[None], dice)
    scores = np.asarray(net.scores(plays, board[None], dice))
    top = np.argsort(-scores, kind="stable")[:2]
    alt = alternative_positions(net, board[None], dice, 2, 1.0)
    assert np.array_equal(alt, flip(plays.boards[top]))
    assert len(alternative_positions(net, board[None], dice, 2, 0.0)) >= 1  # the best only
    plain = candidate_positions(net, 12, np.random.default_rng(5))
    more = candidate_positions(net, 12, np.random.default_rng(5), alternatives=1)
    reached = {b.tobytes() for b in plain}
    assert reached <= {b.tobytes() for b in more} and len(more) > 1.3 * len(plain)
    boards, phase = sample_positions(net, 60, 3, alternatives=1)
    assert len(np.unique(boards, axis=0)) == 60 and np.array_equal(phase, phase_of(boards))
