"""Checkpoints: written atomically, read with ``weights_only=True``, refused with a reason.

A checkpoint is a dict: ``format`` (name and version), ``model`` (encoding, hidden sizes,
activation, variant), ``state_dict``, and for training runs ``config``, ``optimizer``,
counters and the state of the running games. A model file is the same without training
state, small enough to ship.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from pathlib import Path

import torch

from .encoding import width
from .net import ValueNet

FORMAT = "gammon-checkpoint"
VERSION = 1


class CheckpointError(ValueError):
    """A checkpoint that cannot be used; the message names the file and the reason."""


def save(path: str | Path, payload: dict) -> None:
    """Write ``payload`` to ``path`` atomically: a temporary file, then a rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"format": FORMAT, "version": VERSION, **payload}
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(payload, f)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as a plain open() would have made it
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def model_payload(net: ValueNet, encoding: str, variant: str) -> dict:
    """The part of a checkpoint that describes and holds the network."""
    return {"model": {"encoding": encoding, "hidden": list(net.hidden),
                      "activation": net.activation, "variant": variant},
            "state_dict": {k: v.detach().cpu() for k, v in net.state_dict().items()}}


def load(path: str | Path) -> dict:
    """Read a checkpoint; CheckpointError names the file for anything wrong with it."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path}: no such checkpoint file")
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic[:2] != b"PK" and magic[:1] != b"\x80":  # torch files are zip archives
        raise CheckpointError(f"{path}: not a readable checkpoint (not a torch file)")
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
    if payload.get("version") != VERSION:
        raise CheckpointError(f"{path}: checkpoint format version {payload.get('version')}, "
                              f"this gammon reads version {VERSION}")
    for key in ("model", "state_dict"):
        if key not in payload:
            raise CheckpointError(f"{path}: checkpoint has no {key!r} entry")
    return payload


def build_net(payload: dict, path: str | Path = "checkpoint") -> ValueNet:
    """The network a checkpoint describes, with its weights loaded."""
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
