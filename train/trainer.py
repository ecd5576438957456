"""A training run, top to bottom: self-play, TD(lambda) targets, batched updates, evaluation
against pubeval, TensorBoard scalars, atomic checkpoints and exact resume.
"""

from __future__ import annotations

import json
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from engine.rules import variant as get_variant
from model import checkpoint as ckpt
from model.encoding import encoder, width
from model.net import ValueNet
from model.policy import NetEvaluator, NetPolicy

from .config import Config, from_dict
from .selfplay import SelfPlay
from .td import lambda_returns


def pick_device(name: str) -> torch.device:
    """cpu, cuda, or auto (CUDA when available)."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("device cuda was asked for, but torch sees no CUDA device")
    return torch.device(name)


@dataclass
class Counters:
    """Progress of a run, saved in checkpoints."""

    games: int = 0
    positions: int = 0
    updates: int = 0
    next_eval: int = 0
    next_checkpoint: int = 0
    seconds: float = 0.0
    history: list = field(default_factory=list)  # evaluations: dicts, one per evaluation


def evaluate_vs_pubeval(bot, games: int, seed: int, variant: str) -> dict:
    """Paired cubeless games of ``bot`` against pubeval (``eval.match.run_match``, the one
    paired-dice runner): wins and points per game of ``bot``, the 95% interval from the
    per-pair means."""
    from eval.bot import PubevalBot
    from eval.match import run_match
    pub = PubevalBot(get_variant(variant).checkers)
    r = run_match(bot, pub, 2 * max(1, games // 2), seed, variant, progress=False)
    return {"games": r.games, "win_rate": r.rate(r.wins_a), "ppg": r.ppg_a,
            "ppg_ci95": r.ppg_a_ci95, "gammon_rate": r.rate(r.gammons_a),
            "gammon_rate_against": r.rate(r.gammons_b), "plies_per_game": r.plies_per_game}


class Trainer:
    """One run: build or resume, then ``run()`` until the configured number of games."""

    def __init__(self, config: Config, out: str | Path, resume: dict | None = None,
                 log=print):
        self.config, self.out, self.log = config, Path(out), log
        t = config.train
        torch.manual_seed(t.seed)
        torch.set_num_threads(t.threads)
        self.device = pick_device(t.device)
        self.checkers = get_variant(t.variant).checkers
        m = config.model
        self.net = ValueNet(width(m.encoding), m.hidden, m.activation).to(self.device)
        self.encode = encoder(m.encoding)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=t.learning_rate)
        # separate generators: the dice of self-play, and the order of the minibatches
        dice_seed, order_seed = np.random.SeedSequence(t.seed).spawn(2)
        self.rng = np.random.default_rng(order_seed)
        self.selfplay = SelfPlay(t.parallel_games, np.random.default_rng(dice_seed), t.variant,
                                 t.epsilon)
        self.evaluator = NetEvaluator(self.net, m.encoding, t.variant, self.device)
        self.counters = Counters(next_eval=config.eval.every_games,
                                 next_checkpoint=config.run.checkpoint_every_games)
        self.pending_states: list[np.ndarray] = []
        self.pending_targets: list[np.ndarray] = []
        self.recent = {"points": [], "plies": []}
        self.stop_requested = False
        if resume is not None:
            self._restore(resume)

    # --- self-play and learning ----------------------------------------------------------

    def _after_values(self, afterstates: np.ndarray) -> np.ndarray:
        return self.evaluator.after_play(afterstates)

    def _absorb(self, finished) -> None:
        """Turn finished games into (state, target) samples waiting for an update."""
        t = self.config.train
        targets = lambda_returns(finished.values, finished.outcomes, finished.lengths, t.lam)
        valid = np.arange(finished.states.shape[1])[None, :] < finished.lengths[:, None]
        self.pending_states.append(finished.states[valid])
        self.pending_targets.append(targets[valid].astype(np.float32))
        self.counters.games += len(finished.lengths)
        self.counters.positions += int(finished.lengths.sum())
        self.recent["points"].extend(finished.points.tolist())
        self.recent["plies"].extend(finished.plies.tolist())

    def _pending(self) -> int:
        return sum(len(s) for s in self.pending_states)

    def learning_rate(self) -> float:
        """The step size now: halved every ``lr_halving_games`` games, not below lr_min."""
        t = self.config.train
        if not t.lr_halving_games:
            return t.learning_rate
        return max(t.lr_min, t.learning_rate * 0.5 ** (self.counters.games / t.lr_halving_games))

    def _update(self) -> float:
        """Gradient steps on the waiting samples; returns the mean loss."""
        t = self.config.train
        for group in self.optimizer.param_groups:
            group["lr"] = self.learning_rate()
        states = np.concatenate(self.pending_states)
        targets = torch.from_numpy(np.concatenate(self.pending_targets)).to(self.device)
        self.pending_states, self.pending_targets = [], []
        x = torch.from_numpy(self.encode(states, self.checkers)).to(self.device)
        losses = []
        self.net.train()
        for _ in range(t.epochs):
            order = torch.from_numpy(self.rng.permutation(len(states))).to(self.device)
            for start in range(0, len(states), t.batch_size):
                batch = order[start:start + t.batch_size]
                logits = self.net(x[batch])
                # cross-entropy against soft targets (lambda-returns are mixtures)
                loss = -(targets[batch] * torch.log_softmax(logits, dim=-1)).sum(-1).mean()
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                self.optimizer.step()
                losses.append(loss.item())
                self.counters.updates += 1
        self.net.eval()
        self.net.invalidate()
        return float(np.mean(losses))

    # --- the run ---------------------------------------------------------------------------

    def run(self, writer=None, progress=None) -> Counters:
        """Play and learn until ``train.games``; evaluate and checkpoint on the way."""
        cfg, c = self.config, self.counters
        previous = signal.signal(signal.SIGINT, self._request_stop)
        started, games_at_start = time.perf_counter(), c.games
        last_log_time, last_log_games = started, c.games
        try:
            while c.games < cfg.train.games and not self.stop_requested:
                finished = self.selfplay.ply(self._after_values)
                if finished is None:
                    continue
                before = c.games
                self._absorb(finished)
                if progress is not None:
                    progress.update(min(c.games, cfg.train.games) - min(before, cfg.train.games))
                if self._pending() >= cfg.train.update_every:
                    loss = self._update()
                    now = time.perf_counter()
                    rate = (c.games - last_log_games) / max(now - last_log_time, 1e-9)
                    last_log_time, last_log_games = now, c.games
                    self._log_training(writer, loss, rate, progress)
                if cfg.eval.every_games and c.games >= c.next_eval:
                    self._evaluate(writer, progress)
                    c.next_eval += cfg.eval.every_games
                if cfg.run.checkpoint_every_games and c.games >= c.next_checkpoint:
                    c.seconds += time.perf_counter() - started
                    started = time.perf_counter()
                    self.save()
                    c.next_checkpoint += cfg.run.checkpoint_every_games
        finally:
            signal.signal(signal.SIGINT, previous)
        c.seconds += time.perf_counter() - started
        self.save()
        if not self.stop_requested and cfg.eval.every_games and (
                not c.history or c.history[-1]["games_trained"] != c.games):
            self._evaluate(writer, progress)
            self.save()
        return c

    def _request_stop(self, signum, frame) -> None:
        self.stop_requested = True

    def _log_training(self, writer, loss: float, rate: float, progress) -> None:
        c = self.counters
        points = np.array(self.recent["points"])
        plies = np.array(self.recent["plies"])
        self.recent = {"points": [], "plies": []}
        if writer is not None:
            writer.add_scalar("train/loss", loss, c.games)
            writer.add_scalar("train/learning_rate", self.learning_rate(), c.games)
            writer.add_scalar("train/games_per_s", rate, c.games)
            if len(points):
                writer.add_scalar("selfplay/gammon_rate", float((points >= 2).mean()), c.games)
                writer.add_scalar("selfplay/backgammon_rate", float((points == 3).mean()),
                                  c.games)
                writer.add_scalar("selfplay/plies_per_game", float(plies.mean()), c.games)
        if progress is not None:
            progress.set_postfix_str(self._postfix(rate, loss), refresh=False)

    def _postfix(self, rate: float | None = None, loss: float | None = None) -> str:
        parts = []
        if rate is not None:
            parts.append(f"{rate:.0f} games/s")
        if loss is not None:
            parts.append(f"loss {loss:.3f}")
        if self.counters.history:
            last = self.counters.history[-1]
            parts.append(f"vs pubeval {last['win_rate']:.1%} {last['ppg']:+.3f} ppg")
        return ", ".join(parts)

    def _evaluate(self, writer, progress) -> dict:
        cfg, c = self.config, self.counters
        bot = NetPolicy(NetEvaluator(self.net, cfg.model.encoding, cfg.train.variant,
                                     self.device))
        result = evaluate_vs_pubeval(bot, cfg.eval.games, cfg.train.seed + 7919 * c.games + 1,
                                     cfg.train.variant)
        result["games_trained"] = c.games
        c.history.append(result)
        if writer is not None:
            writer.add_scalar("pubeval/win_rate", result["win_rate"], c.games)
            writer.add_scalar("pubeval/ppg", result["ppg"], c.games)
            writer.add_scalar("pubeval/gammon_rate", result["gammon_rate"], c.games)
            writer.add_scalar("pubeval/plies_per_game", result["plies_per_game"], c.games)
            writer.flush()
        if progress is not None and not getattr(progress, "disable", False):
            progress.set_postfix_str(self._postfix(), refresh=True)
        else:
            self.log(f"{c.games} games: vs pubeval {result['win_rate']:.1%} wins, "
                     f"{result['ppg']:+.3f} ± {result['ppg_ci95']:.3f} ppg")
        with open(self.out / "evaluations.jsonl", "a") as f:
            f.write(json.dumps(result) + "\n")
        return result

    # --- checkpoints -----------------------------------------------------------------------

    def save(self) -> None:
        """Write the run checkpoint (for --resume) and the small model file (for play)."""
        cfg = self.config
        model = ckpt.model_payload(self.net, cfg.model.encoding, cfg.train.variant)
        state = {
            **model,
            "config": cfg.to_dict(),
            "optimizer": self.optimizer.state_dict(),
            "counters": json.dumps(self.counters.__dict__),
            "rng": json.dumps(self.rng.bit_generator.state),
            "selfplay": {k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v
                         for k, v in self.selfplay.state_dict().items()},
            "pending_states": torch.from_numpy(np.concatenate(self.pending_states)
                                               if self.pending_states
                                               else np.zeros((0, 26), np.int8)),
            "pending_targets": torch.from_numpy(np.concatenate(self.pending_targets)
                                                if self.pending_targets
                                                else np.zeros((0, 6), np.float32)),
        }
        ckpt.save(self.out / "checkpoint.pt", state)
        ckpt.save(self.out / "model.pt", {**model, "config": cfg.to_dict(),
                                          "results": json.dumps(self.counters.history)})

    def _restore(self, payload: dict) -> None:
        self.net.load_state_dict(payload["state_dict"])
        self.net.invalidate()
        self.optimizer.load_state_dict(payload["optimizer"])
        self.counters = Counters(**json.loads(payload["counters"]))
        self.rng.bit_generator.state = json.loads(payload["rng"])
        self.selfplay.load_state_dict(
            {k: v.numpy() if isinstance(v, torch.Tensor) else v
             for k, v in payload["selfplay"].items()})
        states = payload["pending_states"].numpy()
        self.pending_states = [states.copy()] if len(states) else []
        targets = payload["pending_targets"].numpy()
        self.pending_targets = [targets.copy()] if len(targets) else []


def resume_payload(path) -> tuple[Config, dict]:
    """The config and state of a run checkpoint, refused with a reason when unusable."""
    payload = ckpt.load(path)
    for key in ("config", "optimizer", "selfplay", "rng", "counters"):
        if key not in payload:
            raise ckpt.CheckpointError(f"{path}: a model file, not a run checkpoint "
                                       f"(no {key!r}); resume from the run's checkpoint.pt")
    return from_dict(payload["config"]), payload
