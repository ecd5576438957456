"""The cube-decision heads (model.cube): Janowski's theory, NumPy = torch, perspective."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch

from gammon.model.cube import (BEAVER, DOUBLE, NO_DOUBLE, PASS, TAKE, TOO_GOOD, cube_equities,
                        cubeful_equity, decide, take_point, win_and_values)
from gammon.model.net import five_outputs, flip_outcomes


def six(p, wg=0.0, lg=0.0, wbg=0.0, lbg=0.0) -> np.ndarray:
    """Six exclusive outcomes (N, 6) from P(win) p and the gammon (backgammon) share of
    wins and losses: wg, lg include backgammons as in gnubg's outputs."""
    p = np.atleast_1d(np.asarray(p, dtype=np.float64))
    q = 1 - p
    return np.stack([p * wbg, p * (wg - wbg), p * (1 - wg), q * (1 - lg), q * (lg - lbg),
                     q * lbg], axis=-1)


def random_probs(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).dirichlet(np.ones(6) * 0.7, size=n)


def taker_boundary(efficiency, wg=0.0, lg=0.0) -> float:
    """The taker's winning chances where DT = DP, by bisection on the doubler's P(win)."""
    lo, hi = 0.5, 1.0 - 1e-12
    for _ in range(100):
        mid = (lo + hi) / 2
        eq = cube_equities(six(mid, wg, lg), 0, efficiency)
        lo, hi = (mid, hi) if eq.double_take[0] < eq.double_pass[0] else (lo, mid)
    return 1 - lo


# --- the take point ------------------------------------------------------------------------


def test_dead_cube_without_gammons_takes_at_exactly_three_to_one():
    assert take_point(six(0.7), 0.0)[0] == pytest.approx(0.25, abs=1e-12)
    assert taker_boundary(0.0) == pytest.approx(0.25, abs=1e-9)
    # at the take point taking and passing are worth the same: -1 per cube for the taker
    eq = cube_equities(six(0.75), 0, 0.0)
    assert eq.double_take[0] == pytest.approx(1.0, abs=1e-12)
    assert decide(six([0.7499, 0.7501]), 0, 0.0).response.tolist() == [TAKE, PASS]


def test_janowski_live_cube_take_point_at_efficiency_068():
    expected = 0.5 / (2 + 0.68 / 2)  # (L - 1/2) / (W + L + x/2), W = L = 1
    assert expected == pytest.approx(0.2137, abs=1e-4)
    assert take_point(six(0.7), 0.68)[0] == pytest.approx(expected, abs=1e-12)
    assert taker_boundary(0.68) == pytest.approx(expected, abs=1e-9)


def test_fully_live_cube_takes_at_twenty_percent():
    assert take_point(six(0.7), 1.0)[0] == pytest.approx(0.2, abs=1e-12)
    assert taker_boundary(1.0) == pytest.approx(0.2, abs=1e-9)


@pytest.mark.parametrize("x", [0.0, 0.5, 0.68, 1.0])
@pytest.mark.parametrize("wg, lg", [(0.3, 0.0), (0.0, 0.25), (0.2, 0.1), (0.45, 0.3)])
def test_gammons_move_the_take_point_as_the_formula_says(x, wg, lg):
    # the taker's average loss is the doubler's average win W = 1 + wg, and so on
    w_taker, l_taker = 1 + lg, 1 + wg
    expected = (l_taker - 0.5) / (w_taker + l_taker + x / 2)
    assert take_point(six(0.7, wg, lg), x)[0] == pytest.approx(expected, abs=1e-12)
    assert taker_boundary(x, wg, lg) == pytest.approx(expected, abs=1e-9)


def test_the_taker_takes_exactly_when_his_chances_reach_the_take_point():
    probs = random_probs(5000, seed=1)
    for x in (0.0, 0.68, 1.0):
        d = decide(probs, 0, x)
        taker = 1 - five_outputs(probs)[:, 0]
        tp = take_point(probs, x)
        takes = d.response != PASS
        clear = np.abs(taker - tp) > 1e-9
        assert np.array_equal(takes[clear], (taker >= tp)[clear])


def test_average_win_and_loss_values():
    p, w, l_ = win_and_values(six(0.6, wg=0.25, lg=0.5, wbg=0.05, lbg=0.1))
    assert (p[0], w[0], l_[0]) == pytest.approx((0.6, 1.30, 1.60))


# --- the three equities ----------------------------------------------------------------------


def test_a_dead_cube_is_worth_the_cubeless_equity():
    probs = random_probs(100)
    cubeless = probs @ np.array([3, 2, 1, -1, -2, -3])
    for owner in (-1, 0, 1):
        assert np.allclose(cubeful_equity(probs, owner, 0.0), cubeless)
    eq = cube_equities(probs, 0, 0.0)
    assert np.allclose(eq.double_take, 2 * cubeless) and np.all(eq.double_pass == 1)


def test_owning_the_cube_is_worth_something_and_the_opponent_owning_it_costs():
    probs = random_probs(2000, seed=2)
    centred = cubeful_equity(probs, 0)
    assert np.all(cubeful_equity(probs, +1) >= centred - 1e-12)
    assert np.all(cubeful_equity(probs, -1) <= centred + 1e-12)


@pytest.mark.parametrize("owner", [-1, 0, 1])
@pytest.mark.parametrize("jacoby", [False, True])
def test_the_other_sides_view_is_the_negation(owner, jacoby):
    probs = random_probs(1000, seed=3)
    mine = cubeful_equity(probs, owner, 0.68, jacoby)
    theirs = cubeful_equity(np.ascontiguousarray(flip_outcomes(probs)), -owner, 0.68, jacoby)
    assert np.allclose(mine, -theirs, atol=1e-12)


def test_five_outputs_give_the_same_answers_as_six():
    probs = random_probs(500, seed=4)
    for owner in (-1, 0, 1):
        assert np.allclose(cubeful_equity(probs, owner), cubeful_equity(five_outputs(probs), owner))
    assert np.allclose(take_point(probs), take_point(five_outputs(probs)))
    a, b = decide(probs, beavers=True), decide(five_outputs(probs), beavers=True)
    assert np.array_equal(a.action, b.action) and np.array_equal(a.response, b.response)


@pytest.mark.parametrize("x, jacoby, beavers", [(0.68, False, True), (0.0, True, False),
                                                (1.0, False, False), (0.4, True, True)])
def test_numpy_and_torch_compute_the_same(x, jacoby, beavers):
    probs = random_probs(3000, seed=5)
    owners = np.random.default_rng(6).integers(-1, 2, size=len(probs))
    tprobs, towners = torch.from_numpy(probs), torch.from_numpy(owners)
    for owner, towner in ((owners, towners), (0, 0)):
        n, t = cube_equities(probs, owner, x, jacoby), cube_equities(tprobs, towner, x, jacoby)
        for field in ("no_double", "double_take", "double_pass"):
            assert np.allclose(getattr(n, field), getattr(t, field).numpy(), atol=1e-12), field
        dn, dt = decide(probs, owner, x, jacoby, beavers), decide(tprobs, towner, x, jacoby, beavers)
        assert np.array_equal(dn.action, dt.action.numpy())
        assert np.array_equal(dn.response, dt.response.numpy())
        assert np.allclose(dn.equity, dt.equity.numpy(), atol=1e-12)
    assert np.allclose(take_point(probs, x), take_point(tprobs, x).numpy(), atol=1e-12)


def test_torch_heads_pass_gradients():
    logits = torch.randn(8, 6, dtype=torch.float64, requires_grad=True)
    decide(torch.softmax(logits, -1), 0).equity.sum().backward()
    assert logits.grad is not None and torch.isfinite(logits.grad).all()


# --- continuity across the decision boundaries -----------------------------------------------


@pytest.mark.parametrize("wg, lg", [(0.0, 0.0), (0.3, 0.1), (0.6, 0.2)])
@pytest.mark.parametrize("x, jacoby, beavers", [(0.68, False, True), (0.0, False, False),
                                                (1.0, True, True), (0.68, True, False)])
def test_equities_are_continuous_across_every_decision_boundary(wg, lg, x, jacoby, beavers):
    p = np.linspace(0.001, 0.999, 200_001)  # step 5e-6
    probs = six(p, wg, lg)
    d = decide(probs, 0, x, jacoby, beavers)
    eq = cube_equities(probs, 0, x, jacoby)
    changes = np.flatnonzero((np.diff(d.action) != 0) | (np.diff(d.response) != 0))
    assert len(changes) >= 1  # at least the take/pass boundary lies in the sweep
    step = p[1] - p[0]
    slope_bound = 20.0  # equities per cube move by at most a few units over all of p
    for series in (d.equity, eq.no_double, eq.double_take):
        jumps = np.abs(np.diff(series))
        assert jumps.max() < slope_bound * step
        assert jumps[changes].max() < slope_bound * step  # and at the boundaries themselves


# --- decisions -------------------------------------------------------------------------------


def test_decisions_of_typical_positions_without_gammons():
    p = [0.50, 0.60, 0.72, 0.80, 0.95]
    d = decide(six(p), 0, 0.68)
    assert d.words() == ["No double, take", "No double, take", "Double, take", "Double, pass",
                         "Double, pass"]


def test_too_good_to_double_when_playing_on_for_the_gammon_is_worth_more_than_a_cash():
    probs = six(0.85, wg=0.55)
    eq = cube_equities(probs, 0)
    assert eq.no_double[0] > 1.0  # beats double/pass
    d = decide(probs, 0)
    assert d.action[0] == TOO_GOOD and d.words() == ["Too good, pass"]
    assert d.equity[0] == eq.no_double[0]
    # under Jacoby a centred cube's gammons do not count: cash it instead
    assert decide(probs, 0, jacoby=True).words() == ["Double, pass"]


def test_beaver_exactly_when_the_taker_is_the_favourite_at_twice_the_cube():
    probs = random_probs(5000, seed=7)
    eq = cube_equities(probs, 0)
    d = decide(probs, 0, beavers=True)
    assert np.array_equal(d.response == BEAVER, (eq.double_take < 0))
    assert decide(six(0.35), 0, beavers=True).words() == ["No double, beaver"]
    assert not np.any(decide(probs, 0, beavers=False).response == BEAVER)


def test_the_doubler_doubles_when_the_takers_best_answer_beats_not_doubling():
    probs = random_probs(5000, seed=8)
    for beavers in (False, True):
        eq = cube_equities(probs, 0)
        d = decide(probs, 0, beavers=beavers)
        kept = np.where(beavers & (eq.double_take < 0), 2 * eq.double_take, eq.double_take)
        after = np.minimum(kept, 1.0)
        assert np.array_equal(d.action == DOUBLE, (after > eq.no_double) & (eq.no_double <= 1))
        assert np.allclose(d.equity, np.maximum(eq.no_double, after))
        assert np.all(d.action[eq.no_double > 1] == TOO_GOOD)


def test_a_redouble_needs_more_than_an_initial_double():
    p = np.linspace(0.5, 0.9, 40_001)
    first = {owner: p[np.argmax(decide(six(p), owner).action == DOUBLE)] for owner in (0, 1)}
    assert 0.6 < first[0] < first[1] < 0.8  # giving away a cube you own costs more
    assert decide(six(0.5), 0).action[0] == NO_DOUBLE


def test_the_cube_rules_and_numpy_heads_never_import_torch():
    code = ("import sys, numpy as np, engine.cube, engine.game, engine.cube_policy, "
            "model.cube, model.cube_player, eval.bots.race_cube, eval.bots.cube, eval.analysis.cube; "
            "model.cube.decide(np.full((2, 6), 1 / 6)); "
            "assert 'torch' not in sys.modules, 'torch imported'")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
