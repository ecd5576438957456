"""Writing files: whole or not at all, with one-line errors, and one writer per directory.

Every file gammon writes (checkpoints, model and bot files, .mat files, PNGs, the run's
evaluations) goes through here, so that a full disk, a read-only filesystem or a folder
that cannot be written is one ``WriteError`` ("cannot write PATH: No space left on
device"), never a traceback, and never a damaged or half-written file:

- ``write_atomic(path, data)``: the data goes to a temporary file beside ``path``
  (``NAME.XXXXXXXX.tmp``), is flushed to the disk (fsync) and renamed over ``path``; on
  any failure the temporary file is removed and the previous ``path`` is untouched.
- ``append_line(path, line)``: one line added to a log in one write; on failure the file
  is cut back to its previous length, so no half line stays.
- ``remove_temporaries(folder, names)``: the temporary files a kill left behind.
- ``lock_directory(folder, command)``: the claim of one process on an output directory
  (a training run, ...), for as long as it runs: a second process is refused with the
  first one's pid and command; the lock of a process that died is taken over.

Only the standard library: the rules engine and everything above it may use it.
"""

from __future__ import annotations

import errno as errnos
import io
import json
import os
import socket
import stat
import tempfile
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: locks fall back to asking whether the pid lives
    fcntl = None

TMP_SUFFIX = ".tmp"
LOCK_NAME = ".lock"
PATH_LIMIT = 160  # characters of a path an error message shows at most
COMMAND_LIMIT = 200  # characters of a command line a lock message shows at most


class WriteError(OSError):
    """A file (or folder) that could not be written: one line, "cannot write PATH:
    REASON". An OSError, so whatever handles OSError handles it too; ``path`` and
    ``reason`` are its parts, ``errno`` the system's error number when there is one."""

    def __init__(self, path, reason, code: int | None = None, message: str | None = None):
        self.path, self.reason = str(path), str(reason)
        self.message = message or f"cannot write {shown(path)}: {reason}"
        super().__init__(self.message)
        self.errno, self.strerror = code, self.reason

    def __str__(self) -> str:
        return self.message

    def __reduce__(self):
        return type(self), (self.path, self.reason, self.errno, self.message)


class DirectoryInUse(WriteError):
    """Another running process holds the directory's lock (``lock_directory``)."""


def shown(path) -> str:
    """A path as messages show it: at most PATH_LIMIT characters."""
    text = str(path)
    return text if len(text) <= PATH_LIMIT else text[:PATH_LIMIT] + "..."


def reason(e: BaseException) -> str:
    """Why a write failed, as the system says it ("No space left on device")."""
    if isinstance(e, WriteError):
        return e.reason
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    if isinstance(e, OSError) and e.errno:
        return os.strerror(e.errno)
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


# --- the low-level steps: one function each, so that tests can make any of them fail --------

def _create(target: Path) -> tuple[int, str]:
    """A new temporary file beside ``target``: (descriptor, its path)."""
    return tempfile.mkstemp(dir=target.parent, prefix=target.name[:200] + ".",
                            suffix=TMP_SUFFIX)


def _write(target: Path, fd: int, data) -> None:
    """All of ``data`` to ``fd`` (one write call unless the system takes less)."""
    view = memoryview(data).cast("B")
    while view:
        view = view[os.write(fd, view):]


def _fsync(target: Path, fd: int) -> None:
    os.fsync(fd)


def _replace(target: Path, tmp: str) -> None:
    os.replace(tmp, target)


def _open_append(target: Path) -> int:
    return os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o666)


# --- atomic writes -------------------------------------------------------------------------

def write_atomic(path: str | Path, data, *, mode: int | None = None,
                 parents: bool = False) -> int:
    """Write ``data`` to ``path`` whole or not at all; returns the bytes written.

    ``data``: bytes (or anything of the buffer protocol), str (written as UTF-8), an
    iterable of bytes chunks (streamed), or a function given a binary file to write into
    (run first, into memory: torch.save, np.savez, savefig). ``mode``: the file's
    permissions (default: those of the file it replaces, else what a plain open() would
    make). ``parents``: create missing folders. A symbolic link is written through to the
    file it names; a device or pipe (``/dev/null``) is written directly, as nothing can be
    renamed over it. Raises WriteError, having removed the temporary file."""
    path = _checked(path)
    chunks = _chunks(data)
    target, direct = _target(path)
    if direct:
        return _write_directly(target, chunks)
    tmp, size = None, 0
    try:
        if parents:
            target.parent.mkdir(parents=True, exist_ok=True)
        permissions = _mode(target, mode)
        fd, tmp = _create(target)
        try:
            for chunk in chunks:
                _write(target, fd, chunk)
                size += memoryview(chunk).nbytes
            _fsync(target, fd)
        finally:
            os.close(fd)
        os.chmod(tmp, permissions)
        _replace(target, tmp)
        tmp = None
    except OSError as e:
        raise WriteError(path, reason(e), e.errno) from None
    finally:
        if tmp is not None:
            _discard(tmp)
    _sync_folder(target.parent)
    return size


def _checked(path) -> Path:
    """``path`` as a Path, or WriteError for a name no file can have."""
    path = Path(path)
    if "\x00" in str(path):
        raise WriteError(path, "the name holds a NUL character")
    try:
        os.fsencode(path)
    except UnicodeError:
        raise WriteError(path, "the name is not valid in this system's encoding") from None
    return path


def _chunks(data):
    """``data`` as an iterable of bytes-like chunks."""
    if isinstance(data, str):
        return [data.encode("utf-8")]
    if isinstance(data, (bytes, bytearray, memoryview)):
        return [data]
    if callable(data):
        buffer = io.BytesIO()
        data(buffer)
        return [buffer.getbuffer()]
    return (chunk.encode("utf-8") if isinstance(chunk, str) else chunk for chunk in data)


def _target(path: Path) -> tuple[Path, bool]:
    """(the file to write, whether to write it directly rather than by a rename)."""
    p, hops = str(path), 0
    try:
        while os.path.islink(p) and hops < 40:
            p = os.path.join(os.path.dirname(p), os.readlink(p))
            if p.startswith(("/proc/", "/dev/")):  # /dev/stdout, /proc/self/fd/1
                return path, True
            hops += 1
        st = os.stat(p)
    except OSError:  # a new file (or one the write itself will say is out of reach)
        return Path(p), False
    if stat.S_ISDIR(st.st_mode):
        raise WriteError(path, "it is a directory", errnos.EISDIR)
    return Path(p), not stat.S_ISREG(st.st_mode)


def _write_directly(target: Path, chunks) -> int:
    size = 0
    try:
        with open(target, "wb") as f:
            for chunk in chunks:
                f.write(chunk)
                size += memoryview(chunk).nbytes
    except OSError as e:
        raise WriteError(target, reason(e), e.errno) from None
    return size


def _mode(target: Path, mode: int | None) -> int:
    if mode is not None:
        return mode
    try:
        st = os.stat(target)
        if stat.S_ISREG(st.st_mode):
            return stat.S_IMODE(st.st_mode)
    except OSError:
        pass
    return 0o666 & ~_umask()


def _umask() -> int:
    try:  # read, not set: setting it even for a moment would race other threads
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def _discard(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass


def _sync_folder(folder: Path) -> None:
    """The rename made durable (best effort: not every system can sync a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --- logs: one line at a time ---------------------------------------------------------------

def append_line(path: str | Path, line: str) -> None:
    """Add ``line`` (one line; its newline added) to the end of ``path`` in one write and
    flush it to the disk. On failure the file is cut back to its previous length, so it
    never ends in half a line, and WriteError says why."""
    text = line[:-1] if line.endswith("\n") else line
    if "\n" in text:
        raise ValueError("append_line writes one line; this text holds line breaks")
    path = _checked(path)
    data = (text + "\n").encode("utf-8")
    try:
        fd = _open_append(path)
    except OSError as e:
        raise WriteError(path, reason(e), e.errno) from None
    try:
        size = os.fstat(fd).st_size
        try:
            _write(path, fd, data)
            _fsync(path, fd)
        except OSError as e:
            try:
                os.ftruncate(fd, size)
            except OSError:
                pass
            raise WriteError(path, reason(e), e.errno) from None
    finally:
        os.close(fd)


def remove_temporaries(folder: str | Path, names) -> list[Path]:
    """Remove the temporary files of ``write_atomic`` for the files ``names`` in
    ``folder`` (``NAME.*.tmp``) that an interrupted write (kill -9) left behind; returns
    them. Only for a folder this process holds the lock of: another writer's temporary
    file would go too."""
    folder = Path(folder)
    prefixes = tuple(name + "." for name in names)
    removed = []
    if folder.is_dir():
        for p in folder.iterdir():
            if p.name.startswith(prefixes) and p.name.endswith(TMP_SUFFIX) and p.is_file():
                p.unlink(missing_ok=True)
                removed.append(p)
    return sorted(removed)


# --- one writer per directory ------------------------------------------------------------------

class DirectoryLock:
    """This process's claim on an output directory: the file ``.lock`` in it, holding the
    pid, command line, host and start time, locked by the system (flock) for as long as
    the file stays open. ``release()`` (or leaving a ``with`` block) removes it; a process
    that dies without releasing it leaves the file unlocked, which the next one takes over.

    ``previous``: the record of the dead process whose lock was taken over (else None),
    and ``note`` the line that says so."""

    def __init__(self, folder: Path, fd: int, previous: dict | None, created: list[Path]):
        self.folder, self.path = folder, folder / LOCK_NAME
        self.previous, self._fd, self._created = previous, fd, created
        self._pid = os.getpid()

    @property
    def note(self) -> str | None:
        if self.previous is None:
            return None
        return (f"took over the stale lock of {_holder(self.previous)}, which is no longer "
                "running")

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Give the directory up: remove the lock file, and the folders the lock created
        when they are still empty."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        if os.getpid() != self._pid:  # a forked child: the parent still holds it
            os.close(fd)
            return
        try:
            if _same_file(fd, self.path):
                os.unlink(self.path)
        except OSError:
            pass
        finally:
            os.close(fd)  # closing it releases the system's lock
        for folder in reversed(self._created):
            try:
                folder.rmdir()
            except OSError:
                break

    def __enter__(self) -> "DirectoryLock":
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def lock_directory(folder: str | Path, command: str,
                   hint: str = "use another directory") -> DirectoryLock:
    """Claim ``folder`` (created if missing) for this process, which runs ``command``.

    Another live process holding it: DirectoryInUse, one line, "FOLDER is in use by pid N
    (COMMAND): wait for it or HINT". A lock file left by a process that died (kill -9, a
    power loss) is taken over: the returned lock's ``note`` says whose it was. Folders
    that cannot be created or written: WriteError. Reading a directory needs no lock."""
    folder = _checked(folder)
    created = _make_folders(folder)
    path = folder / LOCK_NAME
    record = json.dumps({"pid": os.getpid(), "command": command, "host": _host(),
                         "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}).encode()
    deadline = time.monotonic() + 2.0
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except FileNotFoundError:  # the folder went (a holder's release): make it again
            if time.monotonic() > deadline:
                raise WriteError(path, "No such file or directory", errnos.ENOENT) from None
            created += _make_folders(folder)
            continue
        except OSError as e:
            _remove_empty(created)
            raise WriteError(path, reason(e), e.errno) from None
        locked = None
        try:
            locked = _try_lock(fd)
            holder = _read_record(fd)
            busy = locked is False or (locked is None and holder is not None
                                       and _alive(holder))
            if busy:
                # no record yet: its holder is about to write it; ask again for a while
                again = holder is None and time.monotonic() < deadline
            else:
                # a holder that let go removed the file: lock the one at the path now
                again = not _same_file(fd, path)
            if not busy and not again:
                os.ftruncate(fd, 0)
                os.pwrite(fd, record, 0)
                return DirectoryLock(folder, fd, holder, created)
        except BaseException as e:
            if locked:  # ours, but the record could not be written (a full disk)
                try:
                    os.unlink(path)
                except OSError:
                    pass
            os.close(fd)
            _remove_empty(created)
            if isinstance(e, OSError):
                raise WriteError(path, reason(e), e.errno) from None
            raise
        os.close(fd)
        if not again:
            _remove_empty(created)
            who = _holder(holder) if holder else "another process"
            raise DirectoryInUse(folder, "in use", errnos.EBUSY,
                                 f"{shown(folder)} is in use by {who}: wait for it or {hint}")
        time.sleep(0.05)


def lock_holder(folder: str | Path) -> dict | None:
    """The record in ``folder``'s lock file (pid, command, host, started), or None."""
    try:
        fd = os.open(Path(folder) / LOCK_NAME, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return _read_record(fd)
    finally:
        os.close(fd)


def _make_folders(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; returns those made, outermost first."""
    missing, p = [], folder
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        _remove_empty(list(reversed(missing)))
        raise WriteError(folder, reason(e), e.errno) from None
    return list(reversed(missing))


def _remove_empty(created: list[Path]) -> None:
    for folder in reversed(created):
        try:
            folder.rmdir()
        except OSError:
            break


def _try_lock(fd: int) -> bool | None:
    """True: locked; False: another process holds it; None: no system locks here."""
    if fcntl is None:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    except OSError as e:
        if e.errno in (errnos.ENOLCK, errnos.EOPNOTSUPP, errnos.ENOTSUP, errnos.EINVAL,
                       errnos.ENOSYS):
            return None
        raise


def _read_record(fd: int) -> dict | None:
    try:
        record = json.loads(os.pread(fd, 65536, 0).decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(record, dict) or not isinstance(record.get("pid"), int):
        return None
    return record


def _holder(record: dict) -> str:
    """"pid N (COMMAND)", with " on HOST" when it ran on another host."""
    text = f"pid {record['pid']}"
    host = record.get("host")
    if isinstance(host, str) and host and host != _host():
        text += f" on {host[:60]}"
    command = record.get("command")
    if isinstance(command, str) and command:
        command = " ".join(command.split())
        if len(command) > COMMAND_LIMIT:
            command = command[:COMMAND_LIMIT] + "..."
        text += f" ({command})"
    return text


def _alive(record: dict) -> bool:
    """Without system locks: whether the process of ``record`` still runs (one on
    another host is taken to)."""
    if record.get("host") != _host():
        return True
    try:
        os.kill(record["pid"], 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    return True


def _same_file(fd: int, path: Path) -> bool:
    try:
        a, b = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _host() -> str:
    try:
        return socket.gethostname()
    except OSError:
        return ""


__all__ = ["WriteError", "DirectoryInUse", "DirectoryLock", "write_atomic", "append_line",
           "remove_temporaries", "lock_directory", "lock_holder", "reason", "shown",
           "LOCK_NAME", "TMP_SUFFIX"]
