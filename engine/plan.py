"""The game plan a position calls for, for the player on roll (NumPy only).

Our rules source describes four strategies; we add the race and the back game, and label
each position with one plan by rules on the board, tried in this order (the first that
holds wins):

1. ``race``: no contact left (``engine.phase.is_race``).
2. ``back game``: two or more anchors (points with two or more of our checkers) in the
   opponent's home board (our points 19..24) while we trail in the race by
   ``BACK_GAME_PIPS`` or more: the deep anchors of a back game.
3. ``blocking``: "build consecutive closed points up to a six-point prime, break it from
   the back" -- our longest run of made points is ``BLOCKING_RUN`` or more long and an
   opponent checker is behind it (on a lower point, or on the bar).
4. ``attacking``: "hit in your home board, take the opponent's 5-point, two checkers on the
   bar, accept blots to attack" -- the opponent has a checker on the bar or a blot in our
   home board, and we hold ``ATTACK_POINTS`` or more points of our home board.
5. ``holding``: "stay back on an anchor in the opponent's home, build your 5-, bar- and
   4-points, wait for a shot" -- we hold an anchor on the opponent's bar point or high in
   his home board (our points 18..21: his bar, 6-, 5- and 4-points; the deep anchors on
   his 3-, 2- and 1-points hold no game of their own unless two of them make a back game,
   so the opening position, where each side holds the other's 1-point, is running).
6. ``running``: "race home, pass the opponent's checkers safely, hit far-advanced
   checkers, avoid direct shots" -- contact, and none of the above.

``plans(boards)`` labels a batch: (N, 26) int8 from the player on roll -> (N,) int8
indices into ``PLANS``; the opponent's plan is ``plans(flip(boards))``.
"""

from __future__ import annotations

import numpy as np

from .phase import is_race

PLANS = ("race", "back game", "blocking", "attacking", "holding", "running")
RACE, BACK_GAME, BLOCKING, ATTACKING, HOLDING, RUNNING = range(6)

BACK_GAME_PIPS = 40  # pips behind in the race for two deep anchors to be a back game
BLOCKING_RUN = 4  # made points in a row, with an opponent checker behind them
ATTACK_POINTS = 2  # home-board points made, with an opponent checker on the bar or a blot there


def longest_run(made: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The longest run of consecutive made points and its lowest point: made (N, 24) bool
    for points 1..24 -> (length (N,), start (N,) point number, 0 when no point is made).
    Of several runs of the same length the lowest is taken."""
    n = len(made)
    length = np.zeros(n, dtype=np.int64)
    start = np.zeros(n, dtype=np.int64)
    run = np.zeros(n, dtype=np.int64)
    for p in range(24):
        run = np.where(made[:, p], run + 1, 0)
        longer = run > length
        length = np.where(longer, run, length)
        start = np.where(longer, p + 2 - run, start)  # point p + 1 ends a run of ``run``
    return length, start


def plans(boards: np.ndarray) -> np.ndarray:
    """The plan of the player on roll in each board: (N, 26) -> (N,) int8 (``PLANS``)."""
    b = np.asarray(boards, dtype=np.int16).reshape(-1, 26)
    mine = np.maximum(b, 0)
    theirs = np.maximum(-b, 0)
    made = mine[:, 1:25] >= 2  # (N, 24) points 1..24
    points = np.arange(26)
    my_pips = mine @ points
    their_pips = theirs @ (25 - points)
    deep_anchors = made[:, 18:24].sum(axis=1)  # points 19..24
    run, start = longest_run(made)
    # an opponent checker behind the run: on a point below its start, or on his bar (cell 0)
    below = points[None, :] < start[:, None]
    behind = ((theirs > 0) & below).any(axis=1)
    home_points = made[:, 0:6].sum(axis=1)
    target = (theirs[:, 0] > 0) | (theirs[:, 1:7] == 1).any(axis=1)
    out = np.full(len(b), RUNNING, dtype=np.int8)
    rules = [
        (is_race(b), RACE),
        ((deep_anchors >= 2) & (my_pips - their_pips >= BACK_GAME_PIPS), BACK_GAME),
        ((run >= BLOCKING_RUN) & behind, BLOCKING),
        (target & (home_points >= ATTACK_POINTS), ATTACKING),
        (made[:, 17:21].any(axis=1), HOLDING),
    ]
    decided = np.zeros(len(b), dtype=bool)
    for holds, plan in rules:
        now = holds & ~decided
        out[now] = plan
        decided |= now
    return out


def plan_names(boards: np.ndarray) -> list[str]:
    """``plans`` as words."""
    return [PLANS[i] for i in plans(boards)]


__all__ = ["PLANS", "RACE", "BACK_GAME", "BLOCKING", "ATTACKING", "HOLDING", "RUNNING",
           "plans", "plan_names", "longest_run", "BACK_GAME_PIPS", "BLOCKING_RUN",
           "ATTACK_POINTS"]
