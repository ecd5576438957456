"""Both stages from one recipe: ``gammon train --config`` with a [stage2] table runs the
TD games, then generations of rollouts and supervised learning; resumed, it goes on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from gammon.model import checkpoint as ckpt
from gammon.model.net import ValueNet
from gammon.train import rollout_data as rd
from gammon.train.config import ConfigError, Config, check_stages, from_dict, load

GAMMON = [sys.executable, "-m", "gammon.cli"]
ROOT = Path(__file__).resolve().parents[1]


def _recipe(tmp_path, init, games=0, generations=2, extra=""):
    toml = tmp_path / "two.toml"
    toml.write_text(f"""
[model]
encoding = "classic"
hidden = [8]
race_hidden = [4]
init = "{init}"
[train]
games = {games}
parallel_games = 16
update_every = 256
seed = 3
[eval]
every_games = 0
[run]
out = "{tmp_path / 'run'}"
checkpoint_every_games = 0
[stage2]
generations = {generations}
positions = 10
trials = 4
truncate = 1
opponent = ""
epochs = 3
batch_size = 4
patience = 2
{extra}
""")
    return toml


@pytest.fixture
def init(tmp_path):
    torch.manual_seed(4)
    path = tmp_path / "td.pt"
    ckpt.save(path, ckpt.model_payload(ValueNet(198, (8,)), "classic", "standard",
                                       {"race": (ValueNet(198, (4,)), "classic")}))
    return path


def test_stage2_keys_are_checked():
    assert Config().stage2.generations == 0  # TD only, as before
    with pytest.raises(ConfigError, match="stage2.trials"):
        from_dict({"stage2": {"trials": 0}})
    with pytest.raises(ConfigError, match="stage2.vr: expected true or false"):
        from_dict({"stage2": {"vr": 1}})
    with pytest.raises(ConfigError, match="unknown key stage2.rollouts"):
        from_dict({"stage2": {"rollouts": 3}})
    with pytest.raises(ConfigError, match="train.games: 0 only"):
        check_stages(from_dict({"train": {"games": 0}}))
    assert load(ROOT / "configs" / "stage2.toml").stage2.generations >= 1


def test_two_generations_from_one_recipe_then_resumed(tmp_path, init):
    toml = _recipe(tmp_path, init)
    done = subprocess.run(GAMMON + ["train", "--config", str(toml), "--no-progress"],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    run = tmp_path / "run"
    for g in (1, 2):
        data = rd.open_data(run / "stage2" / f"gen{g}.gdr")
        assert len(data) == 10 and data.settings["trials"] == 4
        net = run / "stage2" / f"gen{g}" / "model.pt"
        assert sorted(ckpt.load(net)["phases"]) == ["crashed", "race"]
    # generation 2's rollouts were made by net 1, and net 2 learned from both datasets
    gen2 = rd.open_data(run / "stage2" / "gen2.gdr")
    assert gen2.meta["net_sha256"] == rd.file_checksum(run / "stage2" / "gen1" / "model.pt")
    result = json.loads((run / "stage2" / "gen2" / "stage2.json").read_text())
    assert result["rows"] == len(gen2) + len(rd.open_data(run / "stage2" / "gen1.gdr")) \
        - len(set(map(bytes, gen2.boards)) & set(map(bytes, rd.open_data(
            run / "stage2" / "gen1.gdr").boards)))
    assert (run / "model.pt").read_bytes() == (run / "stage2" / "gen2" / "model.pt").read_bytes()
    before = (run / "model.pt").read_bytes()
    # gammon plot draws the second stage's losses (the run has no pubeval evaluations)
    plot = subprocess.run(GAMMON + ["plot", str(run)], capture_output=True, text=True,
                          timeout=120)
    assert plot.returncode == 0, plot.stderr
    assert (run / "stage2_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "2 generation(s)" in plot.stdout
    # resumed: nothing left to do, the same final net
    again = subprocess.run(GAMMON + ["train", "--resume", str(run / "checkpoint.pt"),
                                     "--no-progress"],
                           capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "trained already" in again.stderr
    assert (run / "model.pt").read_bytes() == before


def test_a_bad_dataset_in_the_recipe_is_one_line(tmp_path, init):
    (tmp_path / "junk.gdr").write_bytes(b"junk")
    toml = _recipe(tmp_path, init, generations=1, extra=f'data = "{tmp_path / "junk.gdr"}"')
    done = subprocess.run(GAMMON + ["train", "--config", str(toml), "--no-progress"],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert str(tmp_path / "junk.gdr") in done.stderr.strip().splitlines()[-1]
