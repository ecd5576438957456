"""The README's examples work as written on a fresh clone with only the shipped model.

Every ``$ ...`` line of the README's code blocks whose command runs ``gammon`` is run with
bash (``set -o pipefail``) in one temporary directory, in the README's order (so
``gammon export net: strong.npz`` makes the file later examples play), and must exit 0;
the output the README shows under a command must be what it prints (numbers within the
last digit shown). The ``python`` code block (the bot file read with NumPy alone) is run
there too, after the export, and must print the play ``gammon choose`` makes.

Not run, by this explicit list (SKIPPED), and why:

- the two fresh-machine commands at the top (``pip install ... && gammon train`` and
  ``... && python -m pytest -q``): they install packages, train for minutes or run this
  whole suite;
- commands of other programs in the README (``gnubg -t``): not ``gammon``.

Substituted (SUBSTITUTIONS), to keep the test short: ``--games 10000`` -> ``--games 1000``.
Commands naming ``--bot gnubg`` are skipped when gnubg-nn is not installed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

SKIPPED = {
    "python -m pip install torch==2.13.0 && python -m pip install -e . && gammon train":
        "fresh-machine setup and a training run of minutes",
    "python -m pip install torch==2.13.0 && python -m pip install -e '.[dev]' && "
    "python -m pytest -q": "fresh-machine setup and the whole test suite",
}
SUBSTITUTIONS = [("--games 10000", "--games 1000")]
_NUMBER = re.compile(r"[-+]?\d+(?:,\d{3})*(?:\.(\d+))?%?")


def blocks(text: str) -> list[tuple[str, list[str]]]:
    """The fenced code blocks: (language, lines)."""
    out, lang, lines = [], None, []
    for line in text.splitlines():
        if line.startswith("```"):
            if lang is None:
                lang, lines = line[3:].strip(), []
            else:
                out.append((lang, lines))
                lang = None
        elif lang is not None:
            lines.append(line)
    return out


def examples(text: str) -> list[tuple[str, str, list[str]]]:
    """In README order: ("shell", command, expected output lines) for each ``$`` line and
    ("python", code, []) for each python block."""
    found = []
    for lang, lines in blocks(text):
        if lang == "python":
            found.append(("python", "\n".join(lines) + "\n", []))
            continue
        if lang == "bash":  # the fresh-machine commands: plain commands, no '$'
            found += [("shell", line.strip(), []) for line in lines if line.strip()]
            continue
        current = None
        for line in lines:
            if line.startswith("$ "):
                current = ("shell", line[2:].strip(), [])
                found.append(current)
            elif current is not None and line.strip():
                current[2].append(line)  # the output the README shows
    return found


def runs_gammon(command: str) -> bool:
    """Whether a shell command line runs the ``gammon`` program."""
    return any(part.split()[:1] == ["gammon"] for part in re.split(r"[|;&]+", command)
               if part.strip())


def same(shown: str, printed: str) -> bool:
    """A line the README shows against the line printed: equal, numbers within the last
    digit shown."""
    if shown.rstrip() == printed.rstrip():
        return True
    a, b = shown.split(), printed.split()
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x == y:
            continue
        mx, my = _NUMBER.fullmatch(x), _NUMBER.fullmatch(y)
        if not (mx and my):
            return False
        digits = len(mx.group(1) or "")
        value = lambda t: float(t.rstrip("%").replace(",", ""))  # noqa: E731
        if abs(value(x) - value(y)) > 1.5 * 10 ** -digits:
            return False
    return True


ALL = examples(README.read_text())
SHELL = [(c, out) for kind, c, out in ALL if kind == "shell" and runs_gammon(c)]


def test_the_readme_has_the_examples_this_test_expects():
    commands = [c for c, _ in SHELL]
    assert len(commands) >= 8
    assert any(c.startswith("gammon export net: ") for c in commands)
    assert sum(kind == "python" for kind, _, _ in ALL) == 1
    every = [c for kind, c, _ in ALL if kind == "shell"]
    for command in SKIPPED:  # the skip list names commands that are in the README
        assert command in every, command
    gammon_lines = [line for line in README.read_text().splitlines()
                    if line.startswith("$ ") and "gammon" in line]
    assert len(gammon_lines) == len([c for c in commands if c not in SKIPPED])


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """One directory for all the examples, as a reader's shell would be."""
    return tmp_path_factory.mktemp("readme")


def _run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    for old, new in SUBSTITUTIONS:
        command = command.replace(old, new)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    return subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_every_gammon_command_of_the_readme_exits_0(workdir):
    """In README order, in one directory; the output shown must be the output printed."""
    have_gnubg = True
    try:
        import gnubg_nn  # noqa: F401
    except ImportError:
        have_gnubg = False
    ran = 0
    for kind, command, shown in ALL:
        if kind == "python":
            out = subprocess.run([sys.executable, "-c", command], cwd=workdir,
                                 capture_output=True, text=True, timeout=600,
                                 env=dict(os.environ, PYTHONPATH=str(ROOT)))
            assert out.returncode == 0, out.stderr
            chosen = _run("gammon choose 4HPwATDgc/ABMA 3 1 --bot net:strong.npz", workdir)
            assert out.stdout.strip() == chosen.stdout.strip() == "4HPwATCwZ/ABMA"
            ran += 1
            continue
        if command in SKIPPED or not runs_gammon(command):
            continue
        if "--bot gnubg" in command and not have_gnubg:
            continue
        out = _run(command, workdir)
        assert out.returncode == 0, f"{command}\n{out.stderr[-2000:]}"
        assert "Traceback" not in out.stderr, command
        printed = out.stdout.splitlines()
        assert len(printed) >= len(shown), (command, out.stdout)
        for a, b in zip(shown, printed):
            assert same(a, b), f"{command}\nREADME: {a}\nprinted: {b}"
        ran += 1
    assert ran >= 8
