"""Self-play: G games in lock-step through the one game loop (``engine.game``), one network
call per ply for every afterstate of every game; finished games come out as (states, value
estimates, outcome) ready for TD targets.

A finished game's slot starts a new game at once, so the batch stays full (no tail of a
few long games). The histories live in ring buffers of ``ring`` plies per slot.
``SelfPlay`` is a unit with its own state: its dice generator, the games in flight and
their histories (``state_dict`` / ``load_state_dict``), so a trainer or a remote actor
can save and restore it without reading its fields.

Nuclear: before each roll the player on roll may detonate the bomb; self-play asks
``before_equity(boards, bomb)`` (the network's equity before the roll) whether the
position after the explosion is worth more (``engine.game.bomb_decisions``). The histories
and the afterstates handed to ``after_values`` carry the bomb folded into the boards
(``model.encoding.fold_bomb``), the form the Nuclear network reads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from engine import outcomes
from engine.dice import opening_roll, roll
from engine.game import bomb_decisions, end_turn, new_games, play_turn, restart
from engine.policy import best_per_root
from engine.rules import Rules, variant as get_variant
from model.encoding import fold_bomb


@dataclass
class Finished:
    """Games that ended this ply: (states, values, outcomes) padded, plus lengths."""

    states: np.ndarray  # (M, T, 26) int8
    values: np.ndarray  # (M, T, 6) float32: values[:, t] estimates state t (t >= 1)
    outcomes: np.ndarray  # (M, 6) for the player of the last state
    lengths: np.ndarray  # (M,) states per game
    points: np.ndarray  # (M,) 1/2/3
    plies: np.ndarray  # (M,) plays in the game


class _Detonator:
    """The one self-play player's bomb decision, for ``engine.game.bomb_decisions``."""

    def __init__(self, rule):
        self.detonate = rule


class SelfPlay:
    """The running games. ``ply(after_values)`` advances every game by one play.

    ``rng`` draws the dice (and the exploring positions when ``epsilon`` > 0); nothing else
    uses it, so the games do not depend on how the learner orders its minibatches.
    """

    def __init__(self, games: int, rng: np.random.Generator, variant: str | Rules = "standard",
                 epsilon: float = 0.0, ring: int = 1024):
        self.g, self.rng, self.epsilon, self.ring = games, rng, epsilon, ring
        self.rules = get_variant(variant)
        self.games = new_games(self.rules, np.zeros(games, dtype=np.int8))
        self.fresh = np.ones(games, dtype=bool)  # next roll is an opening roll
        self.start = np.zeros(games, dtype=np.int64)  # ply at which each slot's game began
        self.now = 0  # plies played by the whole batch
        self.hist_states = np.zeros((ring, games, 26), dtype=np.int8)
        self.hist_values = np.zeros((ring, games, 6), dtype=np.float32)
        self.bomb = "bomb" in self.rules.extra_state  # Nuclear

    @property
    def boards(self) -> np.ndarray:
        """(G, 26) the position before the roll in each slot."""
        return self.games.boards

    def ply(self, after_values, before_equity=None) -> Finished | None:
        """One play in every game. ``after_values(afterstates (K, 26)) -> (K, 6)`` gives
        the mover's outcome probabilities after each play; ``before_equity(boards, bomb)
        -> (N,)`` the equity before the roll, for Nuclear's bomb (without it, no one
        detonates)."""
        g = self.g
        rows = np.arange(g)
        bomb = None
        if self.bomb:
            if before_equity is not None:
                from model.bomb import detonate_by_equity
                decide = _Detonator(lambda b, o: detonate_by_equity(before_equity, b, o))
                bomb_decisions((decide, decide), self.games, rows)
            bomb = self.games.extra["bomb"]
        dice = roll(self.rng, g)
        if self.fresh.any():
            _, opening = opening_roll(self.rng, int(self.fresh.sum()))
            dice[self.fresh] = opening
            self.fresh[:] = False
        slot = self.now % self.ring
        self.hist_states[slot] = self.boards if bomb is None else fold_bomb(self.boards, bomb)
        picked = {}

        def choose(plays, boards, dice):
            after = plays.boards if bomb is None else fold_bomb(plays.boards, bomb[plays.root])
            probs = after_values(after)  # (K, 6) mover's view
            equity = outcomes.equity(probs)
            if self.epsilon > 0:
                # in an exploring position every play gets a random score instead
                explore = self.rng.random(g) < self.epsilon
                equity = np.where(explore[plays.root], self.rng.random(len(plays)), equity)
            chosen = best_per_root(equity, plays.root, g)
            picked["probs"] = probs[chosen]
            return chosen

        after = play_turn((choose, choose), self.boards, self.games.seat, dice, self.rules)
        # the next state's estimate for the next player: this play's outcomes reversed
        self.hist_values[(self.now + 1) % self.ring] = outcomes.flip_outcomes(picked["probs"])
        self.now += 1
        won = end_turn(self.games, rows, after, self.rules)
        done = won != 0
        out = self._collect(np.flatnonzero(done), won) if done.any() else None
        ended = done | ((self.now - self.start) >= self.ring - 1)
        if ended.any():
            slots = np.flatnonzero(ended)
            restart(self.games, slots, self.rules)
            self.fresh[slots] = True
            self.start[slots] = self.now
        return out

    def _collect(self, slots: np.ndarray, won: np.ndarray) -> Finished:
        lengths = self.now - self.start[slots]  # states s_0..s_{L-1}
        t_max = int(lengths.max())
        steps = np.arange(t_max)
        plies = (self.start[slots, None] + steps[None, :]) % self.ring  # (M, T)
        valid = steps[None, :] < lengths[:, None]
        states = self.hist_states[plies, slots[:, None]]  # (M, T, 26)
        values = self.hist_values[plies, slots[:, None]]  # (M, T, 6)
        states[~valid] = 0
        values[~valid] = 0
        points = won[slots]
        return Finished(states, values, outcomes.certain(points), lengths, points, lengths)

    # --- its state ---------------------------------------------------------------------------

    def state_dict(self) -> dict:
        """Everything needed to continue exactly: arrays (copies), ints and the dice
        generator's state as JSON text."""
        return {"boards": self.boards.copy(), "seat": self.games.seat.copy(),
                "fresh": self.fresh.copy(), "start": self.start.copy(), "now": self.now,
                "hist_states": self.hist_states.copy(), "hist_values": self.hist_values.copy(),
                "rng": json.dumps(self.rng.bit_generator.state),
                **({"bomb": self.games.extra["bomb"].copy(),  # Nuclear: the bomb, and the
                    "plies": self.games.plies.copy()} if self.bomb else {})}  # opening rule

    def load_state_dict(self, state: dict) -> None:
        """Continue from ``state_dict()``; ValueError naming what does not fit."""
        shapes = {"boards": (self.g, 26), "seat": (self.g,), "fresh": (self.g,),
                  "start": (self.g,), "hist_states": (self.ring, self.g, 26),
                  "hist_values": (self.ring, self.g, 6)}
        if self.bomb:
            shapes["bomb"] = shapes["plies"] = (self.g,)
        missing = [k for k in (*shapes, "now", "rng") if k not in state]
        if missing:
            raise ValueError(f"self-play state lacks {', '.join(missing)}")
        arrays = {k: np.asarray(state[k]) for k in shapes}
        for key, shape in shapes.items():
            if arrays[key].shape != shape:
                raise ValueError(f"self-play {key} has shape {arrays[key].shape}, "
                                 f"expected {shape}")
        self.games.boards[:] = arrays["boards"]
        self.games.seat[:] = arrays["seat"]
        self.fresh[:] = arrays["fresh"]
        self.start[:] = arrays["start"]
        self.now = int(state["now"])
        self.hist_states[:] = arrays["hist_states"]
        self.hist_values[:] = arrays["hist_values"]
        if self.bomb:
            self.games.extra["bomb"][:] = arrays["bomb"]
            self.games.plies[:] = arrays["plies"]
        self.rng.bit_generator.state = json.loads(state["rng"])
