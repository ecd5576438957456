"""The dataset of rollout targets for the trainer's second (supervised) stage: a file format
of its own, appendable a chunk at a time, whole after a kill -9 (no lost or duplicated row),
versioned, with the settings and the rolling net's checksum in its metadata.

    create("data/stage2.gdr", {"variant": "standard", "settings": {...},
                               "net_sha256": file_checksum("checkpoints/default.pt")})
    with Writer("data/stage2.gdr") as w:                 # one process appends at a time
        w.append(boards, targets, equity_se, trials, phase, split)   # rows written
    data = open_data("data/stage2.gdr")
    data.boards, data.targets, data.train(), data.validation(), data.done_boards()

Here: creating a dataset, appending to it, the validation split and the check of its
metadata. The file's layout and the reading of it are ``train.rollout_format``'s, its names
re-exported here (``open_data``, ``RolloutData``, ``Rows``, ``DatasetError``, ``COLUMNS``...).

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
from pathlib import Path

import numpy as np

from gammon.engine import files
from gammon.engine.files import WriteError, shown

from .rollout_format import (CHUNK_MAGIC, COLUMNS, HEADER, MAGIC, MAX_META, PHASES, ROW_BYTES,
                             SPLITS, VERSION, DatasetError, RolloutData, Rows, _error,
                             open_data)

try:
    import fcntl
except ImportError:  # not POSIX: no lock against a second writer
    fcntl = None

MAX_PAYLOAD = 1 << 31  # compressed bytes of one chunk at most
LEVEL = 6  # zlib's compression level


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
        """Add the rows (shapes as in ``train.rollout_format``) whose board is not yet in the
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
