"""Cube decisions looking ahead (model.cube_lookahead): 0-ply is the cube heads, 1-ply
against a plain loop over the rolls, finished games by their points, the commands."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from gammon.engine.board import flip
from gammon.engine.dice import ROLL_WEIGHTS, ROLLS
from gammon.engine.formats.posid import encode
from gammon.engine.movegen import legal_plays
from gammon.engine.outcomes import equity
from gammon.engine.rules import STANDARD
from inprocess import gammon
from gammon.model.cube import TOO_GOOD, cube_equities, decide_from
from gammon.model.cube_lookahead import cube_equities_ahead
from gammon.model.net import ValueNet
from gammon.model.policy import NetEvaluator


@pytest.fixture(scope="module")
def evaluator():
    torch.manual_seed(5)
    net = ValueNet(198, (16,))
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(3.0)  # spread like a trained net, so that decisions differ
    return NetEvaluator(net.eval())


def _positions() -> np.ndarray:
    rng = np.random.default_rng(2)
    from gammon.engine.sample import from_random_play
    boards, _ = from_random_play(rng, 3, "standard")
    return boards[rng.choice(len(boards), 4, replace=False)]


def test_zero_ply_is_the_cube_heads(evaluator):
    boards = _positions()
    eq = cube_equities_ahead(evaluator, boards, 0)
    heads = cube_equities(evaluator(boards).astype(np.float64), 0)
    np.testing.assert_allclose(eq.no_double, heads.no_double)
    np.testing.assert_allclose(eq.double_take, heads.double_take)


def test_one_ply_against_a_plain_loop(evaluator):
    """For each roll: the best play by 0-ply cubeless equity, then the opponent's cube
    action by the heads (the cube centred: he may double; after our double: his)."""
    boards = _positions()
    eq = cube_equities_ahead(evaluator, boards, 1)
    for i, board in enumerate(boards):
        nd = dt = 0.0
        for (d1, d2), weight in zip(ROLLS, ROLL_WEIGHTS):
            plays = legal_plays(board[None], np.array([[d1, d2]]))
            probs = evaluator.after_play(plays.boards)
            after = plays.boards[int(np.argmax(equity(probs)))]
            points = int(STANDARD.end_of_game(after[None])[0])
            if points:
                nd, dt = nd + weight * points, dt + weight * 2 * points
                continue
            his = evaluator(flip(after)[None]).astype(np.float64)
            centred = decide_from(cube_equities(his, 0)).equity[0]  # he may double
            owned = decide_from(cube_equities(his, 1)).equity[0]  # he owns it after ours
            nd -= weight * centred
            dt -= weight * 2 * owned
        assert eq.no_double[i] == pytest.approx(nd, abs=1e-5)
        assert eq.double_take[i] == pytest.approx(dt, abs=1e-5)
    # the opponent's cube, which the player on roll cannot turn, goes on to him as his own
    theirs = cube_equities_ahead(evaluator, boards, 1, owner=-1)
    assert not np.allclose(theirs.no_double, eq.no_double)


def test_a_sure_gammon_is_too_good_to_double(evaluator):
    """Our last checker on the 1-point, the opponent with all 15 on: every roll wins a
    gammon, 2 points per cube at every depth, more than the +1 of a pass."""
    board = np.zeros(26, dtype=np.int8)
    board[1], board[13] = 1, -15
    for plies in (1, 2):
        eq = cube_equities_ahead(evaluator, board[None], plies)
        assert eq.no_double[0] == pytest.approx(2.0) and eq.double_take[0] == pytest.approx(4.0)
        assert decide_from(eq).action[0] == TOO_GOOD


def test_the_commands_look_ahead_for_the_cube(tmp_path):
    from gammon.model.checkpoint import model_payload, save
    torch.manual_seed(0)
    path = tmp_path / "small.pt"
    save(path, model_payload(ValueNet(198, (8,)), "classic", "standard"))
    start = encode(STANDARD.start_board())
    r = gammon("cube", start, "--bot", f"net:{path}", "--plies", "1")
    assert r.returncode == 0, r.stderr
    assert set(json.loads(r.stdout)) == {"action", "response"}
    r = gammon("analyze", start, "--bot", f"net:{path}@1", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["cube_plies"] == 1
    r = gammon("analyze", start, "--bot", f"net:{path}", "--plies", "1")
    assert "cubeful equities (per cube, 1-ply)" in r.stdout
    r = gammon("cube", start, "--plies", "3")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
