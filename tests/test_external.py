"""FIBS board lines and `gammon serve-external`: orientation, answers, errors, the socket
server, the command, and (with GNU Backgammon installed) a whole gnubg match against it."""

import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from gammon.engine.rules import start_boards
from gammon.engine.cube import CubeRules
from gammon.engine.formats.fibs import format_board, parse_board
from gammon.engine.formats.matfile import parse_match, replay
from gammon.engine.movegen import legal_plays
from gammon.engine.formats.notation import parse_play
from gammon.eval.bots.registry import make_bot
from gammon.external import ExternalPlayer, listen, serve
from gnubg_helpers import GNUBG, run_gnubg

ROOT = Path(__file__).resolve().parent.parent

# Lines GNU Backgammon 1.07 sent to an external player (with the NUL its writes end with).
START_31 = ("board:gnubg:root:5:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
            "1:3:1:3:1:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
AS_PLAYER_0 = ("\x00board:gnubg:root:5:0:0:0:-2:0:0:0:2:4:0:2:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:"
               "2:0:-1:4:3:4:3:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
BEFORE_ROLL = ("\x00board:gnubg:root:5:0:0:0:-1:0:0:-1:2:4:0:2:0:0:0:-4:5:0:0:-1:-3:0:-5:0:0:0:"
               "0:2:0:1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
DOUBLED = ("\x00board:root:gnubg:5:0:0:0:0:1:0:-2:4:2:0:3:-2:0:2:-2:3:0:0:0:-2:0:-3:-2:-2:0:0:"
           "0:0:1:0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:1")


@pytest.fixture(scope="module")
def player():
    return ExternalPlayer(make_bot("pubeval", 1, "standard", cube="auto", rules=CubeRules()))


def _legal(board, dice, answer: str) -> int:
    """The row of the legal plays the answer makes (parse_play raises when it is illegal)."""
    return parse_play(answer, board, dice[0], dice[1])


def test_gnubg_lines_are_read_from_the_side_that_acts(player):
    state = parse_board(START_31)
    assert (state.board == start_boards(1)[0]).all() and state.dice == (3, 1)
    # the server was gnubg's player 1 ("root"); the turn field 1: our pair second
    assert state.names == ("root", "gnubg") and state.match_length == 5
    assert not state.doubled and state.cube_owner == 0
    assert player.answer(START_31) == "8/5 6/5"  # pubeval's choice, in gnubg's plain steps
    # the external player as gnubg's player 0: X, moving the other way round the line
    state = parse_board(AS_PLAYER_0)
    start = start_boards(1)[0]
    assert (np.maximum(state.board, 0) == np.maximum(start, 0)).all()  # X has not moved
    assert state.board[20] == -2 and state.board[19] == -4  # O opened 8/5 6/5
    assert state.dice == (4, 3)
    _legal(state.board, state.dice, player.answer(AS_PLAYER_0))
    assert parse_board(BEFORE_ROLL).dice == (0, 0) and player.answer(BEFORE_ROLL) == "roll"
    state = parse_board(DOUBLED)
    assert state.doubled and state.names == ("gnubg", "root")
    assert player.answer(DOUBLED) in ("take", "drop")


def _bar_position():
    """Our checker on the bar against a home board closed but for our 22-point entry."""
    board = np.zeros(26, np.int8)
    board[25], board[6] = 1, 14
    board[[19, 20, 21, 23, 24]] = -2
    board[1] = -5
    return board


def _bear_off_position():
    board = np.zeros(26, np.int8)
    board[[6, 5, 4, 3, 2, 1]] = [2, 3, 3, 2, 2, 1]
    board[[20, 22, 24]] = [-5, -5, -5]
    return board


@pytest.mark.parametrize("board, dice", [(_bar_position(), (6, 3)), (_bear_off_position(), (6, 5)),
                                         (start_boards(1)[0], (6, 6))])
def test_answers_are_legal_in_every_orientation(player, board, dice):
    answers = set()
    for colour in (1, -1):
        for direction in (-1, 1):
            for from_opponent in (False, True):
                line = format_board(board, dice, colour=colour, direction=direction,
                                    from_opponent=from_opponent)
                answers.add(player.answer(line))
    assert len(answers) == 1  # the same play, however the line numbers the board
    (answer,) = answers
    row = _legal(board, dice, answer)
    plays = legal_plays(board[None], np.array([dice]))
    assert row == int(player.bot.choose(plays, board[None], np.array([dice]))[0])
    if board[25]:
        assert answer == "25/22 22/16"  # the only play: enter with the 3, then the 6


def test_no_play_is_an_empty_line_and_doubles_are_answered(player):
    board = _bar_position()
    assert player.answer(format_board(board, (6, 6))) == ""  # cannot enter
    assert player.answer(format_board(board, (0, 0), doubled=True)) in ("take", "drop")
    race = _bear_off_position()  # a race far ahead (pubeval's cube: the Keith count)
    race[[20, 22, 24]] = 0
    race[[7, 8, 9]] = -5
    assert player.answer(format_board(race, (0, 0))) == "double"
    assert player.answer(format_board(-race[::-1], (0, 0), doubled=True)) == "drop"
    assert player.answer(format_board(race, (0, 0), cube_owner=-1)) == "roll"  # not ours
    assert player.answer(format_board(race, (0, 0), crawford=True, match_length=5,
                                      score=(4, 0))) == "roll"


@pytest.mark.parametrize("line, reason", [
    ("hello", "expected a FIBS board line"),
    ("board:a:b:0:0:0", "at least 52 fields"),
    (START_31.replace(":-2:", ":x:", 1), "not a whole number"),
    (START_31.replace(":5:0:3:", ":9:0:3:", 1), "impossible position"),
    (START_31.replace(":1:3:1:3:", ":1:7:1:7:", 1), "dice must be 1..6"),
])
def test_malformed_lines_get_an_error_reply(player, line, reason):
    answer = player.answer(line)
    assert answer.startswith("Error: ") and reason in answer


def _client(port: int, lines: list[str]) -> list[str]:
    """Send lines as gnubg does (newline, then a NUL) and read one answer line each."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        reader = conn.makefile("r")
        answers = []
        for line in lines:
            conn.sendall(line.encode() + b"\n\x00")
            answers.append(reader.readline().rstrip("\n"))
        return answers


def test_server_serves_connections_in_turn_and_survives_bad_lines(player):
    server = listen("127.0.0.1", 0)
    port = server.getsockname()[1]
    stop = threading.Event()
    thread = threading.Thread(target=serve, args=(server, player.answer), kwargs={"stop": stop})
    thread.start()
    try:
        first = _client(port, ["nonsense", START_31, "board:1:2", START_31])
        assert first[0].startswith("Error:") and first[2].startswith("Error:")
        assert first[1] == first[3] == "8/5 6/5"
        assert _client(port, [START_31]) == ["8/5 6/5"]  # a second connection, served too
    finally:
        stop.set()
        thread.join(timeout=10)
        server.close()
    assert not thread.is_alive()


def _start_command(*args):
    proc = subprocess.Popen([sys.executable, "-m", "gammon.cli", "serve-external", "--port", "0",
                             *args], stderr=subprocess.PIPE, text=True, cwd=ROOT)
    line = proc.stderr.readline()
    found = re.search(r"on 127\.0\.0\.1:(\d+)", line)
    assert found, line
    return proc, int(found.group(1))


def _end(proc) -> None:
    """Kill a command a failed test left running."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    proc.stderr.close()


def test_command_answers_and_stops_after_its_connections():
    proc, port = _start_command("--bot", "pubeval", "--connections", "1", "--quiet")
    try:
        assert _client(port, [START_31]) == ["8/5 6/5"]
        assert proc.wait(timeout=30) == 0
    finally:
        _end(proc)


def test_ctrl_c_stops_the_command_cleanly():
    """Also when started from a background job, which inherits SIGINT ignored: the
    server installs its own handler while it serves."""
    proc, port = _start_command("--bot", "random", "--seed", "1")
    try:
        assert _client(port, ["hello"])[0].startswith("Error:")
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
        rest = proc.stderr.read()
        assert "stopped" in rest and "Traceback" not in rest
    finally:
        _end(proc)


def test_the_default_bot_is_the_shipped_net():
    from gammon.cli import build_parser
    assert build_parser().parse_args(["serve-external", "--port", "0"]).bot == "net:"
    assert build_parser().parse_args(["serve-http"]).bot == "net:"


@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")
def test_gnubg_plays_a_match_against_the_server(tmp_path, player):
    """gnubg (0-ply, cube on) against pubeval through the server: a 3-point match to the
    end; every play of the exported match replays legally, no error on either side."""
    server = listen("127.0.0.1", 0)
    port = server.getsockname()[1]
    answers = []

    def answer(line):
        reply = player.answer(line)
        answers.append(reply)
        return reply

    thread = threading.Thread(target=serve, args=(server, answer), kwargs={"connections": 1})
    thread.start()
    exported = tmp_path / "match.mat"
    try:
        output = run_gnubg(["set player 0 gnubg", "set player 0 chequerplay evaluation plies 0",
                            "set player 0 cubedecision evaluation plies 0",
                            f"set player 1 external 127.0.0.1:{port}", "set cube use on",
                            "set seed 9", "new match 3", f"export match mat {exported}"],
                           tmp_path)
    finally:
        thread.join(timeout=30)
        server.close()
    assert "has won the match" in output, output[-2000:]
    assert "Error" not in output and "badly formed" not in output
    assert answers and not any(a is None or a.startswith("Error") for a in answers)
    match = parse_match(exported.read_text())
    for number, game in enumerate(match.games, 1):
        end = replay(game, number=number)  # raises at an illegal play
        assert end.winner is not None
    assert sum(g.points for g in match.games if g.winner is not None) >= 3


class Listener:
    """A bot for tests: pubeval's plays, always doubles, always takes; keeps the scores it
    is told before each decision (None between them)."""

    def __init__(self):
        self.inner = make_bot("pubeval", 1)
        self.told = []

    def observe_score(self, score):
        self.told.append(score)

    def choose(self, plays, boards, dice):
        return self.inner.choose(plays, boards, dice)

    def offer_double(self, boards, value, owner):
        return np.ones(len(boards), dtype=bool)

    def respond(self, boards, value, owner):
        return np.ones(len(boards), dtype=np.int8)


def test_the_bot_is_told_the_match_score_from_the_deciding_side():
    from gammon.engine.formats.fibs import format_board
    from gammon.engine.rules import start_boards
    bot = Listener()
    ext = ExternalPlayer(bot)
    board = start_boards(1)[0]
    # our play at 2-4 in a 7-point match, the Crawford game
    assert ext.answer(format_board(board, (3, 1), score=(2, 4), match_length=7,
                                   crawford=True))
    seen = bot.told[-2]
    assert (int(seen.away[0]), int(seen.opp_away[0]), bool(seen.crawford[0])) == (5, 3, True)
    assert bot.told[-1] is None  # money play again after the answer
    # a double to answer: judged from the doubler's side (he has 4 points, we 2)
    assert ext.answer(format_board(board, score=(2, 4), match_length=7, doubled=True,
                                   cube=2, cube_owner=-1)) == "take"
    seen = bot.told[-2]
    assert (int(seen.away[0]), int(seen.opp_away[0]), int(seen.cube[0])) == (3, 5, 2)
    # money play: no score
    ext.answer(format_board(board, (3, 1)))
    assert bot.told[-2] is None
    # a score the match cannot have is a badly formed board
    reply = ext.answer(format_board(board, (3, 1), score=(7, 2), match_length=7))
    assert reply.startswith("Error: badly formed board") and "over" in reply


@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")
def test_gnubg_matches_through_the_server_are_checked_and_reported(tmp_path, monkeypatch):
    """eval.gnubg.external_matches: gnubg 0-ply against the shipped net, two matches to 3,
    through `gammon serve-external` run as a child process; every answer legal, both
    matches won by someone, the report adds up (the answers counted by the server's last
    line). A bot the server refuses is a one-line error; gnubg past its time too, and the
    server is ended with it."""
    from gammon.eval.gnubg.external_matches import ServerError, run as run_matches
    report = run_matches("net:", 2, 3, 4, tmp_path)
    assert report["problems"] == [], report["problems"]
    assert report["wins_ours"] + report["wins_gnubg"] == 2 and report["server_errors"] == 0
    assert report["games"] >= 2 and report["server_answers"] > 50
    assert len(list(tmp_path.glob("match_*.mat"))) == 2
    with pytest.raises(ServerError, match="unknown bot 'nosuchbot'") as failed:
        run_matches("nosuchbot", 1, 1, 4, tmp_path / "none")
    assert "\n" not in str(failed.value) and "exit status 2" in str(failed.value)
    # gnubg past its time: the error says so, and the server is ended with it
    from gammon.eval.gnubg import external_matches
    from gammon.eval.gnubg.driver import GnubgError
    started = []

    class Watched(external_matches.Server):
        def __enter__(self):
            started.append(self)
            return super().__enter__()

    monkeypatch.setattr(external_matches, "Server", Watched)
    with pytest.raises(GnubgError, match="timed out"):
        run_matches("pubeval", 50, 5, 4, tmp_path / "late", timeout=1)
    assert len(started) == 1 and started[0].proc.poll() is not None


@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")
@pytest.mark.parametrize("seat", [0, 1])
def test_the_score_of_every_line_is_the_score_of_gnubgs_own_record(tmp_path, seat):
    """The server as gnubg's player 0 and as player 1 in a 5-point match: the score read
    from every line gnubg sends (ours first) is the score of the game it belongs to in
    the .mat file gnubg exports, game after game."""
    ext = ExternalPlayer(make_bot("pubeval", 1, "standard", cube="auto", rules=CubeRules()))
    scores = []

    def answer(line):
        if line.strip("\x00\n "):
            scores.append(parse_board(line.strip("\x00\n ").split(" ")[0]).score)
        return ext.answer(line)

    server = listen("127.0.0.1", 0)
    port = server.getsockname()[1]
    thread = threading.Thread(target=serve, args=(server, answer), kwargs={"connections": 1})
    thread.start()
    exported = tmp_path / "match.mat"
    other = 1 - seat
    try:
        output = run_gnubg([f"set player {other} gnubg",
                            f"set player {other} chequerplay evaluation plies 0",
                            f"set player {other} cubedecision evaluation plies 0",
                            f"set player {seat} external 127.0.0.1:{port}", "set cube use on",
                            f"set seed {3 + seat}", "new match 5", f"export match mat {exported}"],
                           tmp_path)
    finally:
        thread.join(timeout=30)
        server.close()
    assert "has won the match" in output, output[-2000:]
    match = parse_match(exported.read_text())
    assert len(match.games) >= 2
    # the .mat columns are gnubg's players 0 and 1: ours is column ``seat``
    starts = [(s[seat], s[other]) for s in match.scores()]
    seen = [scores[0]] + [b for a, b in zip(scores, scores[1:]) if b != a]
    assert seen == starts
