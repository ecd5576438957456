"""Plakoto, as we read our rules source: "start as LongGammon; a single opposing checker is
not hit to the bar but pinned -- until the opponent releases it, it cannot move; the last
checker on the starting point is the mother; pinning the mother counts as a loss by gammon".

Positions are written as {point: field} in the ``plakoto:`` text of the issue (points 1..24
from the mover's view, + mover, - opponent, ``p`` when a checker of the other side lies
pinned beneath); every other point is empty.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gammon.engine import reference
from gammon.engine.formats.notation import parse_play
from gammon.engine.game import play, random_policy
from gammon.engine.movegen import legal_plays
from gammon.engine.rules import LONGGAMMON, PLAKOTO
from gammon.engine.rules.plakoto import PIN, counts, read_position, write_position
from gammon.engine.sample import ALL_ROLLS, from_random_play

DATA = Path(__file__).parent / "data" / "variants_public.jsonl"


def text(points: dict) -> str:
    """The plakoto: text of {point: field}."""
    return "plakoto:" + ",".join(str(points.get(p, 0)) for p in range(1, 25))


def results(points: dict, roll) -> dict[str, int]:
    """Every legal result as {plakoto: text: points the play wins (0: the game goes on)};
    {} when no play is legal."""
    board = read_position(text(points))
    p = legal_plays(board[None], np.array([roll]), PLAKOTO)
    if p.dice_used[0] == 0:
        return {}
    return dict(zip(map(write_position, p.boards), PLAKOTO.end_of_game(p.boards).tolist()))


def result_of(play_text: str, points: dict, roll) -> tuple[str, int] | None:
    """The result (text, points won) of a typed play, or None when it is not legal."""
    board = read_position(text(points))
    p = legal_plays(board[None], np.array([roll]), PLAKOTO)
    try:
        k = parse_play(play_text, board, roll[0], roll[1], p, PLAKOTO)
    except ValueError:
        return None
    return write_position(p.boards[k]), int(PLAKOTO.end_of_game(p.boards[k:k + 1])[0])


CASES = [
    # (the clause, position, roll, a play, legal?, the points it changes: {point: field})
    ("all 15 of each side start on its own 24-point",
     {24: 15, 1: -15}, (6, 5), "24/13", True, {13: 1, 24: 14}),
    ("landing on a point with exactly one opposing checker pins it (not to a bar)",
     {13: 1, 20: 1, 7: -1, 1: -13}, (6, 1), "13/7* 20/19", True, {7: "1p", 19: 1, 13: 0, 20: 0}),
    ("a pinned checker stays under the pinner and cannot move",
     {9: "-1p", 13: 1, 1: -13}, (2, 1), "9/7 13/12", False, None),
    ("...so the free checker plays the whole roll",
     {9: "-1p", 13: 1, 1: -13}, (2, 1), "13/10", True, {13: 0, 10: 1}),
    ("the point belongs to the pinner, who may add checkers",
     {13: 1, 14: 1, 7: "1p", 1: -13}, (6, 1), "13/7 14/13", True, {7: "2p", 13: 1, 14: 0}),
    ("it is free again when every checker of the pinner has left",
     {9: "1p", 1: -13}, (3, 1), "9/5", True, {5: 1, 9: -1}),
    ("...but not while one of the pinner's checkers stays",
     {9: "2p", 1: -13}, (3, 1), "9/5", True, {5: 1, 9: "1p"}),
    ("a point with two or more opposing checkers is closed",
     {13: 1, 7: -2, 1: -12}, (6, 2), "13/7", False, None),
    ("a point with an opposing checker pinning one of ours is closed",
     {13: 1, 7: "-1p", 1: -13}, (6, 2), "13/7", False, None),
    ("use both dice; when only one can be played, the larger (as in backgammon)",
     {12: 1, 6: -2, 1: -13}, (6, 5), "12/7", True, {12: 0, 7: 1}),
    ("bear off once all 15, pinned ones included, are home: not with one pinned at 10",
     {3: 14, 10: "-1p", 1: -13}, (3, 3), "3/off(4)", False, None),
    ("...and with the pinned one home, the others bear off",
     {3: 13, 5: "-1p", 1: -13}, (3, 3), "3/off(4)", True, {3: 9, 5: "-1p"}),
    ("a pinned checker of ours on a higher home point counts as standing there",
     {3: 13, 5: "-1p", 1: -13}, (6, 6), "3/off(4)", False, None),
    ("...without it, a 6 bears off from the highest point, 3",
     {3: 13, 1: -13}, (6, 6), "3/off(4)", True, {3: 9}),
    ("a pinned checker cannot be borne off",
     {2: 14, 3: "-1p", 1: -13}, (3, 2), "2/off", True, {2: 13, 3: "-1p"}),
    ("pinning the opponent's mother ends the game: 2 points, after a whole play",
     {5: 1, 13: 1, 1: -1, 20: -14}, (4, 2), "5/1* 13/11", True, {5: 0, 13: 0, 1: "1p", 11: 1}),
    ("the mother pinned and released again in the same play still ends the game",
     {2: 1, 4: 1, 1: -1, 20: -14}, (1, 1), "4/2 2/1*/off", True, {4: 0, 2: 1, 1: -1}),
    ("a lone checker away from its start is no mother: the game goes on",
     {5: 1, 13: 1, 1: -2, 4: -1, 20: -12}, (1, 2), "5/4* 13/11", True, {5: 0, 13: 0, 4: "1p", 11: 1}),
    ("the first to bear off all 15 wins 2 points if the loser has borne off none",
     {2: 1, 20: -15}, (2, 1), "2/off", True, {2: 0}),
    ("...else 1",
     {2: 1, 20: -14}, (2, 1), "2/off", True, {2: 0}),
    ("no backgammons: the loser's checkers in the winner's home board change nothing",
     {2: 1, 5: -15}, (2, 1), "2/off", True, {2: 0}),
]

# the points each winning case wins (the others: 0)
WINS = {"pinning the opponent's mother ends the game: 2 points, after a whole play": 2,
        "the mother pinned and released again in the same play still ends the game": 2,
        "the first to bear off all 15 wins 2 points if the loser has borne off none": 2,
        "...else 1": 1,
        "no backgammons: the loser's checkers in the winner's home board change nothing": 2}


@pytest.mark.parametrize("clause, points, roll, play_text, legal, after", CASES,
                         ids=[c[0] for c in CASES])
def test_rule_cases(clause, points, roll, play_text, legal, after):
    got = result_of(play_text, points, roll)
    if not legal:
        assert got is None
        return
    assert got is not None
    assert got[0] == text({**points, **after})
    assert got[1] == WINS.get(clause, 0)


def test_no_play_and_one_die():
    """No legal play: every landing closed; one die: the other cannot follow."""
    assert results({13: 1, 11: -2, 7: -2, 1: -11}, (6, 2)) == {}
    assert results({3: 14, 10: "-1p", 1: -13}, (6, 5)) == {}  # a pinned one outside: no bear-off
    one = results({12: 1, 6: -2, 1: -13}, (6, 5))
    assert one == {text({7: 1, 6: -2, 1: -13}): 0}


def test_the_start_is_longgammon_and_the_opening_plays():
    assert (PLAKOTO.start_board() == LONGGAMMON.start_board()).all()
    assert set(results({24: 15, 1: -15}, (6, 5))) == {
        text({13: 1, 24: 14, 1: -15}), text({18: 1, 19: 1, 24: 13, 1: -15})}


def test_position_text_round_trip_and_counts():
    board = read_position("plakoto:3,4,5p,2,0,0,-1,0,0,0,0,-1,0,0,0,-1,0,0,-1,-1,0,-4,0,-5")
    assert board[3] == 5 + PIN and board[22] == -4
    assert write_position(board) == "plakoto:3,4,5p,2,0,0,-1,0,0,0,0,-1,0,0,0,-1,0,0,-1,-1,0,-4,0,-5"
    mover, opponent = counts(board[None])
    assert (int(mover[0]), int(opponent[0])) == (14, 15)  # the pinned one is the opponent's


@pytest.mark.parametrize("bad, says", [
    ("plakoto:16," + "0," * 22 + "-1", "16 checkers"),
    ("plakoto:14,1," + "0," * 21 + "-1p", "16 checkers on the board"),
    ("plakoto:1pp," + "0," * 22 + "-1", "more than one checker"),
    ("plakoto:0p," + "0," * 22 + "-1", "pinned checker lies under"),
    ("plakoto:x," + "0," * 22 + "-1", "not a signed count"),
    ("plakoto:1,2,3", "24 fields"),
    ("4HPwATDgc/ABMA", "plakoto:"),
])
def test_bad_position_text(bad, says):
    with pytest.raises(ValueError, match=says):
        from gammon.engine.formats import position
        position.read(bad, PLAKOTO)


def _oracle():
    with open(DATA) as f:
        return [c for c in map(json.loads, f) if c["variant"] == "plakoto"]


def test_all_oracle_cases_match():
    """The 200 Plakoto cases of the independent implementation: the same results (not
    flipped), the same plays marked as pinning the mother, and the same boards as ours."""
    cases = _oracle()
    assert len(cases) == 200
    boards = np.array([read_position(c["position"]) for c in cases])
    for board, case in zip(boards, cases):
        assert write_position(board) == case["position"]
        assert [(abs(int(v)) & 15) * (1 if v >= 0 else -1) for v in board[1:25]] == case["board"]
        assert [int(abs(int(v)) >= PIN) for v in board[1:25]] == case["pins"]
    dice = np.array([[c["d1"], c["d2"]] for c in cases])
    plays = legal_plays(boards, dice, PLAKOTO)
    won = PLAKOTO.end_of_game(plays.boards)
    mother = plays.boards[:, 0] > 0  # the play pinned the opponent's mother
    tags = set()
    for i, case in enumerate(cases):
        rows = np.flatnonzero(plays.root == i)
        tags.update(case["tags"])
        if plays.dice_used[rows[0]] == 0:
            assert case["results"] == [], case["case"]
            continue
        ours = {write_position(plays.boards[r]): bool(mother[r]) for r in rows}
        assert len(ours) == len(rows), case["case"]  # one row per distinct result
        assert sorted(ours) == case["results"], case["case"]
        theirs = dict(zip(case["results"], (e == "mother" for e in case["ends"])))
        assert ours == theirs, case["case"]
        assert all(won[r] == 2 for r in rows if mother[r])
    assert {"mother", "bearoff_blocked_by_pin", "release_possible", "no_play"} <= tags


def _agree(count: int, seed: int) -> int:
    rng = np.random.default_rng(seed)
    boards, _ = from_random_play(rng, max(20, count // 30), "plakoto")
    boards = boards[rng.permutation(len(boards))[:count]]
    assert len(boards) == count
    for board in boards:
        for d1, d2 in ALL_ROLLS:
            ours = set(map(bytes, legal_plays(board[None], np.array([[d1, d2]]), PLAKOTO).boards))
            ref = {np.array(b, np.int8).tobytes()
                   for b in reference.legal_results(board, int(d1), int(d2), PLAKOTO)}
            assert ours == ref, (write_position(board), d1, d2)
    return count


def test_the_generator_agrees_with_the_scalar_reference():
    assert _agree(250, 5) == 250


@pytest.mark.slow
def test_the_generator_agrees_with_the_scalar_reference_on_2000_positions():
    assert _agree(2000, 6) == 2000


def test_random_games_end_with_plakoto_points_and_never_use_a_bar():
    rng = np.random.default_rng(3)
    seen = []
    r = play((random_policy(rng),) * 2, 400, rng, "plakoto",
             on_position=lambda b, d: seen.append(b.copy()))
    boards = np.concatenate(seen)
    assert (boards[:, 0] == 0).all() and (boards[:, 25] == 0).all()
    mover, opponent = counts(boards)
    assert (mover <= 15).all() and (opponent <= 15).all()
    assert set(np.abs(r.points).tolist()) == {1, 2}  # no backgammons, no unfinished games
    assert (np.abs(boards[:, 1:25]) >= PIN).any()  # pins happen


def test_pubeval_plays_plakoto_on_the_checkers_on_top():
    """pubeval's tables know 0..15 checkers a point; in Plakoto it scores the checkers on
    top (pinned ones cannot move) and beats random; it used to fail on the first pin."""
    from gammon.eval.playing.match import run_match
    r = run_match("pubeval", "random", 200, seed=1, variant="plakoto", progress=False)
    assert r.unfinished == 0 and r.wins_a / r.games > 0.7


def test_gnubg_refuses_plakoto_in_one_line():
    from inprocess import gammon
    out = gammon("match", "gnubg", "random", "--variant", "plakoto", "--games", "2")
    assert out.returncode == 2 and "Plakoto's pinned checkers" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
