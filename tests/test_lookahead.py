"""The optional 2-ply look-ahead of net players, from the command line."""

import json
import subprocess
import sys

from model import checkpoint as ckpt
from model.net import ValueNet

GAMMON = [sys.executable, "-m", "gammon.cli"]


def test_hint_with_two_plies_ranks_every_play(tmp_path):
    path = tmp_path / "tiny.pt"
    ckpt.save(path, ckpt.model_payload(ValueNet(198, (8,)), "classic", "standard"))
    args = ["hint", "4HPwATDgc/ABMA", "3", "1", "--bot", f"net:{path}", "--json"]
    zero = json.loads(subprocess.run(GAMMON + args, capture_output=True, text=True,
                                     check=True, timeout=120).stdout)
    two = json.loads(subprocess.run(GAMMON + args + ["--plies", "2"], capture_output=True,
                                    text=True, check=True, timeout=120).stdout)
    assert len(zero["plays"]) == len(two["plays"]) == 16
    assert [p["score"] for p in zero["plays"]] != [p["score"] for p in two["plays"]]


def test_two_plies_need_a_network():
    out = subprocess.run(GAMMON + ["hint", "4HPwATDgc/ABMA", "3", "1", "--bot", "pubeval",
                                   "--plies", "2"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "needs a network" in out.stderr
