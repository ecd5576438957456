"""The crashed class of contact positions (``engine.phase.is_crashed``) against GNU
Backgammon's own classifier (the PyPI gnubg-nn package)."""

from __future__ import annotations

import numpy as np
import pytest

from gammon.engine.board import flip
from gammon.engine.phase import is_crashed, is_race
from gammon.eval.bots.registry import make_bot
from gammon.eval.reports.rollout_check import play_positions

gnubg_nn = pytest.importorskip("gnubg_nn")


def test_crashed_agrees_with_gnubg_on_self_play_positions():
    from gammon.eval.bots.gnubg import gnubg_board
    boards = play_positions(make_bot("pubeval"), 2000, 5)
    ours = is_crashed(boards)
    theirs = np.array([gnubg_nn.classify(gnubg_board(b)) == gnubg_nn.c_crashed
                       for b in boards])
    assert theirs.sum() > 100 and (~theirs & ~is_race(boards)).sum() > 1000
    assert np.array_equal(ours, theirs)
    # one side crashing crashes the position, whoever is on roll
    assert np.array_equal(is_crashed(flip(boards)), ours)


def test_crashed_by_hand():
    board = np.zeros(26, dtype=np.int8)
    board[1:7] = (3, 3, 3, 2, 2, 1)  # the mover: 14 checkers home
    board[25] = 1  # and one on the bar: contact
    board[13], board[24] = -13, -2
    assert not is_crashed(board[None])[0]
    crashed = board.copy()
    crashed[1:7] = (8, 4, 0, 0, 0, 0)  # 13 in play, 8 of them on his one point: 13 <= 6 + 8
    assert is_crashed(crashed[None])[0]
