"""The players the environments put in the game loop's seats (``engine.game``).

A seat is a bot (any ``engine.policy.Bot`` with its optional cube and action methods) or an
agent outside, who decides one action at a time. Where the turn's functions ask a player
(``engine.game.action_decisions``, ``cube_decisions``, ``Turn``), an agent's decision,
already taken, is handed to them by a player that answers just that (``Yes``, ``Offers``,
``Answers``): the rules of the actions and of the cube stay the engine's.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.game import Turn


class Agent:
    """An agent's seat: it decides outside the game loop, so the loop never asks it."""

    name = "agent"

    def __call__(self, plays, boards, dice):
        raise RuntimeError("an agent's play is made step by step through the environment")

    def offer_double(self, boards, cube_value, cube_owner):
        raise RuntimeError("an agent doubles through the environment's DOUBLE action")

    def respond(self, boards, cube_value, cube_owner):
        raise RuntimeError("an agent answers a double through the environment's actions")


class Yes:
    """A player that takes the variant's actions ``names`` wherever it is asked."""

    def __init__(self, names):
        for name in names:
            setattr(self, name, self._yes)

    @staticmethod
    def _yes(boards, *state):
        return np.ones(len(boards), dtype=bool)


class Offers:
    """A doubler whose doubles are already offered."""

    def offer_double(self, boards, cube_value, cube_owner):
        return np.ones(len(boards), dtype=bool)


class Answers:
    """A taker whose answers (engine.cube PASS, TAKE, BEAVER), one per double in the order
    asked, are already given."""

    def __init__(self, answers):
        self.answers = np.asarray(answers, dtype=np.int8)

    def respond(self, boards, cube_value, cube_owner):
        if len(boards) != len(self.answers):
            raise AssertionError(f"{len(self.answers)} answers for {len(boards)} doubles")
        return self.answers


class BotTurn(Turn):
    """The rest of a bot's turn once its decisions before the roll are taken (or, after a
    double, answered): roll, play (``engine.game.play_turn``: the bot chooses, told the
    variant's state and the score), end of game (``end_turn``). ``games`` gives the dice
    (``roll``) and is told the games that played (``turn_ended``)."""

    def __init__(self, games):
        super().__init__(games.players, games.state, games.rules, games.cube_rules,
                         match=games.ctx)
        self.games = games

    def may_act(self, rows):
        return np.zeros(len(rows), dtype=bool)

    def may_double(self, rows):
        return np.zeros(len(rows), dtype=bool)

    def roll(self, rows):
        return self.games.roll(rows)

    def ended(self, rows, won):
        self.games.turn_ended(rows, won)


__all__ = ["Agent", "Yes", "Offers", "Answers", "BotTurn"]
