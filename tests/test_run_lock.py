"""One process per run directory: a second ``gammon train`` on a directory that a running
one holds (with or without --resume, or --overwrite) is refused in one line naming the
first (its pid and command line); reading the run (net:RUN/model.pt, gammon plot) needs no
lock; after kill -9 of the first, a new process takes its stale lock over, says so, and
resumes bit for bit. And the lock itself (``engine.files.lock_directory``): its record,
its release, a stale or damaged lock file, a filesystem without locks, a race.

These pass with no terminal and with SIGINT ignored: the first run is stopped by SIGKILL.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import torch

from gammon.engine import files
from gammon.engine.files import LOCK_NAME, DirectoryInUse, WriteError, lock_directory, lock_holder
from inprocess import gammon
from tiny_run import tiny_config
from gammon.train.run_state import resume_payload
from gammon.train.trainer import Trainer

ROOT = Path(__file__).resolve().parent.parent
GAMMON = [sys.executable, "-m", "gammon.cli"]

def _held_by(out: Path, proc: subprocess.Popen, timeout: float = 120) -> None:
    """Wait until ``proc`` holds the lock of ``out`` and has written a checkpoint."""
    deadline = time.monotonic() + timeout
    while True:
        holder = lock_holder(out)
        if holder and holder["pid"] == proc.pid and (out / "checkpoint.pt").exists() and \
                (out / "evaluations.jsonl").exists():
            return
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < deadline, f"no lock and checkpoint in {out} after {timeout} s"
        time.sleep(0.05)


def test_a_second_run_is_refused_and_a_dead_runs_lock_is_taken_over(tmp_path):
    config, out = tmp_path / "tiny.toml", tmp_path / "run"
    config.write_text(tiny_config(games=10_000_000, seed=13))
    first = subprocess.Popen(GAMMON + ["train", "--config", str(config), "--out", str(out),
                                       "--no-progress"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        _held_by(out, first)
        holder = lock_holder(out)
        assert holder["command"] == f"gammon train --config {config} --out {out} --no-progress"
        assert set(holder) == {"pid", "command", "host", "started"}

        # this test's process is a second one: refused, whatever it asks for
        checkpoint = out / "checkpoint.pt"
        for argv in (["--config", config, "--out", out],
                     ["--resume", checkpoint],
                     ["--resume", checkpoint, "--out", out, "--games", 20_000_000],
                     ["--config", config, "--out", out, "--overwrite"]):
            result = gammon("train", *argv, "--no-progress")
            assert result.returncode == 2, result.stderr
            lines = result.stderr.strip().splitlines()
            assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
            assert lines[0].startswith(f"gammon train: error: {out} is in use by pid "
                                       f"{first.pid} (gammon train --config {config}")
            assert lines[0].endswith("): wait for it or use another --out")
            assert first.poll() is None and checkpoint.exists()  # untouched, still training
    finally:
        first.kill()  # SIGKILL: no handler, no cleanup, the lock file stays
        first.communicate(timeout=60)
    assert lock_holder(out)["pid"] == first.pid  # stale

    config_, payload = resume_payload(out / "checkpoint.pt")
    target = json.loads(payload["counters"])["games"] + 64
    resumed = subprocess.run(GAMMON + ["train", "--resume", str(out / "checkpoint.pt"),
                                       "--games", str(target), "--no-progress"],
                             stdin=subprocess.DEVNULL, capture_output=True, text=True,
                             cwd=ROOT, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    notes = [line for line in resumed.stderr.splitlines() if line.startswith("note: took")]
    assert len(notes) == 1 and notes[0].startswith(
        f"note: took over the stale lock of pid {first.pid} (gammon train --config {config}")
    assert notes[0].endswith("), which is no longer running")
    assert "Traceback" not in resumed.stderr and not (out / LOCK_NAME).exists()

    # bit for bit a resume of the same checkpoint that no lock was in the way of
    done = torch.load(out / "checkpoint.pt", weights_only=True)
    plain = Trainer(config_.with_overrides(train={"games": target}), tmp_path / "plain",
                    resume=payload, log=lambda *_: None)
    plain.run()
    assert plain.counters.games == json.loads(done["counters"])["games"]
    for name, value in plain.net.state_dict().items():
        assert torch.equal(value, done["state_dict"][name]), name


def test_reading_a_run_takes_no_lock(tmp_path):
    """net:RUN/model.pt and gammon plot RUN while another process holds RUN."""
    run = tmp_path / "run"
    with lock_directory(run, "gammon train --out run"):
        (run / "model.pt").write_bytes((ROOT / "checkpoints" / "default.pt").read_bytes())
        (run / "evaluations.jsonl").write_text(json.dumps(
            {"games_trained": 64, "ppg": 0.1, "ppg_ci95": 0.2, "win_rate": 0.5}) + "\n")
        result = gammon("match", f"net:{run / 'model.pt'}", "random", "--games", 2)
        assert result.returncode == 0, result.stderr
        pytest.importorskip("matplotlib")
        result = gammon("plot", run)
        assert result.returncode == 0, result.stderr


# --- the lock itself --------------------------------------------------------------------------

def test_the_lock_holds_a_record_and_goes_when_released(tmp_path):
    out = tmp_path / "a" / "b"
    with lock_directory(out, "gammon train --out a/b") as lock:
        record = json.loads((out / LOCK_NAME).read_text())
        assert record["pid"] == os.getpid() and record["command"] == "gammon train --out a/b"
        assert record["host"] and record["started"] and lock.note is None and lock.held
        with pytest.raises(DirectoryInUse) as refused:  # another open file: another claim
            lock_directory(out, "gammon other", hint="use another --out")
        assert str(refused.value) == (f"{out} is in use by pid {os.getpid()} (gammon train "
                                      "--out a/b): wait for it or use another --out")
        assert isinstance(refused.value, WriteError)
    assert not lock.held and not (tmp_path / "a").exists()  # the folders it made, empty, go
    kept = tmp_path / "kept"
    kept.mkdir()
    lock_directory(kept, "x").release()
    assert kept.is_dir() and not list(kept.iterdir())


def test_a_stale_or_damaged_lock_file_is_taken_over(tmp_path):
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    (tmp_path / LOCK_NAME).write_text(json.dumps({"pid": gone.pid, "command": "gammon train "
                                                  "--out run", "host": "", "started": ""}))
    with lock_directory(tmp_path, "new") as lock:
        assert lock.note == (f"took over the stale lock of pid {gone.pid} (gammon train --out "
                             "run), which is no longer running")
        assert json.loads((tmp_path / LOCK_NAME).read_text())["command"] == "new"
    (tmp_path / LOCK_NAME).write_bytes(b"\x00garbage")
    with lock_directory(tmp_path, "new") as lock:
        assert lock.note is None and lock.held


def test_without_system_locks_the_pid_decides(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "_try_lock", lambda fd: None)  # a filesystem without flock
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (tmp_path / LOCK_NAME).write_text(json.dumps({"pid": alive.pid, "command": "x",
                                                      "host": files._host()}))
        with pytest.raises(DirectoryInUse, match=f"in use by pid {alive.pid} \\(x\\)"):
            lock_directory(tmp_path, "y")
    finally:
        alive.kill()
        alive.wait()
    with lock_directory(tmp_path, "y") as lock:
        assert lock.note and f"pid {alive.pid}" in lock.note


def test_of_many_at_once_exactly_one_wins(tmp_path):
    out, results, start = tmp_path / "run", [], threading.Barrier(8)

    def claim():
        start.wait()
        try:
            results.append(lock_directory(out, "racer"))
        except DirectoryInUse:
            results.append(None)

    threads = [threading.Thread(target=claim) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    won = [lock for lock in results if lock is not None]
    assert len(won) == 1 and len(results) == 8
    won[0].release()
    assert not (out / LOCK_NAME).exists()


def test_an_unwritable_place_is_one_write_error(tmp_path, monkeypatch):
    real = os.open

    def read_only(path, flags, *rest):
        if str(path).endswith(LOCK_NAME):
            raise OSError(30, os.strerror(30))  # EROFS
        return real(path, flags, *rest)

    monkeypatch.setattr(files.os, "open", read_only)
    with pytest.raises(WriteError, match=f"^cannot write {tmp_path / LOCK_NAME}: Read-only "
                                         "file system$"):
        lock_directory(tmp_path, "x")


def test_a_full_disk_at_the_start_is_one_write_error_and_leaves_no_lock(tmp_path,
                                                                        monkeypatch):
    def full(fd, data, offset):
        raise OSError(28, os.strerror(28))  # ENOSPC

    monkeypatch.setattr(files.os, "pwrite", full)
    with pytest.raises(WriteError, match=f"^cannot write {tmp_path / 'run' / LOCK_NAME}: "
                                         "No space left on device$"):
        lock_directory(tmp_path / "run", "x")
    assert not (tmp_path / "run").exists()  # nothing left: not the lock, not the folder
