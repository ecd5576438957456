"""Exported bot files: the format, NumPy play identical to torch, no torch when playing."""

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from gammon.engine.movegen import legal_plays
from gammon.model import botfile
from gammon.model import checkpoint as ckpt
from gammon.model.encoding import width
from gammon.model.export import export_checkpoint, export_net
from gammon.engine.outcomes import equity
from gammon.model.net import ValueNet, equity as torch_equity
from gammon.model.numpy_net import load_bot_file
from gammon.model.player import load_net_bot
from gammon.model.policy import NetEvaluator, NetPolicy

ROOT = Path(__file__).resolve().parent.parent


def _net(encoding="classic", hidden=(40,), activation="sigmoid", seed=0) -> ValueNet:
    """A network with weights spread wider than at initialisation, like a trained one."""
    torch.manual_seed(seed)
    net = ValueNet(width(encoding), hidden, activation)
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(3.0)
    return net.eval()


def _checkpoint(tmp_path, net, encoding="classic", variant="standard", name="model.pt"):
    path = tmp_path / name
    ckpt.save(path, ckpt.model_payload(net, encoding, variant))
    return path


def test_outcome_points_agree_with_the_torch_model():
    """One table of outcome points (engine.outcomes) serves arrays and tensors alike."""
    p = np.random.default_rng(0).dirichlet(np.ones(6), size=5)
    np.testing.assert_allclose(torch_equity(torch.from_numpy(p)).numpy(), equity(p))
    assert equity(np.eye(6)).tolist() == [3, 2, 1, -1, -2, -3]


@pytest.mark.parametrize("encoding, hidden, activation", [
    ("classic", (40,), "sigmoid"), ("classic", (24, 12), "relu"), ("expert", (16,), "tanh")])
def test_exported_bot_chooses_as_torch_on_the_corpus(tmp_path, corpus, encoding, hidden,
                                                      activation):
    """Every corpus position (1,200: standard, nackgammon, hypergammon): the same choice,
    equities within 1e-5."""
    net = _net(encoding, hidden, activation)
    same = total = 0
    for variants, trained_for in ((("standard", "nackgammon"), "standard"),
                                  (("hypergammon",), "hypergammon")):
        cases = [c for c in corpus if c["variant"] in variants]
        boards = np.array([c["board28"][:26] for c in cases], dtype=np.int8)
        dice = np.array([[c["d1"], c["d2"]] for c in cases])
        out = tmp_path / f"{trained_for}.npz"
        export_net(net, encoding, trained_for, out)
        numpy_bot = load_net_bot(str(out), variant=trained_for)
        torch_bot = NetPolicy(NetEvaluator(net, encoding, trained_for))
        plays = legal_plays(boards, dice)
        np.testing.assert_allclose(numpy_bot.scores(plays, boards, dice),
                                   torch_bot.scores(plays, boards, dice), atol=1e-5, rtol=0)
        chosen_np = numpy_bot.choose(plays, boards, dice)
        chosen_torch = torch_bot.choose(plays, boards, dice)
        same += int((chosen_np == chosen_torch).sum())
        total += len(boards)
    assert total == len(corpus) >= 1000
    assert same == total


def test_export_command_writes_a_checked_file(tmp_path):
    path = _checkpoint(tmp_path, _net())
    out = tmp_path / "bot.npz"
    run = subprocess.run([sys.executable, "-m", "gammon.cli", "export", str(path), str(out),
                          "--check-games", "2", "--json"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["bytes"] == out.stat().st_size
    assert report["positions_checked"] > 100 and report["max_abs_diff"] < 1e-5
    assert report["meta"]["format"] == "gammon-bot" and report["meta"]["hidden"] == [40]
    bad = subprocess.run([sys.executable, "-m", "gammon.cli", "export",
                          str(tmp_path / "missing.pt"), str(out)],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert bad.returncode == 2 and "no such checkpoint" in bad.stderr


def test_the_file_is_plain_npz_with_json_metadata(tmp_path):
    out = tmp_path / "bot.npz"
    report = export_checkpoint(_checkpoint(tmp_path, _net(hidden=(8,))), out, check_games=1)
    assert report.max_abs_diff < 1e-5
    with np.load(out, allow_pickle=False) as z:
        assert sorted(z.files) == ["layer0.bias", "layer0.weight", "meta", "out.bias",
                                   "out.weight"]
        meta = json.loads(z["meta"].tobytes().decode())
        assert z["layer0.weight"].dtype == np.float32
    assert meta["format"] == "gammon-bot" and meta["version"] == 1
    assert meta["encoding"] == "classic" and meta["inputs"] == 198
    assert meta["activation"] == "sigmoid" and meta["variant"] == "standard"
    assert meta["outputs"][0] == "win_backgammon" and len(meta["outputs"]) == 6
    assert botfile.is_bot_file(out)
    assert not botfile.is_bot_file(tmp_path / "model.pt")  # a torch zip is not a bot file


def test_loading_and_playing_a_bot_file_never_imports_torch(tmp_path):
    out = tmp_path / "bot.npz"
    export_net(_net(hidden=(8,)), "classic", "standard", out)
    script = f"""
import sys
import numpy as np
from gammon.eval.bots.registry import make_bot
from gammon.eval.playing.match import run_match
bot = make_bot("net:{out}")
result = run_match(bot, "pubeval", 4, seed=1, progress=False)
assert result.games == 4
assert "torch" not in sys.modules, "torch was imported"
print("ok", type(bot).__name__)
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["ok", "NumpyNetBot"]


def test_bad_bot_files_are_refused_with_the_reason(tmp_path):
    out = tmp_path / "bot.npz"
    export_net(_net(hidden=(8,)), "classic", "standard", out)
    data = out.read_bytes()
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(data[:len(data) // 2])
    with pytest.raises(botfile.BotFileError, match="not a readable bot file"):
        botfile.read(truncated)
    meta, arrays = botfile.read(out)
    wrong = tmp_path / "wrong.npz"
    np.savez(wrong, meta=np.frombuffer(json.dumps({**meta, "version": 9}).encode(), np.uint8),
             **arrays)
    with pytest.raises(botfile.BotFileError, match="version 9"):
        botfile.read(wrong)
    arrays["out.bias"] = np.zeros(5, np.float32)
    with pytest.raises(botfile.BotFileError, match="out.bias has shape"):
        botfile.write(tmp_path / "bad.npz", meta, arrays)
    with pytest.raises(botfile.BotFileError, match="trained for 'standard'"):
        load_bot_file(out, variant="hypergammon")
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, meta=np.array([{"format": "gammon-bot"}], dtype=object))
    with pytest.raises(botfile.BotFileError, match="not a readable bot file"):
        botfile.read(pickled)
    with zipfile.ZipFile(out) as z:
        assert all(name.endswith(".npy") for name in z.namelist())


def test_export_takes_net_names_and_bare_paths(tmp_path, capsys):
    """``net:`` (the shipped model), ``net:PATH`` and ``PATH`` alike, as wherever a bot is
    named; a bot file, a missing file or the checkpoint itself as OUT are refused."""
    from gammon.cli import main
    from gammon.model.player import DEFAULT
    path = _checkpoint(tmp_path, _net(hidden=(8,)))
    for source, expected in (("net:", DEFAULT), (f"net:{path}", path), (str(path), path)):
        out = tmp_path / "exported.npz"
        out.unlink(missing_ok=True)
        assert main(["export", source, str(out), "--check-games", "1", "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["meta"]["source"] == Path(expected).name
        assert report["max_abs_diff"] < 1e-5 and botfile.is_bot_file(out)
    for argv, message in (
            ([f"net:{out}", str(tmp_path / "again.npz")], "already a bot file"),
            (["net:" + str(tmp_path / "missing.pt"), str(out)], "no such checkpoint"),
            ([str(path), str(path)], "the checkpoint being exported"),
            ([str(path), str(tmp_path)], "a directory"),
            ([str(path), str(out), "--check-games", "100000000"], "--check-games")):
        assert main(["export", *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
    assert ckpt.load(path)  # still the checkpoint it was
    assert not (tmp_path / "again.npz").exists()
