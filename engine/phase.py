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


_UP = np.arange(1, 27, dtype=np.uint8)[:, None]  # 1 + cell index
_DOWN = np.arange(26, 0, -1, dtype=np.uint8)[:, None]  # 26 - cell index


def race_of_cells(cells: np.ndarray) -> np.ndarray:
    """is_race of boards given cell-major, (26, N), which reduces faster: (N,) bool."""
    # uint8 products and maxima keep the (26, N) temporaries small and the reductions fast
    mover_back = ((cells > 0) * _UP).max(axis=0)  # 1 + his rearmost cell (26 = bar), 0 none
    opp_back = ((cells < 0) * _DOWN).max(axis=0)  # 26 - his rearmost cell (0 = bar), 0 none
    # race: every mover checker below every opponent checker, or a side has none left
    # (mover_back - 1 < 26 - opp_back, and 0 <= 26 - opp_back when either has none)
    return mover_back <= np.uint8(26) - opp_back


def classify(boards: np.ndarray) -> np.ndarray:
    """The phase of each board: (N, 26) int8 -> (N,) int8, CONTACT (0) or RACE (1)."""
    return is_race(boards).astype(np.int8)
