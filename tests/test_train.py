"""Training: configs, a short run, exact resume, clean Ctrl-C, and errors that name things."""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from gammon.model.encoding import encoder
from gammon.train.config import Config, ConfigError, from_dict, load
from gammon.train.run_state import resume_payload
from gammon.train.step import FUSED_ADAM
from gammon.train.trainer import Trainer

ROOT = Path(__file__).resolve().parent.parent
GAMMON = [sys.executable, "-m", "gammon.cli"]


def small(games, **train):
    return Config().with_overrides(
        model={"hidden": (16,)},
        train={"games": games, "parallel_games": 32, "update_every": 512, "batch_size": 64,
               "threads": 1, "seed": 5, **train},
        eval={"every_games": 0}, run={"checkpoint_every_games": 0})


def test_presets_load():
    for name, encoding in (("default", "classic"), ("classic", "classic"),
                           ("strong", "advanced")):
        config = load(ROOT / "configs" / f"{name}.toml")
        assert config.model.encoding == encoding and config.train.games > 0
    assert load(ROOT / "configs" / "strong.toml").model.race_hidden == (64,)
    # the 1-ply experiment starts from the TD net (shipped when it ran), both its networks
    finetune = load(ROOT / "configs" / "one_ply_finetune.toml")
    assert finetune.model.init == "checkpoints/td-2026.pt"
    assert finetune.train.one_ply_share == 1.0 and finetune.model.race_hidden == (64,)


@pytest.mark.parametrize("data, message", [
    ({"train": {"gmes": 3}}, "unknown key train.gmes"),
    ({"train": {"games": "many"}}, "train.games: expected a whole number"),
    ({"model": {"hidden": [80, 0]}}, "model.hidden"),
    ({"model": {"encoding": "onehot"}}, "model.encoding"),
    ({"training": {}}, "unknown section"),
    ({"train": {"lam": 1.5}}, "train.lam"),
])
def test_bad_config_names_the_key(data, message):
    with pytest.raises(ConfigError, match=message):
        from_dict(data)


def test_short_run_learns_something_and_writes_its_files(tmp_path):
    trainer = Trainer(small(200), tmp_path)
    before = [p.detach().clone() for p in trainer.net.parameters()]
    counters = trainer.run()
    assert counters.games >= 200 and counters.updates > 0
    assert any(not torch.equal(a, b) for a, b in zip(before, trainer.net.parameters()))
    assert (tmp_path / "checkpoint.pt").is_file() and (tmp_path / "model.pt").is_file()


def test_resume_continues_exactly(tmp_path):
    straight = Trainer(small(300), tmp_path / "a")
    straight.run()
    first = Trainer(small(150), tmp_path / "b")
    first.run()
    config, payload = resume_payload(tmp_path / "b" / "checkpoint.pt")
    resumed = Trainer(config.with_overrides(train={"games": 300}), tmp_path / "b",
                      resume=payload)
    resumed.run()
    assert resumed.counters.games == straight.counters.games
    for a, b in zip(straight.net.state_dict().values(), resumed.net.state_dict().values()):
        assert torch.equal(a, b)


def test_evaluation_against_pubeval_is_logged(tmp_path):
    config = small(64).with_overrides(eval={"every_games": 64, "games": 20})
    trainer = Trainer(config, tmp_path)
    trainer.run()
    lines = (tmp_path / "evaluations.jsonl").read_text().splitlines()
    result = json.loads(lines[-1])
    assert result["games"] == 20 and 0 <= result["win_rate"] <= 1


def test_ctrl_c_saves_and_exits_cleanly(tmp_path):
    toml = tmp_path / "long.toml"
    toml.write_text('[model]\nhidden = [16]\n[train]\ngames = 10000000\nparallel_games = 32\n'
                    'threads = 1\n[eval]\nevery_games = 0\n')
    proc = subprocess.Popen(GAMMON + ["train", "--config", str(toml), "--out",
                                      str(tmp_path / "run"), "--no-progress"],
                            stderr=subprocess.PIPE, text=True)
    # the "training ..." line comes just before the run installs its handlers; a fixed
    # sleep alone could signal a process still importing torch on a busy machine
    assert proc.stderr.readline().startswith("training"), proc.stderr.read()
    time.sleep(3)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "checkpoint saved" in err
    config, payload = resume_payload(tmp_path / "run" / "checkpoint.pt")
    assert config.train.games == 10000000


def test_cli_errors_name_the_file_or_key(tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"\x00" * 100)
    out = subprocess.run(GAMMON + ["train", "--resume", str(bad)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and str(bad) in out.stderr and "Traceback" not in out.stderr
    toml = tmp_path / "typo.toml"
    toml.write_text("[train]\nlearning_rte = 0.1\n")
    out = subprocess.run(GAMMON + ["train", "--config", str(toml)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and "train.learning_rte" in out.stderr
    model = tmp_path / "model.pt"
    trainer = Trainer(small(40), tmp_path)
    trainer.run()
    out = subprocess.run(GAMMON + ["train", "--resume", str(model)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and "not a run checkpoint" in out.stderr


def test_step_size_halves_on_schedule(tmp_path):
    trainer = Trainer(small(10, learning_rate=0.01, lr_halving_games=100, lr_min=0.001),
                      tmp_path)
    assert trainer.learning_rate() == pytest.approx(0.01)
    trainer.counters.games = 200
    assert trainer.learning_rate() == pytest.approx(0.0025)
    trainer.counters.games = 10_000
    assert trainer.learning_rate() == pytest.approx(0.001)
    constant = Trainer(small(10, learning_rate=0.01), tmp_path / "c")
    constant.counters.games = 10_000
    assert constant.learning_rate() == pytest.approx(0.01)


def test_built_in_defaults_are_the_default_preset():
    assert load(ROOT / "configs" / "default.toml") == Config()


def test_races_the_bear_off_database_settles_are_no_training_samples(tmp_path):
    """Hypergammon games reach races with every checker home quickly: those states are
    valued by the database, never trained on, and the states before them learn from it."""
    from gammon.engine.bearoff import all_home
    trainer = Trainer(small(64, variant="hypergammon", update_every=10 ** 6), tmp_path)
    absorbed = []
    absorb = trainer._absorb
    trainer._absorb = lambda finished: absorbed.append(finished) or absorb(finished)
    trainer.run()
    played = np.concatenate([f.states[np.arange(f.states.shape[1]) < f.lengths[:, None]]
                             for f in absorbed])
    assert all_home(played).sum() > 20  # the games did reach such races
    samples = np.concatenate(trainer.pending_states)
    assert len(samples) == len(played) - all_home(played).sum()
    assert not all_home(samples).any()


def test_one_ply_targets_are_the_mean_over_the_rolls_of_the_best_play(tmp_path):
    """With train.one_ply_share = 1 every target is the position's 1-ply value: for each of
    the 21 rolls the best play by the network (after_play), weighted by the roll's chance."""
    from gammon.engine.dice import ROLL_WEIGHTS, ROLLS
    from gammon.engine.movegen import legal_plays
    from gammon.engine.outcomes import equity
    trainer = Trainer(small(40, one_ply_share=1.0, update_every=10 ** 6), tmp_path)
    trainer.run()
    states = np.concatenate(trainer.pending_states)
    targets = np.concatenate(trainer.pending_targets)
    for i in np.random.default_rng(0).choice(len(states), 5, replace=False):
        expected = np.zeros(6)
        for (d1, d2), weight in zip(ROLLS, ROLL_WEIGHTS):
            plays = legal_plays(states[i:i + 1], np.array([[d1, d2]]))
            probs = trainer.evaluator.after_play(plays.boards)
            expected += weight * probs[np.argmax(equity(probs))]
        np.testing.assert_allclose(targets[i], expected, atol=1e-5)


def _reference_update(trainer) -> None:
    """The minibatch step written plainly, as training first did it: each minibatch's
    positions gathered one minibatch at a time, Adam one parameter tensor at a time."""
    t = trainer.config.train
    for group in trainer.optimizer.param_groups:
        group["lr"] = trainer.learning_rate()
    states = np.concatenate(trainer.pending_states)
    targets = torch.from_numpy(np.concatenate(trainer.pending_targets))
    trainer.pending_states, trainer.pending_targets = [], []
    nets = [(net, torch.from_numpy(encoder(encoding)(states[take], trainer.checkers)),
             np.where(take, np.cumsum(take) - 1, -1))
            for net, encoding, take in trainer._networks_of(states)]
    order = trainer.rng.permutation(len(states))
    for start in range(0, len(states), t.batch_size):
        batch = order[start:start + t.batch_size]
        loss = 0.0
        for net, x, row in nets:
            mine = batch[row[batch] >= 0]
            if len(mine):
                logits = net(x[torch.from_numpy(row[mine])])
                loss = loss - (targets[torch.from_numpy(mine)] *
                               torch.log_softmax(logits, dim=-1)).sum()
        loss = loss / len(batch)
        trainer.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        trainer.optimizer.step()


@pytest.mark.parametrize("step, hidden, race_hidden", [
    ("fused", (16,), ()), ("fused", (16,), (16,)), ("autograd", (16,), (16,)),
    ("fused", (12, 8), (8, 6)), ("autograd", (12, 8), ())])
def test_the_minibatch_step_is_the_plain_one_number_for_number(tmp_path, step, hidden,
                                                               race_hidden):
    """The update encodes each network's positions once per epoch and steps without
    autograd (train/step.py's FlatStep, for speed) or with it (``train.step =
    "autograd"``); the weights after it equal, bit for bit, those of the plain loop over
    minibatches with autograd and torch's Adam (fused where torch has it), with one network
    and with a race net, of one hidden layer and of two."""
    def trainer(out, step="fused"):
        config = small(160, parallel_games=32, update_every=1024, batch_size=100,
                       step=step).with_overrides(
            model={"hidden": hidden, "race_hidden": race_hidden, "race_encoding": "classic"})
        return Trainer(config, tmp_path / out, log=lambda text: None)
    fast, plain = trainer("fast", step), trainer("plain")
    plain.optimizer = torch.optim.Adam(plain.optimizer.param_groups[0]["params"],
                                       lr=plain.config.train.learning_rate,
                                       fused=FUSED_ADAM or None,
                                       foreach=False if not FUSED_ADAM else None)
    plain._update = lambda: _reference_update(plain) or 0.0
    nets = lambda tr: [tr.net, *(net for net, _ in tr.phases.values())]  # noqa: E731
    before = [{k: v.clone() for k, v in net.state_dict().items()} for net in nets(fast)]
    fast.run()
    plain.run()
    assert fast.counters.updates > 20
    for net, start in zip(nets(fast), before):  # every network learned something
        assert not torch.equal(net.state_dict()["out.weight"], start["out.weight"])
    for a, b in zip(nets(fast), nets(plain)):
        for (name, x), (_, y) in zip(a.state_dict().items(), b.state_dict().items()):
            assert torch.equal(x, y), name
