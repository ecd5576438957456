"""The games of the board in the browser, without HTTP: ``WebGame`` (one person against the
server's bot, a money series or a match to N) and ``Games`` (those the server holds, by id).

A ``WebGame`` is a ``gammon.table.Table``, the game logic it shares with the terminal
session (the match record, the game loop's state, the Crawford game, the bot's cube and
resignation decisions); this module only decides when the page is asked what. The server rolls the
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

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import replace

import numpy as np

from gammon.engine.board import OPP_BAR, borne_off, flip, pip_counts
from gammon.engine.cube import BEAVER, PASS, TAKE as TAKE_CUBE, CubeRules, may_beaver
from gammon.engine.dice import opening_roll
from gammon.engine.formats import position as positions, xgid
from gammon.engine.formats.matchid import CENTRED, MatchState, encode_match_id
from gammon.engine.formats.matfile import DOUBLE, DROP, TAKE, Action, SetUp, format_match
from gammon.engine.formats.notation import format_play
from gammon.engine.movegen import legal_plays
from gammon.engine.rules import VARIANTS, Rules, variant as get_variant
from gammon.engine.rules import plakoto

from ..http_api import BadRequest, SEED_LIMIT
from ..table import BOT, HUMAN, RESULTS, Table
from .setup import read_set_up
from .steps import follow, step_graph

MAX_GAMES = 64  # games held at once; a new one drops the one least recently used
SIDES = {HUMAN: "you", BOT: "bot", None: None}


class NoGame(LookupError):
    """No game by that id (never made, or dropped for newer ones): 404."""


class Refused(RuntimeError):
    """An action the game cannot take now (not the person's turn, no double to answer): 409."""


def board_rules(variant: str) -> Rules:
    """The variant's rules: the board plays every variant of ``engine.rules`` through the one
    turn of ``Table`` (single steps from ``Rules.step``, the variant's actions before the
    roll, Plakoto's pins and mother in the cells)."""
    if variant not in VARIANTS:
        raise Refused(f"no variant {variant[:40]!r}; the board plays {', '.join(VARIANTS)}")
    return get_variant(variant)


# what the page says of each variant's rules when a game starts (the status line)
RULE_WORDS = {
    "nackgammon": "Nackgammon: two checkers each start on the 23- and the 24-point.",
    "hypergammon": "Hypergammon: three checkers a side, on the 24-, 23- and 22-points.",
    "longgammon": "LongGammon: all fifteen start on your 24-point.",
    "caucasian": ("The Caucasian rule: a checker that hits in your home board may not hide "
                  "on your own checkers or bear off in the same turn."),
    "suddendeath": ("Sudden death: whoever first hits a checker wins (a single game, times "
                    "the cube); no gammons or backgammons."),
    "nuclear": ("Nuclear: before your roll you may detonate the bomb when it is centred or "
                "yours; every blot of both sides goes to the bar, and the bomb passes to "
                "the other side."),
    "plakoto": ("Plakoto: a lone checker is pinned, not hit: it cannot move until the "
                "pinner leaves. Pinning the mother (the last checker on the starting point) "
                "wins a gammon. Bear off when all fifteen are home."),
}


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
        self._deeper: dict[int, object] = {}  # the bot looking further ahead, by plies
        self.start_game()

    # --- what the page asks ------------------------------------------------------------------

    def roll(self) -> dict:
        self._expect("roll", "roll the dice")
        self._person_rolls()
        return self.to_json()

    def play(self, steps) -> dict:
        self._expect("move", "play")
        row = follow(self.graph, steps)
        self._person_plays(row)
        return self.to_json()

    def double(self) -> dict:
        self._expect("roll", "double")
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
        self._expect("roll", "detonate the bomb")
        if not self.may_detonate():
            raise Refused("you cannot detonate now: the bomb is the bot's (it passes to you "
                          "when the bot detonates it)")
        sent = self.explode_bomb()
        self._event("you", "detonate", f"You detonate the bomb: {_blots(sent)} to the bar; "
                                       f"the bomb passes to {self.bot_name}.")
        return self.to_json()

    def answer(self, response: str) -> dict:
        """The person's answer to the bot's double: take, pass or beaver."""
        self._expect("answer", "answer a double")
        value = self.cube
        if response == "pass":
            self.game.actions.append(Action(HUMAN, DROP))
            self._event("you", "pass", f"You pass: {self.bot_name} wins {_points(value)}.")
            self._end(BOT, value)
            return self.to_json()
        if response == "beaver":
            if not self._may_beaver():
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
        self._expect("over", "start the next game")
        self.start_game()
        return self.to_json()

    def hint(self, count: int, plies: int | None = None) -> dict:
        """The bot's best plays for the person's roll, with their probabilities, looking
        ``plies`` ahead (default: the bot's own depth)."""
        from gammon.eval.analysis import ranked
        self._expect("move", "ask for a hint on a play")
        bot, plies = self._bot_at(plies)
        self.tell_extra()
        self.tell_score()
        d1, d2 = self.dice
        started = time.perf_counter()
        rows = ranked(bot, self.board, d1, d2, self.variant.name)[:count]
        label = getattr(bot, "score_label", "score")
        if rows and "probabilities" in rows[0]:
            label = "cubeless equity"
        return {"id": self.id, "dice": [d1, d2], "score": label, "plies": plies,
                "seconds": round(time.perf_counter() - started, 3), "plays": rows}

    def advice(self, plies: int | None = None) -> dict:
        """The cube action before the person's roll with its equities (no double,
        double/take, double/pass, per cube: money, or match winning chances at a match
        score), as ``gammon cube`` (and ``gammon analyze``) give it for this position and
        state, the cube looking ``plies`` ahead (default: the bot's own depth; at a match
        score the cube action is 0-ply, as ``gammon cube`` has it)."""
        from gammon.eval.analysis import (NoProbabilities, analyze_position, cube_action,
                                          evaluator, is_match)
        from gammon.model.cube import EFFICIENCY
        self._expect("roll", "ask for cube advice (it comes before the roll)")
        if self.cube_rules is None:
            raise Refused("these games are played without the cube: no cube advice")
        bot, plies = self._bot_at(plies)
        try:
            evaluate = evaluator(bot)
        except NoProbabilities:
            raise Refused(f"{self.bot_name} estimates no probabilities: no cube advice "
                          f"(a network bot, net:, gives it)") from None
        state = self._cube_state()
        note = None
        if is_match(state) and plies:
            note = (f"at a match score the cube action is 0-ply (asked for {plies}), as "
                    f"gammon cube gives it")
            plies = 0
        self.tell_extra()
        started = time.perf_counter()
        found = analyze_position(evaluate, self.board, state, EFFICIENCY, self._jacoby(),
                                 bool(self.cube_rules.beavers and not self.length), plies)
        answer = {"id": self.id, "plies": plies,
                  "seconds": round(time.perf_counter() - started, 3),
                  **cube_action(found),
                  "decision": found.get("decision"),
                  "equities": {k: float(v) for k, v in found["cubeful"].items()},
                  "unit": "match winning chance" if self.length else "points per cube",
                  "probabilities": found.get("probabilities"),
                  "may_double": self.may_double(HUMAN)}
        if note:
            answer["note"] = note
        return answer

    def _bot_at(self, plies: int | None) -> tuple:
        """(the game's bot looking ``plies`` ahead, its plies): the bot itself for None or
        its own depth, else the same bot by name with ``@plies`` (networks only)."""
        from gammon.eval.bots.registry import bot_plies
        from ..errors import UsageError
        from ..options import load_bot, with_plies
        own = bot_plies(self.bot_name) if self.bot_name.startswith("net:") else 0
        if plies is None or plies == own:
            return self.plain_bot, own
        if plies not in self._deeper:
            try:
                self._deeper[plies] = load_bot(with_plies(self.bot_name.split("@")[0],
                                                          plies), None, self.variant.name)
            except UsageError as e:
                raise BadRequest(str(e), "plies") from None
        return self._deeper[plies], plies

    def _cube_state(self) -> MatchState | None:
        """The state of the person's position as ``gammon cube`` reads a POSID:MATCHID (the
        person player 0, on roll); None for money play with a centred 1-cube."""
        if not self.length and self.cube == 1 and self.owner is None:
            return None
        return self._match_state()

    def _match_state(self) -> MatchState:
        """The gnubg Match ID's state of the game, the person player 0 and on roll (before
        his roll; his dice once rolled)."""
        left, right = self.match.total()
        owner = {None: CENTRED, HUMAN: 0, BOT: 1}[self.owner]
        dice = tuple(self.dice) if self.dice and self.phase == "move" else (0, 0)
        return MatchState(cube_value=self.cube, cube_owner=owner, on_roll=0, turn=0,
                          crawford=self.crawford, dice=dice, length=self.length,
                          score=(left, right), jacoby=self._jacoby())

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
        if len(self.match.games) == 1 and self.variant.name in RULE_WORDS:
            note += " " + RULE_WORDS[self.variant.name]
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
        if self.variant.name in RULE_WORDS:
            note += " " + RULE_WORDS[self.variant.name]
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
                                       f"{self._play_words(plays, row, dice)}.",
                        **self._pins_of(plays, row, HUMAN))
        kind, points = self.record(HUMAN, plays, row, dice)
        self.plays = self.graph = None
        if kind:
            self._event("you", "win", f"You win {RESULTS[kind]}: {_points(points)}."
                        f"{self._ending_words(plays.boards[row], 'you')}")
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
            beaver = " or beaver" if self._may_beaver() else ""
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
                                       f"{self._play_words(plays, row, dice)}.",
                        dice=[d1, d2], **self._pins_of(plays, row, BOT))
        kind, points = self.record(BOT, plays, row, dice)
        if kind:
            self._event("bot", "win", f"{self.bot_name} wins {RESULTS[kind]}: "
                                      f"{_points(points)}."
                                      f"{self._ending_words(plays.boards[row], 'bot')}")
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

    def _play_words(self, plays, row: int, dice) -> str:
        """The play in notation; in Plakoto a ``*`` marks a pin, said in words after it."""
        text = format_play(plays.steps[row], plays.hits[row], dice)
        pinned = self._pinned_points(plays, row)
        if pinned:
            text += f" (pinning on {', '.join(map(str, pinned))})"
        return text

    def _pinned_points(self, plays, row: int) -> list[int]:
        """Plakoto: the points (the mover's numbering) where the play pinned a checker."""
        if self.variant.position_format != "plakoto":
            return []
        return sorted({int(b) for (a, b), h in zip(plays.steps[row], plays.hits[row])
                       if a >= 0 and h and b > 0})

    def _pins_of(self, plays, row: int, player: int) -> dict:
        """The event's ``pins``: the points pinned, numbered from the person's side."""
        pinned = self._pinned_points(plays, row)
        if not pinned:
            return {}
        return {"pins": pinned if player == HUMAN else [25 - p for p in pinned]}

    def _ending_words(self, after: np.ndarray, who: str) -> str:
        """Why the game ended, where the variant ends it its own way: Plakoto's mother
        pinned, sudden death's first hit."""
        name = self.variant.name
        if name == "plakoto" and after[0] > 0:  # cell 0 counts the mother's pins
            whose = (f"You pinned {self.bot_name}'s" if who == "you" else
                     f"{self.bot_name} pinned your")
            return f" {whose} mother checker (the last one on the starting point): a gammon."
        if name == "suddendeath" and after[OPP_BAR] < 0:
            return " Sudden death: the first hit wins the game."
        return ""

    def _jacoby(self) -> bool:
        """Whether the Jacoby rule holds in this game (money play only)."""
        return bool(self.cube_rules and self.cube_rules.jacoby and not self.length)

    def _may_beaver(self) -> bool:
        """Whether the taker of a double offered now may beaver it (the cube before the
        offer: ``engine.cube.may_beaver``)."""
        return bool(self.cube_rules is not None and not self.length
                    and may_beaver(self.state.cube, self.cube_rules)[0])

    def _expect(self, phase: str, what: str) -> None:
        if self.phase != phase:
            raise Refused(f"you cannot {what} now: {PHASE_WORDS[self.phase]}")

    def _event(self, who: str | None, kind: str, text: str, **more) -> None:
        self.events.append({"who": who, "kind": kind, "text": text, **more})

    # --- what the page is told ---------------------------------------------------------------

    def person_board(self) -> np.ndarray:
        """(26,) the board from the person's side."""
        return self.board if self.turn == HUMAN else flip(self.board)

    def to_json(self) -> dict:
        board = self.person_board()
        pips, off = self._pips_and_off(board)
        left, right = self.match.total()
        playing = self.phase not in ("over", "match_over")
        plays = []
        if self.phase == "move" and self.plays is not None and self.plays.dice_used[0]:
            steps, hits = self.plays.steps, self.plays.hits
            ids = positions.write_many(self.plays.boards, self.variant)
            plays = [{"play": self._play_words(self.plays, k, self.dice),
                      "steps": [[int(a), int(b)] for a, b in steps[k] if a >= 0],
                      "hits": [bool(h) for h, (a, _) in zip(hits[k], steps[k]) if a >= 0],
                      "result": ids[k]} for k in range(len(self.plays))]
        cube = None
        if self.cube_rules is not None:
            cube = {"value": self.cube, "owner": SIDES[self.owner],
                    "may_double": playing and self.phase == "roll" and self.may_double(HUMAN),
                    "may_beaver": self.phase == "answer" and self._may_beaver()}
        bomb = None
        if self.has_bomb:  # Nuclear: the bomb's owner, seen from the person
            held = int(self.state.extra["bomb"][0]) * (1 if self.turn == HUMAN else -1)
            bomb = {"owner": {0: "centred", 1: "you", -1: "bot"}[held],
                    "may_detonate": (playing and self.phase == "roll" and self.turn == HUMAN
                                     and self.may_detonate())}
        events, self.events = self.events, []
        return {
            "id": self.id, "bot": self.bot_name, "variant": self.variant.name,
            "checkers": self.checkers,
            "seed": self.seed, "length": self.length, "crawford": self.crawford,
            "rules": {"cube": self.cube_rules is not None, "jacoby": self._jacoby(),
                      "beavers": bool(self.cube_rules and self.cube_rules.beavers
                                      and not self.length)},
            "rule_words": RULE_WORDS.get(self.variant.name),
            "game": len(self.match.games), "score": {"you": left, "bot": right},
            "phase": self.phase, "turn": SIDES[self.turn] if playing else None,
            "board": [int(c) for c in board],
            "posid": positions.write(board, self.variant),
            "xgid": self._xgid(board) if playing else None,
            "matchid": (encode_match_id(self._match_state())
                        if playing and self.turn == HUMAN and self.phase != "answer"
                        and self.variant.position_format == "posid" else None),
            "pips": {"you": pips[0], "bot": pips[1]},
            "off": {"you": off[0], "bot": off[1]},
            "dice": list(self.dice) if self.dice else None,
            "bot_dice": list(self.bot_dice) if self.bot_dice else None,
            "plays": plays,
            "moves": self.graph if self.phase == "move" and plays else None,
            "cube": cube,
            "bomb": bomb,
            "mothers": self._mothers(board),
            "resign": self.loss_if_resigned() if playing else 0,
            "winner": SIDES[self.game.winner], "points": self.game.points,
            "match_winner": SIDES[self.match_winner()],
            "events": events,
        }

    def _pips_and_off(self, board: np.ndarray) -> tuple[tuple[int, int], tuple[int, int]]:
        """((pips, borne off) of the person, of the bot) of ``board`` (26,), the person's
        side; in Plakoto pinned checkers count where they lie."""
        if self.variant.position_format == "plakoto":
            mine, theirs = plakoto.per_point(board[None])  # (1, 24) each
            points = np.arange(1, 25)
            pips = (int((mine[0] * points).sum()), int((theirs[0] * (25 - points)).sum()))
            return pips, (self.checkers - int(mine.sum()), self.checkers - int(theirs.sum()))
        p = pip_counts(board[None])
        o = borne_off(board[None], self.checkers)
        return (int(p[0][0]), int(p[1][0])), (int(o[0][0]), int(o[1][0]))

    def _mothers(self, board: np.ndarray) -> dict | None:
        """Plakoto: each side's mother checker, the last one on its starting point (the
        person's 24-point, the bot's 1-point, numbered from the person's side); a side
        without one is absent. None in the other variants."""
        if self.variant.position_format != "plakoto":
            return None
        mine, theirs = plakoto.per_point(board[None])
        out = {}
        if mine[0, 23] == 1:
            out["you"] = 24
        if theirs[0, 0] == 1:
            out["bot"] = 1
        return out

    def _xgid(self, board: np.ndarray) -> str | None:
        """The XGID of the position from the person's side (the person at the bottom); None
        in Plakoto (an XGID cannot hold pins)."""
        if self.variant.position_format == "plakoto":
            return None
        left, right = self.match.total()
        owner = {None: CENTRED, HUMAN: xgid.BOTTOM, BOT: xgid.TOP}[self.owner]
        on_roll = xgid.BOTTOM if self.turn == HUMAN else xgid.TOP
        offered = self.phase == "answer"
        dice = tuple(self.dice) if self.dice and self.turn == HUMAN else (0, 0)
        state = MatchState(cube_value=self.cube, cube_owner=owner, on_roll=on_roll,
                           turn=1 - on_roll if offered else on_roll, crawford=self.crawford,
                           dice=dice, length=self.length, score=(right, left),
                           jacoby=self._jacoby(),
                           double_offered=offered)
        mine = board if self.turn == HUMAN else flip(board)
        try:
            return xgid.encode(mine, state, bool(self.cube_rules and self.cube_rules.beavers))
        except ValueError:
            return None


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


class Games:
    """The games a server holds, by id: at most ``most``, a new game dropping the one
    least recently used. Called from the bot's thread (``gammon.web.threads.BotThread``).

    ``opponent(variant) -> (bot, name)`` gives the bot of a new game of that variant (the
    server's own in its variant, each other variant's shipped model: ``board.board_routes``);
    each is made once and kept."""

    def __init__(self, opponent, variant: str = "standard", most: int = MAX_GAMES):
        self.opponent, self.variant, self.most = opponent, variant, most
        self._bots: dict[str, tuple] = {}
        self._games: OrderedDict[str, WebGame] = OrderedDict()
        self._lock = threading.Lock()

    def bot_for(self, variant: str) -> tuple:
        """(bot, name) playing ``variant``, made the first time it is asked for."""
        if variant not in self._bots:
            self._bots[variant] = self.opponent(variant)
        return self._bots[variant]

    def new(self, variant: str | None = None, **options) -> dict:
        variant = variant or self.variant
        board_rules(variant)  # a variant the board knows, else a one-line refusal
        bot, name = self.bot_for(variant)
        game_id = secrets.token_hex(6)
        game = WebGame(game_id, bot, name, variant, **options)
        with self._lock:
            self._games[game_id] = game
            while len(self._games) > self.most:
                self._games.popitem(last=False)
        return game.to_json()

    def get(self, game_id: str) -> WebGame:
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                raise NoGame(f"no game {game_id[:40]!r}: it was never started, or dropped "
                             f"for {self.most} newer ones, or the server restarted")
            self._games.move_to_end(game_id)
            return game

    def __len__(self) -> int:
        return len(self._games)


__all__ = ["Games", "MAX_GAMES", "NoGame", "Refused", "WebGame", "board_rules"]
