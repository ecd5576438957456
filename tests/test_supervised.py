"""The trainer's second stage: networks learn rollout targets (cross-entropy on the six
outcomes, Adam, early stopping on the validation loss), deterministically."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from gammon.engine.phase import CRASHED, RACE, classify
from gammon.model import checkpoint as ckpt
from gammon.model.net import ValueNet
from gammon.model.policy import NetEvaluator
from gammon.train import rollout_data as rd
from gammon.train.rollout_positions import phase_of
from gammon.train.supervised import (FitSettings, StageError, cross_entropy, soft_targets,
                              supervise)


@pytest.fixture(scope="module")
def teacher_data(tmp_path_factory):
    """A dataset whose targets are a fixed random 'teacher' network's outcomes, and a
    different start net: the student must move towards the teacher."""
    tmp = tmp_path_factory.mktemp("stage2")
    torch.manual_seed(7)
    teacher = NetEvaluator(ValueNet(198, (12,)).eval())
    boards = _positions(tmp)
    targets = teacher(boards).astype(np.float32)
    phase = phase_of(boards)
    path = tmp / "data.gdr"
    rd.create(path, {"kind": "test", "settings": {}, "net_sha256": "0" * 64})
    with rd.Writer(path) as w:
        w.append(boards, targets, np.full(len(boards), 0.01, np.float32),
                 np.full(len(boards), 36, np.int32), phase,
                 rd.validation_split(boards, 0.2))
    torch.manual_seed(8)
    start = tmp / "start.pt"
    ckpt.save(start, ckpt.model_payload(ValueNet(198, (12,)), "classic", "standard",
                                        {"race": (ValueNet(198, (6,)), "classic")}))
    return tmp, path, start, boards, targets


def _positions(tmp) -> np.ndarray:
    from gammon.train.rollout_positions import candidate_positions
    from gammon.eval.bots.registry import make_bot
    rng = np.random.default_rng(3)
    pool = candidate_positions(make_bot("pubeval"), 64, rng, 0.0, 0.0, (), 0.0, "standard")
    return pool[:3000]


def test_soft_targets_and_the_loss():
    t = soft_targets(np.array([[0.5, 0.5, -0.01, 0.01, 0, 0], [0, 0, 0, 0, 0, 0]]))
    assert np.allclose(t.sum(axis=1), [1, 0]) and (t >= 0).all()
    y = torch.tensor([[0.0, 0, 1, 0, 0, 0]])
    # the loss of a sure outcome is -log of its probability
    logits = torch.zeros(1, 6)
    assert float(cross_entropy(logits, y)) == pytest.approx(np.log(6))


def test_stage_two_learns_the_targets_and_is_repeatable(teacher_data, tmp_path):
    tmp, data, start, boards, targets = teacher_data
    settings = FitSettings(epochs=6, batch_size=64, learning_rate=0.003, patience=3)
    one = supervise(start, [data], tmp_path / "one", settings)
    for name in ("main", "race"):
        net = one["networks"][name]
        assert net["trained"] and net["validation_loss"] < net["start_validation_loss"]
    crashed = one["networks"]["crashed"]
    assert crashed["train_rows"] == int(((rd.open_data(data).phase == 1)
                                         & (rd.open_data(data).split == 0)).sum())
    # the saved model holds all three networks and they are those of the best epoch
    payload = ckpt.load(tmp_path / "one" / "model.pt")
    assert sorted(payload["phases"]) == ["crashed", "race"]
    recorded = json.loads((tmp_path / "one" / "stage2.json").read_text())
    assert recorded["networks"]["main"]["validation_loss"] == one["networks"]["main"][
        "validation_loss"]
    lines = [json.loads(x) for x in (tmp_path / "one" / "stage2.jsonl").read_text().splitlines()]
    best = min(x["validation_loss"] for x in lines if x["network"] == "main")
    assert best == pytest.approx(one["networks"]["main"]["validation_loss"])
    # the same data and settings: the same validation loss and weights, bit for bit
    two = supervise(start, [data], tmp_path / "two", settings)
    assert two["networks"] == one["networks"]
    a = ckpt.load(tmp_path / "one" / "model.pt")["state_dict"]
    b = ckpt.load(tmp_path / "two" / "model.pt")["state_dict"]
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_the_trained_model_sends_each_phase_to_its_network(teacher_data, tmp_path):
    tmp, data, start, boards, _ = teacher_data
    supervise(start, [data], tmp_path / "m", FitSettings(epochs=1, batch_size=256))
    from gammon.model.player import load_net_bot
    evaluator = load_net_bot(str(tmp_path / "m" / "model.pt")).evaluator
    assert sorted(evaluator.phases) == ["crashed", "race"]
    phase = classify(boards, crashed=True)
    assert (phase == CRASHED).any() and (phase == RACE).any()
    crashed_net = evaluator.phases["crashed"][0]
    rows = boards[phase == CRASHED][:5]
    alone = NetEvaluator(crashed_net).network(rows)
    np.testing.assert_array_equal(evaluator.network(rows), alone)


def test_bad_settings_and_files_are_one_line_errors(teacher_data, tmp_path):
    tmp, data, start, _, _ = teacher_data
    with pytest.raises(StageError, match="stage2.epochs"):
        supervise(start, [data], tmp_path / "x", FitSettings(epochs=0))
    with pytest.raises(StageError, match="stage2.learning_rate"):
        supervise(start, [data], tmp_path / "x", FitSettings(learning_rate=0.0))
    (tmp_path / "junk.pt").write_bytes(b"junk")
    with pytest.raises(StageError, match="junk.pt") as e:
        supervise(tmp_path / "junk.pt", [data], tmp_path / "x", FitSettings(epochs=1))
    assert "\n" not in str(e.value)
    (tmp_path / "junk.gdr").write_bytes(b"not a dataset at all")
    with pytest.raises(rd.DatasetError, match="junk.gdr"):
        supervise(start, [tmp_path / "junk.gdr"], tmp_path / "x", FitSettings(epochs=1))


@pytest.mark.slow
def test_the_shipped_stage2_net_is_reproduced_from_the_committed_data(tmp_path, monkeypatch):
    """The committed recipe on the committed datasets: the recorded validation losses
    (checkpoints/stage2-gen1.json) again, and the same weights as the shipped net."""
    from pathlib import Path
    from gammon.train.config import load
    from gammon.train.stage2 import fit_settings, given_data
    root = Path(__file__).resolve().parents[1]
    recorded = json.loads((root / "checkpoints" / "stage2-gen1.json").read_text())
    config = load(root / "configs" / "stage2.toml")
    monkeypatch.chdir(root)  # the recipe's paths are relative to the repository
    got = supervise(config.model.init, given_data(config.stage2.data), tmp_path,
                    fit_settings(config, 1))
    for name, net in recorded["networks"].items():
        assert got["networks"][name]["validation_loss"] == net["validation_loss"], name
    a = ckpt.load(root / "checkpoints" / "stage2-gen1.pt")["state_dict"]
    b = ckpt.load(tmp_path / "model.pt")["state_dict"]
    assert all(torch.equal(a[k], b[k]) for k in a)
