"""`gammon analyze` and `gammon cube` at a match score: POSID:MATCHID and --score A-B
--length N [--crawford], --cube-value and --cube-owner, the --batch stream, the errors; and
`gammon cube --batch` deciding as eval.gnubg.match_cube computes it for net:."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gammon.engine.formats.matchid import OVER, MatchState, encode_match_id
from inprocess import gammon

START = "4HPwATDgc/ABMA"  # the opening position, the player on roll a little ahead
MONEY_ID = "cAkAAAAAAAAA"  # gnubg's money session, centred 1-cube
ACTIONS = ("no_double", "double", "too_good")
RESPONSES = ("take", "pass")


def match_id(length: int, mine: int, theirs: int, **fields) -> str:
    """A Match ID with the player on roll (player 0) at ``mine`` points, his opponent at
    ``theirs``."""
    return encode_match_id(MatchState(length=length, score=(mine, theirs), on_roll=0, turn=0,
                                      **fields))


def cube(*args, stdin=None) -> dict:
    out = gammon("cube", *args, stdin=stdin)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def analysis(*args) -> dict:
    out = gammon("analyze", *args, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


# --------------------------------------------------------------------- money play as ever

def test_money_answers_are_unchanged():
    assert cube(START) == {"action": "no_double", "response": "take"}
    a = analysis(START)
    assert set(a) == {"posid", "bot", "efficiency", "jacoby", "beavers", "probabilities",
                      "cubeless_equity", "cubeful", "action", "response", "decision",
                      "cubeful_equity", "take_point", "taker_chances", "cube_plies", "plans"}
    text = gammon("analyze", START).stdout
    assert text.splitlines()[1] == ("money game, centred cube, Jacoby off, no beavers, "
                                    "cube efficiency 0.68")
    assert "cubeless equity" in text and "take point" in text and "MWC" not in text
    # a money Match ID and the default cube options say the same as a plain Position ID
    assert cube(f"{START}:{MONEY_ID}") == cube(START, "--cube-value", "1",
                                               "--cube-owner", "centred") == cube(START)
    money_id = analysis(f"{START}:{MONEY_ID}")
    assert money_id["cubeful"] == a["cubeful"] and money_id["decision"] == a["decision"]
    assert money_id["match"]["length"] == 0 and money_id["jacoby"] is False


def test_money_cube_owners():
    theirs = cube(START, "--cube-value", "2", "--cube-owner", "opponent")
    assert theirs["action"] == "no_double" and theirs["cube"] == "owned by opponent"
    mine = analysis(START, "--cube-value", "2", "--cube-owner", "mover")
    assert mine["match"]["cube_owner"] == "mover" and mine["match"]["cube_value"] == 2
    centred = analysis(START)
    assert mine["cubeful"]["no_double"] > centred["cubeful"]["no_double"]  # his own cube
    text = gammon("analyze", START, "--cube-value", "4", "--cube-owner", "opponent").stdout
    assert "cube 4 owned by the opponent" in text
    assert "No double (the opponent owns the cube)" in text


# ------------------------------------------------------------------------ at the score

def test_two_away_two_away_is_a_dead_cube_once_turned():
    """At 2-away/2-away a doubled cube wins or loses the match on any result: double/take
    is the mover's winning chance, and double/pass is the MET's 1-away/2-away."""
    from gammon.model.match_cube import default_met
    a = analysis(START, "--score", "5-5", "--length", "7")
    assert a["unit"] == "mwc" and a["match"]["away"] == [2, 2]
    assert a["match"]["score"] == [5, 5] and a["match"]["crawford"] is False
    assert a["cubeful"]["double_take"] == pytest.approx(a["probabilities"]["win"], abs=1e-9)
    assert a["cubeful"]["double_pass"] == pytest.approx(
        default_met(11).win_probability(1, 2), abs=1e-9)
    assert a["cubeful_emg"]["double_pass"] == pytest.approx(1.0)
    assert a["action"] in ACTIONS and a["response"] in RESPONSES and "cube" not in a
    assert cube(START, "--score", "5-5", "--length", "7") == \
        {"action": a["action"], "response": a["response"]}
    text = gammon("analyze", START, "--score", "5-5", "--length", "7").stdout
    for words in ("7-point match, score X 5, O 5 (X needs 2, O 2)", "Cube 1, centred",
                  "match winning chances", "EMG", "proper cube action"):
        assert words in text, words
    assert "take point" not in text and "cubeless equity" not in text


def test_the_score_is_read_from_the_side_of_the_player_on_roll():
    ahead = analysis(START, "--score", "5-0", "--length", "7")
    behind = analysis(START, "--score", "0-5", "--length", "7")
    assert ahead["match"]["away"] == [2, 7] and behind["match"]["away"] == [7, 2]
    assert ahead["cubeless_mwc"] > 0.75 > 0.25 > behind["cubeless_mwc"]


def test_one_away_two_away_crawford_and_post_crawford():
    # the Crawford game: nobody doubles, whoever leads
    for score in ("6-5", "5-6"):
        answer = cube(START, "--score", score, "--length", "7", "--crawford")
        assert answer["action"] == "no_double" and answer["cube"] == "crawford", score
        assert answer["response"] in RESPONSES
    # post-Crawford, the leader (1-away) on roll: any win of his wins the match
    answer = cube(START, "--score", "6-5", "--length", "7")
    assert answer["action"] == "no_double" and answer["cube"] == "dead"
    # post-Crawford, the trailer 2-away: doubles at once (unless too good); the leader
    # passes exactly when the trailer wins more than half the games (the free drop)
    a = analysis(START, "--score", "5-6", "--length", "7")
    assert a["action"] in ("double", "too_good") and "cube" not in a
    assert a["response"] == ("pass" if a["probabilities"]["win"] > 0.5 else "take")
    text = gammon("analyze", START, "--score", "6-5", "--length", "7", "--crawford").stdout
    assert "the Crawford game" in text and "No double (the Crawford game)" in text


def test_post_crawford_trailer_doubles_at_every_score():
    for mine in range(0, 6):
        answer = cube(START, "--score", f"{mine}-6", "--length", "7")
        assert answer["action"] in ("double", "too_good"), mine


def test_a_match_id_says_what_the_options_say():
    cases = [((7, 5, 5), {}, ["--score", "5-5", "--length", "7"]),
             ((5, 4, 2), {"crawford": True}, ["--score", "4-2", "--length", "5", "--crawford"]),
             ((7, 2, 3), {"cube_value": 2, "cube_owner": 0},
              ["--score", "2-3", "--length", "7", "--cube-value", "2", "--cube-owner", "mover"]),
             ((7, 2, 3), {"cube_value": 2, "cube_owner": 1},
              ["--score", "2-3", "--length", "7", "--cube-value", "2",
               "--cube-owner", "opponent"])]
    for (n, x, o), fields, options in cases:
        mid = match_id(n, x, o, **fields)
        by_id, by_options = analysis(f"{START}:{mid}"), analysis(START, *options)
        assert by_id["match"] == by_options["match"], options
        assert by_id["cubeful"] == by_options["cubeful"], options
        assert cube(f"{START}:{mid}") == cube(START, *options), options
    assert cube(f"{START}:{match_id(7, 2, 3, cube_value=2, cube_owner=1)}")["cube"] == \
        "owned by opponent"
    # gnubg's player 1 on roll: the score turns round; dice rolled are ignored
    other = encode_match_id(MatchState(length=7, score=(0, 5), on_roll=1, turn=1))
    assert analysis(f"{START}:{other}")["match"]["score"] == [5, 0]
    rolled = match_id(7, 5, 5, dice=(3, 1))
    assert cube(f"{START}:{rolled}") == cube(START, "--score", "5-5", "--length", "7")


def test_the_cube_already_winning_the_match_is_dead():
    answer = cube(START, "--score", "4-3", "--length", "7", "--cube-value", "4",
                  "--cube-owner", "mover")
    assert answer["action"] == "no_double" and answer["cube"] == "dead"


def test_analyze_ranks_plays_by_match_winning_chance_at_the_score():
    a = analysis(START, "--score", "1-2", "--length", "5", "--dice", "31")
    assert a["play_equity"] == "mwc" and len(a["plays"]) == 16
    assert all(0 < r["equity"] < 1 for r in a["plays"])


# ------------------------------------------------------------------------------ --batch

def test_batch_mixes_money_match_and_bad_lines():
    lines = [START, f"{START}:{match_id(7, 5, 5)}", f"{START}:{MONEY_ID}",
             f"{START}:cAkAAAAAAAA", f"{START}:{match_id(5, 4, 2, crawford=True)}",
             f"{START}:{match_id(7, 2, 3, cube_value=2, cube_owner=1)}",
             f"{START}:{match_id(7, 7, 3, game_state=OVER)}",
             f"{START}:{match_id(100, 2, 3)}", f"{START}:!!!!!!!!!!!!", "", START]
    out = gammon("cube", "--batch", stdin="\n".join(lines) + "\n")
    assert out.returncode == 0, out.stderr
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(answers) == len(lines)
    money = {"action": "no_double", "response": "take"}
    assert answers[0] == answers[2] == answers[-1] == money
    assert answers[1] == cube(START, "--score", "5-5", "--length", "7")
    assert set(answers[1]) == {"action", "response"}
    assert "12" in answers[3]["error"] and "11 characters" in answers[3]["error"]
    assert answers[4]["action"] == "no_double" and answers[4]["cube"] == "crawford"
    assert answers[5]["action"] == "no_double" and answers[5]["cube"] == "owned by opponent"
    assert "no game in play" in answers[6]["error"]
    assert "100-point match" in answers[7]["error"]
    assert "base64" in answers[8]["error"] and set(answers[9]) == {"error"}


def test_batch_score_options_apply_to_plain_lines_and_clash_with_match_ids():
    lines = [START, f"{START}:{match_id(7, 5, 5)}", f"{START}:{MONEY_ID}", START]
    out = gammon("cube", "--batch", "--score", "5-5", "--length", "7",
                 stdin="\n".join(lines) + "\n")
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert answers[0] == answers[3] == cube(START, "--score", "5-5", "--length", "7")
    for a in answers[1:3]:
        assert set(a) == {"error"} and "holds the match length and score" in a["error"]
    out = gammon("cube", "--batch", "--plies", "1", stdin=f"{START}:{match_id(7, 5, 5)}\n")
    assert "0-ply" in json.loads(out.stdout)["error"]


@pytest.mark.parametrize("options, message", [
    (["--score", "7-0", "--length", "7"], "reached the match length"),
    (["--score", "2-2"], "needs --length"),
    (["--length", "7", "--score", "2-2", "--crawford"], "exactly one player"),
    (["--length", "7", "--beavers"], "money rule"),
])
def test_batch_with_bad_options_stops_before_reading(options, message):
    out = gammon("cube", "--batch", *options, stdin=f"{START}\n")
    assert out.returncode == 2 and out.stdout == "" and message in out.stderr


# ------------------------------------------------------------------------------- errors

@pytest.mark.parametrize("args, message", [
    ([f"{START}:cAkAAAAAAAA"], "11 characters"),
    ([f"{START}:cAkAAAAAAA*A"], "outside base64"),
    ([f"{START}:{match_id(7, 7, 3, game_state=OVER)}"], "no game in play"),
    ([START, "--score", "7-2", "--length", "7"], "reached the match length 7"),
    ([START, "--score", "2-9", "--length", "7"], "reached the match length 7"),
    ([START, "--score", "2-2"], "--score needs --length"),
    ([START, "--crawford"], "--crawford is for a match"),
    ([START, "--score", "3-3", "--length", "7", "--crawford"], "exactly one player at 6"),
    ([START, "--score", "6-6", "--length", "7", "--crawford"], "exactly one player at 6"),
    ([START, "--length", "1", "--crawford"], "exactly one player at 0"),
    ([START, "--score", "6-2", "--length", "7", "--crawford", "--cube-value", "2"],
     "stays at 1"),
    ([f"{START}:{match_id(7, 5, 5)}", "--score", "5-5", "--length", "7"],
     "holds the match length and score"),
    ([f"{START}:{MONEY_ID}", "--length", "7"], "give no --length"),
    ([f"{START}:{match_id(7, 5, 5)}", "--cube-owner", "mover"], "holds the cube"),
    ([START, "--score", "five-2", "--length", "7"], "--score"),
    ([START, "--score", "5", "--length", "7"], "A-B"),
    ([START, "--length", "65"], "--length"),
    ([START, "--cube-value", "3"], "power of two"),
    ([START, "--cube-owner", "me"], "invalid choice"),
    ([START, "--score", "1-1", "--length", "3", "--jacoby"], "money rule"),
    ([f"{START}:{match_id(3, 1, 1)}", "--beavers"], "money rule"),
])
@pytest.mark.parametrize("command", ["analyze", "cube"])
def test_bad_scores_are_one_line_errors(command, args, message):
    out = gammon(command, *args)
    assert out.returncode == 2 and out.stdout == "", out.stdout
    assert len(out.stderr.strip().splitlines()) == 1 and message in out.stderr, out.stderr


def test_cubeful_plays_and_the_cube_look_ahead_are_money_only():
    out = gammon("analyze", START, "--score", "1-1", "--length", "5", "--dice", "31",
                 "--cubeful")
    assert out.returncode == 2 and "--cubeful" in out.stderr
    out = gammon("cube", START, "--score", "1-1", "--length", "5", "--plies", "1")
    assert out.returncode == 2 and "0-ply" in out.stderr


def test_help_names_the_options():
    for command in ("analyze", "cube"):
        text = gammon(command, "--help").stdout
        for option in ("--score A-B", "--length N", "--crawford", "--cube-value V",
                       "--cube-owner", "POSID:MATCHID"):
            assert option in text, (command, option)


# ------------------------------------- consistency with eval.gnubg.match_cube (net:)

def test_cube_batch_decides_as_the_match_cube_check_for_net():
    """The first 100 positions of eval/gnubg/data/gnubg_match_cube.jsonl as POSID:MATCHID lines:
    `gammon cube --batch` doubles and takes exactly where eval.gnubg.match_cube's own
    computation for net: (bot_probabilities, match_decisions) does."""
    from gammon.eval.gnubg import match_cube as gm
    rows = [json.loads(line) for line in gm.DATA_PATH.read_text().splitlines()][1:101]
    data = gm.load()
    part = gm.MatchCubeData(data.posids[:100], data.scores[:100], data.emg[:100],
                            data.mwc[:100], data.probabilities[:100], data.actions[:100],
                            data.evaluators[:100], data.meta)
    assert [r["posid"] for r in rows] == part.posids
    assert [r["matchid"] for r in rows] == [s.match_id() for s in part.scores]
    theirs = gm.match_decisions(gm.bot_probabilities("net:", part.posids), part)
    lines = [f"{r['posid']}:{r['matchid']}" for r in rows]
    out = gammon("cube", "--batch", stdin="\n".join(lines) + "\n")
    assert out.returncode == 0, out.stderr
    ours = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(ours) == 100 and all("error" not in a and "cube" not in a for a in ours)
    double = np.array([a["action"] == "double" for a in ours])
    take = np.array([a["response"] != "pass" for a in ours])
    assert (double == theirs.double).all(), np.flatnonzero(double != theirs.double)
    assert (take == theirs.take).all(), np.flatnonzero(take != theirs.take)
    assert 0 < double.sum() < 100 and 0 < take.sum() < 100  # both answers occur
    assert {s.kind for s in part.scores} == {"centred", "post", "owned"}
