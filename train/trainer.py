"""A training run, top to bottom: self-play, TD(lambda) targets, batched updates, evaluation
against pubeval, TensorBoard scalars, atomic checkpoints and exact resume.

Its neighbours, one job each: ``train.warm_start`` (the networks start from a model file's
weights), ``train.measure`` (the games against pubeval), ``train.run_state`` (a checkpoint's
training state: what it holds, its checks before a resume, its restore) and
``train.run_dir`` (the files that make a directory a run's).

Every file of the run is written by ``engine.files``: whole or not at all, a failure being
one ``WriteError``. A run that cannot write its checkpoint (or its evaluations) stops with
that error, the previous checkpoint intact, unless ``keep_going_unsaved`` says to warn and
train on.
"""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path

import numpy as np
import torch

from gammon.engine.bearoff import settled
from gammon.engine.board import flip
from gammon.engine.files import WriteError, append_line, write_atomic
from gammon.engine.outcomes import flip_outcomes
from gammon.engine.phase import PHASES, classify
from gammon.engine.rules import variant as get_variant
from gammon.model import checkpoint as ckpt
from gammon.model.encoding import encoder, width
from gammon.model.lookahead import look_ahead
from gammon.model.net import ValueNet
from gammon.model.policy import NetEvaluator, NetPolicy

from .actors import ActorError
from .config import Config, check_stages, check_variant
from .measure import evaluate_vs_pubeval
from .run_dir import clear_run, remove_stale_tmp, run_files  # noqa: F401 (re-exported)
from .run_state import Counters, restore, training_state
from .run_state import resume_payload  # noqa: F401 (re-exported)
from .selfplay import SelfPlay
from .step import AutogradStep, FlatStep
from .td import lambda_returns
from .warm_start import start_from


def pick_device(name: str) -> torch.device:
    """cpu, cuda, or auto (CUDA when available)."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("device cuda was asked for, but torch sees no CUDA device")
    return torch.device(name)


class Trainer:
    """One run: build or resume, then ``run()`` until the configured number of games."""

    def __init__(self, config: Config, out: str | Path, resume: dict | None = None,
                 log=print, source: str | Path | None = None,
                 keep_going_unsaved: bool = False):
        """``resume``: a payload from ``resume_payload``; ``source`` names its file in the
        CheckpointError raised when its training state cannot be restored.
        ``keep_going_unsaved``: when a checkpoint or evaluation cannot be written, warn
        (``log``) and train on, instead of stopping with the WriteError."""
        self.config, self.out, self.log = config, Path(out), log
        self.keep_going_unsaved = keep_going_unsaved
        # the last checkpoint written (or resumed from) and the games it holds
        self.last_checkpoint: Path | None = None
        self.saved_games: int | None = None
        self._evaluations_behind = False  # evaluations.jsonl lacks a line it could not take
        self.source = str(source) if source is not None else "checkpoint"
        t = config.train
        torch.manual_seed(t.seed)
        torch.set_num_threads(t.threads)
        self.device = pick_device(t.device)
        self.checkers = get_variant(t.variant).checkers
        m = config.model
        check_variant(config)
        check_stages(config)
        self.net = ValueNet(width(m.encoding), m.hidden, m.activation)
        # the networks of other phases: phase -> (network, encoding); the main one takes
        # every position none of them claims (``engine.phase``)
        self.phases = {}
        if m.race_hidden:
            race = ValueNet(width(m.race_encoding), m.race_hidden, m.activation)
            self.phases["race"] = (race, m.race_encoding)
        if m.init and resume is None:
            start_from({"main": (self.net, m.encoding), **self.phases}, m.init)
        for net in (self.net, *(net for net, _ in self.phases.values())):
            net.to(self.device)  # in place (a module's parameters move)
        parameters = [*self.net.parameters(),
                      *(p for net, _ in self.phases.values() for p in net.parameters())]
        # Adam's hyperparameters and state (moments, step counts: what checkpoints keep); its
        # steps are taken by ``train.step.FlatStep`` (``AutogradStep`` with the config's
        # train.step = "autograd"), with the numbers of torch's fused Adam
        self.optimizer = torch.optim.Adam(parameters, lr=t.learning_rate, foreach=True)
        # separate generators: the dice of self-play, and the order of the minibatches
        dice_seed, order_seed = np.random.SeedSequence(t.seed).spawn(2)
        self.rng = np.random.default_rng(order_seed)
        self.selfplay = SelfPlay(t.parallel_games, np.random.default_rng(dice_seed), t.variant,
                                 t.epsilon)
        self.evaluator = NetEvaluator(self.net, m.encoding, t.variant, self.device,
                                      self.phases)
        self.counters = Counters(next_eval=config.eval.every_games,
                                 next_checkpoint=config.run.checkpoint_every_games)
        self.pending_states: list[np.ndarray] = []
        self.pending_targets: list[np.ndarray] = []
        self.recent = {"points": [], "plies": []}
        self.stop_requested = False
        self.stop_signal: int | None = None  # the signal that asked to stop
        self.resumed = resume is not None
        self.pool = None  # self-play actors (``use_actors``); None: self-play here
        if resume is not None:
            self.counters, self.pending_states, self.pending_targets = restore(
                resume, self.source, self.net, self.phases, self.optimizer, self.rng,
                self.selfplay)
            self.saved_games = self.counters.games
            self.last_checkpoint = Path(source) if source is not None else None

    def use_actors(self, count: int, games_per_call: int = 256, device: str = "cpu") -> None:
        """Self-play on ``count`` Ray actors (``train.actors``; Ray must be started) from
        here on; this process learns. Their dice are seeded from the run's seed and the
        games trained so far, so a resumed run does not replay the games it already had.
        ``device``: where the actors' networks run (cpu, or cuda: sharing the GPU)."""
        from .actors import ActorPool
        t = self.config.train
        self.pool = ActorPool(count, self._model_payload(), t.parallel_games,
                              seed=t.seed * 1_000_003 + self.counters.games, epsilon=t.epsilon,
                              games=games_per_call, log=self.log, device=device)

    def _model_payload(self) -> dict:
        m = self.config.model
        return ckpt.model_payload(self.net, m.encoding, self.config.train.variant, self.phases)

    def _next_finished(self):
        """Games that ended: from the self-play here (one ply of every game), or from the
        actors (whatever one of them finished, valued by this network); None if none."""
        if self.pool is None:
            return self.selfplay.ply(self._after_values, self.evaluator.equity_before_roll)
        batch = self.pool.next_games(timeout=0.5)
        if batch is None:
            return None
        return self._valued(batch)

    def _valued(self, batch):
        """An actor's ``GameBatch`` as self-play's ``Finished``, each state valued by the
        current networks (the values the actor played with never reach a target)."""
        from gammon.engine.outcomes import certain

        from .selfplay import Finished
        m, t_max, _ = batch.states.shape
        valid = np.arange(t_max)[None, :] < batch.lengths[:, None]  # (M, T)
        valid[:, 0] = False  # the first state's value is never used
        values = np.zeros((m, t_max, 6), dtype=np.float32)
        values[valid] = self.evaluator(batch.states[valid])
        return Finished(batch.states, values, certain(batch.points), batch.lengths,
                        batch.points, batch.plies)

    # --- self-play and learning ----------------------------------------------------------

    def _after_values(self, afterstates: np.ndarray) -> np.ndarray:
        return self.evaluator.after_play(afterstates)

    def _absorb(self, finished) -> None:
        """Turn finished games into (state, target) samples waiting for an update.

        Races the bear-off database settles (``engine.bearoff``) are valued exactly: the
        returns of the states before them stop there, and they are no samples themselves,
        since the network is never asked about them."""
        t = self.config.train
        m, t_max, _ = finished.states.shape
        valid = np.arange(t_max)[None, :] < finished.lengths[:, None]  # (M, T)
        exact = settled(finished.states.reshape(-1, 26), self.selfplay.rules).reshape(m, t_max)
        exact &= valid
        targets = lambda_returns(finished.values, finished.outcomes, finished.lengths, t.lam,
                                 exact)
        valid &= ~exact
        if t.one_ply_share > 0:
            self._one_ply_targets(finished.states, targets, valid)
        self.pending_states.append(finished.states[valid])
        self.pending_targets.append(targets[valid].astype(np.float32))
        self.counters.games += len(finished.lengths)
        self.counters.positions += int(finished.lengths.sum())
        self.recent["points"].extend(finished.points.tolist())
        self.recent["plies"].extend(finished.plies.tolist())

    def _one_ply_targets(self, states: np.ndarray, targets: np.ndarray,
                         valid: np.ndarray) -> None:
        """Replace the targets (M, T, 6) of a share (``train.one_ply_share``) of the valid
        states (M, T, 26) by their 1-ply value for the player on roll: each state seen as
        the afterstate of the other player, looked ahead one roll (``model.lookahead``),
        and its outcomes turned back."""
        rows = np.argwhere(valid)  # (n, 2) game, ply
        pick = rows[self.rng.random(len(rows)) < self.config.train.one_ply_share]
        if len(pick) == 0:
            return
        boards = states[pick[:, 0], pick[:, 1]]  # (k, 26) player on roll
        seen_by_other = look_ahead(self.evaluator, flip(boards), 1)  # (k, 6) other's view
        targets[pick[:, 0], pick[:, 1]] = flip_outcomes(seen_by_other)

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
        states = np.concatenate(self.pending_states)  # (N, 26)
        targets = torch.from_numpy(np.concatenate(self.pending_targets)).to(self.device)
        self.pending_states, self.pending_targets = [], []
        nets = self._networks_of(states)
        step = (FlatStep if t.step == "fused" else AutogradStep)(
            self.optimizer, [net for net, _, _ in nets])
        step.begin()
        for _ in range(t.epochs):
            order = self.rng.permutation(len(states))
            starts = range(0, len(states), t.batch_size)
            # per network, its positions in minibatch order, encoded once: (n_net, F)
            # inputs and (n_net, 6) targets cut into each minibatch's share (the same rows,
            # in the same order, as gathering them minibatch by minibatch; the boards are
            # gathered, not the wider inputs)
            shares = []
            for _, encoding, take in nets:
                mine = take[order]  # (N,) in minibatch order: this network's?
                rows = order[mine]  # (n_net,) this network's states, in order
                x = torch.from_numpy(encoder(encoding)(states[rows], self.checkers))
                y = targets[torch.from_numpy(rows).to(self.device)]
                # its share of each minibatch: views (k_b, F) and (k_b, 6)
                cut = np.cumsum(mine)[[start - 1 for start in starts[1:]]]
                shares.append((x.to(self.device).tensor_split(cut.tolist()),
                               y.tensor_split(cut.tolist())))
            for b, start in enumerate(starts):
                # cross-entropy against soft targets (lambda-returns are mixtures), each
                # position through its phase's network (``train.step``: autograd's and
                # Adam's numbers, by default without their overhead)
                step.step([(i, xs[b], ys[b]) for i, (xs, ys) in enumerate(shares)
                           if len(xs[b])], min(t.batch_size, len(states) - start))
                self.counters.updates += 1
        loss = step.mean_loss()
        step.end()  # the weights written: the evaluator's tables follow their version
        return loss

    def _networks_of(self, states: np.ndarray) -> list[tuple[ValueNet, str, np.ndarray]]:
        """Per network: (network, its encoding, take (N,): the states (N, 26) it values),
        the main network first; it takes every state no phase network claims."""
        phase = classify(states, "crashed" in self.phases) if self.phases else np.zeros(len(states), dtype=np.int8)
        mine = np.ones(len(states), dtype=bool)
        out = []
        for name, (net, encoding) in self.phases.items():
            take = phase == PHASES.index(name)
            mine &= ~take
            out.append((net, encoding, take))
        out.insert(0, (self.net, self.config.model.encoding, mine))
        return out

    # --- the run ---------------------------------------------------------------------------

    def run(self, writer=None, progress=None) -> Counters:
        """Play and learn until ``train.games``; evaluate and checkpoint on the way.

        SIGINT (Ctrl-C) and SIGTERM stop the run at the next play: a checkpoint is saved and
        ``stop_requested`` / ``stop_signal`` say so. Both handlers are installed here
        explicitly (never relying on inherited ones, which may ignore SIGINT in a background
        job) and the previous ones are put back before the final evaluation.
        """
        cfg, c = self.config, self.counters
        self.out.mkdir(parents=True, exist_ok=True)
        if self.resumed:
            # a kill between an evaluation and the next checkpoint left a line the
            # checkpoint does not know; the resumed run plays that evaluation again
            try:
                self._write_evaluations()
            except WriteError as e:
                self._unwritten(e)
                self._evaluations_behind = True
            self.resumed = False
        previous = self._install_stop_handlers()
        started = time.perf_counter()
        last_log_time, last_log_games = started, c.games
        try:
            while c.games < cfg.train.games and not self.stop_requested:
                finished = self._next_finished()
                if finished is None:
                    continue
                before = c.games
                self._absorb(finished)
                if progress is not None:
                    progress.update(min(c.games, cfg.train.games) - min(before, cfg.train.games))
                if self._pending() >= cfg.train.update_every:
                    loss = self._update()
                    if self.pool is not None:
                        self.pool.broadcast(self._model_payload())
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
                    self._checkpoint()
                    c.next_checkpoint += cfg.run.checkpoint_every_games
            c.seconds += time.perf_counter() - started
            self.save()
        except ActorError:  # the actors cannot go on: keep what was learned, then say so
            c.seconds += time.perf_counter() - started
            self.save()
            raise
        finally:
            self._restore_stop_handlers(previous)
            if self.pool is not None:
                self.pool.close()
                self.pool = None
        if not self.stop_requested and cfg.eval.every_games and (
                not c.history or c.history[-1]["games_trained"] != c.games):
            self._evaluate(writer, progress)
            self.save()
        return c

    _STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def _install_stop_handlers(self) -> dict:
        """Make SIGINT and SIGTERM request a stop; returns the handlers they had."""
        if threading.current_thread() is not threading.main_thread():
            return {}  # signals reach the main thread only; nothing to install from here
        previous = {}
        for sig in self._STOP_SIGNALS:
            previous[sig] = signal.getsignal(sig)
            signal.signal(sig, self._request_stop)
        return previous

    @staticmethod
    def _restore_stop_handlers(previous: dict) -> None:
        for sig, handler in previous.items():
            # None: a handler not installed from Python; the default is the best we can do
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)

    def _request_stop(self, signum, frame) -> None:
        if not self.stop_requested:
            self.stop_signal = signum
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
            parts.append(f"vs {last.get('opponent', 'pubeval')} {last['win_rate']:.1%} "
                         f"{last['ppg']:+.3f} ppg")
        return ", ".join(parts)

    def _evaluate(self, writer, progress) -> dict:
        cfg, c = self.config, self.counters
        bot = NetPolicy(NetEvaluator(self.net, cfg.model.encoding, cfg.train.variant,
                                     self.device, self.phases))
        result = evaluate_vs_pubeval(bot, cfg.eval.games, cfg.train.seed + 7919 * c.games + 1,
                                     cfg.train.variant)
        result["games_trained"] = c.games
        c.history.append(result)
        if writer is not None:
            tag = result["opponent"]
            writer.add_scalar(f"{tag}/win_rate", result["win_rate"], c.games)
            writer.add_scalar(f"{tag}/ppg", result["ppg"], c.games)
            writer.add_scalar(f"{tag}/gammon_rate", result["gammon_rate"], c.games)
            writer.add_scalar(f"{tag}/plies_per_game", result["plies_per_game"], c.games)
            writer.flush()
        if progress is not None and not getattr(progress, "disable", False):
            progress.set_postfix_str(self._postfix(), refresh=True)
        else:
            self.log(f"{c.games} games: vs {result['opponent']} {result['win_rate']:.1%} wins, "
                     f"{result['ppg']:+.3f} ± {result['ppg_ci95']:.3f} ppg")
        try:
            append_line(self.out / "evaluations.jsonl", json.dumps(result))
        except WriteError as e:
            self._unwritten(e)
            self._evaluations_behind = True  # the next checkpoint rewrites the file
        return result

    def _checkpoint(self) -> None:
        """A checkpoint on the way: ``save``, a failure handled by ``_unwritten``."""
        try:
            self.save()
        except WriteError as e:
            self._unwritten(e)

    def _unwritten(self, e: WriteError) -> None:
        """A file of the run could not be written: stop (the WriteError goes up), or with
        ``keep_going_unsaved`` say so and train on."""
        if not self.keep_going_unsaved:
            raise e
        saved = ("no checkpoint yet" if self.saved_games is None
                 else f"the last checkpoint holds {self.saved_games:,} games")
        self.log(f"warning: {e}; training on unsaved ({saved})")

    def _write_evaluations(self) -> None:
        """evaluations.jsonl rewritten (atomically) from the history of the counters."""
        path = self.out / "evaluations.jsonl"
        if not self.counters.history and not path.exists():
            return
        write_atomic(path, "".join(json.dumps(r) + "\n" for r in self.counters.history))
        self._evaluations_behind = False

    # --- checkpoints -----------------------------------------------------------------------

    def save(self) -> None:
        """Write the run checkpoint (for --resume) and the small model file (for play);
        WriteError when one cannot be written (the previous file stays as it was)."""
        cfg = self.config
        model = self._model_payload()
        state = {**model, "config": cfg.to_dict(),
                 **training_state(self.optimizer, self.counters, self.rng, self.selfplay,
                                  self.pending_states, self.pending_targets)}
        ckpt.save(self.out / "checkpoint.pt", state)
        self.last_checkpoint, self.saved_games = self.out / "checkpoint.pt", self.counters.games
        ckpt.save(self.out / "model.pt", {**model, "config": cfg.to_dict(),
                                          "results": json.dumps(self.counters.history)})
        if self._evaluations_behind:
            self._write_evaluations()
