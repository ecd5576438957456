"""The dice of a rollout's trials: each trial's rolls depend on the seed, its dice stream
(``key``: a position's own, or one shared by positions that must see the same dice, such
as the candidate plays of one roll) and its trial number alone, never on how the trials
are batched, refilled or split over workers.

Random rolls: the trials of a stream come in blocks of ``BLOCK``; the rolls of a block's
plies ``c * PLY_CHUNK .. (c + 1) * PLY_CHUNK - 1`` are drawn by one generator seeded with
``SeedSequence([seed, DICE, key, block, c])``, drawn when first needed.

Quasi-random rolls (GNU Backgammon's "rotation", in our reading): the first two rolls of
the trials are stratified. In each cycle of ``CYCLE`` = 1,296 trials (c = trial div 1296),
trial t's first roll is ``first[t mod 36]`` of the 36 ordered outcomes of two dice and its
second roll ``second[t mod 36][(t div 36) mod 36]``, where ``first`` is a permutation of
the 36 outcomes and ``second`` one permutation per first roll, all drawn from
``SeedSequence([seed, QUASI, key, c])``. So every 36 trials in a row see each first roll
once; over a cycle every pair of first two rolls appears exactly once; and with fewer
trials the second rolls that follow one first roll are drawn without replacement. Each
trial's rolls are still uniform: the rollout stays unbiased, and the sample standard error
of stratified trials is conservative. The rolls from the third on are random.

Rolls come high die first (the 36 ordered outcomes collapse to the 21 rolls of
``engine.dice.ROLLS``); ``roll_index`` numbers them as ``ROLLS`` does.
"""

from __future__ import annotations

import numpy as np

BLOCK = 36  # trials whose random rolls one generator draws: the unit of seeding
PLY_CHUNK = 64  # plies of rolls drawn at a time for a block
CYCLE = 36 * 36  # trials over which the first two rolls are stratified
DICE, QUASI = 1, 2  # the two kinds of streams, kept apart in the seeds
_CACHE_TABLES = 4096  # random tables kept before the unused ones are dropped


def outcome_dice(outcomes: np.ndarray) -> np.ndarray:
    """The 36 ordered outcomes 0..35 as rolls (N, 2) int8, high die first."""
    o = np.asarray(outcomes, dtype=np.int64)
    a, b = o // 6 + 1, o % 6 + 1
    return np.stack([np.maximum(a, b), np.minimum(a, b)], axis=1).astype(np.int8)


def roll_index(dice: np.ndarray) -> np.ndarray:
    """The row of ``engine.dice.ROLLS`` of each roll (N, 2), in either order: (N,) int64."""
    d = np.asarray(dice, dtype=np.int64)
    high, low = d.max(axis=1), d.min(axis=1)
    return high * (high - 1) // 2 + low - 1


class TrialDice:
    """The rolls of trials, reproducible from ``seed`` (see the module's docstring)."""

    def __init__(self, seed: int, quasi: bool = True):
        self.seed, self.quasi = int(seed), bool(quasi)
        self._tables: dict[tuple[int, int, int], np.ndarray] = {}
        self._perms: dict[tuple[int, int], np.ndarray] = {}

    def rolls(self, keys: np.ndarray, trials: np.ndarray, plies: np.ndarray) -> np.ndarray:
        """The roll of each trial at its ply (0: the first roll of the trial, by the player
        on roll at the start): keys, trials, plies (N,) -> (N, 2) int8, high die first."""
        keys = np.asarray(keys, dtype=np.int64)
        trials = np.asarray(trials, dtype=np.int64)
        plies = np.asarray(plies, dtype=np.int64)
        out = np.empty((len(keys), 2), dtype=np.int8)
        early = (plies < 2) if self.quasi else np.zeros(len(keys), dtype=bool)
        if early.any():
            at = np.flatnonzero(early)
            out[at] = self._quasi(keys[at], trials[at], plies[at])
        late = np.flatnonzero(~early)
        if len(late):
            out[late] = self._random(keys[late], trials[late], plies[late])
        return out

    def _random(self, keys, trials, plies) -> np.ndarray:
        blocks, chunks = trials // BLOCK, plies // PLY_CHUNK
        # the trials grouped by (key, block, chunk): one sort of the three columns
        order = np.lexsort((chunks, blocks, keys))
        k, b, c = keys[order], blocks[order], chunks[order]
        new = np.ones(len(order), dtype=bool)
        new[1:] = (k[1:] != k[:-1]) | (b[1:] != b[:-1]) | (c[1:] != c[:-1])
        starts = np.flatnonzero(new)
        bounds = np.append(starts, len(order))
        out = np.empty((len(keys), 2), dtype=np.int8)
        used = set()
        for u, (key, block, chunk) in enumerate(zip(k[starts].tolist(), b[starts].tolist(),
                                                    c[starts].tolist())):
            table = self._table(key, block, chunk)
            used.add((key, block, chunk))
            rows = order[bounds[u]:bounds[u + 1]]
            out[rows] = table[trials[rows] % BLOCK, plies[rows] % PLY_CHUNK]
        if len(self._tables) > _CACHE_TABLES:  # keep what the trials in flight use
            self._tables = {k: v for k, v in self._tables.items() if k in used}
        return out

    def _table(self, key: int, block: int, chunk: int) -> np.ndarray:
        """The rolls (BLOCK, PLY_CHUNK, 2) of one block's chunk of plies, high die first."""
        found = self._tables.get((key, block, chunk))
        if found is None:
            rng = np.random.default_rng(np.random.SeedSequence([self.seed, DICE, key, block,
                                                                chunk]))
            raw = rng.integers(1, 7, size=(BLOCK, PLY_CHUNK, 2), dtype=np.int8)
            found = np.stack([raw.max(axis=2), raw.min(axis=2)], axis=2)
            self._tables[(key, block, chunk)] = found
        return found

    def _quasi(self, keys, trials, plies) -> np.ndarray:
        out = np.empty(len(keys), dtype=np.int64)
        cycles = trials // CYCLE
        pairs, inverse = np.unique(np.stack([keys, cycles], axis=1), axis=0,
                                   return_inverse=True)
        inverse = inverse.reshape(-1)
        for u, (key, cycle) in enumerate(pairs.tolist()):
            rows = np.flatnonzero(inverse == u)
            perms = self.permutations(key, cycle)  # (37, 36)
            t = trials[rows] % CYCLE
            first = perms[0][t % 36]
            second = perms[1 + t % 36, (t // 36) % 36]
            out[rows] = np.where(plies[rows] == 0, first, second)
        return outcome_dice(out)

    def permutations(self, key: int, cycle: int) -> np.ndarray:
        """(37, 36): row 0 the order of the first rolls of a cycle, row 1 + j the order of
        the second rolls of the trials whose first roll is row 0's j-th."""
        found = self._perms.get((key, cycle))
        if found is None:
            rng = np.random.default_rng(np.random.SeedSequence([self.seed, QUASI, key, cycle]))
            found = np.stack([rng.permutation(36) for _ in range(37)])
            if len(self._perms) > _CACHE_TABLES:
                self._perms.clear()
            self._perms[(key, cycle)] = found
        return found


__all__ = ["BLOCK", "CYCLE", "PLY_CHUNK", "TrialDice", "outcome_dice", "roll_index"]
