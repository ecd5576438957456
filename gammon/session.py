"""A person against a bot at the terminal: games of a money session, or a match to N
points (``length``), turn by turn.

The person is X and always sees the board from their side. Each turn of theirs shows the
board and the roll, reads a play in Magriel notation (``engine.formats.notation.parse_play``, which
says what is wrong with a play it cannot accept), shows the result and waits for Enter to
confirm or ``undo`` to take it back. Commands: hint, auto, board, double, take, pass,
resign, save FILE, quit, help. Bad input gets a message and a new prompt; the end of input
ends the session cleanly. Every game is recorded as a ``.mat`` match (``engine.formats.matfile``),
saved as a .mat file, or as GNU Backgammon's SGF when the file name ends in ``.sgf``
(``engine.formats.sgf``).

The game itself is one game of the game loop (``engine.game``: its state, ``end_turn`` for
the end of the game and its points) under the cube's rules (``engine.cube``); this module
only talks to the person. In a match the cube is always in play, the game after a player
first reaches N-1 points is the Crawford game (no doubling, ``engine.match``), games
follow one another until a player has N points, and the bot is told the score
(``observe_score``) before each of its decisions and before a hint, from the side of the
player on roll.
"""

from __future__ import annotations

import datetime
import os
import re

import numpy as np

from engine import cube as cube_rules
from engine.board import flip
from engine.cube import PASS, Cube, CubeRules, legal_responses
from engine.dice import opening_roll
from engine.files import WriteError, write_atomic
from engine.formats.diagram import diagram
from engine.formats.matfile import DOUBLE, DROP, PLAY, TAKE, Action, Game, Match, play_text
from engine.formats.notation import format_play, parse_play
from engine.formats.sgf import format_match_file, is_sgf_name, sgf_problem
from engine.cube_policy import tell_score
from engine.game import end_turn, new_games
from engine.match import MatchScore, crawford_game
from engine.movegen import legal_plays
from engine.rules import variant as get_variant
from eval.bots.resign import accepts_resignation, resign_levels

from .console import Console, EndOfInput, read_dice
from .errors import quote
from .positions import read_whole

HUMAN, BOT = 0, 1
RESULTS = {1: "a single game", 2: "a gammon", 3: "a backgammon"}
RESIGN_WORDS = {"1": 1, "s": 1, "single": 1, "2": 2, "g": 2, "gammon": 2,
                "3": 3, "b": 3, "bg": 3, "backgammon": 3}
MAX_PLAY_TEXT = 100  # characters of a typed play; longer is no play

HELP = """\
Type your play as the steps of your checkers: 24/18 13/11, 8/5(2), bar/22*, 6/off (the
star for a hit is optional; a '6-2:' in front is allowed). The result is shown: press Enter
to confirm it or type 'undo' to take it back.

  hint [N]    the bot's N best plays for your roll (default 5)
  auto        let the bot choose your play this turn (you still confirm it)
  board       show the board again
  double      offer the cube before you roll (with --cube)
  bomb        Nuclear: detonate the bomb before you roll (when it is centred or yours):
              every blot of both sides goes to the bar, the bomb passes to the bot
  take, pass  answer the bot's double (with --cube)
  resign      offer to give up this game: a single game, or a gammon (backgammon) while
              you have borne off no checker (and still have one in the bot's home board
              or on the bar), times the cube; the bot accepts or declines by its own
              evaluation, and a declined resignation plays on
  save FILE   write the match so far as a .mat file (GNU Backgammon: import mat FILE),
              or as an SGF file when FILE ends in .sgf (GNU Backgammon: load match FILE)
  quit        leave now (the game in progress is not scored)
  help        this text"""


class _GameOver(Exception):
    """The game ended (a pass or a resignation): back to the session."""


class _Quit(Exception):
    """The person typed quit."""


class Table:
    """A person (player 0 of the match, HUMAN) against a bot (player 1, BOT), without any
    talk: the match record, the game loop's state, the Crawford game, the bot told the
    score, and the decisions the bot makes on the cube and on a resignation. The terminal
    session (``Session``) and the board in the browser (``gammon.web.game``) both play on
    one; whoever holds it decides when the person is asked what."""

    def __init__(self, bot, bot_name: str, rng: np.random.Generator,
                 variant: str = "standard", rules: CubeRules | None = None,
                 name: str = "human", length: int = 0):
        self.bot, self.bot_name, self.rng = bot, bot_name, rng
        self.variant = get_variant(variant)
        self.checkers = self.variant.checkers
        self.length = length  # points to win the match; 0: a money session
        if length and (rules is None or rules.jacoby or rules.beavers or rules.auto_doubles):
            rules = CubeRules()  # a match: the cube, no Jacoby, beavers or automatic doubles
        self.rules = rules
        self.name = name
        self.match = Match((name, bot_name), length, [], variant)
        self.crawford = False  # this game is the Crawford game
        self.had_crawford = False  # the match has had its Crawford game
        self.state = None  # the game loop's state (engine.game): none before the first game
        self.game: Game | None = None

    def match_winner(self) -> int | None:
        """In a match: the player who has reached the length (HUMAN or BOT), else None."""
        left, right = self.match.total()
        if not self.length or max(left, right) < self.length:
            return None
        return HUMAN if left >= self.length else BOT

    def new_game(self) -> None:
        """Start recording the next game (the Crawford game when it is one); the board is
        set up by ``begin`` once the opening roll says who starts."""
        self.game = Game()
        if self.length:  # "the game after a player first reaches N-1 has no doubling"
            self.crawford = bool(crawford_game(np.array(self.match.total()), self.length,
                                               np.array(self.had_crawford)))
            self.had_crawford |= self.crawford
        self.match.games.append(self.game)

    def begin(self, first: int) -> None:
        """The start position, ``first`` on roll; the seats are the .mat players: HUMAN 0,
        BOT 1."""
        self.state = new_games(self.variant, [first],
                               Cube.centred(1) if self.rules is not None else None)

    def throw(self) -> tuple[int, int]:
        """Two dice from the table's generator."""
        d1, d2 = (int(d) for d in self.rng.integers(1, 7, size=2))
        return d1, d2

    def tell_score(self) -> None:
        """Tell the bot the match score from the side of the player on roll (money play:
        nothing): before each of its decisions, and before a hint."""
        if not self.length:
            return
        score = self.match.total()
        mine, theirs = score[self.turn], score[1 - self.turn]
        tell_score(self.bot, MatchScore(np.array([self.length - mine]),
                                        np.array([self.length - theirs]), self.length,
                                        np.array([self.crawford]), np.array([self.cube]),
                                        np.array([int(self.state.cube.owner[0])])))

    @property
    def has_bomb(self) -> bool:
        return "bomb" in self.variant.extra_state

    def tell_bomb(self) -> None:
        """Give the bot the bomb before it evaluates plays (a Nuclear net reads it)."""
        observe = getattr(self.bot, "observe_extra", None)
        if self.has_bomb and observe is not None:
            observe({"bomb": self.state.extra["bomb"][:1].copy()})

    def record(self, player: int, plays, row: int, dice) -> tuple[int, int]:
        """Make the play, record it; (the result 1, 2, 3 and the points won when it bears
        off the last checker, else (0, 0)). The game's winner is set by ``finish``."""
        after = plays.boards[row]
        d1, d2 = sorted(dice, reverse=True)
        text = play_text(plays.steps[row], plays.hits[row]) if plays.dice_used[row] else ""
        self.game.actions.append(Action(player, PLAY, (d1, d2), text))
        cube_value = self.cube
        kind = int(end_turn(self.state, np.zeros(1, np.int64), after[None], self.variant,
                            self.rules)[0])
        if not kind:
            return 0, 0
        points = abs(int(self.state.points[0]))
        return points // cube_value, points  # 1 under Jacoby with the cube centred

    def finish(self, winner: int, points: int) -> None:
        """The game is over: ``winner`` wins ``points``."""
        self.game.winner, self.game.points = winner, points

    def bot_response(self, respond, beavers: bool) -> int:
        """The bot's answer (engine.cube PASS, TAKE or BEAVER) to the person's double, the
        person on roll; a beaver counts as a take unless ``beavers`` and the rules allow
        it."""
        cube = self.state.cube  # the person is on roll: the owner is seen from the doubler
        self.tell_score()
        raw = respond(self.board[None], cube.value.copy(), cube.owner.copy())
        rules = self.rules or CubeRules()
        return int(legal_responses(np.asarray(raw), cube,
                                   CubeRules(rules.jacoby, beavers and rules.beavers,
                                             rules.auto_doubles, rules.max_cube))[0])

    def bot_offers(self) -> bool:
        offer = getattr(self.bot, "offer_double", None)
        if offer is None:
            return False
        cube = self.state.cube  # the bot is on roll: the owner is seen from the doubler
        self.tell_score()
        return bool(np.asarray(offer(self.board[None], cube.value.copy(), cube.owner.copy()))[0])

    def bot_accepts(self, level: int) -> bool:
        """Whether the bot takes a resignation of ``level`` (1, 2, 3) per cube."""
        if self.rules is not None and self.rules.jacoby and self.owner is None:
            return True  # a centred cube under Jacoby: a single game is all it can win
        return bool(accepts_resignation(self.bot, self.board, level,
                                        on_roll=self.turn == BOT, rules=self.variant))

    def loss_if_resigned(self) -> int:
        """What the person could lose if the game ended now (``eval.bots.resign.resign_levels``):
        1, 2 (no checker borne off) or 3 (and a checker on the bar or in the bot's home
        board); 1 under Jacoby while the cube is centred."""
        if self.rules is not None and self.rules.jacoby and self.owner is None:
            return 1
        mine = self.board if self.turn == HUMAN else flip(self.board)
        return resign_levels(mine, self.variant)

    # --- the game's state, as the loop keeps it -------------------------------------------------

    @property
    def board(self) -> np.ndarray:
        """(26,) the position from the player on roll."""
        return self.state.boards[0]

    @property
    def turn(self) -> int:
        """The player on roll: HUMAN or BOT."""
        return int(self.state.seat[0])

    @property
    def cube(self) -> int:
        return int(self.state.cube.value[0]) if self.state.cube is not None else 1

    @property
    def owner(self) -> int | None:
        """The player holding the cube: HUMAN, BOT or None (centred, or no cube)."""
        held = int(self.state.cube.owner[0]) if self.state.cube is not None else 0
        if held == 0:
            return None
        return self.turn if held > 0 else 1 - self.turn

    def may_double(self, player: int) -> bool:
        """Whether ``player``, on roll, may double now (``engine.cube.may_double``; never
        in a match's Crawford game)."""
        return (self.rules is not None and player == self.turn and not self.crawford
                and bool(cube_rules.may_double(self.state.cube, self.rules)[0]))

    def accept_double(self, response: int = cube_rules.TAKE) -> None:
        """The player not on roll took a double (or beavered it: x 4): the cube goes to
        them (``engine.cube.accept``)."""
        self.state.cube = cube_rules.accept(self.state.cube, np.array([response]))


class Session(Table):
    """Games between a person (X, player 0 of the match) and a bot (O, player 1)."""

    def __init__(self, bot, bot_name: str, console: Console, rng: np.random.Generator,
                 variant: str = "standard", rules: CubeRules | None = None,
                 manual_dice: bool = False, name: str = "human", length: int = 0):
        super().__init__(bot, bot_name, rng, variant, rules, name, length)
        self.console, self.manual = console, manual_dice
        self.say = console.say

    # --- the session -----------------------------------------------------------------------

    def run(self) -> int:
        """Play games until the person stops; offer to save. Returns the exit code (0)."""
        try:
            while True:
                self.play_game()
                self.say(self.score_line())
                if self.length:
                    if self.match_over():
                        break
                    continue
                if self.console.ask("Another game? [y/N]> ").lower() not in ("y", "yes"):
                    break
        except _Quit:
            self.say("Leaving: the game in progress is not scored.")
        except EndOfInput:
            self.say(f"End of input. {self.score_line('Final score')}")
            return 0
        self.say(self.score_line("Final score"))
        try:
            self.offer_save()
        except EndOfInput:
            pass
        return 0

    def score_line(self, label: str = "Score") -> str:
        left, right = self.match.total()
        games = sum(g.winner is not None for g in self.match.games)
        to = f"{self.length}-point match, " if self.length else ""
        return (f"{label}: {self.name} {left}, {self.bot_name} {right} "
                f"({to}{games} game{'s' if games != 1 else ''} played).")

    def match_over(self) -> bool:
        """In a match: whether a player has reached the length (and say who won)."""
        left, right = self.match.total()
        if max(left, right) < self.length:
            return False
        winner = "You win" if left >= self.length else f"{self.bot_name} wins"
        self.say(f"{winner} the {self.length}-point match, {max(left, right)}-"
                 f"{min(left, right)}.")
        return True

    def offer_save(self) -> None:
        while self.match.games:
            path = self.console.ask("Save the match as a .mat file (or SGF: a name ending "
                                    "in .sgf)? File name (Enter: don't save)> ")
            if not path or self.save(path):
                return

    def save(self, path: str) -> bool:
        """Write the match so far (the game in progress unfinished) to ``path``."""
        comments = {"Site": "gammon play",
                    "EventDate": datetime.date.today().strftime("%Y.%m.%d")}
        sgf = is_sgf_name(path)
        why = sgf_problem(self.variant.name) if sgf else None
        if why:
            self.say(f"Cannot save to {quote(path)}: {why}")
            return False
        jacoby = bool(self.rules is not None and self.rules.jacoby and not self.length)
        try:  # whole or not at all: a full disk leaves the previous file as it was
            write_atomic(os.path.expanduser(path),
                         format_match_file(path, self.match, comments, jacoby))
        except WriteError as e:
            self.say(f"Cannot save to {quote(path)}: {e.reason}")
            return False
        games = len(self.match.games)
        how = "load match" if sgf else "import mat"
        self.say(f"Saved {games} game{'s' if games != 1 else ''} to {path} "
                 f"(GNU Backgammon: {how} {path}).")
        return True

    # --- one game --------------------------------------------------------------------------

    def play_game(self) -> None:
        """One game from the opening roll to its end."""
        self.new_game()
        crawford = " This is the Crawford game: no doubling." if self.crawford else ""
        self.say(f"\nGame {len(self.match.games)}: {self.name} (X) against "
                 f"{self.bot_name} (O).{crawford}")
        first, dice = self.opening_roll()
        self.begin(first)
        try:
            while self.game.winner is None:
                if self.turn == HUMAN:
                    self.human_turn(dice)
                else:
                    self.bot_turn(dice)
                dice = None
        except _GameOver:
            pass

    def opening_roll(self) -> tuple[int, tuple[int, int]]:
        """Who starts and with which roll: each side throws one die, a tie throws again."""
        while True:
            if self.manual:
                human, bot = self.ask_dice(f"Opening roll: your die and {self.bot_name}'s "
                                           f"(e.g. 5 3)> ")
            else:
                _, dice = opening_roll(self.rng, 1)  # (1, 2): never a tie
                human, bot = int(dice[0, 0]), int(dice[0, 1])
            if human != bot:
                break
            self.say(f"Opening roll: both threw {human}: again.")
        first = HUMAN if human > bot else BOT
        who = "you play" if first == HUMAN else f"{self.bot_name} plays"
        self.say(f"Opening roll: you {human}, {self.bot_name} {bot}: {who} "
                 f"{max(human, bot)}-{min(human, bot)} first.")
        return first, (human, bot)

    def roll(self, player: int) -> tuple[int, int]:
        if self.manual:
            who = "you" if player == HUMAN else self.bot_name
            return self.ask_dice(f"Dice for {who} (e.g. 6 2)> ")
        return self.throw()

    def ask_dice(self, prompt: str) -> tuple[int, int]:
        while True:
            text = self.console.ask(prompt)
            word, arg = _split(text)
            if word in ("help", "quit", "save", "board", "resign"):
                self.command(word, arg, None)
                continue
            try:
                return read_dice(text)
            except ValueError as e:
                self.say(str(e))

    # --- the person's turn -----------------------------------------------------------------

    def human_turn(self, dice) -> None:
        if dice is None:
            if self.may_double(HUMAN) or self.may_detonate():
                self.before_roll()
            dice = self.roll(HUMAN)
        d1, d2 = dice
        self.show_board(f"X to play {max(d1, d2)}-{min(d1, d2)}")
        boards = self.board[None]
        plays = legal_plays(boards, np.array([[d1, d2]]), self.variant)
        if plays.dice_used[0] == 0:
            self.say(f"You rolled {max(d1, d2)}-{min(d1, d2)} and cannot move.")
            self.commit(HUMAN, plays, 0, (d1, d2))
            return
        while True:
            text = self.console.ask(f"Your play ({max(d1, d2)}-{min(d1, d2)})> ")
            word, arg = _split(text)
            if word == "auto":
                self.tell_bomb()
                self.tell_score()
                row = int(self.bot.choose(plays, boards, np.array([[d1, d2]]))[0])
                self.say(f"{self.bot_name} would play "
                         f"{format_play(plays.steps[row], plays.hits[row], (d1, d2))}.")
            elif word == "hint":
                self.hint(plays, (d1, d2), arg)
                continue
            elif word == "undo":
                self.say("Nothing to undo yet: type your play.")
                continue
            elif word:
                if self.command(word, arg, "play"):
                    continue
                if (not any(c.isdigit() for c in text) and "/" not in text
                        and word not in ("\u00f8", "\u00d8")):  # Ø alone: "no play"
                    self.say(f"Unknown command {quote(word)}: type a play such as 13/7 8/7, "
                             f"or 'help' for the commands.")
                    continue
                problem = _play_text_problem(text)
                if problem:
                    self.say(f"Not a legal play: {problem}.")
                    continue
                try:
                    row = parse_play(text, self.board, d1, d2, plays, self.variant)
                except ValueError as e:
                    self.say(f"Not a legal play: {e}.")
                    continue
            else:
                self.say("Type your play, e.g. 13/7 8/7, or 'help'.")
                continue
            if self.confirm(plays, row, (d1, d2)):
                self.commit(HUMAN, plays, row, (d1, d2))
                return

    def before_roll(self) -> None:
        """The person may double ('double') or detonate Nuclear's bomb ('bomb'); Enter
        rolls."""
        while True:
            options = [w for w, ok in (("double", self.may_double(HUMAN)),
                                       ("bomb", self.may_detonate())) if ok]
            state = []
            if self.rules is not None:
                state.append(f"cube {self.cube}, {self.owner_words()}")
            if self.has_bomb:
                state.append(f"bomb {self.bomb_words()}")
            text = self.console.ask(f"Your turn ({'; '.join(state)}): Enter to roll, or "
                                    f"{' or '.join(repr(w) for w in options)}> ")
            word, arg = _split(text)
            if word in ("", "roll", "r"):
                return
            if word == "double" and self.may_double(HUMAN):
                self.human_doubles()
                return
            if word == "bomb" and self.may_detonate():
                self.detonate("You detonate")
                if not self.may_double(HUMAN):
                    return
                continue
            if not self.command(word, arg, "roll"):
                self.say(f"Press Enter to roll, type {' or '.join(repr(w) for w in options)}, "
                         f"or 'help'.")

    # --- Nuclear's bomb ----------------------------------------------------------------------

    def may_detonate(self) -> bool:
        """Whether the player on roll may detonate: "when the bomb is centred or his"."""
        return self.has_bomb and int(self.state.extra["bomb"][0]) >= 0

    def bomb_words(self) -> str:
        owner = int(self.state.extra["bomb"][0])  # relative to the player on roll
        if owner == 0:
            return "centred"
        return "yours" if (owner > 0) == (self.turn == HUMAN) else f"{self.bot_name}'s"

    def detonate(self, who: str) -> None:
        """The player on roll explodes the bomb: every blot to its bar, the bomb to the
        other side (``engine.rules.nuclear.explode``)."""
        from engine.rules.nuclear import THEIRS, explode
        before = self.board.copy()
        self.state.boards[0] = explode(before[None])[0]
        self.state.extra["bomb"][0] = THEIRS
        sent = int((np.abs(before[1:25]) == 1).sum())
        self.say(f"{who} the bomb: {sent} blot{'s' if sent != 1 else ''} to the bar.")

    def confirm(self, plays, row: int, dice) -> bool:
        """Show the play and its result; True on Enter, False on 'undo'."""
        self.say(f"You play {format_play(plays.steps[row], plays.hits[row], dice)}:")
        self.say(self.board_text(plays.boards[row], "after your play"))
        while True:
            text = self.console.ask("Enter to confirm, 'undo' to take it back> ")
            word, _ = _split(text)
            if word in ("", "y", "yes", "ok"):
                return True
            if word in ("undo", "u", "n", "no"):
                self.say("Taken back.")
                return False
            if word == "quit":
                raise _Quit
            self.say("Press Enter to confirm the play, or type 'undo' to take it back.")

    def hint(self, plays, dice, arg: str) -> None:
        from eval.analysis import ranked

        from .tables import ply_cells, probability_cells, probability_header
        try:
            n = read_whole(arg, "hint N: N", 1, 1000) if arg else 5
        except ValueError as e:
            self.say(f"{e} (a number of plays)")
            return
        self.tell_bomb()
        self.tell_score()
        rows = ranked(self.bot, self.board, dice[0], dice[1], self.variant)[:max(1, n)]
        width = max(len(r["play"]) for r in rows)
        probs = "probabilities" in rows[0]
        label = "cubeless equity" if probs else getattr(self.bot, "score_label", "score")
        if getattr(self.bot, "score_label", "") == "MWC":
            label = f"your match winning chance at {self.match.total()[0]}-" \
                    f"{self.match.total()[1]} to {self.length}"
        ply_header, ply_cell = ply_cells(rows)
        self.say(f"{self.bot_name}'s best plays for your roll ({label}):")
        if probs:  # the chances for you after each play
            self.say(f"  {'':>2}  {'':<{width}}  {ply_header}{'':>7}  {probability_header()}")
        for r in rows:
            self.say(f"  {r['rank']:>2}  {r['play']:<{width}}  {ply_cell(r)}{r['score']:+.4f}"
                     + (f"  {probability_cells(r)}" if probs else ""))

    def human_doubles(self) -> None:
        value = self.cube
        self.game.actions.append(Action(HUMAN, DOUBLE, cube=2 * value))
        respond = getattr(self.bot, "respond", None)
        answer = TAKE if respond is None else self.bot_answer(respond)
        if answer == DROP:
            self.say(f"{self.bot_name} passes: you win {value} point{'s' * (value > 1)}.")
            self.game.actions.append(Action(BOT, DROP))
            self.end(HUMAN, value, "pass")
        self.say(f"{self.bot_name} takes: the cube is at {2 * value}, {self.bot_name}'s.")
        self.game.actions.append(Action(BOT, TAKE))
        self.accept_double()

    def bot_answer(self, respond) -> str:
        """The bot's take or pass of the person's double (a beaver, if any, counts as a
        take: these sessions play without beavers)."""
        return DROP if self.bot_response(respond, beavers=False) == PASS else TAKE

    # --- the bot's turn --------------------------------------------------------------------

    def bot_turn(self, dice) -> None:
        if dice is None:
            detonate = getattr(self.bot, "detonate", None)
            if self.may_detonate() and detonate is not None and \
                    bool(detonate(self.board[None].copy(), self.state.extra["bomb"][:1])[0]):
                self.detonate(f"{self.bot_name} detonates")
                self.show_board("")
            if self.may_double(BOT) and self.bot_offers():
                self.bot_doubles()
            dice = self.roll(BOT)
        d1, d2 = dice
        boards, roll = self.board[None], np.array([[d1, d2]])
        plays = legal_plays(boards, roll, self.variant)
        roll_text = f"{max(d1, d2)}-{min(d1, d2)}"
        if plays.dice_used[0] == 0:
            self.say(f"{self.bot_name} rolls {roll_text} and cannot move.")
            self.commit(BOT, plays, 0, (d1, d2))
            return
        self.tell_bomb()
        self.tell_score()
        row = int(self.bot.choose(plays, boards, roll)[0])
        self.say(f"{self.bot_name} rolls {roll_text} and plays "
                 f"{format_play(plays.steps[row], plays.hits[row], (d1, d2))}.")
        self.commit(BOT, plays, row, (d1, d2))

    def bot_doubles(self) -> None:
        value = self.cube
        self.game.actions.append(Action(BOT, DOUBLE, cube=2 * value))
        self.say(f"{self.bot_name} doubles: take (the cube goes to {2 * value}, yours) or "
                 f"pass (you lose {value} point{'s' * (value > 1)})?")
        while True:
            text = self.console.ask("take or pass> ")
            word, arg = _split(text)
            if word in ("take", "t"):
                self.game.actions.append(Action(HUMAN, TAKE))
                self.accept_double()
                self.say(f"You take: the cube is at {2 * value}, yours.")
                return
            if word in ("pass", "drop", "p"):
                self.game.actions.append(Action(HUMAN, DROP))
                self.say("You pass.")
                self.end(BOT, value, "pass")
            if word in ("double", "resign") or not self.command(word, arg, "answer"):
                self.say("Type 'take' or 'pass'.")

    # --- shared ----------------------------------------------------------------------------

    def commit(self, player: int, plays, row: int, dice) -> None:
        """Make the play, record it, end the game when it bears off the last checker."""
        kind, points = self.record(player, plays, row, dice)
        if kind:
            who = "You win" if player == HUMAN else f"{self.bot_name} wins"
            self.end(player, points, f"{who} {RESULTS[kind]}", raise_=False)

    def end(self, winner: int, points: int, how: str, raise_: bool = True) -> None:
        """End the game: ``winner`` wins ``points``."""
        self.finish(winner, points)
        if how not in ("pass", "resign"):
            self.say(f"{how}: {points} point{'s' * (points != 1)}.")
        if raise_:
            raise _GameOver

    def command(self, word: str, arg: str, stage: str | None) -> bool:
        """The commands that work at every prompt; False when ``word`` is none of them."""
        if word in ("help", "?"):
            self.say(HELP)
        elif word == "board":
            if self.state is None:
                self.say("No game in progress yet: the opening roll decides who starts. "
                         "The starting position, from your side:")
                self.say(self.board_text(self.variant.start_board(), "before the opening roll"))
            else:
                self.show_board("X on roll" if self.turn == HUMAN else "")
        elif word == "save":
            if not arg:
                self.say("save FILE: give a file name, e.g. save game.mat (or game.sgf)")
            else:
                self.save(arg)
        elif word == "quit":
            raise _Quit
        elif word == "resign":
            self.resign()
        elif word in ("double", "take", "pass", "drop"):
            self.say(self.cube_hint(word, stage))
        elif word in ("hint", "auto") and stage != "play":
            self.say(f"'{word}' works once you have rolled.")
        else:
            return False
        return True

    def cube_hint(self, word: str, stage: str | None) -> str:
        if self.rules is None:
            return "The cube is not in play: start with --cube to use it."
        if word == "double":
            if self.crawford:
                return "No doubling in the Crawford game."
            if not self.may_double(HUMAN):
                return "You cannot double now: the cube is not yours to turn."
            return "Double before you roll: at the 'Enter to roll' prompt."
        return "There is no double to answer."

    def resign(self) -> None:
        """Offer the bot a single game, a gammon or a backgammon (those possible now, times
        the cube); it accepts or declines by its own evaluation (``eval.bots.resign``)."""
        if self.state is None or self.game.winner is not None:
            self.say("No game in progress: there is nothing to resign yet.")
            return
        most = self.loss_if_resigned()
        level = self.ask_resign_level(most)
        if level is None:
            self.say("Play on.")
            return
        points = level * self.cube
        if self.bot_accepts(level):
            self.say(f"{self.bot_name} accepts {RESULTS[level]}.")
            self.say(f"You resign: {self.bot_name} wins {points} point{'s' * (points != 1)}.")
            self.end(BOT, points, "resign")
        self.say(f"{self.bot_name} declines {RESULTS[level]} ({points} "
                 f"point{'s' * (points != 1)}): play on.")

    def ask_resign_level(self, most: int) -> int | None:
        """The level the person offers (1 .. most), or None to play on."""
        def offer(level: int) -> str:
            points = level * self.cube
            return f"{RESULTS[level]} ({points} point{'s' * (points != 1)})"
        if most == 1:
            text = self.console.ask(f"Resign {offer(1)} to {self.bot_name}? [y/N]> ")
            return 1 if text.lower() in ("y", "yes", "1", "s", "single") else None
        choices = ", ".join(f"{level} {offer(level)}" for level in range(1, most + 1))
        while True:
            text = self.console.ask(f"Resign {choices}? [1-{most}, y: {RESULTS[most]}, "
                                    f"Enter: play on]> ").lower()
            if text in ("", "n", "no"):
                return None
            if text in ("y", "yes"):
                return most
            level = RESIGN_WORDS.get(text)
            if level is not None and level <= most:
                return level
            self.say(f"Type a number from 1 to {most} ({choices}), or press Enter to play on.")

    def owner_words(self) -> str:
        return {None: "centred", HUMAN: "yours", BOT: f"{self.bot_name}'s"}[self.owner]

    def show_board(self, note: str) -> None:
        mine = self.board if self.turn == HUMAN else flip(self.board)
        left, right = self.match.total()
        cube = f", cube {self.cube} ({self.owner_words()})" if self.rules is not None else ""
        if self.length:
            cube += f", {self.length}-point match" + (", Crawford game" if self.crawford
                                                       else "")
        self.say(f"\n{self.name} {left} - {self.bot_name} {right}{cube}")
        self.say(self.board_text(mine, note))

    def board_text(self, board, note: str) -> str:
        """The diagram from the person's side, its 'X on roll' line replaced by ``note``."""
        pins = self.variant.position_format == "plakoto"
        bomb = None
        if self.has_bomb:  # X is the person: the bomb relative to him
            bomb = int(self.state.extra["bomb"][0]) * (1 if self.turn == HUMAN else -1)
        text = diagram(board, self.checkers, pins=pins, bomb=bomb).replace("X on roll", note)
        return "\n".join(line.rstrip() for line in text.splitlines())


def _play_text_problem(text: str) -> str | None:
    """Why typed text cannot be a play before it is parsed, or None: too long, not ASCII
    (but for the notation's Ø, dice left unused), or a number too large for a point (the
    notation reader takes any Unicode digit)."""
    if len(text) > MAX_PLAY_TEXT:
        return f"{quote(text)} is too long for a play"
    if not text.replace("\u00d8", "").replace("\u00f8", "").isascii():
        return f"{quote(text)}: type the points with the digits 0-9"
    if re.search(r"[0-9]{3,}", text):
        return f"{quote(text)}: points are 1-24, bar (25) or off (0)"
    return None


def _split(text: str) -> tuple[str, str]:
    """(first word lower-cased, the rest) of a typed line."""
    parts = text.strip().split(None, 1)
    if not parts:
        return "", ""
    return parts[0].lower(), parts[1].strip() if len(parts) > 1 else ""
