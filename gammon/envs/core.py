"""The games behind every environment: ``Games``, N games (slots) in lock-step, each seat an
agent outside (deciding one action at a time) or a bot.

Each game follows the one turn of ``engine.game`` in its order: the variant's actions
before the roll (``Rules.before_roll_actions``), the cube, the roll, the play, the end of
the game. An agent's decisions go through the same functions a bot's do
(``action_decisions``, ``cube_decisions``, ``end_turn``), handed its decision by the
players of ``gammon.envs.seats``; its play is made step by step (``StepPlays``). A bot's
turns go through ``engine.game.Turn`` (``play_turn``), all the games whose bot is on roll
in one call: one call of the generator per turn for the batch.

A slot is in one phase:

    BEFORE   the agent on roll decides before the roll (only where it has a choice: the
             cube may be doubled, or the variant's action taken; else it rolls at once)
    RESPOND  the agent answers the opponent's double
    MOVE     the agent on roll moves a checker, or passes a roll with no legal play
             (NO_PLAY, the only action then)
    OVER     the episode is over (a money game, or a whole match)

and, inside one ``advance``, in passing: START (an agent's turn begins), ROLL (its
decisions taken: roll), BOT (a bot's turn begins), BOT_PLAY (its decisions taken).
"""

from __future__ import annotations

import numpy as np

from gammon.engine.board import flip
from gammon.engine.cube import Cube, CubeRules, may_beaver, may_double, start_cubes
from gammon.engine.cube_policy import offers, tell_score
from gammon.engine.game import GameState, action_decisions, before_roll, cube_decisions, end_turn
from gammon.engine.match import MatchScore
from gammon.engine.movegen import legal_plays
from gammon.engine.rules import Rules, variant as get_variant

from .actions import (BEAVER, DOUBLE, FIRST_VARIANT_ACTION, NO_PLAY, PASS, ROLL, STEP_ACTIONS,
                      TAKE, action_count)
from .observation import Observer
from .scoring import UNITS, MatchScores
from .seats import Agent, Answers, BotTurn, Offers, Yes
from .steps import StepPlays

BEFORE, RESPOND, MOVE, OVER, START, ROLLING, BOT, BOT_PLAY = range(8)
PHASES = ("before the roll", "answer a double", "move", "over")
_PASSING = (START, ROLLING, BOT, BOT_PLAY)
_ANSWER = {TAKE: 1, PASS: 0, BEAVER: 2}  # engine.cube's TAKE, PASS, BEAVER


def cube_options(cube, match_length: int) -> CubeRules | None:
    """The cube's rules from an env's ``cube`` argument (False/None: no cube, True: the
    plain cube, or a ``CubeRules``); a match is played with the cube (no Jacoby, beavers or
    automatic doubles), as ``engine.game.play`` plays one."""
    rules = cube if isinstance(cube, CubeRules) else (CubeRules() if cube else None)
    if match_length:
        if cube is False:
            raise ValueError("a match is played with the cube (leave cube on for "
                             "match_length > 0)")
        rules = rules or CubeRules()
        if rules.jacoby or rules.beavers or rules.auto_doubles:
            raise ValueError("a match has no Jacoby rule, no beavers and no automatic doubles")
    return rules


class Games:
    """``n`` games, seats ``players`` (None: an agent outside, else a bot)."""

    def __init__(self, n: int, rules: Rules | str, players, cube_rules: CubeRules | None = None,
                 match_length: int = 0, met=None, encoding: str | None = None):
        self.n, self.rules = n, get_variant(rules)
        if all(p is not None for p in players):
            raise ValueError("at least one seat is an agent's")
        self.external = np.array([p is None for p in players])
        self.players = tuple(Agent() if p is None else p for p in players)
        self.cube_rules, self.length = cube_rules, match_length
        self.scores = MatchScores(n, match_length, met) if match_length else None
        self.ctx = self.scores.ctx if self.scores else None
        self.observer = Observer(self.rules, encoding)
        self.actions = action_count(self.rules)
        self.plays = StepPlays(n, self.rules)
        self.state = GameState(np.zeros((n, 26), dtype=np.int8), np.zeros(n, dtype=np.int8),
                               Cube.centred(n) if cube_rules else None,
                               {k: np.zeros(n, dtype=np.int8) for k in self.rules.extra_state})
        self.phase = np.full(n, OVER, dtype=np.int8)
        self.next_action = np.zeros(n, dtype=np.int8)  # the variant's actions still open
        self.dice = np.zeros((n, 2), dtype=np.int8)
        self.opening = np.zeros((n, 2), dtype=np.int8)
        self.reward = np.zeros((n, 2))  # per seat, since the last take_rewards
        self.last_points = np.zeros(n, dtype=np.int32)  # seat 0's points of the last game
        self.games = np.zeros(n, dtype=np.int64)  # games finished in each slot's episode
        self.dice_source = None
        self.turn = BotTurn(self)
        self._masks = None  # every slot's legal actions, until the games change

    # --- episodes ---------------------------------------------------------------------------

    def reset(self, slots: np.ndarray, dice=None) -> None:
        """New episodes in ``slots`` (a game, or a match), played on to the first decision.
        ``dice``: a dice source for every slot from now on (``gammon.envs.dice``)."""
        slots = np.asarray(slots, dtype=np.int64)
        if dice is not None:
            self.dice_source = dice
            dice.reset(self.n)
        self._restart(slots)
        self.advance()

    def _restart(self, slots: np.ndarray) -> None:
        self.reward[slots] = 0
        self.games[slots] = 0
        if self.scores is not None:
            self.scores.start(slots)
        self.new_game(slots)

    def new_game(self, slots: np.ndarray) -> None:
        """The next game in ``slots``: the start position, the opening roll decides."""
        auto = self.cube_rules is not None and self.cube_rules.auto_doubles > 0
        first, opening, ties = self.dice_source.start(slots, auto)
        st = self.state
        st.boards[slots] = self.rules.start_board()
        st.seat[slots] = first
        st.points[slots] = st.plies[slots] = 0
        for name in self.rules.extra_state:
            st.extra[name][slots] = 0
        if st.cube is not None:
            st.cube.value[slots] = start_cubes(ties, self.cube_rules).value
            st.cube.owner[slots] = 0
        self.opening[slots], self.dice[slots] = opening, 0
        self.plays.clear(slots)
        if self.scores is not None:
            self.scores.begin_game(slots)
        self.phase[slots] = np.where(self.external[first], START, BOT)

    def take_rewards(self, slots: np.ndarray) -> np.ndarray:
        """(R, 2) the rewards of each seat since the last call, zeroed."""
        out = self.reward[slots].copy()
        self.reward[slots] = 0
        return out

    # --- who decides what ------------------------------------------------------------------

    def actor(self, slots: np.ndarray) -> np.ndarray:
        """The seat deciding in each slot (the taker while a double waits)."""
        seat = self.state.seat[slots].astype(np.int64)
        return np.where(self.phase[slots] == RESPOND, 1 - seat, seat)

    def may_double_now(self, rows: np.ndarray) -> np.ndarray:
        """Where the player on roll may double: not before the opening roll, not in the
        Crawford game, the cube centred or his and below the maximum."""
        if self.cube_rules is None:
            return np.zeros(len(rows), dtype=bool)
        cube = self.state.cube
        out = may_double(Cube(cube.value[rows], cube.owner[rows]), self.cube_rules)
        out &= self.state.plies[rows] > 0
        if self.ctx is not None:
            out &= ~self.ctx.crawford[rows]
        return out

    def before_options(self, rows: np.ndarray) -> np.ndarray:
        """(R, actions) bool: what the player on roll may do before the roll: roll, double,
        or one of the variant's actions not yet passed over this turn."""
        st = self.state
        out = np.zeros((len(rows), self.actions), dtype=bool)
        out[:, ROLL] = True
        out[:, DOUBLE] = self.may_double_now(rows)
        if self.rules.before_roll_actions:
            extra = {k: st.extra[k][rows] for k in self.rules.extra_state}
            first = st.plies[rows] > 0
            for i, action in enumerate(self.rules.before_roll_actions):
                out[:, FIRST_VARIANT_ACTION + i] = (
                    self.rules.may_act(action, st.boards[rows], extra) & first
                    & (self.next_action[rows] <= i))
        return out

    def masks(self, slots: np.ndarray) -> np.ndarray:
        """(R, actions) bool: the legal actions of each slot (none once it is over)."""
        if self._masks is None:
            self._masks = self._all_masks(np.arange(self.n))
        return self._masks[slots]

    def _all_masks(self, slots: np.ndarray) -> np.ndarray:
        out = np.zeros((len(slots), self.actions), dtype=bool)
        phase = self.phase[slots]
        at = phase == BEFORE
        if at.any():
            out[at] = self.before_options(slots[at])
        at = np.flatnonzero(phase == RESPOND)
        if len(at):
            g = slots[at]
            cube = self.state.cube
            out[at, TAKE] = out[at, PASS] = True
            out[at, BEAVER] = may_beaver(Cube(cube.value[g], cube.owner[g]), self.cube_rules)
        at = phase == MOVE
        if at.any():
            g = slots[at]
            out[at, :STEP_ACTIONS] = self.plays.masks(self.n)[g]
            out[at, NO_PLAY] = self.plays.used[g] == 0
        return out

    # --- the agents' actions -----------------------------------------------------------------

    def act(self, slots: np.ndarray, actions: np.ndarray,
            restart: np.ndarray | None = None) -> np.ndarray:
        """Each slot's actor takes its action (and new episodes start in the slots
        ``restart``); then every game plays on (bots' turns, the rolls) to its next decision.
        Returns (R,) bool: the action was legal (an illegal one changes nothing)."""
        slots = np.asarray(slots, dtype=np.int64)
        actions = np.asarray(actions, dtype=np.int64).reshape(len(slots))
        inside = (actions >= 0) & (actions < self.actions)
        legal = inside & self.masks(slots)[np.arange(len(slots)), np.where(inside, actions, 0)]
        rows, acts = slots[legal], actions[legal]
        phase = self.phase[rows]
        at = phase == BEFORE
        if at.any():
            self._before(rows[at], acts[at])
        at = phase == RESPOND
        if at.any():
            self._settle_doubles(rows[at], np.vectorize(_ANSWER.get)(acts[at]))
        at = phase == MOVE
        if at.any():
            none = acts == NO_PLAY
            done, after = np.zeros(0, dtype=np.int64), np.zeros((0, 26), dtype=np.int8)
            if (at & ~none).any():
                _, done, after = self.plays.step(rows[at & ~none], acts[at & ~none])
            passed = rows[at & none]  # the position itself is the afterstate
            if len(passed):
                done = np.concatenate([done, passed])
                after = np.concatenate([after, self.state.boards[passed]])
            if len(done):
                won = end_turn(self.state, done, after, self.rules, self.cube_rules)
                self.turn_ended(done, won)
        if restart is not None and len(restart):
            self._restart(np.asarray(restart, dtype=np.int64))
        self.advance()
        return legal

    def _before(self, rows: np.ndarray, acts: np.ndarray) -> None:
        self.phase[rows[acts == ROLL]] = ROLLING
        doubled = rows[acts == DOUBLE]
        if len(doubled):  # the taker answers: an agent later, a bot now
            taker = self.external[1 - self.state.seat[doubled]]
            self.phase[doubled[taker]] = RESPOND
            self._settle_doubles(doubled[~taker], None)
        for i, action in enumerate(self.rules.before_roll_actions):
            g = rows[acts == FIRST_VARIANT_ACTION + i]
            if len(g) == 0:
                continue
            players = tuple(Yes([action]) if ext else p
                            for ext, p in zip(self.external, self.players))
            action_decisions(players, self.state, g, self.rules, action)
            self.next_action[g] = i + 1
            choice = self.before_options(g)
            choice[:, ROLL] = False
            self.phase[g] = np.where(choice.any(axis=1), BEFORE, ROLLING)

    def _settle_doubles(self, rows: np.ndarray, answers: np.ndarray | None) -> None:
        """Doubles offered in ``rows`` (by the seat on roll), answered by ``answers`` (the
        takers are agents) or by the taker bots (None), through ``cube_decisions``."""
        if not self.may_double_now(rows).all():
            raise AssertionError("a double was settled where none may be offered")
        for seat in (0, 1):
            sel = self.state.seat[rows] == seat
            g = rows[sel]
            if len(g) == 0:
                continue
            players = list(self.players)
            players[seat] = Offers()
            if answers is not None:
                players[1 - seat] = Answers(answers[sel])
            over = cube_decisions(tuple(players), self.state, g, self.cube_rules,
                                  match=self.ctx)
            self.finish(g[over])
            self.phase[g[~over]] = ROLLING if self.external[seat] else BOT_PLAY

    # --- playing on to the next decision ------------------------------------------------------

    def advance(self) -> None:
        """Play every slot on to its next decision or to the end of its episode."""
        self._masks = None
        steps = ((BOT, self._bot_decisions), (BOT_PLAY, self.turn), (START, self._starts),
                 (ROLLING, self._rolls))
        while True:
            for phase, run in steps:
                rows = np.flatnonzero(self.phase == phase)
                if len(rows):
                    run(rows)
            if not np.isin(self.phase, _PASSING).any():
                return

    def roll(self, rows: np.ndarray) -> np.ndarray:
        """The rolls of the games ``rows``: the opening roll of a new game, else the dice
        source's. (R, 2) int8, kept in ``dice``."""
        plies = self.state.plies[rows]
        out = np.empty((len(rows), 2), dtype=np.int8)
        opening = plies == 0
        out[opening] = self.opening[rows[opening]]
        if not opening.all():
            out[~opening] = self.dice_source.roll(rows[~opening], plies[~opening])
        self.dice[rows] = out
        return out

    def _bot_decisions(self, rows: np.ndarray) -> None:
        """A bot on roll: the variant's actions (``before_roll``), then its doubles; those
        an agent must answer wait for it (RESPOND), the others go on to the roll."""
        st = self.state
        before_roll(self.players, st, rows, self.rules, None, acting=st.plies[rows] > 0)
        self.phase[rows] = BOT_PLAY
        can = rows[self.may_double_now(rows)]
        for seat in (0, 1):
            g = can[st.seat[can] == seat]
            if len(g) == 0:
                continue
            bot, value, owner = self.players[seat], st.cube.value[g], st.cube.owner[g]
            if self.ctx is not None:
                tell_score(bot, self.ctx.view(g, st.seat[g], value, owner))
            self.phase[g[offers(bot, st.boards[g], value, owner)]] = RESPOND

    def _starts(self, rows: np.ndarray) -> None:
        self.next_action[rows] = 0
        choice = self.before_options(rows)
        choice[:, ROLL] = False
        self.phase[rows] = np.where(choice.any(axis=1), BEFORE, ROLLING)

    def _rolls(self, rows: np.ndarray) -> None:
        """An agent on roll rolls: its legal plays to step through (or NO_PLAY)."""
        dice = self.roll(rows)
        boards = self.state.boards[rows]
        self.plays.start(rows, boards, dice, legal_plays(boards, dice, self.rules))
        self.phase[rows] = MOVE

    def turn_ended(self, rows: np.ndarray, won: np.ndarray) -> None:
        """The games ``rows`` were played (``end_turn``): the rules' points for the mover,
        0 where the game goes on with the other seat on roll."""
        self.dice[rows] = 0
        over = won != 0
        self.finish(rows[over])
        go = rows[~over]
        self.phase[go] = np.where(self.external[self.state.seat[go]], START, BOT)

    def finish(self, rows: np.ndarray) -> None:
        """The games ``rows`` are over (their points in ``state.points``, seat 0's view):
        rewards, and the next game of a match that goes on."""
        if len(rows) == 0:
            return
        points = self.state.points[rows]
        self.last_points[rows] = points
        self.games[rows] += 1
        self.plays.clear(rows)
        if self.scores is None:
            gain, over = points.astype(np.float64), np.ones(len(rows), dtype=bool)
        else:
            gain, over = self.scores.record(rows, points)
        self.reward[rows, 0] += gain
        self.reward[rows, 1] -= gain
        self.phase[rows[over]] = OVER
        if not over.all():
            self.new_game(rows[~over])

    # --- what a seat sees ------------------------------------------------------------------

    def score_view(self, slots: np.ndarray, seats: np.ndarray) -> MatchScore | None:
        """The match score of ``slots`` from ``seats`` (None: money play)."""
        if self.ctx is None:
            return None
        st = self.state
        owner = np.where(st.seat[slots] == seats, 1, -1) * st.cube.owner[slots]
        return self.ctx.view(slots, seats, st.cube.value[slots], owner)

    def view_boards(self, slots: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """(R, 26) the positions of ``slots`` from ``seats`` (during a play: with the steps
        taken so far)."""
        st = self.state
        boards = st.boards[slots].copy()
        moving = self.phase[slots] == MOVE
        boards[moving] = self.plays.board[slots[moving]]
        mine = st.seat[slots] == seats
        return np.where(mine[:, None], boards, flip(boards))

    def observe(self, slots: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """(R, width) float32: the observations of ``slots`` from ``seats``
        (``gammon.envs.observation``)."""
        slots, seats = np.asarray(slots, dtype=np.int64), np.asarray(seats, dtype=np.int64)
        st = self.state
        mine = st.seat[slots] == seats
        sign = np.where(mine, 1, -1)
        phase = self.phase[slots].astype(np.int64)
        moving = (phase == MOVE)[:, None]
        if st.cube is not None:
            value, owner = st.cube.value[slots], st.cube.owner[slots] * sign
        else:
            value, owner = np.ones(len(slots)), np.zeros(len(slots))
        match = (self.scores.units(slots, seats) if self.scores is not None
                 else np.zeros((len(slots), UNITS), dtype=np.float32))
        extra = {k: st.extra[k][slots] * (sign if k in self.rules.relative_state else 1)
                 for k in self.rules.extra_state}
        return self.observer(self.view_boards(slots, seats), mine,
                             np.where(moving, self.dice[slots], 0),
                             np.where(moving, self.plays.left[slots], 0), value, owner, match,
                             np.where(phase <= MOVE, phase, -1), extra)


__all__ = ["Games", "cube_options", "BEFORE", "RESPOND", "MOVE", "OVER", "START", "ROLLING",
           "PHASES"]
