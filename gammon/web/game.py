"""The games of the board in the browser, without HTTP: ``WebGame`` (one person against the
server's bot, a money series or a match to N, in any variant, from the opening or a set-up
position).

A ``WebGame`` is a ``gammon.table.Table``, the game logic it shares with the terminal
session (the match record, the game loop's state, the Crawford game, the bot's cube and
resignation decisions); this module only decides when the page is asked what. What the page
is told is ``view.state``; the bot's hints and cube advice are ``advice``; the games a
server holds are ``games.Games``. The server rolls the
dice (``numpy.random.default_rng(seed)``, one generator per game), and a game waits in one
of its phases for the person:

    roll        the person is on roll: roll the dice, double, resign
    move        the dice are rolled: play (the whole play at once), hint, resign
    answer      the bot doubled: take, pass (or beaver, with beavers on), resign
    over        the game is over: start the next one
    match_over  a player has reached the match length

Whatever the person does, the bot then plays until the person is to decide again (its
cube decisions by the cube model the bots already use: ``eval.bots.cube.with_cube``,
kind ``auto``), and the answer lists what happened, in order (``events``).

Every state tells the page the board from the person's side (board cells as
``engine.board``: index 1..24 the points, 25 the person's bar, 0 the bot's, positive the
person's checkers), the roll, the legal plays (each as its steps, from and to, bar 25, off
0) and the graph of the legal steps (``gammon.web.steps.step_graph``), so that the page
accepts a step only when the steps so far are the start of some legal play.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from gammon.engine.board import flip
from gammon.engine.cube import BEAVER, PASS, TAKE as TAKE_CUBE, CubeRules, may_beaver
from gammon.engine.dice import opening_roll
from gammon.engine.formats.matfile import DOUBLE, DROP, TAKE, Action, SetUp, format_match
from gammon.engine.movegen import legal_plays
from gammon.engine.rules import VARIANTS, Rules, variant as get_variant

from ..http_api import BadRequest, SEED_LIMIT
from ..table import BOT, HUMAN, RESULTS, Table
from . import advice, view
from .refusals import NoGame, Refused
from .setup import read_set_up
from .steps import follow, step_graph



def board_rules(variant: str) -> Rules:
    """The variant's rules: the board plays every variant of ``engine.rules`` through the one
    turn of ``Table`` (single steps from ``Rules.step``, the variant's actions before the
    roll, Plakoto's pins and mother in the cells)."""
    if variant not in VARIANTS:
        raise Refused(f"no variant {variant[:40]!r}; the board plays {', '.join(VARIANTS)}")
    return get_variant(variant)


class WebGame(Table):
    """One person (HUMAN, "you") against the bot (BOT), played by the page's requests.

    ``length`` 0 is a money series (another game when one ends), N a match to N points
    (the cube always in play, the Crawford rule; no Jacoby or beavers). ``cube`` False
    plays money games without the cube.
    """

    def __init__(self, game_id: str, bot, bot_name: str, variant: str = "standard",
                 length: int = 0, cube: bool = True, jacoby: bool = False,
                 beavers: bool = False, seed: int | None = None,
                 position: str | None = None):
        from gammon.eval.bots.cube import with_cube
        board_rules(variant)  # a variant the board can play, else a one-line refusal
        setup = None
        if position is not None:  # a set-up position: its match, score and cube
            setup = read_set_up(position, variant, length)
            length = setup.length
            if not length and not cube and (setup.cube > 1 or setup.owner is not None):
                raise BadRequest(f"the position's cube is at {setup.cube}"
                                 f"{', owned' if setup.owner is not None else ''}: start it "
                                 f"with the cube on", "cube")
        self._setup = setup
        self.set_up_from = position  # the ID the first game was set up from, or None
        cube_rules = CubeRules(jacoby, beavers) if cube or length else None
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(2, np.uint64)[0]) % SEED_LIMIT
        self.seed = seed
        self.plain_bot = bot
        own = callable(getattr(bot, "offer_double", None)) and callable(
            getattr(bot, "respond", None))  # a bot with its own cube decisions keeps them
        player = bot if own or cube_rules is None else with_cube(bot, "auto", cube_rules)
        super().__init__(player, bot_name, np.random.default_rng(seed), variant, cube_rules,
                         "you", length)
        self.id = game_id
        self.phase = "roll"
        self.dice: tuple[int, int] | None = None
        self.bot_dice: tuple[int, int] | None = None
        self.plays = None
        self.graph: dict | None = None
        self.events: list[dict] = []
        self.beavered: list[int] = []  # the games (1, 2, ...) with a beaver in them
        self.deeper: dict[int, object] = {}  # the bot looking further ahead, by plies
        self.start_game()

    # --- what the page asks ------------------------------------------------------------------

    def roll(self) -> dict:
        self.expect("roll", "roll the dice")
        self._person_rolls()
        return self.to_json()

    def play(self, steps) -> dict:
        self.expect("move", "play")
        row = follow(self.graph, steps)
        self._person_plays(row)
        return self.to_json()

    def double(self) -> dict:
        self.expect("roll", "double")
        if self.cube_rules is None:
            raise Refused("these games are played without the cube")
        if self.crawford:
            raise Refused("no doubling in the Crawford game")
        if not self.may_double(HUMAN):
            raise Refused("you cannot double now: the cube is not yours to turn")
        value = self.cube
        self.game.actions.append(Action(HUMAN, DOUBLE, cube=2 * value))
        self._event("you", "double", f"You double to {2 * value}.")
        respond = getattr(self.bot, "respond", None)
        answer = TAKE_CUBE if respond is None else self.bot_response(respond, beavers=True)
        if answer == PASS:
            self.game.actions.append(Action(BOT, DROP))
            self._event("bot", "pass", f"{self.bot_name} passes: you win {_points(value)}.")
            self._end(HUMAN, value)
            return self.to_json()
        self.game.actions.append(Action(BOT, TAKE))
        self.accept_double(answer)
        if answer == BEAVER:
            self.beavered.append(len(self.match.games))
            self._event("bot", "beaver", f"{self.bot_name} beavers: the cube is at "
                                         f"{self.cube}, {self.bot_name}'s.")
        else:
            self._event("bot", "take", f"{self.bot_name} takes: the cube is at {self.cube}, "
                                       f"{self.bot_name}'s.")
        self._person_rolls()
        return self.to_json()

    def detonate(self) -> dict:
        """Nuclear: the person, before the roll, explodes the bomb ("when the bomb is centred
        or his"; ``Table.explode_bomb``); the person then rolls (or doubles) as before."""
        if not self.has_bomb:
            raise Refused(f"there is no bomb in {self.variant.name}: only Nuclear has one")
        self.expect("roll", "detonate the bomb")
        if not self.may_detonate():
            raise Refused("you cannot detonate now: the bomb is the bot's (it passes to you "
                          "when the bot detonates it)")
        sent = self.explode_bomb()
        self._event("you", "detonate", f"You detonate the bomb: {_blots(sent)} to the bar; "
                                       f"the bomb passes to {self.bot_name}.")
        return self.to_json()

    def answer(self, response: str) -> dict:
        """The person's answer to the bot's double: take, pass or beaver."""
        self.expect("answer", "answer a double")
        value = self.cube
        if response == "pass":
            self.game.actions.append(Action(HUMAN, DROP))
            self._event("you", "pass", f"You pass: {self.bot_name} wins {_points(value)}.")
            self._end(BOT, value)
            return self.to_json()
        if response == "beaver":
            if not self.may_beaver():
                raise BadRequest("no beaver here: these games are played without beavers"
                                 if not (self.cube_rules and self.cube_rules.beavers) else
                                 "no beaver here: the cube would pass its maximum",
                                 "response")
            self.beavered.append(len(self.match.games))
        self.game.actions.append(Action(HUMAN, TAKE))
        self.accept_double(BEAVER if response == "beaver" else TAKE_CUBE)
        word = "beaver" if response == "beaver" else "take"
        self._event("you", word, f"You {word}: the cube is at {self.cube}, yours.")
        self._bot_rolls()
        return self.to_json()

    def resign(self, level: int) -> dict:
        """Offer the bot a single game (1), a gammon (2) or a backgammon (3), times the
        cube; it accepts or declines by its own evaluation (``Table.bot_accepts``)."""
        if self.phase in ("over", "match_over"):
            raise Refused("the game is over: there is nothing to resign")
        most = self.loss_if_resigned()
        if level > most:
            raise BadRequest(f"you can resign at most {RESULTS[most]} now (level {most})",
                             "level")
        points = level * self.cube
        if self.bot_accepts(level):
            self._event("bot", "accept", f"{self.bot_name} accepts {RESULTS[level]}: "
                                         f"{self.bot_name} wins {_points(points)}.")
            self._end(BOT, points)
        else:
            self._event("bot", "decline", f"{self.bot_name} declines {RESULTS[level]} "
                                          f"({_points(points)}): play on.")
        return self.to_json()

    def next_game(self) -> dict:
        if self.phase == "match_over":
            raise Refused("the match is over: start a new one")
        self.expect("over", "start the next game")
        self.start_game()
        return self.to_json()

    def hint(self, count: int, plies: int | None = None) -> dict:
        """The bot's best plays for the person's roll (``advice.hint``)."""
        return advice.hint(self, count, plies)

    def advice(self, plies: int | None = None) -> dict:
        """The cube action before the person's roll, with its equities (``advice.advice``:
        ``gammon cube``'s answer)."""
        return advice.advice(self, plies)

    def mat(self) -> str:
        """The match so far as a .mat file (the game in progress unfinished). A .mat file
        cannot hold a game set up from a position: a match begun from one is written
        from its second game, at the score after the first, and a comment says so."""
        comments = {"Site": "gammon serve-http", "Round": f"seed {self.seed}"}
        notes = []
        if self.beavered:
            notes.append(f"a beaver in game {', '.join(map(str, self.beavered))} is written "
                         f"as a take (a .mat file holds no beaver)")
        match = self.match
        if match.games and match.games[0].start is not None:
            first = match.games[0]
            left, right = match.start_score
            if first.winner is not None:
                left += first.points if first.winner == HUMAN else 0
                right += first.points if first.winner == BOT else 0
            match = replace(match, games=match.games[1:], start_score=(left, right))
            notes.append(f"game 1 began from the position {self.set_up_from} set up by hand, "
                         f"which a .mat file cannot hold: the file starts after it")
        if notes:
            comments["Annotator"] = "; ".join(notes)
        return format_match(match, comments)

    # --- the turns ---------------------------------------------------------------------------

    def start_game(self) -> None:
        """The next game: the opening roll (one die each, never a tie) decides who starts
        with those two dice; the first game of one set up from a position starts there."""
        self.events = []
        if self._setup is not None:
            self._start_set_up(self._setup)
            self._setup = None
            return
        self.new_game()
        _, dice = opening_roll(self.rng, 1)  # (1, 2)
        mine, theirs = int(dice[0, 0]), int(dice[0, 1])
        first = HUMAN if mine > theirs else BOT
        self.begin(first)
        note = " This is the Crawford game: no doubling." if self.crawford else ""
        if len(self.match.games) == 1 and self.variant.name in view.RULE_WORDS:
            note += " " + view.RULE_WORDS[self.variant.name]
        self._event(None, "start", f"Game {len(self.match.games)}: opening roll, you "
                                   f"{mine}, {self.bot_name} {theirs}.{note}")
        if first == HUMAN:
            self._ready((mine, theirs))
        else:
            self._bot_plays((theirs, mine))

    def _start_set_up(self, setup) -> None:
        """The first game from a set-up position (``setup.SetUpGame``): the person on roll,
        the score before it, the Crawford game, the cube; the dice when already rolled."""
        left, right = setup.score
        self.match.start_score = (left, right)
        if self.length and max(left, right) == self.length - 1 and not setup.crawford:
            self.had_crawford = True  # a player at N-1 outside the Crawford game: after it
        self.new_game()
        self.begin(HUMAN)
        self.state.boards[0] = setup.board
        if self.state.cube is not None:
            owner = {None: 0, HUMAN: 1, BOT: -1}[setup.owner]  # from the player on roll
            self.state.cube.value[0], self.state.cube.owner[0] = setup.cube, owner
        self.game.start = SetUp(setup.board.copy(), HUMAN, setup.cube,
                                -1 if setup.owner is None else setup.owner)
        where = (f"{self.length}-point match, you {left}, {self.bot_name} {right}"
                 if self.length else "money game")
        held = {None: "centred", HUMAN: "yours", BOT: f"{self.bot_name}'s"}[setup.owner]
        cube = f"; the cube at {setup.cube}, {held}" if self.cube_rules is not None else ""
        note = " This is the Crawford game: no doubling." if self.crawford else ""
        if self.variant.name in view.RULE_WORDS:
            note += " " + view.RULE_WORDS[self.variant.name]
        self._event(None, "start", f"Game {len(self.match.games)} from the position set up "
                                   f"({where}{cube}), you on roll.{note}")
        if setup.dice is not None:
            self._ready(setup.dice)

    def _person_rolls(self) -> None:
        self._ready(self.throw())

    def _ready(self, dice: tuple[int, int]) -> None:
        """The person's roll: the plays it allows; no legal play passes the turn."""
        self.dice, self.phase = dice, "move"
        d1, d2 = dice
        self.plays = legal_plays(self.board[None], np.array([[d1, d2]]), self.variant)
        self.graph = step_graph(self.board, d1, d2, self.plays, self.variant)
        if self.plays.dice_used[0] == 0:
            self._event("you", "no play", f"You roll {_roll(dice)} and cannot move.")
            self._person_plays(0)

    def _person_plays(self, row: int) -> None:
        plays, dice = self.plays, self.dice
        if plays.dice_used[row]:
            self._event("you", "play", f"You play {_roll(dice)}: "
                                       f"{view.play_words(plays, row, dice, self.variant)}.",
                        **view.pins_of(plays, row, HUMAN, self.variant))
        kind, points = self.record(HUMAN, plays, row, dice)
        self.plays = self.graph = None
        if kind:
            why = view.ending_words(plays.boards[row], self.variant, "you", self.bot_name)
            self._event("you", "win", f"You win {RESULTS[kind]}: {_points(points)}.{why}")
            self._end(HUMAN, points)
            return
        self._bot_turn()

    def _bot_turn(self) -> None:
        """The bot on roll: it may double (then the person answers), else rolls and plays."""
        self.dice = None
        if self.bot_acts("detonate"):  # Nuclear: before its roll, like a double
            sent = self.explode_bomb()
            self._event("bot", "detonate", f"{self.bot_name} detonates the bomb: "
                                           f"{_blots(sent)} to the bar; the bomb passes to you.")
        if self.may_double(BOT) and self.bot_offers():
            self.game.actions.append(Action(BOT, DOUBLE, cube=2 * self.cube))
            beaver = " or beaver" if self.may_beaver() else ""
            self._event("bot", "double", f"{self.bot_name} doubles to {2 * self.cube}: take"
                                         f"{beaver} or pass?")
            self.phase = "answer"
            return
        self._bot_rolls()

    def _bot_rolls(self) -> None:
        self._bot_plays(self.throw())

    def _bot_plays(self, dice: tuple[int, int]) -> None:
        d1, d2 = dice
        self.bot_dice = dice
        boards, roll = self.board[None], np.array([[d1, d2]])
        plays = legal_plays(boards, roll, self.variant)
        if plays.dice_used[0] == 0:
            row = 0
            self._event("bot", "no play", f"{self.bot_name} rolls {_roll(dice)} and cannot "
                                          f"move.")
        else:
            self.tell_extra()
            self.tell_score()
            row = int(self.bot.choose(plays, boards, roll)[0])
            self._event("bot", "play", f"{self.bot_name} rolls {_roll(dice)} and plays "
                                       f"{view.play_words(plays, row, dice, self.variant)}.",
                        dice=[d1, d2], **view.pins_of(plays, row, BOT, self.variant))
        kind, points = self.record(BOT, plays, row, dice)
        if kind:
            why = view.ending_words(plays.boards[row], self.variant, "bot", self.bot_name)
            self._event("bot", "win", f"{self.bot_name} wins {RESULTS[kind]}: "
                                      f"{_points(points)}.{why}")
            self._end(BOT, points)
            return
        self.dice, self.phase = None, "roll"

    def _end(self, winner: int, points: int) -> None:
        self.finish(winner, points)
        self.dice = self.plays = self.graph = None
        self.phase = "over" if self.match_winner() is None else "match_over"
        left, right = self.match.total()
        if self.phase == "match_over":
            who = "You win" if self.match_winner() == HUMAN else f"{self.bot_name} wins"
            self._event(None, "match", f"{who} the {self.length}-point match, "
                                       f"{max(left, right)}-{min(left, right)}.")

    def jacoby(self) -> bool:
        """Whether the Jacoby rule holds in this game (money play only)."""
        return bool(self.cube_rules and self.cube_rules.jacoby and not self.length)

    def may_beaver(self) -> bool:
        """Whether the taker of a double offered now may beaver it (the cube before the
        offer: ``engine.cube.may_beaver``)."""
        return bool(self.cube_rules is not None and not self.length
                    and may_beaver(self.state.cube, self.cube_rules)[0])

    def expect(self, phase: str, what: str) -> None:
        if self.phase != phase:
            raise Refused(f"you cannot {what} now: {PHASE_WORDS[self.phase]}")

    def _event(self, who: str | None, kind: str, text: str, **more) -> None:
        self.events.append({"who": who, "kind": kind, "text": text, **more})

    # --- what the page is told ---------------------------------------------------------------

    def person_board(self) -> np.ndarray:
        """(26,) the board from the person's side."""
        return self.board if self.turn == HUMAN else flip(self.board)

    def to_json(self) -> dict:
        """The game's state for the page (``view.state``), with the events since the last."""
        return view.state(self)


PHASE_WORDS = {"roll": "you are to roll (or double, or resign)",
               "move": "you are to play your roll",
               "answer": "the bot has doubled: take or pass",
               "over": "the game is over: start the next one",
               "match_over": "the match is over"}


def _roll(dice) -> str:
    return f"{max(dice)}-{min(dice)}"


def _blots(n: int) -> str:
    return f"{n} blot{'s' if n != 1 else ''}"


def _points(n: int) -> str:
    return f"{n} point{'s' if n != 1 else ''}"


__all__ = ["NoGame", "PHASE_WORDS", "Refused", "WebGame", "board_rules"]
