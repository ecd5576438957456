"""`gammon play`: a whole game driven through stdin, commands, bad input, the cube, dice by
hand, resigning, saving, and the end of input."""

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from gammon.engine.cube import CubeRules
from gammon.engine.formats.matfile import DOUBLE, DROP, PLAY, TAKE, Game, parse_match, replay
from gammon.engine.game import new_games
from gammon.eval.bots.simple import PubevalBot
from gammon.eval.bots.registry import make_bot
from gammon.console import Console, EndOfInput
from gammon.session import Session
from gnubg_helpers import GNUBG, assert_same_games, import_and_export

ROOT = Path(__file__).resolve().parent.parent


class Driver:
    """Runs `gammon play` in a subprocess and answers its prompts (lines ending '> ')."""

    def __init__(self, *args):
        self.proc = subprocess.Popen([sys.executable, "-m", "gammon.cli", "play", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=ROOT)
        self.transcript = ""

    def prompt(self, timeout: float = 30) -> str | None:
        """The next prompt's last line, or None when the program ended."""
        out = self.proc.stdout.fileno()
        buffer, deadline = "", time.monotonic() + timeout
        while not buffer.endswith("> "):
            ready, _, _ = select.select([out], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise TimeoutError(f"no prompt; last output: {buffer[-500:]!r}")
            chunk = os.read(out, 65536).decode()
            if not chunk:
                self.transcript += buffer
                return None
            buffer += chunk
        self.transcript += buffer
        return buffer.rsplit("\n", 1)[-1]

    def send(self, text: str) -> None:
        self.transcript += text + "\n"
        self.proc.stdin.write((text + "\n").encode())
        self.proc.stdin.flush()


def test_a_whole_game_through_stdin(tmp_path):
    """Bad input, an illegal play, a hint, an undo, then the bot's choices ('auto') to the
    end; no other game; saved as a .mat file that replays legally."""
    saved = tmp_path / "game.mat"
    driver = Driver("--seed", "11", "--bot", "pubeval", "--name", "tester")
    first = ["nonsense", "24/1", "hint 3", "auto", "UNDO", "auto", ""]
    prompts = 0
    while (prompt := driver.prompt()) is not None:
        prompts += 1
        assert prompts < 2000, "the game does not end"
        if prompt.startswith(("Your play", "Enter to confirm")):
            driver.send(first.pop(0) if first else ("auto" if prompt.startswith("Your") else ""))
        elif prompt.startswith("Another game"):
            driver.send("n")
        elif prompt.startswith("Save the match"):
            driver.send(str(saved))
        else:
            raise AssertionError(f"unexpected prompt {prompt!r}")
    assert driver.proc.wait(timeout=30) == 0, driver.proc.stderr.read().decode()
    out = driver.transcript
    assert "Unknown command 'nonsense'" in out
    assert "Not a legal play: the dice" in out and "cannot move a checker 24/1" in out
    assert "pubeval's best plays for your roll" in out
    assert "Taken back." in out
    assert "X to play" in out and "pips" in out
    assert "Final score: tester" in out and "(1 game played)" in out
    assert "Traceback" not in out
    match = parse_match(saved.read_text())
    assert match.names == ("tester", "pubeval") and len(match.games) == 1
    game = match.games[0]
    result = replay(game)
    assert result.ended_by == "bear-off" and game.winner == result.winner
    left, right = match.total()
    assert f"Final score: tester {left}, pubeval {right}" in out


def test_end_of_input_leaves_cleanly():
    run = subprocess.run([sys.executable, "-m", "gammon.cli", "play", "--seed", "2"],
                         input="board\n", capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 0
    # the default bot is now the shipped net (net:), not pubeval
    assert "End of input. Final score: human 0, net: 0" in run.stdout
    assert "Traceback" not in run.stdout + run.stderr


class Script(Console):
    """A console answering prompts from a function of the prompt; output kept as text."""

    def __init__(self, respond):
        self.respond, self.lines = respond, []

    def say(self, text: str = "") -> None:
        self.lines.append(text)

    def ask(self, prompt: str) -> str:
        self.lines.append(prompt)
        answer = self.respond(prompt)
        if answer is None:
            raise EndOfInput
        self.lines.append(answer)
        return answer

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


class AlwaysDoubles:
    """A cube strategy for tests: offers every double it may, takes every double."""

    def offer_double(self, boards, value, owner):
        return np.ones(len(boards), dtype=bool)

    def respond(self, boards, value, owner):
        return np.ones(len(boards), dtype=np.int8)


def _session(respond, bot="pubeval", cube=False, manual=False, seed=3, variant="standard"):
    rules = CubeRules() if cube else None
    player = make_bot(bot, seed)
    if cube:
        from gammon.engine.cube_policy import CubeBot
        player = CubeBot(player, AlwaysDoubles(), bot)
    console = Script(respond)
    return Session(player, bot, console, np.random.default_rng(seed), variant=variant,
                   cube_rules=rules, manual_dice=manual, name="tester"), console


def test_cube_doubles_takes_and_a_pass_are_recorded(tmp_path):
    """The bot doubles whenever it may and takes every double; the person takes twice, then
    passes. The saved match has the cube actions and replays."""
    answers = {"take": 0}

    def respond(prompt):
        if prompt.startswith("take or pass"):
            answers["take"] += 1
            return "take" if answers["take"] <= 1 else "pass"
        if prompt.startswith("Your turn"):
            return "double"
        if prompt.startswith("Your play"):
            return "auto"
        if prompt.startswith("Another game"):
            return "n"
        if prompt.startswith("Save"):
            return str(tmp_path / "cube.mat")
        return ""

    session, console = _session(respond, cube=True)
    assert session.run() == 0
    match = parse_match((tmp_path / "cube.mat").read_text())
    kinds = [a.kind for a in match.games[0].actions]
    assert DOUBLE in kinds and TAKE in kinds and kinds[-1] == DROP
    result = replay(match.games[0])
    assert result.ended_by == "drop" and result.winner == 1
    assert "Doubles => 2" in (tmp_path / "cube.mat").read_text()
    assert "You pass." in console.text


@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")
def test_gnubg_imports_a_session_with_doubles_takes_and_drops(tmp_path):
    """Three games where both sides double and take until someone drops: cube actions in
    both columns; gnubg reads every play and cube action back."""
    state = {"answers": 0, "games": 0}

    def respond(prompt):
        if prompt.startswith("take or pass"):
            state["answers"] += 1
            return "take" if state["answers"] % 3 else "pass"
        if prompt.startswith("Another game"):
            state["games"] += 1
            return "y" if state["games"] < 3 else "n"
        if prompt.startswith("Save"):
            return str(tmp_path / "cube.mat")
        return {"Your turn": "double", "Your play": "auto"}.get(prompt.split(" (")[0], "")

    session, _ = _session(respond, cube=True)
    session.run()
    ours = parse_match((tmp_path / "cube.mat").read_text())
    assert len(ours.games) == 3 and all(g.winner is not None for g in ours.games)
    theirs, output = import_and_export(tmp_path / "cube.mat", tmp_path)
    assert "invalid" not in output.lower() and "not follow a double" not in output.lower()
    assert_same_games(ours, theirs)


def test_double_and_undo_words_without_a_cube_explain_themselves():
    inputs = iter(["double", "take", "undo", "quit", ""])
    session, console = _session(lambda prompt: next(inputs))
    assert session.run() == 0
    assert "start with --cube" in console.text
    assert "Nothing to undo yet" in console.text
    assert "Leaving: the game in progress is not scored." in console.text


def test_manual_dice_are_played_and_recorded(tmp_path):
    """Dice typed by hand: a tie and a bad roll are asked again; the .mat holds them."""
    rolls = iter(["4 4", "3 1", "6-5", "x y", "2 2", "66", "5,1"])

    def respond(prompt):
        if prompt.startswith(("Opening roll", "Dice for")):
            return next(rolls, None)  # end of input once the list is used up
        if prompt.startswith("Your play"):
            return "auto"
        return ""

    session, console = _session(respond, manual=True)
    assert session.run() == 0
    assert "both threw 4: again" in console.text
    assert "type two dice from 1 to 6" in console.text
    dice = [a.dice for a in session.match.games[0].actions if a.kind == PLAY]
    assert dice[:4] == [(3, 1), (6, 5), (2, 2), (6, 6)]


def test_resign_scores_the_game_and_reads_back_as_a_resignation(tmp_path):
    """Resigning at the start, with checkers in the bot's home board, is a backgammon."""
    saved = tmp_path / "r.mat"
    inputs = iter(["resign", "y", "n", str(saved)])

    def respond(prompt):
        if prompt.startswith(("Your play", "Resign", "Another", "Save")):
            return next(inputs)
        return ""

    session, console = _session(respond, seed=4)
    assert session.run() == 0
    assert "You resign: pubeval wins 3 points." in console.text
    game = parse_match(saved.read_text()).games[0]
    assert (game.winner, game.points) == (1, 3)
    result = replay(game)
    assert result.ended_by == "resignation" and (result.winner, result.points) == (1, 3)


@pytest.mark.parametrize("variant", ["standard", "nuclear"])
def test_board_and_resign_before_the_opening_roll_explain_themselves(variant):
    """--manual-dice: 'board' and 'resign' typed at the opening-roll prompt, before the
    game has a state, answer in words (they used to crash; in Nuclear the board's bomb
    line too: centred, as it starts)."""
    rolls = iter(["board", "resign", "help", "3 1"])

    def respond(prompt):
        if prompt.startswith("Opening roll"):
            return next(rolls)
        return None  # then the end of input

    session, console = _session(respond, manual=True, variant=variant)
    assert session.run() == 0
    assert "No game in progress yet" in console.text and "starting position" in console.text
    assert ("bomb: centred" in console.text) == (variant == "nuclear")
    assert "nothing to resign yet" in console.text
    assert "Opening roll: you 3, pubeval 1" in console.text


def test_resign_before_the_opening_roll_of_a_later_game_resigns_nothing():
    """--manual-dice: after a game ends, 'resign' at the next opening roll is answered as
    before the first (it used to resign the finished game's position, and a resignation
    the bot accepted there crashed the session)."""
    typed = iter(["6 2", "resign", "y", "y", "resign", "5 3"])

    def respond(prompt):
        if prompt.startswith(("Opening roll", "Your play", "Resign", "Another game")):
            return next(typed, None)
        return None  # then the end of input

    session, console = _session(respond, manual=True)
    assert session.run() == 0
    assert "You resign: pubeval wins" in console.text
    assert console.text.count("nothing to resign yet") == 1
    assert "Opening roll: you 5, pubeval 3" in console.text
    assert len(session.match.games) == 2 and session.match.games[1].winner is None


class _Gammonish(PubevalBot):
    """pubeval's plays with an evaluator that sees the player on roll losing a gammon 85%
    of the time: a bot with probabilities that the person resigning must pay well."""

    def __init__(self):
        super().__init__(15)
        self.evaluator = lambda boards: np.tile([0.0, 0.05, 0.05, 0.05, 0.8, 0.05],
                                                (len(boards), 1))


def test_resign_offers_levels_and_the_bot_declines_too_little(tmp_path):
    """From the start (a backgammon possible) the person offers a single game: the bot,
    whose evaluation is worth ~1.65 points to it, declines and play goes on; a gammon it
    accepts, and the game is scored 2 (a resignation in the .mat file)."""
    saved = tmp_path / "r.mat"
    offers = iter(["1", "2"])
    prompts = []

    def respond(prompt):
        if prompt.startswith("Your play"):
            return "resign"
        if prompt.startswith("Resign"):
            prompts.append(prompt)
            return next(offers)
        if prompt.startswith("Another"):
            return "n"
        if prompt.startswith("Save"):
            return str(saved)
        return ""

    console = Script(respond)
    session = Session(_Gammonish(), "gammonish", console, np.random.default_rng(4),
                      name="tester")
    assert session.run() == 0
    text = console.text
    assert "a single game (1 point)" in prompts[0] and "a gammon (2 points)" in prompts[0]
    assert "a backgammon (3 points)" in prompts[0]
    assert "gammonish declines a single game (1 point): play on." in text
    assert "gammonish accepts a gammon." in text
    assert "You resign: gammonish wins 2 points." in text
    game = parse_match(saved.read_text()).games[0]
    assert (game.winner, game.points) == (1, 2)
    assert replay(game).ended_by == "resignation"


def test_resign_levels_follow_the_position():
    """Only the levels possible now are offered: with a checker borne off, a single game."""
    from gammon.eval.bots.resign import resign_levels
    board = np.zeros(26, dtype=np.int8)
    board[1], board[24] = 14, -15  # the person on roll has borne one off
    assert resign_levels(board) == 1
    asked = []

    def respond(prompt):
        asked.append(prompt)
        return "y" if prompt.startswith("Resign") else None

    session, console = _session(respond)
    session.game = Game()
    session.match.games.append(session.game)
    session.state = new_games(session.variant, [0])  # the person (seat 0) on roll
    session.state.boards[0] = board
    session.resign()  # pubeval accepts what it could win at most: the game is over
    assert session.game_over
    assert asked[0] == "Resign a single game (1 point) to pubeval? [y/N]> "
    assert (session.game.winner, session.game.points) == (1, 1)


def test_nuclear_the_person_and_the_bot_detonate_before_their_rolls():
    """In Nuclear the person may type 'bomb' before rolling (when the bomb is centred or
    his); the bot detonates by its own rule; the bomb's owner is shown beside the board."""
    state = {"bombs": 0, "turns": 0}

    def respond(prompt):
        if "'bomb'" in prompt and state["bombs"] == 0:
            state["bombs"] += 1
            return "bomb"
        if prompt.startswith("Your play"):
            state["turns"] += 1
            return "auto" if state["turns"] % 2 else ""
        if state["turns"] > 60:
            return None
        return ""

    player = make_bot("heuristic", 3, "nuclear")
    console = Script(respond)
    session = Session(player, "heuristic", console, np.random.default_rng(8), variant="nuclear",
                      name="tester")
    session.run()
    text = console.text
    assert "You detonate the bomb" in text
    assert "bomb: O's" in text or "bomb: O" in text  # after the person's detonation
    assert "heuristic detonates the bomb" in text


class ScoreKeeper(AlwaysDoubles):
    """AlwaysDoubles that remembers every score it is told (None: money play)."""

    def __init__(self):
        self.told = []

    def observe_score(self, score):
        self.told.append(score)


def _match_session(respond, length, seed=5):
    player = make_bot("pubeval", seed)
    keeper = ScoreKeeper()
    from gammon.engine.cube_policy import CubeBot
    console = Script(respond)
    session = Session(CubeBot(player, keeper, "pubeval"), "pubeval", console,
                      np.random.default_rng(seed), cube_rules=None, name="tester", length=length)
    return session, console, keeper


def test_a_match_to_n_points_with_the_crawford_game(tmp_path):
    """A 5-point match: the bot doubles whenever allowed, the person rolls and takes every
    double; games go on without asking until someone has 5 points; the Crawford game has
    no double; the bot is told the score; the .mat file is a 5-point match."""
    prompts = []

    def respond(prompt):
        prompts.append(prompt)
        if prompt.startswith("take or pass"):
            return "take"
        if prompt.startswith("Your play"):
            return "auto"
        if prompt.startswith("Save"):
            return str(tmp_path / "match.mat")
        assert not prompt.startswith("Another game")
        return ""  # Enter: roll, confirm

    session, console, keeper = _match_session(respond, 5)
    assert session.run() == 0
    match = parse_match((tmp_path / "match.mat").read_text())
    assert match.length == 5 and max(match.total()) >= 5 > min(match.total())
    assert "point match" in console.text and "the 5-point match" in console.text
    score = [0, 0]
    crawford_seen = False
    for number, game in enumerate(match.games, 1):
        crawford = not crawford_seen and 4 in score
        crawford_seen |= crawford
        doubles = [a for a in game.actions if a.kind == DOUBLE]
        if crawford:
            assert not doubles, f"a double in the Crawford game {number}"
            assert "This is the Crawford game" in console.text
        assert replay(game, number=number).winner == game.winner
        score[game.winner] += game.points
    assert crawford_seen and any(a.kind == DOUBLE for g in match.games for a in g.actions)
    told = [t for t in keeper.told if t is not None]
    assert told and all(int(t.length) == 5 for t in told)
    assert all(1 <= int(np.asarray(t.away)[0]) <= 5 for t in told)


def test_play_match_options_are_checked():
    for args, words in ((["--match", "0"], "--match"), (["--match", "3", "--jacoby"], "Jacoby")):
        run = subprocess.run([sys.executable, "-m", "gammon.cli", "play", *args],
                             input="", capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert run.returncode == 2 and words in run.stderr and "Traceback" not in run.stderr


def test_play_match_through_stdin(tmp_path):
    """`gammon play --match 3` as a person runs it: games follow one another without a
    question until one side has 3 points; the saved file is a 3-point match."""
    saved = tmp_path / "m.mat"
    driver = Driver("--match", "3", "--bot", "pubeval", "--seed", "4")
    answers = {"Your turn": "", "Your play": "auto", "Enter to confirm": "",
               "take or pass": "take", "Save": str(saved)}
    prompts = 0
    while (prompt := driver.prompt()) is not None:
        prompts += 1
        assert prompts < 5000, "the match does not end"
        assert not prompt.startswith("Another game")
        driver.send(next(v for k, v in answers.items() if prompt.startswith(k)))
    assert driver.proc.wait(timeout=30) == 0, driver.proc.stderr.read().decode()
    assert "the 3-point match" in driver.transcript and "Traceback" not in driver.transcript
    match = parse_match(saved.read_text())
    assert match.length == 3 and max(match.total()) >= 3
