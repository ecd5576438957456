"""The rollout dataset's file format (``train.rollout_data`` creates and appends to it): its
layout, byte by byte, as the constants below state it, and the reading of a file
(``open_data`` -> ``RolloutData``, whose columns are arrays of all its rows).

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

Reading ignores a torn last chunk (a prefix of one chunk that a kill left: ``torn_tail_bytes``);
any other bad chunk is damage, and every problem one ``DatasetError`` (a ValueError) of one
line naming the file (the rules in ``train.rollout_data``).
"""

from __future__ import annotations

import json
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gammon.engine import files
from gammon.engine.files import shown

MAGIC = b"GAMMONRD"
VERSION = 1
HEADER = struct.Struct("<8sIII")  # magic, version, meta_length, meta_crc
CHUNK_MAGIC = b"GRDC"
CHUNK = struct.Struct("<4sIII")  # magic, payload_length, rows, crc
MAX_META = 1 << 24  # bytes of metadata at most
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


class DatasetError(ValueError):
    """A dataset file that cannot be read, or that does not fit what is asked of it: one
    line, naming the file."""


def _error(path, text: str) -> DatasetError:
    return DatasetError(f"{shown(path)}: {text}")


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
