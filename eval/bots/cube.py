"""Cube strategies for bots by kind: which bot doubles how, and the ``nodouble:`` baseline.

Kinds (``make_bot(name, cube=KIND)`` and ``with_cube``):

    auto    the bot's best: the cube heads for bots that estimate probabilities (``net:``,
            ``gnubg``), the Keith-count race rule for the others
    heads   Janowski cube heads on the bot's 0-ply probabilities before the roll
            (``model.cube_player.HeadsCube``); only for ``net:`` and ``gnubg``
    race    the Keith count in races, never double and always take in contact
            (``eval.bots.race_cube.KeithCube``)
    never   never double, always take: the cubeless baseline (``engine.cube_policy``)

A bot name written ``nodouble:NAME`` is NAME with the ``never`` kind, so the baseline can be
named wherever a bot is (``gammon match net: nodouble:net: --cube``).
"""

from __future__ import annotations

import numpy as np

from gammon.engine.cube import CubeRules
from gammon.engine.cube_policy import CubeBot, NeverDouble

from gammon.eval.bots.race_cube import KeithCube

KINDS = ("auto", "heads", "race", "never")
NEVER_PREFIX = "nodouble:"


def probability_source(bot):
    """The bot's evaluator of positions before the roll, boards (N, 26) -> (N, 6|5)
    for the player on roll, or None when it has none."""
    evaluator = getattr(bot, "evaluator", None)  # a net (model.policy.NetPolicy)
    if evaluator is not None:
        return evaluator
    from gammon.eval.bots.gnubg import GnubgBot  # gnubg_nn itself is imported only by a GnubgBot
    if isinstance(bot, GnubgBot):
        return _gnubg_probabilities(bot._g)
    return None


def _gnubg_probabilities(g):
    """gnubg's 0-ply five outputs of boards before the roll, player on roll: (N, 5)."""
    from gammon.eval.bots.gnubg import gnubg_board

    def evaluate(boards: np.ndarray) -> np.ndarray:
        return np.array([g.probabilities(gnubg_board(b), 0) for b in boards],
                        dtype=np.float64).reshape(-1, 5)

    return evaluate


def cube_strategy(bot, kind: str = "auto", rules: CubeRules = CubeRules(),
                  efficiency: float | None = None):
    """The cube strategy of ``kind`` for ``bot``; ValueError names what is wrong."""
    if kind not in KINDS:
        raise ValueError(f"unknown cube strategy {kind!r}; valid: {', '.join(KINDS)}")
    if kind == "never":
        return NeverDouble()
    if kind == "race":
        return KeithCube()
    source = probability_source(bot)
    if source is None:
        if kind == "heads":
            raise ValueError(f"the bot {getattr(bot, 'name', bot)!r} estimates no "
                             f"probabilities: cube heads need net:PATH or gnubg")
        return KeithCube()
    from gammon.model.cube import EFFICIENCY
    from gammon.model.cube_player import HeadsCube
    return HeadsCube(source, EFFICIENCY if efficiency is None else efficiency,
                     rules.jacoby, rules.beavers)


def with_cube(bot, kind: str = "auto", rules: CubeRules = CubeRules(),
              efficiency: float | None = None) -> CubeBot:
    """``bot`` with a cube strategy of ``kind`` (a bot already wrapped is re-wrapped)."""
    inner = bot.bot if isinstance(bot, CubeBot) else bot
    return CubeBot(inner, cube_strategy(inner, kind, rules, efficiency),
                   getattr(bot, "name", None))


__all__ = ["KINDS", "NEVER_PREFIX", "probability_source", "cube_strategy", "with_cube"]
