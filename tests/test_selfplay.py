"""SelfPlay as a unit: it saves and restores its own state, and its dice are its own."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gammon.model.net import ValueNet
from gammon.model.policy import NetEvaluator
from gammon.train.selfplay import SelfPlay


@pytest.fixture(scope="module")
def evaluator():
    torch.manual_seed(0)
    return NetEvaluator(ValueNet(198, (8,)))


def _run(sp: SelfPlay, evaluator, plies: int) -> list:
    out = []
    for _ in range(plies):
        done = sp.ply(evaluator.after_play)
        if done is not None:
            out.append((done.states.copy(), done.values.copy(), done.points.copy()))
    return out


def _same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(
        all(np.array_equal(x, y) for x, y in zip(p, q)) for p, q in zip(a, b))


def test_state_dict_round_trip_continues_exactly(evaluator):
    a = SelfPlay(16, np.random.default_rng(5), epsilon=0.1, ring=128)
    _run(a, evaluator, 70)
    b = SelfPlay(16, np.random.default_rng(999), epsilon=0.1, ring=128)
    b.load_state_dict(a.state_dict())
    first, second = _run(a, evaluator, 90), _run(b, evaluator, 90)
    assert first and _same(first, second)


def test_a_damaged_state_is_refused_with_the_reason():
    sp = SelfPlay(8, np.random.default_rng(1), ring=64)
    state = sp.state_dict()
    with pytest.raises(ValueError, match="lacks rng"):
        sp.load_state_dict({k: v for k, v in state.items() if k != "rng"})
    with pytest.raises(ValueError, match="boards has shape"):
        sp.load_state_dict({**state, "boards": np.zeros((3, 26), np.int8)})


def test_dice_and_minibatch_order_come_from_separate_generators(tmp_path):
    """The learner shuffling its samples more or less changes nothing in the games."""
    from gammon.train.config import Config
    from gammon.train.trainer import Trainer
    config = Config().with_overrides(
        model={"hidden": (8,)}, train={"parallel_games": 16, "device": "cpu", "seed": 3},
        eval={"every_games": 0}, run={"checkpoint_every_games": 0})
    one, two = Trainer(config, tmp_path / "one"), Trainer(config, tmp_path / "two")
    assert one.rng is not one.selfplay.rng
    first = []
    second = []
    for _ in range(150):
        two.rng.permutation(1000)  # a learner shuffling its samples in between
        for trainer, out in ((one, first), (two, second)):
            done = trainer.selfplay.ply(trainer.evaluator.after_play)
            if done is not None:
                out.append((done.states.copy(), done.values.copy(), done.points.copy()))
    assert first and _same(first, second)
