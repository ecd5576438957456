"""Running the gammon command line inside the test process (quicker than a subprocess)."""

from __future__ import annotations

import contextlib
import io
import sys
from types import SimpleNamespace

from gammon.cli import main


def gammon(*args, stdin=None):
    """Run ``gammon ARGS`` in this process: its exit code and what it wrote, as
    ``subprocess.run`` would give them (``returncode``, ``stdout``, ``stderr``)."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.StringIO(stdin or "")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main([str(a) for a in args])
            except SystemExit as e:  # --help and argparse's own exits
                code = e.code if isinstance(e.code, int) else 0
    finally:
        sys.stdin = saved
    return SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())
