"""Sudden death, as we read our rules source: "whoever first hits an opponent's checker
wins; no gammons or backgammons" -- the legal plays are the standard ones; a play that hits
wins at once, 1 point (times the cube); a game without a hit ends as usual with single
points only."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gammon.engine import reference
from gammon.engine.formats import posid
from gammon.engine.game import play, random_policy
from gammon.engine.movegen import legal_plays
from gammon.engine.rules import STANDARD, SUDDENDEATH, variant
from gammon.engine.sample import ALL_ROLLS, from_random_play

DATA = Path(__file__).parent / "data" / "variants_public.jsonl"


def _cases():
    with open(DATA) as f:
        return [c for c in map(json.loads, f) if c["variant"] == "suddendeath"]


def test_all_oracle_cases_match():
    """The 60 sudden-death cases of the independent implementation: the same results, and
    the same plays marked as winning."""
    cases = _cases()
    assert len(cases) == 60
    boards = np.array([c["board"] for c in cases], dtype=np.int8)
    dice = np.array([[c["d1"], c["d2"]] for c in cases])
    plays = legal_plays(boards, dice, SUDDENDEATH)
    won = SUDDENDEATH.end_of_game(plays.boards)
    for i, case in enumerate(cases):
        rows = np.flatnonzero(plays.root == i)
        ids = posid.encode_many(plays.boards[rows]) if plays.dice_used[rows[0]] else []
        ours = dict(zip(ids, (won[rows] != 0).tolist()))
        assert sorted(ours) == case["results"], case["case"]
        assert [ours[r] for r in case["results"]] == case["wins"], case["case"]
    assert any(any(c["wins"]) for c in cases)


def test_a_hit_wins_one_point_and_nothing_else_does():
    board = STANDARD.start_board()
    after = board.copy()
    after[13], after[8], after[0] = 4, 4, -1  # 13/8 with a (made-up) hit: a checker on the bar
    assert SUDDENDEATH.end_of_game(after[None]).tolist() == [1]
    assert SUDDENDEATH.end_of_game(board[None]).tolist() == [0]
    gammon = np.zeros(26, np.int8)
    gammon[20] = -15  # the mover bore off all, the opponent none: still a single
    assert SUDDENDEATH.end_of_game(gammon[None]).tolist() == [1]
    assert STANDARD.end_of_game(gammon[None]).tolist() == [2]


def test_plays_are_the_standard_ones():
    rng = np.random.default_rng(3)
    boards, _ = from_random_play(rng, 20, "suddendeath")
    boards = boards[rng.permutation(len(boards))[:100]]
    for board in boards:
        for d1, d2 in ALL_ROLLS:
            ours = legal_plays(board[None], np.array([[d1, d2]]), SUDDENDEATH).boards
            expected = reference.legal_boards(board, int(d1), int(d2), SUDDENDEATH)
            assert sorted(map(bytes, ours)) == sorted(map(bytes, expected))


def test_games_end_at_the_first_hit_for_one_point():
    rng = np.random.default_rng(5)
    policy = random_policy(rng)
    r = play((policy, policy), 200, rng, "suddendeath")
    assert set(np.abs(r.points).tolist()) == {1}
    standard = play((policy, policy), 200, np.random.default_rng(5), "standard")
    assert r.plies.mean() < standard.plies.mean() / 2  # random play hits early
    assert variant("suddendeath") is SUDDENDEATH


from test_rules import position  # noqa: E402  (the readable x/o positions)

CASES = [
    # (the clause, x, o, roll, {play: points it wins})
    ("a play that hits wins at once, 1 point",
     {13: 1, 24: 2}, {7: 1, 1: 2}, (6, 2), {"13/7*/5": 1, "13/5": 0, "24/22 24/18": 0,
                                             "24/16": 0, "24/18 13/11": 0, "24/22 13/7*": 1}),
    ("a hit on the way of a double also wins",
     {13: 1}, {9: 1, 1: 2}, (2, 2), {"13/9*/5": 1}),
    ("no play: the whole roll is lost, nobody wins",
     {"bar": 1, 13: 2}, {19: 2, 24: 2, 6: 2}, (6, 1), {"": 0}),
    ("only one die can be used, the larger: a hit with it wins",
     {12: 1}, {6: 1, 1: 2}, (6, 5), {"12/6*": 1}),
    ("bearing off the last checker wins a single game, not a gammon",
     {2: 1}, {20: 15}, (2, 1), {"2/off": 1}),
]


@pytest.mark.parametrize("clause, x, o, roll, expected", CASES, ids=[c[0] for c in CASES])
def test_rule_cases(clause, x, o, roll, expected):
    from gammon.engine.formats.notation import format_play
    board = position(x, o)
    p = legal_plays(board[None], np.array([roll]), SUDDENDEATH)
    won = SUDDENDEATH.end_of_game(p.boards) if p.dice_used[0] else np.zeros(1, np.int8)
    got = {format_play(p.steps[k], p.hits[k]): int(won[k]) for k in range(len(p))}
    assert got == expected
