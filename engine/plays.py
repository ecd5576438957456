"""What the move generator returns: ``Plays``, the legal plays of a batch (NumPy only).

Its own module, below both the generator (``engine.movegen``, which makes them) and the
rules objects (``engine.rules``: a rule on whole plays, ``filter_plays``, takes and returns
them), so that neither imports the other for it. ``engine.movegen.Plays`` is the same
class.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Plays:
    """The legal plays of a batch.

    boards: (K, 26) int8 -- each distinct legal afterstate, still from the mover's view
    root:   (K,) int64 -- index of the input position it came from, sorted ascending
    dice_used: (K,) int8 -- how many dice the play uses (0 when no play is legal)
    packed: (K, 4) int16 -- one play reaching each result, step by step: source << 6 |
            target << 1 | hit, -1 for unused steps (read it through ``steps`` and ``hits``)

    A position with no legal play yields itself once (dice_used 0), so every root appears.
    """

    boards: np.ndarray
    root: np.ndarray
    dice_used: np.ndarray
    packed: np.ndarray
    state: np.ndarray | None = None  # (K,) int64: the rules' play state (``Rules.track``)

    def __len__(self) -> int:
        return len(self.boards)

    @property
    def steps(self) -> np.ndarray:
        """(K, 4, 2) int8: (from, to) per step; to 0 = borne off, from 25 = the bar;
        unused steps are (-1, -1)."""
        steps = np.empty(self.packed.shape + (2,), dtype=np.int8)
        steps[..., 0] = (self.packed >> 6) & 31  # higher bits: the rules' own (Plakoto)
        steps[..., 1] = (self.packed >> 1) & 31
        steps[self.packed < 0] = -1
        return steps

    @property
    def hits(self) -> np.ndarray:
        """(K, 4) bool: whether each step hit a blot."""
        return (self.packed >= 0) & ((self.packed & 1) == 1)

    def subset(self, rows: np.ndarray) -> "Plays":
        """The plays of the given rows (ascending, so still sorted by root): for a rules
        object's filter on whole plays, which must leave every root at least one row."""
        return Plays(self.boards[rows], self.root[rows], self.dice_used[rows],
                     self.packed[rows], None if self.state is None else self.state[rows])

    def counts(self, n: int) -> np.ndarray:
        """Number of distinct results per input position: (n,)."""
        return np.bincount(self.root, minlength=n)

    def offsets(self, n: int) -> np.ndarray:
        """Start of each input position's results in the arrays: (n + 1,)."""
        return np.concatenate([[0], np.cumsum(self.counts(n))])
