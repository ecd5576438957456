"""Checkpoints: written atomically, read with ``weights_only=True``, refused with a reason.

A checkpoint is a dict: ``format`` (name and version), ``model`` (encoding, hidden sizes,
activation, variant), ``state_dict``, and for training runs ``config``, ``optimizer``,
counters and the state of the running games. A model file is the same without training
state, small enough to ship.

Version 2 adds ``phases``: the networks of game phases other than the main one, by phase
name (``engine.phase.PHASES``: "race", "crashed"), each ``{"model": ..., "state_dict": ...}``
like the main network's. The main network values every position no other phase's network
claims. A file with one network is still written as version 1, and read as before.
"""

from __future__ import annotations

import io
import pickle
import zipfile
from pathlib import Path

import torch

from gammon.engine.files import write_atomic

from .botfile import MAX_FILE_BYTES, check_regular_file, network_sizes, short
from .encoding import width
from .net import ValueNet

FORMAT = "gammon-checkpoint"
VERSION = 2
READABLE = (1, 2)  # versions this gammon reads
OTHER_PHASES = ("race", "crashed")  # phases that may have a network of their own


class CheckpointError(ValueError):
    """A checkpoint that cannot be used; the message names the file and the reason."""


def save(path: str | Path, payload: dict) -> None:
    """Write ``payload`` to ``path`` atomically (``engine.files.write_atomic``: a temporary
    file, then a rename); ``engine.files.WriteError`` when it cannot be written, the
    previous file untouched. torch serialises into memory first, so no error of its file
    writer ever reaches the caller."""
    # the lowest version that describes the file: one network stays readable by version 1
    version = VERSION if payload.get("phases") else 1
    payload = {"format": FORMAT, "version": version, **payload}
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    write_atomic(path, buffer.getbuffer(), parents=True)


def model_payload(net: ValueNet, encoding: str, variant: str,
                  phases: dict[str, tuple[ValueNet, str]] | None = None) -> dict:
    """The part of a checkpoint that describes and holds the networks: the main one, and
    ``phases`` (phase name -> (network, encoding)) when other phases have their own."""
    payload = _net_entry(net, encoding, variant)
    if phases:
        payload["phases"] = {name: _net_entry(n, enc, variant)
                             for name, (n, enc) in phases.items()}
    return payload


def _net_entry(net: ValueNet, encoding: str, variant: str) -> dict:
    return {"model": {"encoding": encoding, "hidden": list(net.hidden),
                      "activation": net.activation, "variant": variant},
            "state_dict": {k: v.detach().cpu() for k, v in net.state_dict().items()}}


def load(path: str | Path) -> dict:
    """Read a checkpoint; CheckpointError names the file for anything wrong with it.

    Before torch reads it, the file must be a regular file of at most MAX_FILE_BYTES (512 MB)
    whose archive declares no more than that. Afterwards its ``model`` entry must describe a
    network within the limits of ``model.botfile.network_sizes`` and its ``state_dict`` must
    hold exactly that network's tensors, every one finite.
    """
    path = Path(path)
    check_regular_file(path, "checkpoint file", CheckpointError)
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except OSError as e:
        raise CheckpointError(f"{path}: cannot read it ({e.strerror})") from None
    if magic[:2] != b"PK" and magic[:1] != b"\x80":  # torch files are zip archives
        raise CheckpointError(f"{path}: not a readable checkpoint (not a torch file)")
    if magic[:2] == b"PK":
        _check_archive(path)
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:
        raise CheckpointError(f"{path}: not a readable checkpoint (it holds objects other "
                              "than weights and plain data; refused, as loading them could "
                              "run code)") from None
    except Exception:  # truncated or corrupt
        raise CheckpointError(f"{path}: not a readable checkpoint (truncated or corrupt)") \
            from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a gammon checkpoint")
    if payload.get("version") not in READABLE:
        raise CheckpointError(f"{path}: checkpoint format version "
                              f"{short(payload.get('version'))}, this gammon reads versions "
                              f"{' and '.join(map(str, READABLE))}")
    for key in ("model", "state_dict"):
        if key not in payload:
            raise CheckpointError(f"{path}: checkpoint has no {key!r} entry")
    check_weights(payload["model"], payload["state_dict"], path)
    _check_phases(payload, path)
    return payload


def _check_phases(payload: dict, path) -> None:
    """Refuse a ``phases`` entry that is not a table of known phases, each with a network
    of the main one's variant whose weights fit it."""
    phases = payload.get("phases")
    if phases is None:
        return
    if not isinstance(phases, dict):
        raise CheckpointError(f"{path}: its phases entry is {type(phases).__name__}, not a "
                              "table of networks")
    for name, entry in phases.items():
        if name not in OTHER_PHASES:
            raise CheckpointError(f"{path}: unknown phase {short(name)} in phases; valid: "
                                  f"{', '.join(OTHER_PHASES)}")
        if not isinstance(entry, dict) or "model" not in entry or "state_dict" not in entry:
            raise CheckpointError(f"{path}: the {name} network has no model or state_dict")
        check_weights(entry["model"], entry["state_dict"], path)
        if entry["model"].get("variant") != payload["model"].get("variant"):
            raise CheckpointError(f"{path}: its {name} network is for another variant")


def _check_archive(path: Path) -> None:
    """Refuse a zip whose entries would expand beyond MAX_FILE_BYTES (a zip bomb)."""
    try:
        with zipfile.ZipFile(path) as z:
            declared = sum(info.file_size for info in z.infolist())
    except (OSError, zipfile.BadZipFile, ValueError):
        raise CheckpointError(f"{path}: not a readable checkpoint (truncated or corrupt)") \
            from None
    if declared > MAX_FILE_BYTES:
        raise CheckpointError(f"{path}: its archive expands to {declared:,} bytes, more than "
                              f"a checkpoint can be ({MAX_FILE_BYTES // 2**20} MB); refused")


def expected_tensors(sizes: list[int]) -> dict[str, tuple[int, ...]]:
    """The state_dict of ``ValueNet`` with layer sizes [inputs, hidden..., 6]: name -> shape."""
    names = [f"layers.{i}" for i in range(len(sizes) - 2)] + ["out"]
    expected = {}
    for name, fan_in, fan_out in zip(names, sizes[:-1], sizes[1:]):
        expected[f"{name}.weight"] = (fan_out, fan_in)
        expected[f"{name}.bias"] = (fan_out,)
    return expected


def check_weights(spec, state_dict, path) -> None:
    """Refuse a ``model`` entry of the wrong type or beyond the limits, and weights that are
    missing, misshapen, not floating point or not finite; the message names the file."""
    sizes = network_sizes(spec, path, CheckpointError, "model entry")
    if not isinstance(state_dict, dict):
        raise CheckpointError(f"{path}: its state_dict is {type(state_dict).__name__}, not a "
                              "table of weights")
    expected = expected_tensors(sizes)
    for name, shape in expected.items():
        tensor = state_dict.get(name)
        if not isinstance(tensor, torch.Tensor):
            got = "missing" if tensor is None else f"a {type(tensor).__name__}"
            raise CheckpointError(f"{path}: weights do not fit the model it describes "
                                  f"({name} is {got}, not a tensor)")
        if tuple(tensor.shape) != shape:
            raise CheckpointError(f"{path}: weights do not fit the model it describes "
                                  f"({name} has shape {tuple(tensor.shape)}, the model "
                                  f"implies {shape})")
        if not tensor.is_floating_point():
            raise CheckpointError(f"{path}: {name} is {tensor.dtype}, not floating point")
        if not bool(torch.isfinite(tensor).all()):
            raise CheckpointError(f"{path}: {name} holds NaN or infinite weights")
    extra = sorted(str(k) for k in state_dict if k not in expected)
    if extra:
        raise CheckpointError(f"{path}: weights do not fit the model it describes "
                              f"(unexpected {short(', '.join(extra))[1:-1]})")


def build_net(payload: dict, path: str | Path = "checkpoint") -> ValueNet:
    """The (main) network a checkpoint describes, with its weights loaded."""
    spec = payload["model"]
    try:
        net = ValueNet(width(spec["encoding"]), tuple(spec["hidden"]), spec["activation"])
        net.load_state_dict(payload["state_dict"])
    except (KeyError, ValueError, RuntimeError, TypeError) as e:
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise CheckpointError(f"{path}: weights do not fit the model it describes "
                              f"({reason[:200]})") from None
    net.eval()
    return net


def build_phases(payload: dict, path: str | Path = "checkpoint") -> dict[str, tuple[ValueNet,
                                                                                  str]]:
    """The networks of the other phases a checkpoint holds: phase -> (network, encoding);
    empty for a one-network file."""
    return {name: (build_net(entry, path), entry["model"]["encoding"])
            for name, entry in (payload.get("phases") or {}).items()}


def check_compatible(payload: dict, path, encoding: str | None = None,
                     variant: str | None = None) -> None:
    """Refuse a checkpoint made for another input encoding or variant, saying why."""
    spec = payload["model"]
    if encoding is not None and spec.get("encoding") != encoding:
        raise CheckpointError(f"{path}: made for the {spec.get('encoding')!r} encoding, "
                              f"not {encoding!r}")
    if variant is not None and spec.get("variant") != variant:
        raise CheckpointError(f"{path}: trained for {spec.get('variant')!r}, "
                              f"not {variant!r}")
