"""The dataset of rollout targets for the trainer's second (supervised) stage: a file format
of its own, appendable a chunk at a time, whole after a kill -9 (no lost or duplicated row),
versioned, with the settings and the rolling net's checksum in its metadata.

    create("data/stage2.gdr", {"variant": "standard", "settings": {...},
                               "net_sha256": file_checksum("checkpoints/default.pt")})
    with Writer("data/stage2.gdr") as w:                 # one process appends at a time
        w.append(boards, targets, equity_se, trials, phase, split)   # rows written
    data = open_data("data/stage2.gdr")
    data.boards, data.targets, data.train(), data.validation(), data.done_boards()

The file (every number little-endian)::

    header   b"GAMMONRD"                         8 bytes: the format's magic
             version          uint32             VERSION (a newer one is refused)
             meta_length      uint32             bytes of the JSON below
             meta_crc         uint32             zlib.crc32 of them
             meta             UTF-8 JSON object  what ``create`` was given, with "created"
                                                 (ISO time), "format" and "columns" added
    chunk    b"GRDC"                             4 bytes: a chunk's magic
             payload_length   uint32             bytes of the compressed payload
             rows             uint32             n, the rows of the chunk (n >= 1)
             crc              uint32             zlib.crc32 of the 12 bytes above + payload
             payload          zlib-compressed, n * ROW_BYTES (60) bytes once inflated: the
                              columns one after the other, each in row order (``COLUMNS``):
                 boards     (n, 26) int8     the position, from the player on roll, before
                                             the roll (``engine.board``)
                 targets    (n, 6)  float32  the rollout's mean six outcomes for the player
                                             on roll, in ``engine.outcomes.OUTCOMES`` order
                 equity_se  (n,)    float32  the standard error of the cubeless equity
                 trials     (n,)    int32    trials rolled out
                 phase      (n,)    int8     0 contact, 1 crashed, 2 race (``PHASES``)
                 split      (n,)    int8     0 train, 1 validation (``SPLITS``)
    chunk    ...                             as many as were appended, none at the start

The header is written whole or not at all (``engine.files.write_atomic``); each chunk in one
write, flushed to the disk (fsync), the file cut back to its length before on a failure, as
``engine.files.append_line`` does for a log. A kill in the middle of a write leaves at most
a prefix of one chunk at the end (a torn write): reading ignores it (``torn_tail_bytes``)
and the next append cuts it off first, so the rows in the file are always exactly those of
the chunks written whole. A bad chunk with good chunks after it is damage, not a kill: an
error; so is a last chunk of its whole length whose CRC fails. No board is in the file
twice: an append drops the rows whose board is already there or earlier in the same call.
Pickle is never involved: the columns are raw fixed-type bytes.

Every problem with a file is one ``DatasetError`` (a ValueError) of one line naming it:
"PATH: not a gammon rollout dataset", "PATH: dataset format 2; this gammon reads up to 1",
"PATH: damaged chunk at byte N (bad CRC) with good data after it", ...; a write that fails
is an ``engine.files.WriteError`` ("cannot write PATH: No space left on device").
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine import files
from engine.files import WriteError, shown

try:
    import fcntl
except ImportError:  # not POSIX: no lock against a second writer
    fcntl = None

MAGIC = b"GAMMONRD"
VERSION = 1
HEADER = struct.Struct("<8sIII")  # magic, version, meta_length, meta_crc
CHUNK_MAGIC = b"GRDC"
CHUNK = struct.Struct("<4sIII")  # magic, payload_length, rows, crc
MAX_META = 1 << 24  # bytes of metadata at most
MAX_PAYLOAD = 1 << 31  # compressed bytes of one chunk at most
PHASES = ("contact", "crashed", "race")
SPLITS = ("train", "validation")
COLUMNS = (  # name, dtype (little-endian), cells per row
    ("boards", np.dtype("i1"), 26),
    ("targets", np.dtype("<f4"), 6),
    ("equity_se", np.dtype("<f4"), 1),
    ("trials", np.dtype("<i4"), 1),
    ("phase", np.dtype("i1"), 1),
    ("split", np.dtype("i1"), 1),
)
ROW_BYTES = sum(dtype.itemsize * cells for _, dtype, cells in COLUMNS)  # 60
LEVEL = 6  # zlib's compression level


class DatasetError(ValueError):
    """A dataset file that cannot be read, or that does not fit what is asked of it: one
    line, naming the file."""


def _error(path, text: str) -> DatasetError:
    return DatasetError(f"{shown(path)}: {text}")


def file_checksum(path) -> str:
    """The sha256 of a file's bytes (the rolling net's checkpoint), as 64 hex digits."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def validation_split(boards: np.ndarray, share: float = 0.1, salt: int = 0) -> np.ndarray:
    """Which boards are held out for validation, by a hash of each board's bytes (blake2b,
    salted by ``salt``), so that a position always lands on the same side whatever the run,
    the batch or the order: boards (N, 26) -> (N,) int8, 1 for about ``share`` of them."""
    if not 0 <= share <= 1:
        raise ValueError(f"the validation share is between 0 and 1, got {share!r}")
    if not 0 <= int(salt) < 2 ** 128:
        raise ValueError(f"the salt is a whole number from 0 to 2**128-1, got {salt!r}")
    boards = _boards(boards)  # (N, 26) int8
    salt_bytes = int(salt).to_bytes(16, "little")  # blake2b takes 16 bytes of salt at most
    limit = int(share * 2.0 ** 64)
    out = np.zeros(len(boards), dtype=np.int8)
    for i, row in enumerate(boards):
        h = hashlib.blake2b(row.tobytes(), digest_size=8, salt=salt_bytes).digest()
        out[i] = int.from_bytes(h, "little") < limit
    return out


# --- writing --------------------------------------------------------------------------------

def create(path, meta: dict) -> None:
    """A new dataset with no rows: the header with ``meta`` (a JSON object: the variant, the
    rollout settings under "settings", the net's checksum under "net_sha256", ...; "created"
    is added when missing), written atomically. DatasetError when ``path`` exists."""
    path = Path(path)
    if not isinstance(meta, dict):
        raise TypeError("a dataset's metadata is a dict")
    if os.path.lexists(path):
        raise _error(path, "exists already (a dataset is created once, then appended to)")
    meta = dict(meta)
    meta.setdefault("created", time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    meta["format"] = "gammon rollout data"
    meta["columns"] = {name: [str(dtype), cells] for name, dtype, cells in COLUMNS}
    try:
        text = json.dumps(meta, sort_keys=True, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as e:
        raise ValueError(f"the metadata is not JSON: {e}") from None
    if len(text) > MAX_META:
        raise ValueError(f"the metadata is {len(text):,} bytes; at most {MAX_META:,}")
    header = HEADER.pack(MAGIC, VERSION, len(text), zlib.crc32(text)) + text
    files.write_atomic(path, header, parents=True)  # whole or not at all


def encode_chunk(columns: dict) -> bytes:
    """One chunk of the rows ``columns`` ({name: array}, as ``_columns`` makes them)."""
    n = len(columns["boards"])
    raw = b"".join(np.ascontiguousarray(columns[name], dtype=dtype).tobytes()
                   for name, dtype, _ in COLUMNS)
    payload = zlib.compress(raw, LEVEL)
    if len(payload) >= MAX_PAYLOAD:
        raise ValueError(f"{n:,} rows are too many for one chunk")
    head = struct.pack("<4sII", CHUNK_MAGIC, len(payload), n)
    return head + struct.pack("<I", zlib.crc32(payload, zlib.crc32(head))) + payload


class Writer:
    """The one process appending to a dataset: opened once (it reads the file, holds its
    boards' keys and locks the file against a second writer), then ``append`` per chunk.
    ``data``: the dataset as read, kept up to date with the rows appended."""

    def __init__(self, path):
        self.path = Path(path)
        try:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
        except FileNotFoundError:
            raise _error(self.path, "no such dataset (create it first)") from None
        except OSError as e:
            raise WriteError(self.path, files.reason(e), e.errno) from None
        try:
            if fcntl is not None:
                try:
                    fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    raise _error(self.path, "another process is appending to it") from None
            self.data = open_data(self.path)
            self._keys = self.data.done_boards()
        except BaseException:
            os.close(self._fd)
            self._fd = None
            raise

    def done_boards(self) -> set[bytes]:
        """The boards in the file, each as its 26 bytes (``board.tobytes()`` of int8): what
        a generator resumes past (a copy)."""
        return set(self._keys)

    def __len__(self) -> int:
        return len(self.data)

    def append(self, boards, targets, equity_se, trials, phase, split) -> int:
        """Add the rows (shapes as in the module's docstring) whose board is not yet in the
        file, nor earlier in this call, as one chunk; returns the number written (0: none,
        and the file is untouched). On a failure the file is as before (WriteError)."""
        if self._fd is None:
            raise ValueError(f"{shown(self.path)}: this writer is closed")
        columns = _columns(boards, targets, equity_se, trials, phase, split)
        # no board twice: not one already in the file (a resume), nor one earlier here
        keys, keep, seen = [], [], set()
        for i, row in enumerate(columns["boards"]):
            key = row.tobytes()
            if key not in self._keys and key not in seen:
                seen.add(key)
                keys.append(key)
                keep.append(i)
        if not keep:
            return 0
        if len(keep) < len(columns["boards"]):
            columns = {name: a[keep] for name, a in columns.items()}
        chunk = encode_chunk(columns)
        end = self.data.end
        try:
            size = os.fstat(self._fd).st_size
            if size < end:
                raise _error(self.path, f"is {size:,} bytes, shorter than the {end:,} "
                                        "it had when opened (changed by someone else)")
            if size > end:  # "a torn last chunk ... is cut off before the next append"
                os.ftruncate(self._fd, end)
        except OSError as e:
            raise WriteError(self.path, files.reason(e), e.errno) from None
        self.data.torn_tail_bytes = 0
        try:  # the chunk in one write, on the disk before the rows count as written
            files._write(self.path, self._fd, chunk)
            files._fsync(self.path, self._fd)
        except OSError as e:
            try:
                os.ftruncate(self._fd, end)
            except OSError:
                pass
            raise WriteError(self.path, files.reason(e), e.errno) from None
        self.data._add(columns, end + len(chunk))
        self._keys.update(keys)
        return len(keep)

    def close(self) -> None:
        fd, self._fd = getattr(self, "_fd", None), None
        if fd is not None:
            os.close(fd)  # and the lock with it

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        self.close()


def append(path, boards, targets, equity_se, trials, phase, split) -> int:
    """``Writer(path).append(...)`` once: for a few appends (a long run keeps a Writer)."""
    with Writer(path) as w:
        return w.append(boards, targets, equity_se, trials, phase, split)


def _boards(boards) -> np.ndarray:
    a = np.asarray(boards)
    if a.ndim != 2 or a.shape[1] != 26:
        raise ValueError(f"boards are (N, 26), got shape {a.shape}")
    if a.dtype != np.int8:
        if not np.issubdtype(a.dtype, np.integer) or (
                len(a) and (a.min() < -128 or a.max() > 127)):
            raise ValueError("boards are whole numbers from -128 to 127 (int8)")
    return np.ascontiguousarray(a, dtype=np.int8)


def _columns(boards, targets, equity_se, trials, phase, split) -> dict:
    """The rows checked and in the file's types: {name: array}."""
    out = {"boards": _boards(boards)}
    n = len(out["boards"])
    given = {"targets": targets, "equity_se": equity_se, "trials": trials, "phase": phase,
             "split": split}
    for name, dtype, cells in COLUMNS[1:]:
        a = np.asarray(given[name])
        shape = (n, cells) if cells > 1 else (n,)
        if a.shape != shape:
            raise ValueError(f"{name} are {shape}, got shape {a.shape}")
        if dtype.kind == "f":
            if not np.issubdtype(a.dtype, np.number) or not np.isfinite(a).all():
                raise ValueError(f"{name} are finite numbers")
        elif not np.issubdtype(a.dtype, np.integer) and not (
                np.issubdtype(a.dtype, np.bool_) and name == "split"):
            raise ValueError(f"{name} are whole numbers, got {a.dtype}")
        out[name] = np.ascontiguousarray(a, dtype=dtype)
    if (out["equity_se"] < 0).any():
        raise ValueError("equity_se are 0 or more")
    if (out["trials"] < 1).any() or (np.asarray(trials) > np.iinfo(np.int32).max).any():
        raise ValueError("trials are 1 or more (int32)")
    if not np.isin(np.asarray(phase), np.arange(len(PHASES))).all():
        raise ValueError(f"phase is 0..{len(PHASES) - 1} ({', '.join(PHASES)})")
    if not np.isin(np.asarray(split), (0, 1)).all():
        raise ValueError("split is 0 (train) or 1 (validation)")
    return out


# --- reading --------------------------------------------------------------------------------

@dataclass
class Rows:
    """Some rows of a dataset (arrays as in the module's docstring)."""

    boards: np.ndarray  # (n, 26) int8
    targets: np.ndarray  # (n, 6) float32
    equity_se: np.ndarray  # (n,) float32
    trials: np.ndarray  # (n,) int32
    phase: np.ndarray  # (n,) int8
    split: np.ndarray  # (n,) int8

    def __len__(self) -> int:
        return len(self.boards)


class RolloutData:
    """A dataset as read (``open_data``): ``meta`` (the JSON object of the header),
    ``version``, the columns of all rows (``boards``, ``targets``, ``equity_se``,
    ``trials``, ``phase``, ``split``), ``chunks`` (their count), ``end`` (the byte after
    the last whole chunk) and ``torn_tail_bytes`` (the bytes after it: a write a kill cut
    short, ignored)."""

    def __init__(self, path, version: int, meta: dict, end: int):
        self.path, self.version, self.meta = Path(path), version, meta
        self.end, self.torn_tail_bytes, self.chunks = end, 0, 0
        self._parts: list[dict] = []
        self._cache: dict | None = None
        self._keys: set[bytes] | None = None

    def _add(self, columns: dict, end: int) -> None:
        self._parts.append(columns)
        self.chunks += 1
        self.end = end
        self._cache = None
        if self._keys is not None:
            self._keys.update(row.tobytes() for row in columns["boards"])

    def _columns(self) -> dict:
        if self._cache is None:
            if self._parts:
                self._cache = {name: np.concatenate([p[name] for p in self._parts])
                               for name, _, _ in COLUMNS}
            else:
                self._cache = {name: np.zeros((0, cells) if cells > 1 else (0,), dtype)
                               for name, dtype, cells in COLUMNS}
            self._parts = [self._cache] if self._parts else []
        return self._cache

    boards = property(lambda self: self._columns()["boards"])  # (N, 26) int8
    targets = property(lambda self: self._columns()["targets"])  # (N, 6) float32
    equity_se = property(lambda self: self._columns()["equity_se"])  # (N,) float32
    trials = property(lambda self: self._columns()["trials"])  # (N,) int32
    phase = property(lambda self: self._columns()["phase"])  # (N,) int8
    split = property(lambda self: self._columns()["split"])  # (N,) int8

    def __len__(self) -> int:
        return sum(len(p["boards"]) for p in self._parts)

    @property
    def settings(self) -> dict | None:
        return self.meta.get("settings")

    def rows(self, mask=None) -> Rows:
        """The rows where ``mask`` (N,) bool is set (None: all)."""
        c = self._columns()
        return Rows(**{name: (a if mask is None else a[mask]) for name, a in c.items()})

    def train(self) -> Rows:
        return self.rows(self.split == 0)

    def validation(self) -> Rows:
        return self.rows(self.split == 1)

    def done_boards(self) -> set[bytes]:
        """The boards in the file, each as its 26 bytes: what a generator resumes past."""
        if self._keys is None:
            keys = {row.tobytes() for row in self.boards}
            if len(keys) != len(self):
                raise _error(self.path, f"holds {len(self) - len(keys):,} boards twice")
            self._keys = keys
        return set(self._keys)


def open_data(path) -> RolloutData:
    """Read a dataset: its header and every chunk (a torn one at the end ignored)."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            buf = f.read()
    except FileNotFoundError:
        raise _error(path, "no such dataset") from None
    except IsADirectoryError:
        raise _error(path, "is a directory, not a gammon rollout dataset") from None
    except OSError as e:
        raise _error(path, f"cannot read: {files.reason(e)}") from None
    data = _header(path, buf)
    pos = data.end
    while pos < len(buf):
        chunk = _chunk(buf, pos)
        if chunk is None:  # "a torn last chunk (killed mid-write) is ignored on read"
            _torn_tail(path, buf, pos)  # else DatasetError: damage
            data.torn_tail_bytes = len(buf) - pos
            break
        rows, start, stop = chunk
        data._add(_decode(path, buf, pos, rows, start, stop), stop)
        pos = stop
    return data


def _header(path: Path, buf: bytes) -> RolloutData:
    if not buf:
        raise _error(path, "is empty, not a gammon rollout dataset")
    if buf[:len(MAGIC)] != MAGIC:
        raise _error(path, "not a gammon rollout dataset")
    if len(buf) < HEADER.size:
        raise _error(path, "the header is cut short")
    _, version, length, crc = HEADER.unpack_from(buf)
    if version > VERSION:
        raise _error(path, f"dataset format {version}; this gammon reads up to {VERSION}")
    if version < 1:
        raise _error(path, f"dataset format {version} is not one gammon ever wrote")
    end = HEADER.size + length
    if length > MAX_META or end > len(buf):
        raise _error(path, f"the header is cut short ({len(buf):,} bytes; its metadata "
                           f"ends at byte {end:,})")
    text = buf[HEADER.size:end]
    if zlib.crc32(text) != crc:
        raise _error(path, "the metadata is damaged (bad CRC)")
    try:
        meta = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise _error(path, f"the metadata is not valid JSON ({first})") from None
    if not isinstance(meta, dict):
        raise _error(path, "the metadata is not a JSON object")
    return RolloutData(path, version, meta, end)


def _chunk(buf: bytes, pos: int):
    """(rows, payload start, chunk end) of a whole chunk at ``pos`` whose CRC checks; else
    None."""
    if pos + CHUNK.size > len(buf):
        return None
    magic, length, rows, crc = CHUNK.unpack_from(buf, pos)
    start = pos + CHUNK.size
    stop = start + length
    if magic != CHUNK_MAGIC or stop > len(buf) or rows < 1:
        return None
    view = memoryview(buf)
    if zlib.crc32(view[start:stop], zlib.crc32(view[pos:pos + 12])) != crc:
        return None
    return rows, start, stop


def _torn_tail(path: Path, buf: bytes, pos: int) -> None:
    """A bad chunk at ``pos`` is a torn write (what a kill leaves: a prefix of one chunk, at
    the end) or else damage, a DatasetError: "a bad CRC followed by more data", or a whole
    chunk that does not check at the end."""
    at = buf.find(CHUNK_MAGIC, pos + 1)
    while at != -1:
        if _chunk(buf, at) is not None:
            why = "cut short" if _cut_short(buf, pos) else "bad CRC"
            raise _error(path, f"damaged chunk at byte {pos:,} ({why}) with good data "
                               f"after it at byte {at:,}")
        at = buf.find(CHUNK_MAGIC, at + 1)
    if not _cut_short(buf, pos):
        raise _error(path, f"damaged chunk at byte {pos:,} (bad CRC), the last of the file")


def _cut_short(buf: bytes, pos: int) -> bool:
    """Whether the bytes from ``pos`` to the end are a prefix of a chunk, shorter than it."""
    tail = buf[pos:pos + CHUNK.size]
    if len(tail) < CHUNK.size:
        return CHUNK_MAGIC.startswith(tail[:len(CHUNK_MAGIC)])
    magic, length, _, _ = CHUNK.unpack_from(buf, pos)
    return magic == CHUNK_MAGIC and pos + CHUNK.size + length > len(buf)


def _decode(path: Path, buf: bytes, pos: int, n: int, start: int, stop: int) -> dict:
    """A whole chunk's columns; DatasetError when it does not hold what its header says."""
    try:
        raw = zlib.decompress(memoryview(buf)[start:stop])
    except zlib.error:
        raise _error(path, f"the chunk at byte {pos:,} does not decompress") from None
    if len(raw) != n * ROW_BYTES:
        raise _error(path, f"the chunk at byte {pos:,} holds {len(raw):,} bytes, not the "
                           f"{n * ROW_BYTES:,} of its {n:,} rows")
    out, at = {}, 0
    for name, dtype, cells in COLUMNS:
        size = n * cells * dtype.itemsize
        a = np.frombuffer(raw, dtype=dtype, count=n * cells, offset=at)
        out[name] = (a.reshape(n, cells) if cells > 1 else a).astype(dtype.newbyteorder("="))
        at += size
    if not (np.isin(out["phase"], np.arange(len(PHASES))).all()
            and np.isin(out["split"], (0, 1)).all()):
        raise _error(path, f"the chunk at byte {pos:,} holds a phase or split out of range")
    return out


# --- metadata -------------------------------------------------------------------------------

def _short(checksum) -> str:
    text = str(checksum)
    return text[:12] + "..." if len(text) > 12 else text


def check_meta(data: RolloutData, settings: dict, checksum: str) -> None:
    """DatasetError, one line, unless ``data`` was rolled out with ``settings`` (compared as
    JSON values) by the net whose checkpoint's sha256 is ``checksum``: "a resume with
    different settings or a different net is refused in one line" (it would mix two kinds
    of targets)."""
    theirs = data.meta.get("net_sha256")
    if theirs != checksum:
        raise _error(data.path, f"was rolled out by the net of sha256 {_short(theirs)}, not "
                                f"{_short(checksum)} (use a new file, or that net)")
    ours = json.loads(json.dumps(settings, sort_keys=True))
    kept = data.meta.get("settings")
    if kept == ours:
        return
    if not isinstance(kept, dict) or not isinstance(ours, dict):
        raise _error(data.path, f"was made with settings {kept!r}, not {ours!r}")
    diffs = [f"{key} {kept.get(key, '(none)')!r}, not {ours.get(key, '(none)')!r}"
             for key in sorted(set(kept) | set(ours)) if kept.get(key) != ours.get(key)]
    raise _error(data.path, f"was made with other settings: {'; '.join(diffs)} (use a new "
                            "file, or the same settings)")


__all__ = ["MAGIC", "VERSION", "PHASES", "SPLITS", "COLUMNS", "ROW_BYTES", "DatasetError",
           "file_checksum", "validation_split", "create", "Writer", "append", "open_data",
           "RolloutData", "Rows", "check_meta", "encode_chunk"]
