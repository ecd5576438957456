"""The examples of the README and of the manual (``docs/*.md``) work as written on a fresh
clone with only the shipped model.

Every ``$ ...`` line of a page's code blocks whose command runs ``gammon`` is run with bash
(``set -o pipefail``) and must exit 0; the output the page shows under a command must be
what it prints (numbers within the last digit shown). Each page is one test (its id names
the file): its examples run in the page's order in one temporary directory of its own, so
``gammon export net: strong.npz`` in ``docs/interfaces.md`` makes the file that page's later
examples play (an example that needs a file must come after the example that makes it, in
the same page). The ``python`` code block (the bot file read with NumPy alone) is run there
too, after the export, and must print the play ``gammon choose`` makes.

The README is the front page: its tour repeats examples of the manual. An example the
README shows exactly as a page of ``docs/`` does (the same command, the same output) is run
once, in that page; any other README example is run in the README's own test.

Not run, by this explicit list (SKIPPED), and why:

- the two fresh-machine commands at the top of the README (``pip install ... && gammon
  train`` and ``... && python -m pytest -q``): they install packages, train for minutes or
  run this whole suite;
- commands of other programs in the pages (``gnubg -t``): not ``gammon``.

Substituted (SUBSTITUTIONS), to keep the test short: ``--games 10000`` -> ``--games 1000``.
Commands naming ``--bot gnubg`` are skipped when gnubg-nn is not installed.

Also checked, without running anything: the README stays a front page (at most 250 lines,
the fresh-machine commands present, a link to every page of ``docs/``), and every link
between the pages leads to a file and a heading that exist.
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
DOCS = ROOT / "docs"
PAGES = [README] + sorted(DOCS.glob("*.md"))
README_MAX_LINES = 250

SKIPPED = {
    "python -m pip install torch==2.13.0 && python -m pip install -e . && gammon train":
        "fresh-machine setup and a training run of minutes",
    "python -m pip install torch==2.13.0 && python -m pip install -e '.[test]' && "
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
    """In the page's order: ("shell", command, expected output lines) for each ``$`` line
    and ("python", code, []) for each python block."""
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
                current[2].append(line)  # the output the page shows
    return found


def runs_gammon(command: str) -> bool:
    """Whether a shell command line runs the ``gammon`` program."""
    return any(part.split()[:1] == ["gammon"] for part in re.split(r"[|;&]+", command)
               if part.strip())


def same(shown: str, printed: str) -> bool:
    """A line the page shows against the line printed: equal, numbers within the last
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


def name(page: Path) -> str:
    """A page as the test ids name it: its path in the repository."""
    return page.relative_to(ROOT).as_posix()


TEXT = {name(p): p.read_text() for p in PAGES}
ALL = {page: examples(text) for page, text in TEXT.items()}


def _gammon(found):
    return [(c, out) for kind, c, out in found if kind == "shell" and runs_gammon(c)]


def _shown_in_docs() -> set[tuple[str, tuple[str, ...]]]:
    return {(c, tuple(out)) for page, found in ALL.items() if page != "README.md"
            for c, out in _gammon(found)}


def _to_run(page: str) -> list[tuple[str, str, list[str]]]:
    """The examples the test of ``page`` runs, in its order."""
    docs = _shown_in_docs() if page == "README.md" else set()
    return [(kind, c, out) for kind, c, out in ALL[page]
            if kind == "python"
            or (runs_gammon(c) and c not in SKIPPED and (c, tuple(out)) not in docs)]


RUN = {page: _to_run(page) for page in ALL}


def test_the_readme_is_a_front_page():
    text = TEXT["README.md"]
    assert len(text.splitlines()) <= README_MAX_LINES
    every = [c for kind, c, _ in ALL["README.md"] if kind == "shell"]
    for command in SKIPPED:  # the skip list names commands that are in the README
        assert command in every, command
    for page in PAGES[1:]:  # the README leads to every page of the manual
        assert f"](docs/{page.name})" in text, page.name


def _readme_test_command() -> str:
    """The README's command that sets up and runs the tests (the one ending in pytest)."""
    every = [c for kind, c, _ in ALL["README.md"] if kind == "shell"]
    found = [c for c in every if c.endswith("python -m pytest -q") and "pip install" in c]
    assert len(found) == 1, found
    return found[0]


def test_ci_runs_the_readmes_test_command_as_written():
    """``.ci/run`` installs the system packages, then runs the README's test command,
    character for character, as its last command; the command installs the ``test`` extra,
    which holds every Python package the suite imports."""
    command = _readme_test_command()
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
             if line.strip() and not line.strip().startswith("#")]
    assert lines[-1] == command
    assert not any("pip install" in line for line in lines[:-1])  # nothing Python beside it
    assert "'.[test]'" in command


def test_the_test_extra_holds_every_package_the_suite_imports():
    """Every third-party module a test imports (at any depth) comes with the project, the
    ``test`` extra, or Python itself."""
    import ast
    import tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["test"]
    names = {re.split(r"[<>=\[ ]", spec)[0].lower().replace("-", "_") for spec in wanted}
    # distribution name -> the module it installs, where they differ
    modules = {"gnubg_nn": "gnubg_nn", "onnxruntime": "onnxruntime", "httpx2": "httpx",
               "fastapi_offline": "fastapi_offline", "openapi_spec_validator":
               "openapi_spec_validator", "pytest_xdist": "xdist"}
    provided = names | {modules.get(n, n) for n in names}
    ours = {"engine", "model", "train", "eval", "gammon"} | {  # and the suite's own modules
        p.stem for p in (ROOT / "tests").glob("*.py")}
    missing, seen = set(), set()
    for path in (ROOT / "tests").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                tops = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                tops = [node.module.split(".")[0]]
            else:
                continue
            third = {t for t in tops if t not in ours and t not in sys.stdlib_module_names}
            seen |= third
            missing |= third - provided
    assert {"numpy", "torch", "pytest", "hypothesis", "selenium"} <= seen  # the reader works
    assert missing == set(), f"imported by tests, in no extra the README installs: {missing}"


def test_the_pages_have_the_examples_this_test_expects():
    commands = [c for found in ALL.values() for c, _ in _gammon(found)]
    assert len(commands) >= 8
    assert any(c.startswith("gammon export net: ") for c in commands)
    pythons = [(page, i) for page, found in ALL.items()
               for i, (kind, _, _) in enumerate(found) if kind == "python"]
    assert len(pythons) == 1
    page, i = pythons[0]  # the bot file it reads is made earlier on its page
    assert any(c.startswith("gammon export net: strong.npz")
               for kind, c, _ in ALL[page][:i] if kind == "shell")
    assert sum(len(run) for run in RUN.values()) >= 8
    for page, text in TEXT.items():  # every '$ gammon' line is read as an example
        gammon_lines = [line for line in text.splitlines()
                        if line.startswith("$ ") and "gammon" in line]
        assert len(gammon_lines) == len([c for c, _ in _gammon(ALL[page])
                                         if c not in SKIPPED]), page


def _anchors(text: str) -> set[str]:
    """The anchors GitHub gives the headings of a page (outside code blocks)."""
    found, fenced = set(), False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def test_the_links_between_the_pages_resolve():
    for page, text in TEXT.items():
        base = (ROOT / page).parent
        prose = re.sub(r"```.*?```", "", text, flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", prose):
            if re.match(r"[a-z]+:", target):
                continue  # a web address
            path, _, anchor = target.partition("#")
            file = (base / path).resolve() if path else ROOT / page
            assert file.exists(), f"{page}: {target}"
            if anchor:
                assert anchor in _anchors(file.read_text()), f"{page}: {target}"


def _run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    for old, new in SUBSTITUTIONS:
        command = command.replace(old, new)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    return subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("page", [page for page, run in RUN.items() if run])
def test_the_examples_of(page, tmp_path):
    """In the page's order, in one directory; the output shown must be the output printed."""
    have_gnubg = True
    try:
        import gnubg_nn  # noqa: F401
    except ImportError:
        have_gnubg = False
    for kind, command, shown in RUN[page]:
        if kind == "python":
            out = subprocess.run([sys.executable, "-c", command], cwd=tmp_path,
                                 capture_output=True, text=True, timeout=600,
                                 env=dict(os.environ, PYTHONPATH=str(ROOT)))
            assert out.returncode == 0, out.stderr
            chosen = _run("gammon choose 4HPwATDgc/ABMA 3 1 --bot net:strong.npz", tmp_path)
            assert out.stdout.strip() == chosen.stdout.strip() == "4HPwATCwZ/ABMA"
            continue
        if "--bot gnubg" in command and not have_gnubg:
            continue
        out = _run(command, tmp_path)
        assert out.returncode == 0, f"{page}: {command}\n{out.stderr[-2000:]}"
        assert "Traceback" not in out.stderr, f"{page}: {command}"
        printed = out.stdout.splitlines()
        assert len(printed) >= len(shown), (page, command, out.stdout)
        for a, b in zip(shown, printed):
            assert same(a, b), f"{page}: {command}\n{page}: {a}\nprinted: {b}"
