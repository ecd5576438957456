"""The look-ahead in GNU Backgammon's plies (model.lookahead) against plain-loop references
on bear-offs where plays and replies end the game with singles, gammons and backgammons;
the move filter; the net bot at every depth."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gammon.engine import reference
from gammon.engine.board import flip
from gammon.engine.dice import ROLL_WEIGHTS, ROLLS
from gammon.engine.movegen import legal_plays
from gammon.engine.outcomes import certain, equity
from gammon.engine.rules import STANDARD, variant
from gammon.model.lookahead import (FILTER_EQUITY, FILTER_PLAYS, MAX_PLIES, candidates,
                             check_plies, evaluate_plays, look_ahead)
from gammon.model.net import ValueNet
from gammon.model.player import load_net_bot
from gammon.model.policy import NetEvaluator, NetPolicy


def reference_value(evaluate, afterstate: np.ndarray, plies: int) -> np.ndarray:
    """Plainly: the mover's (6,) probabilities after ``afterstate``, ``plies`` ahead.

    A finished play is its result; at 0-ply the net on the flipped position, reversed.
    Else for each of the opponent's 21 rolls every legal reply (the scalar reference
    generator) is valued for him at 0-ply, the best by equity is taken (the first of the
    canonical order on a tie), valued at ``plies - 1`` and averaged, from the mover's
    view, with the roll's chance.
    """
    won = int(STANDARD.end_of_game(afterstate[None])[0])
    if won:
        return certain(np.array([won]))[0]
    if plies == 0:
        return zero_ply(evaluate, afterstate[None])[0]
    opponent = flip(afterstate)
    total = np.zeros(6)
    for (d1, d2), weight in zip(ROLLS, ROLL_WEIGHTS):
        replies = reference.legal_boards(opponent, int(d1), int(d2))
        at_zero = zero_ply(evaluate, replies)
        best = int(np.argmax(equity(at_zero)))
        valued = at_zero[best] if plies == 1 else reference_value(evaluate, replies[best],
                                                                  plies - 1)
        total += weight * valued[::-1]  # back to the mover's view
    return total


def zero_ply(evaluate, afterstates: np.ndarray) -> np.ndarray:
    """(K, 6) for the movers of afterstates (K, 26): a finished one by its result, the
    others by the net on the flipped position, reversed (one network call)."""
    points = STANDARD.end_of_game(afterstates)
    out = np.array(evaluate(flip(afterstates)))[:, ::-1]
    for k in np.flatnonzero(points):
        out[k] = certain(points[k:k + 1])[0]
    return out


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


@pytest.fixture(scope="module", autouse=True)
def _one_torch_thread():
    """One torch thread: the references make hundreds of tiny network calls, which a
    second thread only slows on a busy machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def evaluator():
    torch.manual_seed(3)
    net = ValueNet(198, (16,))
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(3.0)  # spread like a trained net, so choices differ
    return NetEvaluator(net.eval())


@pytest.fixture(scope="module")
def bear_off_plays():
    rng = np.random.default_rng(11)
    boards = _bear_off_positions(rng, 24)
    dice = rng.integers(1, 7, size=(len(boards), 2))
    return boards, dice, legal_plays(boards, dice)


def test_one_ply_matches_the_plain_loop_reference(evaluator, bear_off_plays):
    after = bear_off_plays[2].boards
    points = STANDARD.end_of_game(after)
    # the sample covers finished plays of every kind, and replies that win (style 0)
    assert {1, 2, 3} <= set(points.tolist()) and (points == 0).sum() >= 10
    ours = look_ahead(evaluator, after, 1)
    for k in range(len(after)):
        np.testing.assert_allclose(ours[k], reference_value(evaluator, after[k], 1),
                                   atol=2e-5, err_msg=f"afterstate {k}: {after[k].tolist()}")


def test_two_ply_matches_the_recursive_plain_loop_reference(evaluator, bear_off_plays):
    after = bear_off_plays[2].boards
    going = np.flatnonzero(STANDARD.end_of_game(after) == 0)
    sample = np.concatenate([going[:5], np.flatnonzero(STANDARD.end_of_game(after))[:1]])
    ours = look_ahead(evaluator, after[sample], 2)
    for row, k in enumerate(sample):
        np.testing.assert_allclose(ours[row], reference_value(evaluator, after[k], 2),
                                   atol=2e-5, err_msg=f"afterstate {k}: {after[k].tolist()}")
    assert not np.allclose(ours[:5], look_ahead(evaluator, after[sample[:5]], 1), atol=1e-3)


def test_zero_ply_is_the_net_alone(evaluator, bear_off_plays):
    after = bear_off_plays[2].boards
    np.testing.assert_array_equal(look_ahead(evaluator, after, 0), evaluator.after_play(after))


def test_a_winning_reply_is_final(evaluator):
    """The opponent's last checker on its 1-point: every roll bears it off and wins."""
    board = np.zeros(26, np.int8)
    board[20], board[24] = 5, -1  # our 5 checkers far from home; theirs on our 24 = their 1
    for plies in (1, 2):
        p = look_ahead(evaluator, board[None], plies)[0]
        np.testing.assert_allclose(p, certain(np.array([-1]))[0], atol=1e-6)  # a single loss


# --- the move filter --------------------------------------------------------------------


def test_the_filter_keeps_the_best_few_within_the_margin():
    root = np.array([0] * 12 + [1] * 3 + [2])
    equities = np.concatenate([np.linspace(0.5, -0.6, 12)[::-1],  # 12 plays, best last
                               [0.1, 0.1 - FILTER_EQUITY - 0.01, 0.1 - FILTER_EQUITY / 2],
                               [-2.0]])
    keep = candidates(equities, root, 3)
    first = np.flatnonzero(keep[:12])
    # the best 12 -> at most FILTER_PLAYS, all within the margin of 0.5, best kept
    assert 11 in first and len(first) <= FILTER_PLAYS
    assert (equities[first] >= 0.5 - FILTER_EQUITY).all()
    assert keep[12] and not keep[13] and keep[14] and keep[15]
    ties = candidates(np.zeros(10), np.zeros(10, np.int64), 1)
    assert ties.tolist() == [True] * FILTER_PLAYS + [False] * (10 - FILTER_PLAYS)


def test_filtered_plays_keep_their_zero_ply_value_and_are_never_chosen(evaluator):
    """From random middle-game positions: the plays left out keep their 0-ply value, the
    looked-ahead ones are the filter's, and the choice is one of those looked ahead."""
    from gammon.engine.sample import from_random_play
    boards, dice = from_random_play(np.random.default_rng(5), 6)
    plays = legal_plays(boards[:6], dice[:6])
    zero = evaluator.after_play(plays.boards)
    probs, depths = evaluate_plays(evaluator, plays.boards, plays.root, 6, 1)
    looked = depths == 1
    finished = STANDARD.end_of_game(plays.boards) != 0
    np.testing.assert_array_equal(looked & ~finished,
                                  candidates(equity(zero), plays.root, 6) & ~finished)
    np.testing.assert_array_equal(probs[~looked], zero[~looked])
    assert (~looked).any()
    bot = NetPolicy(evaluator, plies=1)
    chosen = bot.choose(plays, boards[:6], dice[:6])
    assert looked[chosen].all()
    np.testing.assert_array_equal(bot.depths(plays), depths)  # the same, kept evaluation
    # the choice is the best 1-ply value among the candidates, whatever 0-ply plays score
    scores = bot.scores(plays, boards[:6], dice[:6])
    for n, row in enumerate(chosen):
        mine = np.flatnonzero((plays.root == n) & looked)
        assert scores[row] == scores[mine].max()


# --- the net bot at every depth ---------------------------------------------------------


@pytest.mark.parametrize("plies", [0, 1, 2])
def test_a_finished_bear_off_outranks_every_other_play(plies):
    """With the shipped net: bearing off the last checkers (a single win) scores exactly 1
    and more than any play that leaves a checker, at every depth."""
    bot = load_net_bot(None, plies=plies)
    board = np.zeros(26, np.int8)
    board[1], board[4] = 1, 1  # 4-1 bears both off; other plays leave one
    board[19] = -4  # the opponent has borne 11 off (no gammon), 6-6 takes his last four
    dice = np.array([[4, 1]])
    plays = legal_plays(board[None], dice)
    assert len(plays) >= 2
    scores = bot.scores(plays, board[None], dice)
    won = STANDARD.end_of_game(plays.boards) != 0
    assert won.sum() == 1
    assert scores[won][0] == pytest.approx(1.0, abs=1e-6)
    assert (scores[~won] < scores[won][0]).all()
    assert won[bot.choose(plays, board[None], dice)[0]]


@pytest.mark.parametrize("bad", [-1, MAX_PLIES + 1, 1.0, True, "1"])
def test_plies_out_of_range_are_refused(evaluator, bad):
    with pytest.raises(ValueError, match="0-ply = the network alone"):
        check_plies(bad)
    with pytest.raises(ValueError, match="plies are 0 to"):
        NetPolicy(evaluator, plies=bad)


def test_nuclear_looks_ahead_with_the_bomb_kept(tmp_path):
    """A Nuclear net at 1-ply: the bomb stays folded into every position looked at, so the
    values differ by who owns it, and the rules read the plain boards."""
    from gammon.model import checkpoint as ckpt
    torch.manual_seed(4)
    path = tmp_path / "nuclear.pt"
    ckpt.save(path, ckpt.model_payload(ValueNet(200, (8,)), "nuclear", "nuclear"))
    bot = load_net_bot(str(path), "nuclear", plies=1)
    board = variant("nuclear").start_board()[None]
    dice = np.array([[3, 1]])
    plays = legal_plays(board, dice, variant("nuclear"))
    values = []
    for bomb in (0, 1, -1):
        bot.observe_extra({"bomb": np.array([bomb])})
        fresh = legal_plays(board, dice, variant("nuclear"))  # a new batch: no kept value
        values.append(bot.scores(fresh, board, dice))
        assert (bot.depths(fresh) <= 1).all()
    assert not np.allclose(values[0], values[1]) and not np.allclose(values[0], values[2])
    assert len(values[0]) == len(plays)
