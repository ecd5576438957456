"""The 2-ply look-ahead (model.policy.two_ply) against a plain-loop reference, on bear-offs
where plays and replies end the game with singles, gammons and backgammons."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from engine import reference
from engine.board import flip
from engine.dice import ROLL_WEIGHTS, ROLLS
from engine.movegen import legal_plays
from engine.outcomes import certain, equity
from engine.rules import STANDARD
from model.net import ValueNet
from model.player import load_net_bot
from model.policy import NetEvaluator, NetPolicy, two_ply


def two_ply_reference(evaluate, afterstate: np.ndarray) -> np.ndarray:
    """Plainly: the mover's (6,) probabilities after ``afterstate``, one roll ahead.

    A finished play is its result; else for each of the opponent's 21 rolls, every legal
    reply (the scalar reference generator) is valued for the opponent (a reply that ends
    the game by its result, else the net on the position after it), the best by equity
    is taken, and the mover's view of it is averaged with the roll's chance.
    """
    won = int(STANDARD.end_of_game(afterstate[None])[0])
    if won:
        return certain(np.array([won]))[0]
    opponent = flip(afterstate)
    total = np.zeros(6)
    for (d1, d2), weight in zip(ROLLS, ROLL_WEIGHTS):
        best, best_equity = None, -np.inf
        for reply in reference.legal_boards(opponent, int(d1), int(d2)):
            points = int(STANDARD.end_of_game(reply[None])[0])
            if points:
                probs = certain(np.array([points]))[0]  # the reply won: final
            else:
                probs = evaluate(flip(reply)[None])[0][::-1]  # for the opponent
            if equity(probs) > best_equity:
                best, best_equity = probs, equity(probs)
        total += weight * best[::-1]  # back to the mover's view
    return total


def _bear_off_positions(rng: np.random.Generator, n: int) -> np.ndarray:
    """Boards where the mover bears off a few checkers and the opponent is close to
    finishing too, or has borne none off (gammons), or is stuck in our home (backgammons)."""
    boards = np.zeros((n, 26), dtype=np.int8)
    for i in range(n):
        for _ in range(rng.integers(1, 4)):  # the mover: 1-3 checkers home
            boards[i, rng.integers(1, 7)] += 1
        style = i % 3
        if style == 0:  # the opponent nearly off too: its replies can win
            for _ in range(rng.integers(1, 4)):
                boards[i, rng.integers(19, 25)] -= 1
        elif style == 1:  # all 15 still on: a finish is a gammon
            for _ in range(15):
                boards[i, rng.integers(13, 25)] -= 1
        else:  # all 15 on, one in our home board or on the bar: a backgammon
            boards[i, 3 if boards[i, 3] == 0 else 0] -= 1
            for _ in range(14):
                boards[i, rng.integers(13, 25)] -= 1
    return boards


@pytest.fixture(scope="module")
def evaluator():
    torch.manual_seed(3)
    net = ValueNet(198, (16,))
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(3.0)  # spread like a trained net, so choices differ
    return NetEvaluator(net.eval())


def test_two_ply_matches_the_plain_loop_reference(evaluator):
    rng = np.random.default_rng(11)
    boards = _bear_off_positions(rng, 24)
    dice = rng.integers(1, 7, size=(len(boards), 2))
    plays = legal_plays(boards, dice)
    after = plays.boards
    points = STANDARD.end_of_game(after)
    # the sample covers what the fix is about: finished plays of every kind, and replies
    # that win (style 0 boards)
    assert {1, 2, 3} <= set(points.tolist()) and (points == 0).sum() >= 10
    ours = two_ply(evaluator, after)
    for k in range(len(after)):
        np.testing.assert_allclose(ours[k], two_ply_reference(evaluator, after[k]),
                                   atol=2e-5, err_msg=f"afterstate {k}: {after[k].tolist()}")


def test_a_winning_reply_is_final(evaluator):
    """The opponent's last checker on its 1-point: every roll bears it off and wins."""
    board = np.zeros(26, np.int8)
    board[20], board[24] = 5, -1  # our 5 checkers far from home; theirs on our 24 = their 1
    after = board.copy()
    p = two_ply(evaluator, after[None])[0]
    np.testing.assert_allclose(p, certain(np.array([-1]))[0], atol=1e-6)  # a single loss


@pytest.mark.parametrize("plies", [0, 2])
def test_a_finished_bear_off_outranks_every_other_play(plies):
    """With the shipped net: bearing off the last checkers (a single win) scores exactly 1
    and more than any play that leaves a checker, at 0-ply and at 2-ply."""
    bot = load_net_bot(None, plies=plies)
    board = np.zeros(26, np.int8)
    board[1], board[4] = 1, 1  # 4-1 bears both off; other plays leave one
    board[19], board[22] = -3, -4  # the opponent has borne 8 off: no gammon either way
    dice = np.array([[4, 1]])
    plays = legal_plays(board[None], dice)
    assert len(plays) >= 2
    scores = bot.scores(plays, board[None], dice)
    won = STANDARD.end_of_game(plays.boards) != 0
    assert won.sum() == 1
    assert scores[won][0] == pytest.approx(1.0, abs=1e-6)
    assert (scores[~won] < scores[won][0]).all()
    assert won[bot.choose(plays, board[None], dice)[0]]
