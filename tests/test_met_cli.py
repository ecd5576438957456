"""``gammon met`` (match equity tables) and ``gammon show POSID:MATCHID`` (gnubg Match IDs).

The POSID:MATCHID pairs in tests/data/gnubg_show_pairs.jsonl were written by gnubg 1.07
(tests/data/make_gnubg_show_pairs.py) with the board gnubg drew beside them: the fields
``show --json`` reads must be those the gnubg commands set, and the board the Position ID
gives must be the one gnubg drew, numbered from the side of the player on roll. Only the
live test at the end runs gnubg, and it skips without one.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from gammon.engine.formats.diagram import diagram
from gammon.engine.met import dump_met, format_met, load_met, met_from_gammon_rate
from gammon.positions import read_position
from inprocess import gammon

START = "4HPwATDgc/ABMA"
DATA = Path(__file__).parent / "data"
PAIRS = [json.loads(line) for line in (DATA / "gnubg_show_pairs.jsonl").read_text().splitlines()]
GNUBG = shutil.which("gnubg") or shutil.which("/usr/games/gnubg")
MATCH_FIELDS = ("length", "score", "crawford", "cube_value", "cube_owner", "turn",
                "double_offered", "dice")


def ok(*args, stdin=None):
    r = gammon(*args, stdin=stdin)
    assert r.returncode == 0, r.stderr
    return r.stdout


def fails(*args, stdin=None) -> str:
    """The one-line error of a bad command line (exit 2, no traceback)."""
    r = gammon(*args, stdin=stdin)
    assert r.returncode == 2, (args, r.stdout[-500:])
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    return r.stderr


def met_json(*args, stdin=None) -> dict:
    return json.loads(ok("met", "--json", *args, stdin=stdin))


# --- gammon met -------------------------------------------------------------------------------


def test_met_prints_the_table_of_the_engine():
    out = ok("met", "--length", "7")
    assert out == format_met(met_from_gammon_rate(7, 0.26, cube=True)) + "\n"
    lines = out.splitlines()
    assert lines[0] == "Match equity table: gammon rate 0.26, live cube"
    rows = [line for line in lines if re.match(r"\s+\d-away\s+\d+\.\d", line)]
    assert len(rows) == 7
    assert [float(x) for x in rows[0].split()[1:3]] == [50.0, 68.5]  # 1-away: Crawford game
    for i, row in enumerate(rows):
        assert row.split()[i + 1] == "50.0"  # level scores
    assert "Post-Crawford" in out


def test_met_default_length_is_11():
    out = ok("met")
    assert " 11-away" in out and "12-away" not in out
    assert met_json()["length"] == 11


def test_met_json_shape_and_symmetry():
    for model, options in (("live cube", []), ("cubeless", ["--cubeless"])):
        t = met_json("--length", "9", "--gammon-rate", "0.2", *options)
        assert set(t) == {"length", "gammon_rate", "model", "name", "table", "post_crawford"}
        assert (t["length"], t["gammon_rate"], t["model"]) == (9, 0.2, model)
        table = np.array(t["table"])
        assert table.shape == (9, 9) and len(t["post_crawford"]) == 9
        assert np.allclose(table + table.T, 1.0, atol=2e-6)  # i vs j and j vs i
        assert np.allclose(np.diag(table), 0.5, atol=1e-6)
        assert (np.diff(table, axis=0) < 0).all()  # further away, less likely to win
        assert t["post_crawford"][0] == 0.5
        engine = met_from_gammon_rate(9, 0.2, cube=model == "live cube")
        assert np.allclose(table, engine.pre[1:, 1:], atol=1e-6)
        assert np.allclose(t["post_crawford"], engine.post[1:], atol=1e-6)


def test_met_cubeless_and_gammon_rate_change_the_table():
    live = np.array(met_json("--length", "5")["table"])
    cubeless = np.array(met_json("--length", "5", "--cubeless")["table"])
    no_gammons = np.array(met_json("--length", "5", "--gammon-rate", "0")["table"])
    assert not np.allclose(live, cubeless) and not np.allclose(live, no_gammons)
    assert ok("met", "--length", "5", "--cubeless").startswith(
        "Match equity table: gammon rate 0.26, cubeless")


def test_met_file_round_trip(tmp_path):
    path = tmp_path / "met.txt"
    path.write_text(dump_met(met_from_gammon_rate(9, 0.2, cube=True)))
    loaded = met_json("--file", path)
    computed = met_json("--length", "9", "--gammon-rate", "0.2")
    assert (loaded["length"], loaded["model"], loaded["gammon_rate"]) == (9, "file", None)
    assert loaded["name"] == computed["name"] == "gammon rate 0.2, live cube"
    assert np.allclose(loaded["table"], computed["table"], atol=1e-6)
    assert np.allclose(loaded["post_crawford"], computed["post_crawford"], atol=1e-6)
    assert ok("met", "--file", path) == format_met(load_met(path)) + "\n"
    short = met_json("--file", path, "--length", "4")
    assert short["length"] == 4 and np.array(short["table"]).shape == (4, 4)
    assert short["table"] == [row[:4] for row in loaded["table"][:4]]
    assert met_json("--file", "-", stdin=path.read_text())["table"] == loaded["table"]


HAND_WRITTEN = """\
# a 3-point table in percent, commas and spaces
name: hand written
unit: percent
length: 3
pre-crawford
50, 68, 75
32  50  60
25  40  50
post-crawford
50 48.5 31.5
"""


def test_met_file_in_percent(tmp_path):
    path = tmp_path / "hand.txt"
    path.write_text(HAND_WRITTEN)
    t = met_json("--file", path)
    assert t["name"] == "hand written" and t["table"][1] == [0.32, 0.5, 0.6]
    assert t["post_crawford"] == [0.5, 0.485, 0.315]
    out = ok("met", "--file", path)
    assert out.startswith("Match equity table: hand written") and "  68.0  " in out


@pytest.mark.parametrize("args, message", [
    (["--length", "0"], "--length is a whole number from 1 to 64, got '0'"),
    (["--length", "65"], "--length is a whole number from 1 to 64, got '65'"),
    (["--length", "seven"], "--length is a whole number"),
    (["--length", "٧"], "--length is a whole number"),
    (["--gammon-rate", "1"], "--gammon-rate is a number from 0 up to (not including) 1"),
    (["--gammon-rate", "1.5"], "--gammon-rate is a number from 0"),
    (["--gammon-rate", "-0.1"], "--gammon-rate is a number from 0"),
    (["--gammon-rate", "nan"], "--gammon-rate is a number from 0"),
    (["--gammon-rate", "26%"], "--gammon-rate is a number from 0"),
    (["--file", "/nonexistent/met.txt"], "cannot read --file '/nonexistent/met.txt': No such"),
    (["--file", "/"], "--file '/' is a directory"),
    (["--file", "a\x00b"], "cannot read --file 'a\\x00b'"),
    (["--file", "/dev/null"], "'/dev/null': no 'length:' header"),
])
def test_met_bad_input_is_one_line(args, message):
    assert message in fails("met", *args)


def bad_file(tmp_path, text: str | bytes) -> str:
    path = tmp_path / "bad.txt"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return fails("met", "--file", path)


def test_met_malformed_files_name_the_file_and_line(tmp_path):
    name = str(tmp_path / "bad.txt")
    broken = HAND_WRITTEN.replace("32  50  60", "32  fifty  60")
    err = bad_file(tmp_path, broken)
    assert f"{name!r}, line 7: not a row of numbers" in err
    err = bad_file(tmp_path, HAND_WRITTEN.replace("25  40  50", "25  40"))
    assert f"{name!r}, line 8: 2 numbers, not 3" in err
    err = bad_file(tmp_path, HAND_WRITTEN.replace("length: 3", "length: 99"))
    assert f"{name!r}, line 4: length '99'" in err
    err = bad_file(tmp_path, HAND_WRITTEN.replace("32  50  60", "52  50  60"))
    assert "should add up to 1" in err and name in err
    assert "not UTF-8" in bad_file(tmp_path, b"length: 3\n\xff\xfe\n")
    assert "over 1024 KB" in bad_file(tmp_path, "#" * (1 << 21))


def test_met_file_and_model_options_do_not_mix(tmp_path):
    path = tmp_path / "met.txt"
    path.write_text(HAND_WRITTEN)
    assert "give one or the other" in fails("met", "--file", path, "--cubeless")
    assert "give one or the other" in fails("met", "--file", path, "--gammon-rate", "0.2")
    assert "--length 4 is beyond the table" in fails("met", "--file", path, "--length", "4")


KAZAROSS = Path("/usr/share/gnubg/met/Kazaross-XG2.xml")  # Debian's gnubg ships it


@pytest.mark.skipif(not KAZAROSS.exists(), reason="gnubg's Kazaross-XG2 table is not here")
def test_met_live_cube_is_near_the_kazaross_xg2_table():
    """What --help says: up to 11-away, 0.4 percentage points from Kazaross-XG2 on
    average and 0.8 at most with the live cube; the cubeless table is far off."""
    pre = KAZAROSS.read_text().split("<pre-crawford-table")[1].split("</pre-crawford")[0]
    rows = [[float(x) for x in re.findall(r"<me>([0-9.]+)</me>", row)]
            for row in pre.split("<row>")[1:]]
    published = np.array(rows)[:11, :11]
    live = 100 * np.abs(np.array(met_json()["table"]) - published)
    assert live.mean() < 0.45 and live.max() < 0.85
    cubeless = 100 * np.abs(np.array(met_json("--cubeless")["table"]) - published)
    assert cubeless.max() > 5


def test_met_help():
    out = ok("met", "--help")
    assert "usage: gammon met" in out
    assert "the chance that the row player wins the" in out and "default 11" in out
    assert "--cubeless" in out and "examples:" in out and "gammon met --length 7" in out


# --- gammon show POSID:MATCHID ----------------------------------------------------------------


def show_json(text: str, *options) -> dict:
    return json.loads(ok("show", text, "--json", *options))


def gnubg_board(lines: list[str], on_roll: int) -> np.ndarray:
    """The board gnubg drew, from the side of the player on roll (gnubg numbers the points
    from that side; player 0 is O, player 1 is X): (26,) as our boards are."""
    mine = "X" if on_roll == 1 else "O"
    board = np.zeros(26, dtype=np.int8)
    halves = ((lines[0], lines[1:6]), (lines[12], lines[7:12]))
    for edge, rows in halves:
        points = [int(n) for n in re.findall(r"\d+", edge)]
        columns = [2 + 3 * k for k in range(6)] + [25 + 3 * k for k in range(6)]
        for point, col in zip(points, columns):
            cells = [row[col:col + 3].strip() for row in rows]
            symbols = [c for c in cells if c in ("X", "O")]
            digits = [c for c in cells if c.isdigit()]
            count = int(digits[0]) if digits else len(symbols)
            if count:
                board[point] = count if symbols[0] == mine else -count
    bar = [row[21:24].strip() for row in lines[1:6] + lines[7:12]]
    board[25] = sum(c == mine for c in bar)
    board[0] = -sum(c not in ("", mine) for c in bar)
    return board


@pytest.mark.parametrize("pair", PAIRS, ids=[p["name"] for p in PAIRS])
def test_show_reads_gnubg_pairs(pair):
    text = f"{pair['position_id']}:{pair['match_id']}"
    out = show_json(text)
    expect = pair["expect"]
    assert {k: out[k] for k in MATCH_FIELDS} == {k: expect[k] for k in MATCH_FIELDS}
    assert out["position"] == pair["position_id"] and out["match_id"] == pair["match_id"]
    assert out["game_state"] == "playing" and out["resign"] is None
    drawn = gnubg_board(pair["board"], expect["on_roll"])
    assert (read_position(pair["position_id"]) == drawn).all()


def test_the_gnubg_pairs_cover_the_cases():
    expects = [p["expect"] for p in PAIRS]
    assert {e["on_roll"] for e in expects} == {0, 1}
    assert {(e["on_roll"], e["double_offered"]) for e in expects} >= {(0, True), (1, True)}
    assert any(e["crawford"] for e in expects) and any(e["length"] == 0 for e in expects)
    assert {e["cube_owner"] for e in expects} == {"centred", "mover", "opponent"}
    assert len({p["position_id"] for p in PAIRS}) >= 3
    assert any(gnubg_board(p["board"], p["expect"]["on_roll"])[[0, 25]].any() for p in PAIRS)


def test_show_plain_position_id_is_unchanged():
    out = ok("show", START)  # the diagram, then the XGID (money, the mover at the bottom)
    assert out == diagram(read_position(START)) + \
        "\nXGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10\n"
    assert "match" not in out.lower() and "Cube" not in out


def test_show_plain_position_id_json_has_money_defaults():
    out = show_json("sGfwATDgc/ABMA")  # the opponent has played 8/5 6/5
    assert out == {
        "position": "sGfwATDgc/ABMA", "match_id": None,
        "xgid": "XGID=-b----E-C---eE---b-db---B-:0:0:1:00:0:0:0:0:10", "variant": "standard",
        "pips": [167, 163], "off": [0, 0], "bar": [0, 0], "length": 0, "score": [0, 0],
        "crawford": False, "cube_value": 1, "cube_owner": "centred", "turn": "mover",
        "double_offered": False, "dice": None, "resign": None, "game_state": "playing",
        "jacoby": False,
    }


def test_show_the_example_of_the_help():
    out = show_json(f"{START}:cAkAAAAAAAAA")
    assert {k: out[k] for k in MATCH_FIELDS} == {
        "length": 0, "score": [0, 0], "crawford": False, "cube_value": 1,
        "cube_owner": "centred", "turn": "mover", "double_offered": False, "dice": None}
    assert out["jacoby"] is True  # gnubg 1.07 sets bit 66 when Jacoby is off


def pair(name_part: str) -> str:
    p = next(p for p in PAIRS if name_part in p["name"])
    return f"{p['position_id']}:{p['match_id']}"


def test_show_text_says_the_match_state():
    out = ok("show", pair("player 0 doubled"))
    assert out.startswith(diagram(read_position("4HPwBSCwZ/ABMA")) + "\n")
    assert out.splitlines()[-3:] == ["7-point match, score X 3, O 5 (X needs 4, O 2)",
                                     "Cube 1, centred", "X doubles: O to take or pass"]
    out = ok("show", pair("Crawford game")).splitlines()[-3:]
    assert out == ["5-point match, score X 2, O 4 (X needs 3, O 1); the Crawford game",
                   "Cube 1, centred", "X rolled 5-2"]
    out = ok("show", pair("money, player 0 owns")).splitlines()[-3:]
    assert out == ["Money game, session score X 5, O 2", "Cube 4, owned by O", "X rolled 2-1"]
    out = ok("show", pair("player 1 took")).splitlines()[-2:]
    assert out == ["Cube 2, owned by O", "X rolled 5-3"]


FIELDS = ("cube", "owner", "on_roll", "crawford", "state", "turn", "double", "resign",
          "d1", "d2", "length", "s0", "s1", "no_jacoby", "spare")
WIDTHS = (4, 2, 1, 1, 3, 1, 1, 2, 3, 3, 15, 15, 15, 1, 5)


def raw_id(**fields) -> str:
    """A Match ID packed field by field, without the encoder's checks; unnamed fields are
    those of a 7-point match at 0-0, player 0 to roll."""
    values = dict.fromkeys(FIELDS, 0) | {"owner": 3, "state": 1, "length": 7, "no_jacoby": 1}
    key, bit = 0, 0
    for name, width in zip(FIELDS, WIDTHS):
        key |= (values | fields)[name] << bit
        bit += width
    return base64.b64encode(key.to_bytes(9, "little")).decode()


def test_raw_id_packs_as_gnubg():
    assert raw_id(on_roll=1, turn=1, d1=6, d2=3) == "cAnvAAAAAAAE"  # gnubg's own


@pytest.mark.parametrize("matchid, message", [
    ("cAkAAAAAAAA", "has 11 characters, not 12"),
    ("", "has 0 characters, not 12"),
    ("cAkAAAAAAA*A", "characters outside base64"),
    (raw_id(spare=1), "bits set after bit 66"),
    (raw_id(state=6), "unknown game state 6"),
    (raw_id(owner=2), "cube owner 2"),
    (raw_id(d1=7, d2=1), "dice 7-1 outside 0..6"),
    (raw_id(s0=7, s1=3), "score 7-3 has reached the match length 7"),
    (raw_id(s0=2, s1=9), "score 2-9 has reached the match length 7"),
    (raw_id(crawford=1, s0=3, s1=3), "Crawford flag set but neither player is 1-away at 3-3"),
    (raw_id(crawford=1, length=0), "Crawford flag set in money play"),
])
def test_show_bad_match_ids_are_one_line(matchid, message):
    for options in ([], ["--json"]):
        assert message in fails("show", f"{START}:{matchid}", *options)


def test_show_other_bad_input():
    assert "a Position ID has 14 characters" in fails("show", "4HPwATDgc/ABM:cAkAAAAAAAAA")
    assert "takes none" in fails("show", "--variant", "plakoto",
                                 "plakoto:-14,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,14"
                                 ":cAkAAAAAAAAA")
    assert "give a POSID" in fails("show")
    assert "give no POSID" in fails("show", START, "--batch")
    assert "--bomb is for --variant nuclear" in fails("show", "--batch", "--bomb", "mine")


def test_show_game_over_ids_of_gnubg_are_read():
    """gnubg writes the final score once a game is over; such IDs are no error."""
    out = show_json(f"{START}:cEMAAMAAAAAE")  # money: player 1 resigned a gammon
    assert (out["game_state"], out["resign"], out["score"]) == ("resigned", "gammon", [0, 12])
    dropped = raw_id(state=4, s0=3, s1=7)
    out = show_json(f"{START}:{dropped}")
    assert (out["game_state"], out["score"], out["length"]) == ("dropped", [3, 7], 7)
    assert ok("show", f"{START}:{dropped}").splitlines()[-1] == \
        "The game is over: a double was passed"


def test_show_variants_keep_working_with_match_ids():
    out = show_json("fwzgQEJ/AADgcw:cAkAAAAAAAAA", "--variant", "nuclear", "--bomb", "theirs")
    assert out["bomb"] == "theirs" and out["length"] == 0
    board = ok("show", "--variant", "nuclear", "--bomb", "theirs", "fwzgQEJ/AADgcw")
    board = board.rsplit("XGID=", 1)[0]  # the XGID under it says the Match ID's Jacoby rule
    assert ok("show", "--variant", "nuclear", "--bomb", "theirs",
              "fwzgQEJ/AADgcw:cAkAAAAAAAAA").startswith(board)
    plakoto = "plakoto:-14,0,0,0,0,0,1p,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,14"
    out = show_json(plakoto, "--variant", "plakoto")
    assert out["position"] == plakoto and out["match_id"] is None
    assert out["off"] == [0, 0] and out["bar"] == [0, 0] and out["length"] == 0


def test_show_batch_answers_every_line():
    lines = [START, pair("player 1 doubled"), "nonsense", f"{START}:cAkAAAAAAAA", "",
             f"{START} {START}", f"{START}:{raw_id(s0=7)}", pair("Crawford game")]
    out = ok("show", "--batch", stdin="\n".join(lines) + "\n")
    answers = [json.loads(a) for a in out.splitlines()]
    assert len(answers) == len(lines)
    good = [0, 1, 7]
    for i, (line, answer) in enumerate(zip(lines, answers)):
        if i in good:
            assert answer == show_json(line)
        else:
            assert set(answer) == {"error"} and len(answer["error"]) < 500, (line, answer)
    assert "11 characters" in answers[3]["error"]
    assert "expected one POSID or POSID:MATCHID" in answers[5]["error"]
    assert "reached the match length" in answers[6]["error"]
    assert answers[1]["turn"] == "opponent" and answers[1]["double_offered"] is True


def test_show_batch_ignores_json_flag_and_answers_json_lines():
    out = ok("show", "--batch", "--json", stdin=f"{START}\n")
    assert json.loads(out)["position"] == START


def test_show_help():
    out = ok("show", "--help")
    assert "POSID:MATCHID" in out and "--batch" in out and "money defaults" in out
    assert "gammon show 4HPwATDgc/ABMA:cAkAAAAAAAAA" in out


def _generator():
    spec = importlib.util.spec_from_file_location("make_pairs",
                                                  DATA / "make_gnubg_show_pairs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(GNUBG is None, reason="gnubg is not installed")
def test_live_gnubg_pairs_read_as_gnubg_set_them():
    """gnubg run now: three cases of the data file (player 1 on roll, each player's
    pending double) give the same IDs and are read as the commands set them."""
    make = _generator()
    for name, commands, expect in make.CASES:
        if not any(k in name for k in ("player 1 on roll, dice", "doubled")):
            continue
        got = make.run_case(GNUBG, commands)
        out = show_json(f"{got['position_id']}:{got['match_id']}")
        want = make.MONEY | expect
        assert {k: out[k] for k in MATCH_FIELDS} == {k: want[k] for k in MATCH_FIELDS}
        assert (read_position(got["position_id"])
                == gnubg_board(got["board"], want["on_roll"])).all()


def test_met_file_reads_gnubg_xml_and_the_shipped_table(tmp_path):
    """--file takes gnubg's XML (here a 2-point table written by hand) and the name of
    the table that ships (kazaross-xg2); a name that is neither is one line."""
    xml = tmp_path / "two.xml"
    xml.write_text('<?xml version="1.0"?>\n<met><info><name>Two</name></info>'
                   '<pre-crawford-table type="explicit"><row><me>0.5</me><me>0.7</me></row>'
                   '<row><me>0.3</me><me>0.5</me></row></pre-crawford-table>'
                   '<post-crawford-table type="explicit"><row><me>0.5</me><me>0.49</me>'
                   '</row></post-crawford-table></met>\n')
    two = met_json("--file", str(xml))
    assert two["name"] == "Two" and two["table"] == [[0.5, 0.7], [0.3, 0.5]]
    assert two["post_crawford"] == [0.5, 0.49]
    kz = met_json("--file", "kazaross-xg2", "--length", "3")
    assert kz["name"] == "Kazaross XG2" and kz["table"][0][1] == 0.67736
    r = gammon("met", "--file", "no-such-table")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "No such file or directory (nor is it the name of a table that ships: " \
        "kazaross-xg2)" in r.stderr
