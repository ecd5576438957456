"""Network outputs that do not depend on the rest of their batch, when asked for.

The CPU's matrix products treat a ragged tail of rows differently, so a board's
probabilities may differ in the last bit with the batch it is evaluated in. A rollout must
give the same numbers however its trials are grouped (one process, Ray workers, other
positions beside them), so inside ``batch_independent()`` every network call is padded to
a multiple of ``ROW_BLOCK`` rows (repeating the last board) and cut back. Outside it (play,
analysis, training, the servers) nothing is padded: small batches stay as fast as they were.
Inside it a network also runs on a big batch in pieces of ``ROW_CHUNK`` rows (``row_slices``),
each a multiple of the block, so the same numbers come quicker: its (N, hidden)
temporaries of a couple of thousand rows stay in the cache. Torch-free: the torch evaluator
(``model.policy``) and the NumPy bot files (``model.numpy_net``) both ask here.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

ROW_BLOCK = 64
ROW_CHUNK = 32 * ROW_BLOCK  # rows per forward pass at most, inside batch_independent
_block = 1  # rows a network call is padded to a multiple of, now


@contextmanager
def batch_independent():
    """Pad every network call to a multiple of ``ROW_BLOCK`` rows while inside (restored
    after; the trials of a rollout run in one thread, so a module setting serves)."""
    global _block
    before, _block = _block, ROW_BLOCK
    try:
        yield
    finally:
        _block = before


def padded(boards: np.ndarray) -> np.ndarray:
    """``boards`` (N, 26), with copies of the last one added up to a multiple of the block
    (the same array outside ``batch_independent``); the caller keeps the first N rows."""
    short = -len(boards) % _block
    if not short or not len(boards):
        return boards
    return np.concatenate([boards, np.repeat(boards[-1:], short, axis=0)])


def row_slices(n: int) -> list[slice]:
    """The pieces a padded batch of ``n`` rows goes through a network in: ``ROW_CHUNK`` rows each
    inside ``batch_independent`` (every piece a multiple of the block, so no number
    changes), one piece outside."""
    step = ROW_CHUNK if _block > 1 else max(n, 1)
    return [slice(start, start + step) for start in range(0, n, step)]
