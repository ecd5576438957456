"""Cubeful money matches: paired games through the cubeful loop, and their cube statistics.

``play_cube_chunk`` is ``eval.match.play_chunk`` with the doubling cube
(``engine.cube_loop.play_cubeful``): the same paired dice (each dice sequence, and its tied
opening throws for automatic doubles, played twice with the seats swapped), points =
cube value x 1/2/3 or the cube value on a pass. ``CubeStats`` holds what the cube did,
by A and by B.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.cube import CubeRules, opening_ties
from engine.cube_loop import play_cubeful
from engine.dice import DiceTable
from engine.record import renumbered


@dataclass
class CubeStats:
    """What the cube did in a match; columns (G, 2) are (A, B).

    values: (G,) int32 -- cube value at the end of each game (the value won on a pass)
    passed: (G,) bool -- the game ended on a passed double
    offers, takes, beavers, passes: (G, 2) int16 -- doubles offered, taken, beavered and
        passed by A and by B (a take or pass is by the side that was doubled)
    """

    rules: CubeRules
    values: np.ndarray
    passed: np.ndarray
    offers: np.ndarray
    takes: np.ndarray
    beavers: np.ndarray
    passes: np.ndarray

    @classmethod
    def concat(cls, parts: list["CubeStats"]) -> "CubeStats":
        """One record of several chunks of the same match, in order."""
        keys = ("values", "passed", "offers", "takes", "beavers", "passes")
        return cls(parts[0].rules, *(np.concatenate([getattr(p, k) for p in parts])
                                     for k in keys))

    def histogram(self) -> dict[int, int]:
        """Games by the cube value they ended at, lowest value first."""
        values, counts = np.unique(self.values, return_counts=True)
        return {int(v): int(c) for v, c in zip(values, counts)}

    def totals(self) -> dict[str, tuple[int, int]]:
        """(A, B) totals of offers, takes, beavers and passes."""
        return {k: tuple(int(x) for x in getattr(self, k).sum(axis=0))
                for k in ("offers", "takes", "beavers", "passes")}

    def to_dict(self) -> dict:
        """Plain JSON values: the rules, the histogram and the (A, B) counts."""
        out = {"jacoby": self.rules.jacoby, "beavers_allowed": self.rules.beavers,
               "auto_doubles": self.rules.auto_doubles, "max_cube": self.rules.max_cube,
               "cube_values": {str(v): c for v, c in self.histogram().items()},
               "mean_cube": float(self.values.mean()) if len(self.values) else None,
               "games_passed": int(self.passed.sum())}
        for key, (a, b) in self.totals().items():
            out[f"{key}_a"], out[f"{key}_b"] = a, b
        return out


def play_cube_chunk(a, b, games: int, rng: np.random.Generator, variant: str, paired: bool,
                    rules: CubeRules, max_plies: int = 10_000, on_play=None, on_cube=None
                    ) -> tuple[np.ndarray, np.ndarray, CubeStats]:
    """``games`` cubeful games of A against B: A's points (G,) int32, plies (G,) int32 and
    the cube statistics. Paired as ``eval.match.play_chunk``: game 2i with A in seat 0,
    game 2i + 1 on the same dice and opening ties with B in seat 0. ``on_play`` and
    ``on_cube`` are told the plays and doubles with this chunk's game numbers and the
    players A = 0, B = 1."""
    if not paired:
        r = play_cubeful((a, b), games, rng, rules, variant, max_plies, on_play=on_play,
                         on_cube=on_cube)
        return r.points, r.plies, _stats(rules, r, r)
    pairs = games // 2
    table = DiceTable(rng, pairs)
    ties = opening_ties(rng, pairs)
    ab = play_cubeful((a, b), pairs, rng, rules, variant, max_plies, dice=table, ties=ties,
                      on_play=renumbered(on_play, 2, 0, False),
                      on_cube=renumbered(on_cube, 2, 0, False))
    ba = play_cubeful((b, a), pairs, rng, rules, variant, max_plies, dice=table, ties=ties,
                      on_play=renumbered(on_play, 2, 1, True),
                      on_cube=renumbered(on_cube, 2, 1, True))
    points = _interleave(ab.points, -ba.points)
    plies = _interleave(ab.plies, ba.plies)
    return points, plies, _stats(rules, ab, ba)


def _interleave(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Games 2i from ``first`` and 2i + 1 from ``second`` (same leading shape)."""
    out = np.empty((2 * len(first),) + first.shape[1:], dtype=first.dtype)
    out[0::2], out[1::2] = first, second
    return out


def _stats(rules: CubeRules, ab, ba) -> CubeStats:
    """Cube statistics with columns (A, B): ``ab`` had A in seat 0, ``ba`` B in seat 0
    (for an unpaired chunk both are the same results and nothing is interleaved)."""
    if ab is ba:
        return CubeStats(rules, ab.cube, ab.passed, ab.offers, ab.takes, ab.beavers, ab.passes)
    pick = {k: _interleave(getattr(ab, k), getattr(ba, k)[:, ::-1])
            for k in ("offers", "takes", "beavers", "passes")}
    return CubeStats(rules, _interleave(ab.cube, ba.cube), _interleave(ab.passed, ba.passed),
                     **pick)


__all__ = ["CubeStats", "play_cube_chunk"]
