"""The ASCII board diagram: layout, checker counts, pips, bar and borne-off checkers."""

from __future__ import annotations

import numpy as np
import pytest

from gammon.engine.rules import start_boards
from gammon.engine.formats.diagram import diagram

TOP_EDGE = " +13-14-15-16-17-18------19-20-21-22-23-24-+"
BOTTOM_EDGE = " +12-11-10--9--8--7-------6--5--4--3--2--1-+"


def _frame(text: str) -> list[str]:
    """The board rows without the side notes: the 13 lines cut at the frame's right edge."""
    return [line[:len(TOP_EDGE)] for line in text.splitlines()]


def _cells(text: str, point: int) -> list[str]:
    """A point's five cells, read from the edge of the board towards the middle, stripped."""
    edge = TOP_EDGE if point >= 13 else BOTTOM_EDGE
    at = edge.index(f"{point:->2}-")  # a point's 3-character cell starts under its label
    rows = _frame(text)[1:6] if point >= 13 else _frame(text)[11:6:-1]
    return [row[at:at + 3].strip() for row in rows]


def _stack(text: str, point: int) -> str:
    """The checkers drawn on a point as one string, e.g. 'XXX' or 'XXXX9'."""
    return "".join(_cells(text, point))


def _bar(text: str) -> list[str]:
    """The bar column of every line, top to bottom, stripped."""
    return [row[21:24].strip() for row in _frame(text)]


def test_start_position():
    text = diagram(start_boards(1)[0])
    lines = text.splitlines()
    assert len(lines) == 13
    assert lines[0] == TOP_EDGE and lines[-1] == BOTTOM_EDGE
    frame = "\n".join(_frame(text))
    assert frame.count("X") == 15 and frame.count("O") == 15
    assert text.count("pips 167") == 2
    assert "X on roll" in text
    assert _stack(text, 24) == "XX"
    assert _stack(text, 13) == "XXXXX"
    assert _stack(text, 8) == "XXX"
    assert _stack(text, 6) == "XXXXX"
    assert _stack(text, 1) == "OO"
    assert _stack(text, 12) == "OOOOO"
    assert _stack(text, 17) == "OOO"
    assert _stack(text, 19) == "OOOOO"
    assert _stack(text, 2) == ""


def test_tall_stacks_bar_and_borne_off_checkers():
    board = np.zeros(26, dtype=np.int8)
    board[6], board[5], board[25] = 9, 3, 1  # 13 in play: 2 borne off
    board[19], board[24], board[0] = -12, -1, -2  # 15 in play: none off
    text = diagram(board)
    assert _cells(text, 6) == ["X", "X", "X", "X", "9"]
    assert _cells(text, 19) == ["O", "O", "O", "O", "12"]
    assert _stack(text, 5) == "XXX" and _stack(text, 24) == "O"
    assert _bar(text)[1:-1] == ["O", "O", "", "", "", "BAR", "", "", "", "", "X"]
    assert "X  pips  94  off  2  on bar 1" in text  # 9*6 + 3*5 + 25 for the bar
    assert "O  pips 123  off  0  on bar 2" in text  # 12*6 + 1*1 + 2*25, from its side


def test_pips_are_the_boards_pip_counts():
    board = np.zeros(26, dtype=np.int8)
    board[1], board[24] = 2, -3
    text = diagram(board)
    assert "X  pips   2  off 13" in text
    assert "O  pips   3  off 12" in text


def test_hypergammon_counts_three_checkers():
    text = diagram(start_boards(1, "hypergammon")[0], checkers=3)
    assert "off  0" in text and "pips  69" in text
    with pytest.raises(ValueError):
        diagram(start_boards(1)[0], checkers=3)


def test_an_impossible_board_is_refused():
    board = start_boards(1)[0]
    board[25] = -1
    with pytest.raises(ValueError, match="bar"):
        diagram(board)
