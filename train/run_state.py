"""A run checkpoint's training state, beside its network: what it holds (``Counters``, Adam's
state, the minibatch order's generator, self-play's games, the samples waiting for an
update: ``training_state``), the checks that refuse a damaged one before a run resumes from
it (``resume_payload``), and putting it back into a run just built (``restore``).

Every refusal is a ``model.checkpoint.CheckpointError`` of one line: the file, "damaged
training state", the part and the reason.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field

import numpy as np
import torch

from gammon.model import checkpoint as ckpt

from .config import Config, ConfigError, from_dict


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


def training_state(optimizer, counters: Counters, rng, selfplay, pending_states: list,
                   pending_targets: list) -> dict:
    """The training state a run checkpoint holds beside its network and config: Adam's state
    (``optimizer``), the counters and the generator ``rng`` of the minibatch order (JSON
    text), ``selfplay``'s games (its arrays as tensors) and the samples waiting for an update
    (lists of states (n, 26) int8 and of targets (n, 6) float32, each as one tensor)."""
    return {
        "optimizer": optimizer.state_dict(),
        "counters": json.dumps(counters.__dict__),
        "rng": json.dumps(rng.bit_generator.state),
        "selfplay": {k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v
                     for k, v in selfplay.state_dict().items()},
        "pending_states": torch.from_numpy(np.concatenate(pending_states)
                                           if pending_states
                                           else np.zeros((0, 26), np.int8)),
        "pending_targets": torch.from_numpy(np.concatenate(pending_targets)
                                            if pending_targets
                                            else np.zeros((0, 6), np.float32)),
    }


# --- resuming: the checkpoint's training state, checked before anything is built -------------

def resume_payload(path) -> tuple[Config, dict]:
    """The config and state of a run checkpoint, refused with a reason when unusable.

    Beyond ``model.checkpoint.load`` (the file, the network, finite weights): the config is a
    valid one for this network, the counters, generator state, self-play state and pending
    samples have the types, keys, shapes and ranges a run writes. What only the restore
    itself can check (shapes against the config, the optimizer's moments) is checked by
    ``restore`` (CheckpointError naming its ``source``).
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


# --- restoring: the state put back into a run just built ------------------------------------

def restore(payload: dict, source: str, net, phases: dict, optimizer, rng,
            selfplay) -> tuple[Counters, list, list]:
    """Continue from a checkpoint's payload (checked by ``resume_payload``): the weights of
    ``net`` and of ``phases`` (phase -> (network, encoding)), Adam's state (``optimizer``),
    the generator ``rng`` and ``selfplay``'s games are loaded in place; returns the counters
    and the samples waiting for an update (lists of states (n, 26) and of targets (n, 6):
    one array, or none). Anything that still does not fit is a CheckpointError naming
    ``source`` and the part."""
    def tensors_to_arrays(state):
        return {k: v.numpy() if isinstance(v, torch.Tensor) else v
                for k, v in state.items()}

    def pending(name):
        array = payload[name].numpy()
        return [array.copy()] if len(array) else []

    restored = {}  # counters, pending_states, pending_targets
    steps = [
        ("state_dict", lambda: net.load_state_dict(payload["state_dict"])),
        *((f"phases.{name}", lambda name=name, phase_net=phase_net: phase_net.load_state_dict(
            payload["phases"][name]["state_dict"])) for name, (phase_net, _) in
          phases.items()),
        ("optimizer", lambda: _load_optimizer(optimizer, payload["optimizer"], net)),
        ("counters", lambda: restored.update(
            counters=Counters(**json.loads(payload["counters"])))),
        ("rng", lambda: setattr(rng.bit_generator, "state", json.loads(payload["rng"]))),
        ("selfplay", lambda: selfplay.load_state_dict(tensors_to_arrays(payload["selfplay"]))),
        ("pending_states", lambda: restored.update(pending_states=pending("pending_states"))),
        ("pending_targets", lambda: restored.update(
            pending_targets=pending("pending_targets"))),
    ]
    for part, step in steps:
        try:
            step()
        except (KeyError, TypeError, ValueError, RuntimeError, AttributeError,
                IndexError, OverflowError, RecursionError) as e:
            raise ckpt.CheckpointError(f"{source}: damaged training state: {part} "
                                       f"({_reason(e)})") from None
    return restored["counters"], restored["pending_states"], restored["pending_targets"]


def _load_optimizer(optimizer, state: dict, net) -> None:
    """Adam's state, refused unless every moment of ``net``'s parameters matches its
    parameter and is finite."""
    optimizer.load_state_dict(state)
    for group in optimizer.param_groups:
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
    for param in net.parameters():
        state_ = optimizer.state.get(param, {})
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
    known = set(optimizer.param_groups[0]["params"]) if optimizer.param_groups else set()
    if any(not isinstance(k, torch.Tensor) or k not in known for k in optimizer.state):
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
