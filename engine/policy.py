"""What a bot is: a scorer of afterstates, and a policy that plays the best-scored one.

Every bot scores the legal results of a batch of positions in one call; the game loop
(engine.game.play) calls the bot itself as a policy. ``hint`` ranks plays by these scores.
It lives in the engine so that both the models and the heuristic bots can build on it.
"""

from __future__ import annotations

import numpy as np

from .movegen import Plays


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
