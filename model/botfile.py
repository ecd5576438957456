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
    version     1, or 2 with phases   the layout; readers refuse versions they do not know
    encoding    "classic" | "expert" | "advanced" | "plakoto" | "nuclear"
                                      the input encoder (``model.encoding``), F inputs
    inputs      F
    hidden      [H1, ...]             hidden layer widths
    activation  "sigmoid" | "relu" | "tanh"   after every hidden layer (``model.activations``)
    variant     "standard", ...       the variant it was trained for (its checkers per side)
    outputs     the six outcomes in order, for the player on roll: win_backgammon,
                win_gammon, win_single, lose_single, lose_gammon, lose_backgammon
    source      the checkpoint it was exported from (informative)
    phases      (version 2, optional) the networks of other game phases by name
                ("race", "crashed": ``engine.phase``), each {encoding, inputs, hidden, activation};
                their arrays are named "race.layer0.weight", ...; the main network values
                every position no other phase's network claims

Everything loads with ``numpy.load(..., allow_pickle=False)``; reading needs NumPy only.
"""

from __future__ import annotations

import json
import os
import stat
import zipfile
from pathlib import Path

import numpy as np

from gammon.engine.files import write_atomic

from .activations import NAMES as ACTIVATIONS  # the activations a network may have
from .encoding import WIDTHS  # inputs of each encoding

FORMAT = "gammon-bot"
VERSION = 2
READABLE = (1, 2)  # versions this gammon reads (1: one network, no phases)
OTHER_PHASES = ("race", "crashed")  # phases that may have a network of their own
META = "meta"
OUTPUTS = ("win_backgammon", "win_gammon", "win_single", "lose_single", "lose_gammon",
           "lose_backgammon")

class BotFileError(ValueError):
    """A bot file that cannot be used; the message names the file and the reason."""


def layer_names(hidden) -> list[str]:
    """Array name prefixes in order: layer0, layer1, ..., out."""
    return [f"layer{i}" for i in range(len(hidden))] + ["out"]


# Limits on what a network file (bot file or checkpoint) may declare, checked before anything
# is allocated: a 17 KB archive can otherwise claim arrays that expand to gigabytes.
MAX_FILE_BYTES = 512 * 2**20
"""A bot file or checkpoint larger than this is refused before it is opened."""
MAX_WIDTH = 4096
"""Widest hidden layer (the NumPy player's first-layer table is 46 KB per hidden unit)."""
MAX_LAYERS = 16
"""Most hidden layers."""
MAX_PARAMETERS = 2**26
"""Most weights and biases in one network (256 MB as float32)."""
MAX_META_BYTES = 2**20
"""Largest metadata entry of a bot file."""
MAX_ENTRIES = 64
"""Most entries in a bot file's archive."""


def short(value, limit: int = 80) -> str:
    """``repr(value)`` cut to about ``limit`` characters, for quoting bad input in messages."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def check_regular_file(path: str | Path, what: str, error: type[Exception] = ValueError,
                       limit: int = MAX_FILE_BYTES) -> int:
    """The size of ``path``, or ``error`` naming it when it is missing, not a regular file
    (a directory, a device such as /dev/zero, a pipe) or larger than ``limit`` bytes."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise error(f"{path}: no such {what}") from None
    except (OSError, ValueError) as e:  # permission, name too long, NUL in the name
        raise error(f"{path}: cannot read it ({getattr(e, 'strerror', None) or e})") from None
    if stat.S_ISDIR(st.st_mode):
        raise error(f"{path}: a directory, not a {what}")
    if not stat.S_ISREG(st.st_mode):
        raise error(f"{path}: not a regular file (a device, pipe or socket), not a {what}")
    if st.st_size > limit:
        raise error(f"{path}: {st.st_size:,} bytes, larger than a {what} can be "
                    f"({limit // 2**20} MB); refused")
    return st.st_size


def network_sizes(spec: dict, path, error: type[Exception] = ValueError,
                  what: str = "metadata") -> list[int]:
    """Check a network description (encoding, hidden, activation, variant) and return its
    layer sizes [inputs, hidden..., 6]; ``error`` names the file and the bad key.

    Shared by bot files (their metadata) and checkpoints (their ``model`` entry), so both
    refuse the same things before any weights are allocated: widths above MAX_WIDTH, more
    than MAX_LAYERS layers or MAX_PARAMETERS weights, unknown names, wrong types.
    """
    from gammon.engine.rules import VARIANTS
    if not isinstance(spec, dict):
        raise error(f"{path}: its {what} is {type(spec).__name__}, not a table of encoding, "
                    "hidden, activation and variant")
    for key in ("encoding", "hidden", "activation", "variant"):
        if key not in spec:
            raise error(f"{path}: {what} has no {key!r}")
    for key, valid in (("encoding", tuple(WIDTHS)), ("activation", ACTIVATIONS),
                       ("variant", tuple(VARIANTS))):
        if not isinstance(spec[key], str) or spec[key] not in valid:
            raise error(f"{path}: unknown {key} {short(spec[key])}; valid: {', '.join(valid)}")
    hidden = spec["hidden"]
    if not isinstance(hidden, (list, tuple)) or not 1 <= len(hidden) <= MAX_LAYERS or not all(
            isinstance(h, int) and not isinstance(h, bool) and 1 <= h <= MAX_WIDTH
            for h in hidden):
        raise error(f"{path}: hidden must be a list of 1 to {MAX_LAYERS} widths, each 1 to "
                    f"{MAX_WIDTH}, got {short(hidden)}")
    sizes = [WIDTHS[spec["encoding"]], *hidden, len(OUTPUTS)]
    parameters = sum((a + 1) * b for a, b in zip(sizes[:-1], sizes[1:]))
    if parameters > MAX_PARAMETERS:
        raise error(f"{path}: hidden {short(hidden)} makes {parameters:,} weights, more than "
                    f"{MAX_PARAMETERS:,}; refused")
    return sizes


def is_bot_file(path: str | Path) -> bool:
    """Whether ``path`` is a bot file (a zip holding ``meta.npy``), by content not name.

    A torch checkpoint is a zip too, but never holds a top-level ``meta.npy``. Anything but
    a regular file of at most MAX_FILE_BYTES is not one (and is never opened here).
    """
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FILE_BYTES:
            return False
        with zipfile.ZipFile(path) as z:
            return f"{META}.npy" in z.namelist()
    except (OSError, ValueError, zipfile.BadZipFile):
        return False


def write(path: str | Path, meta: dict, arrays: dict[str, np.ndarray]) -> int:
    """Write a bot file atomically (``engine.files.write_atomic``: temporary file, then
    rename); returns its size in bytes. ``engine.files.WriteError`` when it cannot be
    written, the previous file untouched.

    ``meta`` gets ``format`` and ``version``; ``arrays`` are stored as float32.
    """
    path = Path(path)
    # the lowest version that describes the file: one network stays readable by version 1
    version = VERSION if meta.get("phases") else 1
    meta = {"format": FORMAT, "version": version, **meta, "outputs": list(OUTPUTS)}
    check(meta, arrays, path)
    payload = {name: np.ascontiguousarray(a, dtype=np.float32) for name, a in arrays.items()}
    payload[META] = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8)
    # a bot file is meant to be shared: readable by all
    return write_atomic(path, lambda f: np.savez_compressed(f, **payload), mode=0o644,
                        parents=True)


def read(path: str | Path) -> tuple[dict, dict[str, np.ndarray]]:
    """(metadata, arrays) of a bot file; BotFileError names the file and what is wrong.

    Nothing is expanded before it is known to fit: the file must be a regular file of at
    most MAX_FILE_BYTES, the metadata entry at most MAX_META_BYTES, and every array's shape
    (read from its ``.npy`` header) must be the one the metadata implies, within the limits
    of ``network_sizes``, before its data is read.
    """
    path = Path(path)
    check_regular_file(path, "bot file", BotFileError)
    try:
        with zipfile.ZipFile(path) as z:
            return _read_archive(z, path)
    except BotFileError:
        raise
    except Exception as e:  # not a zip, truncated, a bad .npy header, ...
        raise BotFileError(f"{path}: not a readable bot file ({_reason(e)})") from None


def _reason(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0][:120] if text else type(e).__name__


def _read_archive(z: zipfile.ZipFile, path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    infos = z.infolist()
    if len(infos) > MAX_ENTRIES:
        raise BotFileError(f"{path}: not a gammon bot file ({len(infos):,} entries)")
    entries = {}
    for info in infos:
        if not info.filename.endswith(".npy"):
            raise BotFileError(f"{path}: not a readable bot file (entry {short(info.filename)} "
                               "is not an .npy array)")
        entries[info.filename[:-4]] = info
    if META not in entries:
        raise BotFileError(f"{path}: not a gammon bot file (no {META!r} entry)")
    headers = {name: _npy_header(z, info, path, name) for name, info in entries.items()}
    shape, dtype = headers.pop(META)
    if dtype != np.uint8 or len(shape) != 1:
        raise BotFileError(f"{path}: its metadata is not UTF-8 JSON bytes (a {dtype} array "
                           f"of shape {shape})")
    if shape[0] > MAX_META_BYTES:
        raise BotFileError(f"{path}: its metadata is {shape[0]:,} bytes, more than "
                           f"{MAX_META_BYTES:,}; refused")
    meta = parse_meta(_npy_data(z, entries[META]).tobytes(), path)
    if meta.get("format") != FORMAT:
        raise BotFileError(f"{path}: not a gammon bot file")
    if meta.get("version") not in READABLE:
        raise BotFileError(f"{path}: bot file format version {short(meta.get('version'))}, "
                           f"this gammon reads versions {' and '.join(map(str, READABLE))}")
    _check_shapes(path, expected_shapes(meta, path), headers)
    arrays = {name: _npy_data(z, entries[name]) for name in headers}
    check(meta, arrays, path)
    return meta, arrays


def _npy_header(z: zipfile.ZipFile, info: zipfile.ZipInfo, path, name: str):
    """(shape, dtype) from an entry's ``.npy`` header, without reading its data."""
    with z.open(info) as f:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(f)
        else:
            raise BotFileError(f"{path}: not a readable bot file ({name}: .npy format "
                               f"version {version})")
    if dtype.hasobject:
        raise BotFileError(f"{path}: not a readable bot file ({name} holds Python objects, "
                           "which are never loaded)")
    return tuple(shape), dtype


def _npy_data(z: zipfile.ZipFile, info: zipfile.ZipInfo) -> np.ndarray:
    with z.open(info) as f:
        return np.lib.format.read_array(f, allow_pickle=False)


def parse_meta(data: bytes, path) -> dict:
    """The metadata object from its UTF-8 JSON bytes; BotFileError says what is wrong."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BotFileError(f"{path}: its metadata is not UTF-8 text (byte {e.start}: "
                           f"{data[e.start:e.start + 1]!r})") from None
    try:
        meta = json.loads(text)
    except RecursionError:
        raise BotFileError(f"{path}: its metadata is JSON nested too deeply") from None
    except ValueError as e:
        raise BotFileError(f"{path}: its metadata is not JSON ({_reason(e)[:80]})") from None
    if not isinstance(meta, dict):
        raise BotFileError(f"{path}: its metadata is a JSON {type(meta).__name__}, "
                           "not an object")
    return meta


def expected_shapes(meta: dict, path) -> dict[str, tuple[int, ...]]:
    """The arrays a bot file's metadata implies, name -> shape (BotFileError if it is bad)."""
    sizes = network_sizes(meta, path, BotFileError, "metadata")
    if "inputs" in meta and (not isinstance(meta["inputs"], int) or isinstance(
            meta["inputs"], bool) or meta["inputs"] != sizes[0]):
        raise BotFileError(f"{path}: inputs {short(meta['inputs'])} does not match the "
                           f"{meta['encoding']} encoding ({sizes[0]})")
    if "outputs" in meta and meta["outputs"] != list(OUTPUTS):
        raise BotFileError(f"{path}: outputs {short(meta['outputs'])} are not the six "
                           f"outcomes this gammon plays ({', '.join(OUTPUTS)})")
    expected = _layer_shapes(meta["hidden"], sizes)
    for phase in phase_names(meta, path):
        sub = phase_meta(meta, phase)
        sizes = network_sizes(sub, path, BotFileError, f"{phase} network's metadata")
        if sub.get("inputs", sizes[0]) != sizes[0]:
            raise BotFileError(f"{path}: the {phase} network's inputs do not match its "
                               f"{sub['encoding']} encoding ({sizes[0]})")
        expected.update({f"{phase}.{name}": shape
                         for name, shape in _layer_shapes(sub["hidden"], sizes).items()})
    return expected


def _layer_shapes(hidden, sizes: list[int]) -> dict[str, tuple[int, ...]]:
    """Array name -> shape of one network with layer sizes [inputs, hidden..., 6]."""
    expected = {}
    for name, (fan_in, fan_out) in zip(layer_names(hidden), zip(sizes[:-1], sizes[1:])):
        expected[f"{name}.weight"] = (fan_out, fan_in)
        expected[f"{name}.bias"] = (fan_out,)
    return expected


def phase_names(meta: dict, path) -> list[str]:
    """The other phases a bot file has networks for (BotFileError for a bad entry)."""
    phases = meta.get("phases", {})
    if not isinstance(phases, dict):
        raise BotFileError(f"{path}: its phases entry is not a table of networks")
    for name, spec in phases.items():
        if name not in OTHER_PHASES:
            raise BotFileError(f"{path}: unknown phase {short(name)}; valid: "
                               f"{', '.join(OTHER_PHASES)}")
        if not isinstance(spec, dict):
            raise BotFileError(f"{path}: the {name} network's metadata is not a table")
    return list(phases)


def phase_meta(meta: dict, phase: str) -> dict:
    """The metadata of one phase's network, as a one-network file would have it."""
    return {**meta["phases"][phase], "variant": meta["variant"]}


def phase_arrays(arrays: dict[str, np.ndarray], phase: str) -> dict[str, np.ndarray]:
    """The arrays of one phase's network, named as in a one-network file."""
    prefix = f"{phase}."
    return {name[len(prefix):]: a for name, a in arrays.items() if name.startswith(prefix)}


def _check_shapes(path, expected: dict, found: dict) -> None:
    """``found``: name -> (shape, dtype); refuse missing, misshapen, extra or non-float."""
    for name, shape in expected.items():
        if name not in found:
            raise BotFileError(f"{path}: no {name!r} array")
        got, dtype = found[name]
        if tuple(got) != shape:
            raise BotFileError(f"{path}: {name} has shape {tuple(got)}, "
                               f"the metadata implies {shape}")
        if np.dtype(dtype).kind != "f":
            raise BotFileError(f"{path}: {name} is {np.dtype(dtype)}, not floating point")
    extra = sorted(set(found) - set(expected))
    if extra:
        raise BotFileError(f"{path}: unexpected arrays {short(', '.join(extra))[1:-1]}")


def check(meta: dict, arrays: dict[str, np.ndarray], path) -> None:
    """Refuse metadata and arrays that do not describe one consistent network."""
    expected = expected_shapes(meta, path)
    _check_shapes(path, expected, {name: (np.shape(a), np.asarray(a).dtype)
                                   for name, a in arrays.items()})
    for name in expected:
        if not np.isfinite(arrays[name]).all():
            raise BotFileError(f"{path}: {name} holds NaN or infinite weights")
