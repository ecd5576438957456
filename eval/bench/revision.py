"""A baseline revision for a benchmark's side-by-side run: resolving ``--baseline REV`` to
a commit and extracting its tree (or a folder of it) with ``git archive``, each failure a
one-line BaselineError. Used by the move generator's, the commands' and self-play's
benchmarks (``eval.bench.movegen``, ``eval.bench.cli``, ``train.bench``)."""

from __future__ import annotations

import io
import re
import subprocess
import tarfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


class BaselineError(Exception):
    """The baseline revision cannot be resolved, archived or imported (a one-line reason)."""


def git(args: list[str], root: Path = REPO_ROOT) -> subprocess.CompletedProcess:
    """``git ARGS`` in ``root``, output captured as bytes."""
    try:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, timeout=120)
    except FileNotFoundError:
        raise BaselineError("git is not installed") from None


def last_line(stream: bytes | str | None) -> str:
    """The last non-empty line of a process's output (what it said last, usually why)."""
    if isinstance(stream, bytes):
        stream = stream.decode(errors="replace")
    lines = (stream or "").strip().splitlines()
    return lines[-1].strip() if lines else ""


def resolve_revision(rev: str, root: Path = REPO_ROOT) -> str:
    """The full commit id of ``rev`` in the repository at ``root``."""
    if not rev or rev.startswith("-"):
        raise BaselineError(f"bad revision {rev!r}")
    found = git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], root)
    if found.returncode:
        why = last_line(found.stderr)
        raise BaselineError(f"revision {rev!r} not found in {root}" + (f" ({why})" if why else ""))
    return found.stdout.decode().strip()


def extract_revision(commit: str, into: Path, root: Path = REPO_ROOT,
                     paths: tuple[str, ...] = ()) -> Path:
    """The tree of ``commit`` (or only its ``paths``), from ``git archive``, extracted into
    the new folder ``into``."""
    archive = git(["archive", "--format=tar", commit, *paths], root)
    if archive.returncode:
        what = " ".join((commit[:12], *paths))
        raise BaselineError(f"git archive {what} failed: {last_line(archive.stderr)}")
    into = Path(into)
    into.mkdir()
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4 and later
            tar.extractall(into, filter="data")
        else:
            tar.extractall(into)
    return into


def in_tree_names(code: str, tree: Path) -> str:
    """``code`` (module names, or a script importing them) as the source tree ``tree``
    names its modules: ``gammon.engine``... in a tree with one installed name (its
    pyproject.toml maps ``gammon.engine`` to ``engine/``), the bare ``engine``, ``model``,
    ``train`` and ``eval`` of the revisions before it."""
    pyproject = Path(tree) / "pyproject.toml"
    if pyproject.is_file() and '"gammon.engine" = "engine"' in pyproject.read_text():
        return code
    return re.sub(r"\bgammon\.(engine|model|train|eval)\b", r"\1", code)
