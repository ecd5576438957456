"""Hypothesis properties of boards, legal plays and Position IDs."""

import numpy as np
from hypothesis import given, settings, strategies as st

from gammon.engine import reference
from gammon.engine.formats import posid
from gammon.engine.board import flip, on_board
from gammon.engine.movegen import legal_plays


@st.composite
def boards(draw, checkers=15):
    """A legal board: each side spreads up to ``checkers`` over cells, never sharing a point."""
    board = np.zeros(26, dtype=np.int8)
    for side in (1, -1):
        n = draw(st.integers(0 if side == -1 else 1, checkers))
        for _ in range(n):
            cell = draw(st.integers(0, 25))
            if side == 1 and cell == 0:
                cell = 25  # the mover's bar
            if side == -1 and cell == 25:
                cell = 0  # the opponent's bar
            if cell in (0, 25) or board[cell] * side >= 0:
                board[cell] += side
    return board


dice = st.tuples(st.integers(1, 6), st.integers(1, 6))


@settings(max_examples=300, deadline=None)
@given(boards(), dice)
def test_plays_conserve_checkers_and_never_repeat(board, roll):
    plays = legal_plays(board[None], np.array([roll]))
    assert len(plays) >= 1 and (plays.root == 0).all()
    assert len({bytes(b) for b in plays.boards}) == len(plays)
    mover0, opp0 = on_board(board[None])
    mover, opp = on_board(plays.boards)
    assert (opp == opp0[0]).all()  # hit checkers go to the bar, none vanish
    assert ((mover0[0] - mover >= 0) & (mover0[0] - mover <= 4)).all()
    assert (plays.boards[:, 0] <= 0).all() and (plays.boards[:, 25] >= 0).all()
    assert (plays.dice_used <= (4 if roll[0] == roll[1] else 2)).all()
    assert len(set(plays.dice_used.tolist())) == 1  # every legal play uses as many dice


@settings(max_examples=200, deadline=None)
@given(boards(), dice)
def test_plays_equal_the_scalar_reference(board, roll):
    plays = legal_plays(board[None], np.array([roll]))
    expected = reference.legal_boards(board, *roll)
    assert sorted(map(bytes, plays.boards)) == sorted(map(bytes, expected))


@settings(max_examples=300, deadline=None)
@given(boards())
def test_flip_is_an_involution(board):
    assert (flip(flip(board)) == board).all()
    mover, opp = on_board(board[None])
    fmover, fopp = on_board(flip(board)[None])
    assert (mover, opp) == (fopp, fmover)


@settings(max_examples=300, deadline=None)
@given(boards())
def test_position_ids_round_trip(board):
    text = posid.encode(board)
    assert len(text) == 14
    assert (posid.decode(text) == board).all()
