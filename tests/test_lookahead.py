"""The look-ahead of net players from the command line, in GNU Backgammon's plies: the bot
name net:PATH@N and --plies N, the ply column of the rankings, the errors (run in process:
a subprocess each would cost seconds)."""

from __future__ import annotations

import json

import pytest

from inprocess import gammon
from gammon.model import checkpoint as ckpt
from gammon.model.net import ValueNet

START = "4HPwATDgc/ABMA"



@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A small untrained checkpoint: net:PATH."""
    path = tmp_path_factory.mktemp("nets") / "tiny.pt"
    ckpt.save(path, ckpt.model_payload(ValueNet(198, (8,)), "classic", "standard"))
    return str(path)


def hint_json(*args):
    r = gammon("hint", START, "3", "1", "--json", *args)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_plies_flag_and_bot_suffix_rank_alike(tiny):
    zero = hint_json("--bot", f"net:{tiny}")
    flag = hint_json("--bot", f"net:{tiny}", "--plies", "1")
    suffix = hint_json("--bot", f"net:{tiny}@1")
    assert len(zero["plays"]) == len(flag["plays"]) == 16
    assert flag["plays"] == suffix["plays"] and flag["bot"] == suffix["bot"] == f"net:{tiny}@1"
    assert [p["score"] for p in zero["plays"]] != [p["score"] for p in flag["plays"]]
    assert {p["plies"] for p in zero["plays"]} == {0}


def test_looked_ahead_plays_come_first_and_each_says_its_plies(tiny):
    plays = hint_json("--bot", f"net:{tiny}", "--plies", "1")["plays"]
    depths = [p["plies"] for p in plays]
    assert depths[0] == 1 and depths == sorted(depths, reverse=True)
    assert all("cubeless_equity" in p for p in plays)  # a value for every play listed
    looked = [p["score"] for p in plays if p["plies"] == 1]
    assert looked == sorted(looked, reverse=True)


def test_the_shipped_net_at_one_ply_marks_filtered_plays(tiny):
    r = gammon("hint", START, "3", "1", "--bot", "net:@1")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "ply" in lines[0].split()
    assert "1-ply" in lines[1] and "8/5 6/5" in lines[1]  # the clear best, looked ahead
    assert all(("1-ply" in line) != ("0-ply" in line) for line in lines[1:])
    assert any("0-ply" in line for line in lines[2:])
    plain = gammon("hint", START, "3", "1", "--bot", "net:").stdout.splitlines()
    assert "ply" not in plain[0].split()  # no column without look-ahead


def test_analyze_ranks_plays_at_one_ply_with_their_loss(tiny):
    r = gammon("analyze", START, "--dice", "3", "1", "--bot", f"net:{tiny}", "--plies", "1",
               "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["bot"] == f"net:{tiny}@1"
    plays = out["plays"]
    assert plays[0]["plies"] == 1 and plays[0]["loss"] == 0
    assert all(p["loss"] >= 0 for p in plays if p["plies"] == 1)
    text = gammon("analyze", START, "--dice", "31", "--bot", f"net:{tiny}@1").stdout
    assert "1-ply" in text


def test_a_match_of_a_net_at_one_ply(tiny):
    r = gammon("match", f"net:{tiny}@1", "random", "--games", "2", "--seed", "1", "--json",
               "--no-progress")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["games"] == 2


@pytest.mark.parametrize("command", ["hint", "analyze", "play", "serve-external",
                                     "serve-http", "match"])
def test_help_names_plies_as_gnu_backgammon(command):
    r = gammon(command, "--help")
    text = " ".join(r.stdout.split())
    assert r.returncode == 0 and "GNU Backgammon" in text
    assert "0-ply = the network alone" in text
    assert "1-ply = looks at the opponent's 21 rolls" in text
    assert "2-ply = also at our 21 rolls" in text


@pytest.mark.parametrize("args, says", [
    (["hint", START, "31", "--bot", "net:@x"], "N plies ahead"),
    (["hint", START, "31", "--bot", "net:@"], "N plies ahead"),
    (["hint", START, "31", "--bot", "net:@9"], "plies are 0 to 2"),
    (["hint", START, "31", "--bot", "nodouble:net:@-1"], "N plies ahead"),
    (["hint", START, "31", "--plies", "-1"], "--plies is a whole number from 0 to 2"),
    (["hint", START, "31", "--plies", "3"], "--plies is a whole number from 0 to 2"),
    (["hint", START, "31", "--bot", "pubeval", "--plies", "1"], "needs a network"),
    (["hint", START, "31", "--bot", "net:@1", "--plies", "2"], "different plies"),
    (["hint", START, "31", "--bot", "nodouble:net:@2", "--plies", "0"], "different plies"),
    (["analyze", START, "--bot", "heuristic", "--plies", "2"], "needs a network"),
    (["match", "net:@x", "random", "--games", "2"], "N plies ahead"),
    (["match", "random", "net:@3", "--games", "2"], "plies are 0 to 2"),
    (["play", "--bot", "pubeval", "--plies", "1"], "needs a network"),
    (["serve-external", "--port", "0", "--bot", "racer", "--plies", "1"], "needs a network"),
    (["serve-http", "--port", "0", "--bot", "random", "--plies", "2"], "needs a network"),
])
def test_bad_plies_are_one_line_errors(args, says):
    r = gammon(*args)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and says in r.stderr, r.stderr


def test_a_bot_file_plays_at_zero_ply_only(tiny, tmp_path):
    bot_file = tmp_path / "tiny.npz"
    assert gammon("export", tiny, bot_file).returncode == 0
    r = gammon("hint", START, "31", "--bot", f"net:{bot_file}@1")
    assert r.returncode == 2 and "0-ply only" in r.stderr
    assert gammon("hint", START, "31", "--bot", f"net:{bot_file}@0").returncode == 0


def test_zero_plies_suit_any_bot():
    r = gammon("hint", START, "31", "--bot", "pubeval", "--plies", "0")
    assert r.returncode == 0 and "ply" not in r.stdout.splitlines()[0].split()
