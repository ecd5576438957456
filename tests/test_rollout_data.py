"""The dataset of rollout targets (``train.rollout_data``): a round trip, no board twice,
whole after a kill -9 (nothing lost, nothing duplicated), a torn tail ignored and then cut
off, one-line errors for bad or foreign files and for a resume with other settings, and a
validation split fixed by the board."""

from __future__ import annotations

import os
import random
import signal
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from gammon.train import rollout_data as rd

ROOT = Path(__file__).resolve().parents[1]
META = {"settings": {"trials": 72, "truncate": 10}, "net_sha256": "ab" * 32}
NAMES = [name for name, _, _ in rd.COLUMNS]


def make_rows(n: int, seed: int = 0) -> dict:
    """``n`` rows of distinct random boards: {column: array} in the file's shapes."""
    rng = np.random.default_rng(seed)
    boards = np.unique(rng.integers(-15, 16, size=(2 * n + 10, 26)), axis=0)
    boards = rng.permutation(boards)[:n].astype(np.int8)  # (n, 26)
    targets = rng.dirichlet(np.ones(6), size=n).astype(np.float32)  # (n, 6)
    return {"boards": boards, "targets": targets,
            "equity_se": rng.random(n).astype(np.float32),
            "trials": rng.integers(1, 1000, n).astype(np.int32),
            "phase": rng.integers(0, 3, n).astype(np.int8),
            "split": rd.validation_split(boards, 0.3)}


def pick(rows: dict, index) -> dict:
    return {name: a[index] for name, a in rows.items()}


def put(writer: rd.Writer, rows: dict) -> int:
    return writer.append(*(rows[name] for name in NAMES))


def assert_rows(data, rows: dict) -> None:
    for name in NAMES:
        got = getattr(data, name)
        assert got.dtype == rows[name].dtype, name
        assert np.array_equal(got, rows[name]), name


def new_file(tmp_path, chunks=(), name="d.gdr") -> Path:
    path = tmp_path / name
    rd.create(path, META)
    with rd.Writer(path) as w:
        for rows in chunks:
            put(w, rows)
    return path


# --- a round trip, no board twice ---------------------------------------------------------

def test_round_trip_and_no_board_twice(tmp_path):
    rows = make_rows(12)
    path = new_file(tmp_path)
    data = rd.open_data(path)
    assert len(data) == 0 and data.boards.shape == (0, 26) and data.targets.shape == (0, 6)
    assert data.version == rd.VERSION and data.settings == META["settings"]
    assert data.meta["net_sha256"] == META["net_sha256"] and data.meta["created"]
    with pytest.raises(rd.DatasetError, match="exists already"):
        rd.create(path, META)

    with rd.Writer(path) as w:
        assert put(w, pick(rows, slice(0, 5))) == 5
        with pytest.raises(rd.DatasetError, match="another process"):
            rd.Writer(path)  # one writer at a time
        # rows 3, 4 are in the file already, row 9 comes twice: written once
        again = pick(rows, [3, 4, 5, 6, 9, 7, 9, 8, 10, 11])
        assert put(w, again) == 7
        assert put(w, pick(rows, [0, 11])) == 0  # nothing new: the file untouched
        assert len(w) == 12 and w.done_boards() == {b.tobytes() for b in rows["boards"]}
    data = rd.open_data(path)
    assert data.chunks == 2 and len(data) == 12 and data.torn_tail_bytes == 0
    appended = pick(rows, [0, 1, 2, 3, 4, 5, 6, 9, 7, 8, 10, 11])  # in the order written
    assert_rows(data, appended)
    assert len(data.train()) + len(data.validation()) == 12
    held = appended["split"] == 1
    assert 0 < held.sum() < 12
    assert np.array_equal(data.validation().boards, appended["boards"][held])
    assert np.array_equal(data.train().targets, appended["targets"][~held])
    assert data.done_boards() == {b.tobytes() for b in rows["boards"]}
    assert os.path.getsize(path) == data.end


def test_rows_out_of_range_are_refused(tmp_path):
    rows = make_rows(3)
    path = new_file(tmp_path)
    size = os.path.getsize(path)
    with rd.Writer(path) as w:
        for name, bad in [("phase", np.array([0, 3, 1])), ("split", np.array([0, 2, 1])),
                          ("trials", np.array([0, 1, 1])),
                          ("targets", np.full((3, 6), np.nan)),
                          ("boards", np.zeros((3, 25), dtype=np.int8))]:
            with pytest.raises(ValueError):
                put(w, {**rows, name: bad})
    assert os.path.getsize(path) == size


# --- kill -9 and torn writes --------------------------------------------------------------

CHILD = """
import sys
import numpy as np
from gammon.train import rollout_data as rd
rows = dict(np.load(sys.argv[2]))
with rd.Writer(sys.argv[1]) as w:
    done = w.done_boards()
    todo = np.array([b.tobytes() not in done for b in rows["boards"]], dtype=bool)
    rows = {k: v[todo] for k, v in rows.items()}
    for i in range(0, len(rows["boards"]), 3):
        w.append(*(rows[k][i:i + 3] for k in rd.COLUMNS_NAMES))
        print(len(w), flush=True)  # acknowledged: this many rows are on the disk
""".replace("rd.COLUMNS_NAMES", "[c[0] for c in rd.COLUMNS]")


def test_kill_9_loses_and_duplicates_nothing(tmp_path):
    """A writer killed (SIGKILL) at random points, then resumed with the whole list: every
    acknowledged row is there and intact, and in the end every board is there once."""
    rows = make_rows(1500, seed=1)
    np.savez(tmp_path / "rows.npz", **rows)
    path = new_file(tmp_path)
    rng = random.Random()
    for round_ in range(4):
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(path),
                                  str(tmp_path / "rows.npz")],
                                 cwd=ROOT, stdout=subprocess.PIPE, text=True)
        acks = 0
        if round_ < 3:  # killed after a few appends; the last round runs to the end
            for _ in range(rng.randint(3, 40)):
                acks = int(child.stdout.readline())
            child.send_signal(signal.SIGKILL)
        out, _ = child.communicate(timeout=60)
        assert child.returncode == (-signal.SIGKILL if round_ < 3 else 0), round_
        acks = max([acks] + [int(line) for line in out.split()])
        data = rd.open_data(path)
        n = len(data)
        assert n >= acks, (round_, n, acks)
        assert_rows(data, pick(rows, slice(0, n)))  # in order, every row intact
    assert n == 1500 and len(data.done_boards()) == 1500 and data.torn_tail_bytes == 0


def test_a_torn_tail_is_ignored_then_cut_off(tmp_path):
    rows = make_rows(30)
    parts = [pick(rows, slice(0, 10)), pick(rows, slice(10, 20)), pick(rows, slice(20, 30))]
    path = new_file(tmp_path, parts[:2])
    whole = path.read_bytes()
    chunk = rd.encode_chunk(parts[2])
    for cut in (1, 4, 15, 16, 17, len(chunk) // 2, len(chunk) - 1):
        path.write_bytes(whole + chunk[:cut])  # a kill in the middle of the third chunk
        data = rd.open_data(path)
        assert len(data) == 20 and data.torn_tail_bytes == cut, cut
        assert_rows(data, pick(rows, slice(0, 20)))
        with rd.Writer(path) as w:  # the next append cuts the torn chunk off first
            assert put(w, parts[2]) == 10
        assert path.read_bytes() == whole + chunk, cut
        data = rd.open_data(path)
        assert data.torn_tail_bytes == 0 and data.chunks == 3
        assert_rows(data, rows)


# --- one-line errors ----------------------------------------------------------------------

def _header(version=rd.VERSION, text=b"{}", crc=None) -> bytes:
    crc = zlib.crc32(text) if crc is None else crc
    return struct.pack("<8sIII", rd.MAGIC, version, len(text), crc) + text


def _flipped(buf: bytes, at: int) -> bytes:
    return buf[:at] + bytes([buf[at] ^ 0x40]) + buf[at + 1:]


def _bad_files(tmp_path) -> dict:
    rows = make_rows(30)
    path = new_file(tmp_path, [pick(rows, slice(0, 10)), pick(rows, slice(10, 20)),
                               pick(rows, slice(20, 30))], name="good.gdr")
    good = path.read_bytes()
    data = rd.open_data(path)
    first = len(good) - sum(len(rd.encode_chunk(pick(rows, slice(i, i + 10))))
                            for i in (0, 10, 20))  # the first chunk's byte
    middle = first + len(rd.encode_chunk(pick(rows, slice(0, 10))))
    last = middle + len(rd.encode_chunk(pick(rows, slice(10, 20))))
    assert data.end == len(good) and good[middle:middle + 4] == good[last:last + 4] == b"GRDC"
    return {
        "empty": (b"", "empty"),
        "png": (b"\x89PNG\r\n\x1a\n" + bytes(40), "not a gammon rollout dataset"),
        "text": (b"step,loss\n1,0.5\n", "not a gammon rollout dataset"),
        "newer version": (_header(rd.VERSION + 1) + good[first:], "format 2"),
        "cut header": (good[:12], "cut short"),
        "bad json": (_header(text=b'{"settings": [1,'), "not valid JSON"),
        "json list": (_header(text=b"[1, 2]"), "not a JSON object"),
        "meta crc": (_header(text=b'{"a": 1}', crc=1), "metadata is damaged"),
        "middle payload": (_flipped(good, middle + 30), f"damaged chunk at byte {middle:,}"),
        "middle length": (_flipped(good, middle + 5), f"damaged chunk at byte {middle:,}"),
        "last chunk": (_flipped(good, last + 30), f"damaged chunk at byte {last:,}"),
    }


def test_bad_or_foreign_files_are_one_line_errors(tmp_path):
    cases = _bad_files(tmp_path)
    for name, (content, words) in cases.items():
        path = tmp_path / f"{name.replace(' ', '_')}.gdr"
        path.write_bytes(content)
        for read in (rd.open_data, rd.Writer):
            with pytest.raises(rd.DatasetError) as e:
                read(path)
            text = str(e.value)
            assert isinstance(e.value, ValueError)
            assert "\n" not in text and text.startswith(f"{path}: "), (name, text)
            assert words in text, (name, text)
        assert path.read_bytes() == content  # a writer refused leaves the file as it was
    with pytest.raises(rd.DatasetError, match="no such dataset"):
        rd.open_data(tmp_path / "missing.gdr")
    with pytest.raises(rd.DatasetError, match="no such dataset"):
        rd.Writer(tmp_path / "missing.gdr")


def test_check_meta_refuses_other_settings_or_net(tmp_path):
    data = rd.open_data(new_file(tmp_path))
    rd.check_meta(data, {"truncate": 10, "trials": 72}, "ab" * 32)  # the same: fine
    for settings, checksum, words in [
            ({"trials": 72, "truncate": None}, "ab" * 32, "truncate 10, not None"),
            ({"trials": 72}, "ab" * 32, "truncate 10, not '(none)'"),
            (META["settings"], "cd" * 32, "sha256 ababababab")]:
        with pytest.raises(rd.DatasetError) as e:
            rd.check_meta(data, settings, checksum)
        text = str(e.value)
        assert "\n" not in text and text.startswith(str(data.path)) and words in text, text


# --- the validation split -----------------------------------------------------------------

def test_validation_split_is_fixed_by_the_board():
    rng = np.random.default_rng(5)
    boards = rng.integers(-15, 16, size=(10_000, 26)).astype(np.int8)
    split = rd.validation_split(boards, 0.1)
    assert split.dtype == np.int8 and set(np.unique(split)) <= {0, 1}
    assert abs(split.mean() - 0.1) < 0.015  # 5 standard errors
    order = rng.permutation(len(boards))
    assert np.array_equal(rd.validation_split(boards[order], 0.1), split[order])
    assert np.array_equal(rd.validation_split(boards[:100].astype(np.int64), 0.1),
                          split[:100])  # by content, whatever the dtype or the batch
    wider = rd.validation_split(boards, 0.3)
    assert abs(wider.mean() - 0.3) < 0.025 and (wider >= split).all()
    other = rd.validation_split(boards, 0.1, salt=7)
    assert abs(other.mean() - 0.1) < 0.015 and (other != split).mean() > 0.1
    assert rd.validation_split(boards, 0).sum() == 0 and rd.validation_split(boards, 1).all()
    with pytest.raises(ValueError):
        rd.validation_split(boards, 1.5)
