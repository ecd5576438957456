"""The Caucasian rule, as we read our rules source: "in your home board you may not hit an
opponent's checker and hide".

Reading: take the legal plays under the standard rules; remove every play in which a
checker that hit a blot on one of the mover's home points (1..6) later in the same play
lands on a point already holding one or more of the mover's checkers, or is borne off. If
that removes every play, keep them all. A result board is legal when at least one legal play
reaches it. "Lands" counts every stop of the hitter, including the stops on the way of a
double. Checkers on one point are interchangeable: track the hitter as one checker.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gammon.engine import reference
from gammon.engine.formats import posid
from gammon.engine.formats.notation import parse_play
from gammon.engine.movegen import legal_plays
from gammon.engine.rules import CAUCASIAN, STANDARD
from gammon.engine.sample import ALL_ROLLS, from_random_play

from test_rules import position

DATA = Path(__file__).parent / "data" / "variants_public.jsonl"


def legal(text: str, x, o, roll, rules=CAUCASIAN) -> bool:
    """Whether the play ``text`` reaches a legal result under ``rules``."""
    board = position(x, o)
    plays = legal_plays(board[None], np.array([roll]), rules)
    try:
        parse_play(text, board, roll[0], roll[1], plays, rules)
    except ValueError:
        return False
    return True


def boards(x, o, roll, rules) -> set[bytes]:
    return set(map(bytes, legal_plays(position(x, o)[None], np.array([roll]), rules).boards))


CASES = [
    # (the clause, x, o, roll, a play, legal under the standard rules, and under this one)
    ("a checker that hit in the home board may not move on onto its own checkers",
     {8: 1, 5: 2, 13: 2}, {6: 1, 20: 2}, (2, 1), "8/6*/5", True, False),
    ("...nor be borne off in the same turn (other plays exist)",
     {7: 1, 1: 2}, {6: 1, 20: 2}, (6, 1), "7/6*/off", True, False),
    ("you may hit and cover the hit checker with another",
     {8: 1, 7: 1, 13: 2}, {5: 1, 20: 2}, (3, 2), "8/5* 7/5", True, True),
    ("you may hit and move on to a free point",
     {9: 1, 13: 2}, {6: 1, 20: 2}, (3, 2), "9/6*/4", True, True),
    ("...but not onto your own checkers",
     {9: 1, 4: 2, 13: 2}, {6: 1, 20: 2}, (3, 2), "9/6*/4", True, False),
    ("a hit outside the home board does not count: 6-6 13/7*/1 may land on its own",
     {13: 2, 1: 2}, {7: 1, 20: 2}, (6, 6), "13/7*/1 13/1", True, True),
    ("every stop of the hitter counts: 1-1 7/6*/4 stops on 5, where ours stand",
     {7: 1, 5: 2, 13: 4}, {6: 1, 20: 2}, (1, 1), "7/6*/4 13/12", True, False),
    ("checkers on one point are alike: with 1-1, 6/5* 6/5/4 passes the hitter",
     {6: 2, 4: 1, 13: 2}, {5: 1, 20: 2}, (1, 1), "6/5* 6/4 13/12", True, True),
    ("hit and bear off, if there is no other move: every play hides, so all stay",
     {2: 1}, {1: 1, 20: 2}, (2, 1), "2/1*/off", True, True),
    ("no play at all: as in standard",
     {"bar": 1, 13: 2}, {19: 2, 24: 2, 6: 1}, (6, 1), "", True, True),
    ("only one die can be played, the larger: as in standard",
     {12: 1}, {1: 2}, (6, 5), "12/6", True, True),
]


@pytest.mark.parametrize("clause, x, o, roll, text, standard, caucasian", CASES,
                         ids=[c[0] for c in CASES])
def test_rule_cases(clause, x, o, roll, text, standard, caucasian):
    assert legal(text, x, o, roll, STANDARD) == standard
    assert legal(text, x, o, roll, CAUCASIAN) == caucasian


def test_if_every_play_hides_all_are_kept():
    x, o = {2: 1}, {1: 1, 20: 2}
    assert boards(x, o, (1, 2), CAUCASIAN) == boards(x, o, (1, 2), STANDARD)


def _oracle():
    with open(DATA) as f:
        return [c for c in map(json.loads, f) if c["variant"] == "caucasian"]


def test_all_oracle_cases_match():
    """The 200 Caucasian cases of the independent implementation (results not flipped)."""
    cases = _oracle()
    assert len(cases) == 200
    b = np.array([c["board"] for c in cases], dtype=np.int8)
    dice = np.array([[c["d1"], c["d2"]] for c in cases])
    plays = legal_plays(b, dice, CAUCASIAN)
    differs = 0
    for i, case in enumerate(cases):
        rows = np.flatnonzero(plays.root == i)
        ids = sorted(posid.encode_many(plays.boards[rows])) if plays.dice_used[rows[0]] else []
        assert ids == case["results"], case["case"]
        differs += "differs" in case["tags"]
    assert differs > 20  # the rule changes the result set in many of them


@pytest.mark.parametrize("count", [60])
def test_the_generator_agrees_with_a_checker_by_checker_reference(count):
    rng = np.random.default_rng(12)
    b, _ = from_random_play(rng, 30, "caucasian")
    b = b[rng.permutation(len(b))[:count]]
    for board in b:
        for d1, d2 in ALL_ROLLS:
            ours = set(map(bytes, legal_plays(board[None], np.array([[d1, d2]]),
                                              CAUCASIAN).boards))
            assert ours == reference.caucasian_boards(board, int(d1), int(d2)), (board.tolist(), d1, d2)


def test_gnubg_plays_the_caucasian_rule():
    """gnubg's nets know the standard moves only: the gnubg bot plays its best play that
    the Caucasian rule allows (it used to fail when its first choice hid a hitter)."""
    pytest.importorskip("gnubg_nn")
    from inprocess import gammon
    out = gammon("match", "gnubg", "random", "--variant", "caucasian", "--seed", "2",
                 "--match-to", "2", "--matches", "2", "--json", "--no-progress")
    assert out.returncode == 0, out.stderr[-500:]
    assert json.loads(out.stdout)["wins_a"] + json.loads(out.stdout)["wins_b"] == 2
