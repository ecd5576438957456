"""The seven shipped variant models: small, `net:` plays the one of the --variant, each
records its variant and is refused for another, and each beats `random` in its game."""

from __future__ import annotations

from pathlib import Path

import pytest

from gammon.engine.rules import VARIANTS
from gammon.eval.playing.match import run_match
from gammon.eval.bots.registry import make_bot
from gammon.model import checkpoint as ckpt
from gammon.model.player import shipped

NAMES = [v for v in VARIANTS if v != "standard"]
ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", NAMES)
def test_each_variant_ships_a_small_model_of_its_own(name):
    path = shipped(name)
    assert path == ROOT / "checkpoints" / f"{name}.pt"
    assert path.stat().st_size < 512 * 1024
    spec = ckpt.load(path)["model"]
    assert spec["variant"] == name
    other = "plakoto" if name != "plakoto" else "standard"
    with pytest.raises(ckpt.CheckpointError, match=f"trained for '{name}'"):
        ckpt.check_compatible(ckpt.load(path), path, variant=other)


@pytest.mark.parametrize("name", NAMES)
def test_net_plays_the_variants_model_and_beats_random(name):
    bot = make_bot("net:", 1, name)
    assert str(shipped(name)) in bot.name
    r = run_match(bot, make_bot("random", 2, name), 200, 7, name, progress=False)
    assert r.unfinished == 0
    # hypergammon, three checkers a side, leaves the most to the dice (see the README)
    assert r.rate(r.wins_a) > (0.75 if name == "hypergammon" else 0.9)
