"""``train.widen``: a model file's contact networks made wider compute exactly what they did
(the new hidden units' outgoing weights are zero), so a wider net can start where the
trained one stands (issue 37, point 4); and the command's one-line refusals."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch

from gammon.engine.phase import CONTACT, CRASHED, RACE, classify
from gammon.eval.bots.registry import make_bot
from gammon.model import checkpoint as ckpt
from gammon.model.net import ValueNet
from gammon.train.widen import widen_file, widen_net

SHIPPED = "checkpoints/expert-gen3.pt"


def positions(n: int = 3000) -> np.ndarray:
    from gammon.engine.sample import from_random_play
    boards, _ = from_random_play(np.random.default_rng(4), n // 40)
    return boards


def test_a_widened_net_computes_what_it_did():
    torch.manual_seed(0)
    net = ValueNet(198, (16,))
    wide = widen_net(net, 40, scale=0.5, generator=torch.Generator().manual_seed(1))
    assert wide.hidden == (40,)
    x = torch.rand(500, 198)
    with torch.no_grad():
        assert torch.allclose(wide(x), net(x), atol=1e-5)
    # the new units are there and learn: their outgoing weights get gradients at once
    loss = wide(x).logsumexp(dim=-1).mean()
    loss.backward()
    assert wide.out.weight.grad[:, 16:].abs().sum() > 0
    with pytest.raises(ValueError, match="narrower"):
        widen_net(net, 8)
    with pytest.raises(ValueError, match="one hidden layer"):
        widen_net(ValueNet(198, (8, 8)), 16)


def test_a_widened_file_plays_as_the_file(tmp_path):
    out = tmp_path / "wide.pt"
    sizes = widen_file(SHIPPED, out, 200)
    assert sizes == {"main": [200], "race": [64], "crashed": [200]}
    payload = ckpt.load(out)
    assert payload["model"]["hidden"] == [200]
    boards = positions()
    phases = classify(boards, crashed=True)
    assert {CONTACT, CRASHED, RACE} <= set(np.unique(phases).tolist())
    before = make_bot(f"net:{SHIPPED}").evaluator(boards)
    after = make_bot(f"net:{out}").evaluator(boards)
    assert np.allclose(after, before, atol=1e-5)
    # only the race network kept its width: --phases says which
    sizes = widen_file(SHIPPED, out, 200, phases=("race",))
    assert sizes == {"main": [128], "race": [200], "crashed": [128]}


@pytest.mark.parametrize("args, says", [
    (["--net", "nowhere.pt", "--hidden", "256"], "nowhere.pt"),
    (["--net", SHIPPED, "--hidden", "64"], "narrower"),
    (["--net", SHIPPED, "--hidden", "256", "--phases", "bear"], "no phase 'bear'"),
])
def test_the_command_refuses_in_one_line(tmp_path, args, says):
    out = tmp_path / "w.pt"
    done = subprocess.run([sys.executable, "-m", "gammon.train.widen", *args, "--out", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 2 and not out.exists()
    assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr
