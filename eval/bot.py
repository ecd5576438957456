"""What a bot is: a scorer of afterstates, and a policy that plays the best-scored one.

Every bot scores the legal results of a batch of positions in one call; the game loop
(engine.loop.play) calls the bot itself as a policy. ``hint`` ranks plays by these scores.
"""

from __future__ import annotations

import numpy as np

from engine.movegen import Plays


def best_per_root(scores: np.ndarray, root: np.ndarray, n: int) -> np.ndarray:
    """Per input position, the row with the highest score, the first such row on a tie.

    scores (K,), root (K,) sorted with every root 0..n-1 present. Returns (n,) int64.
    """
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(np.bincount(root, minlength=n))[:-1]])
    best = np.maximum.reduceat(scores, starts)  # (n,)
    rows = np.flatnonzero(scores == best[root])
    first = np.ones(len(rows), dtype=bool)
    first[1:] = root[rows][1:] != root[rows][:-1]  # rows ascend: first maximum per root
    return rows[first].astype(np.int64)


class Bot:
    """A player. Subclasses give ``scores``; ``choose`` plays the best-scored result.

    ``scores(plays, boards, dice)`` returns (K,) floats, higher is better for the player
    who moved (the afterstates are not flipped); boards (N, 26) and dice (N, 2) are the
    positions before the play.
    """

    name = "bot"
    score_label = "score"  # what the scores mean, for `gammon hint`

    def scores(self, plays: Plays, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def choose(self, plays: Plays, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        """(N,) row of ``plays`` chosen for each position."""
        return best_per_root(self.scores(plays, boards, dice), plays.root, len(boards))

    def __call__(self, plays: Plays, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        return self.choose(plays, boards, dice)


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
        from .pubeval import is_race, pubeval_policy, pubeval_scores
        self.checkers = checkers
        self._is_race, self._scores = is_race, pubeval_scores
        self._policy = pubeval_policy(checkers)

    def scores(self, plays, boards, dice):
        race = self._is_race(boards)[plays.root]
        return self._scores(plays.boards, self.checkers, race)

    def choose(self, plays, boards, dice):
        return self._policy(plays, boards, dice)
