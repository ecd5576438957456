"""Self-play: G games in lock-step through the one game loop (``engine.game``), one network
call per ply for every afterstate of every game; finished games come out as (states, value
estimates, outcome) ready for TD targets.

A finished game's slot starts a new game at once, so the batch stays full (no tail of a
few long games). The histories live in ring buffers of ``ring`` plies per slot.
``SelfPlay`` is a unit with its own state: its dice generator, the games in flight and
their histories (``state_dict`` / ``load_state_dict``), so a trainer or a remote actor
can save and restore it without reading its fields.

A ply is one turn of the game (``engine.game.Turn``). Under rules with actions before the
roll (``Rules.before_roll_actions``: Nuclear's bomb) the player on roll takes one where
``before_equity(boards, *state)`` (the network's equity before the roll, given the
variant's state) says the position after it is worth more (``model.actions.act_by_equity``).
The histories and the afterstates handed to ``after_values`` carry the variant's state as
the network of the variant reads it (``model.encoding.read_boards``: Nuclear's bomb folded
into the boards).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from gammon.engine import outcomes
from gammon.engine.dice import opening_roll, roll
from gammon.engine.game import Turn, new_games, play_turn, restart
from gammon.engine.policy import best_per_root
from gammon.engine.rules import Rules, variant as get_variant
from gammon.model.actions import act_by_equity
from gammon.model.encoding import VARIANT_ENCODINGS, read_boards


@dataclass
class Finished:
    """Games that ended this ply: (states, values, outcomes) padded, plus lengths."""

    states: np.ndarray  # (M, T, 26) int8
    values: np.ndarray  # (M, T, 6) float32: values[:, t] estimates state t (t >= 1)
    outcomes: np.ndarray  # (M, 6) for the player of the last state
    lengths: np.ndarray  # (M,) states per game
    points: np.ndarray  # (M,) 1/2/3
    plies: np.ndarray  # (M,) plays in the game


class _ByEquity:
    """The self-play player's actions before the roll: each of the rules' actions, by
    ``act_by_equity`` on ``before_equity``; none without it."""

    def __init__(self, rules: Rules):
        self.rules, self.before_equity = rules, None

    def __getattr__(self, action: str):
        rules, before = self.__dict__.get("rules"), self.__dict__.get("before_equity")
        if rules is None or action not in rules.before_roll_actions or before is None:
            raise AttributeError(action)
        return lambda boards, *state: act_by_equity(self.before_equity, self.rules, action,
                                                    boards, state)


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
        # the network of the variant, where it reads the variant's state (Nuclear's bomb)
        self.encoding = VARIANT_ENCODINGS.get(self.rules.name)
        self.player = _ByEquity(self.rules)
        self.turn = _SelfPlayTurn(self)

    @property
    def boards(self) -> np.ndarray:
        """(G, 26) the position before the roll in each slot."""
        return self.games.boards

    def ply(self, after_values, before_equity=None) -> Finished | None:
        """One play in every game (one ``engine.game.Turn``). ``after_values(afterstates
        (K, 26)) -> (K, 6)`` gives the mover's outcome probabilities after each play;
        ``before_equity(boards, *state) -> (N,)`` the equity before the roll, for the
        variant's actions before it (Nuclear's bomb; without it, no one acts). Returns the
        games that ended, or None."""
        self.player.before_equity = before_equity
        self.turn.after_values, self.turn.finished = after_values, None
        self.turn(np.arange(self.g))
        return self.turn.finished

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
                # the variant's state (Nuclear: "bomb") and the plays made (no action
                # before the opening roll)
                **({**{name: v.copy() for name, v in self.games.extra.items()},
                    "plies": self.games.plies.copy()} if self.rules.extra_state else {})}

    def load_state_dict(self, state: dict) -> None:
        """Continue from ``state_dict()``; ValueError naming what does not fit."""
        shapes = {"boards": (self.g, 26), "seat": (self.g,), "fresh": (self.g,),
                  "start": (self.g,), "hist_states": (self.ring, self.g, 26),
                  "hist_values": (self.ring, self.g, 6)}
        for name in (*self.rules.extra_state, "plies") if self.rules.extra_state else ():
            shapes[name] = (self.g,)
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
        for name in self.rules.extra_state:
            self.games.extra[name][:] = arrays[name]
        if self.rules.extra_state:
            self.games.plies[:] = arrays["plies"]
        self.rng.bit_generator.state = json.loads(state["rng"])


class _SelfPlayTurn(Turn):
    """A ply of self-play: no cube; the dice from self-play's generator (an opening roll
    in a fresh game); the plays chosen by ``after_values`` (exploring); the histories
    written; finished games collected and their slots restarted."""

    def __init__(self, sp: SelfPlay):
        super().__init__((sp.player, sp.player), sp.games, sp.rules)
        self.sp = sp
        self.after_values = self.finished = None

    def roll(self, rows: np.ndarray) -> np.ndarray:
        sp = self.sp
        dice = roll(sp.rng, sp.g)
        if sp.fresh.any():
            _, opening = opening_roll(sp.rng, int(sp.fresh.sum()))
            dice[sp.fresh] = opening
            sp.fresh[:] = False
        return dice

    def play(self, rows: np.ndarray, dice: np.ndarray) -> np.ndarray:
        sp, g = self.sp, self.sp.g
        extra = self.state.extra
        sp.hist_states[sp.now % sp.ring] = read_boards(sp.encoding, sp.boards, extra)
        picked = {}

        def choose(plays, boards, dice):
            after = read_boards(sp.encoding, plays.boards,
                                {name: v[plays.root] for name, v in extra.items()})
            probs = self.after_values(after)  # (K, 6) mover's view
            equity = outcomes.equity(probs)
            if sp.epsilon > 0:
                # in an exploring position every play gets a random score instead
                explore = sp.rng.random(g) < sp.epsilon
                equity = np.where(explore[plays.root], sp.rng.random(len(plays)), equity)
            chosen = best_per_root(equity, plays.root, g)
            picked["probs"] = probs[chosen]
            return chosen

        after = play_turn((choose, choose), sp.boards, self.state.seat, dice, self.rules)
        # the next state's estimate for the next player: this play's outcomes reversed
        sp.hist_values[(sp.now + 1) % sp.ring] = outcomes.flip_outcomes(picked["probs"])
        sp.now += 1
        return after

    def ended(self, rows: np.ndarray, won: np.ndarray) -> None:
        sp = self.sp
        done = won != 0
        self.finished = sp._collect(np.flatnonzero(done), won) if done.any() else None
        ended = done | ((sp.now - sp.start) >= sp.ring - 1)
        if ended.any():
            slots = np.flatnonzero(ended)
            restart(sp.games, slots, sp.rules)
            sp.fresh[slots] = True
            sp.start[slots] = sp.now
