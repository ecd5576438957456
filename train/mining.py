"""Disagreement mining for expert iteration: the student (the current net at 0-ply) plays,
the teacher (the same net looking ``plies`` ahead) judges every decision, and the positions
where they part, labelled by the teacher, go into a dataset (``train.rollout_data``).

    python -m gammon.train.mining --data data/mined.gdr --positions 20000 --seed 1
    python -m gammon.train.mining --data data/mined.gdr --positions 40000 --seed 1   # goes on

A decision is a position, its roll and the legal plays. The student's play is the best by
0-ply equity. The teacher's (GNU Backgammon's way of finding a play at 2-ply, with a
stricter second filter as its "world class" setting has): the plays the 0-ply move filter
keeps (``model.lookahead.candidates``: at most 8, within 0.16 of the best) are valued at
1-ply; of those, the ``prefilter_plays`` best within ``prefilter`` of the best 1-ply
equity, and the student's play always, are valued at ``plies``; the best of them is the
teacher's play. A decision whose student's play is alone after that filter is an
agreement, and no deeper look is spent on it.

What is kept, each row the position the opponent then faces (the play's afterstate,
flipped) and its label (the teacher's probabilities of the play, seen from that side):

- disagreements: where the teacher's best play beats the student's by ``threshold`` or
  more (equity, by the teacher's values), both resulting positions;
- with ``keep_deep``, every play the teacher looked at ``plies`` deep in a decision with
  a real choice at that depth (the student's, the teacher's and the other plays of the
  second filter, at most ``prefilter_plays`` + 1), each with its own deep value: the
  labels the judging has paid for anyway (wildbg keeps the best, the played and a weaker
  play of a decision the same way), several times the rows for the same core-hours;
- ordinary positions: of the other decisions, a share ``ordinary`` (drawn at random), the
  student's result;
- cube decisions: where the student's cube action on the position his play leaves (the
  opponent's, centred cube: ``model.cube.decide`` on the 0-ply probabilities) is within
  ``cube_window`` of a boundary (double, take, too good) and the teacher's (the same rule
  on his probabilities) differs, that position.

The games: a share ``opponent_share`` against ``opponent`` (positions self-play does not
reach), a share ``crashed_share`` started from crashed positions (``engine.phase``) found by
quick 0-ply games of the same seed, so that the crashed network gets its share; the rest
self-play from the start. The student explores as the rollout stage's does
(``train.rollout_positions.Exploring``). A decision already judged in this process (the
same position and roll) is not judged again within its block. Positions both sides have borne in (the
bear-off database values them exactly) and finished games are not kept.

Blocks: ``games`` games a block, each block from a seed of its own (``block_seed``), its
rows appended in one chunk. The blocks done, with their tallies, are in a file beside the
dataset (``PATH.blocks``, JSON, written after each chunk): a run stopped (even by kill -9)
and started again goes on at the next block; a block judged twice appends nothing twice
(the file keeps a board once). Rows: ``trials`` 1 and ``equity_se`` 0 (one look-ahead value,
no sampling); the metadata says ``"kind": "look-ahead labels"`` with the settings.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from gammon.engine.bearoff import all_home
from gammon.engine.board import flip
from gammon.engine.files import write_atomic
from gammon.engine.game import play
from gammon.engine.outcomes import OUTCOMES, equity, flip_outcomes
from gammon.engine.phase import is_crashed
from gammon.engine.policy import Bot, best_per_root
from gammon.model.cube import decide
from gammon.model.lookahead import candidates, check_plies, look_ahead

from . import rollout_data as rd
from .rollout_positions import PHASES, Exploring, phase_of
from .rollout_targets import block_seed

KINDS = ("disagreement", "ordinary", "cube", "deep")


@dataclass(frozen=True)
class MiningSettings:
    """How the games are played and judged (all but ``positions`` in the file's metadata)."""

    positions: int = 20_000  # the rows the file is to hold
    seed: int = 1
    plies: int = 2  # the teacher's look-ahead
    threshold: float = 0.012  # equity by which the teacher's play must beat the student's
    prefilter: float = 0.04  # the 1-ply window of the plays looked at ``plies`` deep
    prefilter_plays: int = 3  # at most this many of them (and the student's play)
    ordinary: float = 0.05  # share of the agreeing decisions whose result is kept
    cube_window: float = 0.1  # cube decisions this close to a boundary are judged
    explore: float = 0.1
    within: float = 0.1
    opponent: str = "pubeval"  # "": self-play only
    opponent_share: float = 0.2
    crashed_share: float = 0.25
    games: int = 32  # games per block
    validation: float = 0.1
    variant: str = "standard"
    keep_deep: bool = False  # keep every play valued deep in a contested decision

    def check(self) -> None:
        """ValueError naming the first setting out of range."""
        for name in ("positions", "games", "prefilter_plays"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} is a whole number, 1 or more, got {value!r}")
        check_plies(self.plies)
        if self.plies < 1:
            raise ValueError("the teacher looks 1 or 2 plies ahead, got 0")
        for name in ("explore", "opponent_share", "crashed_share", "validation", "ordinary"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"{name} is between 0 and 1, got {getattr(self, name)!r}")
        if self.opponent_share + self.crashed_share > 1:
            raise ValueError("opponent_share and crashed_share add up to 1 at most")
        for name in ("threshold", "prefilter", "within", "cube_window"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"{name} is 0 or more, got {getattr(self, name)!r}")

    def fixed(self) -> dict:
        out = asdict(self)
        out.pop("positions")
        if not self.keep_deep:  # the files made before the setting existed resume as they were
            out.pop("keep_deep")
        return out


@dataclass
class Tally:
    """What a block's judging found (summed over blocks in the progress file)."""

    decisions: int = 0  # decisions judged (two plays or more, not judged before)
    deep: int = 0  # of those, decisions whose plays were looked at ``plies`` deep
    loss: float = 0.0  # the student's equity lost, by the teacher, summed over decisions
    disagreement: int = 0
    ordinary: int = 0
    cube: int = 0
    deep_rows: int = 0  # with keep_deep: the plays valued deep kept beyond the disagreements
    seconds: float = 0.0

    def add(self, other: "Tally") -> None:
        for name in asdict(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))


class Judge(Bot):
    """The student at 0-ply, each new decision judged by the teacher; what is kept goes to
    ``rows`` (boards, targets, kinds) and ``tally``. A policy for the game loop (wrap it in
    ``Exploring`` to explore)."""

    name = "student"

    def __init__(self, evaluator, settings: MiningSettings, rng: np.random.Generator,
                 seen: set[bytes]):
        self.ev, self.s, self.rng, self.seen = evaluator, settings, rng, seen
        self.boards: list[np.ndarray] = []
        self.targets: list[np.ndarray] = []
        self.kinds: list[np.ndarray] = []
        self.tally = Tally()
        self._last = None  # (plays, equities at 0-ply)

    def scores(self, plays, boards, dice):
        if self._last is None or self._last[0] is not plays:
            self._last = (plays, equity(self.ev.after_play(plays.boards)))
        return self._last[1]

    def choose(self, plays, boards, dice):
        n = len(boards)
        p0 = self.ev.after_play(plays.boards)  # (K, 6) for the mover
        e0 = equity(p0).astype(np.float64)
        self._last = (plays, e0)
        student = best_per_root(e0, plays.root, n)  # (n,)
        counts = np.bincount(plays.root, minlength=n)
        keys = [b.tobytes() + d.tobytes() for b, d in zip(boards, np.asarray(dice, np.int8))]
        fresh = np.array([counts[i] > 1 and keys[i] not in self.seen for i in range(n)],
                         dtype=bool)
        self.seen.update(k for k, f in zip(keys, fresh) if f)
        if fresh.any():
            self._judge(plays, n, p0, e0, student, fresh)
        return student

    def _judge(self, plays, n, p0, e0, student, fresh) -> None:
        s, ev = self.s, self.ev
        root, after = plays.root, plays.boards
        finished = ev.rules.end_of_game(after) != 0  # (K,) exact at any depth
        mine = fresh[root]  # (K,) plays of the decisions judged
        cand = candidates(e0, root, n) & mine
        # 1-ply over the filter's plays
        e1 = np.full(len(after), -np.inf)
        look = np.flatnonzero(cand & ~finished)
        e1[look] = equity(look_ahead(ev, after[look], 1))
        e1[cand & finished] = e0[cand & finished]
        best1 = np.full(n, -np.inf)
        np.maximum.at(best1, root[cand], e1[cand])
        # the second filter: the best few within the window, and the student's play
        near = cand & (e1 >= best1[root] - s.prefilter)
        rows = np.flatnonzero(near)
        rows = rows[np.lexsort((-e1[rows], root[rows]))]  # by position, best first
        rank = np.arange(len(rows)) - np.searchsorted(root[rows], root[rows])
        deep = np.zeros(len(after), dtype=bool)
        deep[rows[rank < s.prefilter_plays]] = True
        judged = np.flatnonzero(fresh)
        deep[student[judged]] = True
        per = np.bincount(root[deep], minlength=n)
        contest = fresh & (per > 1)  # decisions with a real choice at depth
        deep &= contest[root]
        probs = np.full((len(after), 6), np.nan, dtype=np.float32)  # the teacher's
        # the student's results, for the cube and ordinary rows, may need a deep value too
        cube_rows = self._cube_candidates(p0, student[judged])
        ordinary = judged[self.rng.random(len(judged)) < s.ordinary]
        extra = np.union1d(student[ordinary], cube_rows)
        need = np.union1d(np.flatnonzero(deep), extra).astype(np.int64)
        probs[need] = self._deep(after[need], finished[need], p0[need])
        e2 = np.where(deep, equity(np.nan_to_num(probs)), -np.inf)
        teacher = best_per_root(e2, root, n)  # rows; meaningful where contest
        tally = Tally(decisions=len(judged), deep=int(contest.sum()))
        keep, kinds = [], []
        for i in np.flatnonzero(contest):
            t, st = teacher[i], student[i]
            loss = float(e2[t] - e2[st])
            tally.loss += loss
            if loss >= s.threshold and t != st:
                keep += [st, t]
                kinds += [0, 0]
                tally.disagreement += 1
            elif s.keep_deep:
                both = [st] if t == st else [st, t]
                keep += both
                kinds += [3] * len(both)
                tally.deep_rows += len(both)
        if s.keep_deep:  # the other plays valued deep (the student's and teacher's are in)
            others = np.flatnonzero(deep & contest[root])
            others = others[(others != student[root[others]]) &
                            (others != teacher[root[others]])]
            keep += others.tolist()
            kinds += [3] * len(others)
            tally.deep_rows += len(others)
        for r in student[ordinary]:
            keep.append(r)
            kinds.append(1)
            tally.ordinary += 1
        if len(cube_rows):
            student_cube = decide(flip_outcomes(p0[cube_rows].astype(np.float64)))
            teacher_cube = decide(flip_outcomes(probs[cube_rows].astype(np.float64)))
            differ = (student_cube.action != teacher_cube.action) | \
                     (student_cube.response != teacher_cube.response)
            for r in cube_rows[differ]:
                keep.append(r)
                kinds.append(2)
                tally.cube += 1
        self.tally.add(tally)
        if keep:
            keep = np.asarray(keep, dtype=np.int64)
            ok = ~finished[keep]
            boards = flip(after[keep[ok]])  # the positions the opponent then faces
            ok2 = ~all_home(boards)
            self.boards.append(boards[ok2])
            self.targets.append(np.ascontiguousarray(
                flip_outcomes(probs[keep[ok]][ok2]), dtype=np.float32))
            self.kinds.append(np.asarray(kinds, dtype=np.int8)[ok][ok2])

    def _cube_candidates(self, p0, rows) -> np.ndarray:
        """The student's results whose cube decision (the opponent's, centred cube, by the
        0-ply probabilities) lies within ``cube_window`` of a boundary: rows (M,)."""
        if not len(rows) or self.s.cube_window <= 0:
            return np.zeros(0, dtype=np.int64)
        from gammon.model.cube import cube_equities
        eq = cube_equities(flip_outcomes(p0[rows].astype(np.float64)))
        nd, dt, dp = (np.asarray(x, dtype=np.float64) for x in
                      (eq.no_double, eq.double_take, eq.double_pass))
        gap = np.minimum.reduce([np.abs(np.minimum(dt, dp) - nd), np.abs(dt - dp),
                                 np.abs(nd - dp)])
        return np.unique(rows[gap < self.s.cube_window])

    def _deep(self, after, finished, p0) -> np.ndarray:
        """The teacher's probabilities (M, 6) of afterstates (M, 26) for the mover."""
        out = p0.copy()  # a finished game's result is exact
        going = np.flatnonzero(~finished)
        if len(going):
            out[going] = look_ahead(self.ev, after[going], self.s.plies)
        return out

    def take(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rows kept so far (boards (M, 26), targets (M, 6), kinds (M,)), emptied."""
        if not self.boards:
            return (np.zeros((0, 26), np.int8), np.zeros((0, 6), np.float32),
                    np.zeros(0, np.int8))
        out = (np.concatenate(self.boards), np.concatenate(self.targets),
               np.concatenate(self.kinds))
        self.boards, self.targets, self.kinds = [], [], []
        return out


def crashed_starts(bot, count: int, rng: np.random.Generator, variant: str) -> np.ndarray:
    """``count`` crashed positions before the roll (``engine.phase.is_crashed``), drawn
    from quick 0-ply self-play games of ``bot``: (count, 26) int8 (fewer if none found)."""
    if count <= 0:
        return np.zeros((0, 26), dtype=np.int8)
    found: list[np.ndarray] = []

    def record(boards, dice):
        crashed = is_crashed(boards) & ~all_home(boards)
        if crashed.any():
            found.append(boards[crashed].copy())
    play((bot, bot), max(16, 4 * count), rng, variant, on_position=record)
    if not found:
        return np.zeros((0, 26), dtype=np.int8)
    pool = np.unique(np.concatenate(found), axis=0)
    return pool[rng.choice(len(pool), size=count, replace=len(pool) < count)]


def mine_block(evaluator, bot, settings: MiningSettings, block: int, opponents=()):
    """One block's games, judged: (boards, targets, kinds, Tally). The same block gives
    the same rows, whatever ran before it (a resumed file ends as one run's would)."""
    started = time.perf_counter()
    rng = np.random.default_rng(block_seed(settings.seed, block))
    judge = Judge(evaluator, settings, rng, set())
    student = Exploring(judge, settings.explore, settings.within, rng)
    g = settings.games
    against = round(g * settings.opponent_share) if opponents else 0
    crashed = round(g * settings.crashed_share)
    plans = [((student, student), g - against - crashed, False)]
    for k, other in enumerate(opponents):
        share = against // len(opponents) + (k < against % len(opponents))
        plans += [((student, other), share - share // 2, False),
                  ((other, student), share // 2, False)]
    plans.append(((student, student), crashed, True))
    for policies, n, from_crashed in plans:
        if n <= 0:
            continue
        start = crashed_starts(bot, n, rng, settings.variant) if from_crashed else None
        if start is not None and len(start) < n:
            continue  # no crashed position found: none of these games
        play(policies, n, rng, settings.variant, start=start)
    boards, targets, kinds = judge.take()
    judge.tally.seconds = time.perf_counter() - started
    return boards, targets, kinds, judge.tally


def progress_path(path) -> Path:
    return Path(f"{path}.blocks")


def read_progress(path) -> dict:
    """The progress file beside a dataset: {"blocks": {str(block): tally}} (empty if none)."""
    p = progress_path(path)
    if not p.exists():
        return {"blocks": {}}
    try:
        out = json.loads(p.read_text())
        assert isinstance(out.get("blocks"), dict)
        return out
    except (ValueError, AssertionError, AttributeError):
        raise rd.DatasetError(f"{p}: not a mining progress file") from None


def totals(progress: dict) -> Tally:
    """The tallies of every block done, summed."""
    out = Tally()
    for t in progress["blocks"].values():
        out.add(Tally(**t))
    return out


def generate(path, bot, net_file, settings: MiningSettings, log=None) -> int:
    """Mine blocks into the dataset ``path`` (made with its metadata when missing) until it
    holds ``settings.positions`` rows; the rows appended. ``bot``: the net of the
    checkpoint ``net_file`` (student and teacher)."""
    from gammon.eval.bots.registry import make_bot
    settings.check()
    opponents = (make_bot(settings.opponent, variant=settings.variant),) \
        if settings.opponent else ()
    checksum = rd.file_checksum(net_file)
    path = Path(path)
    if not path.exists():
        rd.create(path, {"kind": "look-ahead labels", "net": str(net_file),
                         "net_sha256": checksum, "settings": settings.fixed(),
                         "phases": list(PHASES), "outcomes": list(OUTCOMES),
                         "kinds": list(KINDS)})
    progress = read_progress(path)
    written = 0
    with rd.Writer(path) as writer:
        rd.check_meta(writer.data, settings.fixed(), checksum)
        block = max((int(b) + 1 for b in progress["blocks"]), default=0)
        while len(writer) < settings.positions:
            boards, targets, kinds, tally = mine_block(bot.evaluator, bot, settings, block,
                                                       opponents)
            if len(boards):
                order = np.argsort(kinds, kind="stable")  # a board kept twice: its first kind
                boards, targets = boards[order], targets[order]
                n = len(boards)
                written += writer.append(boards, targets, np.zeros(n, np.float32),
                                         np.ones(n, np.int32), phase_of(boards),
                                         rd.validation_split(boards, settings.validation))
            progress["blocks"][str(block)] = asdict(tally)
            write_atomic(progress_path(path), (json.dumps(progress) + "\n").encode())
            if log:
                t = totals(progress)
                log(f"block {block}: {len(writer):,} positions in {path}; "
                    f"{t.decisions:,} decisions judged, {t.disagreement:,} disagreements, "
                    + (f"{t.deep_rows:,} other deep plays, " if settings.keep_deep else "")
                    + f"student loses {1000 * t.loss / max(t.decisions, 1):.2f} mp a decision; "
                    f"{t.decisions / max(t.seconds, 1e-9):.1f} decisions/s")
            block += 1
    return written


def main(argv=None) -> int:
    from .dataset_cli import dataset_parser, log, net_bot, run
    d = MiningSettings()
    p = dataset_parser("python -m gammon.train.mining", __doc__, d, "the student and teacher")
    p.add_argument("--plies", type=int, default=d.plies,
                   help=f"the teacher's look-ahead, 1 or 2 (default {d.plies})")
    p.add_argument("--threshold", type=float, default=d.threshold,
                   help=f"equity the teacher's play must gain (default {d.threshold})")
    p.add_argument("--ordinary", type=float, default=d.ordinary,
                   help=f"share of agreeing decisions kept (default {d.ordinary})")
    p.add_argument("--games", type=int, default=d.games,
                   help=f"games per block (default {d.games})")
    p.add_argument("--keep-deep", action="store_true",
                   help="keep every play the teacher valued deep in a contested decision, "
                        "not only both sides of a disagreement")

    def mine(args) -> str:
        from gammon.eval.analysis.rollouts import one_thread
        settings = MiningSettings(positions=args.positions, seed=args.seed,
                                  plies=args.plies, threshold=args.threshold,
                                  ordinary=args.ordinary, games=args.games,
                                  keep_deep=args.keep_deep)
        settings.check()
        net, bot = net_bot(args.net, settings.variant)
        with one_thread():
            n = generate(args.data, bot, net, settings, log)
        return f"{n:,} positions mined into {args.data}"

    return run(p, argv, mine)


if __name__ == "__main__":
    sys.exit(main())
