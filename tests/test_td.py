"""TD(lambda) targets: the backward scan against a plain per-game loop."""

import numpy as np
import pytest

from gammon.engine.outcomes import certain as outcome_vector
from gammon.train.td import lambda_returns, lambda_returns_loop


@pytest.mark.parametrize("lam", [0.0, 0.3, 0.7, 1.0])
def test_vectorised_scan_equals_the_plain_loop(lam):
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 40, size=25)
    t_max = lengths.max()
    values = rng.dirichlet(np.ones(6), size=(25, t_max)).astype(np.float64)
    points = rng.integers(1, 4, size=25)
    outcomes = outcome_vector(points).astype(np.float64)
    targets = lambda_returns(values, outcomes, lengths, lam)
    for g in range(25):
        n = lengths[g]
        expected = lambda_returns_loop(list(values[g, :n]), outcomes[g], lam)
        np.testing.assert_allclose(targets[g, :n], expected, atol=1e-12)
        assert (targets[g, n:] == 0).all()


def test_lambda_one_is_the_outcome_seen_from_each_side():
    values = np.full((1, 4, 6), 1 / 6)
    outcome = outcome_vector(np.array([2]))  # the last mover won a gammon
    targets = lambda_returns(values, outcome, np.array([4]), 1.0)
    win_gammon, lose_gammon = np.eye(6)[1], np.eye(6)[4]
    # states alternate between the two players, counted back from the last mover
    for t, expected in zip(range(4), [lose_gammon, win_gammon, lose_gammon, win_gammon]):
        np.testing.assert_allclose(targets[0, t], expected)


def test_lambda_zero_bootstraps_from_the_next_estimate_flipped():
    values = np.zeros((1, 3, 6))
    values[0, 1] = [0.1, 0.2, 0.3, 0.2, 0.1, 0.1]
    values[0, 2] = [0.0, 0.0, 0.5, 0.5, 0.0, 0.0]
    outcome = outcome_vector(np.array([1]))
    targets = lambda_returns(values, outcome, np.array([3]), 0.0)
    np.testing.assert_allclose(targets[0, 0], values[0, 1, ::-1])
    np.testing.assert_allclose(targets[0, 1], values[0, 2, ::-1])
    np.testing.assert_allclose(targets[0, 2], outcome[0])


def test_outcome_vector_orders_win_outcomes_first():
    out = outcome_vector(np.array([3, 2, 1]))
    assert out.argmax(axis=1).tolist() == [0, 1, 2]


def test_an_exact_state_is_its_own_target_and_stops_the_return():
    """A state the bear-off database values exactly: its target is that value, and the
    states before it bootstrap from it instead of from the sampled future beyond it."""
    values = np.zeros((1, 5, 6))
    exact_value = np.array([0.0, 0.1, 0.6, 0.3, 0.0, 0.0])
    values[0, 3] = exact_value
    exact = np.zeros((1, 5), dtype=bool)
    exact[0, 3] = True
    outcome = outcome_vector(np.array([1]))  # the last mover won a single game
    targets = lambda_returns(values, outcome, np.array([5]), 1.0, exact)
    np.testing.assert_allclose(targets[0, 3], exact_value)
    # lambda = 1 is the return itself: states 2, 1, 0 see the exact value from alternate sides
    np.testing.assert_allclose(targets[0, 2], exact_value[::-1])
    np.testing.assert_allclose(targets[0, 1], exact_value)
    np.testing.assert_allclose(targets[0, 4], outcome[0])  # after it: the game as played
    # without the mask the sampled outcome reaches every state
    plain = lambda_returns(values, outcome, np.array([5]), 1.0)
    assert not np.allclose(plain[0, 2], targets[0, 2])
