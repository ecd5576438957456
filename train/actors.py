"""Self-play on Ray actors: each actor plays its own batch of games in lock-step with the
latest weights it has received; the learner (the trainer, in the driver) takes the games
they finish.

An actor (``SelfPlayActor``) holds a ``SelfPlay`` (its own games and dice) and a network
built from a model payload (``model.checkpoint.model_payload``: the networks, their
encodings and weights). ``play(games, weights)`` loads new weights when it is handed some,
plays until at least ``games`` games have ended and returns them as ``GameBatch``: the
states, lengths, points and plies, but no values. The learner values the states itself,
with its current network, before it computes the TD targets: the values an actor played
with may be a few updates old, and they never reach a target.

``ActorPool`` starts the actors (``ray`` imported only here and only when asked for),
keeps one ``play`` call running on each, hands out the finished games as they come, sends
new weights through Ray's object store and replaces an actor that died.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from gammon.eval.playing.cluster import ActorError, ray_module, start_ray  # noqa: F401 (re-exported)

@dataclass
class GameBatch:
    """Games an actor finished: states (M, T, 26) int8 padded with zeros, lengths (M,),
    points (M,) for the player of the last state (1/2/3), plies (M,)."""

    states: np.ndarray
    lengths: np.ndarray
    points: np.ndarray
    plies: np.ndarray

    @classmethod
    def concat(cls, parts: list["GameBatch"]) -> "GameBatch":
        t_max = max(p.states.shape[1] for p in parts)
        states = np.zeros((sum(len(p.lengths) for p in parts), t_max, 26), np.int8)
        row = 0
        for p in parts:
            states[row:row + len(p.lengths), :p.states.shape[1]] = p.states
            row += len(p.lengths)
        return cls(states, *(np.concatenate([getattr(p, k) for p in parts])
                             for k in ("lengths", "points", "plies")))


class SelfPlayActor:
    """One self-play worker (a Ray actor, or a plain object in a test)."""

    def __init__(self, payload: dict, parallel_games: int, seed: int, epsilon: float = 0.0,
                 threads: int = 1, device: str = "cpu"):
        import torch

        from gammon.model.checkpoint import build_net, build_phases
        from gammon.model.policy import NetEvaluator

        from .selfplay import SelfPlay
        torch.set_num_threads(threads)
        spec = payload["model"]
        self.net = build_net(payload).to(device)
        self.phases = {name: (net.to(device), enc)
                       for name, (net, enc) in build_phases(payload).items()}
        self.evaluator = NetEvaluator(self.net, spec["encoding"], spec["variant"], device,
                                      self.phases)
        self.selfplay = SelfPlay(parallel_games, np.random.default_rng(seed), spec["variant"],
                                 epsilon)
        self.version = 0

    def pid(self) -> int:
        return os.getpid()

    def set_weights(self, version: int, payload: dict) -> None:
        """Load the networks' weights of a model payload (same shapes)."""
        self.net.load_state_dict(payload["state_dict"])
        for name, (net, _) in self.phases.items():
            net.load_state_dict(payload["phases"][name]["state_dict"])
        self.version = version

    def play(self, games: int, version: int = 0, payload: dict | None = None) -> tuple:
        """Play until at least ``games`` games ended; (GameBatch, the weights' version
        they were played with). ``payload``: new weights (version ``version``) first."""
        if payload is not None and version != self.version:
            self.set_weights(version, payload)
        parts, done = [], 0
        while done < games:
            finished = self.selfplay.ply(self.evaluator.after_play,
                                         self.evaluator.equity_before_roll)
            if finished is not None:
                parts.append(GameBatch(finished.states, finished.lengths, finished.points,
                                       finished.plies))
                done += len(finished.lengths)
        return GameBatch.concat(parts), self.version


class ActorPool:
    """``count`` self-play actors with one ``play`` call each always running.

    ``games`` is what each call plays before it returns (a few hundred: big enough to keep
    the actor busy, small enough to keep the learner fed). ``seed`` and the actor's number
    (counting replacements) seed each actor's dice.
    """

    def __init__(self, count: int, payload: dict, parallel_games: int, seed: int,
                 epsilon: float = 0.0, games: int = 256, log=print, device: str = "cpu"):
        self.ray = ray_module()
        self.payload_args = (parallel_games, epsilon)
        self.seed, self.games, self.log, self.device = seed, games, log, device
        self.version = 0
        self.weights = self.ray.put(payload)
        self.started = 0  # actors made so far (the next one's number)
        self.actors = {}  # running call -> actor
        # on the GPU the actors share it (each asks Ray for an equal part of one device)
        gpus = 1.0 / count if device == "cuda" else 0
        self._remote = self.ray.remote(num_cpus=1, num_gpus=gpus, max_restarts=0)(
            SelfPlayActor)
        for _ in range(count):
            self._start_actor()

    def _seed_of(self, number: int) -> int:
        state = np.random.SeedSequence([self.seed, number]).generate_state(2, np.uint32)
        return int(state[0]) << 32 | int(state[1])

    def _start_actor(self) -> None:
        parallel_games, epsilon = self.payload_args
        actor = self._remote.remote(self.weights, parallel_games, self._seed_of(self.started),
                                    epsilon, device=self.device)
        self.started += 1
        self._submit(actor)

    def _submit(self, actor) -> None:
        call = actor.play.remote(self.games, self.version, self.weights)
        self.actors[call] = actor

    def broadcast(self, payload: dict) -> None:
        """New weights: every actor takes them at its next call."""
        self.version += 1
        self.weights = self.ray.put(payload)

    def next_games(self, timeout: float | None = None) -> GameBatch | None:
        """The games of the first call to end (its actor is sent off again at once); None
        when none ended within ``timeout``. An actor that died is replaced by a new one
        (a line is logged); ActorError when every actor of a round died."""
        ready, _ = self.ray.wait(list(self.actors), num_returns=1, timeout=timeout)
        if not ready:
            return None
        call = ready[0]
        actor = self.actors.pop(call)
        try:
            batch, _ = self.ray.get(call)
        except self.ray.exceptions.RayActorError as e:
            self.log(f"a self-play actor died ({_first_line(e)}); starting another")
            if self.started > 4 * max(1, len(self.actors) + 1) + 8:
                raise ActorError("self-play actors keep dying; stopping") from None
            self._start_actor()
            return None
        self._submit(actor)
        return batch

    def pids(self) -> list[int]:
        return self.ray.get([actor.pid.remote() for actor in self.actors.values()])

    def close(self) -> None:
        for actor in self.actors.values():
            self.ray.kill(actor)
        self.actors = {}


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return (text.splitlines()[0] if text else type(e).__name__)[:160]
