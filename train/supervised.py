"""The trainer's second stage: the networks learn rollout results by supervised learning.

    result = supervise("checkpoints/default.pt", ["data/gen1.gdr"], "runs/stage2",
                       FitSettings())          # writes runs/stage2/model.pt and stage2.json

The start is a TD net (``init``: its main network, its race network, and its crashed
network, or a copy of the main one where the file has none). Each dataset row
(``train.rollout_data``) is a position before the roll and the six outcomes its rollout
found; a row goes to its phase's network (contact: the main one; crashed, race), as the
evaluator will send the position (``engine.phase.classify``). Per network:

- the target is the rollout's outcome distribution (variance reduction may leave a mean a
  hair outside [0, 1]: clipped, then scaled to sum 1), the loss the cross-entropy of the
  network's softmax against it over the six outcomes;
- Adam on shuffled minibatches, one pass over the training rows an epoch;
- after each epoch the loss on the held-out validation rows (the split is in the file);
  the weights of the best epoch are kept, and the training stops once ``patience`` epochs
  in a row have not bettered it (early stopping).

Everything is seeded and runs in one thread, so the same data and settings give the same
weights and the same validation loss bit for bit (recorded in ``stage2.json``); TensorBoard
gets the curves (``stage2/<phase>/train_loss``, ``.../validation_loss``) and
``gammon plot`` draws them from ``stage2.jsonl``.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from gammon.engine.files import append_line, write_atomic
from gammon.engine.phase import CONTACT, CRASHED, RACE
from gammon.eval.analysis.rollouts import one_thread
from gammon.model import checkpoint as ckpt
from gammon.model.encoding import encoder
from gammon.model.net import ValueNet

from . import rollout_data as rd

NETWORKS = ("main", "crashed", "race")  # the networks stage 2 trains, by phase
_DATA_PHASE = {"main": rd.PHASES.index("contact"), "crashed": rd.PHASES.index("crashed"),
               "race": rd.PHASES.index("race")}  # a network's rows, by the file's phase
_EVAL_PHASE = {"main": CONTACT, "crashed": CRASHED, "race": RACE}  # engine.phase.classify's
LOG = "stage2.jsonl"
RESULT = "stage2.json"


class StageError(ValueError):
    """A stage-2 run that cannot go on; one line."""


@dataclass(frozen=True)
class FitSettings:
    epochs: int = 100
    """Passes over the training rows at most: 1..100,000."""
    batch_size: int = 256
    """Rows per gradient step: 1..1,000,000."""
    learning_rate: float = 0.0003
    """Adam's step size: above 0, at most 1."""
    patience: int = 8
    """Stop after this many epochs without a better validation loss: 1..100,000."""
    seed: int = 1
    """Seed of the shuffles: 0..2**63 - 1."""
    crashed: bool = True
    """Train a network of its own for crashed positions (started from the main one)."""

    def check(self) -> None:
        """StageError naming the first key out of its range (``train.config.RANGES``)."""
        from .config import ConfigError, check_range
        try:
            for key in ("epochs", "batch_size", "learning_rate", "patience"):
                value = getattr(self, key)
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise ConfigError(f"stage2.{key}: expected a number, got {value!r}")
                check_range(f"stage2.{key}", value)
            check_range("train.seed", self.seed)
        except ConfigError as e:
            raise StageError(str(e)) from None


def soft_targets(targets: np.ndarray) -> np.ndarray:
    """Rollout means (N, 6) -> distributions (N, 6) float32: clipped to [0, 1], summing 1."""
    t = np.clip(np.asarray(targets, dtype=np.float64), 0.0, 1.0)
    total = t.sum(axis=1, keepdims=True)
    return (t / np.where(total > 0, total, 1.0)).astype(np.float32)


def cross_entropy(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean over rows of -sum_k target_k log softmax(logits)_k: (N, 6), (N, 6) -> ()."""
    return -(target * torch.log_softmax(logits, dim=-1)).sum(dim=-1).mean()


def _loss(net: ValueNet, x: torch.Tensor, y: torch.Tensor, chunk: int = 65_536) -> float:
    """The mean cross-entropy of all rows, in pieces (no gradients); nan for no rows."""
    if len(x) == 0:
        return math.nan
    with torch.no_grad():
        total = sum(float(cross_entropy(net(x[i:i + chunk]), y[i:i + chunk])) * len(x[i:i + chunk])
                    for i in range(0, len(x), chunk))
    return total / len(x)


def fit(net: ValueNet, train: tuple[torch.Tensor, torch.Tensor],
        validation: tuple[torch.Tensor, torch.Tensor], settings: FitSettings,
        report=None) -> dict:
    """Train ``net`` in place on (inputs (N, F), targets (N, 6)); the best epoch's weights
    stay in it. ``report(epoch, train_loss, validation_loss)`` after each epoch. Returns
    {"epochs", "best_epoch", "start_validation_loss", "validation_loss", "train_loss"}."""
    x, y = train
    gen = torch.Generator().manual_seed(settings.seed)
    opt = torch.optim.Adam(net.parameters(), lr=settings.learning_rate)
    start = best = _loss(net, *validation)
    best_state, best_epoch, train_loss, waited, epoch = _state(net), 0, math.nan, 0, 0
    net.train()
    for epoch in range(1, settings.epochs + 1):
        order = torch.randperm(len(x), generator=gen)
        total = 0.0
        for i in range(0, len(x), settings.batch_size):
            rows = order[i:i + settings.batch_size]
            loss = cross_entropy(net(x[rows]), y[rows])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(rows)
        train_loss = total / max(len(x), 1)
        val = _loss(net, *validation)
        if report is not None:
            report(epoch, train_loss, val)
        if val < best or math.isnan(best):
            best, best_state, best_epoch, waited = val, _state(net), epoch, 0
        else:
            waited += 1
            if waited >= settings.patience:
                break
    net.load_state_dict(best_state)
    net.eval()
    return {"epochs": epoch, "best_epoch": best_epoch, "start_validation_loss": start,
            "validation_loss": best, "train_loss": train_loss}


def _entropy(targets: torch.Tensor) -> float:
    """Mean entropy of target distributions (N, 6): the least cross-entropy possible."""
    if len(targets) == 0:
        return math.nan
    t = targets.double()
    return float(-(t * torch.log(t.clamp_min(1e-30))).sum(dim=-1).mean())


def _state(net: ValueNet) -> dict:
    return {k: v.detach().clone() for k, v in net.state_dict().items()}


def load_rows(paths) -> rd.Rows:
    """The rows of every dataset in ``paths``, in order (a board in two files: the first)."""
    parts, seen = [], set()
    for path in paths:
        data = rd.open_data(path)
        rows = data.rows()
        keep = np.array([b.tobytes() not in seen for b in rows.boards], dtype=bool)
        seen.update(b.tobytes() for b in rows.boards[keep])
        parts.append(data.rows(keep) if not keep.all() else rows)
    if not parts:
        raise StageError("stage 2 needs at least one dataset")
    return rd.Rows(*(np.concatenate([getattr(p, name) for p in parts])
                     for name, _, _ in rd.COLUMNS))


def start_networks(init: str | Path, crashed: bool) -> tuple[dict, str, dict]:
    """The networks stage 2 starts from: ({name: (network, encoding)} for NETWORKS,
    the variant, the file's model entry); StageError for an unreadable file."""
    try:
        payload = ckpt.load(init)
        main = ckpt.build_net(payload, init)
        phases = ckpt.build_phases(payload, init)
    except (ckpt.CheckpointError, OSError) as e:
        raise StageError(str(e).splitlines()[0]) from None
    spec = payload["model"]
    nets = {"main": (main, spec["encoding"]), **phases}
    if crashed and "crashed" not in nets:
        copy = ValueNet(main.inputs, main.hidden, main.activation)
        copy.load_state_dict(main.state_dict())
        nets["crashed"] = (copy, spec["encoding"])
    return nets, spec["variant"], spec


def supervise(init: str | Path, datasets, out: str | Path, settings: FitSettings = FitSettings(),
              log=None, writer=None) -> dict:
    """Stage 2 from the TD net ``init`` on the rollout ``datasets`` into the folder ``out``:
    ``model.pt`` (every network), ``stage2.jsonl`` (one line an epoch and network) and
    ``stage2.json`` (the settings, the data's checksums and each network's losses)."""
    settings.check()
    out = Path(out)
    nets, variant, spec = start_networks(init, settings.crashed)
    rows = load_rows(datasets)
    checkers = 15
    torch.manual_seed(settings.seed)
    result = {"init": str(init), "init_sha256": rd.file_checksum(init),
              "datasets": [{"path": str(p), "sha256": rd.file_checksum(p)} for p in datasets],
              "settings": asdict(settings), "rows": len(rows), "networks": {}}
    log_path = out / LOG
    out.mkdir(parents=True, exist_ok=True)
    if log_path.exists():
        log_path.unlink()
    targets = soft_targets(rows.targets)
    started = time.perf_counter()
    with torch.random.fork_rng(devices=[]), one_thread():
        for name in NETWORKS:
            if name not in nets:
                continue
            net, encoding = nets[name]
            take = rows.phase == _DATA_PHASE[name]
            if name == "main" and "crashed" not in nets:
                take |= rows.phase == _DATA_PHASE["crashed"]  # no crashed net: main's rows
            sets = []
            for split in (0, 1):
                mine = take & (rows.split == split)
                x = torch.from_numpy(encoder(encoding)(rows.boards[mine], checkers))
                sets.append((x, torch.from_numpy(targets[mine])))
            if len(sets[0][0]) == 0:
                result["networks"][name] = {"train_rows": 0, "validation_rows":
                                            len(sets[1][0]), "trained": False}
                continue

            def report(epoch, train_loss, val, name=name):
                line = {"network": name, "epoch": epoch, "train_loss": train_loss,
                        "validation_loss": val}
                append_line(log_path, json.dumps(line))
                if writer is not None:
                    writer.add_scalar(f"stage2/{name}/train_loss", train_loss, epoch)
                    writer.add_scalar(f"stage2/{name}/validation_loss", val, epoch)
                if log is not None:
                    log(f"{name}: epoch {epoch}, train {train_loss:.5f}, "
                        f"validation {val:.5f}")
            fitted = fit(net, sets[0], sets[1], settings, report)
            # the loss less the targets' own entropy: the KL divergence, 0 for a perfect fit
            entropy = _entropy(sets[1][1])
            result["networks"][name] = {
                "train_rows": len(sets[0][0]), "validation_rows": len(sets[1][0]),
                "trained": True, **fitted, "validation_entropy": entropy,
                "start_validation_kl": fitted["start_validation_loss"] - entropy,
                "validation_kl": fitted["validation_loss"] - entropy}
    result["seconds"] = time.perf_counter() - started
    main, encoding = nets["main"]
    phases = {name: nets[name] for name in ("race", "crashed") if name in nets}
    ckpt.save(out / "model.pt", {**ckpt.model_payload(main, encoding, variant, phases),
                                 "stage2": json.dumps(result)})
    write_atomic(out / RESULT, (json.dumps(result, indent=1) + "\n").encode())
    return result
