"""Reading positions and rolls typed by a user; answering with legal plays."""

from __future__ import annotations

import sys
from typing import Callable

import numpy as np

from engine.formats import posid
from engine.rules import variant as get_variant
from engine.movegen import legal_plays
from engine.formats.notation import format_play

from .errors import UsageError


def read_position(text: str, variant: str = "standard") -> np.ndarray:
    """The board of a Position ID, checked against the variant: (26,) int8."""
    try:
        return posid.decode(text, get_variant(variant).checkers)
    except ValueError as e:
        raise UsageError(str(e)) from None


def read_die(text: str) -> int:
    """One die: a whole number from 1 to 6."""
    if not text.strip().isdigit() or not 1 <= int(text) <= 6:
        raise UsageError(f"a die is a whole number from 1 to 6, got {text!r}")
    return int(text)


def read_request(line: str, variant: str = "standard") -> tuple[np.ndarray, int, int]:
    """A ``POSID D1 D2`` line: (board, d1, d2)."""
    words = line.split()
    if len(words) != 3:
        raise UsageError(f"expected 'POSID D1 D2', got {line.strip()!r}")
    return read_position(words[0], variant), read_die(words[1]), read_die(words[2])


def results(board: np.ndarray, d1: int, d2: int, notation: bool = True,
            variant: str = "standard") -> list[tuple[str, str]]:
    """Each legal play as (notation, resulting Position ID not flipped), sorted by ID.

    Empty when no play is legal. With ``notation=False`` the notation is left empty.
    """
    plays = legal_plays(board[None], np.array([[d1, d2]]), get_variant(variant))
    if plays.dice_used[0] == 0:
        return []
    ids = posid.encode_many(plays.boards)
    if not notation:
        return sorted(("", i) for i in ids)
    steps, hits = plays.steps, plays.hits
    plays_text = [format_play(steps[k], hits[k]) for k in range(len(plays))]
    return sorted(zip(plays_text, ids), key=lambda pair: pair[1])


def answer_requests(answer: Callable[[np.ndarray, int, int], str], variant: str) -> int:
    """Answer each ``POSID D1 D2`` line of stdin with one line, flushed at once.

    ``answer(board, d1, d2)`` gives the line; a bad request is answered ``error: ...``
    and the stream goes on.
    """
    out = sys.stdout
    for line in sys.stdin:
        try:
            text = answer(*read_request(line, variant))
        except UsageError as e:
            text = f"error: {e}"
        out.write(text + "\n")
        out.flush()
    return 0
