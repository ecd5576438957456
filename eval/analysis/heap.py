"""The C heap kept warm while a rollout's trials run (``eval.analysis.rollout_trials.Trials``).

A rollout of many positions at once works on arrays of a few megabytes (the features of
60,000 afterstates a turn, each seen from both sides), made and freed hundreds of times a
second. glibc's allocator hands memory that size back to the kernel when it is freed (by
``munmap``, or by trimming the top of its heap) and asks for it again on the next turn: every
page of it then faults in anew and is zeroed. On 2 cores that cost the expert features about
a third of their time on 120,000 boards (530 against 380 ns a board, 300,000 page faults
against 6,000: ``/proc`` counts). Small batches (one position's trials) never leave the heap,
so they did not pay it.

``kept_heap()`` tells the allocator, while inside, to serve blocks up to ``MMAP_LIMIT`` from
its heap and to keep up to ``KEEP`` bytes free at its top instead of giving them back; on the
way out it sets the limits a warmed-up process reaches by itself (the mmap threshold at the
largest block it adapts to, trimming past twice that). It gives nothing back at once: a trim
after every call made the next call of one position at a time fault its pages in again.
Nothing computed changes, only where the memory comes from. Where the C library is not
glibc (macOS, musl), it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from contextlib import contextmanager
from functools import lru_cache

# mallopt's parameters (glibc's malloc.h)
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
MMAP_LIMIT = 32 << 20  # blocks up to this size from the heap: glibc's own ceiling for it
KEEP = 512 << 20  # free bytes kept at the heap's top while inside
AFTER = {M_MMAP_THRESHOLD: MMAP_LIMIT, M_TRIM_THRESHOLD: 2 * MMAP_LIMIT}
"""The settings left on the way out: where glibc's adaptive thresholds end up in a process
that has freed a block of ``MMAP_LIMIT`` bytes."""


@lru_cache(maxsize=1)
def _glibc():
    """glibc's ``mallopt``, or None."""
    try:
        mallopt = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").mallopt
    except (OSError, AttributeError):
        return None
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return mallopt


def available() -> bool:
    """Whether this process's C library takes the settings (glibc)."""
    return _glibc() is not None


@contextmanager
def kept_heap():
    """Big temporary arrays reuse the heap's memory while inside (see the module)."""
    mallopt = _glibc()
    if mallopt is None:
        yield
        return
    mallopt(M_MMAP_THRESHOLD, MMAP_LIMIT)
    mallopt(M_TRIM_THRESHOLD, KEEP)
    try:
        yield
    finally:
        for option, value in AFTER.items():
            mallopt(option, value)


__all__ = ["available", "kept_heap"]
