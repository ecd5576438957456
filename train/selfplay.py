"""Self-play: G games in lock-step, one network call per ply for every afterstate of every
game; finished games come out as (states, value estimates, outcome) ready for TD targets.

A finished game's slot starts a new game at once, so the batch stays full (no tail of a
few long games). The histories live in ring buffers of ``ring`` plies per slot.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.board import flip
from engine.rules import start_boards, variant as get_variant
from engine.game import finished, opening_roll, result_points, roll
from engine.movegen import legal_plays
from engine.policy import best_per_root

from .td import outcome_vector


@dataclass
class Finished:
    """Games that ended this ply: (states, values, outcomes) padded, plus lengths."""

    states: np.ndarray  # (M, T, 26) int8
    values: np.ndarray  # (M, T, 6) float32: values[:, t] estimates state t (t >= 1)
    outcomes: np.ndarray  # (M, 6) for the player of the last state
    lengths: np.ndarray  # (M,) states per game
    points: np.ndarray  # (M,) 1/2/3
    plies: np.ndarray  # (M,) plays in the game


class SelfPlay:
    """The running games. ``ply(evaluate)`` advances every game by one play."""

    def __init__(self, games: int, rng: np.random.Generator, variant: str = "standard",
                 epsilon: float = 0.0, ring: int = 1024):
        self.g, self.rng, self.epsilon, self.ring = games, rng, epsilon, ring
        self.variant = variant
        self.checkers = get_variant(variant).checkers
        self.boards = start_boards(games, variant)  # (G, 26) position before the roll
        self.fresh = np.ones(games, dtype=bool)  # next roll is an opening roll
        self.start = np.zeros(games, dtype=np.int64)  # ply at which each slot's game began
        self.now = 0  # plies played by the whole batch
        self.hist_states = np.zeros((ring, games, 26), dtype=np.int8)
        self.hist_values = np.zeros((ring, games, 6), dtype=np.float32)

    def ply(self, after_values) -> Finished | None:
        """One play in every game. ``after_values(afterstates (K, 26)) -> (K, 6)`` gives
        the mover's outcome probabilities after each play."""
        g = self.g
        dice = roll(self.rng, g)
        if self.fresh.any():
            _, opening = opening_roll(self.rng, int(self.fresh.sum()))
            dice[self.fresh] = opening
            self.fresh[:] = False
        slot = self.now % self.ring
        self.hist_states[slot] = self.boards
        plays = legal_plays(self.boards, dice)
        probs = after_values(plays.boards)  # (K, 6) mover's view
        equity = probs @ np.array([3.0, 2.0, 1.0, -1.0, -2.0, -3.0], dtype=np.float32)
        if self.epsilon > 0:
            # in an exploring position every play gets a random score instead
            explore = self.rng.random(g) < self.epsilon
            equity = np.where(explore[plays.root], self.rng.random(len(plays)), equity)
        chosen = best_per_root(equity, plays.root, g)
        after = plays.boards[chosen]
        # the next state's estimate for the next player: this play's outcomes reversed
        self.hist_values[(self.now + 1) % self.ring] = probs[chosen][:, ::-1]
        self.now += 1
        done = finished(after)
        too_long = (self.now - self.start) >= self.ring - 1
        out = self._collect(np.flatnonzero(done), after) if done.any() else None
        self.boards = flip(after)
        ended = done | too_long
        if ended.any():
            self.boards[ended] = start_boards(int(ended.sum()), self.variant)
            self.fresh[ended] = True
            self.start[ended] = self.now
        return out

    def _collect(self, slots: np.ndarray, after: np.ndarray) -> Finished:
        lengths = self.now - self.start[slots]  # states s_0..s_{L-1}
        t_max = int(lengths.max())
        steps = np.arange(t_max)
        plies = (self.start[slots, None] + steps[None, :]) % self.ring  # (M, T)
        valid = steps[None, :] < lengths[:, None]
        states = self.hist_states[plies, slots[:, None]]  # (M, T, 26)
        values = self.hist_values[plies, slots[:, None]]  # (M, T, 6)
        states[~valid] = 0
        values[~valid] = 0
        points = result_points(after[slots], self.checkers)
        return Finished(states, values, outcome_vector(points), lengths, points, lengths)
