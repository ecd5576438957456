"""The native vector env: ``BackgammonVectorEnv``, N games stepped as one batch.

Not N copies of the single env: the N games are the slots of one ``gammon.envs.core.Games``,
so each ``step`` makes the agents' N actions with NumPy over the batch, then plays the
opponent's turns of every game whose bot is on roll in one ``engine.game.Turn`` (one call
of the generator per turn for all of them) and rolls the agents' dice with one call of the
generator, until every game waits for its agent again.

``gymnasium.make_vec("gammon/Backgammon-v0", num_envs=N,
vectorization_mode="vector_entry_point", ...)`` builds it, with the single env's arguments.

Autoreset (``metadata["autoreset_mode"]``, Gymnasium 1.x's ``AutoresetMode``):

- ``NEXT_STEP`` (the default, as Gymnasium's own vector envs): the step that ends a game's
  episode returns its last observation with ``terminated``; the next ``step`` ignores that
  game's action, starts a new episode there and returns its first observation, reward 0,
  not terminated.
- ``SAME_STEP``: the step that ends an episode starts the next at once and returns the new
  episode's first observation, with the last one in ``info["final_obs"]`` (and the last
  info in ``info["final_info"]``), ``info["_final_obs"]`` marking those games.
- ``DISABLED``: nothing restarts by itself: ``reset(options={"reset_mask": mask})`` restarts
  the games of ``mask``; a game over ignores its actions until then.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from gammon.engine.rules import variant as get_variant
from gammon.eval.bots.registry import draws_numbers

from .agents import make_player
from .core import OVER, Games, cube_options
from .dice import RandomDice
from .observation import HIGH, LOW
from .single import check_illegal


class BackgammonVectorEnv(VectorEnv):
    """``num_envs`` games of an agent (seat 0 of each) against bots (seat 1), with the
    single env's arguments (``gammon.envs.single.BackgammonEnv``) and ``autoreset_mode``."""

    def __init__(self, num_envs: int = 1, opponent="pubeval", variant="standard", cube=None,
                 match_length: int = 0, encoding: str | None = None, met=None, dice=None,
                 illegal_action: str = "ignore",
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                 render_mode: str | None = None):
        if num_envs < 1:
            raise ValueError(f"num_envs is at least 1, got {num_envs}")
        self.num_envs = num_envs
        self.rules = get_variant(variant)
        self.cube_rules = cube_options(cube, match_length)
        self.opponent_name = opponent if isinstance(opponent, str) else None
        self.games = Games(num_envs, self.rules,
                           (None, make_player(opponent, None, self.rules, self.cube_rules)),
                           self.cube_rules, match_length, met, encoding)
        self.illegal_action = check_illegal(illegal_action)
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        self.metadata = {"autoreset_mode": self.autoreset_mode, "render_modes": []}
        self.render_mode = render_mode
        self.dice = dice
        self.single_action_space = spaces.Discrete(self.games.actions)
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, self.games.actions))
        self.single_observation_space = spaces.Box(LOW, HIGH, (self.games.observer.width,),
                                                   np.float32)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self._slots = np.arange(num_envs)
        self._seats = np.zeros(num_envs, dtype=np.int64)
        self._restart = np.zeros(num_envs, dtype=bool)  # NEXT_STEP: at the next step

    @property
    def fields(self) -> dict:
        return self.games.observer.fields

    def reset(self, *, seed=None, options: dict | None = None):
        mask = (options or {}).get("reset_mask")
        if seed is not None and not isinstance(seed, int):
            seed = int(np.random.SeedSequence(list(seed)).generate_state(1)[0])
        super().reset(seed=seed)
        games = self.games
        if mask is None or games.dice_source is None or seed is not None:
            if seed is not None and self.opponent_name and draws_numbers(self.opponent_name):
                bot = make_player(self.opponent_name, int(self.np_random.integers(2 ** 63)),
                                  self.rules, self.cube_rules)
                games.players = games.turn.players = (games.players[0], bot)
            games.reset(self._slots, self.dice or RandomDice(self.np_random))
            self._restart[:] = False
        else:
            rows = self._slots[np.asarray(mask, dtype=bool)]
            games.reset(rows)
            self._restart[rows] = False
        return self._observations(), self._infos(np.ones(self.num_envs, dtype=bool))

    def step(self, actions):
        games = self.games
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        restart = self._restart.copy()
        go = ~restart & (games.phase != OVER)
        legal = np.ones(self.num_envs, dtype=bool)
        if self.illegal_action == "raise":
            mask = games.masks(self._slots)
            ok = (actions >= 0) & (actions < games.actions)
            ok[ok] = mask[self._slots[ok], actions[ok]]
            if not ok[go].all():
                bad = int(np.flatnonzero(go & ~ok)[0])
                raise ValueError(f"action {actions[bad]} of env {bad} is not legal now")
        legal[go] = games.act(self._slots[go], actions[go], self._slots[restart])
        rewards = games.take_rewards(self._slots)[:, 0]
        rewards[restart] = 0
        terminated = games.phase == OVER
        infos = self._infos(legal)
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            self._restart = terminated.copy()
        elif self.autoreset_mode == AutoresetMode.SAME_STEP and terminated.any():
            done = self._slots[terminated]
            final = np.zeros((self.num_envs, self.single_observation_space.shape[0]),
                             dtype=np.float32)
            final[done] = games.observe(done, self._seats[done])
            last = {k: v.copy() for k, v in infos.items()}
            games.reset(done)
            infos = self._infos(legal)
            infos["final_obs"], infos["_final_obs"] = final, terminated.copy()
            infos["final_info"], infos["_final_info"] = last, terminated.copy()
        return (self._observations(), rewards, terminated,
                np.zeros(self.num_envs, dtype=bool), infos)

    def action_masks(self) -> np.ndarray:
        """(num_envs, actions) int8: the legal actions of each game now."""
        return self.games.masks(self._slots).astype(np.int8)

    def _observations(self) -> np.ndarray:
        return self.games.observe(self._slots, self._seats)

    def _infos(self, legal: np.ndarray) -> dict:
        games = self.games
        over = games.phase == OVER
        everywhere = np.ones(self.num_envs, dtype=bool)
        return {"action_mask": self.action_masks(), "_action_mask": everywhere,
                "illegal_action": ~legal, "_illegal_action": everywhere,
                "points": np.where(over, games.last_points, 0), "_points": over}


__all__ = ["BackgammonVectorEnv"]
