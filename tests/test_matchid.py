"""GNU Backgammon Match IDs (engine.formats.matchid) against IDs gnubg wrote itself.

tests/data/gnubg_match_ids.jsonl holds Match IDs gnubg 1.07 showed after the commands
beside them (tests/data/make_gnubg_match_ids.py writes it), with the state those commands
set. Only the live test at the end runs gnubg, and it skips without one.
"""

import base64
import json
import shutil
import subprocess
import tempfile
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from gammon.engine.formats.matchid import (
    CENTRED,
    DROPPED,
    NO_GAME,
    OVER,
    PLAYING,
    RESIGNED,
    MatchState,
    decode_match_id,
    encode_match_id,
)

DATA = Path(__file__).parent / "data" / "gnubg_match_ids.jsonl"
RECORDS = [json.loads(line) for line in DATA.read_text().splitlines()]
GNUBG = shutil.which("gnubg") or shutil.which("/usr/games/gnubg")
FIELDS = ("cube", "owner", "on_roll", "crawford", "state", "turn", "double", "resign",
          "d1", "d2", "length", "s0", "s1", "no_jacoby", "spare")
WIDTHS = (4, 2, 1, 1, 3, 1, 1, 2, 3, 3, 15, 15, 15, 1, 5)  # 72 bits in all


def raw_id(**fields) -> str:
    """A Match ID packed field by field, bypassing the encoder's checks (for bad IDs);
    unnamed fields are those of a 7-point match at 0-0, player 0 to roll."""
    values = dict.fromkeys(FIELDS, 0) | {"owner": 3, "state": 1, "length": 7, "no_jacoby": 1}
    values |= fields
    key, bit = 0, 0
    for name, width in zip(FIELDS, WIDTHS):
        key |= values[name] << bit
        bit += width
    return base64.b64encode(key.to_bytes(9, "little")).decode()


def expected(record) -> MatchState:
    state = dict(record["state"])
    return MatchState(**state | {"dice": tuple(state["dice"]), "score": tuple(state["score"])})


def test_the_data_file_is_varied():
    """At least 100 IDs, covering what the generator promises."""
    states = [expected(r) for r in RECORDS]
    assert len(RECORDS) >= 100
    assert {s.length for s in states} == set(range(26))  # money and lengths 1..25
    assert {s.game_state for s in states} == {PLAYING, OVER, RESIGNED, DROPPED}
    assert {s.cube_owner for s in states} == {0, 1, CENTRED}
    assert {s.resign for s in states} == {0, 1, 2, 3}
    assert {s.on_roll for s in states} == {s.turn for s in states} == {0, 1}
    assert len({s.cube_value for s in states}) >= 8
    for flag in ("crawford", "double_offered", "jacoby"):
        assert {getattr(s, flag) for s in states} == {False, True}, flag
    assert any(s.dice != (0, 0) for s in states) and any(s.dice == (0, 0) for s in states)
    assert any(s.on_roll != s.turn for s in states)


@pytest.mark.parametrize("record", RECORDS, ids=[f"{i}-{r['kind']}" for i, r in
                                                  enumerate(RECORDS)])
def test_gnubg_match_ids_round_trip(record):
    """Every field of gnubg's ID is the state its commands set, and it encodes back."""
    state = decode_match_id(record["match_id"])
    want = expected(record)
    for field, value in asdict(want).items():
        assert asdict(state)[field] == value, (field, record["commands"])
    assert encode_match_id(state) == record["match_id"]


def test_the_documented_example_and_defaults():
    fresh = MatchState(length=7, on_roll=1, turn=1, dice=(6, 3))
    assert encode_match_id(fresh) == "cAnvAAAAAAAE"
    assert decode_match_id("  cAnvAAAAAAAE\n") == fresh  # blanks around it are ignored


@pytest.mark.parametrize("state", [
    MatchState(game_state=NO_GAME),
    MatchState(jacoby=True),
    MatchState(cube_value=2 ** 15, cube_owner=1, length=0, score=(32767, 32767)),
    MatchState(length=32767, score=(32766, 32766), crawford=True, dice=(6, 6)),
    MatchState(length=5, score=(4, 9), game_state=OVER, crawford=True),
    MatchState(length=3, score=(1, 2), resign=3, turn=1, on_roll=0, dice=(2, 1)),
])
def test_states_gnubg_did_not_write_round_trip(state):
    mid = encode_match_id(state)
    assert len(mid) == 12 and decode_match_id(mid) == state


def _error(text: str) -> str:
    with pytest.raises(ValueError) as caught:
        decode_match_id(text)
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize("text, words", [
    ("cAnvAAAAAAA", "has 11 characters, not 12"),
    ("", "has 0 characters, not 12"),
    ("cAnvAAAAAAAE=", "has 13 characters"),
    ("cAnvAAAA-AAE", "characters outside base64: '-'"),
    ("cAnv AAAAAAE", "characters outside base64: ' '"),
    (raw_id(state=5), "unknown game state 5"),
    (raw_id(state=7), "unknown game state 7"),
    (raw_id(owner=2), "cube owner 2 is not 0, 1 or 3"),
    (raw_id(d1=7, d2=3), "dice 7-3 outside 0..6"),
    (raw_id(d1=4), "either both dice are rolled or neither"),
    (raw_id(s0=7), "score 7-0 has reached the match length 7"),
    (raw_id(s1=9, s0=3), "score 3-9 has reached the match length 7"),
    (raw_id(crawford=1, s0=5), "Crawford flag set but neither player is 1-away at 5-0 to 7"),
    (raw_id(crawford=1, length=0), "Crawford flag set in money play"),
    (raw_id(spare=1), "bits set after bit 66"),
])
def test_decode_errors_name_the_problem(text, words):
    message = _error(text)
    assert words in message
    assert message.startswith("Match ID ")


def test_decode_errors_quote_at_most_40_characters():
    message = _error("A" * 30 + "B" * 30)
    assert "'" + "A" * 30 + "B" * 10 + "'..." in message and "B" * 11 not in message
    assert "has 60 characters" in message


def test_the_final_score_may_pass_the_length_once_the_game_is_over():
    for game in (OVER, RESIGNED, DROPPED):
        assert decode_match_id(raw_id(s0=22, state=game)).score == (22, 0)


@pytest.mark.parametrize("change, words", [
    ({"cube_value": 3}, "cube value 3 is not a power of two"),
    ({"cube_value": 0}, "cube value 0 is not a power of two"),
    ({"cube_value": 2 ** 16}, "beyond 2**15"),
    ({"cube_owner": -1}, "cube owner -1"),
    ({"on_roll": 2}, "on roll 2 is not 0 or 1"),
    ({"turn": -1}, "turn -1 is not 0 or 1"),
    ({"resign": 4}, "resignation 4"),
    ({"game_state": 5}, "unknown game state 5"),
    ({"dice": (0, 7)}, "dice 0-7 outside 0..6"),
    ({"length": 32768}, "match length 32768 outside 0..32767"),
    ({"score": (-1, 0)}, "score -1 outside"),
])
def test_encode_refuses_what_the_key_cannot_hold(change, words):
    with pytest.raises(ValueError, match="cannot write a Match ID") as caught:
        encode_match_id(replace(MatchState(length=7), **change))
    assert words in str(caught.value)


@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")
def test_gnubg_reads_our_ids_back():
    """gnubg takes IDs we wrote ("set matchid") and shows the same IDs again. (gnubg's
    reader drops a pending double or resignation, so no state here has one.)"""
    states = [
        MatchState(length=9, score=(2, 8), cube_value=4, cube_owner=0, on_roll=1, turn=1,
                   dice=(5, 2)),
        MatchState(length=5, score=(4, 1), crawford=True, on_roll=0, turn=0),
        MatchState(length=11, score=(3, 6), cube_value=2, cube_owner=1, on_roll=1, turn=1),
        MatchState(length=0, jacoby=True, score=(3, 12), cube_value=8, cube_owner=0,
                   dice=(4, 4)),
    ]
    ids = [encode_match_id(s) for s in states]
    script = ["set sound enable off", "set player 0 human", "set player 1 human",
              "new match 3"]
    for number, mid in enumerate(ids):
        script += [f"set matchid {mid}", "show board", f"set seed {900000 + number}"]
    with tempfile.TemporaryDirectory() as home:
        run = subprocess.run([GNUBG, "-t", "-q"], input="\n".join(script) + "\n", text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             check=False, timeout=120,
                             env={"HOME": home, "PATH": "/usr/bin:/bin", "LANG": "C"})
    output = run.stdout
    for number, mid in enumerate(ids):
        before, _, output = output.partition(f"Seed set to {900000 + number}.")
        shown = [line.split()[-1] for line in before.splitlines() if "Match ID   :" in line]
        assert shown and shown[-1] == mid, (states[number], before[-1500:])
