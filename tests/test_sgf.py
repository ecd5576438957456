"""GNU Backgammon's SGF match files (engine/formats/sgf.py): files gnubg 1.07 wrote read to
the same moves and cube actions as the .mat files it exported of the same matches; our SGF
of recorded matches and sessions read back and (with gnubg installed) loaded by gnubg with
every move intact; `gammon match --save`, `gammon play`'s save; one-line errors for bad
files."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gammon.engine.cube import CubeRules
from gammon.engine.formats.matfile import (DOUBLE, DROP, PLAY, TAKE, Action, Game, Match,
                                    format_match, parse_match)
from gammon.engine.formats.record import PlayRecorder
from gammon.engine.formats.sgf import (MatchFileError, SgfError, crawford_games, format_sgf,
                                parse_sgf, read_match_file, read_sgf)
from gnubg_helpers import GNUBG, assert_same_games, run_gnubg

ROOT = Path(__file__).resolve().parent.parent
SGF = Path(__file__).parent / "data" / "sgf"  # written by tests/data/sgf/make_gnubg_sgf.py
FILES = sorted(p.stem for p in SGF.glob("*.sgf"))
needs_gnubg = pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not "
                                                       "installed (apt-get install gnubg)")


def cells(match: Match) -> list:
    """Every action of every game as the .mat file holds it, and every game's result."""
    return [[(a.player, a.kind, a.dice, a.play, a.cube) for a in g.actions]
            + [("result", g.winner, g.points)] for g in match.games]


# --- files GNU Backgammon wrote ------------------------------------------------------------


@pytest.mark.parametrize("name", FILES)
def test_gnubg_sgf_reads_as_its_mat_export(name):
    ours = parse_sgf((SGF / f"{name}.sgf").read_text())
    theirs = parse_match((SGF / f"{name}.mat").read_text())
    assert (ours.names, ours.length, ours.variant) == (theirs.names, theirs.length,
                                                       theirs.variant)
    assert cells(ours) == cells(theirs)
    assert read_match_file((SGF / f"{name}.sgf").read_text()) == ours
    assert read_match_file((SGF / f"{name}.mat").read_text()) == theirs


def test_the_gnubg_files_hold_what_they_should():
    """What tests/data/sgf/make_gnubg_sgf.py says of each file."""
    read = {name: read_sgf((SGF / f"{name}.sgf").read_text()) for name in FILES}
    assert set(read) == {"analysed", "match3", "match5_crawford", "money_cube",
                         "money_session", "nackgammon"}

    def kinds(name):
        return [a.kind for g in read[name].match.games for a in g.actions]

    m3 = read["match3"].match
    assert m3.length == 3 and [(g.winner, g.points) for g in m3.games] == [(0, 1), (0, 4)]
    assert m3.games[0].actions[-1].kind == DROP
    assert [a.cube for a in m3.games[1].actions if a.kind == DOUBLE] == [2, 4]
    assert any(a.kind == PLAY and a.play == "" for a in m3.games[0].actions)  # a dance
    assert m3.games[1].actions[-1].kind == PLAY  # then a resignation: RE[W+4R]
    assert "W+4R" in (SGF / "match3.sgf").read_text()
    crawford = read["match5_crawford"]
    assert crawford.crawford == [False, False, True, False]
    assert crawford_games(crawford.match) == crawford.crawford
    assert not any(a.kind == DOUBLE for a in crawford.match.games[2].actions)
    money = read["money_cube"]
    assert money.jacoby and money.match.length == 0 and kinds("money_cube").count(TAKE) == 2
    assert (money.match.games[0].winner, money.match.games[0].points) == (1, 8)
    assert len(read["money_session"].match.games) == 2
    assert read["money_session"].match.games[0].actions[-1].kind == DROP
    assert read["nackgammon"].match.variant == "nackgammon"
    assert read["analysed"].application.startswith("GNU Backgammon:1.07")
    assert (SGF / "analysed.sgf").read_text().count("DA[") >= 5  # gnubg's analysis kept


# --- our files -----------------------------------------------------------------------------


def recorded_money(games=8, seed=3, variant="standard", cube=None):
    from gammon.eval.playing.match import run_match
    recorder = PlayRecorder(variant)
    result = run_match("racer", "heuristic", games, seed=seed, variant=variant,
                       progress=False, cube=cube, on_play=recorder,
                       on_cube=recorder.cube if cube is not None else None)
    return recorder.match(("racer", "heuristic"), result.points, variant)


def recorded_match(length=5, seed=4, matches=2):
    from gammon.eval.bots.registry import make_bot
    from gammon.eval.playing.matchplay import matches_of, run_matches
    recorder = PlayRecorder()
    series = run_matches(make_bot("pubeval", 1), make_bot("heuristic", 2), matches, length,
                         seed, "standard", True, progress=False, recorder=recorder)
    return matches_of(recorder, series, ("pubeval", "heuristic"))


def with_endings(match: Match) -> Match:
    """The match with a resigned game and an unfinished game added (cut from its first)."""
    first = match.games[0]
    return Match(match.names, match.length,
                 [Game(first.actions[:21], winner=1, points=2), *match.games,
                  Game(first.actions[:9], None, 0)], match.variant)


@pytest.mark.parametrize("variant", ["standard", "nackgammon", "hypergammon"])
def test_our_sgf_reads_back_as_it_was_written(variant):
    cube = CubeRules(jacoby=True) if variant == "standard" else None
    match = with_endings(recorded_money(variant=variant, cube=cube))
    text = format_sgf(match, {"Site": "gammon match", "Seed": "3",
                              "EventDate": "2026.01.02"}, jacoby=cube is not None)
    back = read_sgf(text)
    assert back.jacoby == (cube is not None) and back.match.variant == variant
    assert back.match.names == match.names and cells(back.match) == cells(match)
    assert "RE[B+2R]" in text and "DT[2026-01-02]" in text and "PC[gammon match]" in text
    assert format_sgf(back.match, jacoby=back.jacoby) == format_sgf(match, jacoby=back.jacoby)


def test_matches_mark_their_crawford_game():
    for match in recorded_match():
        text = format_sgf(match)
        back = read_sgf(text)
        assert cells(back.match) == cells(match)
        assert back.crawford == crawford_games(match) and sum(back.crawford) <= 1
        assert text.count("RU[Crawford:CrawfordGame]") == sum(back.crawford)
    assert any(any(crawford_games(m)) for m in recorded_match())


def test_plays_in_other_notations_are_written_as_steps():
    """A .mat file of another program may combine steps (24/18/13) or count them (8/4(2)):
    such plays are read on the board and written as the steps of the legal play."""
    game = Game([Action(1, PLAY, (6, 5), "24/13"), Action(0, PLAY, (4, 4), "8/4(2) 6/2(2)"),
                 Action(1, PLAY, (3, 1), "8/5 6/5")])
    back = parse_sgf(format_sgf(Match(("a", "b"), 0, [game])))
    assert [sorted(a.play.split()) for a in back.games[0].actions] == [
        ["18/13", "24/18"], ["6/2", "6/2", "8/4", "8/4"], ["6/5", "8/5"]]
    with pytest.raises(SgfError, match="game 1, action 1"):  # no legal play of 6-5
        format_sgf(Match(("a", "b"), 0, [Game([Action(1, PLAY, (6, 5), "24/13/2")])]))


def test_the_match_command_saves_sgf(tmp_path):
    saved = tmp_path / "m.sgf"
    run = subprocess.run([sys.executable, "-m", "gammon.cli", "match", "racer", "heuristic",
                          "--cube", "--jacoby", "--games", "6", "--seed", "3", "--save",
                          str(saved), "--json", "--no-progress"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    back = read_sgf(saved.read_text())
    assert back.jacoby and len(back.match.games) == 6
    total = sum(g.points * (1 if g.winner == 0 else -1) for g in back.match.games)
    assert total == round(json.loads(run.stdout)["ppg_a"] * 6)
    series = tmp_path / "s.sgf"
    run = subprocess.run([sys.executable, "-m", "gammon.cli", "match", "pubeval", "racer",
                          "--match-to", "3", "--matches", "2", "--seed", "2", "--save",
                          str(series), "--no-progress"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    for number in (1, 2):
        match = parse_sgf((tmp_path / f"s_{number:04d}.sgf").read_text())
        assert match.length == 3 and max(match.total()) >= 3


def test_the_match_command_refuses_sgf_of_other_variants_before_playing(tmp_path):
    run = subprocess.run([sys.executable, "-m", "gammon.cli", "match", "racer", "heuristic",
                          "--variant", "caucasian", "--games", "2", "--save",
                          str(tmp_path / "c.sgf")],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 2 and "an SGF file holds standard backgammon" in run.stderr
    assert len(run.stderr.splitlines()) == 1 and not (tmp_path / "c.sgf").exists()


class Script:
    """A console answering the session's prompts from a function (as tests/test_play.py)."""

    def __init__(self, respond):
        self.respond, self.lines = respond, []

    def say(self, text: str = "") -> None:
        self.lines.append(text)

    def ask(self, prompt: str) -> str:
        self.lines.append(prompt)
        return self.respond(prompt)


def session_saved(tmp_path, name: str):
    """Three cubeful games against a bot that doubles whenever it may (and takes): the
    person takes twice then passes, and resigns the third game at once; saved to ``name``."""
    from gammon.engine.cube_policy import CubeBot
    from gammon.eval.bots.registry import make_bot
    from gammon.session import Session

    class AlwaysDoubles:
        def offer_double(self, boards, value, owner):
            return np.ones(len(boards), dtype=bool)

        def respond(self, boards, value, owner):
            return np.ones(len(boards), dtype=np.int8)

    state = {"answers": 0, "games": 1}

    def respond(prompt):
        if prompt.startswith("take or pass"):
            state["answers"] += 1
            return "take" if state["answers"] % 3 else "pass"
        if prompt.startswith("Another game"):
            state["games"] += 1
            return "y" if state["games"] <= 3 else "n"
        if prompt.startswith("Save"):
            return str(tmp_path / name)
        if prompt.startswith("Resign"):
            return "y"
        if prompt.startswith(("Your turn", "Your play")) and state["games"] == 3:
            return "resign"
        return {"Your turn": "double", "Your play": "auto"}.get(prompt.split(" (")[0], "")

    bot = CubeBot(make_bot("pubeval", 3), AlwaysDoubles(), "pubeval")
    session = Session(bot, "pubeval", Script(respond), np.random.default_rng(3),
                      cube_rules=CubeRules(), name="tester")
    assert session.run() == 0
    return session


def test_play_saves_sgf_when_the_name_says_so(tmp_path):
    session = session_saved(tmp_path, "s.sgf")
    text = (tmp_path / "s.sgf").read_text()
    back = read_sgf(text)
    assert not back.jacoby and back.match.names == ("tester", "pubeval")
    assert cells(back.match) == cells(session.match)
    kinds = [a.kind for g in back.match.games for a in g.actions]
    assert DOUBLE in kinds and TAKE in kinds and DROP in kinds
    assert "R]" in text  # the resignation
    assert any("GNU Backgammon: load match" in line for line in session.console.lines)


@needs_gnubg
def test_gnubg_loads_our_sgf_with_every_move_intact(tmp_path):
    """gnubg 1.07 loads our SGF (``load match``) and exports it as .mat: the same plays,
    cube actions, winners and points, game by game: money games under the Jacoby rule with
    a resignation and an unfinished game, matches with their Crawford games, Nackgammon,
    and a session of `gammon play`."""
    cases = {"money": (with_endings(recorded_money(cube=CubeRules(jacoby=True))), True),
             "nackgammon": (recorded_money(games=4, variant="nackgammon"), False)}
    for k, match in enumerate(recorded_match(), 1):
        cases[f"match{k}"] = (match, False)
    session = session_saved(tmp_path, "session.sgf")
    cases["session"] = (session.match, False)
    script = []
    for name, (match, jacoby) in cases.items():
        if name != "session":
            (tmp_path / f"{name}.sgf").write_text(format_sgf(match, jacoby=jacoby))
        script += [f"load match {tmp_path / f'{name}.sgf'}",
                   f"export match mat {tmp_path / f'{name}.back.mat'}"]
    output = run_gnubg(script, tmp_path, timeout=300)
    for word in ("rror", "nvalid", "llegal", "nrecognised"):
        assert word not in output, output[-3000:]
    moves = 0
    for name, (match, _) in cases.items():
        theirs = parse_match((tmp_path / f"{name}.back.mat").read_text())
        assert theirs.length == match.length and theirs.names == match.names, name
        assert_same_games(match, theirs)
        moves += sum(len(g.actions) for g in match.games)
    assert moves > 500


@needs_gnubg
def test_gnubg_reads_the_crawford_game_we_mark(tmp_path):
    """gnubg says which game it takes for the Crawford game of our file: the one we mark."""
    match = next(m for m in recorded_match() if any(crawford_games(m)))
    path = tmp_path / "c.sgf"
    path.write_text(format_sgf(match))
    number = crawford_games(match).index(True) + 1
    assert number > 1
    script = [f"load match {path}", "first game"]
    script += ["next game"] * (number - 2) + ["show crawford", "next game", "show crawford"]
    output = run_gnubg(script, tmp_path)
    said = [line for line in output.splitlines() if line.startswith("This game is")]
    assert said[-2:] == ["This game is not the Crawford game",
                         "This game is the Crawford game."], output[-2000:]


# --- bad input ---------------------------------------------------------------------------


def one_line_error(text: str, message: str, reader=parse_sgf) -> str:
    with pytest.raises(MatchFileError) as caught:
        reader(text)
    error = str(caught.value)
    assert isinstance(caught.value, ValueError) and "\n" not in error
    assert message in error, error
    return error


def test_truncated_files():
    text = (SGF / "match3.sgf").read_text()
    second = text.index("(;", 10)
    one_line_error(text[:text.index("\n;W[43liie]")],
                   "truncated SGF: game tree 1 (line 1) is not closed")
    one_line_error(text[:text.index("PW[") + 5], "truncated SGF: the value of PW that starts "
                                                  "at line 1 never ends")
    one_line_error(text[:text.index("\n;B[65aggl]", second)], "truncated SGF: game tree 2 "
                                                               "(line 39) is not closed")
    one_line_error("", "empty file")
    one_line_error("   \n", "empty file")


def test_unknown_formats():
    one_line_error("hello world", "not an SGF file: it starts with 'hello world'")
    one_line_error((SGF / "match3.mat").read_text(), "not an SGF file")
    one_line_error("(;FF[4]GM[1]SZ[19];B[pd];W[dp])", "GM[1] is Go")
    one_line_error("(;FF[4]SZ[19];B[pd])", "GM[1] is Go")  # SGF's default game
    one_line_error("{\"a\": 1}", "unknown format", read_match_file)
    one_line_error("", "empty file", read_match_file)
    text = (SGF / "match3.sgf").read_text()
    one_line_error(text + "garbage", "expected '(' or the end")


def replaced(name: str, old: str, new: str, count: int = 1) -> str:
    text = (SGF / f"{name}.sgf").read_text()
    assert old in text
    return text.replace(old, new, count)


def test_an_illegal_move_is_named_with_its_place():
    # match3, game 1, move 2 is W[52mhxv] (13/8 24/22): 24/21 is no 2
    error = one_line_error(replaced("match3", ";W[52mhxv]", ";W[52mhxu]"),
                           "game 1, move 2 (line 3: W[52mhxu]): 52: 13/8 24/21:")
    assert "line 3" in error
    # a move by the wrong player: the second game's first move again
    text = (SGF / "match3.sgf").read_text()
    second = text.index("(;", 10)
    first_move = text.index("\n;", second)
    bad = text[:first_move] + "\n;W[63xrro]" + text[first_move:]
    one_line_error(bad, "game 2, move 2 (line ")
    one_line_error(bad, "it is B's turn")
    one_line_error(replaced("match3", ";B[21lnab]", ";B[21lnzb]"), "cannot move from the "
                                                                   "bearoff tray")
    one_line_error(replaced("match3", ";B[21lnab]", ";B[21lnay]"), "cannot move to the bar")
    one_line_error(replaced("match3", ";B[21lnab]", ";B[21lna]"), "game 1, move 1")
    one_line_error(replaced("match3", ";B[21lnab]", ";B[resign]"), "a move is two dice")
    one_line_error(replaced("match3", ";B[drop]", ";B[double]"), "a beaver")
    one_line_error(replaced("match3", ";W[double]", ";B[double]"), "only the player on roll "
                                                                   "may double")
    one_line_error(replaced("match3", ";B[drop]", ";B[drop]\n;W[63xrro]"),
                   "the game is already over (drop)")


def test_the_file_must_agree_with_itself():
    """An SGF file has no checksum, but says some things twice: the result (RE) and what
    the moves give; the score before each game (MI) and what the games before it give; the
    Crawford game (RU) and the doubles in it. A result stated otherwise than the moves is
    read as GNU Backgammon reads it, with a warning saying which number is used."""
    found = read_sgf(replaced("match3", "RE[W+1]", "RE[B+1]"))
    assert found.warnings == ["game 1: RE[B+1] says B wins 1, the moves say W wins 1 (drop): "
                              "1 for W is used"]
    assert (found.match.games[0].winner, found.match.games[0].points) == (0, 1)
    found = read_sgf(replaced("match3", "RE[W+4R]", "RE[W+5R]"))
    assert found.warnings == ["game 2: RE[W+5R]: a resignation wins 1, 2 or 3 times the cube "
                              "(4), not 5: 4 is used"]  # gnubg: 5 // 4 = 1 time the cube
    assert found.match.games[1].points == 4
    found = read_sgf(replaced("match3", "RE[W+4R]", "RE[W+40R]"))
    assert found.match.games[1].points == 12 and "40: 12 is used" in found.warnings[0]
    one_line_error(replaced("match3", "[ws:1][bs:0]", "[ws:0][bs:1]"),
                   "game 2: MI says the score before it is W 0, B 1; the games before it add "
                   "up to W 1, B 0")
    one_line_error(replaced("match3", "RE[W+4R]", "RE[W+4R]RU[Crawford:CrawfordGame]"),
                   "no doubling in the Crawford game")
    one_line_error(replaced("match3", "RE[W+1]", "RE[W wins]"), "a result is W+N or B+N")
    one_line_error(replaced("match3", "MI[length:3][game:1]", "MI[length:5][game:1]"),
                   "one file holds one match")
    # checkers set up before the first move: a set-up position, which must be one
    one_line_error(replaced("match3", ";B[21lnab]", ";AB[a]B[21lnab]"),
                   "game 1 (line 2): AB[...] sets up the position: the position set up has 16 "
                   "Black checkers, more than the 15 of standard")
    one_line_error(replaced("match3", ";B[21lnab]", ";AB[aa]B[21lnab]"),
                   "[aa] is no point: a point is a letter a-x, y the bar")
    one_line_error(replaced("match3", ";W[52mhxv]", ";AB[a]W[52mhxv]"),
                   "game 1 (line 3): AB[...] sets up checkers after move 1")
    one_line_error(replaced("match3", ";W[52mhxv]", ";CV[2]W[52mhxv]"), "sets the cube to 2")


def test_bad_mat_files_through_read_match_file():
    text = (SGF / "match3.mat").read_text().replace("13/8 24/22", "13/8 24/21")
    one_line_error(text, ".mat file: game 1, action 2", read_match_file)


def test_the_writer_refuses_what_sgf_cannot_hold():
    match = Match(("a", "b"), 0, [Game([Action(1, PLAY, (3, 1), "8/5 6/5")])], "caucasian")
    with pytest.raises(SgfError, match="not caucasian"):
        format_sgf(match)
    assert format_match(match)  # a .mat file takes it
