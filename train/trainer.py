"""A training run, top to bottom: self-play, TD(lambda) targets, batched updates, evaluation
against pubeval, TensorBoard scalars, atomic checkpoints and exact resume.

Also the run directory's rules (``run_files``, ``clear_run``, ``remove_stale_tmp``) and the
checks of a checkpoint's training state before a run resumes from it (``resume_payload``).

Every file of the run is written by ``engine.files``: whole or not at all, a failure being
one ``WriteError``. A run that cannot write its checkpoint (or its evaluations) stops with
that error, the previous checkpoint intact, unless ``keep_going_unsaved`` says to warn and
train on.
"""

from __future__ import annotations

import dataclasses
import json
import math
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from engine.bearoff import settled
from engine.board import flip
from engine.files import WriteError, append_line, remove_temporaries, write_atomic
from engine.outcomes import flip_outcomes
from engine.phase import PHASES, classify
from engine.rules import variant as get_variant
from model import checkpoint as ckpt
from model.encoding import encoder, width
from model.lookahead import look_ahead
from model.net import ValueNet
from model.policy import NetEvaluator, NetPolicy

from .actors import ActorError
from .config import Config, ConfigError, check_stages, check_variant, from_dict
from .selfplay import SelfPlay
from .step import FlatStep
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


def eval_opponent(variant: str) -> str:
    """The bot a run is measured against: pubeval, which reads the 26 cells of every
    variant but Plakoto (pins are not in its inputs); Plakoto's runs meet ``random``."""
    return "random" if get_variant(variant).position_format == "plakoto" else "pubeval"


def evaluate_vs_pubeval(bot, games: int, seed: int, variant: str) -> dict:
    """Paired cubeless games of ``bot`` against pubeval (``eval_opponent``: another bot for
    Plakoto) through ``eval.playing.match.run_match``, the one paired-dice runner: wins and points
    per game of ``bot``, the 95% interval from the per-pair means."""
    from eval.bots.simple import PubevalBot, RandomBot
    from eval.playing.match import run_match
    name = eval_opponent(variant)
    opponent = RandomBot(seed) if name == "random" else PubevalBot(get_variant(variant).checkers)
    if "bomb" in get_variant(variant).extra_state:  # Nuclear: pubeval detonates by rule
        from eval.bots.nuclear import with_bomb
        opponent = with_bomb(opponent)
    r = run_match(bot, opponent, 2 * max(1, games // 2), seed, variant, progress=False)
    return {"opponent": name, "games": r.games, "win_rate": r.rate(r.wins_a), "ppg": r.ppg_a,
            "ppg_ci95": r.ppg_a_ci95, "gammon_rate": r.rate(r.gammons_a),
            "gammon_rate_against": r.rate(r.gammons_b), "plies_per_game": r.plies_per_game}


# the leading input units two encodings share (the classic 198), by pair of names
_CLASSIC_FIRST = ("classic", "expert", "advanced", "nuclear")  # the classic 198 units first
_SHARED_UNITS = {(a, b): 198 for a in _CLASSIC_FIRST for b in _CLASSIC_FIRST if a != b}


def start_from(nets: dict[str, tuple[ValueNet, str]], path: str) -> None:
    """Load the weights of the model file ``path`` into ``nets`` (``model.init``), by
    phase ("main" and the other phases, each (network, encoding)): each network starts from
    the file's network of its phase, and stays random where the file has none (a race
    network started from a one-network file). The same hidden sizes and activation are
    required; when the encodings differ, the first layer's weights of the input units both
    share (the classic 198) are copied and the others are zero. ConfigError says what does
    not fit."""
    from model.checkpoint import CheckpointError, build_net, build_phases, load
    try:
        payload = load(path)
        sources = {"main": (build_net(payload, path), payload["model"]["encoding"]),
                   **build_phases(payload, path)}
    except (CheckpointError, OSError) as e:
        raise ConfigError(f"model.init: {e}") from None
    for phase, (net, encoding) in nets.items():
        if phase in sources:
            _copy_weights(net, encoding, *sources[phase], path, phase)


def _copy_weights(net: ValueNet, encoding: str, source: ValueNet, source_encoding: str,
                  path: str, phase: str) -> None:
    """``net`` (of ``encoding``) takes the weights of ``source`` (``start_from``)."""
    which = "" if phase == "main" else f"its {phase} network "
    if (tuple(source.hidden), source.activation) != (tuple(net.hidden), net.activation):
        raise ConfigError(f"model.init: {path} {which}has hidden {list(source.hidden)} "
                          f"{source.activation}, the config asks for {list(net.hidden)} "
                          f"{net.activation}")
    state = source.state_dict()
    if source_encoding != encoding:
        shared = _SHARED_UNITS.get((source_encoding, encoding))
        if shared is None:
            raise ConfigError(f"model.init: {path} {which}is a {source_encoding} net; a "
                              f"{encoding} net cannot start from it")
        first = torch.zeros_like(net.layers[0].weight)
        first[:, :shared] = state["layers.0.weight"][:, :shared]
        state["layers.0.weight"] = first
    net.load_state_dict(state)


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
        # steps are taken by ``train.step`` with the numbers of torch's fused Adam
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
            self._restore(resume)
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
        from engine.outcomes import certain

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
        flat = FlatStep(self.optimizer, [net for net, _, _ in nets])
        flat.begin()
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
                # Adam's numbers, without their overhead)
                flat.step([(i, xs[b], ys[b]) for i, (xs, ys) in enumerate(shares)
                           if len(xs[b])], min(t.batch_size, len(states) - start))
                self.counters.updates += 1
        loss = flat.mean_loss()
        flat.end()
        self.evaluator.invalidate()
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
        self.last_checkpoint, self.saved_games = self.out / "checkpoint.pt", self.counters.games
        ckpt.save(self.out / "model.pt", {**model, "config": cfg.to_dict(),
                                          "results": json.dumps(self.counters.history)})
        if self._evaluations_behind:
            self._write_evaluations()

    def _restore(self, payload: dict) -> None:
        """Continue from a checkpoint's payload (checked by ``resume_payload``); anything
        that still does not fit is a CheckpointError naming ``self.source`` and the part."""
        def tensors_to_arrays(state):
            return {k: v.numpy() if isinstance(v, torch.Tensor) else v
                    for k, v in state.items()}

        def pending(name):
            array = payload[name].numpy()
            return [array.copy()] if len(array) else []

        steps = [
            ("state_dict", lambda: self.net.load_state_dict(payload["state_dict"])),
            *((f"phases.{name}", lambda name=name, net=net: net.load_state_dict(
                payload["phases"][name]["state_dict"])) for name, (net, _) in
              self.phases.items()),
            ("optimizer", lambda: self._load_optimizer(payload["optimizer"])),
            ("counters", lambda: setattr(self, "counters",
                                         Counters(**json.loads(payload["counters"])))),
            ("rng", lambda: setattr(self.rng.bit_generator, "state",
                                    json.loads(payload["rng"]))),
            ("selfplay", lambda: self.selfplay.load_state_dict(
                tensors_to_arrays(payload["selfplay"]))),
            ("pending_states", lambda: setattr(self, "pending_states",
                                               pending("pending_states"))),
            ("pending_targets", lambda: setattr(self, "pending_targets",
                                                pending("pending_targets"))),
        ]
        for part, step in steps:
            try:
                step()
            except (KeyError, TypeError, ValueError, RuntimeError, AttributeError,
                    IndexError, OverflowError, RecursionError) as e:
                raise ckpt.CheckpointError(f"{self.source}: damaged training state: {part} "
                                           f"({_reason(e)})") from None
        self.evaluator.invalidate()

    def _load_optimizer(self, state: dict) -> None:
        """Adam's state, refused unless every moment matches its parameter and is finite."""
        self.optimizer.load_state_dict(state)
        for group in self.optimizer.param_groups:
            for key in ("lr", "eps", "weight_decay"):
                value = group.get(key, 0.0)
                if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                        not math.isfinite(value) or value < 0:
                    raise ValueError(f"{key} is {_short(value)}")
            betas = group.get("betas", (0.9, 0.999))
            if not isinstance(betas, (list, tuple)) or len(betas) != 2 or not all(
                    isinstance(b, (int, float)) and not isinstance(b, bool) and 0 <= b < 1
                    for b in betas):
                raise ValueError(f"betas are {_short(betas)}")
            for key in ("amsgrad", "maximize", "foreach", "capturable", "differentiable",
                        "fused"):
                if group.get(key) not in (None, True, False):
                    raise ValueError(f"{key} is {_short(group.get(key))}")
            if group.get("fused") or group.get("capturable"):
                raise ValueError("fused or capturable Adam is not what training uses")
        for param in self.net.parameters():
            state_ = self.optimizer.state.get(param, {})
            for key in ("exp_avg", "exp_avg_sq"):
                if key in state_:
                    value = state_[key]
                    if not isinstance(value, torch.Tensor) or value.shape != param.shape:
                        raise ValueError(f"{key} does not match its parameter's shape "
                                         f"{tuple(param.shape)}")
                    if not bool(torch.isfinite(value).all()):
                        raise ValueError(f"{key} holds NaN or infinite values")
            if "step" in state_:
                step = state_["step"]
                step = float(step) if not isinstance(step, torch.Tensor) or step.numel() == 1 \
                    else math.nan
                if not math.isfinite(step) or step < 0:
                    raise ValueError("a step count is not a finite count")
        known = set(self.optimizer.param_groups[0]["params"]) if self.optimizer.param_groups \
            else set()
        if any(not isinstance(k, torch.Tensor) or k not in known
               for k in self.optimizer.state):
            raise ValueError("state for parameters the network does not have")


def _reason(e: BaseException, limit: int = 120) -> str:
    """The first line of an exception's message, cut short; its type when it has none."""
    text = str(e).strip()
    if isinstance(e, KeyError) and e.args:
        text = f"no {_short(e.args[0], 40)}"
    text = text.splitlines()[0] if text else type(e).__name__
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _short(value, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


# --- resuming: the checkpoint's training state, checked before anything is built -------------

def resume_payload(path) -> tuple[Config, dict]:
    """The config and state of a run checkpoint, refused with a reason when unusable.

    Beyond ``model.checkpoint.load`` (the file, the network, finite weights): the config is a
    valid one for this network, the counters, generator state, self-play state and pending
    samples have the types, keys, shapes and ranges a run writes. What only the restore
    itself can check (shapes against the config, the optimizer's moments) is checked by
    ``Trainer`` (CheckpointError naming its ``source``).
    """
    payload = ckpt.load(path)
    for key in ("config", "optimizer", "selfplay", "rng", "counters"):
        if key not in payload:
            raise ckpt.CheckpointError(f"{path}: a model file, not a run checkpoint "
                                       f"(no {key!r}); resume from the run's checkpoint.pt")
    if not isinstance(payload["config"], dict):
        raise ckpt.CheckpointError(f"{path}: damaged training state: its config is a "
                                   f"{type(payload['config']).__name__}, not a table")
    try:
        config = from_dict(payload["config"])
    except ConfigError as e:
        raise ckpt.CheckpointError(f"{path}: damaged training state: its config: {e}") \
            from None
    spec, m = payload["model"], config.model
    described = (spec["encoding"], list(spec["hidden"]), spec["activation"], spec["variant"])
    configured = (m.encoding, list(m.hidden), m.activation, config.train.variant)
    if described != configured:
        raise ckpt.CheckpointError(
            f"{path}: damaged training state: its network is {_short(described)}, its "
            f"config asks for {_short(configured)} (encoding, hidden, activation, variant)")
    for check in (_check_counters, _check_rng, _check_optimizer, _check_selfplay,
                  _check_pending):
        reason = check(payload)
        if reason:
            raise ckpt.CheckpointError(f"{path}: damaged training state: {reason}")
    return config, payload


def _json_text(payload: dict, key: str):
    """(value, None) for a JSON text entry, or (None, reason)."""
    text = payload[key]
    if not isinstance(text, str):
        return None, f"{key} is a {type(text).__name__}, not JSON text"
    try:
        return json.loads(text), None
    except RecursionError:
        return None, f"{key} is JSON nested too deeply"
    except ValueError as e:
        return None, f"{key} is not JSON ({_reason(e, 60)})"


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and \
        math.isfinite(value)


def _check_counters(payload: dict) -> str | None:
    counters, reason = _json_text(payload, "counters")
    if reason:
        return reason
    if not isinstance(counters, dict):
        return f"counters is a JSON {type(counters).__name__}, not an object"
    fields = [f.name for f in dataclasses.fields(Counters)]
    unknown = [k for k in counters if k not in fields]
    if unknown:
        return f"counters has unknown keys {_short(unknown)}; valid: {', '.join(fields)}"
    missing = [k for k in fields if k not in counters]
    if missing:
        return f"counters lacks {', '.join(missing)}"
    for key in ("games", "positions", "updates", "next_eval", "next_checkpoint"):
        if not _is_count(counters[key]):
            return f"counters.{key} is {_short(counters[key])}, not a count"
    if not _is_number(counters["seconds"]) or counters["seconds"] < 0:
        return f"counters.seconds is {_short(counters['seconds'])}, not a duration"
    history = counters["history"]
    if not isinstance(history, list):
        return f"counters.history is {_short(history)}, not a list of evaluations"
    for i, entry in enumerate(history):
        if not isinstance(entry, dict) or not _is_count(entry.get("games_trained")) or not all(
                _is_number(entry.get(k)) for k in ("games", "win_rate", "ppg", "ppg_ci95")):
            return (f"counters.history[{i}] is {_short(entry)}, not an evaluation "
                    "(games_trained, games, win_rate, ppg, ppg_ci95)")
    return None


def _check_rng(payload: dict) -> str | None:
    state, reason = _json_text(payload, "rng")
    if reason:
        return reason
    try:
        np.random.PCG64().state = state
    except (KeyError, TypeError, ValueError, OverflowError) as e:
        return f"rng is not a generator state ({_reason(e, 60)})"
    return None


def _check_optimizer(payload: dict) -> str | None:
    state = payload["optimizer"]
    if not isinstance(state, dict) or not isinstance(state.get("state"), dict) or \
            not isinstance(state.get("param_groups"), list):
        return "optimizer is not an optimizer's state (state and param_groups)"
    for value in state["state"].values():
        if not isinstance(value, dict):
            return f"optimizer state entry {_short(value)} is not a table"
        for key, tensor in value.items():
            if isinstance(tensor, torch.Tensor) and tensor.is_floating_point() and \
                    not bool(torch.isfinite(tensor).all()):
                return f"optimizer {key} holds NaN or infinite values"
    return None


MAX_CELL = 15 + 64  # a cell's largest value: 15 checkers and a folded bomb (model.encoding)

_SELFPLAY_ARRAYS = {  # key: (the dtype kind it must have, what it is)
    "boards": ("i", "positions"), "seat": ("i", "seats"), "fresh": ("b", "flags"),
    "start": ("i", "plies"), "hist_states": ("i", "positions"),
    "hist_values": ("f", "probabilities")}


def _check_selfplay(payload: dict) -> str | None:
    state = payload["selfplay"]
    if not isinstance(state, dict):
        return f"selfplay is a {type(state).__name__}, not a table"
    missing = [k for k in (*_SELFPLAY_ARRAYS, "now", "rng") if k not in state]
    if missing:
        return f"selfplay lacks {', '.join(missing)}"
    for key, (kind, what) in _SELFPLAY_ARRAYS.items():
        value = state[key]
        if not isinstance(value, torch.Tensor):
            return f"selfplay.{key} is a {type(value).__name__}, not a tensor of {what}"
        if value.numpy().dtype.kind != kind:
            return f"selfplay.{key} is {value.dtype}, not a tensor of {what}"
    if not _is_count(state["now"]):
        return f"selfplay.now is {_short(state['now'])}, not a count"
    if not isinstance(state["rng"], str):
        return f"selfplay.rng is a {type(state['rng']).__name__}, not JSON text"
    for key in ("boards", "hist_states"):  # 15 checkers, with a pin (31) or the bomb (79)
        if state[key].numel() and (int(state[key].min()) < -MAX_CELL
                                   or int(state[key].max()) > MAX_CELL):
            return f"selfplay.{key} holds values no position has"
    start = state["start"]
    if start.numel() and (int(start.min()) < 0 or int(start.max()) > state["now"]):
        return "selfplay.start holds plies outside 0..now"
    if not bool(torch.isfinite(state["hist_values"]).all()):
        return "selfplay.hist_values holds NaN or infinite values"
    return None


def _check_pending(payload: dict) -> str | None:
    for key, width_, kind in (("pending_states", 26, "i"), ("pending_targets", 6, "f")):
        value = payload.get(key)
        if not isinstance(value, torch.Tensor) or value.dim() != 2 or \
                value.shape[1] != width_ or value.numpy().dtype.kind != kind:
            got = (f"{value.dtype} of shape {tuple(value.shape)}"
                   if isinstance(value, torch.Tensor) else f"a {type(value).__name__}")
            return f"{key} is {got}, not (N, {width_}) {'integers' if kind == 'i' else 'floats'}"
    if len(payload["pending_states"]) != len(payload["pending_targets"]):
        return "pending_states and pending_targets differ in length"
    if not bool(torch.isfinite(payload["pending_targets"]).all()):
        return "pending_targets holds NaN or infinite values"
    return None


# --- the run directory ------------------------------------------------------------------------

RUN_FILES = ("checkpoint.pt", "model.pt", "evaluations.jsonl")
"""The files that make a directory a run's (with TensorBoard's event files)."""


def run_files(out: str | Path) -> list[Path]:
    """The files of a run in ``out``: checkpoint.pt, model.pt, evaluations.jsonl and
    TensorBoard event files (in ``out/tensorboard`` or ``out`` itself)."""
    out = Path(out)
    if not out.is_dir():
        return []
    found = [out / name for name in RUN_FILES if (out / name).is_file()]
    for folder in (out, out / "tensorboard"):
        if folder.is_dir():
            found += sorted(p for p in folder.glob("events.out.tfevents.*") if p.is_file())
    return found


def remove_stale_tmp(out: str | Path) -> list[Path]:
    """Remove the temporary files an interrupted atomic save left behind (``kill -9``
    between writing and renaming): ``checkpoint.pt.*.tmp``, ``model.pt.*.tmp``,
    ``evaluations.jsonl.*.tmp``. Returns what was removed."""
    return remove_temporaries(out, RUN_FILES)


def clear_run(out: str | Path) -> list[Path]:
    """Delete a run's files from ``out`` (``--overwrite``): those of ``run_files`` and stale
    temporary files; the tensorboard folder too when it is left empty. Other files stay."""
    out = Path(out)
    removed = run_files(out)
    for p in removed:
        p.unlink(missing_ok=True)
    removed += remove_stale_tmp(out)
    board = out / "tensorboard"
    if board.is_dir() and not any(board.iterdir()):
        board.rmdir()
    return removed
