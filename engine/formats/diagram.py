"""An ASCII diagram of one board for people, in the spirit of gnubg's ``show board``.

The player on roll is X and plays from 24 (top right) round to 1 (bottom right); the opponent
is O. Points 13..24 run along the top, 12..1 along the bottom; each point shows up to five
checkers and, when it holds more, the count in place of the fifth. The bar sits in the middle
column (O's checkers in the upper half, X's in the lower); pips and borne-off checkers are
written beside the board, and in Nuclear the bomb's owner ("bomb: centred", "bomb: X's",
"bomb: O's").

Plakoto (``engine.rules.plakoto``) has no bar and pins checkers: a pinned checker is drawn
at the foot of its point in lower case (``o`` under X's checkers, ``x`` under O's), the
checkers pinning it above; the counts beside the board include the pinned checkers.
"""

from __future__ import annotations

import numpy as np

from ..board import BAR, OPP_BAR, borne_off, check_board, pip_counts
from ..rules.plakoto import PIN, per_point

ROWS = 5  # checkers drawn per point; beyond that the fifth cell shows the count
TOP = (range(13, 19), range(19, 25))  # left and right quarters of the top half
BOTTOM = (range(12, 6, -1), range(6, 0, -1))




BOMB = {0: "bomb: centred", 1: "bomb: X's", -1: "bomb: O's"}  # Nuclear, owner relative to X


def diagram(board, checkers: int = 15, pins: bool = False, bomb: int | None = None) -> str:
    """The board as text, X on roll; ``checkers`` per side gives the borne-off counts.
    ``pins``: the board is Plakoto's (pinned checkers in the cells, no bar). ``bomb``:
    Nuclear's bomb (0 centred, +1 X's, -1 O's), said in a line beside the board."""
    board = np.asarray(board, dtype=np.int8)
    if pins:
        return _plakoto_diagram(board, checkers)
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
    if bomb is not None:
        side[ROWS + 2] = BOMB[int(bomb)]
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


def _plakoto_diagram(board: np.ndarray, checkers: int) -> str:
    """A Plakoto board: pinned checkers at the foot of their points, no bar."""
    cells = board.astype(np.int16)
    top = np.where(cells[1:25] >= 0, 1, -1) * (np.abs(cells[1:25]) % PIN)
    pinned = np.abs(cells[1:25]) >= PIN
    x_pinned = int((pinned & (cells[1:25] < 0)).sum())  # ours under theirs
    o_pinned = int((pinned & (cells[1:25] > 0)).sum())
    mine, theirs = per_point(board)  # (24,) each, pinned checkers included
    points = np.arange(1, 25)
    on = (int(mine.sum()), int(theirs.sum()))
    pips = (int((mine * points).sum()), int((theirs * (25 - points)).sum()))

    def stack(p: int) -> list[str]:
        """The symbols of point p from the edge: the pinned checker first."""
        n = int(top[p - 1])
        under = ["o" if n > 0 else "x"] if pinned[p - 1] else []
        return under + ["X" if n > 0 else "O"] * abs(n)

    def row(quarters, r: int | None) -> str:
        if r is None:
            blank = " " * 18
            return f" |{blank}|   |{blank}|"
        left, right = ("".join(_symbol(stack(p), r) for p in q) for q in quarters)
        return f" |{left}|   |{right}|"

    lines = [_edge(TOP)]
    lines += [row(TOP, r) for r in range(ROWS)]
    lines.append(row(TOP, None))
    lines += [row(BOTTOM, r) for r in reversed(range(ROWS))]
    lines.append(_edge(BOTTOM))
    side = {
        1: f"O  pips {pips[1]:>3}  off {checkers - on[1]:>2}  pinned {o_pinned}",
        ROWS + 1: "X on roll (Plakoto: lower case = pinned)",
        2 * ROWS + 1: f"X  pips {pips[0]:>3}  off {checkers - on[0]:>2}  pinned {x_pinned}",
    }
    return "\n".join(f"{line}   {side.get(i, '')}".rstrip() for i, line in enumerate(lines))


def _symbol(stack: list[str], r: int) -> str:
    """Row ``r`` of a Plakoto stack: its symbol, or in the last row of a tall stack the
    count of the checkers on top (as the other boards show their count), or blank."""
    if r >= min(len(stack), ROWS):
        return "   "
    if r == ROWS - 1 and len(stack) > ROWS:
        return f"{sum(s.isupper() for s in stack):>2} "
    return f" {stack[r]} "
