"""Variance reduction of rollouts: the luck of each roll, as GNU Backgammon's lookahead
variance reduction measures it at 0-ply.

Before the player on roll plays the roll he rolled, the value of every one of the 21 rolls
is computed: the 0-ply probabilities (for him) of the position after his best 0-ply play
of that roll (``model.lookahead.best_replies``: 21 rolls x all positions through the move
generator and the net at once). The luck of the roll he rolled is its value minus the mean
of the 21 values, each weighted by its chance (1/36 a double, 2/36 the others). Its mean
over the rolls is exactly 0, whatever the values are, so a trial's result minus the sum of
its luck is an unbiased estimate of the position's value with a smaller variance: the
luck the dice handed out along the trial is taken out. Applied to the six outcome
probabilities as a vector (and so to the five and to the cubeless equity, all linear in
them).

A position is valued once however many trials reach it (the trials of one position share
it at their first ply, and often at their second), and so is an afterstate however many of
its rolls reach it (``Once``: about one in ten do); batches are cut so that the generator
sees ``POSITIONS_PER_CALL`` positions x 21 rolls at a time. The nets' values do not depend
on the batch (``model.rows.batch_independent``), so none of this changes a number.
"""

from __future__ import annotations

import numpy as np

from gammon.engine import outcomes
from gammon.engine.board import flip
from gammon.engine.dice import ROLL_WEIGHTS, ROLLS
from gammon.model.encoding import plain_boards, read_boards
from gammon.model.lookahead import best_replies

POSITIONS_PER_CALL = 32  # positions x 21 rolls per call of best_replies (672 boards)
_MIX = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                 0x27D4EB2F165667C5], dtype=np.uint64)  # odd multipliers of a row's 4 words


def six(probs: np.ndarray) -> np.ndarray:
    """Six exclusive outcomes (N, 6) of six (passed through) or gnubg's five (N, 5)."""
    p = np.asarray(probs, dtype=np.float32)
    if p.shape[-1] == 6:
        return p
    w, wg, wbg, lg, lbg = (p[:, i] for i in range(5))
    return np.stack([wbg, wg - wbg, w - wg, 1 - w - lg, lg - lbg, lbg], axis=1)


class SourceEvaluator:
    """A bare probability source ``boards -> (N, 6|5)`` (gnubg's nets) dressed as the
    evaluator the look-ahead asks: six outcomes, ``after_play`` and ``rules``."""

    encoding = "classic"

    def __init__(self, evaluate, rules):
        self.evaluate, self.rules = evaluate, rules

    def __call__(self, boards: np.ndarray) -> np.ndarray:
        if len(boards) == 0:
            return np.zeros((0, 6), dtype=np.float32)
        return six(self.evaluate(boards))

    def after_play(self, afterstates: np.ndarray) -> np.ndarray:
        return outcomes.after_play(self, afterstates, self.rules)


def as_evaluator(evaluate, rules):
    """``evaluate`` if it already is a look-ahead evaluator (a net's), else wrapped."""
    if callable(getattr(evaluate, "after_play", None)) and hasattr(evaluate, "rules"):
        return evaluate
    return SourceEvaluator(evaluate, rules)


def folded(evaluator, boards: np.ndarray, extra: dict | None) -> np.ndarray:
    """Boards as the evaluator reads them, given the variant's state of the positions
    (``model.encoding.read_boards``: Nuclear's bomb folded in for a net of the nuclear
    encoding; the boards themselves otherwise)."""
    return read_boards(getattr(evaluator, "encoding", None), boards, extra)


def distinct_rows(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One row per distinct board of boards (K, 26) int8 (or any rows of at most 32 int8,
    e.g. a board and its roll): (first (U,) rows, inverse (K,) with
    ``boards[first][inverse] == boards``). Sorts a 64-bit hash of each row, then checks
    every merge against the rows themselves: exact, with a slower exact sort after a
    collision."""
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    width = boards.shape[1]
    padded = np.zeros((len(boards), 32), dtype=np.uint8)  # a row as 4 words of 8 bytes
    padded[:, :width] = boards.view(np.uint8)
    words = padded.view(np.uint64)  # (K, 4)
    hashed = words[:, 0] * _MIX[0]  # (K,) wrapping products
    for column in range(1, 4):
        hashed ^= words[:, column] * _MIX[column]
    order = np.argsort(hashed)
    ordered = hashed[order]
    new = np.ones(len(order), dtype=bool)  # in sorted order: the first of its hash
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    merged = np.flatnonzero(~new)
    if not (words[order[merged]] == words[order[merged - 1]]).all():  # a collision
        rows = boards.view(np.dtype((np.void, width))).reshape(-1)
        _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
        return first, inverse.reshape(-1)
    inverse = np.empty(len(order), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return order[new], inverse


class Once:
    """A look-ahead evaluator that values each distinct afterstate of a batch once
    (``model.lookahead.best_replies`` asks for every play of 21 rolls, and different rolls
    of a position often reach the same board)."""

    def __init__(self, evaluator):
        self.evaluator = evaluator
        self.rules, self.encoding = evaluator.rules, getattr(evaluator, "encoding", None)

    def after_play(self, afterstates: np.ndarray) -> np.ndarray:
        """(K, 6) for the mover of afterstates (K, 26), as the evaluator's."""
        first, inverse = distinct_rows(afterstates)
        return self.evaluator.after_play(afterstates[first])[inverse]


def roll_values(evaluator, boards: np.ndarray, extra: dict | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """For positions before the roll, boards (N, 26) from the player on roll (``extra``:
    the variant's state, name -> (N,) relative to him, e.g. Nuclear's bomb): his best 0-ply play of each of the 21 rolls and its
    0-ply probabilities for him. Returns (values (N, 21, 6) float64, afterstates
    (N, 21, 26) int8 as the rules read them, not flipped)."""
    n = len(boards)
    values = np.empty((n, len(ROLLS), 6), dtype=np.float64)
    after = np.empty((n, len(ROLLS), 26), dtype=np.int8)
    if n == 0:
        return values, after
    seen = folded(evaluator, np.ascontiguousarray(boards, dtype=np.int8), extra)
    rows = np.ascontiguousarray(seen).view(np.dtype((np.void, 26))).reshape(-1)
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    unique = seen[first]  # each position once
    u_values = np.empty((len(unique), len(ROLLS), 6), dtype=np.float64)
    u_after = np.empty((len(unique), len(ROLLS), 26), dtype=np.int8)
    once = Once(evaluator)
    for start in range(0, len(unique), POSITIONS_PER_CALL):
        part = unique[start:start + POSITIONS_PER_CALL]
        replies, probs = best_replies(once, flip(part))  # (k*21, 26), (k*21, 6)
        replies = plain_boards(getattr(evaluator, "encoding", None), replies)
        u_values[start:start + len(part)] = probs.reshape(len(part), len(ROLLS), 6)
        u_after[start:start + len(part)] = replies.reshape(len(part), len(ROLLS), 26)
    inverse = inverse.reshape(-1)
    values[:] = u_values[inverse]
    after[:] = u_after[inverse]
    return values, after


def luck(values: np.ndarray, rolled: np.ndarray) -> np.ndarray:
    """The luck of the rolls rolled, for the player who rolled: values (N, 21, 6) of
    ``roll_values``, rolled (N,) rows of ``ROLLS`` -> (N, 6) float64, the rolled roll's
    value minus the chance-weighted mean of the 21."""
    mean = (values * ROLL_WEIGHTS[None, :, None]).sum(axis=1)
    return values[np.arange(len(values)), rolled] - mean


__all__ = ["POSITIONS_PER_CALL", "Once", "SourceEvaluator", "as_evaluator", "distinct_rows",
           "folded", "luck", "roll_values", "six"]
