"""The runnable examples of examples/ (docs/library.md): a random agent in the vector env,
and a learning agent that beats the ``random`` bot by the margin it states. Each runs as a
user runs it, a process of its own, with small counts and fixed seeds."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("gymnasium", reason="the examples need the envs extra (gammon[envs])")

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
PPG = re.compile(r"points per game: ([-+]\d+\.\d+) ± (\d+\.\d+) \(95% interval\)")


def _example(name: str, *args: str) -> str:
    done = subprocess.run([sys.executable, str(EXAMPLES / name), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    return done.stdout


def _ppg(out: str) -> tuple[float, float]:
    found = PPG.search(out)
    assert found, out
    return float(found.group(1)), float(found.group(2))


def _stated_margin() -> float:
    """The margin examples/td_agent.py states (its ``MARGIN``), read from the file."""
    found = re.search(r"^MARGIN = ([0-9.]+)", (EXAMPLES / "td_agent.py").read_text(), re.M)
    assert found
    return float(found.group(1))


def test_the_random_agent_plays_its_games():
    out = _example("random_agent.py", "--games", "100", "--envs", "16", "--seed", "1")
    assert "games played: 100" in out
    ppg, half = _ppg(out)
    assert -3 <= ppg <= 3 and half > 0
    assert re.search(r"wins: \d+\.\d%", out)


def test_the_learning_agent_beats_random_by_its_stated_margin():
    """After 1,500 games of training (the counts the example states its margin for), the
    low end of its 95% interval over 500 games is at least the margin; untrained, the same
    agent is nowhere near it, so the margin is what it learned."""
    margin = _stated_margin()
    assert margin >= 1.0
    out = _example("td_agent.py", "--train-games", "1500", "--eval-games", "500", "--seed", "1")
    assert "trained on 1500 games against random, measured on 500" in out
    ppg, half = _ppg(out)
    assert ppg - half >= margin, out
    untrained, _ = _ppg(_example("td_agent.py", "--train-games", "0", "--eval-games", "200",
                                 "--seed", "1"))
    assert untrained < margin / 2
