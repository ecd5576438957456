"""Cube decisions checked against GNU Backgammon 1.07 at 2-ply (eval.gnubg.cube_check):
reading gnubg's ``eval`` output, which decisions are clear-cut, the committed data and
its scoring, real gnubg on two positions (when installed), and the command line."""

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from gammon.eval.gnubg import cube_check as gc

SAMPLE = Path(__file__).parent / "data" / "gnubg_cube_eval.txt"  # gnubg 1.07's answer to:
SAMPLE_POSIDS = ["4HPwATDgc/ABMA", "vN0cAEC7tUGBAA", "HgAAAAQAAAAAAA", "4PPgATCYc8wJIA",
                 "//////////8AAA"]  # the last one illegal


@pytest.fixture(scope="module")
def data():
    return gc.load()


@pytest.fixture(scope="module")
def net_row(data):
    return gc.score("net:", data)


# ------------------------------------------------------------------ reading gnubg's words

def test_a_captured_eval_output_is_read():
    found, notes = gc.parse_output(SAMPLE.read_text(), SAMPLE_POSIDS)
    assert [e["posid"] for e in found] == SAMPLE_POSIDS[:4]
    start = found[0]
    assert (start["no_double"], start["double_take"], start["double_pass"]) == (0.099, -0.171, 1.0)
    assert start["action"] == "No double, take" and start["action_percent"] == 23.0
    assert start["probabilities"] == [0.525, 0.149, 0.007, 0.125, 0.005]
    assert start["plies"] == 2 and start["evaluator"] == "Contact"
    assert start["cubeless_equity"] == 0.076
    cash = found[1]  # equities listed in another order, no percentage
    assert (cash["no_double"], cash["double_take"], cash["action"]) == \
        (0.817, 1.313, "Double, pass") and cash["action_percent"] is None
    assert found[2]["evaluator"] == "Bearoff2" and found[3]["action"] == "Double, take"
    # an illegal position makes gnubg repeat the previous one: noted, not kept
    assert len(notes) == 1 and notes[0].startswith("//////////8AAA") and "4PPgATCYc8wJIA" in notes[0]


def test_unreadable_output_is_an_error():
    piece = gc.split_evaluations(SAMPLE.read_text())[0]
    with pytest.raises(gc.GnubgError, match="proper cube action"):
        gc.parse_evaluation(piece.replace("Proper cube action", "Something"))
    with pytest.raises(gc.GnubgError, match="'No double' equity"):
        gc.parse_evaluation(piece.replace("No double  ", "Nothing    "))
    with pytest.raises(gc.GnubgError, match="2 positions"):
        gc.parse_output(piece, SAMPLE_POSIDS[:2])
    found, notes = gc.parse_output(piece.replace("2-ply cubeless", "1-ply cubeless"),
                                   SAMPLE_POSIDS[:1])
    assert not found and "1-ply" in notes[0]


@pytest.mark.parametrize("words, decision", [
    ("No double, take", (False, True)), ("Double, take", (True, True)),
    ("Double, pass", (True, False)), ("Too good to double, pass", (False, False)),
    ("Too good to double, take", (False, True)), ("No double, beaver", (False, True)),
    ("Redouble, pass", (True, False)), ("No redouble, take", (False, True)),
    ("Double, take (12.3%)", (True, True)), ("Double", None), ("Maybe, take", None),
    ("Double, perhaps", None)])
def test_proper_actions_in_words(words, decision):
    assert gc.parse_action(words) == decision


def test_the_script_sets_every_setting_before_the_positions():
    script = gc.gnubg_script(["4HPwATDgc/ABMA"]).splitlines()
    for command in ("set jacoby off", "set beavers 0", "new session",
                    "set evaluation cubedecision evaluation plies 2"):
        assert command in script
    assert script[-2:] == ["set board 4HPwATDgc/ABMA", "eval"]
    assert script.index("new session") < script.index("set matchid cAkAAAAAAAAA")


# ------------------------------------------------------------- clear-cut decisions

def test_gnubg_decisions_and_margins_on_synthetic_numbers():
    eq = np.array([[0.10, -0.20, 1.0],   # no double by 0.30, take by 1.20
                   [0.80, 1.30, 1.0],    # double (pass) by 0.20, pass by 0.30
                   [0.74, 0.76, 1.0],    # double (take) by 0.02, take by 0.24
                   [1.20, 2.00, 1.0],    # too good: no double by 0.20, pass by 1.00
                   [0.95, 0.98, 1.0],    # double by 0.03, take by 0.02
                   [0.70, 0.75, 1.0]])   # double by 0.05 exactly, take by 0.25
    dec, by_doubler, by_taker = gc.gnubg_decisions(eq)
    assert dec.double.tolist() == [False, True, True, False, True, True]
    assert dec.take.tolist() == [True, False, True, False, True, True]
    assert np.allclose(by_doubler, [0.30, 0.20, 0.02, 0.20, 0.03, 0.05])
    assert np.allclose(by_taker, [1.20, 0.30, 0.24, 1.00, 0.02, 0.25])
    assert gc.clear_cut(by_doubler, 0.05).tolist() == [True, True, False, True, False, True]
    assert gc.clear_cut(by_taker, 0.05).tolist() == [True, True, True, True, False, True]


def analysis_of(action: str, response: str) -> dict:
    """A minimal analyze_cube dict."""
    return {"action": action, "response": response, "decision": f"{action}, {response}",
            "cubeful": {"no_double": 0.0, "double_take": 0.0, "double_pass": 1.0},
            "probabilities": {"win": 0.5}}


def test_agreement_counts_only_clear_cut_decisions():
    data = gc.CubeData(["4HPwATDgc/ABMA", "vN0cAEC7tUGBAA", "HgAAAAQAAAAAAA"],
                       np.array([[0.10, -0.20, 1.0], [0.80, 1.30, 1.0], [0.74, 0.76, 1.0]]),
                       np.full((3, 5), 0.1), ["No double, take", "Double, pass",
                                              "Double, take"], ["Contact"] * 3)
    analysis = [analysis_of("double", "take"),      # doubler wrong by 0.30
                analysis_of("too_good", "pass"),    # too good plays on: wrong by 0.20
                analysis_of("no_double", "beaver")]  # not judged; a beaver is a take
    row = gc.score_analysis("x", analysis, data, margin=0.05)
    assert row["doubler"] == {"decisions": 2, "agree": 0, "fraction": 0.0}
    assert row["taker"] == {"decisions": 3, "agree": 3, "fraction": 1.0}
    assert row["combined"] == {"decisions": 5, "agree": 3, "fraction": 0.6}
    assert [(w["posid"], w["decision"], w["gnubg"], w["ours"]) for w in row["worst"]] == \
        [("4HPwATDgc/ABMA", "doubler", "no double", "double"),
         ("vN0cAEC7tUGBAA", "doubler", "double", "no double")]
    assert row["by_gnubg_action"]["Double, take"]["doubler"]["fraction"] is None
    none_judged = gc.score_analysis("x", analysis, data, margin=2.0)
    assert none_judged["combined"] == {"decisions": 0, "agree": 0, "fraction": None}


# ------------------------------------------------------------------- the committed data

def test_the_committed_data(data):
    assert gc.DATA_PATH.stat().st_size < 300_000
    assert 400 <= len(data) <= 1000 and data.meta["plies"] == 2
    for command in ("set jacoby off", "set beavers 0", "set matchid cAkAAAAAAAAA"):
        assert command in data.meta["gnubg_settings"]
    assert data.meta["gnubg"].startswith("GNU Backgammon 1.07")
    kinds = {a.split(",")[0] for a in data.actions}
    assert {"No double", "Double"} <= kinds and {"take", "pass"} <= \
        {a.split(", ")[1] for a in data.actions}


def test_gnubg_words_and_numbers_agree_in_the_data(data):
    dec, by_doubler, by_taker = gc.gnubg_decisions(data.equities)
    words = [gc.parse_action(a) for a in data.actions]
    for i, (double, take) in enumerate(words):  # ties at gnubg's 3 decimals may go either way
        assert double == dec.double[i] or by_doubler[i] < 0.001, data.posids[i]
        assert take == dec.take[i] or by_taker[i] < 0.001, data.posids[i]


def test_the_shipped_net_scores_on_the_committed_data(net_row, data):
    assert net_row["positions"] == len(data) >= 300
    for kind in ("doubler", "taker", "combined"):
        assert 0 <= net_row[kind]["fraction"] <= 1
    assert net_row["doubler"]["decisions"] >= 150 and net_row["taker"]["decisions"] >= 300
    assert net_row["combined"]["decisions"] == \
        net_row["doubler"]["decisions"] + net_row["taker"]["decisions"]
    margins = [w["margin"] for w in net_row["worst"]]
    assert margins == sorted(margins, reverse=True) and all(m >= 0.05 for m in margins)


def test_the_check_decides_as_gammon_cube(data):
    from gammon.commands.analyze import cube_model
    from gammon.commands.cube import answer
    args = SimpleNamespace(bot="net:", seed=None, variant="standard", efficiency=None,
                           jacoby=False, beavers=False, no_beavers=False)
    _, evaluate, efficiency = cube_model(args)
    posids = data.posids[:8]
    ours = gc.bot_analysis("net:", posids)
    for posid, mine in zip(posids, ours):
        assert answer(evaluate, efficiency, args, posid) == \
            {"action": mine["action"], "response": mine["response"]}


def test_the_reference_row_uses_gnubgs_probabilities(data):
    part = gc.CubeData(data.posids[:50], data.equities[:50], data.probabilities[:50],
                       data.actions[:50], data.evaluators[:50], data.meta)
    analysis = gc.reference_analysis(part)
    wins = [a["probabilities"]["win"] for a in analysis]
    assert np.allclose(wins, part.probabilities[:, 0])


# ------------------------------------------------------ the driver (eval.gnubg.driver)

def fake_gnubg(tmp_path: Path, body: str) -> str:
    """A shell script standing in for gnubg."""
    path = tmp_path / "fake-gnubg"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


def test_the_driver_runs_a_script_in_a_clean_home(tmp_path):
    from gammon.eval.gnubg import driver
    program = fake_gnubg(tmp_path, 'echo "$@|$HOME|$LANG"; cat')
    out = driver.run_gnubg(["set sound enable off", "eval"], program)
    said, script = out.split("\n", 1)
    args, home, lang = said.split("|")
    assert args == "-t -q" and lang == "C" and script == "set sound enable off\neval\n"
    assert "gnubg-home-" in home and not Path(home).exists()  # a fresh folder, removed
    mine = tmp_path / "home"
    mine.mkdir()
    assert driver.run_gnubg("", program, home=mine).startswith(f"-t -q|{mine}|")


def test_the_driver_says_in_one_line_why_gnubg_did_not_run(tmp_path, monkeypatch):
    from gammon.eval.gnubg import driver
    with pytest.raises(driver.GnubgError, match="running .*no-such-gnubg") as missing:
        driver.run_gnubg("", str(tmp_path / "no-such-gnubg"))
    slow = fake_gnubg(tmp_path, "exec sleep 30")
    with pytest.raises(driver.GnubgError, match="timed out after 0.5 seconds") as late:
        driver.run_gnubg("", slow, timeout=0.5)
    monkeypatch.setattr(driver.shutil, "which", lambda name: None)
    assert driver.find_gnubg() is None
    with pytest.raises(driver.GnubgError, match="not installed") as absent:
        driver.run_gnubg("")
    assert all("\n" not in str(e.value) for e in (missing, late, absent))


def test_the_driver_asks_about_long_lists_in_chunks(tmp_path):
    from gammon.eval.gnubg import driver
    program = fake_gnubg(tmp_path, "cat")  # answers with the script itself
    said = []
    found, notes = driver.evaluate_in_chunks(
        list(range(5)), lambda part: "".join(f"{x}\n" for x in part),
        lambda out, part: ([out.split()], [f"{len(part)} asked"]), program, chunk=2,
        log=said.append, noun="things")
    assert found == [["0", "1"], ["2", "3"], ["4"]] and notes == ["2 asked", "2 asked", "1 asked"]
    assert said == ["gnubg: 2/5 things", "gnubg: 4/5 things", "gnubg: 5/5 things"]


# ------------------------------------------------------------------------- real gnubg

@pytest.mark.skipif(gc.find_gnubg() is None, reason="GNU Backgammon (gnubg) is not installed")
def test_real_gnubg_on_two_positions(data):
    posids = ["4HPwATDgc/ABMA", data.posids[0]]
    found, notes = gc.evaluate_with_gnubg(posids)
    assert not notes and [e["posid"] for e in found] == posids
    assert all(e["plies"] == 2 for e in found)
    start = found[0]  # the opening position: a small edge for the player on roll
    assert 0.5 < start["probabilities"][0] < 0.56 and start["action"] == "No double, take"
    stored = found[1]
    assert [stored["no_double"], stored["double_take"], stored["double_pass"]] == \
        data.equities[0].tolist() and stored["action"] == data.actions[0]


# ------------------------------------------------------------------------ command line

def run_main(capsys, *argv):
    code = gc.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv, words", [
    (["--margin", "x"], "--margin takes a number"),
    (["--margin", "-0.1"], "--margin is an equity"),
    (["--margin", "nan"], "--margin is an equity"),
    (["--positions", "10"], "--positions goes with --generate"),
    (["--generate", "--positions", "0"], "--positions is from 1"),
    (["--seed", "-1"], "--seed is from 0"),
    (["--generate", "--bot", "net:"], "separate run"),
    (["--bot", "nonsense"], "bot 'nonsense'"),
    (["--bot", "pubeval"], "estimates no probabilities"),
    (["--frobnicate"], "unrecognized arguments"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, words, monkeypatch):
    monkeypatch.setattr(gc, "find_gnubg", lambda: "/usr/games/gnubg")  # --generate's check
    code, out, err = run_main(capsys, *argv)
    assert code == 2 and out == "" and words in err and err.count("\n") == 1


def test_a_missing_data_file_says_how_to_make_it(capsys, tmp_path):
    code, out, err = run_main(capsys, "--data", str(tmp_path / "none.jsonl"))
    assert code == 2 and out == "" and "--generate" in err and err.count("\n") == 1


@pytest.mark.parametrize("text, words", [
    ("", "no meta line"), ("not json\n", "not readable"),
    ('{"meta": {"format": 99}}\n', "another format"),
    ('{"meta": {"format": 1}}\n{"posid": "4HPwATDgc/ABMA"}\n', "damaged"),
    ('{"meta": {"format": 1}}\n', "no positions"),
])
def test_damaged_data_is_refused(capsys, tmp_path, text, words):
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    code, out, err = run_main(capsys, "--data", str(path))
    assert code == 2 and out == "" and words in err and err.count("\n") == 1


def test_damaged_values_are_refused(data, tmp_path):
    path = tmp_path / "data.jsonl"
    for change, words in ((lambda d: d.actions.__setitem__(0, "Maybe, take"), "unknown cube"),
                          (lambda d: d.posids.__setitem__(1, d.posids[0]), "twice"),
                          (lambda d: d.posids.__setitem__(0, "AAAA"), "14 characters"),
                          (lambda d: d.equities.__setitem__((0, 2), 0.5), "double/pass")):
        copy = gc.CubeData(list(data.posids), data.equities.copy(), data.probabilities.copy(),
                           list(data.actions), list(data.evaluators), dict(data.meta))
        change(copy)
        gc.save(copy, path)
        with pytest.raises(gc.CubeDataError, match=words):
            gc.load(path)


def test_saving_and_loading_keeps_the_data(data, tmp_path):
    path = tmp_path / "copy.jsonl"
    gc.save(data, path)
    back = gc.load(path)
    assert back.posids == data.posids and back.actions == data.actions
    assert np.array_equal(back.equities, data.equities) and back.meta == data.meta


def test_json_and_table(capsys, net_row, monkeypatch):
    monkeypatch.setattr(gc, "score", lambda name, *a, **k: dict(net_row, bot=name))
    code, out, err = run_main(capsys, "--json", "--margin", "0.1")
    assert code == 0
    report = json.loads(out)
    assert [r["bot"] for r in report["bots"]] == ["net:", gc.REFERENCE]
    assert report["bots"][1]["margin"] == 0.1 and report["plies"] == 2
    code, out, err = run_main(capsys)
    assert code == 0 and err == "" and "doubler" in out and "taker" in out and gc.REFERENCE in out


def test_the_module_runs_and_fails_without_a_traceback(tmp_path):
    run = subprocess.run([sys.executable, "-m", "gammon.eval.gnubg.cube_check", "--data",
                          str(tmp_path / "x.jsonl")], capture_output=True, text=True,
                         timeout=60, check=False)
    assert run.returncode == 2 and "Traceback" not in run.stderr and "--generate" in run.stderr
