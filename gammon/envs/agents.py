"""Bots as players in the environments: the opponent of the single-agent envs
(``make_player``), and any bot as an agent (``BotAgent``): the shipped net (``net:``, the
default) as a strong baseline to train against or to measure by, or ``pubeval``, ``random``...

``BotAgent`` decides as the bot decides in the game loop (``engine.game``): the variant's
actions before the roll by the bot's method of the action's name, the cube by its
``offer_double`` and ``respond`` (told the match score first), the play by the bot's policy
on the generator's legal plays (told the variant's state and the score), made through the
env one step at a time: the steps of the traced play that reaches the afterstate it chose.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.cube import Cube, CubeRules, legal_responses
from gammon.engine.cube_policy import offers, responses, tell_score
from gammon.engine.game import asks
from gammon.engine.movegen import legal_plays
from gammon.engine.rules import Rules, variant as get_variant
from gammon.eval.bots.registry import make_bot

from .actions import BEAVER, DOUBLE, FIRST_VARIANT_ACTION, NO_PLAY, PASS, ROLL, TAKE
from .core import BEFORE, MOVE, RESPOND, Games

_ACTION = np.array([PASS, TAKE, BEAVER])  # by engine.cube's PASS, TAKE, BEAVER


def make_player(bot, seed: int | None, rules: Rules | str,
                cube_rules: CubeRules | None = None):
    """A bot by name (``eval.bots.registry.make_bot``: with its ``auto`` cube strategy when
    the cube is on, as ``gammon match --cube`` plays), or a bot object as it is."""
    if not isinstance(bot, str):
        return bot
    rules = get_variant(rules)
    if cube_rules is None:
        return make_bot(bot, seed, rules.name)
    return make_bot(bot, seed, rules.name, cube="auto", rules=cube_rules)


class BotAgent:
    """A bot choosing an agent's actions. ``agent(env)`` answers the action of the single
    env, the (N,) actions of the vector env, or the action of the PettingZoo env's agent
    to act; ``choose(games, slots)`` works on the games behind any of them."""

    def __init__(self, bot="net:", variant: Rules | str = "standard", cube=None,
                 seed: int | None = None):
        from .core import cube_options
        self.rules = get_variant(variant)
        self.bot = make_player(bot, seed, self.rules, cube_options(cube, 0))
        self.targets: dict[int, np.ndarray] = {}  # id(games) -> (n, 26) chosen afterstates

    def __call__(self, env):
        env = getattr(env, "unwrapped", env)
        games = env.games
        if getattr(env, "num_envs", None) is not None:  # the vector env
            return self.choose(games, np.arange(games.n))
        return int(self.choose(games, np.zeros(1, dtype=np.int64))[0])

    def choose(self, games: Games, slots: np.ndarray) -> np.ndarray:
        """(R,) the action of each slot's actor (ROLL where nothing is to decide)."""
        slots = np.asarray(slots, dtype=np.int64)
        out = np.full(len(slots), ROLL, dtype=np.int64)
        phase = games.phase[slots]
        for kind, decide in ((BEFORE, self._before), (RESPOND, self._respond),
                             (MOVE, self._move)):
            at = np.flatnonzero(phase == kind)
            if len(at):
                out[at] = decide(games, slots[at])
        return out

    def _before(self, games: Games, g: np.ndarray) -> np.ndarray:
        st, bot = games.state, self.bot
        options = games.before_options(g)
        out = np.full(len(g), ROLL, dtype=np.int64)
        open_ = np.ones(len(g), dtype=bool)
        for i, action in enumerate(games.rules.before_roll_actions):
            at = np.flatnonzero(options[:, FIRST_VARIANT_ACTION + i] & open_)
            if len(at):
                state = tuple(st.extra[k][g[at]] for k in games.rules.extra_state)
                yes = at[asks(bot, action, st.boards[g[at]], state)]
                out[yes], open_[yes] = FIRST_VARIANT_ACTION + i, False
        at = np.flatnonzero(options[:, DOUBLE] & open_)
        if len(at):
            rows = g[at]
            tell_score(bot, games.score_view(rows, st.seat[rows]))
            doubled = offers(bot, st.boards[rows], st.cube.value[rows], st.cube.owner[rows])
            out[at[doubled]] = DOUBLE
        return out

    def _respond(self, games: Games, g: np.ndarray) -> np.ndarray:
        st = games.state  # the doubler is on roll: the boards and the cube from his side
        cube = Cube(st.cube.value[g], st.cube.owner[g])
        tell_score(self.bot, games.score_view(g, st.seat[g]))
        answer = responses(self.bot, st.boards[g], cube.value.copy(), cube.owner.copy())
        return _ACTION[legal_responses(answer, cube, games.cube_rules)]

    def _move(self, games: Games, g: np.ndarray) -> np.ndarray:
        target = self.targets.get(id(games))
        if target is None or len(target) != games.n:
            target = self.targets[id(games)] = np.zeros((games.n, 26), dtype=np.int8)
        fresh = g[games.plays.taken[g] == 0]
        if len(fresh):  # a new roll: the bot chooses its play
            st = games.state
            boards, dice = st.boards[fresh], games.dice[fresh]
            plays = legal_plays(boards, dice, games.rules)
            if games.rules.extra_state:
                observe = getattr(self.bot, "observe_extra", None)
                if observe is not None:
                    observe({k: st.extra[k][fresh] for k in games.rules.extra_state})
            tell_score(self.bot, games.score_view(fresh, st.seat[fresh]))
            target[fresh] = plays.boards[self.bot(plays, boards, dice)]
        labels = games.plays.labels()
        rows = np.flatnonzero(np.isin(games.plays.game, g)
                              & (games.plays.after == target[games.plays.game]).all(axis=1))
        action = np.full(games.n, ROLL, dtype=np.int64)
        action[games.plays.game[rows]] = labels[rows]
        action[g[games.plays.used[g] == 0]] = NO_PLAY  # the roll cannot be played
        return action[g]


__all__ = ["BotAgent", "make_player"]
