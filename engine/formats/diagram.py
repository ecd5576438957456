"""An ASCII diagram of one board for people, in the spirit of gnubg's ``show board``.

The player on roll is X and plays from 24 (top right) round to 1 (bottom right); the opponent
is O. Points 13..24 run along the top, 12..1 along the bottom; each point shows up to five
checkers and, when it holds more, the count in place of the fifth. The bar sits in the middle
column (O's checkers in the upper half, X's in the lower); pips and borne-off checkers are
written beside the board.
"""

from __future__ import annotations

import numpy as np

from ..board import BAR, OPP_BAR, borne_off, check_board, pip_counts

ROWS = 5  # checkers drawn per point; beyond that the fifth cell shows the count
TOP = (range(13, 19), range(19, 25))  # left and right quarters of the top half
BOTTOM = (range(12, 6, -1), range(6, 0, -1))


def diagram(board, checkers: int = 15) -> str:
    """The board as text, X on roll; ``checkers`` per side gives the borne-off counts."""
    board = np.asarray(board, dtype=np.int8)
    check_board(board, checkers)
    pips = [int(x[0]) for x in pip_counts(board[None])]
    off = [int(x[0]) for x in borne_off(board[None], checkers)]
    lines = [_edge(TOP)]
    lines += [_row(board, TOP, r, top=True) for r in range(ROWS)]
    lines.append(_row(board, TOP, None, top=True))
    lines += [_row(board, BOTTOM, r, top=False) for r in reversed(range(ROWS))]
    lines.append(_edge(BOTTOM))
    side = {
        1: f"O  pips {pips[1]:>3}  off {off[1]:>2}  on bar {-int(board[OPP_BAR])}",
        ROWS + 1: "X on roll",
        2 * ROWS + 1: f"X  pips {pips[0]:>3}  off {off[0]:>2}  on bar {int(board[BAR])}",
    }
    return "\n".join(f"{line}   {side.get(i, '')}".rstrip() for i, line in enumerate(lines))


def _edge(quarters) -> str:
    """The frame's top or bottom edge carrying the point numbers: +13-14-...-24-+."""
    left, right = ("".join(f"{p:->2}-" for p in q) for q in quarters)
    return f" +{left}-----{right}+"


def _row(board: np.ndarray, quarters, r: int | None, top: bool) -> str:
    """One row of checkers, ``r`` cells from the edge; None draws the middle row with BAR."""
    if r is None:
        blank = " " * 18
        return f" |{blank}|BAR|{blank}|"
    left, right = ("".join(_cell(int(board[p]), r) for p in q) for q in quarters)
    # O's bar checkers hang in the top half of the bar, X's stand in the bottom half
    bar = _cell(int(board[OPP_BAR]), r) if top else _cell(int(board[BAR]), r)
    return f" |{left}|{bar}|{right}|"


def _cell(count: int, r: int) -> str:
    """Row ``r`` of a stack of ``count`` checkers (+ X, - O): ' X ', ' O ', the count or blank."""
    n = abs(count)
    if r >= min(n, ROWS):
        return "   "
    if r == ROWS - 1 and n > ROWS:
        return f"{n:>2} "
    return " X " if count > 0 else " O "
