"""The public API's checks of what a caller passes: a variant's name, a die, a seed, a
count. Each wrong value is a one-line ValueError (``gammon.errors.UsageError``) naming
what was expected, raised where the API is called, never from deep inside."""

from __future__ import annotations

import numpy as np

from gammon.engine.rules import Rules, variant as get_variant

from .errors import UsageError, quote
from .positions import SEED_MAX, SEED_RANGE


def whole(value: object) -> int | None:
    """``value`` as an int when it is a whole number (an int or a NumPy integer, not a
    bool), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        return None
    return int(value)


def rules_of(variant: str) -> Rules:
    """The rules of a variant by name."""
    if not isinstance(variant, str):
        raise UsageError(f"a variant is named by a string, got {type(variant).__name__}")
    return get_variant(variant)


def die(value: object) -> int:
    """One die: a whole number from 1 to 6."""
    number = whole(value)
    if number is None or not 1 <= number <= 6:
        raise UsageError(f"a die is a whole number from 1 to 6, got {quote(value)}")
    return number


def seed(value: object) -> int | None:
    """A seed: None (a fresh one) or a whole number from 0 to 2**63-1."""
    if value is None:
        return None
    number = whole(value)
    if number is None or not 0 <= number <= SEED_MAX:
        raise UsageError(f"a seed is a whole number from {SEED_RANGE}, got {quote(value)}")
    return number


def count(value: object, what: str, low: int, high: int) -> int:
    """A whole number of ``what`` from ``low`` to ``high``."""
    number = whole(value)
    if number is None or not low <= number <= high:
        raise UsageError(f"{what} must be a whole number from {low:,} to {high:,}, got "
                         f"{quote(value)}")
    return number


__all__ = ["count", "die", "rules_of", "seed", "whole"]
