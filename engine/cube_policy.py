"""How bots take cube decisions: the two optional methods, their defaults, and ``CubeBot``.

A bot (``engine.policy.Bot``) may have two more methods, asked by the cubeful game loop
(``engine.game.play``) before a roll:

    offer_double(boards, cube_value, cube_owner) -> (N,) bool   double now?
    respond(boards, cube_value, cube_owner)      -> (N,) int8   0 pass, 1 take, 2 beaver

Both get the same view (DESIGN §4: a position is always seen from the player on roll):
``boards`` (N, 26) is the position before the roll **from the doubler's view** (the doubler
is on roll), ``cube_value`` (N,) and ``cube_owner`` (N,) are the cube as it stands before the
offer, the owner relative to the doubler (+1 he owns it, 0 centred). So a bot answering a
double evaluates the doubler's position, as it would if it were thinking of doubling itself.
The loop asks only where a double is legal, and turns a beaver the rules do not allow into
a take.

In match play the loop first tells the bot the score of those N positions, from the
doubler's side (``engine.match.MatchScore``), through a third optional method:

    observe_score(score: MatchScore | None) -> None   (None: money play again)

(``tell_score``); the same is done before it chooses plays, from the mover's side. A bot
without it plays every score as money.

A bot without these methods never doubles and always takes (``NeverDouble``). ``CubeBot``
gives any checker-playing bot a cube strategy without touching its class.
"""

from __future__ import annotations

import numpy as np

from .policy import Bot


class NeverDouble:
    """The cubeless baseline: never offers a double, always takes one."""

    name = "never"

    def offer_double(self, boards, cube_value, cube_owner) -> np.ndarray:
        return np.zeros(len(boards), dtype=bool)

    def respond(self, boards, cube_value, cube_owner) -> np.ndarray:
        return np.ones(len(boards), dtype=np.int8)


class CubeBot(Bot):
    """A bot that plays checkers like ``bot`` and takes its cube decisions from ``cube``.

    ``cube`` is any object with ``offer_double`` and ``respond`` (the signatures above).
    Everything else (scores, choose, name, the evaluator of a net) is the inner bot's.
    """

    def __init__(self, bot: Bot, cube, name: str | None = None):
        self.bot, self.cube = bot, cube
        self.name = name or getattr(bot, "name", type(bot).__name__)

    @property
    def score_label(self) -> str:
        return getattr(self.bot, "score_label", "score")

    def scores(self, plays, boards, dice):
        return self.bot.scores(plays, boards, dice)

    def choose(self, plays, boards, dice):
        return self.bot.choose(plays, boards, dice)

    def offer_double(self, boards, cube_value, cube_owner) -> np.ndarray:
        return np.asarray(self.cube.offer_double(boards, cube_value, cube_owner), dtype=bool)

    def respond(self, boards, cube_value, cube_owner) -> np.ndarray:
        return np.asarray(self.cube.respond(boards, cube_value, cube_owner)).astype(np.int8)

    def observe_score(self, score) -> None:
        tell_score(self.bot, score)
        tell_score(self.cube, score)

    def __getattr__(self, attr):
        # only reached for attributes CubeBot lacks: the inner bot's (e.g. a net's evaluator)
        if attr in ("bot", "cube"):
            raise AttributeError(attr)
        return getattr(self.bot, attr)


_NEVER = NeverDouble()


def offers(bot, boards: np.ndarray, value: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """``bot.offer_double`` where it has one, else never: (N,) bool."""
    ask = getattr(bot, "offer_double", None) or _NEVER.offer_double
    answer = np.asarray(ask(boards, value, owner), dtype=bool)
    if answer.shape != (len(boards),):
        raise ValueError(f"offer_double answered shape {answer.shape} for {len(boards)} boards")
    return answer


def tell_score(bot, score) -> None:
    """``bot.observe_score(score)`` where it has one (``engine.match.MatchScore`` of the N
    positions it is about to be asked about, or None for money play)."""
    observe = getattr(bot, "observe_score", None)
    if observe is not None:
        observe(score)


def responses(bot, boards: np.ndarray, value: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """``bot.respond`` where it has one, else always take: (N,) int8."""
    ask = getattr(bot, "respond", None) or _NEVER.respond
    return np.asarray(ask(boards, value, owner)).astype(np.int8)


__all__ = ["NeverDouble", "CubeBot", "offers", "responses", "tell_score"]
