"""Sample positions for tests and benchmarks: from random play, and synthetic boards."""

from __future__ import annotations

import numpy as np

from .board import CELLS
from .dice import ROLLS
from .game import play, random_policy


def from_random_play(rng: np.random.Generator, games: int,
                     variant: str = "standard") -> tuple[np.ndarray, np.ndarray]:
    """Every position (with its roll) met in ``games`` games of random play.

    Returns (boards (N, 26) int8, dice (N, 2) int8).
    """
    boards, dice = [], []

    def keep(b: np.ndarray, d: np.ndarray) -> None:
        boards.append(b.copy())
        dice.append(d.copy())

    policy = random_policy(rng)
    play((policy, policy), games, rng, variant=variant, on_position=keep)
    return np.concatenate(boards), np.concatenate(dice)


def synthetic(rng: np.random.Generator, n: int, checkers: int = 15) -> np.ndarray:
    """n random legal boards (not necessarily reachable in play): (n, 26) int8.

    Each side puts a random number of its checkers (some borne off) on random cells; a
    point never holds both colours. Home-heavy and bar-heavy boards are over-sampled so
    that bear-offs and entering from the bar are well covered.
    """
    boards = np.zeros((n, CELLS), dtype=np.int8)
    for i in range(n):
        style = rng.integers(4)
        for side in (1, -1):
            count = rng.integers(1, checkers + 1)
            if style == 0:  # bearing off: mover all home
                cells = rng.integers(1, 7, count) if side == 1 else rng.integers(1, 25, count)
            elif style == 1:  # checkers on the bar
                cells = rng.integers(1, 26, count)
            else:
                cells = rng.integers(1, 25, count)
            for cell in cells:
                if side == -1:
                    cell = 25 - cell if cell < 25 else 0  # opponent's own numbering
                if cell in (0, 25):
                    boards[i, cell] += side
                elif boards[i, cell] * side >= 0:  # never both colours on one point
                    boards[i, cell] += side
    return boards


ALL_ROLLS = ROLLS  # the 21 distinct rolls
"""The 21 distinct rolls, larger die first: (21, 2)."""
