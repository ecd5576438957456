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

The game itself is a ``gammon.table.Table`` (the game loop's state under the cube's rules,
the match record, the Crawford game, the bot told the score); this module only talks to the
person, in the words of ``gammon.session_text``. In a match games follow one another until
a player has N points. A turn that ends the game (a bear-off, a pass, a resignation the bot
accepts) returns, and the game's loop stops on ``Table.game_over``.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.board import flip
from gammon.engine.cube import PASS, CubeRules
from gammon.engine.dice import opening_roll
from gammon.engine.formats.matfile import DOUBLE, DROP, TAKE, Action
from gammon.engine.formats.notation import format_play, parse_play
from gammon.engine.movegen import legal_plays

from .console import Console, EndOfInput, read_dice
from .errors import quote
from .positions import read_whole
from .session_text import (HELP, ask_resign_level, board_text, hint_lines, play_text_problem,
                           save_match, split_words)
from .table import BOT, HUMAN, RESULTS, Table


class _Quit(Exception):
    """The person typed quit."""


class Session(Table):
    """Games between a person (X, player 0 of the match) and a bot (O, player 1)."""

    def __init__(self, bot, bot_name: str, console: Console, rng: np.random.Generator,
                 variant: str = "standard", cube_rules: CubeRules | None = None,
                 manual_dice: bool = False, name: str = "human", length: int = 0):
        super().__init__(bot, bot_name, rng, variant, cube_rules, name, length)
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
        jacoby = bool(self.cube_rules is not None and self.cube_rules.jacoby and not self.length)
        saved, line = save_match(self.match, path, self.variant.name, jacoby)
        self.say(line)
        return saved

    # --- one game --------------------------------------------------------------------------

    def play_game(self) -> None:
        """One game from the opening roll to its end: a turn returns early once the game is
        over (a bear-off, a pass, a resignation the bot accepts: ``game_over``)."""
        self.new_game()
        crawford = " This is the Crawford game: no doubling." if self.crawford else ""
        self.say(f"\nGame {len(self.match.games)}: {self.name} (X) against "
                 f"{self.bot_name} (O).{crawford}")
        first, dice = self.opening_roll()
        self.begin(first)
        while not self.game_over:
            if self.turn == HUMAN:
                self.human_turn(dice)
            else:
                self.bot_turn(dice)
            dice = None

    def opening_roll(self) -> tuple[int, tuple[int, int]]:
        """Who starts and with which roll: each side throws one die, a tie throws again."""
        while True:
            if self.manual:
                human, bot = self.ask_dice(f"Opening roll: your die and {self.bot_name}'s "
                                           f"(e.g. 5 3)> ", "opening")
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

    def roll(self, player: int) -> tuple[int, int] | None:
        """The dice of ``player``'s turn; None when the game ended while they were typed."""
        if self.manual:
            who = "you" if player == HUMAN else self.bot_name
            return self.ask_dice(f"Dice for {who} (e.g. 6 2)> ")
        return self.throw()

    def ask_dice(self, prompt: str, stage: str | None = None) -> tuple[int, int] | None:
        """Two dice typed by the person; None when the game ended meanwhile (a resignation
        the bot accepted; at the ``"opening"`` roll there is no game to resign yet)."""
        while True:
            text = self.console.ask(prompt)
            word, arg = split_words(text)
            if word in ("help", "quit", "save", "board", "resign"):
                self.command(word, arg, stage)
                if self.game_over:
                    return None
                continue
            try:
                return read_dice(text)
            except ValueError as e:
                self.say(str(e))

    # --- the person's turn -----------------------------------------------------------------

    def human_turn(self, dice) -> None:
        """The person's turn (``dice``: the opening roll's, else None: rolled here); it
        returns early when the game ends in it."""
        if dice is None:
            if self.may_double(HUMAN) or self.may_detonate():
                self.before_roll()
                if self.game_over:  # the bot passed the double, or accepted a resignation
                    return
            dice = self.roll(HUMAN)
            if dice is None:
                return
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
            word, arg = split_words(text)
            if word == "auto":
                self.tell_extra()
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
                    if self.game_over:  # a resignation the bot accepted
                        return
                    continue
                if (not any(c.isdigit() for c in text) and "/" not in text
                        and word not in ("\u00f8", "\u00d8")):  # Ø alone: "no play"
                    self.say(f"Unknown command {quote(word)}: type a play such as 13/7 8/7, "
                             f"or 'help' for the commands.")
                    continue
                problem = play_text_problem(text)
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
        rolls. Returns at once when the game ends (a pass, a resignation accepted)."""
        while True:
            options = [w for w, ok in (("double", self.may_double(HUMAN)),
                                       ("bomb", self.may_detonate())) if ok]
            state = []
            if self.cube_rules is not None:
                state.append(f"cube {self.cube}, {self.owner_words()}")
            if self.has_bomb:
                state.append(f"bomb {self.bomb_words()}")
            text = self.console.ask(f"Your turn ({'; '.join(state)}): Enter to roll, or "
                                    f"{' or '.join(repr(w) for w in options)}> ")
            word, arg = split_words(text)
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
            elif self.game_over:  # a resignation the bot accepted
                return

    def confirm(self, plays, row: int, dice) -> bool:
        """Show the play and its result; True on Enter, False on 'undo'."""
        self.say(f"You play {format_play(plays.steps[row], plays.hits[row], dice)}:")
        self.say(self.board_text(plays.boards[row], "after your play"))
        while True:
            text = self.console.ask("Enter to confirm, 'undo' to take it back> ")
            word, _ = split_words(text)
            if word in ("", "y", "yes", "ok"):
                return True
            if word in ("undo", "u", "n", "no"):
                self.say("Taken back.")
                return False
            if word == "quit":
                raise _Quit
            self.say("Press Enter to confirm the play, or type 'undo' to take it back.")

    def hint(self, plays, dice, arg: str) -> None:
        from gammon.eval.analysis import ranked
        try:
            n = read_whole(arg, "hint N: N", 1, 1000) if arg else 5
        except ValueError as e:
            self.say(f"{e} (a number of plays)")
            return
        self.tell_extra()
        self.tell_score()
        rows = ranked(self.bot, self.board, dice[0], dice[1], self.variant)[:max(1, n)]
        for line in hint_lines(rows, self.bot, self.bot_name, self.match.total(), self.length):
            self.say(line)

    def human_doubles(self) -> None:
        value = self.cube
        self.game.actions.append(Action(HUMAN, DOUBLE, cube=2 * value))
        respond = getattr(self.bot, "respond", None)
        answer = TAKE if respond is None else self.bot_answer(respond)
        if answer == DROP:
            self.say(f"{self.bot_name} passes: you win {value} point{'s' * (value > 1)}.")
            self.game.actions.append(Action(BOT, DROP))
            self.end(HUMAN, value, "pass")
            return
        self.say(f"{self.bot_name} takes: the cube is at {2 * value}, {self.bot_name}'s.")
        self.game.actions.append(Action(BOT, TAKE))
        self.accept_double()

    def bot_answer(self, respond) -> str:
        """The bot's take or pass of the person's double (a beaver, if any, counts as a
        take: these sessions play without beavers)."""
        return DROP if self.bot_response(respond, beavers=False) == PASS else TAKE

    # --- Nuclear's bomb ----------------------------------------------------------------------

    def bomb_words(self) -> str:
        owner = int(self.state.extra["bomb"][0])  # relative to the player on roll
        if owner == 0:
            return "centred"
        return "yours" if (owner > 0) == (self.turn == HUMAN) else f"{self.bot_name}'s"

    def detonate(self, who: str) -> None:
        """The player on roll explodes the bomb (``Table.explode_bomb``), said in a line."""
        sent = self.explode_bomb()
        self.say(f"{who} the bomb: {sent} blot{'s' if sent != 1 else ''} to the bar.")

    # --- the bot's turn --------------------------------------------------------------------

    def bot_turn(self, dice) -> None:
        """The bot's turn (``dice``: the opening roll's, else None: rolled here); it returns
        early when the game ends in it."""
        if dice is None:
            if self.bot_acts("detonate"):
                self.detonate(f"{self.bot_name} detonates")
                self.show_board("")
            if self.may_double(BOT) and self.bot_offers():
                self.bot_doubles()
                if self.game_over:  # the person passed
                    return
            dice = self.roll(BOT)
            if dice is None:
                return
        d1, d2 = dice
        boards, roll = self.board[None], np.array([[d1, d2]])
        plays = legal_plays(boards, roll, self.variant)
        roll_text = f"{max(d1, d2)}-{min(d1, d2)}"
        if plays.dice_used[0] == 0:
            self.say(f"{self.bot_name} rolls {roll_text} and cannot move.")
            self.commit(BOT, plays, 0, (d1, d2))
            return
        self.tell_extra()
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
            word, arg = split_words(text)
            if word in ("take", "t"):
                self.game.actions.append(Action(HUMAN, TAKE))
                self.accept_double()
                self.say(f"You take: the cube is at {2 * value}, yours.")
                return
            if word in ("pass", "drop", "p"):
                self.game.actions.append(Action(HUMAN, DROP))
                self.say("You pass.")
                self.end(BOT, value, "pass")
                return
            if word in ("double", "resign") or not self.command(word, arg, "answer"):
                self.say("Type 'take' or 'pass'.")

    # --- shared ----------------------------------------------------------------------------

    def commit(self, player: int, plays, row: int, dice) -> None:
        """Make the play, record it, end the game when it bears off the last checker."""
        kind, points = self.record(player, plays, row, dice)
        if kind:
            who = "You win" if player == HUMAN else f"{self.bot_name} wins"
            self.end(player, points, f"{who} {RESULTS[kind]}")

    def end(self, winner: int, points: int, how: str) -> None:
        """End the game: ``winner`` wins ``points`` (``game_over`` from now on; the turn
        that ended it returns)."""
        self.finish(winner, points)
        if how not in ("pass", "resign"):
            self.say(f"{how}: {points} point{'s' * (points != 1)}.")

    def command(self, word: str, arg: str, stage: str | None) -> bool:
        """The commands that work at every prompt; False when ``word`` is none of them.
        ``stage``: the prompt ("opening" the opening roll's dice, "roll", "play", "answer",
        None other dice typed). A resignation the bot accepts ends the game: the caller
        checks ``game_over``."""
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
            self.resign(begun=stage != "opening")
        elif word in ("double", "take", "pass", "drop"):
            self.say(self.cube_hint(word, stage))
        elif word in ("hint", "auto") and stage != "play":
            self.say(f"'{word}' works once you have rolled.")
        else:
            return False
        return True

    def cube_hint(self, word: str, stage: str | None) -> str:
        if self.cube_rules is None:
            return "The cube is not in play: start with --cube to use it."
        if word == "double":
            if self.crawford:
                return "No doubling in the Crawford game."
            if not self.may_double(HUMAN):
                return "You cannot double now: the cube is not yours to turn."
            return "Double before you roll: at the 'Enter to roll' prompt."
        return "There is no double to answer."

    def resign(self, begun: bool = True) -> None:
        """Offer the bot a single game, a gammon or a backgammon (those possible now, times
        the cube); it accepts or declines by its own evaluation (``eval.bots.resign``).
        ``begun`` False: the opening roll is not yet made, so there is no game to resign."""
        if not begun or self.state is None or self.game.winner is not None:
            self.say("No game in progress: there is nothing to resign yet.")
            return
        most = self.loss_if_resigned()
        level = ask_resign_level(self.console, most, self.cube, self.bot_name)
        if level is None:
            self.say("Play on.")
            return
        points = level * self.cube
        if self.bot_accepts(level):
            self.say(f"{self.bot_name} accepts {RESULTS[level]}.")
            self.say(f"You resign: {self.bot_name} wins {points} point{'s' * (points != 1)}.")
            self.end(BOT, points, "resign")
            return
        self.say(f"{self.bot_name} declines {RESULTS[level]} ({points} "
                 f"point{'s' * (points != 1)}): play on.")

    def owner_words(self) -> str:
        return {None: "centred", HUMAN: "yours", BOT: f"{self.bot_name}'s"}[self.owner]

    def show_board(self, note: str) -> None:
        mine = self.board if self.turn == HUMAN else flip(self.board)
        left, right = self.match.total()
        cube = f", cube {self.cube} ({self.owner_words()})" if self.cube_rules is not None else ""
        if self.length:
            cube += f", {self.length}-point match" + (", Crawford game" if self.crawford
                                                       else "")
        self.say(f"\n{self.name} {left} - {self.bot_name} {right}{cube}")
        self.say(self.board_text(mine, note))

    def board_text(self, board, note: str) -> str:
        """The diagram from the person's side, its 'X on roll' line replaced by ``note``."""
        bomb = None
        if self.has_bomb:  # X is the person: the bomb relative to him; before the first
            # game's opening roll there is no state yet and the bomb is centred, as it starts
            bomb = 0 if self.state is None else (
                int(self.state.extra["bomb"][0]) * (1 if self.turn == HUMAN else -1))
        return board_text(self.variant, board, note, bomb)


__all__ = ["Session"]
