"""``gammon train``: self-play TD(lambda) training from a TOML preset."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import threading
from pathlib import Path

from gammon.engine.files import WriteError, reason

from ..errors import UsageError

HELP = """\
Train a TD-Gammon-style value network by self-play. Games advance in lock-step (one
network call per ply for all of them); lambda-returns are computed when games end and the
network learns from them in minibatches. Every --eval interval of the config, the network
plays paired games against pubeval; the bar shows games/s and the latest result.

The run directory (--out, default from the config) receives checkpoint.pt (for --resume),
model.pt (the network alone: play it with net:DIR/model.pt), evaluations.jsonl and
TensorBoard logs (tensorboard --logdir DIR). A directory that already holds a run is
refused unless --resume continues that run or --overwrite deletes its files first.
Ctrl-C or SIGTERM saves a checkpoint and exits (exit code 130 or 143).

One process at a time trains in a run directory: it holds DIR/.lock (its pid and command
line) while it runs, and a second `gammon train` on the same directory, with or without
--resume, is refused naming the first. The lock of a process that died (kill -9, a power
loss) is taken over with a note. Reading a run (gammon plot, net:DIR/model.pt) needs none.
A checkpoint that cannot be written (a full disk, a read-only filesystem) stops the run
with one line saying so (exit code 2); the previous checkpoint stays intact, and --resume
continues from it. --keep-going-unsaved warns and trains on instead.

Every key of the config has a range (train/config.py); a value outside it, an unknown key
or a value of the wrong type is refused with the key's name.

examples:
  gammon train                                  # configs/default.toml, a few minutes
  gammon train --config configs/strong.toml --out runs/strong
  gammon train --resume runs/strong/checkpoint.pt --games 2000000
  gammon train --out runs/default --overwrite   # start runs/default again from scratch
  gammon train --variant plakoto --games 20000 --out runs/plakoto
  gammon train --actors 2 --out runs/actors     # self-play on two Ray actors

With --actors N the games are played by N Ray actors (pip install -e '.[ray]'), each with
its own batch of games in lock-step and the latest weights it was sent; this process
values the finished games with its own network, learns, and sends new weights after every
update. Checkpoints and --resume work as without actors, but a resumed run is not the
same bit for bit: which actor's games arrive first depends on timing.
"""

DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "configs" / "default.toml"


def add_parser(sub) -> None:
    p = sub.add_parser("train", help="train a network by self-play TD(lambda)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default=None,
                   help="TOML preset (default: configs/default.toml)")
    p.add_argument("--games", type=int, help="total self-play games (overrides the config)")
    p.add_argument("--device", choices=["auto", "cpu", "cuda"], help="where the network runs")
    p.add_argument("--out", help="run directory (overrides the config)")
    p.add_argument("--resume", metavar="PATH", help="continue a run from its checkpoint.pt")
    p.add_argument("--seed", type=int, help="seed of the run, 0..2**63-1 (not with --resume)")
    from gammon.engine.rules import VARIANTS
    p.add_argument("--variant", choices=list(VARIANTS),
                   help="the rules to train for (overrides the config; Plakoto and Nuclear "
                        "networks take their own encoding, chosen here)")
    p.add_argument("--overwrite", action="store_true",
                   help="delete the run in --out first (checkpoint.pt, model.pt, "
                        "evaluations.jsonl, TensorBoard event files)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--keep-going-unsaved", action="store_true",
                   help="when a checkpoint or evaluation cannot be written (a full disk), "
                        "warn and train on instead of stopping; the run still stops if its "
                        "final checkpoint cannot be written")
    p.add_argument("--actors", type=int, default=None, metavar="N",
                   help="play the games on N Ray actors (each a process with its own "
                        "batch of games); this process learns and sends them the weights. "
                        "Needs the ray extra: pip install -e '.[ray]'")
    p.add_argument("--actor-device", choices=["cpu", "cuda"], default=None,
                   help="with --actors: where the actors' networks run (default cpu; cuda "
                        "shares the GPU among them, for a GPU that also holds the learner)")
    p.add_argument("--ray-address", metavar="ADDR", default=None,
                   help="with --actors: join the Ray cluster at ADDR (e.g. 10.0.0.5:6379, "
                        "started with `ray start --head`); default: a local Ray instance")
    p.set_defaults(run=run)


def _load(args):
    from gammon.model.checkpoint import CheckpointError
    from gammon.train.config import (Config, ConfigError, RANGES, check_stages, check_variant,
                              describe_range, load)
    from gammon.train.trainer import resume_payload
    for flag, key, value in (("--seed", "train.seed", args.seed),
                             ("--games", "train.games", args.games)):
        low, high = RANGES[key]
        if value is not None and not low <= value <= high:
            raise UsageError(f"{flag} must be {describe_range(key)}, got {value}")
    try:
        if args.resume:
            if args.config or args.seed is not None:
                raise UsageError("--resume continues a run with its own config and seed; "
                                 "drop --config/--seed")
            config, payload = resume_payload(args.resume)
        elif args.config is None and not DEFAULT_CONFIG.is_file():
            config, payload = Config(), None  # installed without configs/: the same defaults
        else:
            config, payload = load(args.config or DEFAULT_CONFIG), None
        variant = getattr(args, "variant", None)
        if variant is not None and args.resume and variant != config.train.variant:
            raise UsageError(f"--resume continues a {config.train.variant} run; drop "
                             f"--variant {variant}")
        model = {}
        if variant is not None:
            from gammon.model.encoding import VARIANT_ENCODINGS
            encoding = config.model.encoding
            if variant in VARIANT_ENCODINGS:
                encoding = VARIANT_ENCODINGS[variant]
            elif encoding in VARIANT_ENCODINGS.values():
                encoding = "classic"
            model = {"encoding": encoding}
        config = config.with_overrides(train={"games": args.games, "device": args.device,
                                              "seed": args.seed, "variant": variant},
                                       run={"out": args.out}, model=model)
        check_variant(config)
        check_stages(config)
    except (ConfigError, CheckpointError) as e:
        raise UsageError(str(e)) from None
    return config, payload


def _owns(out: Path, args) -> bool:
    """Whether --resume continues the run in ``out``."""
    return bool(args.resume) and out.resolve() == Path(args.resume).resolve().parent


def _check_place(out: Path, args) -> None:
    """Refuse a run directory that cannot be one, before anything is written (before its
    lock is taken)."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: exists and is not a directory (the run directory, --out)")
    if args.overwrite and _owns(out, args):
        raise UsageError(f"--overwrite would delete the run that --resume continues "
                         f"({args.resume}); drop --overwrite")
    if out.is_dir():
        if not os.access(out, os.W_OK | os.X_OK):
            raise UsageError(f"{out}: the run directory is not writable")
        return
    parent = out.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise UsageError(f"{out}: cannot create the run directory ({parent} is not a "
                         "directory)")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{out}: cannot create the run directory ({parent} is not "
                         "writable)")


def _check_out(out: Path, args) -> None:
    """Refuse a run directory that holds another run (checked holding its lock)."""
    from gammon.train.trainer import run_files
    if out.is_dir():
        files = run_files(out)
        if files and not _owns(out, args) and not args.overwrite:
            names = [p.name for p in files if not p.name.startswith("events.")]
            if len(names) < len(files):
                names.append("TensorBoard event files")
            names = ", ".join(names)
            hint = (f"use --resume {out / 'checkpoint.pt'} to continue it"
                    if (out / "checkpoint.pt").is_file() else "use another --out")
            raise UsageError(f"{out} already holds a run ({names}); {hint}, or --overwrite "
                             "to delete it and start again")


def _prepare_out(out: Path, args) -> None:
    """Create the run directory, make sure it takes files, clear an old run (--overwrite)
    and the temporary files of a save that a kill interrupted."""
    from gammon.train.trainer import clear_run, remove_stale_tmp
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as e:
        raise UsageError(f"{out}: cannot write the run directory ({e.strerror or e})") \
            from None
    if args.overwrite:
        removed = clear_run(out)
        if removed:
            print(f"--overwrite: deleted {len(removed)} files of the old run in {out}",
                  file=sys.stderr)
    stale = remove_stale_tmp(out)
    if stale:
        print(f"removed {len(stale)} temporary files of an interrupted save in {out}",
              file=sys.stderr)


def _start_actors(args) -> None:
    """Check --actors and --ray-address and start Ray, before anything is written."""
    if args.actors is None:
        if args.ray_address is not None or args.actor_device is not None:
            flag = "--ray-address" if args.ray_address is not None else "--actor-device"
            raise UsageError(f"{flag} is for self-play actors; add --actors N")
        return
    if args.actor_device == "cuda":
        import torch
        if not torch.cuda.is_available():
            raise UsageError("--actor-device cuda: torch sees no CUDA device")
    if not 1 <= args.actors <= 4096:
        raise UsageError(f"--actors must be 1..4096 self-play actors, got {args.actors}")
    from gammon.train.actors import ActorError, start_ray
    try:
        start_ray(args.ray_address)
    except ActorError as e:
        raise UsageError(str(e)) from None


def run(args) -> int:
    from ..outputs import claim
    config, payload = _load(args)
    out = Path(args.resume).parent if args.resume and not args.out else Path(config.run.out)
    _check_place(out, args)
    with claim(out, args, "use another --out"):  # one process per run directory
        _check_out(out, args)
        return _train(args, config, payload, out)


def _train(args, config, payload, out: Path) -> int:
    """The run, its directory ``out`` locked by this process."""
    _start_actors(args)
    import torch  # noqa: F401  (imported late: --help stays fast)

    from gammon.train.trainer import Trainer
    try:
        trainer = Trainer(config, out, resume=payload, source=args.resume,
                          log=lambda text: print(text, file=sys.stderr),
                          keep_going_unsaved=args.keep_going_unsaved)
    except ValueError as e:  # CheckpointError: damaged training state; no CUDA device
        raise UsageError(str(e)) from None
    _prepare_out(out, args)
    if args.actors:
        trainer.use_actors(args.actors, device=args.actor_device or "cpu")
    writer = _writer(out)
    try:
        return _run(args, config, trainer, writer, out)
    finally:
        if writer is not None:
            writer.close()


def _run(args, config, trainer, writer, out: Path) -> int:
    """Train to the end (or a stop), with the progress bar; the exit code."""
    from tqdm import tqdm
    total = config.train.games
    done = trainer.counters.games
    print(f"training {config.model.encoding} net {list(config.model.hidden)} on "
          f"{trainer.device}, {config.train.parallel_games} games in lock-step -> {out}",
          file=sys.stderr)
    if args.actors:
        print(f"self-play on {args.actors} Ray actors", file=sys.stderr)
    from gammon.train.actors import ActorError
    with tqdm(total=total, initial=min(done, total), unit="game", dynamic_ncols=True,
              disable=args.no_progress or None, file=sys.stderr) as bar:
        try:
            counters = trainer.run(writer, bar)
        except ActorError as e:
            raise UsageError(f"{e} (checkpoint saved: resume with --resume "
                             f"{out / 'checkpoint.pt'})") from None
        except WriteError as e:
            raise UsageError(_stopped_unsaved(e, trainer, args)) from None
    if trainer.stop_requested:
        name = signal.Signals(trainer.stop_signal).name if trainer.stop_signal else "a signal"
        status = f"stopped by {name} (checkpoint saved)"
    else:
        status = "done"
    print(f"{status}: {counters.games} games in {counters.seconds:.0f} s; "
          f"checkpoint {out / 'checkpoint.pt'}, model {out / 'model.pt'}", file=sys.stderr)
    if counters.history:
        last = counters.history[-1]
        print(f"last evaluation vs {last.get('opponent', 'pubeval')} ({last['games']} paired games): "
              f"{last['win_rate']:.1%} wins, {last['ppg']:+.3f} ± {last['ppg_ci95']:.3f} ppg",
              file=sys.stderr)
    if trainer.stop_requested:
        return 128 + (trainer.stop_signal or signal.SIGINT)
    if config.stage2.generations:
        return _stage2(args, config, writer, out)
    return 0


def _stage2(args, config, writer, out: Path) -> int:
    """The second stage (``train.stage2``): rollouts and supervised learning, generation
    after generation; errors of its files and settings are one line (exit 2)."""
    from tqdm import tqdm

    from gammon.train.rollout_data import DatasetError
    from gammon.train.stage2 import run_stage2
    from gammon.train.supervised import StageError
    with tqdm(unit="trial", dynamic_ncols=True, disable=args.no_progress or None,
              file=sys.stderr, leave=False) as bar:
        try:
            net = run_stage2(config, out, lambda text: print(text, file=sys.stderr),
                             bar.update, writer)
        except (DatasetError, StageError, WriteError) as e:
            raise UsageError(str(e).splitlines()[0]) from None
    print(f"stage 2 done: {config.stage2.generations} generation(s); model {out / 'model.pt'} "
          f"(= {net})", file=sys.stderr)
    return 0


def _stopped_unsaved(e: WriteError, trainer, args) -> str:
    """The one line of a run stopped by a file it could not write: what and why, where it
    stopped, and the checkpoint that is left to resume from."""
    saved = trainer.last_checkpoint
    if saved is None:
        kept = "no checkpoint was written"
    else:
        kept = (f"{saved} ({trainer.saved_games:,} games) is intact: --resume {saved} "
                "continues from it")
    tip = "" if args.keep_going_unsaved else "; --keep-going-unsaved trains on without saving"
    return f"{e}; the run stopped at {trainer.counters.games:,} games, {kept}{tip}"


def _writer(out: Path):
    """A TensorBoard writer (``_Board``), or None (with a note) when tensorboard is missing
    or its log folder cannot be made."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        print("note: tensorboard is not installed; no TensorBoard logs", file=sys.stderr)
        return None
    folder = out / "tensorboard"
    try:
        return _Board(SummaryWriter(log_dir=str(folder)), folder)
    except OSError as e:
        print(f"warning: {WriteError(folder, reason(e))}; no TensorBoard logs",
              file=sys.stderr)
        return None


class _Board:
    """TensorBoard's writer, whose failure to write (a full disk) is one warning line and
    the end of the TensorBoard logs, not a traceback; training goes on (its checkpoints,
    which it cannot do without, stop it if they cannot be written). Its writer thread's
    own report of the failure is silenced while the board is open: the warning says it."""

    def __init__(self, writer, folder: Path):
        self.writer, self.folder = writer, folder
        self._previous_hook = threading.excepthook
        threading.excepthook = self._thread_failed

    def add_scalar(self, *args, **kwargs) -> None:
        self._call("add_scalar", *args, **kwargs)

    def flush(self) -> None:
        self._call("flush")

    def close(self) -> None:
        self._call("close")
        self.writer = None
        if threading.excepthook == self._thread_failed:
            threading.excepthook = self._previous_hook

    def _call(self, name: str, *args, **kwargs) -> None:
        if self.writer is None:
            return
        try:
            getattr(self.writer, name)(*args, **kwargs)
        except OSError as e:
            self.writer = None
            print(f"warning: {WriteError(self.folder, reason(e))}; no more TensorBoard logs "
                  "(training goes on)", file=sys.stderr)

    def _thread_failed(self, hook_args) -> None:
        if issubclass(hook_args.exc_type, OSError) and \
                type(hook_args.thread).__name__ == "_AsyncWriterThread":
            return  # tensorboard's writer thread: its next call raises it, and we say so
        self._previous_hook(hook_args)
