"""Dice, the opening roll, the end of a game and its result, the game loop."""

import numpy as np

from gammon.engine.dice import opening_roll, roll
from gammon.engine.game import play, random_policy
from gammon.engine.rules import BACKGAMMON, GAMMON, HYPERGAMMON, SINGLE, STANDARD, start_boards


def finished(boards):
    return STANDARD.end_of_game(boards) != 0


def test_dice_come_from_the_generator():
    a = roll(np.random.default_rng(5), 1000)
    b = roll(np.random.default_rng(5), 1000)
    assert (a == b).all()
    assert a.min() == 1 and a.max() == 6
    counts = np.bincount(a.ravel(), minlength=7)[1:]
    assert (abs(counts - 2000 / 6) < 100).all()


def test_opening_roll_never_ties_and_higher_die_moves_first():
    first, dice = opening_roll(np.random.default_rng(1), 5000)
    assert (dice[:, 0] != dice[:, 1]).all()
    assert ((first == 0) == (dice[:, 0] > dice[:, 1])).all()
    assert 0.45 < first.mean() < 0.55


def _won(mover_off_all, opponent):
    """An afterstate where the mover has borne off everything; opponent {point: n}."""
    board = np.zeros(26, np.int8)
    for point, n in opponent.items():
        board[point] -= n
    return board


def test_results_single_gammon_backgammon():
    single = _won(True, {20: 14})  # the opponent bore off one checker
    gammon = _won(True, {20: 15})
    back_home = _won(True, {20: 14, 3: 1})  # one in the winner's home board
    back_bar = _won(True, {20: 14, 0: 1})  # one on the bar
    boards = np.stack([single, gammon, back_home, back_bar])
    assert finished(boards).all()
    assert STANDARD.end_of_game(boards).tolist() == [SINGLE, GAMMON, BACKGAMMON, BACKGAMMON]
    assert not finished(start_boards(1)).any()


def test_hypergammon_result_counts_three_checkers():
    board = np.zeros(26, np.int8)
    board[20] = -3
    assert HYPERGAMMON.end_of_game(board[None]).tolist() == [GAMMON]
    board[20] = -2
    assert HYPERGAMMON.end_of_game(board[None]).tolist() == [SINGLE]


def test_random_games_end_and_are_reproducible():
    def run(seed):
        rng = np.random.default_rng(seed)
        policy = random_policy(rng)
        return play((policy, policy), 64, rng)

    a, b = run(3), run(3)
    assert (a.points == b.points).all() and (a.plies == b.plies).all()
    assert (a.points != 0).all()  # every game finished
    assert set(np.abs(a.points).tolist()) <= {1, 2, 3}
    assert 40 < a.plies.mean() < 200


def test_every_variant_plays_to_the_end():
    for name in ("nackgammon", "hypergammon", "longgammon"):
        rng = np.random.default_rng(0)
        policy = random_policy(rng)
        results = play((policy, policy), 16, rng, variant=name)
        assert (results.points != 0).all(), name
