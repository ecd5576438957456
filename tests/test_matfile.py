"""Jellyfish .mat files: gnubg's layout, reading gnubg's own export, replaying, recording a
match, `gammon match --save`, and (with GNU Backgammon installed) `import mat` for real."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gammon.engine.rules import start_boards
from gammon.engine.formats.matfile import (DOUBLE, PLAY, TAKE, Action, Game, Match, format_match,
                            parse_match, replay)
from gammon.engine.movegen import legal_plays
from gammon.engine.formats.notation import parse_play
from gammon.engine.formats.record import PlayRecorder
from gammon.eval.playing.match import run_match
from gnubg_helpers import GNUBG, assert_same_games, import_and_export

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parent.parent


def _recorded(games=4, seed=3, a="pubeval", b="random", variant="standard"):
    recorder = PlayRecorder()
    result = run_match(a, b, games, seed=seed, variant=variant, progress=False,
                       on_play=recorder, chunk=2)
    return recorder.match((a, b), result.points, variant), result


def test_gnubg_layout_of_rows_cube_actions_and_wins():
    game = Game([Action(1, PLAY, (3, 1), "8/5 6/5"), Action(0, DOUBLE, cube=2),
                 Action(1, TAKE), Action(0, PLAY, (6, 4), "24/18 13/9"),
                 Action(1, PLAY, (6, 6), "")], winner=1, points=2)
    text = format_match(Match(("alice", "bob"), 0, [game]))
    lines = text.splitlines()
    assert lines[0] == '; [Variation "Backgammon"]' and lines[2] == " 0 point match"
    assert " Game 1" in lines
    assert " alice : 0                      bob : 0" in lines
    assert "  1)                             31: 8/5 6/5 " in lines  # bob starts: empty left
    assert "  2)  Doubles => 2                Takes" in lines
    assert "  3) 64: 24/18 13/9              66: " in lines
    assert " " * 34 + "Wins 2 points" in lines  # the right player wins (a resignation here)


def test_reads_gnubg_export_and_replays_it():
    """A 3-point match exported by GNU Backgammon 1.07: a dropped double, then a redouble
    and a resignation after the last roll."""
    match = parse_match((DATA / "gnubg_3point.mat").read_text())
    assert match.names == ("gnubg", "root") and match.length == 3 and len(match.games) == 2
    first, second = (replay(g, number=i) for i, g in enumerate(match.games, 1))
    assert (first.winner, first.points, first.ended_by) == (0, 1, "drop")
    assert (second.winner, second.points, second.ended_by) == (0, 4, "resignation")
    assert second.cube == 4
    kinds = [a.kind for a in match.games[1].actions]
    assert kinds.count(DOUBLE) == 2 and kinds.count(TAKE) == 2


def test_recorded_games_round_trip_and_replay():
    match, result = _recorded()
    again = parse_match(format_match(match))
    assert again.names == match.names and len(again.games) == len(match.games) == 4
    for number, (game, back) in enumerate(zip(match.games, again.games), 1):
        assert [(a.player, a.kind, a.dice, a.play) for a in back.actions] == \
            [(a.player, a.kind, a.dice, a.play) for a in game.actions]
        end = replay(back, number=number)
        assert end.ended_by == "bear-off"
        assert (1 if end.winner == 0 else -1) * end.points == result.points[number - 1]


def test_replay_names_the_first_illegal_action():
    match, _ = _recorded(games=2)
    game = match.games[0]
    k = next(i for i, a in enumerate(game.actions) if a.kind == PLAY and a.play)
    bad = Game(list(game.actions))
    bad.actions[k] = Action(game.actions[k].player, PLAY, game.actions[k].dice, "24/1")
    with pytest.raises(ValueError, match=f"game 1, action {k + 1}"):
        replay(bad)
    with pytest.raises(ValueError, match="turn"):
        replay(Game([game.actions[0], game.actions[0]]))
    with pytest.raises(ValueError, match="no double to answer"):
        replay(Game([game.actions[0], Action(game.actions[0].player, TAKE)]))
    with pytest.raises(ValueError, match="out of turn"):
        format_match(Match(("a", "b"), 0, [Game([Action(0, PLAY, (3, 1), "8/5 6/5"),
                                                 Action(0, PLAY, (3, 1), "8/5 6/5")])]))


def test_recorder_finds_the_played_results():
    boards, roll = start_boards(2), np.array([[3, 1], [6, 6]])
    plays = legal_plays(boards, roll)
    chosen = [int(np.flatnonzero(plays.root == 0)[0]), int(np.flatnonzero(plays.root == 1)[-1])]
    recorder = PlayRecorder()
    recorder(np.array([5, 9]), np.array([1, 0]), boards, roll, plays.boards[chosen])
    for game, player, k in ((5, 1, 0), (9, 0, 1)):
        (action,) = recorder.actions[game]
        assert action.player == player and action.dice == tuple(sorted(roll[k], reverse=True))
        own = legal_plays(boards[k][None], roll[k][None])
        row = parse_play(action.play, boards[k], action.dice[0], action.dice[1], own)
        assert (own.boards[row] == plays.boards[chosen[k]]).all()


def test_match_command_saves_every_game(tmp_path):
    saved = tmp_path / "m.mat"
    run = subprocess.run([sys.executable, "-m", "gammon.cli", "match", "pubeval", "random",
                          "--games", "4", "--seed", "5", "--save", str(saved), "--json",
                          "--no-progress"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    match = parse_match(saved.read_text())
    assert match.names == ("pubeval", "random") and len(match.games) == 4
    import json
    report = json.loads(run.stdout)
    total = sum(replay(g, number=i).points * (1 if g.winner == 0 else -1)
                for i, g in enumerate(match.games, 1))
    assert total == round(report["ppg_a"] * 4)


@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")
@pytest.mark.parametrize("variant", ["standard", "nackgammon", "hypergammon"])
def test_gnubg_imports_our_file_and_exports_the_same_games(tmp_path, variant):
    match, _ = _recorded(games=4, seed=8, variant=variant)
    ours = tmp_path / "ours.mat"
    ours.write_text(format_match(match, {"Site": "gammon match", "Seed": "8",
                                         "EventDate": "2026.01.02"}))
    theirs, output = import_and_export(ours, tmp_path)
    assert "invalid" not in output.lower() and "unrecognised" not in output.lower(), output
    assert_same_games(match, theirs)


def _cubeful_saved(tmp_path, extra=()):
    saved = tmp_path / "cube.mat"
    run = subprocess.run([sys.executable, "-m", "gammon.cli", "match", "racer", "heuristic",
                          "--cube", "--games", "40", "--seed", "3", "--save", str(saved),
                          "--json", "--no-progress", *extra],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    return saved, run


def test_cubeful_match_saves_its_cube_actions(tmp_path):
    import json
    saved, run = _cubeful_saved(tmp_path)
    assert run.returncode == 0, run.stderr
    match = parse_match(saved.read_text())
    report = json.loads(run.stdout)
    assert len(match.games) == 40
    kinds = [a.kind for g in match.games for a in g.actions]
    assert kinds.count(DOUBLE) == report["cube"]["offers_a"] + report["cube"]["offers_b"] > 0
    total = 0
    for number, game in enumerate(match.games, 1):
        end = replay(game, number=number)  # raises at an illegal play or cube action
        total += end.points * (1 if game.winner == 0 else -1)
    assert total == round(report["ppg_a"] * 40)


def test_beavers_cannot_be_saved(tmp_path):
    _, run = _cubeful_saved(tmp_path, ["--beavers"])
    assert run.returncode == 2 and "beavers" in run.stderr and "Traceback" not in run.stderr


@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")
def test_gnubg_imports_a_cubeful_match(tmp_path):
    saved, run = _cubeful_saved(tmp_path)
    assert run.returncode == 0, run.stderr
    ours = parse_match(saved.read_text())
    theirs, output = import_and_export(saved, tmp_path)
    assert "invalid" not in output.lower(), output
    assert_same_games(ours, theirs)
