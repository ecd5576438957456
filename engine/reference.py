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


def caucasian_boards(board, d1: int, d2: int) -> set[bytes]:
    """The Caucasian rule's legal results (as ``bytes`` of (26,) int8 boards), plainly,
    checker by checker: every play as a sequence of single steps, each step either of a
    checker that hit in the home board (a hitter) or of another, the standard rules on whole
    plays, then the Caucasian removal ("remove every play in which a checker that hit a
    blot on one of the mover's home points later in the same play lands on a point already
    holding one or more of the mover's checkers, or is borne off. If that removes every
    play, keep them all"). Written apart from ``engine.rules.caucasian``'s play state."""
    start = (tuple(int(v) for v in board), frozenset(), False)  # board, hitters, hid
    orders = [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]
    frontier = {(start, dice) for dice in orders}
    reached = [frontier]
    while frontier:
        following = set()
        for (b, hitters, hid), dice in frontier:
            if not dice:
                continue
            for source in range(1, 26):
                moved = STANDARD.step(b, source, dice[0])
                if isinstance(moved, str):
                    continue
                nb, hit = moved
                target = max(source - dice[0], 0)
                tokens = [False] + ([True] if source in hitters else [])
                if source in hitters and b[source] == 1:
                    tokens = [True]  # the hitter is the only checker there
                for is_hitter in tokens:
                    h, now_hid = set(hitters), hid
                    if is_hitter:
                        h.discard(source)
                        if target == 0 or (b[target] > 0):
                            now_hid = True
                        else:
                            h.add(target)
                    if hit and 1 <= target <= 6:
                        h.add(target)
                    following.add(((nb, frozenset(h), now_hid), dice[1:]))
        if following:
            reached.append(following)
        frontier = following
    most = len(reached) - 1
    chosen = reached[most]
    if most == 1 and d1 != d2:
        larger = {k for k in chosen if max(d1, d2) not in k[1]}
        chosen = larger or chosen
    clean = {np.array(s[0], np.int8).tobytes() for s, _ in chosen if not s[2]}
    every = {np.array(s[0], np.int8).tobytes() for s, _ in chosen}
    return clean or every
