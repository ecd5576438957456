"""A slow, obviously correct scalar generator of legal plays: the test reference.

It walks every order of the dice one checker at a time, exactly as the rules are written,
with plain Python on one board. Nothing here is vectorised or clever on purpose. Single
steps are the rules object's plain scalar ``step`` (the generator uses its vectorised
``steps``, written apart: the tests compare the two); the rules on whole plays are written
here again, plainly, apart from the generator's.
"""

from __future__ import annotations

import numpy as np

from .rules import STANDARD, Rules, variant


def legal_results(board, d1: int, d2: int, rules: Rules | str = STANDARD) -> dict[tuple[int, ...], list[tuple[int, int, bool]]]:
    """Distinct legal afterstates of a roll, each with one play (list of steps) reaching it.

    Walks every order of the dice one step at a time, keeping every partial play (a board
    reached in the same number of steps with the same dice left is walked once). Then the
    rules: use as many dice as possible; when only one die of a mixed roll can be used, the
    larger must be used if it can. When no play is legal the board itself is the only
    result, with an empty play.
    """
    rules = variant(rules)
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
                moved = rules.step(b, source, dice[0])
                if isinstance(moved, str):
                    continue  # the rules say why not
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


def legal_boards(board, d1: int, d2: int, rules: Rules | str = STANDARD) -> np.ndarray:
    """Legal afterstates as a (K, 26) int8 array in a canonical (sorted) order."""
    results = sorted(legal_results(board, d1, d2, rules))
    return np.array(results, dtype=np.int8).reshape(-1, 26)
