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


def all_plays(board, d1: int, d2: int) -> list[tuple[tuple[int, ...], list[tuple[int, int, bool]], list[int]]]:
    """Every sequence of steps for the roll, of every length, with its end board.

    Returns a list of (end board, [(source, target, hit), ...], [die of each step]);
    target 0 means borne off. The empty play is included.
    """
    start = tuple(int(x) for x in board)
    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
    found = [(start, [], [])]

    def walk(b, dice, steps, used):
        if not dice:
            return
        die = dice[0]
        for source in range(1, 26):
            moved = step(b, source, die)
            if moved is None:
                continue
            nb, hit = moved
            path = steps + [(source, max(source - die, 0), hit)]
            found.append((nb, path, used + [die]))
            walk(nb, dice[1:], path, used + [die])

    for dice in orders:
        walk(start, dice, [], [])
    return found


def legal_results(board, d1: int, d2: int) -> dict[tuple[int, ...], list[tuple[int, int, bool]]]:
    """Distinct legal afterstates of a roll, each with one play (list of steps) reaching it.

    Rules applied after enumeration: use as many dice as possible; when only one die of a
    mixed roll can be used, the larger must be used if it can. When no play is legal the
    board itself is the only result, with an empty play.
    """
    plays = all_plays(board, d1, d2)
    most = max(len(steps) for _, steps, _ in plays)
    chosen = [(b, s, u) for b, s, u in plays if len(s) == most]
    if most == 1 and d1 != d2:
        with_larger = [(b, s, u) for b, s, u in chosen if u[0] == max(d1, d2)]
        if with_larger:
            chosen = with_larger
    results: dict[tuple[int, ...], list[tuple[int, int, bool]]] = {}
    for b, s, _ in chosen:
        results.setdefault(b, s)
    return results


def legal_boards(board, d1: int, d2: int) -> np.ndarray:
    """Legal afterstates as a (K, 26) int8 array in a canonical (sorted) order."""
    results = sorted(legal_results(board, d1, d2))
    return np.array(results, dtype=np.int8).reshape(-1, 26)
