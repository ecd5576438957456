"""Plakoto at the command line: the plakoto: position text in and out of every command that
takes a position, 'wins N' for plays that end the game, pins drawn, bad text refused."""

from __future__ import annotations

import pytest

from inprocess import gammon

START = "plakoto:-15," + "0," * 22 + "15"
# our 2-point checker bears off the last one: the opponent has borne off none -> 2 points
LAST = "plakoto:0,1," + "0," * 19 + "-15,0,0"
# 5/1* pins the opponent's mother on our 1-point: the game ends, 2 points
MOTHER = "plakoto:-1,0,0,0,1,0,0,0,0,0,0,0,1,0,0,0,0,0,0,-14,0,0,0,13"


def test_moves_writes_plakoto_results_not_flipped():
    r = gammon("moves", "--variant", "plakoto", START, "6", "5")
    assert r.returncode == 0, r.stderr
    lines = sorted(r.stdout.splitlines())
    assert lines == sorted([
        "24/13\tplakoto:-15," + "0," * 11 + "1," + "0," * 10 + "14",
        "24/19 24/18\tplakoto:-15," + "0," * 16 + "1,1," + "0," * 4 + "13",
    ])


def test_moves_says_which_plays_win_and_how_much():
    r = gammon("moves", "--variant", "plakoto", LAST, "2", "1")
    assert r.stdout.splitlines() == ["2/off\tplakoto:" + "0," * 21 + "-15,0,0\twins 2"]
    r = gammon("moves", "--variant", "plakoto", MOTHER, "4", "2")
    wins = [line for line in r.stdout.splitlines() if line.endswith("\twins 2")]
    assert wins and all("5/1*" in line.split("\t")[0] for line in wins)
    assert all(len(line.split("\t")) == 2 for line in r.stdout.splitlines()
               if "5/1*" not in line)


@pytest.mark.parametrize("bad, says", [
    ("plakoto:16," + "0," * 22 + "-1", "16 checkers"),
    ("plakoto:14,1," + "0," * 21 + "-1p", "16 checkers"),
    ("plakoto:1pp," + "0," * 22 + "-1", "more than one"),
    ("plakoto:1,x," + "0," * 21 + "-1", "not a signed count"),
    ("4HPwATDgc/ABMA", "not Position IDs"),
])
def test_bad_plakoto_text_is_one_line_exit_2(bad, says):
    r = gammon("moves", "--variant", "plakoto", bad, "3", "1")
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and says in r.stderr
    assert "Traceback" not in r.stderr


def test_batch_answers_bad_lines_with_error_lines():
    stdin = "\n".join([f"{START} 6 5", f"plakoto:1pp{',0' * 22},-1 3 1", "4HPwATDgc/ABMA 3 1",
                       f"{LAST} 2 1"]) + "\n"
    r = gammon("moves", "--variant", "plakoto", "--batch", stdin=stdin)
    lines = r.stdout.splitlines()
    assert r.returncode == 0 and len(lines) == 4
    assert len(lines[0].split()) == 2 and lines[0].startswith("plakoto:")
    assert lines[1].startswith("error:") and lines[2].startswith("error:")
    assert lines[3] == "plakoto:" + "0," * 21 + "-15,0,0"


def test_a_plakoto_text_is_refused_for_other_variants():
    r = gammon("moves", START, "3", "1")
    assert r.returncode == 2 and "only for --variant plakoto" in r.stderr


def test_show_draws_pins_and_choose_hint_write_plakoto_text():
    pinned = "plakoto:-14,0,0,0,0,0,1p," + "0," * 16 + "14"
    r = gammon("show", "--variant", "plakoto", pinned)
    assert r.returncode == 0, r.stderr
    foot = [line for line in r.stdout.splitlines() if "pinned" in line and "X  pips" in line][0]
    assert " o |" in foot and "pinned 0" in foot  # O's checker lies pinned under X's on 7
    r = gammon("choose", "--variant", "plakoto", "--bot", "random", "--seed", "1", START, "6", "5")
    assert r.returncode == 0 and r.stdout.startswith("plakoto:"), r.stderr
    r = gammon("hint", "--variant", "plakoto", "--bot", "random", "--seed", "1", MOTHER, "4", "2")
    assert r.returncode == 0 and "plakoto:" in r.stdout, r.stderr
