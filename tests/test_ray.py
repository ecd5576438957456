"""Past one core: self-play on Ray actors (``train.actors``), matches split over Ray workers
(``eval.playing.distributed``), and what ``--actors`` says to bad input. Skipped without Ray."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from gammon.engine.cube import CubeRules
from gammon.eval.playing.match import run_match
from inprocess import gammon

ROOT = Path(__file__).resolve().parent.parent
SMALL = ('[model]\nhidden = [16]\n[train]\ngames = 200\nparallel_games = 32\n'
         'update_every = 1024\nseed = 5\n[eval]\nevery_games = 0\ngames = 100\n'
         '[run]\ncheckpoint_every_games = 100\n')

ray = pytest.importorskip("ray")
# the whole file on one worker of pytest-xdist (--dist loadgroup): one local Ray instance
# (local_ray) in the run, not one per worker on the same 2 cores
pytestmark = pytest.mark.xdist_group("test_ray")


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray instance of 2 CPUs for the in-process tests of this module."""
    from gammon.train.actors import start_ray
    started = not ray.is_initialized()
    start_ray(None, cpus=2)
    yield ray
    if started:
        ray.shutdown()


def _same_match(a, b) -> None:
    da, db = a.to_dict(), b.to_dict()
    for key in ("seconds", "games_per_s"):
        da.pop(key), db.pop(key)
    assert da == db
    assert np.array_equal(a.points, b.points) and np.array_equal(a.plies, b.plies)


# --- distributed matches ----------------------------------------------------------------------

def test_a_distributed_match_is_the_single_process_match(local_ray):
    from gammon.eval.playing.distributed import run_distributed_match
    # five chunks of 120 games over two workers; the random bot draws numbers of its own
    alone = run_match("random", "pubeval", 600, seed=11, chunk=120, progress=False)
    split = run_distributed_match("random", "pubeval", 600, seed=11, actors=2, chunk=120)
    _same_match(alone, split)
    assert split.games == 600 and split.chunk == 120


@pytest.mark.slow  # for the suite's 10 minutes; the default run keeps a Ray training and match
def test_a_distributed_cubeful_match_is_the_single_process_match(local_ray):
    from gammon.eval.playing.distributed import run_distributed_match
    rules = CubeRules(jacoby=True)
    alone = run_match("pubeval", "random", 240, seed=4, chunk=80, cube=rules, progress=False)
    split = run_distributed_match("pubeval", "random", 240, seed=4, actors=3, chunk=80,
                                  cube=rules)
    _same_match(alone, split)
    assert split.cube.to_dict() == alone.cube.to_dict()


def test_match_with_actors_prints_what_one_process_prints(local_ray):
    args = ["match", "random", "pubeval", "--games", "400", "--seed", "9", "--json",
            "--no-progress"]
    one = gammon(*args)
    two = gammon(*args, "--actors", "2")
    assert one.returncode == 0 and two.returncode == 0, two.stderr
    a, b = json.loads(one.stdout), json.loads(two.stdout)
    for key in ("seconds", "games_per_s"):
        a.pop(key), b.pop(key)
    assert a == b


def test_chunk_seeds_make_a_random_bots_chunks_independent_of_the_others():
    # the first chunk is played as before chunks existed; a later chunk is the same
    # whether or not the chunks before it were played in the same process
    from gammon.eval.playing.match import chunk_seed
    assert chunk_seed(123, 0) == 123
    assert len({chunk_seed(123, k) for k in range(50)}) == 50


# --- self-play actors -------------------------------------------------------------------------

def _payload(hidden=(8,)):
    from gammon.model import checkpoint as ckpt
    from gammon.model.net import ValueNet
    return ckpt.model_payload(ValueNet(198, hidden), "classic", "standard")


def test_an_actor_plays_whole_games_with_the_weights_it_is_sent():
    from gammon.train.actors import SelfPlayActor
    actor = SelfPlayActor(_payload(), parallel_games=16, seed=3)
    batch, version = actor.play(20)
    assert version == 0 and len(batch.lengths) >= 20
    assert batch.states.shape[0] == len(batch.lengths) and batch.states.dtype == np.int8
    assert set(np.unique(batch.points)) <= {1, 2, 3}
    # every game starts from the start position, seen by the player on roll
    from gammon.engine.rules import start_boards
    assert np.array_equal(batch.states[:, 0], np.repeat(start_boards(1), len(batch.lengths), 0))
    new = _payload()
    new["state_dict"] = {k: v + 0.5 for k, v in new["state_dict"].items()}
    _, version = actor.play(1, 7, new)
    assert version == 7
    assert all(np.allclose(v.numpy(), new["state_dict"][k].numpy())
               for k, v in actor.net.state_dict().items())


def test_the_learner_values_actor_games_with_its_own_network(tmp_path):
    """The values behind the targets are the learner's, not those the actor played with."""
    from gammon.train.actors import SelfPlayActor
    from gammon.train.config import load
    from gammon.train.trainer import Trainer
    toml = tmp_path / "small.toml"
    toml.write_text(SMALL)
    trainer = Trainer(load(toml), tmp_path / "run")
    batch, _ = SelfPlayActor(_payload((16,)), parallel_games=8, seed=1).play(8)
    finished = trainer._valued(batch)
    m, t = 0, int(batch.lengths[0]) - 1
    expected = trainer.evaluator(batch.states[m, t][None])[0]
    assert np.allclose(finished.values[m, t], expected)
    padding = np.arange(batch.states.shape[1])[None, :] >= batch.lengths[:, None]  # (M, T)
    assert padding.any() and np.all(finished.values[padding] == 0)
    assert np.all(finished.values[:, 0] == 0)  # never used: not computed


@pytest.mark.slow  # for the suite's 10 minutes; the default run keeps a Ray training and match
def test_a_killed_actor_is_replaced_and_the_games_go_on(local_ray):
    from gammon.train.actors import ActorPool
    lines = []
    pool = ActorPool(2, _payload(), parallel_games=16, seed=2, games=16, log=lines.append)
    try:
        deadline = time.monotonic() + 120
        while pool.next_games(timeout=10) is None:  # both actors up and playing
            assert time.monotonic() < deadline
        victim = pool.pids()[0]
        os.kill(victim, signal.SIGKILL)
        got, deadline = 0, time.monotonic() + 120
        while got < 4 and time.monotonic() < deadline:
            if pool.next_games(timeout=10) is not None:
                got += 1
        assert got >= 4
        assert any("died" in line for line in lines), lines
        assert len(pool.actors) == 2 and victim not in pool.pids()
    finally:
        pool.close()


def test_training_on_actors_that_cannot_go_on_saves_a_checkpoint(tmp_path, monkeypatch):
    from gammon.train.actors import ActorError
    from gammon.train.config import load
    from gammon.train.trainer import Trainer
    toml = tmp_path / "small.toml"
    toml.write_text(SMALL)
    trainer = Trainer(load(toml), tmp_path / "run", log=lambda text: None)

    class Dying:
        def next_games(self, timeout=None):
            raise ActorError("self-play actors keep dying; stopping")

        def close(self):
            pass

    trainer.pool = Dying()
    with pytest.raises(ActorError):
        trainer.run()
    assert (tmp_path / "run" / "checkpoint.pt").is_file()
    assert trainer.pool is None


def test_gammon_train_with_two_actors_trains_and_resumes(tmp_path, local_ray):
    """A real run on 2 actors of the local Ray instance, a checkpoint, a resume."""
    toml = tmp_path / "small.toml"
    toml.write_text(SMALL)
    run = gammon("train", "--config", toml, "--out", tmp_path / "run", "--actors", 2,
                 "--no-progress")
    assert run.returncode == 0, run.stderr[-2000:]
    assert "self-play on 2 Ray actors" in run.stderr
    from gammon.model import checkpoint as ckpt
    state = ckpt.load(tmp_path / "run" / "checkpoint.pt")
    assert json.loads(state["counters"])["games"] >= 200
    assert (tmp_path / "run" / "model.pt").is_file()
    more = gammon("train", "--resume", tmp_path / "run" / "checkpoint.pt", "--games", 300,
                  "--actors", 2, "--no-progress")
    assert more.returncode == 0, more.stderr[-2000:]
    state = ckpt.load(tmp_path / "run" / "checkpoint.pt")
    assert json.loads(state["counters"])["games"] >= 300


# --- bad input ----------------------------------------------------------------------------

@pytest.mark.parametrize("command", [["train"], ["match", "pubeval", "random", "--games", "20"]])
@pytest.mark.parametrize("flags, words", [
    (["--actors", "0"], "--actors must be 1..4096"),
    (["--actors", "-1"], "--actors must be 1..4096"),
    (["--actors", "2", "--ray-address", "127.0.0.1:9"], "cannot reach the Ray cluster"),
    (["--actors", "2", "--ray-address", "nowhere"], "--ray-address must be HOST:PORT"),
    (["--ray-address", "127.0.0.1:9"], "add --actors"),
])
def test_bad_actor_options_are_one_line_errors_and_write_nothing(tmp_path, command, flags,
                                                                 words):
    out = tmp_path / "run"
    extra = ["--out", str(out)] if command == ["train"] else []
    r = gammon(*command, *extra, *flags)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and words in r.stderr, r.stderr
    assert not out.exists()


@pytest.mark.parametrize("flags, words", [
    (["--actor-device", "cpu"], "--actor-device is for self-play actors; add --actors"),
    (["--actors", "2", "--actor-device", "gpu"], "invalid choice"),
])
def test_bad_actor_devices_are_one_line_errors(tmp_path, flags, words):
    r = gammon("train", "--out", tmp_path / "run", *flags)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and words in r.stderr, r.stderr
    assert not (tmp_path / "run").exists()


def test_actors_without_ray_say_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails as if not installed
    for args in (["train", "--out", str(tmp_path / "run"), "--actors", "2"],
                 ["match", "pubeval", "random", "--games", "20", "--actors", "2"]):
        r = gammon(*args)
        assert r.returncode == 2 and r.stderr.count("\n") == 1
        assert "pip install -e '.[ray]'" in r.stderr
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_the_scaling_benchmark_measures_and_projects():
    from gammon.train.bench.scale import main
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--seconds", "4", "--parallel", "32", "--hidden", "8", "--repeats", "2",
                     "--json"]) == 0
    result = json.loads(out.getvalue())
    assert result["actors_1_games_per_s"] > 0 and result["actors_2_games_per_s"] > 0
    assert len(result["pairs"]) == 2 and result["ratio_2_to_1"] in [
        pair["ratio_2_to_1"] for pair in result["pairs"]]
    assert [row["actors"] for row in result["projection"]] == [1, 2, 8, 32, 100]
    assert result["learner"]["broadcast_bytes"] > 0
