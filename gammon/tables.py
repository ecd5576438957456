"""Tables of plays for people: the probability and look-ahead columns that ``gammon
hint``, ``analyze`` and ``play``'s hints print."""

from __future__ import annotations

from collections.abc import Callable

from gammon.engine.outcomes import FIVE


def ply_cells(rows: list[dict]) -> tuple[str, Callable[[dict], str]]:
    """The header and the cell maker of the plies column: shown only when some play was
    looked ahead (``row['plies']`` > 0), as '1-ply', '0-ply'..."""
    if not any(r.get("plies", 0) for r in rows):
        return "", lambda row: ""
    return f"{'ply':>5}  ", lambda row: f"{row['plies']}-ply  "


def probability_header() -> str:
    return f"{'win':>6} {'w(g)':>6} {'w(bg)':>6} {'l(g)':>6} {'l(bg)':>6}"


def probability_cells(row: dict) -> str:
    p = row["probabilities"]
    return " ".join(f"{100 * p[name]:5.1f}%" for name in FIVE)
