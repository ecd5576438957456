"""TD(lambda) targets: lambda-returns of finished games by one backward scan.

State t of a game is the position before a roll, seen by the player on roll; ``values[t]``
is the network's estimate of state t (six outcomes, that player's view) taken while
playing. The game ends after the play from its last state, with ``outcome`` seen by the
player who made that play. Consecutive states belong to alternating players, so every
estimate from the next state is flipped (its six outcomes reversed) before use:

    G[last] = outcome
    G[t]    = (1 - lam) * flip(values[t + 1]) + lam * flip(G[t + 1])
"""

from __future__ import annotations

import numpy as np


def lambda_returns(values: np.ndarray, outcomes: np.ndarray, lengths: np.ndarray,
                   lam: float, exact: np.ndarray | None = None) -> np.ndarray:
    """Targets (M, T, 6) of M games padded to T states; zero beyond each game's length.

    values (M, T, 6) with values[:, t] the estimate of state t (values[:, 0] is unused);
    outcomes (M, 6) for the player of the last state; lengths (M,) states per game (>= 1).
    exact (M, T) bool: states whose value is exact (the bear-off database's races, never
    the first state): their target is that value, and the return of every earlier state
    stops there (G[t] = values[t]) instead of following the one future the game sampled.
    """
    m, t_max, _ = values.shape
    targets = np.zeros_like(values)
    following = np.zeros((m, 6), dtype=values.dtype)  # G[t + 1], flipped below
    for t in range(t_max - 1, -1, -1):
        last = lengths - 1 == t  # (M,)
        inside = t < lengths - 1
        if t + 1 < t_max:
            bootstrap = (1 - lam) * values[:, t + 1, ::-1] + lam * following[:, ::-1]
        else:
            bootstrap = following
        g = np.where(last[:, None], outcomes, np.where(inside[:, None], bootstrap, 0))
        if exact is not None:
            g = np.where((exact[:, t] & (t < lengths))[:, None], values[:, t], g)
        targets[:, t] = g
        following = g
    return targets


def lambda_returns_loop(values: list[np.ndarray], outcome: np.ndarray, lam: float) -> np.ndarray:
    """The same targets for one game with a plain loop: the test reference. (T, 6)."""
    length = len(values)
    targets = np.zeros((length, 6))
    targets[-1] = outcome
    for t in range(length - 2, -1, -1):
        flip_next_value = np.asarray(values[t + 1])[::-1]
        flip_next_return = targets[t + 1][::-1]
        targets[t] = (1 - lam) * flip_next_value + lam * flip_next_return
    return targets
