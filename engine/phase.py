"""The phase of a game a position is in, for choosing which network values it (NumPy only).

``contact``: the two sides' rearmost checkers have not passed each other, so a hit is
still possible; ``race``: no contact left (every checker of the mover is on a lower point
than every checker of the opponent, or a side has none left in play). Races with every
checker home are not a network's at all: the bear-off database settles them
(``engine.bearoff``).
"""

from __future__ import annotations

import numpy as np

PHASES = ("contact", "race", "crashed")
CONTACT, RACE, CRASHED = 0, 1, 2


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


def classify(boards: np.ndarray, crashed: bool = False) -> np.ndarray:
    """The phase of each board: (N, 26) int8 -> (N,) int8, CONTACT (0) or RACE (1); with
    ``crashed``, CRASHED (2) for the contact positions ``is_crashed`` calls so (asked only
    by those with a crashed network: the test costs a few microseconds a board)."""
    phase = is_race(boards).astype(np.int8)
    if crashed:
        phase[is_crashed(boards)] = CRASHED
    return phase


CRASHED_CHECKERS = 6  # gnubg's N


def _sides(boards: np.ndarray) -> np.ndarray:
    """Each side's checkers in play from its own view: (N, 2, 25) int, [..., i] on its
    point i+1 (i = 24: its bar); side 0 the mover, side 1 the opponent."""
    b = np.asarray(boards).astype(np.int64)
    mover = np.concatenate([np.maximum(b[:, 1:25], 0), b[:, 25:26]], axis=1)
    opponent = np.concatenate([np.maximum(-b[:, 24:0:-1], 0), -b[:, 0:1]], axis=1)
    return np.stack([mover, opponent], axis=1)


def is_crashed(boards: np.ndarray) -> np.ndarray:
    """Whether each contact position is "crashed" as GNU Backgammon classifies it: (N,)
    bool (False for races).

    Our reading of gnubg's rule (ClassifyPosition, N = 6): a contact position is crashed
    when either side has at most N checkers left in play, or at most N once the checkers
    piled deep on its lowest points are set aside: with two or more on its one point, at
    most N + (those on the one point) in play, or (with two or more on its two point too)
    at most N on the rest plus one; with at most one on its one point, at most
    N + (those on its two point) - 1 in play. Checked against gnubg-nn's classify.
    """
    sides = _sides(boards)  # (N, 2, 25)
    tot = sides.sum(axis=2)
    ace, two = sides[:, :, 0], sides[:, :, 1]
    n = CRASHED_CHECKERS
    piled = (ace > 1) & ((tot <= n + ace) | ((two > 1) & (1 + tot - (ace + two) <= n)))
    thin = (ace <= 1) & (tot <= n + (two - 1))
    crashed = ((tot <= n) | piled | thin).any(axis=1)
    return crashed & ~is_race(boards)
