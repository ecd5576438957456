"""A checker-play benchmark judged by GNU Backgammon at 2-ply.

    python -m gammon.eval.gnubg.benchmark                      # net: (the shipped net), gnubg, pubeval
    python -m gammon.eval.gnubg.benchmark --bot net:@1 --bot heuristic --json
    python -m gammon.eval.gnubg.benchmark --generate --seed 1  # rebuild the data file (needs gnubg-nn)

The data (``eval/gnubg/data/gnubg_benchmark.npz``, committed) is a set of checker-play decisions:
a position from the mover's view, the roll, every distinct legal result (afterstate) of
that roll, and GNU Backgammon's 2-ply cubeless money equity of each result for the
mover. A bot is asked to choose among the results of every decision, all decisions in a
few batches through its ordinary ``choose``, and its loss on a decision is

    loss = best 2-ply equity among the results - 2-ply equity of the result it chose

reported in millipoints (1 mp = 0.001 points of cubeless money equity) as the mean over
decisions, overall with a 95% interval (normal approximation over decisions), and per
phase. gnubg at 0-ply and pubeval are always scored in the same run, as reference rows;
the gnubg row needs the PyPI package gnubg-nn (``pip install 'gammon[gnubg]'``) and is
left out, with a note, without it. Every other bot scores from the committed file alone.

What "2-ply" means here, as GNU Backgammon counts plies: 0-ply is gnubg's neural net
(or, for bear-offs, its database) valuing the position after the play; every ply looks one
roll further ahead. A result's 2-ply equity is ``gnubg_nn.probabilities(board, 2)`` of
the afterstate seen by the opponent (the board flipped, the opponent on roll), turned back
to the mover (cubeless money equity is the negative for the other side). gnubg_nn
computes it as: for each of the opponent's 21 rolls (1/36 each double, 2/36 each other),
the opponent plays its best reply by gnubg's 0-ply evaluation; then for each of our 21
rolls after that, we play our best reply at 0-ply; the 441 positions reached (the
opponent on roll) are valued by gnubg's 0-ply evaluation and averaged back up, a
finished game counting as its result. Positions of gnubg's two-sided bear-off database
are exact and not searched further. gnubg_nn's search shortcuts (its pruning net) are
off, so every legal reply is scored. This was checked against our own expectimax over
``engine.movegen`` plays with gnubg 0-ply choosing each reply: the same numbers to 1e-6
(the tests check 1-ply the same way). It costs about 45 ms a result in contact positions,
25 ms in crashed ones and 5 ms in races on one core.

The decisions come from gnubg 0-ply self-play (our engine's game loop and dice, gnubg
choosing every play) from a fixed seed. Kept: decisions with at least two distinct
legal results, each (position, roll) once. The phase is gnubg's own classification of
the position before the play (``gnubg_nn.classify``): contact, crashed, and race, where
race includes gnubg's one- and two-sided bear-off classes. The phases are sampled in
fixed shares (``PHASE_SHARES``: 40% contact, 20% crashed, 40% race), not in the mix of
real games (where contact is about three decisions in four and crashed one in fifteen),
so that each phase's figure rests on enough decisions; the overall figure is the plain
mean over the benchmark's decisions. The decisions are stored shuffled, so the first N
(``--positions N``) are a random sample of the whole.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gammon.engine.board import BAR, OPP_BAR, flip, on_board
from gammon.engine.dice import opening_roll
from gammon.engine.movegen import Plays, legal_plays
from gammon.engine.outcomes import equity_of_five
from gammon.engine.rules import variant
from gammon.engine.files import WriteError, write_atomic
from gammon.eval.gnubg.cli import OneLineParser, UsageError, first_line

DATA_PATH = Path(__file__).resolve().parent / "data" / "gnubg_benchmark.npz"
FORMAT = 1  # version of the data file's layout
PHASES = ("contact", "crashed", "race")
PHASE_SHARES = (0.4, 0.2, 0.4)  # share of the decisions drawn from each phase
DEFAULT_POSITIONS = 1200  # decisions --generate draws unless told otherwise
DEFAULT_SEED = 1
DEFAULT_BOTS = ("net:",)
REFERENCE_BOTS = ("gnubg", "pubeval")  # always scored beside the bots asked for
PLIES = 2  # look-ahead of the judge
SPREAD = 4  # candidates per phase at least SPREAD x its quota, so samples span many games
GAMES_PER_BATCH = 100  # self-play games played in lock-step
MAX_GAMES = 20_000
MAX_PLIES = 600  # a game still going after this many plays is dropped (never seen)
CHUNK = 64  # decisions a bot is asked about per call
Z95 = 1.959963984540054
MP = 1000.0  # millipoints per point of equity
KEYS = ("boards", "dice", "phase", "counts", "afterstates", "equity", "meta")
GENERATE_COMMAND = "python -m gammon.eval.gnubg.benchmark --generate --seed {seed} --positions {n}"
RULES = variant("standard")


class BenchmarkDataError(ValueError):
    """The data file is missing, unreadable or damaged (the message says which and how
    to make a new one)."""


# ---------------------------------------------------------------------------- the data

@dataclass
class BenchmarkData:
    """N decisions and their K results, grouped by decision in order.

    boards:      (N, 26) int8   the position before the play, from the mover's view
    dice:        (N, 2) int8    the roll, high die first
    phase:       (N,) int8      index into PHASES (gnubg's class of ``boards``)
    counts:      (N,) int16     distinct legal results of each decision (>= 2)
    afterstates: (K, 26) int8   each result, from the mover's view (not flipped)
    equity:      (K,) float32   gnubg's 2-ply cubeless money equity of it for the mover
    meta:        how the file was made (seed, games, seconds, gnubg-nn version, ...)
    """

    boards: np.ndarray
    dice: np.ndarray
    phase: np.ndarray
    counts: np.ndarray
    afterstates: np.ndarray
    equity: np.ndarray
    meta: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.boards)

    @property
    def offsets(self) -> np.ndarray:
        """Start of each decision's results: (N + 1,) int64."""
        return np.concatenate([[0], np.cumsum(self.counts, dtype=np.int64)])

    @property
    def root(self) -> np.ndarray:
        """The decision of each result: (K,) int64."""
        return np.repeat(np.arange(len(self)), self.counts)

    @property
    def best(self) -> np.ndarray:
        """The best 2-ply equity of each decision: (N,) float64."""
        return np.maximum.reduceat(self.equity.astype(np.float64), self.offsets[:-1])

    def head(self, n: int) -> "BenchmarkData":
        """The first n decisions (a random sample: the file is stored shuffled)."""
        k = int(self.offsets[n])
        return BenchmarkData(self.boards[:n], self.dice[:n], self.phase[:n], self.counts[:n],
                             self.afterstates[:k], self.equity[:k], dict(self.meta))

    def phase_counts(self) -> dict[str, int]:
        """Decisions per phase."""
        return {name: int((self.phase == i).sum()) for i, name in enumerate(PHASES)}


def save(data: BenchmarkData, path: Path) -> None:
    """Write the data as a compressed .npz (the meta as a JSON string)."""
    write_atomic(path, lambda f: np.savez_compressed(
        f, boards=data.boards, dice=data.dice, phase=data.phase, counts=data.counts,
        afterstates=data.afterstates, equity=data.equity, meta=np.array(json.dumps(data.meta))),
        parents=True)


def missing_message(path: Path) -> str:
    """What to do when the data file is not there."""
    command = GENERATE_COMMAND.format(seed=DEFAULT_SEED, n=DEFAULT_POSITIONS)
    return (f"{path}: no benchmark data; make it with: {command} --data {path} "
            f"(needs gnubg-nn; about 11 minutes on one core)")


def load(path: Path | str = DATA_PATH) -> BenchmarkData:
    """The benchmark data of ``path``, checked; BenchmarkDataError when it is missing,
    unreadable or damaged."""
    path = Path(path)
    if not path.is_file():
        raise BenchmarkDataError(missing_message(path))
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = [k for k in KEYS if k not in z.files]
            if missing:
                raise BenchmarkDataError(f"{path}: damaged benchmark data: no {missing[0]!r} "
                                         f"array")
            arrays = {k: z[k] for k in KEYS}
    except BenchmarkDataError:
        raise
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as e:
        raise BenchmarkDataError(f"{path}: not readable benchmark data "
                                 f"({type(e).__name__}: {first_line(e)})") from None
    data = _from_arrays(arrays, path)
    check(data, path)
    return data


def _from_arrays(arrays: dict, path: Path) -> BenchmarkData:
    """BenchmarkData of the file's arrays, with their types checked."""
    types = {"boards": np.int8, "dice": np.int8, "phase": np.int8, "counts": np.int16,
             "afterstates": np.int8, "equity": np.float32}
    for key, dtype in types.items():
        if arrays[key].dtype != dtype:
            raise BenchmarkDataError(f"{path}: damaged benchmark data: {key} is "
                                     f"{arrays[key].dtype}, not {np.dtype(dtype)}")
    try:
        meta = json.loads(str(arrays["meta"]))
    except ValueError:
        raise BenchmarkDataError(f"{path}: damaged benchmark data: meta is no JSON") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise BenchmarkDataError(f"{path}: benchmark data of another format (this code "
                                 f"reads format {FORMAT})")
    return BenchmarkData(*(arrays[k] for k in KEYS[:-1]), meta=meta)


def check(data: BenchmarkData, path: Path | str = "data") -> None:
    """BenchmarkDataError naming the first thing wrong with the arrays' shapes or values."""
    n, k = len(data.boards), len(data.afterstates)
    problems = [
        (data.boards.ndim != 2 or data.boards.shape[1] != 26, "boards are not (N, 26)"),
        (data.dice.shape != (n, 2), "dice are not (N, 2)"),
        (data.phase.shape != (n,) or data.counts.shape != (n,), "phase or counts not (N,)"),
        (data.afterstates.ndim != 2 or data.afterstates.shape[1] != 26,
         "afterstates are not (K, 26)"),
        (data.equity.shape != (k,), "equity is not (K,)"),
        (n == 0, "no decisions"),
    ]
    problems += [] if any(bad for bad, _ in problems) else [
        ((data.dice < 1).any() or (data.dice > 6).any(), "a die outside 1..6"),
        ((data.phase < 0).any() or (data.phase >= len(PHASES)).any(), "an unknown phase"),
        ((data.counts < 2).any(), "a decision with fewer than two results"),
        (int(data.counts.sum(dtype=np.int64)) != k, "counts do not add up to the results"),
        (not np.isfinite(data.equity).all() or (np.abs(data.equity) > 3).any(),
         "an equity that is not a number in -3..3"),
    ]
    problems += [] if any(bad for bad, _ in problems) else [
        (not boards_possible(data.boards), "an impossible position"),
        (not boards_possible(data.afterstates), "an impossible result"),
    ]
    for bad, what in problems:
        if bad:
            raise BenchmarkDataError(f"{path}: damaged benchmark data: {what}")


def boards_possible(boards: np.ndarray, checkers: int = 15) -> bool:
    """Whether every board (M, 26) has its bars on the right sides and at most
    ``checkers`` checkers a side (what the move generator needs)."""
    mover, opponent = on_board(boards)
    return bool((boards[:, OPP_BAR] <= 0).all() and (boards[:, BAR] >= 0).all()
                and (mover <= checkers).all() and (opponent <= checkers).all())


# ------------------------------------------------------------------------- scoring bots

def decision_plays(data: BenchmarkData, start: int, stop: int) -> tuple[Plays, np.ndarray]:
    """The engine's legal plays of decisions start..stop-1 and, for each of its rows, the
    row of ``data`` holding the same result: (Plays of K' rows, (K',) int64).

    The plays are generated afresh, so a bot sees exactly what the engine gives it; they
    are matched to the stored results by (decision, board). BenchmarkDataError when the
    two sets differ (a damaged file, or a move generator that changed).
    """
    plays = legal_plays(data.boards[start:stop], data.dice[start:stop], RULES)
    offsets = data.offsets
    stored = data.afterstates[offsets[start]:offsets[stop]]  # (K', 26)
    stored_root = data.root[offsets[start]:offsets[stop]] - start  # (K',)
    if len(plays) != len(stored):
        raise BenchmarkDataError("benchmark data do not match the legal plays of its "
                                 f"positions (decisions {start}..{stop - 1})")
    ours = _row_order(plays.root, plays.boards)
    theirs = _row_order(stored_root, stored)
    if not (np.array_equal(plays.root[ours], stored_root[theirs])
            and np.array_equal(plays.boards[ours], stored[theirs])):
        raise BenchmarkDataError("benchmark data do not match the legal plays of its "
                                 f"positions (decisions {start}..{stop - 1})")
    rows = np.empty(len(plays), dtype=np.int64)
    rows[ours] = theirs + offsets[start]
    return plays, rows


def _row_order(root: np.ndarray, boards: np.ndarray) -> np.ndarray:
    """The order sorting rows by decision, then board cell by cell: (K,) int64."""
    return np.lexsort((*boards.T[::-1], root))


def chosen_rows(bot, data: BenchmarkData, progress=None) -> np.ndarray:
    """The row of ``data`` the bot chooses in each decision: (N,) int64. The bot is asked
    about CHUNK decisions a call; ``progress`` (a tqdm bar or None) is told each chunk."""
    out = np.empty(len(data), dtype=np.int64)
    for start in range(0, len(data), CHUNK):
        stop = min(start + CHUNK, len(data))
        plays, rows = decision_plays(data, start, stop)
        pick = np.asarray(bot.choose(plays, data.boards[start:stop], data.dice[start:stop]))
        out[start:stop] = rows[pick]
        if progress is not None:
            progress.update(stop - start)
    return out


def losses(data: BenchmarkData, rows: np.ndarray) -> np.ndarray:
    """Equity lost in each decision by choosing ``rows``: (N,) float64, >= 0."""
    return data.best - data.equity[rows].astype(np.float64)


def mean_ci(values: np.ndarray) -> tuple[float, float]:
    """Mean and 95% half-width (normal approximation) of independent values."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) == 0:
        return math.nan, math.nan
    half = Z95 * values.std(ddof=1) / math.sqrt(len(values)) if len(values) > 1 else math.nan
    return float(values.mean()), float(half)


def summary(name: str, loss: np.ndarray, data: BenchmarkData, seconds: float) -> dict:
    """One bot's row: overall and per-phase mean loss in mp, the 95% half-width of the
    overall mean, the share of decisions where it chose a best result, and the time."""
    mean, half = mean_ci(loss * MP)
    phases = {}
    for i, phase in enumerate(PHASES):
        mine = loss[data.phase == i] * MP
        phases[phase] = {"decisions": int(len(mine)),
                         "loss_mp": float(mine.mean()) if len(mine) else None}
    return {"bot": name, "decisions": int(len(loss)), "loss_mp": mean, "ci95_mp": half,
            "best_share": float((loss <= 0).mean()), "phases": phases,
            "seconds": round(seconds, 2)}


def score_bot(name: str, bot, data: BenchmarkData,
              show_progress: bool = False) -> tuple[dict, np.ndarray]:
    """Score one bot on the data: its summary row and its losses (N,) in equity."""
    start = time.perf_counter()
    with _bar(len(data), "decision", name, show_progress) as bar:
        loss = losses(data, chosen_rows(bot, data, bar))
    return summary(name, loss, data, time.perf_counter() - start), loss


def _bar(total: int, unit: str, desc: str, show: bool):
    """A tqdm bar on stderr, shown only when asked and stderr is a terminal."""
    from tqdm import tqdm
    return tqdm(total=total, unit=unit, desc=desc, leave=False, dynamic_ncols=True,
                disable=not (show and sys.stderr.isatty()))


def bot_names(asked: list[str] | None) -> list[str]:
    """The bots to score: those asked for (default net:) and then the reference rows,
    each once."""
    names = list(asked or DEFAULT_BOTS)
    return list(dict.fromkeys(names + list(REFERENCE_BOTS)))


def make_bots(names: list[str], seed: int = 0) -> tuple[dict, list[str]]:
    """The bots by name, and notes for reference bots that can't be made here (gnubg
    without gnubg-nn). UsageError for a bot asked for that is unknown or unavailable."""
    from gammon.eval.bots.registry import BotUnavailable, make_bot
    bots, notes = {}, []
    for name in names:
        try:
            bots[name] = make_bot(name, seed)
        except BotUnavailable as e:
            if name in REFERENCE_BOTS:
                notes.append(f"reference row {name} left out: {first_line(e)}")
                continue
            raise UsageError(first_line(e)) from None
        except (ValueError, OSError) as e:  # unknown names, bad checkpoints
            raise UsageError(f"bot {name!r}: {first_line(e)}") from None
    return bots, notes


def paired_difference(loss: np.ndarray, reference: np.ndarray) -> dict:
    """Mean and 95% half-width of loss - reference, decision by decision, in mp."""
    mean, half = mean_ci((loss - reference) * MP)
    return {"diff_mp": mean, "ci95_mp": half}


def run(names: list[str], data: BenchmarkData, seed: int = 0,
        show_progress: bool = False) -> tuple[list[dict], list[str]]:
    """Score every bot on the data: their rows (with each row's paired difference from
    gnubg when gnubg is scored) and notes on rows left out."""
    bots, notes = make_bots(names, seed)
    rows, all_losses = [], {}
    for name, bot in bots.items():
        row, all_losses[name] = score_bot(name, bot, data, show_progress)
        rows.append(row)
    if "gnubg" in all_losses:
        for row in rows:
            if row["bot"] != "gnubg":
                row["vs_gnubg"] = paired_difference(all_losses[row["bot"]],
                                                    all_losses["gnubg"])
    return rows, notes


# ------------------------------------------------------------------------------ report

def format_table(rows: list[dict], data: BenchmarkData, source: str) -> str:
    """The rows as a table for people."""
    counts = data.phase_counts()
    head = [f"Checker play judged by GNU Backgammon at {data.meta.get('plies')}-ply: "
            f"{len(data)} decisions from {source}",
            "mean equity loss per decision in millipoints (1 mp = 0.001 cubeless money "
            "equity), lower is better; 95% ±: interval of the overall mean",
            "best play: decisions where the bot chose the 2-ply best; vs gnubg: its loss "
            "minus gnubg 0-ply's on the same decisions (± 95%)",
            ""]
    columns = (["bot", "overall", "95% ±"]
               + [f"{p} ({counts[p]})" for p in PHASES] + ["best play", "vs gnubg"])
    table = [columns]
    for row in rows:
        vs = row.get("vs_gnubg")
        table.append([row["bot"], f"{row['loss_mp']:.2f}", f"{row['ci95_mp']:.2f}"]
                     + [_mp(row["phases"][p]["loss_mp"]) for p in PHASES]
                     + [f"{100 * row['best_share']:.1f}%",
                        f"{vs['diff_mp']:+.2f} ± {vs['ci95_mp']:.2f}" if vs else ""])
    widths = [max(len(r[i]) for r in table) for i in range(len(columns))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                       for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in table]
    return "\n".join(head + lines)


def _mp(value) -> str:
    """A per-phase mean for the table ('-' when the phase has no decisions)."""
    return "-" if value is None else f"{value:.2f}"


def report_json(rows: list[dict], notes: list[str], data: BenchmarkData, source: str) -> str:
    """The rows as JSON for programs."""
    return json.dumps({"data": source, "plies": data.meta.get("plies"), "decisions": len(data),
                       "phases": data.phase_counts(), "unit": "millipoints",
                       "generated": data.meta, "bots": rows, "notes": notes}, indent=2)


# -------------------------------------------------------------------------- generation

def gnubg_nn_module():
    """gnubg_nn with its search shortcuts off; UsageError naming the package without it."""
    try:
        import gnubg_nn
    except ImportError:
        raise UsageError("generating the benchmark needs the gnubg-nn package: "
                         "pip install 'gammon[gnubg]'") from None
    gnubg_nn.set.shortcuts(0)
    return gnubg_nn


def phase_of(g, board: np.ndarray) -> int:
    """gnubg's class of a position (mover on roll) as an index into PHASES; gnubg's
    bear-off classes count as race."""
    from gammon.eval.bots.gnubg import gnubg_board
    c = g.classify(gnubg_board(board))
    if c == g.c_contact:
        return PHASES.index("contact")
    if c == g.c_crashed:
        return PHASES.index("crashed")
    if 0 < c <= g.c_race:  # two-sided bear-off (1), one-sided bear-off (2), race (3)
        return PHASES.index("race")
    raise ValueError(f"gnubg class {c}: a finished game has no decision")


def two_ply_equities(g, afterstates: np.ndarray, plies: int = PLIES) -> np.ndarray:
    """gnubg's ``plies``-ply cubeless money equity of each afterstate (K, 26) for the
    player who moved: (K,) float64 (see the module's docstring for what is computed)."""
    from gammon.eval.bots.gnubg import gnubg_board
    out = np.empty(len(afterstates))
    for i, after in enumerate(afterstates):
        p = g.probabilities(gnubg_board(flip(after)), plies)  # the opponent's view
        out[i] = -float(equity_of_five(p))
    return out


def selfplay_batch(g, rng: np.random.Generator, games: int) -> tuple[np.ndarray, ...]:
    """Play ``games`` games of gnubg 0-ply against itself in lock-step; every decision
    with at least two distinct results: boards (M, 26) int8, dice (M, 2) int8 (high die
    first) and phase (M,) int8."""
    from gammon.engine.dice import roll
    from gammon.eval.bots.gnubg import GnubgBot
    bot = GnubgBot()
    boards = RULES.start_boards(games)  # (G, 26) int8
    live = np.arange(games)
    found = ([], [], [])
    dice = np.sort(opening_roll(rng, games)[1], axis=1)[:, ::-1]
    for _ in range(MAX_PLIES):
        plays = legal_plays(boards[live], dice, RULES)
        for i in np.flatnonzero(plays.counts(len(live)) >= 2):
            found[0].append(boards[live[i]].copy())
            found[1].append(dice[i].copy())
            found[2].append(phase_of(g, boards[live[i]]))
        after = plays.boards[bot.choose(plays, boards[live], dice)]
        over = RULES.end_of_game(after) != 0
        boards[live] = flip(after)
        live = live[~over]
        if len(live) == 0:
            break
        dice = np.sort(roll(rng, len(live)), axis=1)[:, ::-1]
    return (np.array(found[0], dtype=np.int8).reshape(-1, 26),
            np.array(found[1], dtype=np.int8).reshape(-1, 2), np.array(found[2], dtype=np.int8))


def quotas(n: int) -> np.ndarray:
    """Decisions to draw from each phase for n in all: (3,) int64 adding up to n."""
    q = np.floor(np.array(PHASE_SHARES) * n).astype(np.int64)
    q[0] += n - q.sum()
    return q


def distinct(boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
    """Rows of the first occurrence of each (board, roll), in order: (M',) int64."""
    keys = np.concatenate([boards, dice], axis=1)  # (M, 28) int8
    _, first = np.unique(keys, axis=0, return_index=True)
    return np.sort(first)


def draw_candidates(g, rng: np.random.Generator, want: np.ndarray, log=None,
                    batch: int = GAMES_PER_BATCH) -> tuple[tuple[np.ndarray, ...], int]:
    """Self-play until each phase has SPREAD times its quota of distinct decisions (or
    all it can by MAX_GAMES): (boards, dice, phase) of the distinct ones, and the games
    played."""
    parts, games = [], 0
    while True:
        parts.append(selfplay_batch(g, rng, batch))
        games += batch
        boards, dice, phase = (np.concatenate(p) for p in zip(*parts))
        keep = distinct(boards, dice)
        boards, dice, phase = boards[keep], dice[keep], phase[keep]
        have = np.bincount(phase, minlength=len(PHASES))
        if log:
            log(f"{games} games: {dict(zip(PHASES, have.tolist()))} distinct decisions")
        if (have >= SPREAD * want).all() or games >= MAX_GAMES:
            return (boards, dice, phase), games


def sample(rng: np.random.Generator, phase: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Rows drawn uniformly without replacement, ``want[i]`` of phase i (all there are
    if fewer), then shuffled together: (n,) int64."""
    rows = [rng.choice(np.flatnonzero(phase == i), size=min(int(w), int((phase == i).sum())),
                       replace=False) for i, w in enumerate(want)]
    return rng.permutation(np.concatenate(rows))


def generate(n: int = DEFAULT_POSITIONS, seed: int = DEFAULT_SEED, show_progress: bool = False,
             log=None, batch: int = GAMES_PER_BATCH, plies: int = PLIES) -> BenchmarkData:
    """Draw n decisions from gnubg self-play (seeded, ``batch`` games at a time) and score
    every result at ``plies`` (2; less only for quick tests)."""
    g = gnubg_nn_module()
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    want = quotas(n)
    (boards, dice, phase), games = draw_candidates(g, rng, want, log, batch)
    natural = np.bincount(phase, minlength=len(PHASES))
    pick = sample(rng, phase, want)
    boards, dice, phase = boards[pick], dice[pick], phase[pick]
    plays = legal_plays(boards, dice, RULES)
    equity = np.empty(len(plays), dtype=np.float32)
    with _bar(len(plays), "result", f"{plies}-ply", show_progress) as bar:
        for s in range(0, len(plays), 256):
            equity[s:s + 256] = two_ply_equities(g, plays.boards[s:s + 256], plies)
            bar.update(len(equity[s:s + 256]))
    meta = {"format": FORMAT, "seed": seed, "positions": n, "plies": plies,
            "games": games, "distinct_decisions_by_phase": dict(zip(PHASES, natural.tolist())),
            "phase_shares": dict(zip(PHASES, PHASE_SHARES)),
            "gnubg_nn": _gnubg_nn_version(),
            "seconds": round(time.perf_counter() - start, 1),
            "command": GENERATE_COMMAND.format(seed=seed, n=n)}
    return BenchmarkData(boards, dice, phase, plays.counts(len(boards)).astype(np.int16),
                         plays.boards.astype(np.int8), equity, meta)


def _gnubg_nn_version() -> str:
    """gnubg_nn's version string, or 'unknown'."""
    try:
        from gnubg_nn import __version__ as v
        return str(getattr(v, "version", "unknown"))
    except ImportError:
        return "unknown"


# ------------------------------------------------------------------------ command line

def parser() -> argparse.ArgumentParser:
    """The command line's options."""
    p = OneLineParser(prog="python -m gammon.eval.gnubg.benchmark",
                description="Checker play judged by GNU Backgammon at 2-ply: mean equity "
                            "loss per decision (millipoints), by phase, with gnubg 0-ply "
                            "and pubeval as reference rows.")
    p.add_argument("--bot", action="append", metavar="NAME",
                   help="a bot to score (repeatable; default net:, the shipped network)")
    p.add_argument("--positions", metavar="N", type=str, default=None,
                   help="score only the first N decisions of the data (a random sample); "
                        f"with --generate, how many to draw (default {DEFAULT_POSITIONS})")
    p.add_argument("--json", action="store_true", help="write JSON instead of a table")
    p.add_argument("--data", metavar="PATH", default=str(DATA_PATH),
                   help="the benchmark data (default: the committed file)")
    p.add_argument("--generate", action="store_true",
                   help="draw and score new decisions into --data (needs gnubg-nn)")
    p.add_argument("--seed", type=str, default=None,
                   help=f"with --generate, the self-play seed (default {DEFAULT_SEED}); "
                        "else the seed of random bots (default 0)")
    return p


def whole_number(text: str | None, option: str, low: int) -> int | None:
    """An option's value as an int >= low (None stays None); UsageError otherwise."""
    if text is None:
        return None
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"{option} takes a whole number, got {text[:40]!r}") from None
    if value < low:
        raise UsageError(f"{option} must be at least {low}, got {value}")
    return value


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (or --generate its data); 0 on success, 2 on bad input."""
    try:
        args = parser().parse_args(argv)
        positions = whole_number(args.positions, "--positions", 1)
        seed = whole_number(args.seed, "--seed", 0)
        if args.generate:
            return _generate(args, positions, seed)
        return _benchmark(args, positions, seed)
    except (UsageError, BenchmarkDataError, WriteError) as e:
        print(f"gnubg_benchmark: error: {first_line(e)}", file=sys.stderr)
        return 2


def _generate(args, positions: int | None, seed: int | None) -> int:
    """--generate: draw, score and save the data; say where and how long it took."""
    if args.bot:
        raise UsageError("--generate makes the data; score bots in a separate run")
    show = sys.stderr.isatty()
    data = generate(positions or DEFAULT_POSITIONS, DEFAULT_SEED if seed is None else seed,
                    show_progress=show, log=lambda m: print(m, file=sys.stderr))
    save(data, Path(args.data))
    print(f"{args.data}: {len(data)} decisions {data.phase_counts()}, "
          f"{len(data.afterstates)} results scored at {data.meta['plies']}-ply in "
          f"{data.meta['seconds']:.0f} s")
    return 0


def _benchmark(args, positions: int | None, seed: int | None) -> int:
    """Score the bots on the data and print the table (or JSON)."""
    data = load(args.data)
    if positions is not None:
        if positions > len(data):
            raise UsageError(f"--positions {positions}: {args.data} holds {len(data)} "
                             f"decisions")
        data = data.head(positions)
    rows, notes = run(bot_names(args.bot), data, seed or 0, show_progress=True)
    for note in notes:
        print(f"gnubg_benchmark: note: {note}", file=sys.stderr)
    if args.json:
        print(report_json(rows, notes, data, args.data))
    else:
        print(format_table(rows, data, args.data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
