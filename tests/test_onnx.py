"""ONNX bot files: ``gammon export --format onnx`` and ``net:FILE.onnx``.

The exported networks give torch's outputs within 1e-5 on 10,000 self-play positions of
each phase (contact, crashed, race), the ONNX bot chooses the torch bot's plays on 2,000
positions with random dice, the metadata says what the graph is, a variant's net exports
and matches too, the documented example runs, and bad input gets one line.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")

from gammon.engine.movegen import legal_plays  # noqa: E402
from gammon.engine.phase import classify, is_crashed  # noqa: E402
from gammon.engine.rules import start_boards  # noqa: E402
from gammon.engine.sample import from_random_play  # noqa: E402
from gammon.eval.bots.registry import make_bot  # noqa: E402
from gammon.model import checkpoint as ckpt  # noqa: E402
from gammon.model.botfile import BotFileError  # noqa: E402
from gammon.model.encoding import encoder, fold_bomb, width  # noqa: E402
from gammon.model.export import export_checkpoint  # noqa: E402
from gammon.model.net import ValueNet  # noqa: E402
from gammon.model.onnx_net import FORMAT, load_onnx_bot, open_session  # noqa: E402
from gammon.model.player import load_net_bot, shipped  # noqa: E402
from gammon.model.policy import NetEvaluator  # noqa: E402
from gammon.train.rollout_positions import PHASES  # noqa: E402

from inprocess import gammon  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PER_PHASE = 10_000
PLAYS = 2_000
TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def positions(phase_positions):
    """10,000 positions of each phase (conftest's ``phase_positions``)."""
    assert all(len(boards) == PER_PHASE for boards, _ in phase_positions.values())
    return phase_positions


@pytest.fixture(scope="module")
def default_onnx(tmp_path_factory):
    out = tmp_path_factory.mktemp("onnx") / "default.onnx"
    report = export_checkpoint(shipped(), out, check_games=1, format="onnx")
    assert report.max_abs_diff < TOLERANCE
    return out


def _torch_evaluator(path) -> NetEvaluator:
    payload = ckpt.load(path)
    spec = payload["model"]
    return NetEvaluator(ckpt.build_net(payload, path), spec["encoding"], spec["variant"],
                        phases=ckpt.build_phases(payload, path))


def _compare_networks(onnx_path, torch_path, positions) -> dict[str, float]:
    """The largest |ONNX - torch| of the networks alone (each board by its phase's), and
    of the whole evaluators (bear-off database and sanity included), by phase."""
    bot, evaluator = load_onnx_bot(onnx_path), _torch_evaluator(torch_path)
    diffs = {}
    for name, (boards, _) in positions.items():
        net = np.abs(bot.evaluator.net.probabilities(boards) - evaluator.network(boards))
        whole = np.abs(bot.evaluator(boards) - evaluator(boards))
        diffs[name] = float(max(net.max(), whole.max()))
    return diffs


def test_the_shipped_net_matches_torch_on_every_phase(default_onnx, positions):
    diffs = _compare_networks(default_onnx, shipped(), positions)
    print("max |onnx - torch| by phase:", diffs)
    assert all(d < TOLERANCE for d in diffs.values()), diffs
    # the race net values the races, the main net the rest (crashed included)
    session, meta = open_session(default_onnx)
    boards = positions["race"][0][:500]
    feed = {i.name: np.zeros((0, i.shape[1]), np.float32) for i in session.get_inputs()}
    feed["race_inputs"] = encoder(meta["phases"]["race"]["encoding"])(boards)
    race, = session.run(["race_probabilities"], feed)
    payload = ckpt.load(shipped())
    race_net = ckpt.build_phases(payload)["race"][0]
    with torch.no_grad():
        expected = race_net.probabilities(torch.from_numpy(feed["race_inputs"])).numpy()
    assert np.abs(race - expected).max() < TOLERANCE


def _random_net(encoding, hidden, seed, activation="sigmoid") -> ValueNet:
    torch.manual_seed(seed)
    net = ValueNet(width(encoding), hidden, activation)
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(3.0)  # spread like a trained net's
    return net.eval()


def test_a_checkpoint_with_a_crashed_net(tmp_path, positions):
    payload = ckpt.model_payload(_random_net("classic", (24,), 1), "classic", "standard", {
        "race": (_random_net("expert", (16,), 2, "tanh"), "expert"),
        "crashed": (_random_net("classic", (12, 8), 3, "relu"), "classic")})
    source = tmp_path / "three.pt"
    ckpt.save(source, payload)
    out = tmp_path / "three.onnx"
    export_checkpoint(source, out, check_games=1, format="onnx")
    _, meta = open_session(out)
    assert list(meta["phases"]) == ["race", "crashed"]
    boards = positions["crashed"][0]
    assert (classify(boards, crashed=True) == 2).all() and is_crashed(boards).all()
    diffs = _compare_networks(out, source, positions)
    print("max |onnx - torch| by phase, crashed net:", diffs)
    assert all(d < TOLERANCE for d in diffs.values()), diffs


def test_the_onnx_bot_chooses_the_torch_bots_plays(default_onnx, positions):
    """2,000 positions, a third of each phase, with their random dice: the same play, but
    where two plays tie within float32 rounding (the torch bot's equities of the two within
    1e-6: hopeless races at -2.0000, where the NumPy bot file departs from torch alike)."""
    share = [PLAYS - 2 * (PLAYS // 3), PLAYS // 3, PLAYS // 3]
    boards = np.concatenate([positions[n][0][:k] for n, k in zip(PHASES, share)])
    dice = np.concatenate([positions[n][1][:k] for n, k in zip(PHASES, share)])
    onnx_bot, torch_bot = make_bot(f"net:{default_onnx}"), make_bot("net:")
    plays = legal_plays(boards, dice)
    chosen = onnx_bot.choose(plays, boards, dice)
    expected = torch_bot.choose(plays, boards, dice)
    scores = torch_bot.scores(plays, boards, dice)
    other = np.flatnonzero(chosen != expected)
    gaps = np.abs(scores[chosen[other]] - scores[expected[other]])
    print(f"same play: {len(boards) - len(other):,} of {len(boards):,}; the others' torch "
          f"equity gaps: {gaps.tolist()}")
    assert len(boards) == PLAYS and len(other) <= PLAYS // 200
    assert (gaps < 1e-6).all(), gaps
    np.testing.assert_allclose(onnx_bot.scores(plays, boards, dice), scores,
                               atol=TOLERANCE, rtol=0)


def test_the_metadata(default_onnx):
    session = ort.InferenceSession(str(default_onnx))
    props = session.get_modelmeta().custom_metadata_map
    assert props["format"] == FORMAT and props["version"] == "1"
    # the shipped net (issue 37): contact and crashed networks of 256 units, one for races
    assert props["variant"] == "standard" and props["networks"] == "main,race,crashed"
    assert set(props["phases"].split(",")) == {"race", "crashed"}
    assert props["main.encoding"] == "advanced" and props["main.inputs"] == "232"
    assert props["main.hidden"] == props["crashed.hidden"] == "256"
    assert props["race.hidden"] == "64"
    assert props["main.activation"] == props["race.activation"] == "sigmoid"
    assert props["outputs"].split(",") == ["win_backgammon", "win_gammon", "win_single",
                                           "lose_single", "lose_gammon", "lose_backgammon"]
    assert "model.encoding" in props["input_layout"] and props["source"] == "default.pt"
    assert [(i.name, i.shape[1]) for i in session.get_inputs()] == [
        ("main_inputs", 232), ("race_inputs", 232), ("crashed_inputs", 232)]
    assert [(o.name, o.shape[1]) for o in session.get_outputs()] == [
        ("main_probabilities", 6), ("race_probabilities", 6), ("crashed_probabilities", 6)]
    assert isinstance(session.get_inputs()[0].shape[0], str)  # a dynamic batch axis
    model = onnx.load(str(default_onnx))
    onnx.checker.check_model(model)


@pytest.mark.parametrize("variant", ["plakoto", "nuclear"])
def test_a_variant_net_exports_and_matches(tmp_path, variant):
    out = tmp_path / f"{variant}.onnx"
    r = gammon("export", "--format", "onnx", "net:", out, "--variant", variant,
               "--check-games", "2")
    assert r.returncode == 0, r.stderr
    assert "(onnxruntime)" in r.stdout
    rng = np.random.default_rng(3)
    plain, dice = from_random_play(rng, 30, variant)
    plain, dice = plain[:2000], dice[:2000]
    boards = plain
    if variant == "nuclear":  # the bomb folded in: his, centred or the opponent's
        boards = fold_bomb(plain, rng.integers(-1, 2, len(plain)))
    onnx_bot = load_net_bot(str(out), variant)
    torch_bot = load_net_bot(None, variant)
    diff = np.abs(onnx_bot.evaluator(boards) - torch_bot.evaluator(boards)).max()
    print(f"{variant}: max |onnx - torch| {diff:.2e} on {len(boards):,} positions")
    assert diff < TOLERANCE, diff
    plays = legal_plays(plain[:500], dice[:500], variant)
    assert (onnx_bot.choose(plays, plain[:500], dice[:500])
            == torch_bot.choose(plays, plain[:500], dice[:500])).all()
    with pytest.raises(BotFileError, match=f"trained for '{variant}'"):
        load_net_bot(str(out), "standard")


def test_the_documented_example_runs(default_onnx, tmp_path):
    text = (ROOT / "docs" / "interfaces.md").read_text()
    section = text[text.index("## ONNX bots"):]
    code = re.search(r"```py\n(.*?)```", section, re.S).group(1)
    assert len(code.strip().splitlines()) <= 15
    assert "import torch" not in code
    (tmp_path / "strong.onnx").write_bytes(default_onnx.read_bytes())
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120, env={"PYTHONPATH": str(ROOT),
                                                      "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    start = make_bot("net:").evaluator(start_boards(1))[0]
    shown = float(run.stdout.split("cubeless equity")[1])
    assert abs(shown - start @ [3, 2, 1, -1, -2, -3]) < 1e-4
    assert run.stdout.startswith("win_backgammon ")


def test_playing_an_onnx_bot_never_imports_torch(default_onnx):
    script = f"""
import sys
from gammon.eval.bots.registry import make_bot
from gammon.eval.playing.match import run_match
bot = make_bot("net:{default_onnx}")
assert run_match(bot, "pubeval", 2, seed=1, progress=False).games == 2
assert "torch" not in sys.modules, "torch was imported"
print("ok", type(bot.evaluator.net).__name__)
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["ok", "OnnxNet"]


def _one_line_error(r, *words):
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
    for word in words:
        assert word in r.stderr, r.stderr


def test_bad_input_gets_one_line(default_onnx, tmp_path, monkeypatch):
    pos = ("choose", "4HPwATDgc/ABMA", "3", "1", "--bot")
    assert gammon(*pos, f"net:{default_onnx}").stdout.strip() == "4HPwATCwZ/ABMA"
    _one_line_error(gammon("export", "--format", "onnx", "net:", tmp_path), "a directory")
    _one_line_error(gammon("export", "--format", "onnx", "net:", tmp_path / "x.npz"),
                    "ends in .onnx")
    _one_line_error(gammon("export", "--format", "onnx", default_onnx, tmp_path / "y.onnx"),
                    "already a bot file")
    damaged = tmp_path / "damaged.onnx"
    damaged.write_bytes(default_onnx.read_bytes()[:5000])
    _one_line_error(gammon(*pos, f"net:{damaged}"), "not a readable ONNX model")
    stripped = onnx.load(str(default_onnx))
    del stripped.metadata_props[:]
    foreign = tmp_path / "foreign.onnx"
    foreign.write_bytes(stripped.SerializeToString())
    _one_line_error(gammon(*pos, f"net:{foreign}"), "not a gammon ONNX bot file")
    _one_line_error(gammon(*pos, f"net:{tmp_path / 'missing.onnx'}"), "no such ONNX bot file")
    _one_line_error(gammon(*pos, f"net:{default_onnx}@1"), "0-ply only")
    # without the packages: what to install, in one line, and nothing written
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    _one_line_error(gammon(*pos, f"net:{default_onnx}"), "pip install 'gammon[onnx]'")
    monkeypatch.setitem(sys.modules, "onnx", None)
    out = tmp_path / "never.onnx"
    _one_line_error(gammon("export", "--format", "onnx", "net:", out),
                    "pip install 'gammon[onnx]'")
    assert not out.exists()
    # the npz export is the default and needs neither
    r = gammon("export", "net:", tmp_path / "plain.npz", "--check-games", "1")
    assert r.returncode == 0, r.stderr
