"""The exact one-sided bear-off database, and the races it values (NumPy only).

One side alone, up to 15 checkers on its six home points, nothing in the way: for each of
the C(21, 6) = 54,264 such positions (the empty one included), the chances of needing
exactly k rolls to bear every checker off (``rolls``, k = 0..31) and to bear the first
checker off (``first``, for gammons), each under the play that makes its own mean
smallest. Plays come from the engine's generator (``engine.movegen.legal_plays``, standard
rules), so the table obeys the same bear-off rules as the game.

A position's index is the combinatorial number of its checker counts c1..c6 (point 1 first):
with S_j = c1 + ... + cj, index = sum_j C(S_j + j - 1, j). Write the counts as a row of 21
marks: cj checkers then a separator for each point, the unused checkers last; the six
separators stand at S_j + j - 1, and the combinatorial number system numbers every choice
of six places out of 21 once, from 0 (no checkers) to 54,263.

Built once (about a minute on one core) and cached under the user cache directory
(``$GAMMON_CACHE``, else ``$XDG_CACHE_HOME/gammon``, else ``~/.cache/gammon``) with a SHA-256
of its arrays; a missing, damaged or foreign file is rebuilt.

A race where every checker of both sides is home is decided by the dice alone, so
``race_probabilities`` values it exactly from the two sides' distributions (the player on
roll finishing on his k-th roll wins unless the opponent finished in k - 1 rolls); a gammon
is a finish before the loser's first checker is off, when the loser still has all of his
checkers. The two distributions of one side come from different plays (racing, saving the
gammon), as a player does whose only worry is one of them: that is the table's one
approximation, and it matters only where both are at stake.
"""

from __future__ import annotations

import hashlib
import os
import sys
from functools import lru_cache
from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np

from .board import flip
from .dice import ROLL_WEIGHTS, ROLLS
from .files import write_atomic

POINTS = 6
MAX_CHECKERS = 15
SIZE = comb(MAX_CHECKERS + POINTS, POINTS)  # 54,264 positions
LONGEST = 32  # rolls kept per distribution; the rare longer ones are counted in the last
VERSION = 1
FILE_NAME = f"bearoff-{MAX_CHECKERS}x{POINTS}-v{VERSION}.npz"
TIE = 1e-9  # plays whose means differ by less are equal; the lower index is taken

# C(n, j) for n < 21 + 1, j <= 6: (22, 7) int64
_BINOMIAL = np.array([[comb(n, j) for j in range(POINTS + 1)] for n in range(MAX_CHECKERS +
                                                                            POINTS + 1)],
                     dtype=np.int64)


def index(counts: np.ndarray) -> np.ndarray:
    """Database index of one side's home boards: (N, 6) checker counts on points 1..6
    (sum <= 15) -> (N,) int64 in 0..54,263."""
    c = np.asarray(counts, dtype=np.int64)
    sums = np.cumsum(c, axis=-1)  # S_j
    j = np.arange(1, POINTS + 1)
    return _BINOMIAL[sums + j - 1, j].sum(axis=-1)


def all_positions() -> np.ndarray:
    """Every one-sided home board, in index order: (54264, 6) int8."""
    # every choice of the six separators' places among 21 marks, back to counts
    places = np.array(list(combinations(range(MAX_CHECKERS + POINTS), POINTS)))  # (SIZE, 6)
    sums = places - np.arange(POINTS)  # S_j
    counts = np.diff(sums, axis=1, prepend=0)
    out = np.empty((SIZE, POINTS), dtype=np.int8)
    out[index(counts)] = counts
    return out


def _shift(dist: np.ndarray) -> np.ndarray:
    """One more roll: (N, K) -> (N, K) moved up by one, the last bucket keeping the tail."""
    out = np.zeros_like(dist)
    out[:, 1:] = dist[:, :-1]
    out[:, -1] += dist[:, -1]
    return out


def _best(pair: np.ndarray, cost: np.ndarray, succ: np.ndarray, pairs: int) -> np.ndarray:
    """Per (position, roll) pair, the row of the play with the smallest cost, the lowest
    successor index among those within TIE of it: pair (P,) sorted, cost (P,), succ (P,)
    -> (pairs,) row numbers into the P plays (every pair 0..pairs-1 present)."""
    starts = np.concatenate([[0], np.flatnonzero(np.diff(pair)) + 1])
    low = np.minimum.reduceat(cost, starts)
    near = cost <= low[pair] + TIE
    key = np.where(near, succ, np.iinfo(np.int64).max)
    lowest = np.minimum.reduceat(key, starts)
    chosen = near & (succ == lowest[pair])
    rows = np.flatnonzero(chosen)
    first = np.ones(len(rows), dtype=bool)
    first[1:] = pair[rows][1:] != pair[rows][:-1]
    rows = rows[first]
    assert len(rows) == pairs
    return rows


def build(progress: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Compute the database: (rolls, first), each (54264, 32) float64.

    Positions are settled in order of their pip count: every play lowers it, so the
    positions a play can reach are settled before the position playing it. For each
    position and each of the 21 rolls the play with the smallest mean number of further
    rolls is taken (for ``first``: a play bearing a checker off needs none more).
    """
    from .movegen import legal_plays  # the generator imports the rules, which import us not

    counts = all_positions()
    pips = counts.astype(np.int64) @ np.arange(1, POINTS + 1)
    on_board = counts.sum(axis=1, dtype=np.int64)
    rolls = np.zeros((SIZE, LONGEST))
    first = np.zeros((SIZE, LONGEST))
    mean = np.zeros(SIZE)
    mean_first = np.zeros(SIZE)
    rolls[0, 0] = first[0, 0] = 1.0  # nothing left to bear off
    levels = range(1, int(pips.max()) + 1)
    bar = _bar(progress, len(levels))
    for level in levels:
        todo = np.flatnonzero(pips == level)  # (L,) positions at this pip count
        boards = np.zeros((len(todo), 26), dtype=np.int8)
        boards[:, 1:POINTS + 1] = counts[todo]
        boards[:, 24] = -MAX_CHECKERS  # the opponent, parked where it is never met
        boards = np.repeat(boards, len(ROLLS), axis=0)  # (L*21, 26): position-major
        plays = legal_plays(boards, np.tile(ROLLS, (len(todo), 1)))
        succ = index(plays.boards[:, 1:POINTS + 1])  # (P,)
        pair = plays.root  # (P,) the (position, roll) pair, sorted
        weights = np.tile(ROLL_WEIGHTS, len(todo))  # (L*21,)
        # bearing everything off: the play with the fewest further rolls
        race = succ[_best(pair, mean[succ], succ, len(boards))]
        rolls[todo] = _by_roll(_shift(rolls[race]), weights, len(todo))
        mean[todo] = 1 + (weights * mean[race]).reshape(len(todo), -1).sum(axis=1)
        # the first checker off: a play that bears one off ends the wait
        off = on_board[succ] < on_board[todo[pair // len(ROLLS)]]
        cost = np.where(off, -1.0, mean_first[succ])
        save = _best(pair, cost, succ, len(boards))
        done_now = off[save]
        wait = np.where(done_now[:, None], _delta(1), _shift(first[succ[save]]))
        first[todo] = _by_roll(wait, weights, len(todo))
        mean_first[todo] = 1 + (weights * np.where(done_now, 0.0, mean_first[succ[save]])) \
            .reshape(len(todo), -1).sum(axis=1)
        bar.update(1)
    bar.close()
    return rolls, first


def _delta(k: int) -> np.ndarray:
    """The distribution "exactly k rolls": (1, 32)."""
    out = np.zeros((1, LONGEST))
    out[0, k] = 1.0
    return out


def _by_roll(dist: np.ndarray, weights: np.ndarray, n: int) -> np.ndarray:
    """Weighted sum over each position's 21 rolls: (n*21, K), (n*21,) -> (n, K)."""
    return (dist * weights[:, None]).reshape(n, len(ROLLS), LONGEST).sum(axis=1)


class _NoBar:
    def update(self, n):
        pass

    def close(self):
        pass


def _bar(show: bool, total: int):
    if not show:
        return _NoBar()
    from tqdm import tqdm
    return tqdm(total=total, desc="bear-off database", unit="pip level", file=sys.stderr,
                leave=False)


# --- the cached file ------------------------------------------------------------------------


def cache_dir() -> Path:
    """Where the database is kept: $GAMMON_CACHE, $XDG_CACHE_HOME/gammon or ~/.cache/gammon."""
    if os.environ.get("GAMMON_CACHE"):
        return Path(os.environ["GAMMON_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "gammon"


def checksum(rolls: np.ndarray, first: np.ndarray) -> str:
    """SHA-256 of the two arrays' bytes, as stored."""
    h = hashlib.sha256()
    for a in (rolls, first):
        h.update(np.ascontiguousarray(a, dtype=np.float32).tobytes())
    return h.hexdigest()


def read(path: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """The arrays of a cached file, or None when it is missing, damaged or foreign."""
    try:
        with np.load(path, allow_pickle=False) as f:
            rolls, first, digest = f["rolls"], f["first"], str(f["sha256"])
    except Exception:  # missing, truncated, not an npz, wrong members: rebuild
        return None
    if rolls.shape != (SIZE, LONGEST) or first.shape != (SIZE, LONGEST):
        return None
    if rolls.dtype != np.float32 or first.dtype != np.float32:
        return None
    if checksum(rolls, first) != digest:
        return None
    return rolls, first


def write(path: Path, rolls: np.ndarray, first: np.ndarray) -> None:
    """Store the arrays (float32) with their checksum, whole or not at all."""
    rolls, first = rolls.astype(np.float32), first.astype(np.float32)
    write_atomic(path, lambda f: np.savez_compressed(f, rolls=rolls, first=first,
                                                     sha256=np.array(checksum(rolls, first))),
                 parents=True)


class BearoffDatabase:
    """The two distributions of every one-sided home board, float32 (54264, 32) each."""

    def __init__(self, rolls: np.ndarray, first: np.ndarray):
        self.rolls, self.first = rolls, first
        self.mean = rolls.astype(np.float64) @ np.arange(LONGEST)  # (54264,)

    @classmethod
    def load(cls, path: Path | None = None, progress: bool | None = None) -> "BearoffDatabase":
        """The cached database, built (and cached where possible) when missing or bad."""
        path = Path(path) if path is not None else cache_dir() / FILE_NAME
        arrays = read(path)
        if arrays is None:
            if progress is None:
                progress = sys.stderr.isatty()
            print(f"gammon: building the bear-off database once ({path})", file=sys.stderr)
            rolls, first = build(progress)
            arrays = rolls.astype(np.float32), first.astype(np.float32)
            try:
                write(path, *arrays)
            except OSError as e:
                print(f"gammon: cannot cache the bear-off database ({e.strerror or e}); "
                      f"it will be built again next time", file=sys.stderr)
        return cls(*arrays)

    def race_probabilities(self, boards: np.ndarray, checkers: int = MAX_CHECKERS,
                           gammons: bool = True) -> np.ndarray:
        """Exact six outcomes (N, 6) for the player on roll of races where every checker is
        home (``all_home``): boards (N, 26) int8. ``checkers``: how many each side has in
        the variant (a gammon needs the loser to have borne none off); ``gammons``: whether
        the variant scores them."""
        b = np.asarray(boards)
        mine = index(np.maximum(b[:, 1:POINTS + 1], 0))
        theirs = index(np.maximum(flip(b)[:, 1:POINTS + 1], 0))
        a, o = self.rolls[mine].astype(np.float64), self.rolls[theirs].astype(np.float64)
        # the mover finishes on roll k; the opponent has had k - 1 rolls: (N, K)
        o_done_before = np.concatenate([np.zeros((len(b), 1)), np.cumsum(o, axis=1)[:, :-1]],
                                       axis=1)
        win = (a * (1 - o_done_before)).sum(axis=1)
        out = np.zeros((len(b), 6))
        if gammons:
            fa, fo = self.first[mine].astype(np.float64), self.first[theirs].astype(np.float64)
            o_first_before = np.concatenate([np.zeros((len(b), 1)),
                                             np.cumsum(fo, axis=1)[:, :-1]], axis=1)
            a_first_by = np.cumsum(fa, axis=1)  # the opponent's k-th roll follows ours
            full_o = (np.maximum(-b, 0).sum(axis=1) == checkers)
            full_a = (np.maximum(b, 0).sum(axis=1) == checkers)
            gammon = np.where(full_o, (a * (1 - o_first_before)).sum(axis=1), 0.0)
            gammoned = np.where(full_a, (o * (1 - a_first_by)).sum(axis=1), 0.0)
            out[:, 1] = np.minimum(gammon, win)
            out[:, 4] = np.minimum(gammoned, 1 - win)
        out[:, 2] = win - out[:, 1]
        out[:, 3] = 1 - win - out[:, 4]
        return out.astype(np.float32)


def all_home(boards: np.ndarray) -> np.ndarray:
    """(N, 26) int8 -> (N,) bool: both sides have checkers left and all of them home
    (the mover's on points 1..6, the opponent's on 19..24, no one on a bar)."""
    cells = np.ascontiguousarray(np.asarray(boards).T)  # (26, N): reductions across rows
    mover_out = (cells[7:26] > 0).any(axis=0)  # run along whole rows of cells, quickly
    opponent_out = (cells[0:19] < 0).any(axis=0)
    mover_on = (cells[1:7] > 0).any(axis=0)
    opponent_on = (cells[19:25] < 0).any(axis=0)
    return ~mover_out & ~opponent_out & mover_on & opponent_on


def settled(boards: np.ndarray, rules) -> np.ndarray:
    """(N, 26) -> (N,) bool: the boards whose value the database gives under ``rules``."""
    if not rules.bearoff_races or len(boards) == 0:
        return np.zeros(len(boards), dtype=bool)
    return all_home(boards)


@lru_cache(maxsize=1)
def database() -> BearoffDatabase:
    """The process's database, loaded (or built) on first use."""
    return BearoffDatabase.load()


def exact_races(boards: np.ndarray, rules) -> tuple[np.ndarray, np.ndarray]:
    """The rows (R,) of boards (N, 26) whose race the database settles under ``rules``
    (``rules.bearoff_races``), and their six outcomes (R, 6) for the player on roll."""
    rows = np.flatnonzero(settled(boards, rules))
    if len(rows) == 0:
        return rows, np.zeros((0, 6), dtype=np.float32)
    probs = database().race_probabilities(boards[rows], rules.checkers, rules.gammons)
    return rows, probs


def with_exact_races(evaluate, boards: np.ndarray, rules) -> np.ndarray:
    """Six outcomes (N, 6) float32 of boards (N, 26) for the player on roll: the races the
    database settles (``exact_races``) from it, the rest from ``evaluate(boards) -> (M, 6)``
    (a network, which so never sees them)."""
    rows, exact = exact_races(boards, rules)
    if len(rows) == 0:
        return np.asarray(evaluate(boards), dtype=np.float32)
    out = np.empty((len(boards), 6), dtype=np.float32)
    rest = np.ones(len(boards), dtype=bool)
    rest[rows] = False
    if rest.any():
        out[rest] = evaluate(boards[rest])
    out[rows] = exact
    return out
