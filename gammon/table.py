"""A person against a bot at one table, without any talk: ``Table``, the game logic that the
terminal session (``gammon.session``) and the board in the browser (``gammon.web.game``)
share.

The game itself is one game of the game loop (``engine.game``: its state, ``end_turn`` for
the end of the game and its points) under the cube's rules (``engine.cube``), recorded as
a ``.mat`` match (``engine.formats.matfile``). In a match the cube is always in play, the
game after a player first reaches N-1 points is the Crawford game (no doubling,
``engine.match``), and the bot is told the score (``observe_score``) before each of its
decisions and before a hint, from the side of the player on roll.
"""

from __future__ import annotations

import numpy as np

from gammon.engine import cube as cube_rules
from gammon.engine.board import flip
from gammon.engine.cube import Cube, CubeRules, legal_responses
from gammon.engine.cube_policy import tell_score
from gammon.engine.formats.matfile import PLAY, Action, Game, Match, play_text
from gammon.engine.game import asks, end_turn, new_games
from gammon.engine.match import MatchScore, crawford_game
from gammon.engine.rules import variant as get_variant
from gammon.eval.bots.resign import accepts_resignation, resign_levels

HUMAN, BOT = 0, 1
RESULTS = {1: "a single game", 2: "a gammon", 3: "a backgammon"}


class Table:
    """A person (player 0 of the match, HUMAN) against a bot (player 1, BOT), without any
    talk: the match record, the game loop's state, the Crawford game, the bot told the
    score, and the decisions the bot makes on the cube and on a resignation. The terminal
    session (``gammon.session.Session``) and the board in the browser (``gammon.web.game``)
    both play on one; whoever holds it decides when the person is asked what."""

    def __init__(self, bot, bot_name: str, rng: np.random.Generator,
                 variant: str = "standard", cube_rules: CubeRules | None = None,
                 name: str = "human", length: int = 0):
        self.bot, self.bot_name, self.rng = bot, bot_name, rng
        self.variant = get_variant(variant)
        self.checkers = self.variant.checkers
        self.length = length  # points to win the match; 0: a money session
        if length and (cube_rules is None or cube_rules.jacoby or cube_rules.beavers
                       or cube_rules.auto_doubles):
            cube_rules = CubeRules()  # a match: the cube, no Jacoby, beavers or automatic doubles
        self.cube_rules = cube_rules  # the cube's rules (None: no cube); the variant's: variant
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
                               Cube.centred(1) if self.cube_rules is not None else None)

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

    # --- the variant's actions before the roll (``Rules.before_roll_actions``) -----------------

    @property
    def has_bomb(self) -> bool:
        return "bomb" in self.variant.extra_state

    def _extra(self) -> dict:
        """The variant's state of the game: name -> (1,) array, relative to the player on
        roll."""
        return {name: v[:1] for name, v in self.state.extra.items()}

    def may_act(self, action: str) -> bool:
        """Whether the player on roll may take the variant's ``action`` now, before his roll
        (``Rules.may_act``: Nuclear's "detonate" "when the bomb is centred or his")."""
        return (action in self.variant.before_roll_actions
                and bool(self.variant.may_act(action, self.board[None], self._extra())[0]))

    def act(self, action: str) -> None:
        """The player on roll takes ``action`` (``Rules.act``: Nuclear's detonation sends every
        blot to its bar and the bomb to the other side)."""
        boards, changed = self.variant.act(action, self.board[None].copy(), self._extra())
        self.state.boards[0] = boards[0]
        for name, values in changed.items():
            self.state.extra[name][0] = values[0]

    def bot_acts(self, action: str) -> bool:
        """Whether the bot, on roll, takes ``action`` where it may (its optional method of
        that name, ``engine.game.asks``)."""
        if not self.may_act(action):
            return False
        state = tuple(v.copy() for v in self._extra().values())
        return bool(asks(self.bot, action, self.board[None].copy(), state)[0])

    def may_detonate(self) -> bool:
        """Nuclear: whether the player on roll may detonate the bomb."""
        return self.may_act("detonate")

    def explode_bomb(self) -> int:
        """Nuclear: the player on roll explodes the bomb. Returns the blots sent to the bar
        (a blot: a point with one checker, of either side)."""
        blots = int((np.abs(self.board[1:25]) == 1).sum())
        self.act("detonate")
        return blots

    def tell_extra(self) -> None:
        """Give the bot the variant's state before it evaluates plays (a Nuclear net reads
        the bomb: ``observe_extra``)."""
        observe = getattr(self.bot, "observe_extra", None)
        if self.variant.extra_state and observe is not None:
            observe({name: v.copy() for name, v in self._extra().items()})

    def record(self, player: int, plays, row: int, dice) -> tuple[int, int]:
        """Make the play, record it; (the result 1, 2, 3 and the points won when it bears
        off the last checker, else (0, 0)). The game's winner is set by ``finish``."""
        after = plays.boards[row]
        d1, d2 = sorted(dice, reverse=True)
        text = play_text(plays.steps[row], plays.hits[row]) if plays.dice_used[row] else ""
        self.game.actions.append(Action(player, PLAY, (d1, d2), text))
        cube_value = self.cube
        kind = int(end_turn(self.state, np.zeros(1, np.int64), after[None], self.variant,
                            self.cube_rules)[0])
        if not kind:
            return 0, 0
        points = abs(int(self.state.points[0]))
        return points // cube_value, points  # 1 under Jacoby with the cube centred

    def finish(self, winner: int, points: int) -> None:
        """The game is over: ``winner`` wins ``points``."""
        self.game.winner, self.game.points = winner, points

    @property
    def game_over(self) -> bool:
        """Whether the game being recorded has ended (``finish`` gave it its winner)."""
        return self.game is not None and self.game.winner is not None

    def bot_response(self, respond, beavers: bool) -> int:
        """The bot's answer (engine.cube PASS, TAKE or BEAVER) to the person's double, the
        person on roll; a beaver counts as a take unless ``beavers`` and the rules allow
        it."""
        cube = self.state.cube  # the person is on roll: the owner is seen from the doubler
        self.tell_score()
        raw = respond(self.board[None], cube.value.copy(), cube.owner.copy())
        rules = self.cube_rules or CubeRules()
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
        if self.cube_rules is not None and self.cube_rules.jacoby and self.owner is None:
            return True  # a centred cube under Jacoby: a single game is all it can win
        return bool(accepts_resignation(self.bot, self.board, level,
                                        on_roll=self.turn == BOT, rules=self.variant))

    def loss_if_resigned(self) -> int:
        """What the person could lose if the game ended now (``eval.bots.resign.resign_levels``):
        1, 2 (no checker borne off) or 3 (and a checker on the bar or in the bot's home
        board); 1 under Jacoby while the cube is centred."""
        if self.cube_rules is not None and self.cube_rules.jacoby and self.owner is None:
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
        return (self.cube_rules is not None and player == self.turn and not self.crawford
                and bool(cube_rules.may_double(self.state.cube, self.cube_rules)[0]))

    def accept_double(self, response: int = cube_rules.TAKE) -> None:
        """The player not on roll took a double (or beavered it: x 4): the cube goes to
        them (``engine.cube.accept``)."""
        self.state.cube = cube_rules.accept(self.state.cube, np.array([response]))


__all__ = ["BOT", "HUMAN", "RESULTS", "Table"]
