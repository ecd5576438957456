"""Decisions by rollout (``eval.analysis.rollout_decisions``; ``hint``, ``analyze`` and
``cube`` with ``--rollout``): the candidates of the move filter on the same dice, paired
differences, exact values of plays that end the game, the cube from no double and
double/take on the same dice, match scores, and the commands' answers and errors."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from gammon.engine.board import flip
from gammon.engine.formats.matchid import MatchState
from gammon.engine.formats import position
from gammon.engine.formats.posid import decode
from gammon.engine.movegen import legal_plays
from gammon.engine.rules import variant
from gammon.eval.analysis import RolloutSettings as Settings, rollout
from gammon.eval.analysis.rollout_decisions import filter_candidates, rollout_cube, rollout_plays
from gammon.eval.bots.registry import make_bot
from gammon.model.cube import CubeEquities, decide_from
from inprocess import gammon

OPENING = "4HPwATDgc/ABMA"
STRONG = "nN3AAHDbbSMQAA"  # far ahead in a race with gammon chances: too good to double
TRIALS = 36


@pytest.fixture(scope="module")
def net():
    return make_bot("net:")


def test_candidate_plays_share_the_dice_and_are_paired(net):
    board = decode(OPENING)
    settings = Settings(trials=TRIALS, seed=5, truncate=8)
    rows = rollout_plays(net, board, 3, 1, settings)
    plays = legal_plays(board[None], np.array([[3, 1]]))
    kept = filter_candidates(net, board, (3, 1), plays, settings.rules)
    assert len(rows) == kept.sum() and 2 <= len(rows) <= 8
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    means = [r["equity"]["mean"] for r in rows]
    assert means == sorted(means, reverse=True) and rows[0]["difference"] is None
    # each play alone, on dice stream 0, gives the same trials as in the group: the same dice
    for r in rows[1:3]:
        alone = rollout(net, flip(decode(r["result"]))[None], settings, keys=[0])[0]
        assert r["equity"]["mean"] == pytest.approx(-alone.equity, abs=1e-12)
        # the paired difference is the difference of the means, with its own spread
        d = r["difference"]
        assert d["mean"] == pytest.approx(r["equity"]["mean"] - means[0], abs=1e-12)
        assert d["se"] > 0 and d["ci95"][0] < d["mean"] < d["ci95"][1]
    assert all(r["trials"] == TRIALS for r in rows)


def test_a_play_that_ends_the_game_is_exact(net):
    # the mover bears off his last two checkers with 1-1; the opponent has one off (no gammon)
    board = np.zeros(26, dtype=np.int8)
    board[1] = 2
    board[24] = -3
    board[19] = -11
    rows = rollout_plays(net, board, 1, 1, Settings(trials=TRIALS, seed=1))
    assert rows[0]["trials"] == 0 and rows[0]["equity"]["mean"] == 1.0
    assert rows[0]["probabilities"]["win"] == 1.0


def test_cube_by_rollout_pairs_no_double_and_double_take(net):
    settings = Settings(trials=TRIALS, seed=3, truncate=10)
    board = decode(OPENING)
    r = rollout_cube(net, board, settings)
    nd = rollout(net, board[None], replace(settings, cubeful=True, double_at_start=False))[0]
    dt_state = replace(MatchState(), cube_value=2, cube_owner=1)
    dt = rollout(net, board[None], replace(settings, cubeful=True, double_at_start=False),
                 states=[dt_state])[0]
    assert r["cubeful"]["no_double"] == pytest.approx(nd.cubeful_equity, abs=1e-12)
    assert r["cubeful"]["double_take"] == pytest.approx(2 * dt.cubeful_equity, abs=1e-12)
    assert r["cubeful"]["double_pass"] == 1.0
    d = r["double_take_minus_no_double"]
    assert d["mean"] == pytest.approx(r["cubeful"]["double_take"] - r["cubeful"]["no_double"])
    eq = CubeEquities(*(np.array([r["cubeful"][k]])
                        for k in ("no_double", "double_take", "double_pass")))
    decision = decide_from(eq)
    assert r["decision"] == decision.words()[0]
    assert (r["action"], r["response"]) == ("no_double", "take")
    strong = rollout_cube(net, decode(STRONG), settings)
    assert (strong["action"], strong["response"]) == ("too_good", "pass")


def test_cube_by_rollout_when_the_player_may_not_double(net):
    state = replace(MatchState(), cube_value=2, cube_owner=1)  # the opponent's cube
    r = rollout_cube(net, decode(OPENING), Settings(trials=TRIALS, seed=3), state)
    assert r["cube"] == "owned by opponent" and r["response"] is None
    assert set(r["cubeful"]) == {"no_double"}


def test_cube_by_rollout_at_a_match_score(net):
    state = replace(MatchState(), length=5, score=(2, 2))
    r = rollout_cube(net, decode(STRONG), Settings(trials=TRIALS, seed=3), state)
    c = r["cubeful"]
    assert all(0 <= v <= 1 for v in c.values())
    assert 0.5 < c["double_pass"] < 1  # winning one point at 2-2 to 5
    assert r["cubeful_emg"]["double_pass"] == pytest.approx(1.0, abs=1e-9)
    assert (r["action"], r["response"]) == ("too_good", "pass")


def test_hint_rollout_json_and_text():
    r = gammon("hint", OPENING, "3", "1", "--rollout", "--trials", TRIALS, "--seed", 2,
               "--truncate", 6, "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["rollout"]["trials"] == TRIALS and out["rollout"]["seed"] == 2
    assert out["plays"][0]["play"] == "8/5 6/5" and out["plays"][0]["difference"] is None
    assert all(p["difference"]["se"] > 0 for p in out["plays"][1:])
    text = gammon("hint", OPENING, "31", "--rollout", "--trials", 12, "--seed", 2,
                  "--truncate", 4)
    assert text.returncode == 0 and "8/5 6/5" in text.stdout.splitlines()[1]
    assert "on the same dice" in text.stdout and "seed 2" in text.stdout


def test_cube_and_analyze_rollout():
    r = gammon("cube", STRONG, "--rollout", "--trials", TRIALS, "--seed", 1)
    out = json.loads(r.stdout)
    assert (out["action"], out["response"]) == ("too_good", "pass")
    assert set(out["rollout"]["equities"]) == {"no_double", "double_take", "double_pass"}
    lines = gammon("cube", "--batch", "--rollout", "--trials", 8, "--seed", 1, "--truncate", 4,
                   stdin=f"{OPENING}\nnonsense\n").stdout.splitlines()
    assert "rollout" in json.loads(lines[0]) and "error" in json.loads(lines[1])
    a = gammon("analyze", OPENING, "--rollout", "--trials", TRIALS, "--seed", 1, "--dice",
               "6", "5", "--truncate", 6)
    assert a.returncode == 0, a.stderr
    assert "take - no double" in a.stdout and "95% interval of the loss" in a.stdout
    assert "24/13" in a.stdout and "s.e." in a.stdout


@pytest.mark.parametrize("command", [["hint", OPENING, "3", "1"], ["cube", OPENING],
                                     ["analyze", OPENING]])
def test_rollout_settings_need_rollout(command):
    r = gammon(*command, "--trials", 10)
    assert r.returncode == 2 and "add --rollout" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("extra, words", [(["--trials", "0"], "--trials"),
                                          (["--truncate", "-1"], "--truncate"),
                                          (["--bot", "pubeval"], "variance reduction")])
def test_rollout_bad_settings_are_one_line(extra, words):
    r = gammon("hint", OPENING, "3", "1", "--rollout", *extra)
    assert r.returncode == 2 and words in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_hint_rollout_in_a_variant():
    posid = position.write(variant("hypergammon").start_board(), variant("hypergammon"))
    r = gammon("hint", posid, "6", "5", "--rollout", "--trials", 8, "--seed", 1,
               "--variant", "hypergammon", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["plays"] and out["rollout"]["variant"] == "hypergammon"
