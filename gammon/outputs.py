"""What the commands that fill a directory share: one process per output directory.

``claim(folder, args, hint)`` takes the lock of ``engine.files.lock_directory`` on the
directory a command writes (a training run; datasets, rollouts, reviews), for the whole
command: a second process that would write there is refused with one line naming the
first (its pid and command line), and the lock of a process that died is taken over with
a note on stderr. Reading a directory (``gammon plot``, ``net:run/model.pt``) takes no
lock. The files themselves are written with ``engine.files.write_atomic`` and
``append_line``, whose ``WriteError`` the command line prints as one line (exit code 2).
"""

from __future__ import annotations

import shlex
import sys

from gammon.engine.files import DirectoryLock, lock_directory


def command_line(args) -> str:
    """The command as typed: ``gammon`` and its arguments (``gammon.cli`` keeps them)."""
    argv = getattr(args, "argv", None)
    if argv is None:
        argv = sys.argv[1:]
    return shlex.join(["gammon", *map(str, argv)])


def claim(folder, args, hint: str) -> DirectoryLock:
    """The lock on ``folder`` (created if missing) for this command, to release when it
    ends (``with claim(...):``); ``hint`` ends the refusal: "wait for it or HINT"."""
    lock = lock_directory(folder, command_line(args), hint)
    if lock.note:
        print(f"note: {lock.note}", file=sys.stderr)
    return lock
