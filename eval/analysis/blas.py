"""NumPy's BLAS threads, for the rollouts' one thread
(``eval.analysis.rollout_trials.one_thread``).

NumPy's matrix products (``probs @ OUTCOME_POINTS`` over every play, the shot counts'
weighted sums) run in the OpenBLAS that NumPy ships, which starts a thread per core for a
product of a few thousand rows. On a busy machine those threads wait for cores more than
they help: a rollout ran 25-50% slower with them than on one thread (measured on 2 cores).
``blas_threads(n)`` sets that library's thread count while inside and restores it after;
where NumPy's BLAS is not an OpenBLAS this process has loaded (another BLAS, another
system), it does nothing. Products of one thread and of several give the same floats (each
output is summed by the same kernel; the rollouts' digests are equal either way).
"""

from __future__ import annotations

import ctypes
from contextlib import contextmanager
from functools import lru_cache

# OpenBLAS's thread controls under the names its builds export (NumPy's wheels: scipy-openblas
# with 64-bit integers; a system OpenBLAS: the plain names)
_NAMES = (("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
          ("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
          ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
          ("openblas_get_num_threads", "openblas_set_num_threads"))


@lru_cache(maxsize=1)
def _controls():
    """(get, set) of the OpenBLAS NumPy loaded, or None."""
    import numpy as np
    try:
        with open("/proc/self/maps") as maps:  # the libraries this process has loaded
            paths = sorted({line.split()[-1] for line in maps
                            if "openblas" in line.lower() and ".so" in line})
    except OSError:
        return None
    here = np.__file__.rsplit("/", 2)[0]  # site-packages holding numpy (and numpy.libs)
    for path in sorted(paths, key=lambda p: not p.startswith(here)):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for get, set_ in _NAMES:
            if hasattr(lib, get) and hasattr(lib, set_):
                getter, setter = getattr(lib, get), getattr(lib, set_)
                getter.restype, setter.argtypes = ctypes.c_int, [ctypes.c_int]
                return getter, setter
    return None


@contextmanager
def blas_threads(n: int):
    """NumPy's OpenBLAS on ``n`` threads while inside (restored after)."""
    controls = _controls()
    if controls is None:
        yield
        return
    get, set_ = controls
    before = get()
    set_(n)
    try:
        yield
    finally:
        set_(before)


__all__ = ["blas_threads"]
