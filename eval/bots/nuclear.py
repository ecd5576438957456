"""When bots detonate the Nuclear bomb: the strategies, and ``BombBot`` that gives one to any bot.

The turn (``engine.game.before_roll``, for the rules' action "detonate") asks a player's
optional method

    detonate(boards, bomb) -> (N,) bool

before a roll, only where the player on roll may detonate (the bomb centred or his);
``boards`` (N, 26) are the positions before the roll from his view, ``bomb`` (N,) int8 the
owner relative to him (0 centred, +1 his). A detonation sends every blot of both sides to
its owner's bar (``engine.rules.nuclear.explode``) and gives the bomb to the opponent.

Strategies, by bot (``with_bomb``, which ``eval.bots.registry.make_bot`` applies for a variant
with a bomb):

- a bot that has its own ``detonate`` keeps it (the way for a ``net:`` bot to decide with
  its network later; ``EquityDetonate`` builds one from an equity function);
- ``random``: detonates with probability 1/2 whenever it may, from the bot's own seeded
  generator (``RandomDetonate``);
- every other bot (``heuristic``, ``pubeval``, ``racer``, ``gnubg``, a net without its own
  rule): the pip rule ``HeuristicDetonate`` (``detonation_gain``).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from gammon.engine.policy import Bot
from gammon.engine.rules.nuclear import THEIRS, explode

MARGIN = 55.0  # weighted pips a detonation must gain before the heuristic fires
BOARD_WEIGHT = 1 / 3  # extra share of a blot's loss per point made in the board it enters

_P = np.arange(26)


def detonation_gain(boards: np.ndarray) -> np.ndarray:
    """What a detonation gains the player on roll, in weighted pips: (N, 26) -> (N,) float.

    Orientation (``engine.board.pip_counts``): our checker on point p needs p pips, on our
    bar 25, so our blot on p sent to the bar loses ``25 - p`` pips; an opponent's checker on
    our point q needs ``25 - q``, on its bar 25, so it loses ``q`` pips. The gain is

        sum over the opponent's blots of q * (1 + BOARD_WEIGHT * points made in our home)
      - sum over our blots of (25 - p) * (1 + BOARD_WEIGHT * points made in its home)

    the factor counting that checkers entering from the bar face the other side's home
    board (points 1..6 with two or more of ours; 19..24 with two or more of theirs): the
    more of it is closed, the longer a checker may wait on the bar. Blots do not make
    points, so the home boards are the same before and after the explosion.
    """
    b = np.asarray(boards).astype(np.int16)
    points = b[:, 1:25]
    their_loss = ((points == -1) * _P[1:25]).sum(axis=1)  # q for each of their blots
    our_loss = ((points == 1) * (25 - _P[1:25])).sum(axis=1)  # 25 - p for each of ours
    our_board = (b[:, 1:7] >= 2).sum(axis=1)  # where their bar checkers must come in
    their_board = (b[:, 19:25] <= -2).sum(axis=1)  # where ours must come in
    return (their_loss * (1 + BOARD_WEIGHT * our_board)
            - our_loss * (1 + BOARD_WEIGHT * their_board)).astype(np.float64)


class HeuristicDetonate:
    """Detonate when ``detonation_gain`` is at least ``margin`` pips.

    The margin stands for what detonating gives up: the bomb passes to the opponent, who
    may then detonate it against us, and a bomb held (centred or ours) keeps that threat.
    So small gains are not worth it; sending back several advanced opponent blots while
    our own lose little, is.

    The margin and ``BOARD_WEIGHT`` were chosen in paired matches of the heuristic bot
    against itself (4,000 to 6,000 Nuclear games each, points per game of the first with
    their 95% interval): against margin 12, margins 40 and 55 won +0.58 and +0.51 (+-0.05);
    against 40, 50 won +0.11 (+-0.04); against 50, margins 45, 55, 60 and 70 scored
    -0.05, +0.03, +0.02 and -0.03 (+-0.03). With margin 55, board weight 1/3 beat 0, 0.2,
    0.6 and 1 (by 0.40, 0.04, 0.10 and 0.29, +-0.04).
    """

    def __init__(self, margin: float = MARGIN):
        self.margin = margin

    def __call__(self, boards: np.ndarray, bomb: np.ndarray) -> np.ndarray:
        return detonation_gain(boards) >= self.margin


class RandomDetonate:
    """Detonate with probability ``p`` whenever allowed, drawing from ``rng``."""

    def __init__(self, rng: np.random.Generator, p: float = 0.5):
        self.rng, self.p = rng, p

    def __call__(self, boards: np.ndarray, bomb: np.ndarray) -> np.ndarray:
        return self.rng.random(len(boards)) < self.p


class EquityDetonate:
    """Detonate where the position after the explosion is worth more to the player on roll
    than the position as it stands: ``equity(explode(boards), -1) > equity(boards, bomb)``.

    ``equity(boards, bomb) -> (N,)`` is any evaluator of positions before the roll, from
    the player on roll, that takes the bomb's owner (relative to him) as an input: after
    the explosion he is still on roll and the bomb is his opponent's. This is how a network
    of the variant decides ("compares the position with and without the explosion").
    """

    def __init__(self, equity: Callable[[np.ndarray, np.ndarray], np.ndarray]):
        self.equity = equity

    def __call__(self, boards: np.ndarray, bomb: np.ndarray) -> np.ndarray:
        boards = np.asarray(boards, dtype=np.int8)
        now = np.asarray(self.equity(boards, np.asarray(bomb, dtype=np.int8)))
        after = np.asarray(self.equity(explode(boards),
                                       np.full(len(boards), THEIRS, dtype=np.int8)))
        return after > now


class BombBot(Bot):
    """A bot that plays like ``bot`` and decides the bomb with ``rule(boards, bomb)``.

    Everything else (scores, choose, name, cube methods, a net's evaluator,
    ``observe_extra``) is the inner bot's.
    """

    def __init__(self, bot, rule: Callable[[np.ndarray, np.ndarray], np.ndarray],
                 name: str | None = None):
        self.bot, self.rule = bot, rule
        self.name = name or getattr(bot, "name", type(bot).__name__)
        self.score_label = getattr(bot, "score_label", "score")

    def scores(self, plays, boards, dice):
        return self.bot.scores(plays, boards, dice)

    def choose(self, plays, boards, dice):
        return self.bot.choose(plays, boards, dice)

    def __call__(self, plays, boards, dice):
        return self.bot(plays, boards, dice)

    def detonate(self, boards: np.ndarray, bomb: np.ndarray) -> np.ndarray:
        return np.asarray(self.rule(boards, bomb), dtype=bool)

    def __getattr__(self, attr):
        # only reached for attributes BombBot lacks: the inner bot's
        if attr in ("bot", "rule"):
            raise AttributeError(attr)
        return getattr(self.bot, attr)


def bomb_rule(bot) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The detonation strategy for ``bot`` (see the module's docstring)."""
    own = getattr(bot, "detonate", None)
    if own is not None:
        return own
    rng = getattr(bot, "rng", None)
    if getattr(bot, "name", None) == "random" and rng is not None:
        return RandomDetonate(rng)
    return HeuristicDetonate()


def with_bomb(bot):
    """``bot`` able to detonate: itself when it has its own ``detonate``, else a
    ``BombBot`` with ``bomb_rule(bot)``."""
    if getattr(bot, "detonate", None) is not None:
        return bot
    return BombBot(bot, bomb_rule(bot))


__all__ = ["MARGIN", "BOARD_WEIGHT", "detonation_gain", "HeuristicDetonate", "RandomDetonate",
           "EquityDetonate", "BombBot", "bomb_rule", "with_bomb"]
