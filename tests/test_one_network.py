"""One network, whatever its shape: a net of two hidden layers of 256 units trains by TD
and by the second stage, exports to a bot file and to ONNX, and torch, the bot file and
ONNX agree within 1e-5 on the positions of every phase (contact, crashed, race), with no
code written for that shape: a recipe's ``hidden = [256, 256]`` is all it takes."""

from __future__ import annotations

import numpy as np
import pytest
import torch

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from gammon.model import checkpoint as ckpt  # noqa: E402
from gammon.model.encoding import width  # noqa: E402
from gammon.model.export import export_checkpoint  # noqa: E402
from gammon.model.net import ValueNet  # noqa: E402
from gammon.model.numpy_net import load_bot_file  # noqa: E402
from gammon.model.onnx_net import load_onnx_bot  # noqa: E402
from gammon.model.policy import NetEvaluator  # noqa: E402
from gammon.train.config import Config  # noqa: E402
from gammon.train.stage2 import run_stage2  # noqa: E402
from gammon.train.trainer import Trainer  # noqa: E402

HIDDEN = (256, 256)
TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A run of both stages in one recipe: 64 TD games of a classic main net and an
    advanced race net, both HIDDEN; then one generation of the second stage (40 positions
    of the net's games rolled out, then learnt), which adds a crashed net. The TD stage's
    model file and the run's last one."""
    out = tmp_path_factory.mktemp("run")
    config = Config().with_overrides(
        model={"hidden": HIDDEN, "race_hidden": HIDDEN, "race_encoding": "advanced"},
        train={"games": 64, "parallel_games": 32, "update_every": 512, "batch_size": 64,
               "threads": 1, "seed": 3},
        eval={"every_games": 0}, run={"out": str(out), "checkpoint_every_games": 0},
        stage2={"generations": 1, "positions": 40, "trials": 4, "truncate": 1,
                "opponent": "", "epochs": 2, "batch_size": 16, "patience": 2})
    quiet = lambda text: None  # noqa: E731
    Trainer(config, out, log=quiet).run()
    td = out / "td.pt"
    td.write_bytes((out / "model.pt").read_bytes())
    run_stage2(config, out, log=quiet)
    return td, out / "model.pt"


def _networks(path) -> dict[str, ValueNet]:
    payload = ckpt.load(path)
    return {"main": ckpt.build_net(payload), **{name: net for name, (net, _) in
                                                ckpt.build_phases(payload).items()}}


def test_both_stages_train_every_network(trained):
    td, final = trained
    torch.manual_seed(3)  # the run's seed: its networks' first weights, main then race
    start = {"main": ValueNet(width("classic"), HIDDEN),
             "race": ValueNet(width("advanced"), HIDDEN)}
    before, after = _networks(td), _networks(final)
    assert sorted(before) == ["main", "race"] and sorted(after) == ["crashed", "main", "race"]
    assert all(net.hidden == HIDDEN for net in [*before.values(), *after.values()])
    for name in ("main", "race"):  # the TD games moved them, then the second stage
        for net, earlier in ((before[name], start[name]), (after[name], before[name])):
            assert not torch.equal(net.layers[1].weight, earlier.layers[1].weight), name


def _agreement(model, tmp_path, positions) -> dict[str, dict[str, float]]:
    """The largest |difference| of the probabilities between each two of torch, the bot
    file and ONNX, by phase on ``positions`` ({phase: (boards (n, 26), dice)}): of the
    networks alone (each board by its phase's) and of the whole evaluators (bear-off
    database and sanity included)."""
    bot = load_bot_file(export_checkpoint(model, tmp_path / "bot.npz").path)
    onnx = load_onnx_bot(export_checkpoint(model, tmp_path / "bot.onnx", format="onnx").path)
    payload = ckpt.load(model)
    torch_ev = NetEvaluator(ckpt.build_net(payload), payload["model"]["encoding"],
                            "standard", phases=ckpt.build_phases(payload))
    assert bot.evaluator.net.meta["hidden"] == list(HIDDEN)
    assert {name: spec["hidden"] for name, spec in bot.evaluator.net.meta["phases"].items()} \
        == {"race": list(HIDDEN), "crashed": list(HIDDEN)}
    networks = {"torch": torch_ev.network, "bot file": bot.evaluator.net.probabilities,
                "onnx": onnx.evaluator.net.probabilities}
    evaluators = {"torch": torch_ev, "bot file": bot.evaluator, "onnx": onnx.evaluator}
    diffs = {}
    for phase, (boards, _) in positions.items():
        alone = {kind: f(boards) for kind, f in networks.items()}
        whole = {kind: f(boards) for kind, f in evaluators.items()}
        diffs[phase] = {f"{a} - {b}": float(max(np.abs(alone[a] - alone[b]).max(),
                                                np.abs(whole[a] - whole[b]).max()))
                        for a, b in (("torch", "bot file"), ("torch", "onnx"),
                                     ("bot file", "onnx"))}
    return diffs


def test_torch_the_bot_file_and_onnx_agree_on_10000_positions_of_every_phase(
        trained, phase_positions, tmp_path):
    diffs = _agreement(trained[1], tmp_path, phase_positions)
    print("max |difference| by phase:", diffs)
    assert all(d < TOLERANCE for by_kind in diffs.values() for d in by_kind.values()), diffs
