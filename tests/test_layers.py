"""The layers' import directions, read from the source (every import, also those inside
functions): ``engine`` <- ``model`` <- ``eval`` <- ``train`` <- ``gammon``.

- a module imports only from its own layer or the ones below it (the rules never reach the
  networks, evaluation never reaches training or the command line, training uses
  evaluation's bots and matches to measure what it trains);
- ``engine`` never imports torch (a NumPy-only rules engine);
- no command module (``gammon.commands.*``) imports another: what two commands share lives
  in a ``gammon`` module beside them;
- no import cycle among modules;
- the turn's users (the game loop, rollouts, self-play, the trainer, the terminal session,
  the web board) import no variant module: a variant's state and its actions before the
  roll are its rules object's (``engine.rules.base.Rules``), reached by name. A variant
  module is a rules module (``engine.rules.*`` but the base and the package) or a
  variant's own module elsewhere (named after it, or Nuclear's ``model.bomb``); shared
  modules that serve every variant (the encodings, the position formats) are not.

Each rule is checked on the real tree, and shown to fail on a planted violation.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("engine", "model", "eval", "train", "gammon")  # lowest first
RANK = {name: i for i, name in enumerate(LAYERS)}
COMMANDS = "gammon.commands"


def modules(root: Path) -> dict[str, Path]:
    """Every module of the layers under ``root``: dotted name -> file."""
    out = {}
    for layer in LAYERS:
        for path in sorted((root / layer).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def short(module: str) -> str:
    """A module's name in this graph: ``gammon.engine.movegen`` (its installed name, docs/
    design.md "One installed name") as its folder, ``engine.movegen``."""
    head, _, rest = module.partition(".")
    if head == "gammon" and rest.split(".")[0] in ("engine", "model", "train", "eval"):
        return rest
    return module


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules ``name`` imports (absolute, relative, at any depth of the file): for
    ``from P import x`` the submodule P.x when there is one, else P. Outside modules
    (numpy, torch...) by their top-level name."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {short(alias.name) for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = short(node.module)
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in known else target)
    return {m if m.split(".")[0] in RANK else m.split(".")[0] for m in found} - {name}


def graph(root: Path) -> dict[str, set[str]]:
    known = modules(root)
    return {name: imports(name, path, known) for name, path in known.items()}


def upward(edges: dict[str, set[str]]) -> list[str]:
    """'A -> B' for each import of a higher layer."""
    return sorted(f"{a} -> {b}" for a, targets in edges.items() for b in targets
                  if b.split(".")[0] in RANK and RANK[b.split(".")[0]] > RANK[a.split(".")[0]])


def engine_torch(edges: dict[str, set[str]]) -> list[str]:
    return sorted(a for a, targets in edges.items()
                  if a.split(".")[0] == "engine" and "torch" in targets)


def between_commands(edges: dict[str, set[str]]) -> list[str]:
    return sorted(f"{a} -> {b}" for a, targets in edges.items() for b in targets
                  if a.startswith(COMMANDS + ".") and b.startswith(COMMANDS + "."))


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in edges:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(out)


TURN_USERS = ("engine.game", "eval.analysis.rollout", "train.selfplay", "train.trainer",
              "train.measure", "train.warm_start", "train.run_state", "train.td",
              "gammon.session", "gammon.table", "gammon.web.game", "gammon.web.games",
              "gammon.web.steps", "gammon.web.advice")


def variant_modules(edges: dict[str, set[str]]) -> set[str]:
    """The rules modules of variants and the variants' own modules elsewhere."""
    rules = {m for m in edges if m.startswith("engine.rules.") and m != "engine.rules.base"}
    names = {m.rpartition(".")[2] for m in rules}
    return rules | {"model.bomb"} | {m for m in edges if m.rpartition(".")[2] in names}


def turn_users_importing_variants(edges: dict[str, set[str]]) -> list[str]:
    variants = variant_modules(edges)
    users = [m for m in edges if any(m == u or m.startswith(u) for u in TURN_USERS)]
    return sorted(f"{a} -> {b}" for a in users for b in edges[a] & variants)


def problems(root: Path) -> list[str]:
    edges = graph(root)
    return ([f"upward import {e}" for e in upward(edges)]
            + [f"{m} imports torch" for m in engine_torch(edges)]
            + [f"command imports command {e}" for e in between_commands(edges)]
            + [f"import cycle {' <-> '.join(c)}" for c in cycles(edges)]
            + [f"a turn's user imports a variant module {e}"
               for e in turn_users_importing_variants(edges)])


def test_the_tree_keeps_its_layers():
    edges = graph(ROOT)
    assert len(edges) > 100 and any(b.startswith("eval.") for b in edges["gammon.cli"]
                                    | set().union(*edges.values()))
    assert problems(ROOT) == []


def test_the_reader_sees_imports_inside_functions_and_relative_ones():
    edges = graph(ROOT)
    assert "eval.playing.cluster" in edges["eval.playing.distributed"]  # inside a function
    assert "gammon.errors" in edges["gammon.commands.hint"]  # from ..errors import
    assert "eval.analysis.cube" in edges["eval.analysis"]


def _copy(tmp_path: Path) -> Path:
    for layer in LAYERS:
        shutil.copytree(ROOT / layer, tmp_path / layer,
                        ignore=shutil.ignore_patterns("*.pyc", "__pycache__", "data"))
    return tmp_path


def _plant(path: Path, line: str) -> None:
    path.write_text(path.read_text() + f"\n\ndef _planted():\n    {line}\n")


@pytest.mark.parametrize("where, line, expected", [
    ("engine/board.py", "from gammon.model.net import ValueNet", "upward import engine.board -> model.net"),
    ("model/net.py", "import gammon.eval.bots.pubeval", "upward import model.net -> eval.bots.pubeval"),
    ("eval/bots/simple.py", "from gammon.train.trainer import Trainer",
     "upward import eval.bots.simple -> train.trainer"),
    ("eval/analysis/plays.py", "from gammon.errors import UsageError",
     "upward import eval.analysis.plays -> gammon.errors"),
    ("engine/movegen.py", "import torch", "engine.movegen imports torch"),
    ("gammon/commands/hint.py", "from .match import run",
     "command imports command gammon.commands.hint -> gammon.commands.match"),
    ("engine/dice.py", "from gammon.engine.board import flip", "import cycle"),
    ("train/selfplay.py", "from gammon.model.bomb import detonate_by_equity",
     "a turn's user imports a variant module train.selfplay -> model.bomb"),
    ("eval/analysis/rollout_trials.py", "from gammon.engine.rules.nuclear import explode",
     "a turn's user imports a variant module eval.analysis.rollout_trials -> "
     "engine.rules.nuclear"),
])
def test_a_planted_violation_fails(tmp_path, where, line, expected):
    root = _copy(tmp_path)
    assert problems(root) == []
    if expected == "import cycle":  # board imports dice only if it does not already
        board = root / "engine" / "board.py"
        _plant(board, "from gammon.engine import dice")
    _plant(root / where, line)
    found = problems(root)
    assert any(p.startswith(expected) for p in found), found


def test_engine_never_imports_torch_when_run():
    code = ("import sys, engine, engine.movegen, engine.game, engine.formats.posid, "
            "engine.reference, engine.sample, engine.rules, engine.bearoff; "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == "False"


ENTRY_POINTS = ("eval.bench.cli", "eval.bench.envs", "eval.bench.movegen", "eval.bench.rollouts", "eval.bots.random_probe",
                "eval.gnubg.benchmark", "eval.gnubg.cube_check", "eval.gnubg.external_matches",
                "eval.gnubg.match_cube", "eval.gnubg.pubeval_reference", "eval.gnubg.review_check",
                "eval.gnubg.rollouts",
                "eval.reports.cube_agreement", "eval.reports.plans",
                "eval.reports.rollout_check", "eval.reports.variants",
                "train.bench", "train.bench.gpu", "train.bench.scale", "train.rollout_targets",
                "train.mining", "train.bench.labels", "train.bench.teacher_gap", "train.widen",
                "gammon.envs.speed")


def test_every_python_m_entry_point_answers_help():
    """Each ``python -m`` entry point under its name in the rooms prints its help and exits
    0 (one process runs them all: torch is imported once)."""
    found = sorted(name for name, path in modules(ROOT).items()
                   if '__name__ == "__main__"' in path.read_text() and name != "gammon.cli")
    assert set(found) | {"train.bench"} == set(ENTRY_POINTS) | {"train.bench.selfplay"}
    code = """
import contextlib, io, runpy, sys
for name in sys.argv[1:]:
    sys.argv = [name, "--help"]
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_module(name, run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as e:
        code = e.code or 0
    print(name, code, len(out.getvalue().splitlines()), "usage:" in out.getvalue())
"""
    done = subprocess.run([sys.executable, "-c", code, *ENTRY_POINTS], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line.split() for line in done.stdout.splitlines()]
    assert [r[0] for r in rows] == list(ENTRY_POINTS)
    for name, code, lines, usage in rows:
        assert (code, usage) == ("0", "True") and int(lines) > 2, name


SEAMS = ("train", "eval/analysis", "gammon")  # the layers' seams: modules of one concern
SEAM_MAX_LINES = 500


def test_no_module_at_the_seams_is_over_500_lines():
    """Modules under train/, eval/analysis/ and gammon/ keep to one concern: 500 lines at
    most (a longer one is split by concern, as trainer.py, rollouts.py and session.py
    were)."""
    long = sorted(f"{path.relative_to(ROOT)}: {n} lines"
                  for seam in SEAMS for path in (ROOT / seam).rglob("*.py")
                  if (n := len(path.read_text().splitlines())) > SEAM_MAX_LINES)
    assert long == []
