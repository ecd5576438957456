"""The shipped model: small, loadable as `net:`, a real player, and what its file says."""

import json
from pathlib import Path

import numpy as np

from gammon.engine.rules import start_boards
from gammon.engine.movegen import legal_plays
from gammon.eval.bots.registry import make_bot
from gammon.model import checkpoint as ckpt

DEFAULT = Path(__file__).resolve().parent.parent / "checkpoints" / "default.pt"


def test_default_model_is_small_and_complete():
    assert DEFAULT.stat().st_size < 5 * 1024 * 1024
    payload = ckpt.load(DEFAULT)
    # the expert inputs, and a network of its own for races
    assert payload["model"]["encoding"] == "advanced" and payload["model"]["variant"] == "standard"
    assert payload["phases"]["race"]["model"]["encoding"] == "advanced"
    # issue 37's stop rule: the expert iteration's best net, its contact and crashed networks
    # of 256 hidden units trained on the mined 2-ply labels (hundreds of thousands of rows)
    assert payload["model"]["hidden"] == [256] and "crashed" in payload["phases"]
    learned = json.loads(payload["stage2"])
    assert learned["rows"] >= 400_000
    assert all(d["path"].startswith("checkpoints/expert/x") for d in learned["datasets"])


def test_the_td_net_stays_beside_it():
    """The TD net that was shipped until issue 37 (configs/strong.toml's run) keeps its file:
    the recipes that start from it name checkpoints/td-2026.pt."""
    payload = ckpt.load(DEFAULT.with_name("td-2026.pt"))
    assert payload["model"]["hidden"] == [128] and "crashed" not in payload["phases"]
    results = json.loads(payload["results"])
    assert results and results[-1]["games_trained"] >= 1_000_000
    for recipe in ("stage2", "td_continue", "one_ply_finetune", "same-compute-mined"):
        config = (DEFAULT.parent.parent / "configs" / f"{recipe}.toml").read_text()
        assert 'init = "checkpoints/td-2026.pt"' in config


def test_the_classic_network_stays_for_the_variants_it_started():
    classic = DEFAULT.with_name("classic.pt")
    payload = ckpt.load(classic)
    assert payload["model"]["encoding"] == "classic" and payload["model"]["hidden"] == [128]
    for variant in ("nackgammon", "longgammon", "caucasian", "nuclear"):
        config = (DEFAULT.parent.parent / "configs" / f"{variant}.toml").read_text()
        assert 'init = "checkpoints/classic.pt"' in config


def test_net_alone_is_the_shipped_model_and_plays_well():
    bot = make_bot("net:")
    boards, dice = start_boards(1), np.array([[3, 1]])
    plays = legal_plays(boards, dice)
    choice = plays.boards[bot(plays, boards, dice)[0]]
    # 3-1 from the start: make the 5-point (8/5 6/5), as every strong player does
    assert choice[5] == 2 and choice[8] == 2 and choice[6] == 4
