"""`gammon review`: every decision of a game or a match graded (eval.review): the report
object's keys, checker and cube losses and marks on hand-made games with known errors, the
luck of the opening roll, the per-player figures, the thresholds, and bad input (a missing,
empty, truncated or damaged file, an unknown format, an illegal move stopped or skipped),
each a one-line error."""

import json
from pathlib import Path

import numpy as np
import pytest

from gammon.engine.formats.sgf import parse_sgf
from gammon.eval.analysis.plays import CubeView, cubeful_after, play_probabilities
from gammon.eval.review.grade import TIE_DIGITS
from gammon.eval.review.marks import Thresholds
from gammon.eval.review.report import prepare, review
from gammon.eval.review.source import ReviewInputError
from inprocess import gammon

DATA = Path(__file__).parent / "data" / "review"
# alice opens 3-1 with 24/21 24/23 (8/5 6/5 is best), bob doubles at once, alice drops
BLUNDERS = """ 0 point match

 Game 1
 alice : 0                      bob : 0
  1) 31: 24/21 24/23             Doubles => 2
  2)  Drops
                                  Wins 1 point
"""
ILLEGAL = """ 0 point match

 Game 1
 alice : 0                      bob : 0
  1) 31: 8/5 6/5                 64: 24/18 13/9
  2) 52: 24/14                   31: 8/5 6/5
 Game 2
 alice : 0                      bob : 0
  1) 42: 8/4 6/4                 31: 8/5 6/5
"""
REPORT_KEYS = {"format", "file", "variant", "match_length", "bot", "plies", "thresholds",
               "players", "games"}
PLAYER_KEYS = {"name", "unforced", "cube_decisions", "checker_loss", "cube_loss",
               "checker_error_rate", "cube_error_rate", "error_rate", "pr", "luck",
               "points", "luck_adjusted", "marks"}
GAME_KEYS = {"number", "score", "crawford", "winner", "points", "decisions"}
DECISION_KEYS = {"move", "player", "kind", "board", "posid", "xgid", "dice", "cube",
                 "action", "best", "loss", "forced", "mark", "luck", "luck_mark", "equity",
                 "options"}


@pytest.fixture(scope="module")
def bot():
    from gammon.options import load_bot
    return load_bot("net:")


def _review(text, bot, **options):
    return review(text, bot, "net:", **options)


@pytest.fixture(scope="module")
def sgf_report(bot):
    return _review((DATA / "match3.sgf").read_text(), bot)


def test_the_report_has_every_key_of_the_interface(sgf_report):
    report = sgf_report
    assert REPORT_KEYS <= set(report) and report["format"] == "sgf"
    assert report["match_length"] == 3 and report["variant"] == "standard"
    assert set(report["thresholds"]) == {"doubtful", "bad", "very_bad", "lucky",
                                         "very_lucky", "unlucky", "very_unlucky"}
    assert [p["name"] for p in report["players"]] == ["net:", "pubeval"]
    for p in report["players"]:
        assert PLAYER_KEYS <= set(p) and set(p["marks"]) == {"doubtful", "bad", "very_bad"}
    match = parse_sgf((DATA / "match3.sgf").read_text())
    assert [g["score"] for g in report["games"]] == [list(s) for s in match.scores()]
    assert [g["winner"] for g in report["games"]] == [g.winner for g in match.games]
    kinds = set()
    for g in report["games"]:
        assert GAME_KEYS <= set(g)
        moves = [d["move"] for d in g["decisions"]]
        assert moves == sorted(moves) and moves[0] == 1
        for d in g["decisions"]:
            assert DECISION_KEYS <= set(d)
            kinds.add(d["kind"])
            assert len(d["board"]) == 26 and d["loss"] >= 0 and 1 <= len(d["options"]) <= 5
            assert d["options"] == sorted(d["options"], key=lambda o: -round(o["equity"], TIE_DIGITS))
            assert d["cube"]["owner"] in (-1, 0, 1) and d["cube"]["value"] >= 1
            if d["kind"] == "checker":
                assert abs(d["loss"] - (d["options"][0]["equity"] - d["equity_played"])) \
                    < 1e-9 or d["forced"]
                assert d["xgid"].startswith("XGID=")
    assert kinds == {"checker", "double", "take"}
    json.dumps(report)  # plain JSON, no numpy numbers


def test_known_checker_and_cube_errors_are_graded_and_marked(bot):
    report = _review(BLUNDERS, bot, file="blunders.mat")
    alice, bob = report["players"]
    (game,) = report["games"]
    assert game["winner"] == 1 and game["points"] == 1
    play, double, drop = game["decisions"]
    assert (play["kind"], play["player"], play["action"], play["best"]) == \
        ("checker", 0, "24/23 24/21", "8/5 6/5")
    assert play["loss"] > 0.03 and play["mark"] in ("doubtful", "bad", "very bad")
    # the opening roll: in money play from the start the mean over the 30 ways is 0
    assert play["luck"] == pytest.approx(play["options"][0]["equity"], abs=1e-9)
    assert (double["kind"], double["player"], double["action"]) == ("double", 1, "double")
    assert double["best"].startswith("no double") and double["mark"] == "very bad"
    assert double["loss"] == pytest.approx(
        double["no_double"] - min(double["double_take"], double["double_pass"]))
    assert (drop["kind"], drop["player"], drop["action"], drop["best"]) == \
        ("take", 0, "pass", "take")
    assert drop["loss"] == pytest.approx(1 - double["double_take"]) and drop["loss"] > 0.5
    assert (alice["unforced"], alice["cube_decisions"]) == (1, 1)
    assert (bob["unforced"], bob["cube_decisions"]) == (0, 1)
    assert alice["checker_error_rate"] == pytest.approx(1000 * play["loss"])
    assert alice["error_rate"] == pytest.approx(1000 * (play["loss"] + drop["loss"]) / 2)
    assert alice["pr"] == pytest.approx(alice["error_rate"] / 2)
    assert bob["cube_error_rate"] == pytest.approx(1000 * double["loss"])
    assert (alice["points"], bob["points"]) == (0, 1)
    assert alice["luck_adjusted"] == pytest.approx(-1 - alice["luck"])  # cube 1 rolled
    assert alice["luck_adjusted"] == -bob["luck_adjusted"]


def test_forced_plays_are_not_counted(bot, sgf_report):
    report = _review((DATA / "match3.mat").read_text(), bot)
    checker = [d for g in report["games"] for d in g["decisions"] if d["kind"] == "checker"]
    forced = [d for d in checker if d["forced"]]
    assert forced and all(d["loss"] == 0 and d["mark"] is None for d in forced)
    assert any(d["action"] == "no play" for d in forced)
    for p, stats in enumerate(report["players"]):
        mine = [d for d in checker if d["player"] == p and not d["forced"]]
        assert stats["unforced"] == len(mine)
        assert stats["checker_loss"] == pytest.approx(sum(d["loss"] for d in mine))
    # .mat and SGF of the same match review alike
    def strip(players):
        return [{k: v for k, v in p.items() if k != "name"} for p in players]
    assert strip(sgf_report["players"]) == strip(report["players"])


def test_thresholds_change_the_marks(bot):
    strict = _review(BLUNDERS, bot, thresholds=Thresholds(0.0, 0.0, 0.0))
    assert [d["mark"] for d in strict["games"][0]["decisions"]] == ["very bad"] * 3
    lax = _review(BLUNDERS, bot, thresholds=Thresholds(5, 5, 5, 5, 5, -5, -5))
    assert [d["mark"] for d in lax["games"][0]["decisions"]] == [None] * 3
    assert lax["thresholds"]["very_bad"] == 5


def test_cube_view_owner_keeps_todays_answers_and_orders_the_owners(bot):
    from gammon.engine.movegen import legal_plays
    from gammon.engine.rules import STANDARD
    board = STANDARD.start_board()
    plays = legal_plays(board[None], np.array([[6, 4]]), STANDARD)
    p5 = play_probabilities(bot, plays, STANDARD)
    centred = cubeful_after(p5, plays, STANDARD, CubeView(0.68))
    assert np.allclose(centred, cubeful_after(p5, plays, STANDARD, CubeView(0.68, owner=0)))
    mine = cubeful_after(p5, plays, STANDARD, CubeView(0.68, owner=1))
    theirs = cubeful_after(p5, plays, STANDARD, CubeView(0.68, owner=-1))
    assert (mine >= centred - 1e-12).all() and (centred >= theirs - 1e-12).all()
    assert (mine > theirs).any()
    assert CubeView(0.68).to_dict() == {"efficiency": 0.68, "jacoby": False, "beavers": False}


# --- the command line --------------------------------------------------------------------


def test_the_command_prints_the_table_and_the_marked_decisions(tmp_path):
    path = tmp_path / "blunders.mat"
    path.write_text(BLUNDERS)
    run = gammon("review", path, "--no-progress")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "unforced checker decisions" in out and "performance rating (PR)" in out
    assert "game 1, move 1: alice, checker" in out and "played: 24/23 24/21" in out
    assert "best: 8/5 6/5" in out and "game 1, move 2: bob, double" in out
    assert "+13-14-15-16-17-18" in out  # the board diagram
    run = gammon("review", path, "--json", "--no-progress", "--bad", "0.5", "--very-bad",
                 "0.9")
    report = json.loads(run.stdout)
    assert report["file"] == str(path) and report["format"] == "mat"
    assert report["thresholds"]["bad"] == 0.5 and report["thresholds"]["unlucky"] == -0.3


def _error(*args):
    run = gammon("review", *args, "--no-progress")
    assert run.returncode == 2 and run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gammon review: error: ")
    return lines[0]


def test_bad_input_is_one_line_each(tmp_path):
    files = {}

    def put(name, text):
        files[name] = tmp_path / name
        files[name].write_bytes(text if isinstance(text, bytes) else text.encode())
        return files[name]
    sgf = (DATA / "match3.sgf").read_text()
    assert "cannot read it (No such file" in _error(tmp_path / "missing.mat")
    assert "empty file" in _error(put("empty.mat", ""))
    assert "empty file" in _error(put("blank.sgf", "\n  \n"))
    assert "unknown format" in _error(put("notes.txt", "hello world\n"))
    assert "not UTF-8" in _error(put("binary.mat", b"\xff\xfe\x00\x01"))
    assert "truncated SGF" in _error(put("cut.sgf", sgf[:len(sgf) // 2]))
    assert "GM[1] is Go" in _error(put("go.sgf", sgf.replace("GM[6]", "GM[1]", 1)))
    second = sgf.index("MI[length:3][game:1]")
    damaged = sgf[:second] + sgf[second:].replace("[ws:", "[ws:9", 1)
    assert "MI says the score before it" in _error(put("score.sgf", damaged))
    truncated_mat = BLUNDERS.replace("24/21 24/23", "24/2")
    assert "illegal action: game 1, move 1, alice (player 0)" in \
        _error(put("cut.mat", truncated_mat))
    assert "the loss thresholds need" in _error(put("ok.mat", BLUNDERS), "--bad", "0.01")


def test_an_illegal_move_stops_or_skips_the_rest_of_its_game(tmp_path):
    path = tmp_path / "illegal.mat"
    path.write_text(ILLEGAL)
    line = _error(path)
    assert "game 1, move 3, alice (player 0), line 6: 52: '24/14'" in line
    run = gammon("review", path, "--on-illegal", "skip", "--json", "--no-progress")
    assert run.returncode == 0
    warning = run.stderr.strip().splitlines()
    assert len(warning) == 1 and "warning: game 1, move 3, alice" in warning[0]
    report = json.loads(run.stdout)
    first, second = report["games"]
    assert [d["move"] for d in first["decisions"] if d["kind"] == "checker"] == [1, 2]
    assert first["winner"] is None and first["warning"]
    assert [d["move"] for d in second["decisions"] if d["kind"] == "checker"] == [1, 2]
    assert report["warnings"] == [first["warning"]]


def test_an_illegal_sgf_move_stops_or_skips(tmp_path, bot):
    sgf = (DATA / "match3.sgf").read_text()
    at = sgf.index(";W[", sgf.index(";W[") + 1)  # White's second move
    end = sgf.index("]", at)
    bad = sgf[:at] + ";W[61aaaa" + sgf[end:]
    with pytest.raises(ReviewInputError, match=r"game 1, move \d+ \(line \d+: W\[61aaaa"):
        prepare(bad)
    source, games, _ = prepare(bad, skip=True)
    assert len(source.warnings) == 1 and "the rest of game 1 is not reviewed" in \
        source.warnings[0]
    assert games[0].winner is None and len(games) == len(parse_sgf(sgf).games)
    report = _review(bad, bot, skip=True)
    assert report["games"][0]["decisions"] and report["warnings"] == source.warnings


def test_met_values_a_match_with_the_table_given(bot, tmp_path):
    """--met kazaross-xg2 values the match's cube decisions on that table (the report
    names it, and the values move); a money file is the same whatever the table; a table
    shorter than the match, or a bad --met, is one line."""
    from gammon.engine.met import MatchEquityTable, named_met
    text = (DATA / "match3.mat").read_text()
    ours, theirs = _review(text, bot), _review(text, bot, met=named_met("kazaross-xg2"))
    assert ours["met"].startswith("engine.met") and theirs["met"] == "Kazaross XG2, 25 points"

    def cube_values(report):
        return [d["double_take"] for g in report["games"] for d in g["decisions"]
                if d["kind"] == "double"]
    a, b = cube_values(ours), cube_values(theirs)
    assert len(a) == len(b) > 3 and max(abs(x - y) for x, y in zip(a, b)) > 0.005
    money = (DATA / "money.mat").read_text()
    assert _review(money, bot)["players"] == _review(
        money, bot, met=named_met("kazaross-xg2"))["players"]
    short = MatchEquityTable(np.array([[np.nan, 1], [0, 0.5]]), np.array([1.0, 0.5]), "one")
    with pytest.raises(ReviewInputError, match="stops at 1"):
        prepare(text, met=short)
    path = tmp_path / "m.mat"
    path.write_text(text)
    assert "cannot read --met 'woolsey': No such file or directory (nor is it the name " \
        "of a table that ships: kazaross-xg2)" in _error(path, "--met", "woolsey")
    run = gammon("review", str(path), "--met", "kazaross-xg2", "--json", "--no-progress")
    assert run.returncode == 0 and json.loads(run.stdout)["met"] == "Kazaross XG2, 25 points"


def _rolled(path, *options):
    run = gammon("review", str(path), "--rollout", "--json", "--no-progress", *options)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.mark.parametrize("name", ["blunders.mat", "match3.mat"])
def test_rollouts_truncated_at_once_give_the_grading_losses(name, tmp_path):
    """--rollout --truncate 0 values every candidate by the net at once, cubeful at the
    cube and score of the moment: the same values the 0-ply grading used, so each marked
    decision's rollout loss and best play must be the 0-ply ones (money and a 3-point
    match: the MWC to EMG conversion included), and only the marked ones are rolled out."""
    path = tmp_path / name
    path.write_text(BLUNDERS if name == "blunders.mat" else (DATA / name).read_text())
    report = _rolled(path, "--trials", "2", "--truncate", "0", "--seed", "1")
    marked = [d for g in report["games"] for d in g["decisions"] if d["mark"]]
    assert len(marked) >= 3
    assert all("rollout" not in d for g in report["games"] for d in g["decisions"]
               if not d["mark"])
    for d in marked:
        r = d["rollout"]
        assert r["loss"] == pytest.approx(d["loss"], abs=1e-6), d  # float32 nets
        assert r["best"] == d["best"] and r["trials"] in (0, 2)
    assert report["rollout"] == {"trials": 2, "seed": 1, "truncate": 0, "vr": True,
                                 "cubeful": True}


def test_rollouts_of_the_blunders_confirm_them(tmp_path):
    """Real rollouts (36 trials, seed 1): passing the opening double's take and doubling
    at once are errors by rollout too; the same seed gives the same numbers; the text
    report tells the rollout under each marked decision."""
    path = tmp_path / "b.mat"
    path.write_text(BLUNDERS)
    first = _rolled(path, "--trials", "36", "--seed", "1")
    again = _rolled(path, "--trials", "36", "--seed", "1")
    assert first == again
    by_kind = {d["kind"]: d["rollout"] for g in first["games"] for d in g["decisions"]
               if d["mark"]}
    assert by_kind["take"]["loss"] > 0.8 and by_kind["take"]["best"] == "take"
    assert by_kind["double"]["loss"] > 0.1 and by_kind["double"]["best"].startswith("no double")
    assert all(r["se"] is not None and r["se"] > 0 and r["trials"] == 36
               for r in by_kind.values())
    text = gammon("review", str(path), "--rollout", "--trials", "36", "--seed", "1",
                  "--no-progress").stdout
    assert "marked decisions rolled out: 36 trials each, cubeful, seed 1" in text
    assert text.count("by rollout: loses ") == 3


def test_rollout_settings_need_rollout_and_a_match_needs_the_default_table(tmp_path):
    path = tmp_path / "m.mat"
    path.write_text((DATA / "match3.mat").read_text())
    assert "--trials is a rollout setting: add --rollout" in _error(path, "--trials", "36")
    assert "--seed is a rollout setting: add --rollout" in _error(path, "--seed", "3")
    assert "leave out --met" in _error(path, "--rollout", "--met", "kazaross-xg2")
    assert "--trials is a whole number from 1 to 1,000,000, got '0'" in \
        _error(path, "--rollout", "--trials", "0")
