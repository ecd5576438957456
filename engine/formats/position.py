"""Positions as text for any variant: gnubg Position IDs, or the rules' own text.

Every variant but Plakoto writes a position as a gnubg Position ID (``engine.formats.posid``);
Plakoto, whose pins a Position ID cannot hold, writes the ``plakoto:`` text of
``engine.rules.plakoto`` (its rules object says so: ``Rules.position_format``). Commands
read and write positions only through ``read`` and ``write_many``.
"""

from __future__ import annotations

import numpy as np

from . import posid
from ..rules import Rules, variant as get_variant
from ..rules import plakoto


def read(text: str, rules: Rules | str) -> np.ndarray:
    """The board (26,) int8 of a position written for ``rules``; ValueError says why not."""
    rules = get_variant(rules)
    word = str(text).strip()
    if rules.position_format == "plakoto":
        if not word.startswith(plakoto.PREFIX) and len(word) == 14:
            raise ValueError("Plakoto positions are not Position IDs (a Position ID cannot "
                             "hold pins); write plakoto: and 24 comma-separated fields")
        return plakoto.read_position(word, rules.checkers)
    if word.startswith(plakoto.PREFIX):
        raise ValueError(f"a plakoto: position is only for --variant plakoto; {rules.name} "
                         f"positions are gnubg Position IDs")
    return posid.decode(word, rules.checkers)


def write_many(boards: np.ndarray, rules: Rules | str) -> list[str]:
    """Each board of (N, 26) written for ``rules``."""
    rules = get_variant(rules)
    if rules.position_format == "plakoto":
        return plakoto.write_positions(boards)
    return posid.encode_many(boards)


def write(board: np.ndarray, rules: Rules | str) -> str:
    """One board (26,) written for ``rules``."""
    return write_many(np.asarray(board)[None], rules)[0]
