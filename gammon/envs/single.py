"""The single-agent Gymnasium env: ``BackgammonEnv`` (``gammon/Backgammon-v0``).

The agent plays seat 0 against a bot given by name in seat 1 (``opponent="pubeval"``,
``"random"``, ``"net:"``...), one money game per episode or a whole match
(``match_length=N``), with or without the cube (``cube=True`` or an
``engine.cube.CubeRules``), under any variant (``variant="nackgammon"``...). The action
space, the mask and the observation are described in docs/envs.md and in
``gammon.envs.actions`` and ``gammon.envs.observation``; the game itself is
``gammon.envs.core.Games`` with one slot.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from gammon.engine.formats.diagram import diagram
from gammon.engine.rules import variant as get_variant
from gammon.eval.bots.registry import draws_numbers

from .actions import action_name
from .agents import make_player
from .core import MOVE, OVER, PHASES, Games, cube_options
from .dice import RandomDice
from .observation import HIGH, LOW

ILLEGAL = ("ignore", "raise")


def check_illegal(illegal_action: str) -> str:
    if illegal_action not in ILLEGAL:
        raise ValueError(f"illegal_action is one of {', '.join(ILLEGAL)}, got "
                         f"{illegal_action!r}")
    return illegal_action


class BackgammonEnv(gym.Env):
    """One agent (seat 0) against a bot (seat 1). Rewards: points (times the cube) at the
    end of a money game; in a match, each game's change of the agent's match winning chance.
    ``info["action_mask"]``: (actions,) int8, the legal actions. An illegal action changes
    nothing (reward 0, ``info["illegal_action"]``), or raises with
    ``illegal_action="raise"``. ``dice``: a fixed dice source (``gammon.envs.dice``) in place
    of the env's generator."""

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, opponent="pubeval", variant="standard", cube=None, match_length: int = 0,
                 encoding: str | None = None, met=None, dice=None,
                 illegal_action: str = "ignore", render_mode: str | None = None):
        self.rules = get_variant(variant)
        self.cube_rules = cube_options(cube, match_length)
        self.opponent_name = opponent if isinstance(opponent, str) else None
        self.games = Games(1, self.rules, (None, make_player(opponent, None, self.rules,
                                                             self.cube_rules)),
                           self.cube_rules, match_length, met, encoding)
        self.illegal_action = check_illegal(illegal_action)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.dice = dice
        self.action_space = spaces.Discrete(self.games.actions)
        self.observation_space = spaces.Box(LOW, HIGH, (self.games.observer.width,),
                                            np.float32)
        self._slot = np.zeros(1, dtype=np.int64)

    @property
    def fields(self) -> dict:
        """The observation's fields: name -> slice (``gammon.envs.observation``)."""
        return self.games.observer.fields

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None and self.opponent_name and draws_numbers(self.opponent_name):
            bot_seed = int(self.np_random.integers(2 ** 63))
            self.games.players = (self.games.players[0],
                                  make_player(self.opponent_name, bot_seed, self.rules,
                                              self.cube_rules))
            self.games.turn.players = self.games.players
        self.games.reset(self._slot, self.dice or RandomDice(self.np_random))
        return self._observation(), self._info(False)

    def step(self, action):
        if self.games.phase[0] == OVER:
            raise RuntimeError("the episode is over: call reset()")
        legal = bool(self.games.act(self._slot, np.array([action]))[0])
        if not legal and self.illegal_action == "raise":
            raise ValueError(f"action {action} is not legal now; legal: "
                             f"{np.flatnonzero(self.action_mask()).tolist()}")
        reward = float(self.games.take_rewards(self._slot)[0, 0])
        over = bool(self.games.phase[0] == OVER)
        return self._observation(), reward, over, False, self._info(not legal)

    def action_mask(self) -> np.ndarray:
        """(actions,) int8: the legal actions now."""
        return self.games.masks(self._slot)[0].astype(np.int8)

    def _observation(self) -> np.ndarray:
        return self.games.observe(self._slot, self._slot)[0]

    def _info(self, illegal: bool) -> dict:
        g = self.games
        info = {"action_mask": self.action_mask(), "phase": PHASES[min(g.phase[0], OVER)],
                "dice": g.dice[0].copy(), "illegal_action": illegal}
        if g.phase[0] == OVER:
            info["points"] = int(g.last_points[0])
        return info

    def render(self):
        if self.render_mode != "ansi":
            return None
        g = self.games
        board = g.view_boards(self._slot, self._slot)[0]
        bomb = g.state.extra.get("bomb")
        text = diagram(board, self.rules.checkers, pins=self.rules.position_format == "plakoto",
                       bomb=None if bomb is None else int(bomb[0]) *
                       (1 if g.state.seat[0] == 0 else -1))
        lines = [text.replace("X on roll", "X: the agent"), f"phase: {PHASES[min(g.phase[0], OVER)]}"]
        if g.phase[0] == MOVE:
            lines.append(f"dice: {int(g.dice[0, 0])}-{int(g.dice[0, 1])}")
        if g.state.cube is not None:
            lines.append(f"cube: {int(g.state.cube.value[0])}")
        legal = np.flatnonzero(self.action_mask())
        lines.append("legal: " + ", ".join(action_name(a, self.rules) for a in legal))
        return "\n".join(lines)


__all__ = ["BackgammonEnv"]
