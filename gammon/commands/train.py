"""``gammon train``: self-play TD(lambda) training from a TOML preset."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import UsageError

HELP = """\
Train a TD-Gammon-style value network by self-play. Games advance in lock-step (one
network call per ply for all of them); lambda-returns are computed when games end and the
network learns from them in minibatches. Every --eval interval of the config, the network
plays paired games against pubeval; the bar shows games/s and the latest result.

The run directory (--out, default from the config) receives checkpoint.pt (for --resume),
model.pt (the network alone: play it with net:DIR/model.pt), evaluations.jsonl and
TensorBoard logs (tensorboard --logdir DIR). Ctrl-C saves a checkpoint and exits.

examples:
  gammon train                                  # configs/default.toml, a few minutes
  gammon train --config configs/strong.toml --out runs/strong
  gammon train --resume runs/strong/checkpoint.pt --games 2000000
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
    p.add_argument("--seed", type=int, help="seed of the run (not with --resume)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=run)


def _load(args):
    from model.checkpoint import CheckpointError
    from train.config import Config, ConfigError, load
    from train.trainer import resume_payload
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
        config = config.with_overrides(train={"games": args.games, "device": args.device,
                                              "seed": args.seed},
                                       run={"out": args.out})
    except (ConfigError, CheckpointError) as e:
        raise UsageError(str(e)) from None
    return config, payload


def run(args) -> int:
    config, payload = _load(args)
    import torch  # noqa: F401  (imported late: --help stays fast)
    from tqdm import tqdm

    from train.trainer import Trainer
    out = Path(args.resume).parent if args.resume and not args.out else Path(config.run.out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        trainer = Trainer(config, out, resume=payload,
                          log=lambda text: print(text, file=sys.stderr))
    except ValueError as e:
        raise UsageError(str(e)) from None
    writer = _writer(out)
    total = config.train.games
    done = trainer.counters.games
    print(f"training {config.model.encoding} net {list(config.model.hidden)} on "
          f"{trainer.device}, {config.train.parallel_games} games in lock-step -> {out}",
          file=sys.stderr)
    with tqdm(total=total, initial=min(done, total), unit="game", dynamic_ncols=True,
              disable=args.no_progress or None, file=sys.stderr) as bar:
        counters = trainer.run(writer, bar)
    if writer is not None:
        writer.close()
    status = "stopped (checkpoint saved)" if trainer.stop_requested else "done"
    print(f"{status}: {counters.games} games in {counters.seconds:.0f} s; "
          f"checkpoint {out / 'checkpoint.pt'}, model {out / 'model.pt'}", file=sys.stderr)
    if counters.history:
        last = counters.history[-1]
        print(f"last evaluation vs pubeval ({last['games']} paired games): "
              f"{last['win_rate']:.1%} wins, {last['ppg']:+.3f} ± {last['ppg_ci95']:.3f} ppg",
              file=sys.stderr)
    return 130 if trainer.stop_requested else 0


def _writer(out: Path):
    """A TensorBoard writer, or None (with a note) when tensorboard is missing."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        print("note: tensorboard is not installed; no TensorBoard logs", file=sys.stderr)
        return None
    return SummaryWriter(log_dir=str(out / "tensorboard"))
