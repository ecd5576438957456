"""Run directories: an existing run is never overwritten by accident, --overwrite clears it,
stale temporary files of a killed save go, a resumed run does not repeat an evaluation, and
SIGTERM (like Ctrl-C) saves a checkpoint and exits, to be resumed exactly.

These pass when pytest runs in a background job, where SIGINT is ignored by inheritance:
the trainer installs its handlers explicitly.
"""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from gammon.cli import main
from gammon.train.config import Config
from tiny_run import tiny_config
from gammon.train.run_dir import clear_run, remove_stale_tmp, run_files
from gammon.train.run_state import resume_payload
from gammon.train.trainer import Trainer

ROOT = Path(__file__).resolve().parent.parent
GAMMON = [sys.executable, "-m", "gammon.cli"]

def tiny(tmp_path, games=64, every=0, checkpoint=0) -> Path:
    path = tmp_path / f"tiny-{games}.toml"
    path.write_text(tiny_config(games=games, every=every, checkpoint=checkpoint, eval_games=8))
    return path


def small(games, **sections):
    return Config().with_overrides(
        model={"hidden": (8,)},
        train={"games": games, "parallel_games": 32, "update_every": 512, "batch_size": 64,
               "threads": 1, "seed": 5},
        eval=sections.get("eval", {"every_games": 0}),
        run=sections.get("run", {"checkpoint_every_games": 0}))


def train(capsys, *argv) -> tuple[int, str]:
    code = main(["train", "--no-progress", *map(str, argv)])
    return code, capsys.readouterr().err


def test_an_existing_run_is_refused_unless_resume_or_overwrite(tmp_path, capsys):
    config, out = tiny(tmp_path), tmp_path / "run"
    code, err = train(capsys, "--config", config, "--out", out)
    assert code == 0, err
    assert {p.name for p in run_files(out)} >= {"checkpoint.pt", "model.pt"}
    before = (out / "checkpoint.pt").read_bytes()
    code, err = train(capsys, "--config", config, "--out", out)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"{out} already holds a run" in err
    assert f"--resume {out / 'checkpoint.pt'}" in err and "--overwrite" in err
    assert (out / "checkpoint.pt").read_bytes() == before  # untouched

    # --resume continues it in place; --overwrite would delete what it continues
    code, err = train(capsys, "--resume", out / "checkpoint.pt", "--games", "96")
    assert code == 0, err
    code, err = train(capsys, "--resume", out / "checkpoint.pt", "--overwrite")
    assert code == 2 and "drop --overwrite" in err

    # --overwrite deletes the old run's files (and only those), then starts afresh
    (out / "evaluations.jsonl").write_text('{"games_trained": 5}\n')
    (out / "checkpoint.pt.x1y2.tmp").write_bytes(b"partial")
    (out / "notes.txt").write_text("mine")
    code, err = train(capsys, "--config", config, "--out", out, "--overwrite")
    assert code == 0, err
    assert "--overwrite: deleted" in err
    assert not (out / "evaluations.jsonl").exists()  # evaluations are off in this config
    assert not list(out.glob("*.tmp"))
    assert (out / "notes.txt").read_text() == "mine"
    assert json.loads(resume_payload(out / "checkpoint.pt")[1]["counters"])["games"] < 96


def test_event_files_alone_make_a_run(tmp_path, capsys):
    out = tmp_path / "run"
    (out / "tensorboard").mkdir(parents=True)
    (out / "tensorboard" / "events.out.tfevents.1.host").write_bytes(b"x")
    code, err = train(capsys, "--config", tiny(tmp_path), "--out", out)
    assert code == 2 and "TensorBoard event files" in err and "--overwrite" in err
    assert [p.name for p in clear_run(out)] == ["events.out.tfevents.1.host"]
    assert not (out / "tensorboard").exists() and out.is_dir()


def test_stale_tmp_files_are_removed_others_kept(tmp_path):
    names = ["checkpoint.pt.abc123.tmp", "model.pt.q.tmp", "evaluations.jsonl.z.tmp",
             "mine.tmp", "checkpoint.pt"]
    for name in names:
        (tmp_path / name).write_bytes(b"x")
    removed = remove_stale_tmp(tmp_path)
    assert sorted(p.name for p in removed) == sorted(names[:3])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint.pt", "mine.tmp"]


def _start(tmp_path, config, out) -> subprocess.Popen:
    return subprocess.Popen(GAMMON + ["train", "--config", str(config), "--out", str(out),
                                      "--no-progress"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)


def _wait_for(path: Path, proc: subprocess.Popen, timeout=120) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < deadline, f"no {path} after {timeout} s"
        time.sleep(0.1)


def test_sigterm_saves_and_exits_then_resume_finishes_exactly(tmp_path, capsys):
    out = tmp_path / "run"
    proc = _start(tmp_path, tiny(tmp_path, games=10_000_000, checkpoint=64), out)
    try:
        _wait_for(out / "checkpoint.pt", proc)
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err and "stopped by SIGTERM (checkpoint saved)" in err
    config, payload = resume_payload(out / "checkpoint.pt")
    stopped_at = json.loads(payload["counters"])["games"]
    assert 64 <= stopped_at < 10_000_000
    target = stopped_at + 100
    code, err = train(capsys, "--resume", out / "checkpoint.pt", "--games", target)
    assert code == 0 and "done" in err, err
    resumed = torch.load(out / "checkpoint.pt", weights_only=True)
    # the same run without a stop: the same weights, bit for bit
    config = config.with_overrides(train={"games": target})
    straight = Trainer(config, tmp_path / "straight", log=lambda *_: None)
    straight.run()
    assert straight.counters.games == json.loads(resumed["counters"])["games"]
    for name, value in straight.net.state_dict().items():
        assert torch.equal(value, resumed["state_dict"][name]), name


def test_after_kill_9_the_next_start_removes_stale_tmp_files(tmp_path, capsys):
    out = tmp_path / "run"
    proc = _start(tmp_path, tiny(tmp_path, games=10_000_000, checkpoint=64), out)
    try:
        _wait_for(out / "checkpoint.pt", proc)
        proc.kill()  # SIGKILL: no handler, no cleanup
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    # what a kill during the atomic save leaves behind (it may have left one already)
    (out / "checkpoint.pt.k9x.tmp").write_bytes(b"half a checkpoint")
    (out / "model.pt.k9y.tmp").write_bytes(b"half a model")
    (out / "keep.tmp").write_bytes(b"not ours")
    games = json.loads(resume_payload(out / "checkpoint.pt")[1]["counters"])["games"]
    code, err = train(capsys, "--resume", out / "checkpoint.pt", "--games", games + 32)
    assert code == 0, err
    assert "temporary files of an interrupted save" in err
    assert sorted(p.name for p in out.glob("*.tmp")) == ["keep.tmp"]


class _Killed(Exception):
    """Stands for kill -9 in the middle of a run."""


def test_a_resumed_run_does_not_repeat_an_evaluation(tmp_path, monkeypatch):
    """A kill between writing an evaluation and saving the next checkpoint: the resumed run
    evaluates that point again, and evaluations.jsonl holds each point once, exactly as an
    uninterrupted run writes it."""
    config = small(192, eval={"every_games": 64, "games": 8},
                   run={"checkpoint_every_games": 64})
    straight = Trainer(config, tmp_path / "a", log=lambda *_: None)
    straight.run()
    expected = (tmp_path / "a" / "evaluations.jsonl").read_text().splitlines()
    assert len(expected) == 3

    killed = Trainer(config, tmp_path / "b", log=lambda *_: None)
    real_save, saves = Trainer.save, []

    def save_then_die(self):
        saves.append(self.counters.games)
        if len(saves) == 2:  # the evaluation at this point is already written
            raise _Killed
        real_save(self)

    monkeypatch.setattr(Trainer, "save", save_then_die)
    with pytest.raises(_Killed):
        killed.run()
    monkeypatch.setattr(Trainer, "save", real_save)
    lines = (tmp_path / "b" / "evaluations.jsonl").read_text().splitlines()
    assert lines == expected[:2]  # the second one is not in the checkpoint

    config_b, payload = resume_payload(tmp_path / "b" / "checkpoint.pt")
    resumed = Trainer(config_b, tmp_path / "b", resume=payload, log=lambda *_: None)
    resumed.run()
    lines = (tmp_path / "b" / "evaluations.jsonl").read_text().splitlines()
    trained = [json.loads(line)["games_trained"] for line in lines]
    assert len(trained) == len(set(trained)) == 3
    assert lines == expected


class _Progress:
    """A progress bar that checks the signal handlers while the run goes on, and can send
    the process a signal."""

    def __init__(self, trainer, send=None):
        self.trainer, self.send, self.seen, self.disable = trainer, send, [], True

    def update(self, n):
        self.seen.append((signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)))
        if self.send is not None and self.trainer.counters.games >= 64:
            signal.raise_signal(self.send)
            self.send = None

    def set_postfix_str(self, *args, **kwargs):
        pass


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_handlers_are_installed_explicitly_and_restored(tmp_path, sig):
    """Even when SIGINT is ignored (a background job inherits that), the run installs its
    own handler for SIGINT and SIGTERM, stops with a checkpoint, and puts back both."""
    def mine(signum, frame):
        raise AssertionError("the previous handler ran")

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN), signal.signal(signal.SIGTERM,
                                                                            mine)
    try:
        trainer = Trainer(small(100_000), tmp_path, log=lambda *_: None)
        progress = _Progress(trainer, send=sig)
        counters = trainer.run(progress=progress)
        assert trainer.stop_requested and trainer.stop_signal == sig
        assert 64 <= counters.games < 100_000
        assert all(h == (trainer._request_stop, trainer._request_stop)
                   for h in progress.seen)
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) is mine
        assert json.loads(resume_payload(tmp_path / "checkpoint.pt")[1]["counters"])[
            "games"] == counters.games
    finally:
        signal.signal(signal.SIGINT, previous[0])
        signal.signal(signal.SIGTERM, previous[1])
