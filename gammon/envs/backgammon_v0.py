"""The PettingZoo AEC env of two agents: ``env()`` and ``raw_env()``, as PettingZoo's classic
games have them (``from gammon.envs import backgammon_v0; env = backgammon_v0.env()``).

Agents ``player_0`` and ``player_1`` (the game's seats 0 and 1), the same rules and
arguments as the Gymnasium envs (variant, cube, match_length, encoding, met) but no
opponent bot: both seats are agents. ``agent_selection`` is the agent who decides next:
the player on roll, or the one answering a double. ``observe(agent)`` is, as in the
classic games, ``{"observation": the Gymnasium env's observation from that agent's side,
"action_mask": (actions,) int8}``, the mask all 0 for the agent not to act. Rewards, zero
sum: each game's points (times the cube) at its end, or in a match the change of each
agent's match winning chance. ``env()`` wraps ``raw_env()`` in PettingZoo's usual
wrappers: an illegal action ends the game with reward -1 to its author
(``TerminateIllegalWrapper``), out-of-range actions are refused, the order of calls is
enforced.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from gammon.engine.formats.diagram import diagram
from gammon.engine.rules import variant as get_variant

from .actions import action_name
from .core import OVER, PHASES, Games, cube_options
from .dice import RandomDice
from .observation import HIGH, LOW

AGENTS = ("player_0", "player_1")


def env(**kwargs):
    """``raw_env(**kwargs)`` in PettingZoo's wrappers for classic games."""
    wrapped = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv, EzPickle):
    """Two agents, one game (or match) of any variant, with or without the cube."""

    metadata = {"render_modes": ["ansi"], "name": "backgammon_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, variant="standard", cube=None, match_length: int = 0,
                 encoding: str | None = None, met=None, dice=None,
                 render_mode: str | None = None):
        EzPickle.__init__(self, variant, cube, match_length, encoding, met, dice, render_mode)
        super().__init__()
        self.rules = get_variant(variant)
        self.games = Games(1, self.rules, (None, None), cube_options(cube, match_length),
                           match_length, met, encoding)
        self.dice = dice
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        width = self.games.observer.width
        self.action_spaces = {a: spaces.Discrete(self.games.actions) for a in AGENTS}
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(LOW, HIGH, (width,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.games.actions,), np.int8)}) for a in AGENTS}
        self._slot = np.zeros(1, dtype=np.int64)
        self._rng = np.random.default_rng()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        seat = AGENTS.index(agent)
        observation = self.games.observe(self._slot, np.array([seat]))[0]
        mask = np.zeros(self.games.actions, dtype=np.int8)
        if self.games.phase[0] != OVER and self._actor() == seat:
            mask[:] = self.games.masks(self._slot)[0]
        return {"observation": observation, "action_mask": mask}

    def sync(self) -> None:
        """The games were set from outside (``gammon.envs.search``): whose turn it is."""
        if self.games.phase[0] != OVER:
            self.agent_selection = AGENTS[self._actor()]

    def _actor(self) -> int:
        return int(self.games.actor(self._slot)[0])

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.games.reset(self._slot, self.dice or RandomDice(self._rng))
        self.agent_selection = AGENTS[self._actor()]

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        legal = bool(self.games.act(self._slot, np.array([int(action)]))[0])
        gained = self.games.take_rewards(self._slot)[0]
        self.rewards = {a: float(gained[i]) for i, a in enumerate(AGENTS)}
        self.infos = {a: {"illegal_action": not legal and a == agent} for a in AGENTS}
        if self.games.phase[0] == OVER:
            self.terminations = dict.fromkeys(self.agents, True)
            for a in AGENTS:
                self.infos[a]["points"] = int(self.games.last_points[0]) * (1 if a == AGENTS[0]
                                                                            else -1)
        else:
            self.agent_selection = AGENTS[self._actor()]
        self._accumulate_rewards()

    def render(self):
        if self.render_mode != "ansi":
            return None
        g = self.games
        seat = np.array([self._actor()])
        board = g.view_boards(self._slot, seat)[0]
        text = diagram(board, self.rules.checkers, pins=self.rules.position_format == "plakoto")
        legal = np.flatnonzero(g.masks(self._slot)[0])
        return "\n".join([text.replace("X on roll", f"X: {AGENTS[seat[0]]}"),
                          f"phase: {PHASES[min(g.phase[0], OVER)]}",
                          "legal: " + ", ".join(action_name(a, self.rules) for a in legal)])

    def close(self):
        pass


__all__ = ["env", "raw_env"]
