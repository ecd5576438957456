"""Subprocess tests of `gammon analyze`, `gammon cube` and `gammon match --cube`."""

from __future__ import annotations

import json
import select
import subprocess
import sys

import pytest

from inprocess import gammon as run_in_process

GAMMON = [sys.executable, "-m", "gammon.cli"]
START = "4HPwATDgc/ABMA"


def gammon(*args, stdin=None):
    """``gammon ARGS`` in this process (a subprocess each cost seconds of start-up)."""
    return run_in_process(*args, stdin=stdin)


@pytest.fixture(scope="module")
def net(tmp_path_factory) -> str:
    """A small untrained network as a bot name: any checkpoint serves the commands."""
    import torch
    from gammon.model.checkpoint import model_payload, save
    from gammon.model.net import ValueNet
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("cube") / "small.pt"
    save(path, model_payload(ValueNet(198, (8,)), "classic", "standard"))
    return f"net:{path}"


def test_analyze_for_people(net):
    out = gammon("analyze", START, "--bot", net, "--dice", "3", "1")
    assert out.returncode == 0, out.stderr
    for words in ("cubeless equity", "no double", "double, take", "double, pass",
                  "proper cube action", "take point", "plays of 3-1", "8/5 6/5"):
        assert words in out.stdout, words
    assert any(d in out.stdout for d in ("No double", "Double, ", "Too good"))


def test_analyze_json_fields_and_ranked_plays(net):
    out = gammon("analyze", START, "--bot", net, "--dice", "3", "1", "--json")
    assert out.returncode == 0, out.stderr
    a = json.loads(out.stdout)
    p = a["probabilities"]
    assert set(p) == {"win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"}
    assert 0 <= p["win_backgammon"] <= p["win_gammon"] <= p["win"] <= 1
    cubeless = 2 * p["win"] - 1 + p["win_gammon"] - p["lose_gammon"] + p["win_backgammon"] \
        - p["lose_backgammon"]
    assert a["cubeless_equity"] == pytest.approx(cubeless, abs=1e-9)
    c = a["cubeful"]
    assert set(c) == {"no_double", "double_take", "double_pass"} and c["double_pass"] == 1
    assert a["action"] in ("no_double", "double", "too_good")
    assert a["response"] in ("take", "pass", "beaver")
    words = {"no_double": "No double", "double": "Double", "too_good": "Too good"}
    assert a["decision"] == f"{words[a['action']]}, {a['response']}"
    assert a["take_point"] == pytest.approx(0.2137, abs=0.15)  # gammons move it a little
    assert (a["response"] == "pass") == (a["taker_chances"] < a["take_point"])
    plays = a["plays"]
    moves = gammon("moves", START, "3", "1").stdout.splitlines()
    assert len(plays) == len(moves) == 16
    assert [r["rank"] for r in plays] == list(range(1, 17))
    assert plays[0]["loss"] == 0 and all(r["loss"] >= 0 for r in plays)
    assert [r["equity"] for r in plays] == sorted((r["equity"] for r in plays), reverse=True)
    assert {r["result"] for r in plays} == {line.split("\t")[1] for line in moves}


def test_cube_batch_answers_one_json_line_per_line(net):
    lines = f"{START}\nnot-a-position\n\n{START}\n"
    out = gammon("cube", "--batch", "--bot", net, stdin=lines)
    assert out.returncode == 0, out.stderr
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(answers) == 4
    assert set(answers[0]) == {"action", "response"} and answers[0] == answers[3]
    assert answers[0]["action"] in ("no_double", "double", "too_good")
    assert answers[0]["response"] in ("take", "pass", "beaver")
    assert set(answers[1]) == {"error"} and "Position ID" in answers[1]["error"]
    assert set(answers[2]) == {"error"}


def test_cube_batch_answers_each_line_before_the_next_arrives(net):
    proc = subprocess.Popen(GAMMON + ["cube", "--batch", "--bot", net, "--no-beavers"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        for _ in range(2):
            proc.stdin.write(START + "\n")
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], 60)
            assert ready, "no answer within 60 s: the line was not flushed"
            answer = json.loads(proc.stdout.readline())
            assert answer["response"] in ("take", "pass")  # no beavers
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()


@pytest.mark.parametrize("args, message", [
    (["cube", START, "--bot", "pubeval"], "estimates no probabilities"),
    (["analyze", START, "--bot", "net:/nonexistent.pt"], "no such checkpoint"),
    (["cube", START, "--efficiency", "1.5", "--bot", "pubeval"], "between 0 and 1"),
    (["cube"], "give a POSID"),
    (["match", "pubeval", "random", "--games", "10", "--jacoby"], "needs --cube"),
    (["match", "pubeval", "random", "--games", "10", "--cube", "--max-cube", "48"],
     "power of two"),
])
def test_usage_errors_are_one_line(args, message):
    out = gammon(*args)
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and message in out.stderr


def test_match_with_the_cube_reports_points_cube_values_and_actions():
    args = ["match", "racer", "nodouble:pubeval", "--games", "60", "--seed", "3", "--cube",
            "--beavers", "--auto-doubles", "1"]
    out = gammon(*args, "--json")
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    c = d["cube"]
    assert c["beavers_allowed"] and c["auto_doubles"] == 1 and not c["jacoby"]
    assert sum(c["cube_values"].values()) == 60
    assert c["offers_b"] == 0 and c["passes_b"] == 0  # the baseline never doubles or passes
    assert c["takes_b"] + c["beavers_b"] == c["offers_a"]
    table = gammon(*args).stdout
    for words in ("cubeful money", "cube values reached", "doubles offered", "doubles taken",
                  "doubles beavered", "doubles passed", "points per game"):
        assert words in table, words


def test_jacoby_and_beavers_are_off_by_default(net):
    # changed on purpose: analyze and cube allowed beavers by default; now Jacoby and
    # beavers are off unless asked for, in analyze, cube, match --cube and play --cube
    a = json.loads(gammon("analyze", START, "--bot", net, "--json").stdout)
    assert a["jacoby"] is False and a["beavers"] is False
    a = json.loads(gammon("analyze", START, "--bot", net, "--json", "--beavers",
                          "--jacoby").stdout)
    assert a["jacoby"] is True and a["beavers"] is True
    out = gammon("cube", START, "--bot", net, "--beavers", "--no-beavers")
    assert out.returncode == 2 and "contradict" in out.stderr
    for command in ("analyze", "cube", "match", "play", "hint"):
        assert "(default: off)" in gammon(command, "--help").stdout, command


def test_the_shipped_net_answers_no_double_take_at_the_start():
    assert json.loads(gammon("cube", START).stdout) == {"action": "no_double",
                                                        "response": "take"}
    assert json.loads(gammon("cube", START, "--beavers").stdout)["response"] == "beaver"


@pytest.mark.parametrize("dice", [["--dice", "3", "1"], ["--dice", "31"], ["--dice", "3-1"]])
def test_analyze_dice_spellings_and_position_after_them(net, dice):
    for args in ([START, *dice], [*dice, START]):
        a = json.loads(gammon("analyze", *args, "--bot", net, "--json").stdout)
        assert a["dice"] == [3, 1] and len(a["plays"]) == 16 and a["posid"] == START


def test_analyze_plays_carry_probabilities_and_cubeful_equities(net):
    a = json.loads(gammon("analyze", START, "--dice", "31", "--bot", net, "--json").stdout)
    assert a["play_equity"] == "cubeless"
    for r in a["plays"]:
        assert set(r["probabilities"]) == {"win", "win_gammon", "win_backgammon",
                                           "lose_gammon", "lose_backgammon"}
        assert r["equity"] == pytest.approx(r["cubeless_equity"], abs=1e-5)
    c = json.loads(gammon("analyze", START, "--dice", "31", "--cubeful", "--bot", net,
                          "--json").stdout)
    assert c["play_equity"] == "cubeful"
    assert [r["equity"] for r in c["plays"]] == [r["cubeful_equity"] for r in c["plays"]]
    assert c["plays"][0]["loss"] == 0 and all(r["loss"] >= 0 for r in c["plays"])
    text = gammon("analyze", START, "--dice", "31", "--cubeful", "--bot", net).stdout
    assert "cubeful equity" in text and "w(g)" in text
    out = gammon("analyze", START, "--cubeful", "--bot", net)
    assert out.returncode == 2 and "--dice" in out.stderr


def test_a_race_with_every_checker_home_is_valued_by_the_bear_off_database(net):
    """The untrained net is not asked: the cube and the cubeless numbers of a bear-off race
    are the database's (a checker on our 6-point against one on the opponent's 1-point:
    27 of 36 rolls bear it off, else the opponent does)."""
    import numpy as np
    from gammon.engine.formats.posid import encode
    board = np.zeros(26, dtype=np.int8)
    board[6], board[24] = 1, -1
    out = gammon("analyze", encode(board), "--bot", net, "--json")
    assert out.returncode == 0, out.stderr
    p = json.loads(out.stdout)["probabilities"]
    assert p["win"] == pytest.approx(27 / 36, abs=1e-5)
    assert p["win_gammon"] == p["lose_gammon"] == 0
