"""Match cube decisions checked against GNU Backgammon 1.07 at 2-ply
(eval.gnubg.match_cube): reading gnubg's match ``eval`` output (EMG and MWC), the scores
and their Match IDs, the committed data, the check's rows (net:, gnubg-nn when installed,
the reference rows), real gnubg on a few entries (when installed), the command line."""

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from gammon.engine.formats.matchid import CENTRED, decode_match_id
from gammon.eval.gnubg import match_cube as gm

SAMPLE = Path(__file__).parent / "data" / "gnubg_match_cube_eval.txt"  # gnubg 1.07's answer
SAMPLE_ENTRIES = [  # to gm.gnubg_script(SAMPLE_ENTRIES)
    ("4HPKAyDgc/ABUA", "cAngAEAAEAAE"),  # 7pt 5a/3a centred: No double, take (23.2%)
    ("vN0cAEC7tUGBAA", "cAngAGAAIAAE"),  # 7pt 3a/1a post-Crawford: Double, take
    ("vN0cAEC7tUGBAA", "UQmgAEAACAAE"),  # 5pt 4a/1a post, cube 2 the mover's: Redouble, pass
    ("4HPKAyDgc/ABUA", "8AngAGAAIAAE"),  # 7pt 3a/1a, the Crawford game: no cube analysis
    ("vN0cAEC7tUGBAA", "UQmgABAAGAAE"),  # 5pt 2a/4a cube 2 the mover's: dead cube, none
    ("bDfgAEzzdjMAAA", "cAlgAAAAAAAE"),  # 11pt 11a/11a: Too good to double, pass (30.2%)
    ("s20lAAngOfgAZA", "cAkgAYAAOAAE"),  # 9pt 2a/1a post: Optional double, take
    ("//////////8AAA", "cAngAEAAEAAE"),  # illegal: gnubg keeps the previous position
    ("mJ8NCwCZzeADEA", "UQlgABAAAAAE"),  # 11pt 3a/2a cube 2 the mover's: Optional redouble
]
HAVE_GNUBG_NN = True
try:
    import gnubg_nn  # noqa: F401
except ImportError:
    HAVE_GNUBG_NN = False


@pytest.fixture(scope="module")
def data():
    return gm.load()


@pytest.fixture(scope="module")
def rows(data):
    return {r["bot"]: r for r in gm.rows_for(["net:"], data)}


# ------------------------------------------------------------------ reading gnubg's words

def test_a_captured_match_eval_output_is_read():
    found, notes = gm.parse_output(SAMPLE.read_text(), SAMPLE_ENTRIES)
    assert [(e["posid"], e["matchid"]) for e in found] == \
        [SAMPLE_ENTRIES[i] for i in (0, 1, 2, 5, 6, 8)]
    first = found[0]
    assert first["emg"] == [-0.194, -0.554, 1.0]
    assert first["mwc"] == pytest.approx([0.3258, 0.2948, 0.4285])
    assert first["probabilities"] == [0.429, 0.105, 0.004, 0.152, 0.006]
    assert first["action"] == "No double, take" and first["action_percent"] == 23.2
    assert first["cubeless"] == -0.236 and first["cubeless_mwc"] == pytest.approx(0.3222)
    assert first["money_equity"] == -0.192 and first["plies"] == 2
    assert first["evaluator"] == "Contact"
    post, redouble, too_good, optional, optional_re = found[1:]
    assert post["action"] == "Double, take" and post["emg"] == [0.776, 0.842, 1.0]
    assert redouble["action"] == "Redouble, pass" and redouble["emg"] == [0.993, 2.407, 1.0]
    assert too_good["action"] == "Too good to double, pass" and too_good["emg"][0] == 1.495
    assert optional["action"] == "Optional double, take"
    assert optional["emg"][0] == optional["emg"][1] == -0.456
    assert optional_re["action"] == "Optional redouble, take"
    # the Crawford game and a dead cube have no cube analysis; an illegal position
    # makes gnubg evaluate the previous one again: all three noted, not kept
    assert len(notes) == 3
    assert "no cube analysis" in notes[0] and "8AngAGAAIAAE" in notes[0]
    assert "no cube analysis" in notes[1] and "UQmgABAAGAAE" in notes[1]
    assert notes[2].startswith("//////////8AAA") and "another position" in notes[2]


def test_both_units_are_read_from_one_piece_each():
    pieces = gm.gc.split_evaluations(SAMPLE.read_text())
    emg, mwc = gm.parse_evaluation(pieces[0]), gm.parse_evaluation(pieces[1])
    assert (emg["unit"], mwc["unit"]) == ("emg", "mwc")
    assert mwc["no_double"] == pytest.approx(0.3258) and mwc["double_pass"] == pytest.approx(0.4285)
    assert emg["matchid"] == mwc["matchid"] == "cAngAEAAEAAE"


def test_unreadable_output_is_an_error():
    piece = gm.gc.split_evaluations(SAMPLE.read_text())[0]
    with pytest.raises(gm.GnubgError, match="proper cube action"):
        gm.parse_evaluation(piece.replace("Proper cube action", "Something"))
    with pytest.raises(gm.GnubgError, match="'No double' equity"):
        gm.parse_evaluation(piece.replace("No double  ", "Nothing    "))
    with pytest.raises(gm.GnubgError, match="Match ID"):
        gm.parse_evaluation(piece.replace("Match ID:", "Match:"))
    with pytest.raises(gm.GnubgError, match="evaluations"):
        gm.parse_output(piece, SAMPLE_ENTRIES[:1])


def test_the_script_sets_the_match_before_each_position():
    script = gm.gnubg_script([("4HPKAyDgc/ABUA", "cAngAEAAEAAE")]).splitlines()
    assert "new match 7" in script and "new session" not in script
    assert "set evaluation cubedecision evaluation plies 2" in script
    assert script[-6:] == ["set matchid cAngAEAAEAAE", "set board 4HPKAyDgc/ABUA", "eval",
                           "set output mwc on", "eval", "set output mwc off"]


# -------------------------------------------------------------------------------- scores

def test_scores_and_their_match_ids():
    s = gm.Score(7, 5, 3)
    state = decode_match_id(s.match_id())
    assert (state.length, state.score, state.on_roll, state.turn) == (7, (4, 2), 1, 1)
    assert (state.cube_value, state.cube_owner, state.crawford) == (1, CENTRED, False)
    assert s.match_id() == "cAngAEAAEAAE" and s.kind == "centred"
    owned = decode_match_id(gm.Score(9, 4, 2, 2, "mover").match_id())
    assert (owned.cube_value, owned.cube_owner, owned.score) == (2, 1, (7, 5))
    assert gm.Score(5, 4, 1).kind == "post" and gm.Score(5, 4, 1).label() == "5pt 4a/1a post"


def test_the_plan_of_scores_is_seeded_and_shared_out():
    plan = gm.plan_scores(600, 1)
    assert plan == gm.plan_scores(600, 1) and plan != gm.plan_scores(600, 2)
    kinds = Counter(s.kind for s in plan)
    assert kinds == {"centred": 300, "post": 150, "owned": 150}
    assert {s.length for s in plan} == set(gm.LENGTHS)
    for s in plan:  # the player on roll may double: not Crawford, the cube not dead
        assert s.cube < s.away <= s.length and 1 <= s.opp_away <= s.length


# ----------------------------------------------------------------------- the data file

def test_the_committed_data(data):
    assert len(data) >= 200 and len(data) == data.meta["kept"] == 600
    assert data.meta["gnubg"].startswith("GNU Backgammon 1.07")
    assert data.meta["plies"] == 2 and data.meta["seed"] == 1
    kinds = Counter(s.kind for s in data.scores)
    assert kinds == {"centred": 300, "post": 150, "owned": 150} == data.meta["kinds"]
    assert {s.length for s in data.scores} == {3, 5, 7, 9, 11}
    pairs = Counter((s.away, s.opp_away, s.kind) for s in data.scores)
    assert pairs[(2, 2, "centred")] >= 20 and pairs[(2, 1, "post")] >= 20
    assert all(s.cube == 2 for s in data.scores if s.kind == "owned")
    assert data.emg.shape == data.mwc.shape == (600, 3) and data.probabilities.shape == (600, 5)
    assert (data.emg[:, 2] == 1).all()
    # the positions are the money check's
    money = gm.gc.load()
    assert set(data.posids) <= set(money.posids)


def test_each_line_names_its_match(data):
    lines = [json.loads(x) for x in gm.DATA_PATH.read_text().splitlines()[1:]]
    for line, score in zip(lines, data.scores):
        assert line["matchid"] == score.match_id() and line["kind"] == score.kind


def test_gnubg_words_units_and_numbers_agree_in_the_data(data):
    for action, (nd, dt, dp), (mnd, mdt, mdp) in zip(data.actions, data.emg, data.mwc):
        _, take = gm.parse_action(action)
        assert take == (dt <= dp) or abs(dt - dp) < 0.002
        if action.split(",")[0] in ("Double", "Redouble"):
            assert min(dt, dp) >= nd - 0.002
        # EMG and MWC order the three equities alike
        assert np.sign(round(nd - dt, 3)) in (np.sign(round(mnd - mdt, 4)), 0) or \
            abs(mnd - mdt) < 0.001


# ------------------------------------------------------------------------------ scoring

def test_the_shipped_net_agrees_at_the_score(rows):
    net = rows["net:"]
    assert net["doubler"]["decisions"] > 300 and net["taker"]["decisions"] > 500
    assert net["combined"]["fraction"] >= 0.90
    # the score matters: money decisions on the same positions agree much less
    assert rows["money(net:)"]["combined"]["fraction"] < net["combined"]["fraction"] - 0.05


def test_the_reference_row_isolates_the_cube_model(rows, data):
    ref = rows[gm.REFERENCE]
    assert ref["combined"]["fraction"] >= 0.95
    assert ref["by_score"]["post"]["combined"]["fraction"] >= 0.95
    ours = gm.match_decisions(data.probabilities, data)
    assert ours.unit == "EMG" and np.allclose(ours.equities[:, 2], 1.0)
    # our MET and model put the equities close to gnubg's
    assert np.abs(ours.equities[:, 0] - data.emg[:, 0]).mean() < 0.1


@pytest.mark.skipif(not HAVE_GNUBG_NN, reason="gnubg-nn is not installed")
def test_the_gnubg_bot_runs_on_the_data(data):
    row = gm.rows_for(["gnubg"], data)[0]
    assert row["bot"] == "gnubg" and row["combined"]["fraction"] >= 0.9


def test_agreement_counts_only_clear_cut_decisions(data):
    sub = gm.MatchCubeData(data.posids[:3], data.scores[:3],
                           np.array([[0.10, -0.20, 1.0], [0.80, 1.30, 1.0], [0.74, 0.76, 1.0]]),
                           data.mwc[:3], data.probabilities[:3], data.actions[:3],
                           data.evaluators[:3], data.meta)
    ours = gm.Decisions(np.array([True, False, False]), np.array([True, True, True]),
                        np.zeros((3, 3)), "EMG")
    row = gm.score_decisions("x", ours, sub, margin=0.05)
    assert row["doubler"] == {"decisions": 2, "agree": 0, "fraction": 0.0}
    assert row["taker"] == {"decisions": 3, "agree": 2, "fraction": 2 / 3}
    assert [(w["decision"], w["margin"]) for w in row["worst"]] == \
        [("doubler", 0.3), ("taker", 0.3), ("doubler", 0.2)]  # ties: doubler first


def test_money_rows_use_model_cube(data):
    from gammon.model.cube import decide
    d = gm.money_decisions(data.probabilities, data)
    owner = np.array([1 if s.owner == "mover" else 0 for s in data.scores])
    want = decide(data.probabilities, owner, beavers=False)
    assert np.array_equal(d.double, want.action == 1)


# ----------------------------------------------------------------------------- real gnubg

@pytest.mark.skipif(gm.find_gnubg() is None, reason="GNU Backgammon (gnubg) is not installed")
def test_real_gnubg_on_a_few_entries(data):
    picks = [0, 1, 2, next(i for i, s in enumerate(data.scores) if s.kind == "post")]
    entries = [(data.posids[i], data.scores[i].match_id()) for i in picks]
    found, notes = gm.evaluate_with_gnubg(entries)
    assert not notes and len(found) == len(picks)
    for i, e in zip(picks, found):
        assert e["emg"] == pytest.approx(data.emg[i].tolist(), abs=1e-9)
        assert e["mwc"] == pytest.approx(data.mwc[i].tolist(), abs=1e-4)
        # gnubg prints probabilities to 3 decimals; its SIMD path differs between CPUs, so a
        # value near a half can round either way (0.022 or 0.023 seen on two machines)
        assert e["probabilities"] == pytest.approx(data.probabilities[i].tolist(), abs=1.1e-3)
        assert e["action"] == data.actions[i]
    # the Crawford game: gnubg offers no cube decision
    crawford = ("4HPKAyDgc/ABUA", "8AngAGAAIAAE")
    found, notes = gm.evaluate_with_gnubg([crawford])
    assert not found and "no cube analysis" in notes[0]


# ---------------------------------------------------------------------------- command line

@pytest.mark.parametrize("argv, words", [
    (["--margin", "x"], "--margin"), (["--seed", "-1"], "--seed"),
    (["--generate", "--bot", "net:"], "separate run"), (["--bot", "nosuchbot"], "nosuchbot")])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, words):
    assert gm.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("gnubg_match_cube: error:") and words in err and err.count("\n") == 1


def test_a_missing_data_file_says_how_to_make_it(capsys, tmp_path):
    assert gm.main(["--data", str(tmp_path / "none.jsonl")]) == 2
    assert "--generate" in capsys.readouterr().err


@pytest.mark.parametrize("text, words", [
    ("", "no meta"), ("not json\n", "not readable"), ('{"meta": {"format": 9}}\n', "format"),
    ('{"meta": {"format": 1}}\n{"posid": "x"}\n', "damaged")])
def test_damaged_data_is_refused(tmp_path, text, words):
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    with pytest.raises(gm.CubeDataError, match=words):
        gm.load(path)


def test_damaged_values_are_refused(tmp_path):
    lines = gm.DATA_PATH.read_text().splitlines()[:3]
    row = json.loads(lines[1])
    row["emg"][2] = 0.5
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join([lines[0], json.dumps(row), lines[2]]) + "\n")
    with pytest.raises(gm.CubeDataError, match="double/pass"):
        gm.load(path)


def test_json_and_table(capsys, data):
    assert gm.main(["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["bot"] for r in out["rows"]] == ["net:", "money(net:)", gm.REFERENCE,
                                               "money(gnubg-2ply)"]
    assert out["positions"] == 600 and out["rows"][0]["combined"]["fraction"] >= 0.9
    assert gm.main([]) == 0
    text = capsys.readouterr().out
    assert "net:" in text and "2a/1a post" in text and gm.REFERENCE in text


def test_the_module_runs_and_fails_without_a_traceback(tmp_path):
    run = subprocess.run([sys.executable, "-m", "gammon.eval.gnubg.match_cube", "--data",
                          str(tmp_path / "none.jsonl")], capture_output=True, text=True, check=False,
                         cwd=Path(__file__).resolve().parents[1], timeout=120)
    assert run.returncode == 2 and "Traceback" not in run.stderr
