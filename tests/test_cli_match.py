"""Tests of `gammon match`, `gammon hint` and `gammon choose`, run in-process
(``tests/inprocess.py``) but for the streaming ``--batch`` test, which needs a process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from inprocess import gammon as run_in_process

GAMMON = [sys.executable, "-m", "gammon.cli"]
START = "4HPwATDgc/ABMA"
PUBEVAL_CASES = Path(__file__).parent / "data" / "pubeval_reference.jsonl"


def gammon(*args, stdin=None):
    """``gammon ARGS`` in this process: returncode, stdout, stderr."""
    return run_in_process(*args, stdin=stdin)


def assert_usage_error(out, message: str) -> None:
    """Exit 2, nothing on stdout, one line on stderr naming the problem."""
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and message in out.stderr
    assert "Traceback" not in out.stderr


# --- match -------------------------------------------------------------------------------


def test_match_json_is_one_object_and_replays_from_its_seed():
    out = gammon("match", "pubeval", "random", "--games", "40", "--seed", "9", "--json")
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    for key in ("games", "wins_a", "ppg_a", "ppg_a_ci95", "gammons_a", "gammons_b",
                "backgammons_a", "backgammons_b", "plies_per_game", "games_per_s",
                "paired", "seed", "ci95_unpaired"):
        assert key in d, key
    assert d["games"] == 40 and d["seed"] == 9 and d["paired"] is True
    assert d["wins_a"] >= 36
    again = json.loads(gammon("match", "pubeval", "random", "--games", "40", "--seed", "9",
                              "--json").stdout)
    timing = ("seconds", "games_per_s")
    assert {k: v for k, v in d.items() if k not in timing} == \
        {k: v for k, v in again.items() if k not in timing}


def test_match_table_for_people():
    out = gammon("match", "random", "pubeval", "--games", "21", "--no-pairing", "--seed", "1")
    assert out.returncode == 0, out.stderr
    for words in ("21 games", "independent dice", "seed 1", "wins", "gammons", "backgammons",
                  "points per game", "95% CI", "plies per game", "games per second"):
        assert words in out.stdout, words
    assert out.stderr == ""  # no progress bar when stderr is not a terminal


@pytest.mark.parametrize("args, message", [
    (["match", "pubeval", "nobody", "--games", "10"], "valid: random, pubeval"),
    (["match", "pubeval", "random", "--games", "11"], "even"),
    (["match", "pubeval", "random", "--games", "0", "--no-pairing"], "positive"),
    (["match", "gnubg", "random", "--games", "2", "--variant", "hypergammon"], "15-checker"),
])
def test_match_usage_errors(args, message):
    assert_usage_error(gammon(*args), message)


# --- hint --------------------------------------------------------------------------------


def test_hint_ranks_every_legal_play(corpus):
    case = next(c for c in corpus if c["variant"] == "standard" and len(c["results"]) > 5)
    args = [case["posid"], str(case["d1"]), str(case["d2"]), "--bot", "pubeval"]
    out = gammon("hint", *args, "--json")
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    plays = d["plays"]
    assert [p["rank"] for p in plays] == list(range(1, len(plays) + 1))
    assert sorted(p["result"] for p in plays) == case["results"]
    by_result = dict(zip(case["results"], case["moves"]))
    assert all(p["play"] == by_result[p["result"]] for p in plays)
    scores = [p["score"] for p in plays]
    assert scores == sorted(scores, reverse=True)
    chosen = gammon("choose", *args).stdout.strip()
    assert plays[0]["result"] == chosen

    text = gammon("hint", *args)
    assert text.returncode == 0
    lines = text.stdout.splitlines()
    assert "pubeval score" in lines[0] and len(lines) == len(plays) + 1
    assert lines[1].split()[-1] == plays[0]["result"]


def test_hint_with_no_legal_play_says_so(corpus):
    # changed on purpose (it printed nothing): one line saying the roll cannot be played
    case = next(c for c in corpus if not c["results"])
    args = [case["posid"], str(case["d1"]), str(case["d2"]), "--bot", "pubeval"]
    out = gammon("hint", *args)
    assert out.returncode == 0 and out.stdout.startswith("no legal play for ")
    assert len(out.stdout.splitlines()) == 1
    assert json.loads(gammon("hint", *args, "--json").stdout)["plays"] == []


@pytest.mark.parametrize("args, message", [
    (["hint", START, "3", "1", "--bot", "gnubg2"], "valid: random, pubeval, racer"),
    (["hint", "4HPwATDgc/ABM", "3", "1"], "14 characters"),
    (["hint", START, "7", "1"], "1 to 6"),
    (["choose", START, "3", "1", "--bot", "nobody"], "unknown bot"),
    (["choose", START, "3"], "POSID D1 D2"),
    (["choose", START, "3", "1", "--batch"], "give no POSID"),
])
def test_hint_and_choose_usage_errors(args, message):
    assert_usage_error(gammon(*args), message)


# --- choose ------------------------------------------------------------------------------


def test_choose_batch_answers_one_line_per_request(corpus):
    standard = [c for c in corpus if c["variant"] == "standard"]
    stuck = next(c for c in standard if not c["results"])
    good = [c for c in standard if c["results"]][:20]
    requests = [f"{c['posid']} {c['d1']} {c['d2']}" for c in good]
    lines = requests[:10] + ["4HPwATDgc/ABMA 0 1", f"{stuck['posid']} {stuck['d1']} "
                             f"{stuck['d2']}", "nonsense"] + requests[10:]
    out = gammon("choose", "--bot", "pubeval", "--batch", stdin="\n".join(lines) + "\n")
    assert out.returncode == 0, out.stderr
    answers = out.stdout.split("\n")[:-1]
    assert len(answers) == len(lines)
    assert answers[10].startswith("error:") and "1 to 6" in answers[10]
    assert answers[11] == ""
    assert answers[12].startswith("error:")
    for case, answer in zip(good, answers[:10] + answers[13:]):
        assert answer in case["results"]


def test_choose_with_pubeval_plays_the_stored_reference_choices():
    rows = [json.loads(line) for line in PUBEVAL_CASES.read_text().splitlines()[:200]]
    text = "".join(f"{r['posid']} {r['d1']} {r['d2']}\n" for r in rows)
    out = gammon("choose", "--bot", "pubeval", "--batch", stdin=text)
    assert out.returncode == 0, out.stderr
    answers = out.stdout.split("\n")[:-1]
    wrong = [i for i, (r, a) in enumerate(zip(rows, answers)) if r["result"] != a]
    assert len(answers) == 200 and wrong == []


def test_choose_batch_flushes_each_answer():
    proc = subprocess.Popen(GAMMON + ["choose", "--bot", "pubeval", "--batch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        proc.stdin.write(f"{START} 3 1\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "4HPwATCwZ/ABMA\n"  # 8/5 6/5, while stdin is open
        proc.stdin.write(f"{START} 6 5\n")
        proc.stdin.flush()
        assert len(proc.stdout.readline().strip()) == 14
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert proc.returncode == 0


def test_choose_with_gnubg():
    pytest.importorskip("gnubg_nn")
    out = gammon("choose", "--bot", "gnubg", "--batch", stdin=f"{START} 3 1\n{START} 6 4\n")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[0] == "4HPwATCwZ/ABMA"  # 8/5 6/5


def test_help_names_the_bots():
    for command in ("match", "hint", "choose"):
        out = gammon(command, "--help")
        assert out.returncode == 0 and "pubeval" in out.stdout and "heuristic" in out.stdout


# --- seeds, defaults, probabilities ---------------------------------------------------------


@pytest.mark.parametrize("seed", ["-1", str(2**70), str(2**63), "٣", "1e3", "9" * 5000, ""])
@pytest.mark.parametrize("command", [["match", "pubeval", "random", "--games", "2"], ["play"],
                                     ["choose", START, "3", "1", "--bot", "random"],
                                     ["hint", START, "31", "--bot", "random"]])
def test_seeds_outside_the_range_are_one_line_errors(command, seed):
    out = gammon(*command, "--seed", seed, stdin="")
    assert_usage_error(out, "0 to 2**63-1")
    assert len(out.stderr) < 300


def test_the_largest_seed_is_accepted():
    out = gammon("match", "pubeval", "random", "--games", "2", "--seed", str(2**63 - 1), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["seed"] == 2**63 - 1


def test_hint_and_choose_default_to_the_shipped_net():
    # changed on purpose: the default bot was pubeval, it is now net: everywhere
    d = json.loads(gammon("hint", START, "3", "1", "--json").stdout)
    assert d["bot"] == "net:" and d["equity_type"] == "cubeless"
    chosen = gammon("choose", START, "3", "1").stdout.strip()
    assert chosen == d["plays"][0]["result"]
    for command in ("hint", "choose", "play"):
        assert "default: net:" in gammon(command, "--help").stdout


def test_hint_shows_probabilities_and_says_the_equity_is_cubeless():
    text = gammon("hint", START, "31")
    assert text.returncode == 0, text.stderr
    header = text.stdout.splitlines()[0]
    assert "cubeless equity" in header and "win" in header and "w(g)" in header
    d = json.loads(gammon("hint", START, "31", "--json").stdout)
    for row in d["plays"]:
        p = row["probabilities"]
        assert set(p) == {"win", "win_gammon", "win_backgammon", "lose_gammon",
                          "lose_backgammon"}
        assert 0 <= p["win_backgammon"] <= p["win_gammon"] <= p["win"] <= 1
        assert row["cubeless_equity"] == pytest.approx(row["score"], abs=1e-5)
        assert "cubeful_equity" not in row


def test_hint_cubeful_ranks_by_the_cubeful_equity():
    d = json.loads(gammon("hint", START, "3-1", "--cubeful", "--json").stdout)
    assert d["equity_type"] == "cubeful"
    assert d["cube"] == {"efficiency": 0.68, "jacoby": False, "beavers": False}
    cubeful = [row["cubeful_equity"] for row in d["plays"]]
    assert cubeful == sorted(cubeful, reverse=True) and len(cubeful) == 16
    text = gammon("hint", START, "3-1", "--cubeful").stdout.splitlines()
    assert "cubeful equity" in text[0] and "cubeless" in text[0]
    # the cubeful equity of a play is minus the opponent's after proper cube play
    a = json.loads(gammon("analyze", _flipped(d["plays"][0]["result"]), "--json").stdout)
    assert d["plays"][0]["cubeful_equity"] == pytest.approx(-a["cubeful_equity"], abs=1e-5)


def _flipped(result: str) -> str:
    """The Position ID of a result with the opponent on roll."""
    from gammon.engine.board import flip
    from gammon.engine.formats import posid
    return posid.encode(flip(posid.decode(result)))


def test_hint_cubeful_needs_probabilities():
    assert_usage_error(gammon("hint", START, "31", "--bot", "pubeval", "--cubeful"),
                       "estimates probabilities")
