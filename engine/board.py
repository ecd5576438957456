"""The board: its layout, side changes and simple counts.

A board is an ``int8`` array of 26 cells, always seen from the player on roll (the mover),
who travels from point 24 towards point 1 and bears off below point 1:

    index 0      the opponent's bar (<= 0)
    index 1..24  the points; positive = mover's checkers, negative = opponent's
    index 25     the mover's bar (>= 0)

Borne-off checkers are derived from the variant's checkers per side and never stored.
The variants (start, steps, end of game) are rules objects: ``engine.rules``.
Batches are ``(N, 26)``.
"""

from __future__ import annotations

import numpy as np

OPP_BAR = 0
BAR = 25
CELLS = 26
HOME = slice(1, 7)  # the mover's home board, points 1..6


def flip(boards: np.ndarray) -> np.ndarray:
    """Change sides: the opponent becomes the mover. Its own inverse. (..., 26) int8."""
    return -boards[..., ::-1]


def positive(cells: np.ndarray) -> np.ndarray:
    """max(cells, 0) elementwise of a signed integer array (the mover's checkers of boards:
    (..., 26) int8), as ``np.maximum(cells, 0)``: that compares against a scalar, a loop
    NumPy (2.4) does not vectorise, about 7x slower than this sign mask on int8 boards."""
    return cells & ~(cells >> (8 * cells.itemsize - 1))


def on_board(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Checkers still in play (points and bar) for (mover, opponent): two (N,) int arrays."""
    b = boards.astype(np.int16)
    mover = np.where(b > 0, b, 0).sum(axis=-1)
    opponent = np.where(b < 0, -b, 0).sum(axis=-1)
    return mover, opponent


def borne_off(boards: np.ndarray, checkers: int) -> tuple[np.ndarray, np.ndarray]:
    """Checkers borne off by (mover, opponent), given the checkers per side."""
    mover, opponent = on_board(boards)
    return checkers - mover, checkers - opponent


def pip_counts(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pip counts (mover, opponent): the mover's checker on point p needs p pips,
    the opponent's on our point p needs 25 - p; a bar checker needs 25."""
    b = boards.astype(np.int32)
    points = np.arange(CELLS)
    mover = (np.where(b > 0, b, 0) * points).sum(axis=-1)
    opponent = (np.where(b < 0, -b, 0) * (25 - points)).sum(axis=-1)
    return mover, opponent


def check_board(board: np.ndarray, checkers: int = 15) -> None:
    """Raise ValueError naming the problem when a single board is impossible."""
    board = np.asarray(board)
    if board.shape != (CELLS,):
        raise ValueError(f"a board has 26 cells, got shape {board.shape}")
    if board[OPP_BAR] > 0:
        raise ValueError("the opponent's bar (cell 0) holds a mover's checker")
    if board[BAR] < 0:
        raise ValueError("the mover's bar (cell 25) holds an opponent's checker")
    mover, opponent = on_board(board[None])
    if mover[0] > checkers:
        raise ValueError(f"the player on roll has {mover[0]} checkers; at most {checkers}")
    if opponent[0] > checkers:
        raise ValueError(f"the opponent has {opponent[0]} checkers; at most {checkers}")


def from_board28(board28) -> np.ndarray:
    """The 28-int form of ../shared/oracle (mover's off and opponent's off appended)."""
    return np.asarray(board28[:26], dtype=np.int8)
