"""eXtreme Gammon's XGID (engine/formats/xgid.py): every position of the move-generation
corpus both ways (Position ID -> XGID -> Position ID), XGIDs written by hand from the
format's description with their cube, score, turn, dice and rules fields, GNU Backgammon
1.07's own reading of them (``set xgid``), one-line errors, and the XGID wherever a
Position ID is read on the command line (``show`` prints it)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gammon.engine.formats import posid, xgid
from gammon.engine.formats.matchid import CENTRED, MatchState, encode_match_id
from gammon.engine.rules import variant
from gnubg_helpers import GNUBG, run_gnubg

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data"
START = "4HPwATDgc/ABMA"
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def corpus_positions() -> list[tuple[str, str]]:
    """(variant, Position ID) of every position of the corpus: each case's position and
    every result of its roll (tests/data/movegen_public.jsonl, a copy of
    ../shared/oracle/movegen_public.jsonl)."""
    seen = {}
    for line in (DATA / "movegen_public.jsonl").read_text().splitlines():
        case = json.loads(line)
        for pid in (case["posid"], *case["results"]):
            seen.setdefault((case["variant"], pid), None)
    return list(seen)


def test_every_corpus_position_goes_to_xgid_and_back():
    positions = corpus_positions()
    assert len(positions) > 26_000
    rng = np.random.default_rng(7)
    for k, (name, pid) in enumerate(positions):
        checkers = variant(name).checkers
        board = posid.decode(pid, checkers)
        # the player on roll at the bottom (no state), then at the top or the bottom with a
        # match state: the XGID's position flips, the board must not
        on_roll = int(rng.integers(2))
        state = MatchState(on_roll=on_roll, turn=on_roll, length=7, score=(k % 7, 3),
                           cube_value=2, cube_owner=int(rng.integers(2)),
                           dice=(int(rng.integers(1, 7)), int(rng.integers(1, 7))))
        for given in (None, state):
            text = xgid.encode(board, given)
            back = xgid.decode(text, checkers)
            assert posid.encode(back.board) == pid, (pid, text)
            assert back.state == (given or MatchState(on_roll=1, turn=1)), text
            assert xgid.encode(back.board, back.state) == text


# Written by hand from the description in engine/formats/xgid.py: the 26 characters (the
# top player's bar, the bottom player's points 1..24, his bar; A-P his checkers, a-p the
# top player's), cube exponent, cube position, turn, dice, bottom score, top score,
# Crawford / Jacoby-beaver flag, match length, max cube. Each with the position it means,
# as checkers per point of the bottom player's numbering ("bar": on the bar), and the state
# (players as gnubg numbers them: bottom 1, top 0).
HAND = [
    ("the start, money, the bottom player to roll",
     START_XGID,
     {24: 2, 13: 5, 8: 3, 6: 5}, {1: 2, 12: 5, 17: 3, 19: 5},
     MatchState(on_roll=1, turn=1), False, 10),
    ("the start, money with Jacoby and beavers, the bottom player rolled 5-2",
     "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10",
     {24: 2, 13: 5, 8: 3, 6: 5}, {1: 2, 12: 5, 17: 3, 19: 5},
     MatchState(on_roll=1, turn=1, dice=(5, 2), jacoby=True), True, 10),
    ("7-point match 2-4, a 2-cube the bottom player owns, the top player on the bar "
     "rolled 3-1",
     "XGID=aa---AD-C---eE---c-e----B-:1:1:-1:31:2:4:0:7:10",
     {24: 2, 13: 5, 8: 3, 6: 4, 5: 1}, {"bar": 1, 1: 1, 12: 5, 17: 3, 19: 5},
     MatchState(cube_value=2, cube_owner=1, on_roll=0, turn=0, dice=(3, 1), length=7,
                score=(4, 2)), False, 10),
    ("the Crawford game of a 5-point match, the bottom player 4 up, bearing off",
     "XGID=-ABBBCC------------dc-ba--:0:0:1:00:4:2:1:5:10",
     {1: 1, 2: 2, 3: 2, 4: 2, 5: 3, 6: 3}, {19: 4, 20: 3, 22: 2, 23: 1},
     MatchState(on_roll=1, turn=1, crawford=True, length=5, score=(2, 4)), False, 10),
    ("9-point match 3-5: the top player redoubles his 4-cube, the bottom player to answer",
     "XGID=-a-Ab-E-C--adD---c-dA---A-:2:-1:-1:D:3:5:0:9:10",
     {3: 1, 6: 5, 8: 3, 13: 4, 20: 1, 24: 1}, {1: 1, 4: 2, 11: 1, 12: 4, 17: 3, 19: 4},
     MatchState(cube_value=4, cube_owner=0, on_roll=0, turn=1, double_offered=True,
                length=9, score=(5, 3)), False, 10),
    ("money, Jacoby only, session 7-3: the bottom player has two on the bar against a "
     "16-cube the top player owns, and rolled 6-6",
     "XGID=------E-B---cD---b-ecb--BB:4:-1:1:66:7:3:1:0:10",
     {"bar": 2, 6: 5, 8: 2, 13: 4, 24: 2}, {12: 3, 17: 2, 19: 5, 20: 3, 21: 2},
     MatchState(cube_value=16, cube_owner=0, on_roll=1, turn=1, dice=(6, 6),
                score=(3, 7), jacoby=True), False, 10),
    ("post-Crawford, 5-point match 4-3: the top player on the bar to roll",
     "XGID=aBBCBBB------------ccc--b-:0:0:-1:00:4:3:0:5:10",
     {1: 2, 2: 2, 3: 3, 4: 2, 5: 2, 6: 2}, {"bar": 1, 19: 3, 20: 3, 21: 3, 24: 2},
     MatchState(on_roll=0, turn=0, length=5, score=(3, 4)), False, 10),
    ("money with beavers only, a 2-cube the bottom player owns, the top player rolled 4-3",
     "XGID=-b----E-C-A-eD---c-e----B-:1:1:-1:43:0:0:2:0:10",
     {24: 2, 13: 4, 10: 1, 8: 3, 6: 5}, {1: 2, 12: 5, 17: 3, 19: 5},
     MatchState(cube_value=2, cube_owner=1, on_roll=0, turn=0, dice=(4, 3)), True, 10),
    ("the start of a 3-point match, the top player to roll, max cube 2**8",
     "XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:0:0:0:3:8",
     {24: 2, 13: 5, 8: 3, 6: 5}, {1: 2, 12: 5, 17: 3, 19: 5},
     MatchState(on_roll=0, turn=0, length=3), False, 8),
]


def drawn(bottom: dict, top: dict, on_roll: int) -> np.ndarray:
    """The board from the player on roll (engine.board) of checkers counted per point of
    the bottom player's numbering: the bottom player's own points; the top player's own
    point for the bottom player's point p is 25 - p."""
    board = np.zeros(26, dtype=np.int8)
    if on_roll == 1:  # the bottom player is the mover
        for p, n in bottom.items():
            board[25 if p == "bar" else p] += n
        for p, n in top.items():
            board[0 if p == "bar" else p] -= n
    else:  # the top player is the mover: his point 25 - p
        for p, n in top.items():
            board[25 if p == "bar" else 25 - p] += n
        for p, n in bottom.items():
            board[0 if p == "bar" else 25 - p] -= n
    return board


@pytest.mark.parametrize("name, text, bottom, top, state, beavers, max_cube", HAND,
                         ids=[h[0][:40] for h in HAND])
def test_hand_written_xgids(name, text, bottom, top, state, beavers, max_cube):
    found = xgid.decode(text)
    assert found.state == state
    assert (found.board == drawn(bottom, top, state.on_roll)).all(), found.board
    assert (found.beavers, found.max_cube) == (beavers, max_cube)
    assert xgid.encode(found.board, found.state, found.beavers, found.max_cube) == text
    assert xgid.decode(text.removeprefix("XGID=")).state == state  # the prefix is optional
    assert xgid.decode(" xgid=" + text[5:] + " ").state == state


def test_the_hand_written_xgids_cover_the_fields():
    states = [h[4] for h in HAND]
    assert len(HAND) >= 8
    assert {s.on_roll for s in states} == {0, 1}
    assert {s.cube_owner for s in states} == {0, 1, CENTRED}
    assert any(s.double_offered for s in states) and any(s.crawford for s in states)
    assert any(s.jacoby for s in states) and any(h[5] for h in HAND)
    assert {s.length > 0 for s in states} == {True, False}
    assert any(s.dice[0] == s.dice[1] != 0 for s in states)
    assert any("bar" in h[2] for h in HAND) and any("bar" in h[3] for h in HAND)


def test_the_start_is_the_start():
    assert posid.encode(xgid.decode(START_XGID).board) == START
    assert xgid.encode(posid.decode(START)) == START_XGID


def test_nine_fields_are_read_as_some_programs_write_them():
    found = xgid.decode(START_XGID.rsplit(":", 1)[0])
    assert found.max_cube == 10 and posid.encode(found.board) == START


def relative(state: MatchState) -> tuple:
    """A state from the player on roll's side: gnubg numbers the players otherwise than
    we do when the top player is on roll (it makes the side on roll its player 1), and
    keeps the larger die first."""
    me = state.on_roll
    owner = "centred" if state.cube_owner == CENTRED else \
        ("mover" if state.cube_owner == me else "opponent")
    return (state.cube_value, owner, sorted(state.dice), state.length, state.crawford,
            state.score[me], state.score[1 - me], state.jacoby if not state.length else None)


def gnubg_reads(texts: list[str], tmp_path) -> list[tuple[str, str]]:
    """GNU Backgammon's Position ID and Match ID after ``set xgid`` of each text."""
    script = []
    for k, text in enumerate(texts):
        script += [f"set xgid {text}", "show board", f"set seed {9000 + k}"]
    output = run_gnubg(script, tmp_path, timeout=300)
    chunks = re.split(r"Seed set to \d+\.", output)
    out = []
    for chunk in chunks[:len(texts)]:
        out.append((re.findall(r"Position ID: (\S+)", chunk)[-1],
                    re.findall(r"Match ID   : (\S+)", chunk)[-1]))
    return out


@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")
def test_gnubg_reads_our_xgids_the_same(tmp_path):
    """GNU Backgammon 1.07's ``set xgid`` on the hand-written XGIDs (but the pending double,
    which gnubg steps back from) and on 150 corpus positions with match states: the same
    Position ID, and the same state from the player on roll's side."""
    from gammon.engine.formats.matchid import decode_match_id
    texts = [h[1] for h in HAND if "D" != h[1].split(":")[4]]
    rng = np.random.default_rng(3)
    positions = [p for p in corpus_positions() if p[0] == "standard"]
    for k in rng.choice(len(positions), 150, replace=False):
        on_roll = int(rng.integers(2))
        state = MatchState(on_roll=on_roll, turn=on_roll, length=9,
                           score=(int(rng.integers(9)), int(rng.integers(9))),
                           cube_value=1 << int(rng.integers(4)),
                           cube_owner=int(rng.choice([0, 1, CENTRED])),
                           dice=(int(rng.integers(1, 7)), int(rng.integers(1, 7))))
        texts.append(xgid.encode(posid.decode(positions[k][1]), state))
    answers = gnubg_reads(texts, tmp_path)
    assert len(answers) == len(texts)
    for text, (their_posid, their_matchid) in zip(texts, answers):
        ours = xgid.decode(text)
        assert posid.encode(ours.board) == their_posid, text
        assert relative(decode_match_id(their_matchid)) == relative(ours.state), text


@pytest.mark.parametrize("text, message", [
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0", "has 8 fields"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10:1", "has 11 fields"),
    ("XGID=-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:0:10", "25 characters, not 26"),
    ("XGID=-b----E-C---eE---c-e----Bz:0:0:1:00:0:0:0:0:10", "letters beyond p/P"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10".replace("E-C", "O-C"),
     "the bottom player has 25 checkers; at most 15"),
    ("XGID=Ab----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "top player's bar"),
    ("XGID=-b----E-C---eE---c-e----Ba:0:0:1:00:0:0:0:0:10", "bottom player's bar"),
    ("XGID=-b----E-C---eE---c-e----B-:16:0:1:00:0:0:0:0:10", "field 2"),
    ("XGID=-b----E-C---eE---c-e----B-:0:2:1:00:0:0:0:0:10", "field 3"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:0:00:0:0:0:0:10", "field 4 (turn)"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:70:0:0:0:0:10", "field 5 (dice)"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:5:0:0:0:0:10", "field 5 (dice)"),
    ("XGID=-b----E-C---eE---c-e----B-:1:1:1:B:0:0:3:0:10", "a beaver waiting"),
    ("XGID=-b----E-C---eE---c-e----B-:1:1:1:R:0:0:3:0:10", "a raccoon waiting"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:7:0:0:7:10", "has reached the match length"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:3:3:1:7:10",
     "Crawford flag set but neither player is 1-away"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:3:3:2:7:10", "Crawford flag in a match"),
    ("XGID=-b----E-C---eE---c-e----B-:x:0:1:00:0:0:0:0:10", "field 2"),
])
def test_bad_xgids_are_one_line_errors(text, message):
    with pytest.raises(ValueError, match=re.escape(message)) as caught:
        xgid.decode(text)
    assert "\n" not in str(caught.value)


def test_states_an_xgid_cannot_hold():
    from gammon.engine.formats.matchid import OVER
    board = posid.decode(START)
    for state, message in ((MatchState(game_state=OVER), "the game is over"),
                           (MatchState(resign=2), "a resignation is on offer")):
        with pytest.raises(ValueError, match=message):
            xgid.encode(board, state)


def test_looks_like_xgid_tells_it_from_position_ids():
    assert xgid.looks_like_xgid(START_XGID) and xgid.looks_like_xgid(START_XGID[5:])
    assert not xgid.looks_like_xgid(START) and not xgid.looks_like_xgid(f"{START}:cAkAAAAAAAAA")
    assert not xgid.looks_like_xgid("plakoto:-15,0")


# --- on the command line ---------------------------------------------------------------


def gammon(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "gammon.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


def test_show_prints_the_xgid_and_reads_one():
    out = gammon("show", START)
    assert out.returncode == 0 and out.stdout.splitlines()[-1] == START_XGID
    text = HAND[2][1]
    out = gammon("show", text)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[-4] == text
    assert lines[-3:] == ["7-point match, score X 4, O 2 (X needs 3, O 5)",
                          "Cube 2, owned by O", "X rolled 3-1"]
    shown = json.loads(gammon("show", text, "--json").stdout)
    found = xgid.decode(text)
    assert shown["xgid"] == text and shown["position"] == posid.encode(found.board)
    assert shown["match_id"] == encode_match_id(found.state)
    # the Position ID and Match ID gnubg would write: the same diagram and words
    same = gammon("show", f"{shown['position']}:{shown['match_id']}")
    assert same.stdout.splitlines()[:-4] == lines[:-4] and same.stdout.splitlines()[-3:] == \
        lines[-3:]


def test_show_batch_and_game_over_ids():
    out = gammon("show", "--batch", stdin=f"{HAND[4][1]}\n{START}:cEMAAMAAAAAE\nXGID=bad\n")
    first, second, third = (json.loads(line) for line in out.stdout.splitlines())
    assert first["double_offered"] and first["turn"] == "opponent" and first["xgid"] == HAND[4][1]
    assert second["xgid"] is None and second["game_state"] == "resigned"
    assert "error" in third
    over = gammon("show", f"{START}:cEMAAMAAAAAE").stdout.splitlines()
    assert any(line.startswith("XGID: none (the game is over") for line in over)


def test_xgids_are_read_wherever_position_ids_are():
    moves = gammon("moves", START_XGID, "3", "1")
    assert moves.returncode == 0 and moves.stdout == gammon("moves", START, "3", "1").stdout
    cube = gammon("cube", HAND[2][1].replace(":31:", ":00:"))
    assert cube.returncode == 0 and "action" in cube.stdout, cube.stderr
    clash = gammon("cube", HAND[2][1], "--length", "7")
    assert clash.returncode == 2 and "an XGID holds the match length" in clash.stderr


@pytest.mark.parametrize("args, message", [
    (["show", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0"], "has 8 fields"),
    (["show", "XGID=-b----E-C---eE---c-e----B-:1:1:1:B:0:0:3:0:10"], "beaver"),
    (["moves", "XGID=-b----E-C---eE---c-e----Bz:0:0:1:00:0:0:0:0:10", "31"], "letters"),
    (["show", "--variant", "plakoto", START_XGID], "an XGID cannot hold plakoto"),
])
def test_bad_xgids_on_the_command_line_are_one_line(args, message):
    out = gammon(*args)
    assert out.returncode == 2 and message in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
