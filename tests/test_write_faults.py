"""Every writer, with a full disk, a read-only filesystem or a folder it may not write: one
line saying what could not be written and why (exit code 2, or the command's own answer),
no traceback, the previous file byte for byte as it was, no temporary file left behind.

The faults are the OSErrors the system raises (ENOSPC, EROFS, EACCES), injected at each
low-level step of ``engine.files``: creating the temporary file, writing it (half of it
reaches the disk first), flushing it to the disk, renaming it over the target; for the
evaluations log: opening it, writing the line, flushing it. One more case hits a real
limit of the system (RLIMIT_FSIZE) in a subprocess, for the whole way from torch to the
command line. The writers: a run's checkpoint.pt, model.pt and evaluations.jsonl (gammon
train), a bot file (export), .mat files (match --save, one match and a series; play's
save), the learning curve PNG (plot), a match equity table, the bear-off cache and
the GNU Backgammon judges' data files.

``CASES`` counts the faults tried; the last test prints the total.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gammon.engine import files
from gammon.engine.files import WriteError, append_line, shown, write_atomic
from gammon.errors import one_line, quote
from inprocess import gammon
from tiny_run import tiny_config

ROOT = Path(__file__).resolve().parent.parent
ERRNOS = {"ENOSPC": errno.ENOSPC, "EROFS": errno.EROFS, "EACCES": errno.EACCES}
ATOMIC = ("create", "write", "fsync", "replace")  # the steps of write_atomic
STEPS = {"create": "_create", "write": "_write", "fsync": "_fsync", "replace": "_replace",
         "open": "_open_append"}
CASES = {"faults": 0}
# the whole file on one worker of pytest-xdist (--dist loadgroup), in its order: CASES
# is the total of this process, which the last test reports (and base_run is made once)
pytestmark = pytest.mark.xdist_group("test_write_faults")
PREVIOUS = b"the previous file, which must survive\n"

def inject(monkeypatch, name: str, step: str, code: int, append: bool = False) -> list:
    """Make ``step`` of ``engine.files`` fail with ``code`` for the file called ``name``
    (the writes of ``append_line`` when ``append``, else those of ``write_atomic``);
    returns the list of the faults raised."""
    hits = []
    real = getattr(files, STEPS[step])

    def failing(target, *rest):
        if Path(target).name != name or (step in ("write", "fsync")
                                         and _appending(rest[0]) != append):
            return real(target, *rest)
        hits.append(step)
        if step == "write":  # half of it reaches the disk first
            fd, data = rest
            data = memoryview(data).cast("B")
            real(target, fd, data[:len(data) // 2])
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(files, STEPS[step], failing)
    CASES["faults"] += 1
    return hits


def _appending(fd: int) -> bool:
    return bool(fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND)


def contents(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder``: relative name -> bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def no_temporaries(folder: Path) -> None:
    left = [p.name for p in folder.rglob("*.tmp")]
    assert not left, left


def the_error(stderr: str, command: str, path: Path, code: int) -> str:
    """The one error line of ``stderr``, checked: no traceback, the path (as messages show
    it, ``engine.files.shown``) and the reason."""
    assert "Traceback" not in stderr, stderr
    errors = [line for line in stderr.splitlines() if line.startswith(f"gammon {command}: ")]
    assert len(errors) == 1, stderr
    line = errors[0]
    assert line.startswith(f"gammon {command}: error: cannot write {shown(path)}: "
                           f"{os.strerror(code)}"), line
    return line


def the_stop(stderr: str, path: Path, code: int, checkpoint: Path | None, games: int | None,
             tip: bool = True) -> str:
    """The one error line of a training run stopped by ``path`` it could not write, checked
    whole: what and why, the games it stopped at, the checkpoint left to resume from (with
    its ``games``) and the --keep-going-unsaved tip, as the command line clips a message
    (``gammon.errors.one_line``): the whole of it when it is short, its start and its full
    length when the paths make it long (as a deep temporary folder can)."""
    line = the_error(stderr, "train", path, code)
    stopped = re.search(r"; the run stopped at ([0-9,]+) games, ", line)
    assert stopped, line  # the first path is clipped (shown): this part always fits
    kept = ("no checkpoint was written" if checkpoint is None else
            f"{checkpoint} ({games:,} games) is intact: --resume {checkpoint} continues from it")
    message = (f"cannot write {shown(path)}: {os.strerror(code)}; the run stopped at "
               f"{stopped[1]} games, {kept}"
               + ("; --keep-going-unsaved trains on without saving" if tip else ""))
    assert line == f"gammon train: error: {one_line(message)}", (line, message)
    return line


CODES = pytest.mark.parametrize("code", ERRNOS.values(), ids=ERRNOS.keys())
ATOMIC_STEPS = pytest.mark.parametrize("step", ATOMIC)
# for the run's files (each case a short training run): each fault where the system raises
# it; every step with every error is tried on the quicker writers below
RUN_FAULTS = pytest.mark.parametrize("step, code", [
    ("create", errno.EROFS), ("create", errno.EACCES), ("create", errno.ENOSPC),
    ("write", errno.ENOSPC), ("fsync", errno.ENOSPC), ("replace", errno.EACCES)],
    ids=["create-EROFS", "create-EACCES", "create-ENOSPC", "write-ENOSPC", "fsync-ENOSPC",
         "replace-EACCES"])
LOG_FAULTS = pytest.mark.parametrize("step, code", [
    ("open", errno.EROFS), ("open", errno.EACCES), ("write", errno.ENOSPC),
    ("fsync", errno.ENOSPC)], ids=["open-EROFS", "open-EACCES", "write-ENOSPC",
                                    "fsync-ENOSPC"])


# --- gammon train: checkpoint.pt, model.pt, evaluations.jsonl ------------------------------

@pytest.fixture(scope="module")
def base_run(tmp_path_factory) -> Path:
    """A run of 64 games: a checkpoint, a model file, one evaluation."""
    folder = tmp_path_factory.mktemp("base")
    config = folder / "tiny.toml"
    config.write_text(tiny_config())
    result = gammon("train", "--config", config, "--out", folder / "run", "--no-progress")
    assert result.returncode == 0, result.stderr
    assert (folder / "run" / "evaluations.jsonl").is_file()
    return folder / "run"


def _games(checkpoint: Path) -> int:
    """The games a checkpoint holds."""
    return json.loads(__import__("torch").load(checkpoint, weights_only=True)["counters"])[
        "games"]


def _copy(base_run: Path, tmp_path: Path) -> tuple[Path, dict, int]:
    run = tmp_path / "run"
    shutil.copytree(base_run, run)
    return run, contents(run), _games(run / "checkpoint.pt")


def _resume(run: Path, *extra):
    return gammon("train", "--resume", run / "checkpoint.pt", "--games", 128, "--no-progress",
                  *extra)


@RUN_FAULTS
@pytest.mark.parametrize("name", ["checkpoint.pt", "model.pt"])
def test_train_stops_when_its_checkpoint_or_model_cannot_be_written(
        base_run, tmp_path, monkeypatch, name, step, code):
    run, before, games = _copy(base_run, tmp_path)
    hits = inject(monkeypatch, name, step, code)
    result = _resume(run)
    assert result.returncode == 2 and hits == [step], result.stderr
    after = contents(run)
    assert after[name] == before[name]
    if name == "checkpoint.pt":  # the one to resume from: the previous one
        line = the_stop(result.stderr, run / name, code, run / "checkpoint.pt", games)
        assert after["model.pt"] == before["model.pt"]
    else:  # the checkpoint was written just before
        assert after["checkpoint.pt"] != before["checkpoint.pt"]
        written = _games(run / "checkpoint.pt")
        assert written > games
        line = the_stop(result.stderr, run / name, code, run / "checkpoint.pt", written)
        assert f"{run / 'checkpoint.pt'} ({games:,} games)" not in line
    assert result.stderr.rstrip().endswith(line)  # the last word, and nothing trained after
    no_temporaries(run)
    assert not (run / ".lock").exists()  # released


@LOG_FAULTS
def test_train_stops_when_its_evaluation_cannot_be_appended(base_run, tmp_path, monkeypatch,
                                                             step, code):
    run, before, games = _copy(base_run, tmp_path)
    hits = inject(monkeypatch, "evaluations.jsonl", step, code, append=True)
    result = _resume(run)
    assert result.returncode == 2 and hits == [step], result.stderr
    the_stop(result.stderr, run / "evaluations.jsonl", code, run / "checkpoint.pt", games)
    after = contents(run)
    for name in ("evaluations.jsonl", "checkpoint.pt", "model.pt"):
        assert after[name] == before[name], name  # no half line, nothing saved after
    no_temporaries(run)


def test_keep_going_unsaved_warns_and_trains_on(base_run, tmp_path, monkeypatch):
    """--keep-going-unsaved: the failed checkpoints are warnings; once the disk takes files
    again the run saves; the final checkpoint failing still stops it."""
    run, before, games = _copy(base_run, tmp_path)
    hits = inject(monkeypatch, "checkpoint.pt", "write", errno.ENOSPC)
    result = gammon("train", "--resume", run / "checkpoint.pt", "--games", 192,
                    "--no-progress", "--keep-going-unsaved")
    assert result.returncode == 2 and len(hits) >= 2, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings and all(f"cannot write {shown(run / 'checkpoint.pt')}: No space left on "
                            "device; training on unsaved" in w for w in warnings), result.stderr
    line = the_stop(result.stderr, run / "checkpoint.pt", errno.ENOSPC, run / "checkpoint.pt",
                    games, tip=False)  # the one it resumed from
    assert "--keep-going-unsaved trains" not in line  # it was given
    assert contents(run)["checkpoint.pt"] == before["checkpoint.pt"]
    no_temporaries(run)

    # a disk full only for a while: the evaluation at 128 and the checkpoint are lost, the
    # run goes on, and its next checkpoint writes everything, evaluations.jsonl too
    monkeypatch.undo()
    run, before, games = _copy(base_run, tmp_path / "again")
    real, failed = files._open_append, []

    def full_once(target):
        if not failed and Path(target).name == "evaluations.jsonl":
            failed.append(Path(target).name)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(target)

    monkeypatch.setattr(files, "_open_append", full_once)
    CASES["faults"] += 1
    result = gammon("train", "--resume", run / "checkpoint.pt", "--games", 192,
                    "--no-progress", "--keep-going-unsaved")
    assert result.returncode == 0 and failed == ["evaluations.jsonl"], result.stderr
    assert "warning: cannot write" in result.stderr and "Traceback" not in result.stderr
    lines = (run / "evaluations.jsonl").read_text().splitlines()
    trained = [json.loads(line)["games_trained"] for line in lines]
    assert len(trained) == len(set(trained)) >= 3  # 64, ~128 (lost, then rewritten), ~192
    no_temporaries(run)


def test_tensorboard_logs_that_cannot_be_written_are_one_warning(base_run, tmp_path,
                                                                 monkeypatch):
    """TensorBoard's writer failing (its thread hit a full disk): one warning, no more
    TensorBoard logs, and the run goes on to the end; the thread's own report is hushed."""
    import threading

    import torch.utils.tensorboard as board
    run, before, games = _copy(base_run, tmp_path)
    calls = []

    class FullDisk:
        def __init__(self, log_dir):
            self.log_dir = log_dir

        def add_scalar(self, *args, **kwargs):
            calls.append(args[:1])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        flush = close = add_scalar

    monkeypatch.setattr(board, "SummaryWriter", FullDisk)
    CASES["faults"] += 1
    hook = threading.excepthook
    result = _resume(run)
    assert result.returncode == 0 and len(calls) == 1, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [f"warning: cannot write {shown(run / 'tensorboard')}: No space left on "
                        "device; no more TensorBoard logs (training goes on)"]
    assert threading.excepthook is hook  # put back

    from gammon.commands.train import _Board

    class _AsyncWriterThread(threading.Thread):  # as tensorboard names its writer thread
        def run(self):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    seen = []
    monkeypatch.setattr(threading, "excepthook", lambda args: seen.append(args.exc_type))
    board_ = _Board(FullDisk(str(run)), run)
    for thread in (_AsyncWriterThread(), threading.Thread(target=lambda: 1 / 0)):
        thread.start()
        thread.join()
    board_.close()
    assert seen == [ZeroDivisionError]  # tensorboard's OSError hushed, nothing else


def test_a_real_file_size_limit_in_a_subprocess(base_run, tmp_path):
    """No injection: the system refuses the write (RLIMIT_FSIZE below the checkpoint's size,
    EFBIG). One line, exit code 2, the previous checkpoint intact, nothing left behind."""
    run, before, games = _copy(base_run, tmp_path)
    limit = len(before["checkpoint.pt"]) // 2
    assert limit > max(len(before["model.pt"]), len(before["evaluations.jsonl"])) + 4096

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past it fails, not kills
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = subprocess.run([sys.executable, "-m", "gammon.cli", "train", "--resume",
                           str(run / "checkpoint.pt"), "--games", "128", "--no-progress"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=ROOT,
                          preexec_fn=small_files, timeout=300)
    CASES["faults"] += 1
    assert proc.returncode == 2, proc.stderr
    the_error(proc.stderr, "train", run / "checkpoint.pt", errno.EFBIG)
    assert contents(run)["checkpoint.pt"] == before["checkpoint.pt"]
    no_temporaries(run)


# --- gammon export, match --save, play's save, plot -------------------------------------------

@CODES
@ATOMIC_STEPS
def test_export_bot_file(base_run, tmp_path, monkeypatch, step, code):
    out = tmp_path / "bot.npz"
    out.write_bytes(PREVIOUS)
    hits = inject(monkeypatch, "bot.npz", step, code)
    result = gammon("export", base_run / "model.pt", out, "--check-games", 1)
    assert result.returncode == 2 and hits == [step], result.stderr
    the_error(result.stderr, "export", out, code)
    assert len(result.stderr.strip().splitlines()) == 1
    assert out.read_bytes() == PREVIOUS
    no_temporaries(tmp_path)


@CODES
@ATOMIC_STEPS
def test_match_save(tmp_path, monkeypatch, step, code):
    out = tmp_path / "games.mat"
    out.write_bytes(PREVIOUS)
    hits = inject(monkeypatch, "games.mat", step, code)
    result = gammon("match", "pubeval", "random", "--games", 2, "--seed", 1, "--save", out)
    assert result.returncode == 2 and hits == [step], result.stderr
    the_error(result.stderr, "match", out, code)
    assert len(result.stderr.strip().splitlines()) == 1
    assert out.read_bytes() == PREVIOUS
    no_temporaries(tmp_path)


@CODES
@ATOMIC_STEPS
def test_match_save_of_a_series(tmp_path, monkeypatch, step, code):
    """Matches to N points, one file each: the second cannot be written."""
    second = tmp_path / "m_0002.mat"
    second.write_bytes(PREVIOUS)
    hits = inject(monkeypatch, second.name, step, code)
    result = gammon("match", "pubeval", "random", "--match-to", 1, "--matches", 2, "--seed", 1,
                    "--save", tmp_path / "m.mat")
    assert result.returncode == 2 and hits == [step], result.stderr
    the_error(result.stderr, "match", second, code)
    assert len(result.stderr.strip().splitlines()) == 1
    assert second.read_bytes() == PREVIOUS
    assert (tmp_path / "m_0001.mat").read_text().strip()  # the first one was written
    no_temporaries(tmp_path)


@CODES
@ATOMIC_STEPS
def test_play_save(tmp_path, monkeypatch, step, code):
    """play's save: the session says why in one line and goes on (exit code 0)."""
    out = tmp_path / "session.mat"
    out.write_bytes(PREVIOUS)
    hits = inject(monkeypatch, "session.mat", step, code)
    result = gammon("play", "--bot", "random", "--seed", 1, stdin=f"save {out}\nquit\n")
    assert result.returncode == 0 and hits == [step], result.stdout[-2000:]
    said = [line for line in result.stdout.splitlines() if "Cannot save" in line]
    assert len(said) == 1 and said[0].endswith(f"Cannot save to {quote(str(out))}: "
                                               f"{os.strerror(code)}"), said
    assert "Traceback" not in result.stdout + result.stderr
    assert out.read_bytes() == PREVIOUS
    no_temporaries(tmp_path)


@CODES
@ATOMIC_STEPS
def test_plot_png(tmp_path, monkeypatch, step, code):
    pytest.importorskip("matplotlib")
    run = tmp_path / "run"
    run.mkdir()
    (run / "evaluations.jsonl").write_text("".join(
        json.dumps({"games_trained": g, "ppg": 0.1, "ppg_ci95": 0.05, "win_rate": 0.5,
                    "games": 100}) + "\n" for g in (100, 200)))
    out = run / "learning_curve.png"
    out.write_bytes(PREVIOUS)
    hits = inject(monkeypatch, out.name, step, code)
    result = gammon("plot", run)
    assert result.returncode == 2 and hits == [step], result.stderr
    the_error(result.stderr, "plot", out, code)
    assert len(result.stderr.strip().splitlines()) == 1
    assert out.read_bytes() == PREVIOUS
    no_temporaries(tmp_path)


# --- the library's writers: a match equity table, the bear-off cache --------------------------

@CODES
@ATOMIC_STEPS
def test_met_file(tmp_path, monkeypatch, step, code):
    from gammon.engine.met import met_from_gammon_rate, save_met
    out = tmp_path / "table.met"
    out.write_bytes(PREVIOUS)
    hits = inject(monkeypatch, out.name, step, code)
    with pytest.raises(WriteError) as caught:
        save_met(met_from_gammon_rate(3), out)
    assert hits == [step]
    assert str(caught.value) == f"cannot write {shown(out)}: {os.strerror(code)}"
    assert caught.value.errno == code and isinstance(caught.value, OSError)
    assert out.read_bytes() == PREVIOUS
    no_temporaries(tmp_path)


@CODES
@ATOMIC_STEPS
def test_bearoff_cache(tmp_path, monkeypatch, step, code, capsys):
    """The cache failing is a note, and the database is used without it."""
    from gammon.engine import bearoff
    out = tmp_path / bearoff.FILE_NAME
    out.write_bytes(PREVIOUS)
    hits = inject(monkeypatch, out.name, step, code)
    small = np.zeros((2, 3), dtype=np.float32)
    said = f"cannot write {shown(out)}: {os.strerror(code)}"
    with pytest.raises(WriteError, match=f"^{re.escape(said)}$"):
        bearoff.write(out, small, small)
    assert hits == [step]
    assert out.read_bytes() == PREVIOUS
    no_temporaries(tmp_path)


@CODES
@ATOMIC_STEPS
@pytest.mark.parametrize("judge", ["cube_check", "match_cube"])
def test_gnubg_judges_data_files(tmp_path, monkeypatch, step, code, judge):
    """The GNU Backgammon judges' --generate writes: their committed data saved again."""
    from gammon.eval.gnubg import cube_check, match_cube
    out = tmp_path / f"{judge}.jsonl"
    out.write_bytes(PREVIOUS)
    hits = inject(monkeypatch, out.name, step, code)
    said = f"cannot write {shown(out)}: {os.strerror(code)}"
    with pytest.raises(WriteError, match=f"^{re.escape(said)}$"):
        if judge == "cube_check":
            cube_check.save(cube_check.load(), out)
        else:
            rows = [json.loads(line) for line in match_cube.DATA_PATH.read_text().splitlines()]
            match_cube.save(rows[1:], rows[0]["meta"], out)
    assert hits == [step]
    assert out.read_bytes() == PREVIOUS
    no_temporaries(tmp_path)


# --- the helper itself ---------------------------------------------------------------------------

def test_append_line_never_leaves_half_a_line(tmp_path, monkeypatch):
    log = tmp_path / "log.jsonl"
    append_line(log, '{"a": 1}')
    inject(monkeypatch, log.name, "write", errno.ENOSPC, append=True)
    with pytest.raises(WriteError, match="No space left on device"):
        append_line(log, '{"b": ' + "2" * 10_000 + "}")
    assert log.read_text() == '{"a": 1}\n'
    with pytest.raises(ValueError):
        append_line(log, "two\nlines")


def test_write_atomic_kinds_of_data_and_places(tmp_path):
    out = tmp_path / "f"
    assert write_atomic(out, "text") == 4 and out.read_text() == "text"
    assert write_atomic(out, [b"a", b"bc"]) == 3 and out.read_bytes() == b"abc"
    assert write_atomic(out, lambda f: f.write(b"xyz")) == 3 and out.read_bytes() == b"xyz"
    os.chmod(out, 0o600)
    write_atomic(out, b"again")
    assert out.stat().st_mode & 0o777 == 0o600  # the permissions of the file it replaced
    link = tmp_path / "link"
    link.symlink_to(out)
    write_atomic(link, b"through")
    assert link.is_symlink() and out.read_bytes() == b"through"
    assert write_atomic("/dev/null", b"nothing") == 7  # a device: written, not replaced
    with pytest.raises(WriteError, match="it is a directory"):
        write_atomic(tmp_path, b"x")
    with pytest.raises(WriteError, match="No such file or directory"):
        write_atomic(tmp_path / "missing" / "f", b"x")
    write_atomic(tmp_path / "made" / "f", b"x", parents=True)
    with pytest.raises(WriteError, match="NUL"):
        write_atomic(str(tmp_path / "a\x00b"), b"x")

    def broken(f):
        raise RuntimeError("not written")

    with pytest.raises(RuntimeError):  # not a write fault: the caller's own error
        write_atomic(out, broken)
    assert out.read_bytes() == b"through"
    no_temporaries(tmp_path)


def test_zz_report_the_number_of_write_faults(record_property):
    """The total of faults tried by this file (when run whole), printed at the end of the
    run (conftest.py)."""
    record_property("total", f"test_write_faults: {CASES['faults']} write faults tried")
    assert CASES["faults"] >= 100 or CASES["faults"] < 90  # whole file, or a -k selection
