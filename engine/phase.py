"""The phase of a game a position is in, for choosing which network values it (NumPy only).

``contact``: the two sides' rearmost checkers have not passed each other, so a hit is
still possible; ``race``: no contact left (every checker of the mover is on a lower point
than every checker of the opponent, or a side has none left in play). Races with every
checker home are not a network's at all: the bear-off database settles them
(``engine.bearoff``).
"""

from __future__ import annotations

import numpy as np

PHASES = ("contact", "race")
CONTACT, RACE = 0, 1


def is_race(boards: np.ndarray) -> np.ndarray:
    """Whether each board is a race (no contact left) as gnubg classifies it: (N,) bool.

    gnubg's ClassifyPosition calls a position contact when the two rearmost checkers
    (bar counted as the back) have not passed each other, and a race, bear-off or finished
    game otherwise; pubeval's "race" is everything up to CLASS_RACE. In our coordinates:
    race when every mover checker sits on a lower point than every opponent checker, or
    when either side has no checker left in play. Symmetric in the two sides, so it gives
    the same answer for a board and its flip.
    """
    return race_of_cells(np.ascontiguousarray(np.asarray(boards).T))


def race_of_cells(cells: np.ndarray) -> np.ndarray:
    """is_race of boards given cell-major, (26, N), which reduces faster: (N,) bool."""
    index = np.arange(26, dtype=np.int8)[:, None]  # int8 keeps the (26, N) temporaries small
    mover_back = np.where(cells > 0, index, np.int8(-1)).max(axis=0)  # 25 = bar, -1 = none
    opp_back = np.where(cells < 0, index, np.int8(26)).min(axis=0)  # 0 = bar, 26 = none
    none_left = (mover_back < 0) | (opp_back > 25)
    return none_left | (mover_back < opp_back)


def classify(boards: np.ndarray) -> np.ndarray:
    """The phase of each board: (N, 26) int8 -> (N,) int8, CONTACT (0) or RACE (1)."""
    return is_race(boards).astype(np.int8)
