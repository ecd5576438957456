"""The standalone bot file: a trained network as NumPy arrays and JSON metadata, no pickle.

A bot file is an ``.npz`` archive (``numpy.savez``: a zip of ``.npy`` arrays) holding

    meta            uint8 (B,)  UTF-8 JSON, described below
    layer0.weight   float32 (H1, F)   first hidden layer, as torch's ``nn.Linear``: y = x W^T + b
    layer0.bias     float32 (H1,)
    layer1.weight   ...               one pair per hidden layer
    out.weight      float32 (6, Hn)   logits of the six exclusive outcomes
    out.bias        float32 (6,)

and the JSON metadata

    format      "gammon-bot"          what the file is
    version     1                     the layout above; readers refuse other versions
    encoding    "classic" | "expert"  the input encoder (``model.encoding``), F inputs
    inputs      F
    hidden      [H1, ...]             hidden layer widths
    activation  "sigmoid" | "relu" | "tanh"   after every hidden layer
    variant     "standard", ...       the variant it was trained for (its checkers per side)
    outputs     the six outcomes in order, for the player on roll: win_backgammon,
                win_gammon, win_single, lose_single, lose_gammon, lose_backgammon
    source      the checkpoint it was exported from (informative)

Everything loads with ``numpy.load(..., allow_pickle=False)``; reading needs NumPy only.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

FORMAT = "gammon-bot"
VERSION = 1
META = "meta"
OUTPUTS = ("win_backgammon", "win_gammon", "win_single", "lose_single", "lose_gammon",
           "lose_backgammon")
ACTIVATIONS = ("sigmoid", "relu", "tanh")
WIDTHS = {"classic": 198, "expert": 222}  # as model.encoding.width, without importing it


class BotFileError(ValueError):
    """A bot file that cannot be used; the message names the file and the reason."""


def layer_names(hidden) -> list[str]:
    """Array name prefixes in order: layer0, layer1, ..., out."""
    return [f"layer{i}" for i in range(len(hidden))] + ["out"]


def is_bot_file(path: str | Path) -> bool:
    """Whether ``path`` is a bot file (a zip holding ``meta.npy``), by content not name.

    A torch checkpoint is a zip too, but never holds a top-level ``meta.npy``.
    """
    try:
        with zipfile.ZipFile(path) as z:
            return f"{META}.npy" in z.namelist()
    except (OSError, zipfile.BadZipFile):
        return False


def write(path: str | Path, meta: dict, arrays: dict[str, np.ndarray]) -> int:
    """Write a bot file atomically (temporary file, then rename); returns its size in bytes.

    ``meta`` gets ``format`` and ``version``; ``arrays`` are stored as float32.
    """
    path = Path(path)
    meta = {"format": FORMAT, "version": VERSION, **meta, "outputs": list(OUTPUTS)}
    check(meta, arrays, path)
    payload = {name: np.ascontiguousarray(a, dtype=np.float32) for name, a in arrays.items()}
    payload[META] = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez_compressed(f, **payload)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a bot file is meant to be shared
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path.stat().st_size


def read(path: str | Path) -> tuple[dict, dict[str, np.ndarray]]:
    """(metadata, arrays) of a bot file; BotFileError names the file and what is wrong."""
    path = Path(path)
    if not path.is_file():
        raise BotFileError(f"{path}: no such bot file")
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {name: z[name] for name in z.files}
    except Exception as e:  # not a zip, truncated, pickled object arrays, ...
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise BotFileError(f"{path}: not a readable bot file ({reason[:200]})") from None
    if META not in arrays:
        raise BotFileError(f"{path}: not a gammon bot file (no {META!r} entry)")
    try:
        meta = json.loads(arrays.pop(META).astype(np.uint8).tobytes().decode())
    except (ValueError, UnicodeDecodeError) as e:
        raise BotFileError(f"{path}: its metadata is not JSON ({e})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise BotFileError(f"{path}: not a gammon bot file")
    if meta.get("version") != VERSION:
        raise BotFileError(f"{path}: bot file format version {meta.get('version')}, "
                           f"this gammon reads version {VERSION}")
    check(meta, arrays, path)
    return meta, arrays


def check(meta: dict, arrays: dict[str, np.ndarray], path) -> None:
    """Refuse metadata and arrays that do not describe one consistent network."""
    for key in ("encoding", "hidden", "activation", "variant"):
        if key not in meta:
            raise BotFileError(f"{path}: metadata has no {key!r}")
    if meta["encoding"] not in WIDTHS:
        raise BotFileError(f"{path}: unknown encoding {meta['encoding']!r}; "
                           f"valid: {', '.join(WIDTHS)}")
    if meta["activation"] not in ACTIVATIONS:
        raise BotFileError(f"{path}: unknown activation {meta['activation']!r}; "
                           f"valid: {', '.join(ACTIVATIONS)}")
    hidden = meta["hidden"]
    if not isinstance(hidden, list) or not hidden or not all(
            isinstance(h, int) and h > 0 for h in hidden):
        raise BotFileError(f"{path}: hidden must be a list of positive widths, got {hidden!r}")
    sizes = [WIDTHS[meta["encoding"]]] + hidden + [len(OUTPUTS)]
    expected = {}
    for name, (fan_in, fan_out) in zip(layer_names(hidden), zip(sizes[:-1], sizes[1:])):
        expected[f"{name}.weight"] = (fan_out, fan_in)
        expected[f"{name}.bias"] = (fan_out,)
    for name, shape in expected.items():
        if name not in arrays:
            raise BotFileError(f"{path}: no {name!r} array")
        if tuple(arrays[name].shape) != shape:
            raise BotFileError(f"{path}: {name} has shape {tuple(arrays[name].shape)}, "
                               f"the metadata implies {shape}")
        if not np.isfinite(arrays[name]).all():
            raise BotFileError(f"{path}: {name} holds NaN or infinite weights")
    extra = sorted(set(arrays) - set(expected))
    if extra:
        raise BotFileError(f"{path}: unexpected arrays {', '.join(extra)}")
