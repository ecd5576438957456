"""Magriel notation: gnubg's strings for the whole corpus, round trips, typed plays, errors."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gammon.engine.rules import start_boards
from gammon.engine.movegen import legal_plays
from gammon.engine.formats.notation import UNUSED, format_play, parse_play
from gammon.engine.formats.posid import encode

CORPUS = Path(__file__).parent / "data" / "movegen_public.jsonl"
START = start_boards(1)[0]


@dataclasses.dataclass
class Case:
    """One corpus case with our legal plays for it and gnubg's string per result index."""

    number: int
    board: np.ndarray
    d1: int
    d2: int
    plays: object
    gnubg: list[str]  # gnubg's move string for our result k ('' when no play is legal)


def _one_root(plays, start: int, stop: int, root: int):
    """Rows start:stop of a batch's Plays as the Plays of one position (root 0)."""
    one = plays.subset(np.arange(start, stop))
    one.root = one.root - root
    return one


@pytest.fixture(scope="module")
def gnubg_cases() -> list[Case]:
    """Every corpus case, our results lined up with gnubg's by Position ID."""
    raw = [json.loads(line) for line in CORPUS.read_text().splitlines()]
    boards = np.array([c["board28"][:26] for c in raw], dtype=np.int8)
    dice = np.array([[c["d1"], c["d2"]] for c in raw])
    plays = legal_plays(boards, dice)
    offsets = plays.offsets(len(raw))
    cases = []
    for i, c in enumerate(raw):
        mine = _one_root(plays, offsets[i], offsets[i + 1], i)
        ids = [encode(b) for b in mine.boards]
        if c["results"]:
            assert sorted(ids) == c["results"], f"case {i}: results differ from gnubg's"
            gnubg = dict(zip(c["results"], c["moves"]))
            strings = [gnubg[pid] for pid in ids]
        else:
            assert len(mine) == 1 and mine.dice_used[0] == 0
            strings = [""]
        cases.append(Case(i, boards[i], c["d1"], c["d2"], mine, strings))
    return cases


# ------------------------------------------------------------------------------ the corpus


def test_format_matches_gnubg_for_every_corpus_result(gnubg_cases):
    """Our representative play of each result is written exactly as gnubg wrote its own.

    gnubg's string depends only on the multiset of steps and the points hit; for doubles the
    afterstate fixes that multiset, and for mixed rolls the alternatives (13/7/5 or 13/11/5
    without a hit) join into the same part, so every result has one string.
    """
    wrong = [(case.number, format_play(case.plays.steps[k], case.plays.hits[k]), expected)
             for case in gnubg_cases for k, expected in enumerate(case.gnubg)
             if format_play(case.plays.steps[k], case.plays.hits[k]) != expected]
    assert wrong == []


def test_parse_of_format_returns_the_same_result(gnubg_cases):
    for case in gnubg_cases:
        steps, hits = case.plays.steps, case.plays.hits
        for k in range(len(case.plays)):
            text = format_play(steps[k], hits[k])
            assert parse_play(text, case.board, case.d1, case.d2, case.plays) == k, \
                (case.number, text)


def test_parse_of_gnubg_strings_returns_gnubg_results(gnubg_cases):
    for case in gnubg_cases:
        for k, text in enumerate(case.gnubg):
            assert parse_play(text, case.board, case.d1, case.d2, case.plays) == k, \
                (case.number, text)


def test_corpus_has_the_forms_that_matter(gnubg_cases):
    """The corpus exercises bar entry, bearing off, (n), kept hit points and no-play rolls."""
    strings = [s for case in gnubg_cases for s in case.gnubg]
    assert any(s.startswith("bar/") for s in strings)
    assert any("/off" in s for s in strings)
    assert any("(2)" in s for s in strings)
    assert any("*/" in s for s in strings)
    assert "" in strings


# ------------------------------------------------------------------------------ format_play


def _steps(*moves, hit=()):
    """A (4, 2) step array and (4,) hits from (from, to) moves; ``hit`` lists step numbers."""
    steps = np.full((4, 2), -1, dtype=np.int8)
    if moves:
        steps[:len(moves)] = moves
    hits = np.zeros(4, dtype=bool)
    hits[list(hit)] = True
    return steps, hits


@pytest.mark.parametrize("moves, hit, text", [
    ([], (), ""),
    ([(24, 18), (13, 11)], (), "24/18 13/11"),
    ([(13, 11), (24, 18)], (), "24/18 13/11"),  # parts by from-point, highest first
    ([(13, 7), (13, 11)], (), "13/11 13/7"),  # same from-point: higher to-point first
    ([(13, 7), (7, 5)], (0,), "13/7*/5"),
    ([(13, 11), (11, 5)], (), "13/5"),  # no hit on the way: one part
    ([(8, 4), (8, 4)], (), "8/4(2)"),
    ([(8, 6), (6, 4), (8, 6), (6, 4)], (), "8/4(2)"),
    ([(25, 22)], (), "bar/22"),
    ([(6, 0)], (), "6/off"),
    ([(5, 0), (6, 0)], (), "6/off 5/off"),
    ([(24, 18), (18, 12), (22, 16), (14, 8)], (), "24/12 22/16 14/8"),
    ([(12, 10), (10, 8)], (0,), "12/10*/8"),
    ([(13, 10), (10, 9)], (0, 1), "13/10*/9*"),
    ([(25, 21), (21, 19)], (0, 1), "bar/21*/19*"),
    ([(19, 18), (19, 18), (12, 11), (11, 10)], (3,), "19/18(2) 12/10*"),
    ([(25, 20), (23, 21)], (1,), "bar/20 23/21*"),
    ([(8, 3), (6, 3)], (0,), "8/3* 6/3"),  # a hit point is starred once
    ([(24, 20), (20, 16), (24, 20)], (0,), "24/20*/16 24/20"),
])
def test_format_play(moves, hit, text):
    assert format_play(*_steps(*moves, hit=hit)) == text


# ------------------------------------------------------------------------------ parse_play


def _position(mover: dict[int, int], opponent: dict[int, int], bar: int = 0) -> np.ndarray:
    """A board from {point: checkers} for each side, both in the mover's numbering."""
    board = np.zeros(26, dtype=np.int8)
    for point, n in mover.items():
        board[point] += n
    for point, n in opponent.items():
        board[point] -= n
    board[25] = bar
    return board


def _played(text: str, board, d1: int, d2: int) -> str:
    """The legal result ``text`` picks, written back in gnubg's notation."""
    plays = legal_plays(board[None], np.array([[d1, d2]]))
    k = parse_play(text, board, d1, d2)
    return format_play(plays.steps[k], plays.hits[k])


def _after(text: str, board, d1: int, d2: int) -> np.ndarray:
    """The afterstate of the legal result ``text`` picks."""
    plays = legal_plays(board[None], np.array([[d1, d2]]))
    return plays.boards[parse_play(text, board, d1, d2, plays)]


# the start position with opponent blots on our 7 and 11
BLOTS = _position({24: 2, 13: 5, 8: 3, 6: 5}, {19: 5, 17: 3, 12: 4, 7: 1, 11: 1, 1: 1})


def test_opening_six_two_moves_the_checkers_named():
    expected = START.copy()
    expected[[24, 13]] -= 1
    expected[[18, 11]] += 1
    assert (_after("24/18 13/11", START, 6, 2) == expected).all()


@pytest.mark.parametrize("text", [
    "24/18 13/11", "13/11 24/18", "24/18, 13/11", "  24 / 18    13/11 ", "6-2: 24/18 13/11",
    "2-6: 24/18 13/11", "62: 24/18 13/11", "24/18,13/11",
])
def test_spelling_variants_read_the_same(text):
    assert _played(text, START, 6, 2) == "24/18 13/11"


@pytest.mark.parametrize("text, d1, d2, played", [
    ("13/5", 6, 2, "13/5"),  # either order of the dice
    ("13/7/5", 6, 2, "13/5"),
    ("13/11/5", 6, 2, "13/5"),
    ("8/4(2)", 2, 2, "8/4(2)"),
    ("8/6/4(2)", 2, 2, "8/4(2)"),
    ("8/6(2) 6/4(2)", 2, 2, "8/4(2)"),
    ("13/5", 2, 2, "13/5"),
    ("24/16(2)", 4, 4, "24/16(2)"),
    ("24/20(2) 13/5", 4, 4, "24/20(2) 13/5"),
    ("24/18(2) 13/7(2)", 6, 6, "24/18(2) 13/7(2)"),
])
def test_combined_and_repeated_parts(text, d1, d2, played):
    assert _played(text, START, d1, d2) == played


def test_a_hit_on_the_way_is_taken_from_the_points_named():
    assert _played("13/7*/5", BLOTS, 6, 2) == "13/7*/5"
    assert _played("13/7/5", BLOTS, 6, 2) == "13/7*/5"  # '*' is optional
    assert _played("13/11*/5", BLOTS, 6, 2) == "13/11*/5"
    assert _played("13/7* 13/11*", BLOTS, 6, 2) == "13/11* 13/7*"
    hit = _after("13/7*/5", BLOTS, 6, 2)
    assert hit[0] == -1 and hit[7] == 0 and hit[11] == -1 and hit[5] == 1


def test_bar_entry_with_bar_or_25_and_any_case():
    board = _position({24: 1, 13: 5, 8: 3, 6: 5}, {19: 5, 17: 3, 12: 5, 7: 1, 1: 1}, bar=1)
    for text in ("bar/23 13/7*", "25/23 13/7*", "BAR/23 13/7", "13/7* bar/23"):
        assert _played(text, board, 6, 2) == "bar/23 13/7*"
    after = _after("bar/23 13/7*", board, 6, 2)
    assert after[25] == 0 and after[23] == 1 and after[0] == -1


def test_bearing_off_with_off_or_0():
    board = _position({6: 2, 5: 3, 3: 1, 1: 4}, {20: 15})
    assert _played("6/off 5/off", board, 6, 5) == "6/off 5/off"
    assert _played("6/0 5/0", board, 6, 5) == "6/off 5/off"
    assert _played("6-5: 6/1, 6/OFF", board, 6, 5) == "6/1 6/off"
    assert _after("6/off 5/off", board, 6, 5)[[6, 5]].tolist() == [1, 2]


def test_a_bear_off_reached_by_two_dice_is_one_part():
    board = _position({3: 1, 2: 1}, {20: 15})
    assert _played("3/off", board, 6, 1) == "3/off"  # 3/2/off: the checker on 2 stays
    assert _played("3/2/off", board, 6, 1) == "3/off"
    assert _after("3/off", board, 6, 1)[2] == 1


def test_pass_only_when_nothing_moves():
    closed = _position({6: 2}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 1: 3}, bar=1)
    for text in ("", "pass", "6-6: pass", "  PASS "):
        assert parse_play(text, closed, 6, 6) == 0
    with pytest.raises(ValueError, match="no play is possible with 6-6: the only play is to pass"):
        parse_play("bar/19", closed, 6, 6)
    with pytest.raises(ValueError, match="a play is possible with 6-2"):
        parse_play("", START, 6, 2)
    with pytest.raises(ValueError, match="a play is possible"):
        parse_play("pass", START, 6, 2)


ONE_DIE = _position({24: 1, 8: 1, 6: 13}, {18: 2, 19: 2, 1: 11})  # only a 6 or a 5 plays


@pytest.mark.parametrize("text, board, d1, d2, message", [
    ("13-7", START, 6, 2, "cannot read '13-7'"),
    ("24/18 13", START, 6, 2, "cannot read '13'"),
    ("24/18 1x/11", START, 6, 2, "cannot read '1x/11'"),
    ("30/22", START, 6, 2, "point 30 is out of range"),
    ("6/8", START, 6, 2, "checkers move from higher points to lower, not from 6 to 8"),
    ("13/bar", START, 6, 2, "cannot move to the bar"),
    ("off/3", START, 6, 2, "cannot move once it is off"),
    ("13/4", START, 6, 2, r"the dice 6-2 cannot move a checker 13/4 \(9 pips\)"),
    ("24/18 13/7", START, 6, 2, "the dice 6-2 cannot play all of 24/18 13/7"),
    ("8/4(3)", START, 2, 2, "the dice 2-2 cannot play all of 8/4\\(3\\)"),
    ("13/7", START, 6, 2, "must use both dice of 6-2"),
    ("13/9", START, 4, 4, "must use 4 dice of 4-4"),
    ("14/8 13/11", START, 6, 2, "no checker on 14"),
    ("24/18 24/22", _position({24: 1, 6: 14}, {1: 15}), 6, 2, "no checker on 24"),
    ("13/7 13/11", _position({13: 5, 8: 3, 6: 5, 24: 1}, {19: 5, 12: 5, 17: 3}, bar=1), 6, 2,
     "a checker on the bar must enter first"),
    ("bar/19 13/11", _position({13: 5, 8: 3, 6: 5, 24: 1}, {19: 5, 12: 5, 17: 3}, bar=1), 6, 2,
     "point 19 is closed"),
    ("13/7 13/11", _position({13: 5, 8: 3, 6: 7}, {7: 2, 12: 13}), 6, 2, "point 7 is closed"),
    ("8/off", START, 6, 2, "checkers bear off only when all of them are in the home board"),
    ("3/off 1/off", _position({6: 2, 5: 3, 3: 1, 1: 4}, {20: 15}), 6, 5,
     "a 6 bears off from 3 only when no checker stands higher"),
    ("8/3", ONE_DIE, 6, 5, r"must play the larger die \(6\)"),
    ("5-3: 24/21 13/8", START, 6, 2, "written for 5-3 but the roll is 6-2"),
    ("13/7*/5", START, 6, 2, "there is no blot to hit on 7"),
    ("13/5", BLOTS, 6, 2, "13/5 is ambiguous: it could be 13/7\\*/5 or 13/11\\*/5"),
    ("8/4(5)", START, 2, 2, "at most 4 steps"),
])
def test_errors_say_what_is_wrong(text, board, d1, d2, message):
    with pytest.raises(ValueError, match=message):
        parse_play(text, board, d1, d2)


def test_the_larger_die_when_only_one_plays():
    assert _played("8/2", ONE_DIE, 6, 5) == "8/2"


def test_plays_given_must_be_for_one_position():
    plays = legal_plays(start_boards(2), np.array([[6, 2], [3, 1]]))
    with pytest.raises(ValueError, match="one position"):
        parse_play("24/18 13/11", START, 6, 2, plays)


# ------------------------------------------------------------------------------ Ø: dice unused
# Our rules source: "'6/1, Ø' means the player played 6/1 but could not use the other
# number". Read as: Ø after the moves of a play that leaves dice unused, Ø alone for no play.

# only 6/1 plays with 5-4: 24 is blocked for both dice, 6/2 is blocked, 1 is empty
FIVE_ONLY = _position({24: 1, 6: 14}, {19: 2, 20: 2, 2: 2, 12: 9})
FIVE_ONLY_ID = "sAH/ARjg/wcAIA"
# 3-3: 8/5 three times, then 5/2 and 6/3 are blocked and no checker bears off with a 3
THREE_OF_FOUR = _position({8: 3, 6: 12}, {3: 2, 2: 2, 24: 11})
CLOSED = _position({6: 2}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 1: 3}, bar=1)


def _written(board, d1: int, d2: int) -> list[str]:
    """Every legal play of the roll written with its roll (the Ø shown)."""
    plays = legal_plays(board[None], np.array([[d1, d2]]))
    return [format_play(plays.steps[k], plays.hits[k], (d1, d2)) for k in range(len(plays))]


def test_unused_mark_is_the_slashed_o():
    assert UNUSED == "\u00d8" == "Ø"


def test_format_marks_dice_left_unused():
    assert _written(FIVE_ONLY, 5, 4) == ["6/1 Ø"]
    assert _written(FIVE_ONLY, 4, 5) == ["6/1 Ø"]
    assert _written(ONE_DIE, 6, 5) == ["8/2 Ø"]
    assert _written(THREE_OF_FOUR, 3, 3) == ["8/5(3) Ø"]  # one Ø for the one die left
    assert _written(CLOSED, 6, 6) == ["Ø"]  # no play at all


def test_format_of_a_full_play_is_the_same_with_the_roll():
    plays = legal_plays(START[None], np.array([[6, 2]]))
    assert _written(START, 6, 2) == [format_play(plays.steps[k], plays.hits[k])
                                     for k in range(len(plays))]
    assert "24/18 13/11" in _written(START, 6, 2)
    assert format_play(*_steps((24, 18), (13, 11)), roll=(6, 2)) == "24/18 13/11"
    assert format_play(*_steps((8, 4), (8, 4), (6, 2), (6, 2)), roll=(4, 4)) == "8/4(2) 6/2(2)"
    # without the roll nothing changes: gnubg's string, '' for no play
    assert format_play(*_steps((6, 1))) == "6/1"
    assert format_play(*_steps()) == ""
    # with it, the steps count against the dice of the roll
    assert format_play(*_steps((6, 1)), roll=(5, 4)) == "6/1 Ø"
    assert format_play(*_steps((8, 5), (8, 5), (8, 5)), roll=(3, 3)) == "8/5(3) Ø"
    assert format_play(*_steps((8, 5), (5, 2)), roll=(3, 3)) == "8/2 Ø"
    assert format_play(*_steps(), roll=(6, 6)) == "Ø"


def test_every_corpus_play_written_with_its_roll(gnubg_cases):
    """gnubg's string, with ' Ø' when the play uses fewer dice than the roll offers and 'Ø'
    for no play; the text reads back as the same result (full plays, written as before, are
    read back by test_parse_of_format_returns_the_same_result)."""
    seen = set()
    for case in gnubg_cases:
        offered = 4 if case.d1 == case.d2 else 2
        steps, hits, used = case.plays.steps, case.plays.hits, case.plays.dice_used
        for k, gnubg in enumerate(case.gnubg):
            text = format_play(steps[k], hits[k], (case.d1, case.d2))
            if used[k] == 0:
                expected = "Ø"
            elif used[k] < offered:
                expected = gnubg + " Ø"
            else:
                expected = gnubg
            assert text == expected, (case.number, text, expected)
            if used[k] < offered:
                assert parse_play(text, case.board, case.d1, case.d2, case.plays) == k, \
                    (case.number, text)
            seen.add(("full" if used[k] == offered else "short") if used[k] else "none")
    assert seen == {"full", "short", "none"}  # the corpus has all three kinds


@pytest.mark.parametrize("text", ["Ø", "ø", " Ø ", "6-6: Ø", "66: ø", ", Ø", "", "pass"])
def test_unused_mark_alone_is_no_play(text):
    assert parse_play(text, CLOSED, 6, 6) == 0


@pytest.mark.parametrize("text", ["6/1 Ø", "6/1, Ø", "6/1,Ø", "6/1Ø", "6/1 ø", "  6/1  Ø  ",
                                  "5-4: 6/1 Ø", "6/1"])
def test_unused_mark_after_a_play_that_leaves_dice(text):
    assert parse_play(text, FIVE_ONLY, 5, 4) == 0
    assert _after(text, FIVE_ONLY, 5, 4)[[6, 1]].tolist() == [13, 1]


def test_unused_mark_after_three_steps_of_a_double():
    for text in ("8/5(3) Ø", "8/5(3), Ø", "8/5 8/5 8/5 ø", "8/5(3)"):
        assert parse_play(text, THREE_OF_FOUR, 3, 3) == 0
    assert _played("8/2 Ø", ONE_DIE, 6, 5) == "8/2"


@pytest.mark.parametrize("text, board, d1, d2, message", [
    # Ø after a play that uses every die
    ("24/18 13/11 Ø", START, 6, 2, "24/18 13/11 Ø: the play uses all the dice of 6-2; "
                                   "Ø marks dice left unused"),
    ("24/18, 13/11, Ø", START, 6, 2, "uses all the dice of 6-2"),
    ("8/4(2) 6/2(2) ø", START, 4, 4, "uses all the dice of 4-4"),
    # Ø alone, or after too few moves, when the dice can be played
    ("Ø", START, 6, 2, "a play is possible with 6-2: the checkers must move"),
    ("ø", FIVE_ONLY, 5, 4, "a play is possible with 5-4"),
    ("13/7 Ø", START, 6, 2, "13/7 Ø is not legal: must use both dice of 6-2"),
    ("8/3 Ø", ONE_DIE, 6, 5, r"must play the larger die \(6\)"),
    # a play where none is possible, Ø or not
    ("bar/19 Ø", CLOSED, 6, 6, "no play is possible with 6-6"),
    # Ø anywhere but once at the end
    ("Ø 6/1", FIVE_ONLY, 5, 4, "write it once, after the moves"),
    ("6/1 Ø Ø", FIVE_ONLY, 5, 4, "write it once, after the moves"),
    ("6/Ø1", FIVE_ONLY, 5, 4, "write it once, after the moves"),
])
def test_unused_mark_errors(text, board, d1, d2, message):
    with pytest.raises(ValueError, match=message):
        parse_play(text, board, d1, d2)


@pytest.mark.parametrize("text", ["6/1 ∅", "6/1 Ö", "6/1 O", "6/1 0", "Ø6/1", "6/1 Ø!",
                                  "6/1 Ø\x00", "💥", "Ø²", "6/1\u0301 Ø", "İ/1 Ø"])
def test_strange_text_near_the_mark_is_one_line_error(text):
    with pytest.raises(ValueError) as e:
        parse_play(text, FIVE_ONLY, 5, 4)
    assert "\n" not in str(e.value)


def test_cli_shows_unused_mark():
    """``gammon moves`` writes Ø in the play field of a one-die play (and its result as
    ever); ``gammon hint`` shows it too; a roll with no play still prints no line."""
    def gammon(*args):
        return subprocess.run([sys.executable, "-m", "gammon.cli", *args], capture_output=True,
                              timeout=120, env={**__import__("os").environ,
                                                "PYTHONIOENCODING": "utf-8"})
    out = gammon("moves", FIVE_ONLY_ID, "5", "4")
    assert out.returncode == 0 and out.stderr == b""
    assert out.stdout.decode("utf-8") == f"6/1 Ø\t{encode(_after('6/1', FIVE_ONLY, 5, 4))}\n"
    hint = gammon("hint", FIVE_ONLY_ID, "54", "--bot", "pubeval")
    assert hint.returncode == 0, hint.stderr
    assert "  6/1 Ø  " in hint.stdout.decode("utf-8")
    closed = gammon("moves", encode(CLOSED), "6", "6")
    assert closed.returncode == 0 and closed.stdout == b""
