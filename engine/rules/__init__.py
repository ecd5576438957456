"""The rules of each variant as one object (``engine.rules.base.Rules``), by name.

``variant(name)`` looks one up (a clear ValueError lists the valid names); every function of
the engine that takes a ``variant`` accepts a name or a rules object.
"""

from __future__ import annotations

import numpy as np

from .base import BACKGAMMON, GAMMON, SINGLE, Rules
from .standard import HYPERGAMMON, LONGGAMMON, NACKGAMMON, STANDARD, StandardRules
from .suddendeath import SUDDENDEATH
from .caucasian import CAUCASIAN
from .plakoto import PLAKOTO
from .nuclear import NUCLEAR

VARIANTS: dict[str, Rules] = {r.name: r for r in (STANDARD, NACKGAMMON, HYPERGAMMON,
                                                   LONGGAMMON, CAUCASIAN, SUDDENDEATH,
                                                   NUCLEAR, PLAKOTO)}


def variant(name: str | Rules) -> Rules:
    """The rules of a variant by name (a rules object is returned as it is)."""
    if isinstance(name, Rules):
        return name
    try:
        return VARIANTS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown variant {name!r}; valid: {', '.join(VARIANTS)}"
        ) from None


def start_boards(n: int, name: str | Rules = "standard") -> np.ndarray:
    """n copies of a variant's starting position: (n, 26) int8."""
    return variant(name).start_boards(n)


__all__ = ["Rules", "StandardRules", "VARIANTS", "variant", "start_boards", "STANDARD",
           "NACKGAMMON", "HYPERGAMMON", "LONGGAMMON", "SUDDENDEATH", "CAUCASIAN", "PLAKOTO", "NUCLEAR", "SINGLE", "GAMMON", "BACKGAMMON"]
