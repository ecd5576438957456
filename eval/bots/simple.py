"""The simple bots: random and pubeval. (What a bot is lives in engine.policy.)"""

from __future__ import annotations

import numpy as np

from gammon.engine.policy import Bot, best_per_root

__all__ = ["Bot", "best_per_root", "RandomBot", "PubevalBot"]


class RandomBot(Bot):
    """Plays uniformly among the distinct legal results; seeded for reproducible matches."""

    name = "random"
    score_label = "random key"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def scores(self, plays, boards, dice):
        return self.rng.random(len(plays))


class PubevalBot(Bot):
    """Tesauro's pubeval, choosing exactly as GNU Backgammon's implementation does."""

    name = "pubeval"
    score_label = "pubeval score"

    def __init__(self, checkers: int = 15):
        from gammon.engine.phase import is_race
        from gammon.eval.bots.pubeval import pubeval_policy, pubeval_scores
        self.checkers = checkers
        self._is_race, self._scores = is_race, pubeval_scores
        self._policy = pubeval_policy(checkers)

    def scores(self, plays, boards, dice):
        race = self._is_race(boards)[plays.root]
        return self._scores(plays.boards, self.checkers, race)

    def choose(self, plays, boards, dice):
        return self._policy(plays, boards, dice)


class PlakotoPubevalBot(PubevalBot):
    """pubeval in Plakoto: it scores the checkers on top of each point (a pinned checker
    cannot move, and pubeval's tables know counts of 0..15 only), and plays the best score,
    the first on a tie (gnubg's move order is standard backgammon's)."""

    def _plain(self, boards):
        from gammon.engine.rules.plakoto import PIN
        import numpy as np
        v = np.asarray(boards, dtype=np.int8)
        return (np.sign(v) * (np.abs(v) & np.int8(PIN - 1))).astype(np.int8)

    def scores(self, plays, boards, dice):
        race = self._is_race(self._plain(boards))[plays.root]
        return self._scores(self._plain(plays.boards), self.checkers, race)

    def choose(self, plays, boards, dice):
        return Bot.choose(self, plays, boards, dice)
