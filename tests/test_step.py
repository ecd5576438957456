"""The learner's two minibatch steps (train/step.py): FlatStep, without autograd, against
AutogradStep, autograd and torch's Adam: the same weights, moments and losses, to the last
bit, with one hidden layer and two."""

import numpy as np
import pytest
import torch

from gammon.model.net import ValueNet
import gammon.train.step as step_module
from gammon.train.step import FUSED_ADAM, AutogradStep, FlatStep


def _minibatches(seed: int, count: int, features: int):
    """(shares, n) per minibatch: a share for net 0 and net 1, sometimes empty."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(rng.integers(5, 40))
        first = int(rng.integers(0, n + 1))  # net 0's positions; net 1 takes the rest
        x = torch.from_numpy(rng.random((n, features), dtype=np.float32))
        y = torch.from_numpy(rng.dirichlet(np.ones(6), n).astype(np.float32))
        shares = [(i, x[lo:hi], y[lo:hi]) for i, (lo, hi) in enumerate([(0, first), (first, n)])
                  if hi > lo]
        out.append((shares, n))
    return out


def _steps(kind, nets, optimizer, batches) -> float:
    """``batches`` through a step of ``kind`` (FlatStep or AutogradStep); its mean loss."""
    step = kind(optimizer, nets)
    step.begin()
    for shares, n in batches:
        step.step(shares, n)
    loss = step.mean_loss()
    step.end()
    return loss


@pytest.mark.parametrize("activation", ["sigmoid", "relu", "tanh"])
@pytest.mark.parametrize("hidden", [(16,), (12, 8)])
@pytest.mark.parametrize("fused", [True, False])
def test_flat_step_is_autograd_and_adam_number_for_number(activation, hidden, fused,
                                                          monkeypatch):
    """fused: torch's fused Adam kernel (torch 2.4 and later), else the arithmetic of
    its foreach Adam (what older torch gets)."""
    if fused and not FUSED_ADAM:
        pytest.skip("this torch has no fused Adam for the CPU")
    monkeypatch.setattr(step_module, "FUSED_ADAM", fused)

    def build():
        torch.manual_seed(5)
        nets = [ValueNet(10, hidden, activation), ValueNet(10, (6,), activation)]
        # (AutogradStep sets Adam's kernel: fused where FUSED_ADAM says, else one loop)
        return nets, torch.optim.Adam([p for net in nets for p in net.parameters()], lr=3e-3)
    plain_nets, plain_opt = build()
    flat_nets, flat_opt = build()
    batches = _minibatches(1, 30, 10)
    # two updates: the second starts from the moments and step counts the first wrote back
    for part in (batches[:12], batches[12:]):
        expected = _steps(AutogradStep, plain_nets, plain_opt, part)
        got = _steps(FlatStep, flat_nets, flat_opt, part)
        assert got == pytest.approx(expected, rel=1e-6)
    for a, b in zip(plain_nets, flat_nets):
        for (name, x), (_, y) in zip(a.state_dict().items(), b.state_dict().items()):
            assert torch.equal(x, y), name
    for p, q in zip(plain_opt.param_groups[0]["params"], flat_opt.param_groups[0]["params"]):
        s, t = plain_opt.state[p], flat_opt.state[q]
        assert float(s["step"]) == float(t["step"])
        assert torch.equal(s["exp_avg"], t["exp_avg"])
        assert torch.equal(s["exp_avg_sq"], t["exp_avg_sq"])
    # a net with no positions in a minibatch takes no Adam step there, as torch skips a
    # parameter without a gradient: the two nets' step counts differ
    counts = {float(flat_opt.state[p]["step"]) for p in flat_opt.param_groups[0]["params"]}
    assert len(counts) == 2


def test_flat_step_refuses_an_adam_it_does_not_do():
    net = ValueNet(4, (3,))
    step = FlatStep(torch.optim.Adam(net.parameters(), weight_decay=0.1), [net])
    with pytest.raises(ValueError, match="weight decay"):
        step.begin()


def test_a_few_rows_at_an_unaligned_offset_step_as_a_gathered_copy():
    """The trainer's shares are views into one epoch's inputs; torch's matrix kernels round
    2 or 3 rows differently when they do not start on a 64-byte boundary. The flat step
    copies such a share, so it matches autograd on the gathered (aligned) rows."""
    rng = np.random.default_rng(4)
    inputs = torch.from_numpy(rng.random((40, 198), dtype=np.float32))  # (40, 198) epoch
    targets = torch.from_numpy(rng.dirichlet(np.ones(6), 40).astype(np.float32))

    def build():
        torch.manual_seed(6)
        net = ValueNet(198, (16,))
        return net, torch.optim.Adam(net.parameters(), lr=3e-3)
    for start, rows in ((1, 2), (3, 3), (5, 2), (7, 3)):
        x, y = inputs[start:start + rows], targets[start:start + rows]
        assert x.data_ptr() % 64  # 198 floats a row: these views are unaligned
        plain, plain_opt = build()
        _steps(AutogradStep, [plain], plain_opt, [([(0, x.clone(), y)], 9)])  # gathered
        flat, flat_opt = build()
        _steps(FlatStep, [flat], flat_opt, [([(0, x, y)], 9)])
        for (name, a), (_, b) in zip(plain.state_dict().items(), flat.state_dict().items()):
            assert torch.equal(a, b), (start, rows, name)
