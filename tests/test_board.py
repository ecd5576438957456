"""Boards, variants and their start positions, simple counts."""


import numpy as np
import pytest

from gammon.engine.board import borne_off, check_board, flip, pip_counts
from gammon.engine.rules import VARIANTS, start_boards, variant


def layout_of(board, side):
    """{point: checkers} for one side, each from its own view."""
    own = board if side == "mover" else flip(board)
    return {p: int(own[p]) for p in range(1, 25) if own[p] > 0}


@pytest.mark.parametrize("name, layout, checkers", [
    ("standard", {24: 2, 13: 5, 8: 3, 6: 5}, 15),
    ("nackgammon", {24: 2, 23: 2, 13: 4, 8: 3, 6: 4}, 15),
    ("hypergammon", {24: 1, 23: 1, 22: 1}, 3),
    ("longgammon", {24: 15}, 15),
])
def test_start_positions(name, layout, checkers):
    board = start_boards(1, name)[0]
    assert board.dtype == np.int8 and board.shape == (26,)
    assert layout_of(board, "mover") == layout
    assert layout_of(board, "opponent") == layout  # both sides start alike
    assert VARIANTS[name].checkers == checkers == sum(layout.values())
    assert borne_off(board[None], checkers) == (0, 0)
    assert board[0] == board[25] == 0


def test_standard_pip_counts_are_167():
    mover, opponent = pip_counts(start_boards(2))
    assert mover.tolist() == [167, 167] and opponent.tolist() == [167, 167]


def test_pip_counts_count_the_bar_as_25():
    board = np.zeros(26, np.int8)
    board[25], board[0], board[3], board[22] = 1, -2, 2, -1
    mover, opponent = pip_counts(board[None])
    assert mover[0] == 25 + 6
    assert opponent[0] == 2 * 25 + 3  # opponent's checker on our 22 is on its 3


def test_unknown_variant_lists_the_valid_ones():
    with pytest.raises(ValueError, match="standard, nackgammon, hypergammon, longgammon"):
        variant("plakato")


def test_check_board_names_the_problem():
    board = start_boards(1)[0].copy()
    check_board(board)
    board[6] += 1
    with pytest.raises(ValueError, match="16 checkers"):
        check_board(board)
    board = start_boards(1)[0].copy()
    board[25] = -1
    with pytest.raises(ValueError, match="mover's bar"):
        check_board(board)


def test_positive_is_the_maximum_with_zero_for_every_signed_integer():
    """``engine.board.positive`` (a sign mask) equals ``np.maximum(cells, 0)`` on every
    int8 value, and on int16, int32 and int64 arrays, keeping the dtype."""
    from gammon.engine.board import positive
    every = np.arange(-128, 128, dtype=np.int8).reshape(8, 32)
    np.testing.assert_array_equal(positive(every), np.maximum(every, 0))
    assert positive(every).dtype == np.int8
    rng = np.random.default_rng(0)
    for dtype in (np.int16, np.int32, np.int64):
        info = np.iinfo(dtype)
        x = np.concatenate([rng.integers(info.min, info.max, 1000, dtype=dtype),
                            np.array([info.min, -1, 0, 1, info.max], dtype=dtype)])
        np.testing.assert_array_equal(positive(x), np.maximum(x, 0))
        assert positive(x).dtype == dtype
