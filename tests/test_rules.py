"""The rules as readable cases: a position, a roll, and every legal play in Magriel notation.

Positions are written as the mover's checkers (x) and the opponent's (o), both by the
mover's point numbers; ``"bar"`` is each side's own bar.
"""

import numpy as np
import pytest

from gammon.engine.movegen import legal_plays
from gammon.engine.formats.notation import format_play


def position(x: dict, o: dict) -> np.ndarray:
    board = np.zeros(26, dtype=np.int8)
    for point, n in x.items():
        board[25 if point == "bar" else point] += n
    for point, n in o.items():
        board[0 if point == "bar" else point] -= n
    return board


def plays(x, o, roll) -> set[str]:
    """Every legal play, written as gnubg writes it; {""} when there is none."""
    p = legal_plays(position(x, o)[None], np.array([roll]))
    steps, hits = p.steps, p.hits
    return {format_play(steps[k], hits[k]) for k in range(len(p))}


CASES = [
    # (what the rule says, x, o, roll, every legal play)
    ("enter from the bar before any other move",
     {"bar": 1, 13: 2}, {19: 2}, (6, 1), {"bar/18", "bar/24 13/7"}),
    ("no entry: the whole roll is lost",
     {"bar": 1, 13: 2}, {19: 2, 24: 2}, (6, 1), {""}),
    ("two on the bar, one can enter: the rest of the roll is lost",
     {"bar": 2, 8: 1}, {19: 2}, (6, 1), {"bar/24"}),
    ("landing on a single opposing checker hits it",
     {13: 1}, {7: 1}, (6, 2), {"13/7*/5", "13/5"}),
    ("a point with two or more opposing checkers is closed",
     {13: 1}, {7: 2, 11: 2}, (6, 2), {""}),
    ("use both dice, even when only one order works",
     {13: 1}, {7: 2}, (6, 2), {"13/5"}),
    ("only one die can be used: the larger",
     {12: 1}, {1: 2}, (6, 5), {"12/6"}),
    ("only one die can be used and the larger cannot: the smaller",
     {12: 1}, {6: 2, 1: 2}, (6, 5), {"12/7"}),
    ("doubles: as many of the four steps as possible",
     {24: 1}, {16: 2}, (4, 4), {"24/20"}),
    ("doubles: four steps, written by checker",
     {24: 2}, {}, (3, 3), {"24/18(2)", "24/15 24/21", "24/12"}),
    ("bear off exactly, or from the highest point with a larger die",
     {5: 1, 3: 1}, {20: 2}, (6, 1), {"5/off 3/2", "5/off"}),
    ("bear off only once every checker is home; two plays, one result",
     {8: 1, 3: 1}, {20: 2}, (5, 4), {"8/off"}),
    ("a checker just entered from the bar is not home: no bearing off",
     {"bar": 1, 2: 1}, {}, (2, 1), {"bar/22", "bar/23 2/1"}),
    ("a higher die bears off only when no checker stands higher",
     {6: 1, 2: 1}, {20: 2}, (5, 3), {"6/1 2/off", "6/off"}),
]


@pytest.mark.parametrize("rule, x, o, roll, expected", CASES, ids=[c[0] for c in CASES])
def test_rule(rule, x, o, roll, expected):
    assert plays(x, o, roll) == expected


def test_dice_order_does_not_matter():
    for roll in [(6, 2), (2, 6)]:
        assert plays({13: 1}, {7: 2}, roll) == {"13/5"}


def test_start_position_opening_31():
    start = {24: 2, 13: 5, 8: 3, 6: 5}
    found = plays(start, {1: 2, 12: 5, 17: 3, 19: 5}, (3, 1))
    assert "8/5 6/5" in found and len(found) == 16
