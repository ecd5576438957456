"""A slow, obviously correct scalar generator of legal plays: the test reference.

It walks every order of the dice one checker at a time, exactly as the rules are written,
with plain Python on one board. Nothing here is vectorised or clever on purpose.
"""

from __future__ import annotations

import numpy as np

BAR = 25


def step(board: tuple[int, ...], source: int, die: int) -> tuple[tuple[int, ...], bool] | None:
    """Move one of the mover's checkers from ``source`` by ``die`` pips, if the rules allow.

    Returns (new board, hit) or None when that step is illegal.
    """
    b = list(board)
    if b[source] <= 0:
        return None  # no checker of ours there
    if b[BAR] > 0 and source != BAR:
        return None  # a checker on the bar must enter before any other moves
    target = source - die
    if target >= 1:
        if b[target] <= -2:
            return None  # two or more opposing checkers close the point
        hit = b[target] == -1
        b[source] -= 1
        if hit:
            b[target] = 1
            b[0] -= 1  # the hit checker goes to the opponent's bar
        else:
            b[target] += 1
        return tuple(b), hit
    # bearing off: every checker (bar included) must be in the home board, points 1..6
    if any(b[p] > 0 for p in range(7, 26)):
        return None
    if target < 0 and any(b[p] > 0 for p in range(source + 1, 7)):
        return None  # a higher die bears off from a lower point only when none stands higher
    b[source] -= 1
    return tuple(b), False


def legal_results(board, d1: int, d2: int) -> dict[tuple[int, ...], list[tuple[int, int, bool]]]:
    """Distinct legal afterstates of a roll, each with one play (list of steps) reaching it.

    Walks every order of the dice one step at a time, keeping every partial play (a board
    reached in the same number of steps with the same dice left is walked once). Then the
    rules: use as many dice as possible; when only one die of a mixed roll can be used, the
    larger must be used if it can. When no play is legal the board itself is the only
    result, with an empty play.
    """
    start = tuple(int(x) for x in board)
    orders = [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]
    # partial plays after k steps: {(board, dice left): steps so far}
    frontier = {(start, dice): [] for dice in orders}
    reached = [dict(frontier)]
    while frontier:
        following = {}
        for (b, dice), steps in frontier.items():
            if not dice:
                continue
            for source in range(1, 26):
                moved = step(b, source, dice[0])
                if moved is None:
                    continue
                nb, hit = moved
                following.setdefault((nb, dice[1:]), steps + [(source, max(source - dice[0], 0), hit)])
        if following:
            reached.append(following)
        frontier = following
    most = len(reached) - 1  # the most dice any play uses
    chosen = reached[most]
    if most == 1 and d1 != d2:
        # the die used is the one no longer left; prefer plays of the larger die
        larger = {k: v for k, v in chosen.items() if max(d1, d2) not in k[1]}
        chosen = larger or chosen
    results: dict[tuple[int, ...], list[tuple[int, int, bool]]] = {}
    for (b, _), steps in chosen.items():
        results.setdefault(b, steps)
    return results


def legal_boards(board, d1: int, d2: int) -> np.ndarray:
    """Legal afterstates as a (K, 26) int8 array in a canonical (sorted) order."""
    results = sorted(legal_results(board, d1, d2))
    return np.array(results, dtype=np.int8).reshape(-1, 26)
