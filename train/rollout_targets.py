"""Rollout targets for the trainer's second stage: positions from the current net's games
(``train.rollout_positions``) rolled out by the same net (``eval.analysis.rollouts``) and
appended, a chunk at a time, to a dataset file (``train.rollout_data``).

    python -m gammon.train.rollout_targets --data data/stage2.gdr --positions 5000 --seed 1
    python -m gammon.train.rollout_targets --data data/stage2.gdr --positions 20000   # goes on

The positions come in blocks of 512, each drawn from games of its own seed
(``sample_positions``), rolled out in order, each with the dice of its place in its block:
a run that is stopped (even by kill -9) and started again finds the first block not yet
in the file and goes on from there, so the file ends as one uninterrupted run would have
made it. ``--positions`` is the count the file is to hold and may grow between runs (the
next blocks follow). The rollout settings and the net's checksum are in the file's
metadata; a run with others is refused in one line (a new file, or the same settings), as
is a file that is no dataset: exit code 2.

With ``--plies 1|2`` a position's target is instead the net's own value of it looking that
far ahead (``model.lookahead.position_values``: 1-ply, the mean over the 21 rolls of the
best 0-ply play; 2-ply, each such play valued at 1-ply), with trials 1 and standard error 0.

Each position's target is its rollout's mean six outcomes for the player on roll (which
sum to 1; with variance reduction a target's entries may stray a little outside [0, 1],
the trainer clips them), with the standard error of its cubeless equity and the trials.
About one position in ten (by a hash of the board, ``validation_split``) is held out for
validation.
"""

from __future__ import annotations

import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from gammon.engine.outcomes import OUTCOMES
from gammon.eval.analysis.rollouts import Settings, rollout

from . import rollout_data as rd
from .rollout_positions import PHASES, SHARES, sample_positions

CHUNK = 128  # positions per rollout call and per chunk of the file
BLOCK = 512  # positions drawn from one seed's games


@dataclass(frozen=True)
class TargetSettings:
    """How the positions are drawn and rolled out (all in the dataset's metadata)."""

    positions: int = 5000  # the rows the file is to hold
    seed: int = 1
    trials: int = 36
    truncate: int | None = 7
    vr: bool = True
    explore: float = 0.1
    within: float = 0.1
    opponent: str = "pubeval"  # "": self-play only
    opponent_share: float = 0.2
    shares: tuple[float, float, float] = SHARES
    validation: float = 0.1
    variant: str = "standard"
    alternatives: int = 0  # positions the net chose against, k per position it chose
    plies: int = 0  # 0: rollouts; 1 or 2: the net's look-ahead value instead

    def rollout(self) -> Settings:
        return Settings(trials=self.trials, seed=self.seed, truncate=self.truncate,
                        vr=self.vr, variant=self.variant)

    def check(self) -> None:
        """ValueError naming the first setting out of range."""
        if isinstance(self.positions, bool) or not isinstance(self.positions, int) \
                or self.positions < 1:
            raise ValueError(f"positions are 1 or more, got {self.positions!r}")
        if isinstance(self.trials, int) and self.trials < 2:
            raise ValueError(f"trials are 2 or more (a standard error needs two), got "
                             f"{self.trials!r}")
        self.rollout().check()
        for name in ("explore", "opponent_share", "validation"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"{name} is between 0 and 1, got {getattr(self, name)!r}")
        if not self.within >= 0:
            raise ValueError(f"within is 0 or more, got {self.within!r}")
        if isinstance(self.alternatives, bool) or not isinstance(self.alternatives, int) \
                or not 0 <= self.alternatives <= 8:
            raise ValueError(f"alternatives are a whole number 0..8, got "
                             f"{self.alternatives!r}")
        if isinstance(self.plies, bool) or self.plies not in (0, 1, 2):
            raise ValueError(f"plies are 0 (rollouts), 1 or 2, got {self.plies!r}")
        if len(self.shares) != len(PHASES) or min(self.shares) < 0 or sum(self.shares) <= 0:
            raise ValueError(f"shares are {len(PHASES)} numbers >= 0 with a sum above 0, got "
                             f"{self.shares!r}")

    def fixed(self) -> dict:
        """The settings a dataset keeps: all but the count of positions."""
        out = asdict(self)
        out.pop("positions")
        out["shares"] = list(self.shares)
        if not self.alternatives:
            out.pop("alternatives")  # files made before the setting existed hold none
        if not self.plies:
            out.pop("plies")  # nor this one
        else:  # no rollout: its settings mean nothing
            for key in ("trials", "truncate", "vr"):
                out.pop(key)
        return out


def block_seed(seed: int, block: int) -> int:
    """The seed of a block's games: one of its own for every (seed, block)."""
    return int(np.random.SeedSequence([seed, block]).generate_state(1, np.uint64)[0])


def draw_block(bot, settings: "TargetSettings", block: int, opponents=()):
    """Block ``block`` of the positions: (BLOCK, 26) int8 boards at most and their phases,
    drawn from games of its own seed (``sample_positions``)."""
    boards, phase = sample_positions(bot, BLOCK, block_seed(settings.seed, block),
                                     settings.explore, settings.within, opponents,
                                     settings.opponent_share, settings.shares,
                                     settings.variant, alternatives=settings.alternatives)
    return np.asarray(boards, dtype=np.int8), np.asarray(phase, dtype=np.int8)


def first_open_block(bot, settings: "TargetSettings", done: set[bytes], opponents=()) -> int:
    """The first block with a position not in the file (``done``): blocks are written in
    order, so a binary search over them (each draw a few seconds) finds it."""
    def complete(block: int) -> bool:
        return all(b.tobytes() in done for b in draw_block(bot, settings, block, opponents)[0])
    if not done or not complete(0):
        return 0
    low, high = 0, 1  # complete(low) holds; find a block that is not complete
    while complete(high):
        low, high = high, high * 2
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if complete(mid) else (low, mid)
    return high


def generate(path: Path, bot, net_file, settings: TargetSettings, progress=None,
             log=None, chunk: int = CHUNK) -> int:
    """Roll out positions of ``settings`` not yet in the dataset ``path`` (made with its
    metadata when missing) until it holds ``settings.positions``; the rows appended.
    ``bot`` plays and rolls out: the net of the checkpoint ``net_file``. DatasetError when
    the file is no dataset or was made with other settings or another net.

    The positions come in blocks of BLOCK, each drawn from games of its own seed
    (``block_seed``), and are rolled out in order, a block's positions already in the
    file (from an earlier block) left out. Position i of block b rolls its dice from the
    stream b * BLOCK + i, whatever chunk or run rolls it out: a file stopped (even by
    kill -9) and resumed, or grown by a later run with a larger ``positions``, holds the
    same rows as one uninterrupted run."""
    from gammon.eval.bots.registry import make_bot
    settings.check()  # all checked, and the bots made, before a file is created
    opponents = (make_bot(settings.opponent, variant=settings.variant),) \
        if settings.opponent else ()
    checksum = rd.file_checksum(net_file)
    if not Path(path).exists():
        kind = "look-ahead labels" if settings.plies else "rollout targets"
        rd.create(path, {"kind": kind, "net": str(net_file),
                         "net_sha256": checksum, "settings": settings.fixed(),
                         "phases": list(PHASES), "outcomes": list(OUTCOMES)})
    with rd.Writer(path) as writer:
        # "a resume with different settings or a different net is refused in one line"
        rd.check_meta(writer.data, settings.fixed(), checksum)
        done = writer.done_boards()
        start = time.perf_counter()
        block = first_open_block(bot, settings, done, opponents) if done else 0
        if log:
            log(f"{len(done):,} positions in {path}; rolling out from block {block} to "
                f"{settings.positions:,} (found in {time.perf_counter() - start:.0f} s)")
        rsettings = settings.rollout()
        written = 0
        while len(writer) < settings.positions:
            boards, phase = draw_block(bot, settings, block, opponents)
            # the block's positions not in the file, as many as the file lacks: (n,)
            todo = np.flatnonzero([b.tobytes() not in done for b in boards])
            todo = todo[:settings.positions - len(writer)]
            for first in range(0, len(todo), chunk):
                rows = todo[first:first + chunk]  # (c,) places in the block
                if settings.plies:
                    targets, se, trials = _looked_ahead(bot, boards[rows], settings.plies)
                    if progress:
                        progress(len(rows))
                else:
                    results = rollout(bot, boards[rows], rsettings,
                                      keys=block * BLOCK + rows, progress=progress)
                    targets = np.stack([r.outcomes.mean(axis=0) for r in results])  # (c, 6)
                    se = np.nan_to_num(np.array([r.equity_se for r in results]))  # (c,)
                    trials = np.array([r.trials for r in results])  # (c,)
                split = rd.validation_split(boards[rows], settings.validation)  # (c,)
                written += writer.append(boards[rows], targets, se, trials, phase[rows],
                                         split)
                done.update(b.tobytes() for b in boards[rows])
                if log:
                    log(f"block {block}: {len(writer):,} positions in {path}")
            block += 1
    return written


def _looked_ahead(bot, boards: np.ndarray, plies: int):
    """Look-ahead labels of positions (c, 26): targets (c, 6) for the player on roll (the
    net ``plies`` ahead, ``model.lookahead.position_values``), equity_se 0 and trials 1
    (one value, no sampling)."""
    from gammon.eval.analysis.rollouts import one_thread
    from gammon.model.lookahead import position_values
    with one_thread():
        targets = position_values(bot.evaluator, boards, plies)
    return targets, np.zeros(len(boards), np.float32), np.ones(len(boards), np.int32)


def main(argv=None) -> int:
    from .dataset_cli import dataset_parser, log, net_bot, run
    d = TargetSettings()
    p = dataset_parser("python -m gammon.train.rollout_targets", __doc__, d,
                       "the net that plays and rolls out")
    p.add_argument("--trials", type=int, default=d.trials)
    p.add_argument("--truncate", type=int, default=d.truncate,
                   help=f"plies per trial (-1: to the end; default {d.truncate})")
    p.add_argument("--no-vr", action="store_true", help="no variance reduction")
    p.add_argument("--explore", type=float, default=d.explore)
    p.add_argument("--within", type=float, default=d.within)
    p.add_argument("--opponent", default=d.opponent, help="'' for self-play only")
    p.add_argument("--opponent-share", type=float, default=d.opponent_share)
    p.add_argument("--alternatives", type=int, default=d.alternatives, metavar="K",
                   help="also roll out the results of each position's K + 1 best plays "
                        "(within --within of the best): the plays the net chose against "
                        f"(default {d.alternatives})")
    p.add_argument("--plies", type=int, default=d.plies, choices=(0, 1, 2),
                   help="label by the net's look-ahead at 1 or 2 plies instead of rollouts "
                        f"(default {d.plies}: rollouts)")
    p.add_argument("--validation", type=float, default=d.validation,
                   help=f"the share held out for validation (default {d.validation})")

    def label(args) -> str:
        settings = TargetSettings(
            positions=args.positions, seed=args.seed, trials=args.trials,
            truncate=None if args.truncate < 0 else args.truncate, vr=not args.no_vr,
            explore=args.explore, within=args.within, opponent=args.opponent,
            opponent_share=args.opponent_share, validation=args.validation,
            alternatives=args.alternatives, plies=args.plies)
        settings.check()
        net, bot = net_bot(args.net, settings.variant)
        from tqdm import tqdm
        with tqdm(unit="trial", disable=None, leave=False) as bar:
            n = generate(args.data, bot, net, settings, bar.update, log)
        return f"{n:,} positions rolled out into {args.data}"

    return run(p, argv, label)


if __name__ == "__main__":
    sys.exit(main())
