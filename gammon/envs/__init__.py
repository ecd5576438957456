"""Reinforcement-learning environments of gammon's games (docs/envs.md).

``import gammon.envs`` registers with Gymnasium (``pip install 'gammon[envs]'``):

    gammon/Backgammon-v0       one agent against a bot (``opponent=``), money or a match,
                               cube on or off, any variant; ``gymnasium.make_vec(...,
                               vectorization_mode="vector_entry_point")`` builds the native
                               vector env (N games stepped as one batch)
    gammon/BackgammonCube-v0   the same with the cube on (money)
    gammon/BackgammonMatch-v0  a match to 7 points (the cube on, the Crawford rule)

and the PettingZoo env of two agents is ``gammon.envs.backgammon_v0`` (``env()``,
``raw_env()``). ``BotAgent`` plays any bot (the shipped net ``net:`` by default) as an
agent; ``gammon.envs.search`` has the chance and afterstate helpers for search.
"""

from __future__ import annotations

try:
    import gymnasium as gym
except ImportError as e:  # an optional extra
    raise ImportError("gammon.envs needs gymnasium: pip install 'gammon[envs]'") from e

from . import search
from .agents import BotAgent, make_player
from .single import BackgammonEnv
from .vector import BackgammonVectorEnv

IDS = {"gammon/Backgammon-v0": {},
       "gammon/BackgammonCube-v0": {"cube": True},
       "gammon/BackgammonMatch-v0": {"match_length": 7}}


def _register() -> None:
    for env_id, kwargs in IDS.items():
        if env_id not in gym.registry:
            gym.register(env_id, entry_point="gammon.envs.single:BackgammonEnv",
                         vector_entry_point="gammon.envs.vector:BackgammonVectorEnv",
                         kwargs=kwargs)


_register()

__all__ = ["BackgammonEnv", "BackgammonVectorEnv", "BotAgent", "make_player", "search", "IDS"]
