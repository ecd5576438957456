"""The run directory's rules: which files make a directory a run's (``run_files``), the
temporary files an interrupted save leaves (``remove_stale_tmp``), and clearing a run for
``--overwrite`` (``clear_run``). Other files in the directory are never touched.
"""

from __future__ import annotations

from pathlib import Path

from gammon.engine.files import remove_temporaries


RUN_FILES = ("checkpoint.pt", "model.pt", "evaluations.jsonl")
"""The files that make a directory a run's (with TensorBoard's event files)."""


def run_files(out: str | Path) -> list[Path]:
    """The files of a run in ``out``: checkpoint.pt, model.pt, evaluations.jsonl and
    TensorBoard event files (in ``out/tensorboard`` or ``out`` itself)."""
    out = Path(out)
    if not out.is_dir():
        return []
    found = [out / name for name in RUN_FILES if (out / name).is_file()]
    for folder in (out, out / "tensorboard"):
        if folder.is_dir():
            found += sorted(p for p in folder.glob("events.out.tfevents.*") if p.is_file())
    return found


def remove_stale_tmp(out: str | Path) -> list[Path]:
    """Remove the temporary files an interrupted atomic save left behind (``kill -9``
    between writing and renaming): ``checkpoint.pt.*.tmp``, ``model.pt.*.tmp``,
    ``evaluations.jsonl.*.tmp``. Returns what was removed."""
    return remove_temporaries(out, RUN_FILES)


def clear_run(out: str | Path) -> list[Path]:
    """Delete a run's files from ``out`` (``--overwrite``): those of ``run_files`` and stale
    temporary files; the tensorboard folder too when it is left empty. Other files stay."""
    out = Path(out)
    removed = run_files(out)
    for p in removed:
        p.unlink(missing_ok=True)
    removed += remove_stale_tmp(out)
    board = out / "tensorboard"
    if board.is_dir() and not any(board.iterdir()):
        board.rmdir()
    return removed
