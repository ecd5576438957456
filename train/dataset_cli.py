"""What the commands that write a second-stage dataset share (``python -m gammon.train.mining``,
``python -m gammon.train.rollout_targets``): the options every one takes, the net they label with,
and the one-line error.

    p = dataset_parser("python -m gammon.train.mining", __doc__, settings, "the student and teacher")
    p.add_argument(...)                       # the command's own options
    return run(p, argv, lambda args: ...)     # 0, or 2 with "error: ..." on one line
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def dataset_parser(prog: str, doc: str, defaults, net_role: str):
    """A parser with --data, --net, --positions and --seed (defaults from ``defaults``,
    the command's settings); ``net_role`` says what the net is, for --net's help."""
    from gammon.eval.gnubg.cli import OneLineParser
    p = OneLineParser(prog=prog, description=doc,
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, required=True, help="the dataset file")
    p.add_argument("--net", type=Path, default=None,
                   help=f"the checkpoint of {net_role} (default: the shipped one, "
                        f"checkpoints/default.pt)")
    p.add_argument("--positions", type=int, default=defaults.positions,
                   help=f"the rows the file is to hold (default {defaults.positions})")
    p.add_argument("--seed", type=int, default=defaults.seed)
    return p


def net_bot(net: Path | None, variant: str):
    """(the checkpoint's path, its 0-ply bot): ``net``, or the variant's shipped one."""
    from gammon.eval.bots.registry import make_bot
    from gammon.model.player import shipped
    path = net or shipped(variant)
    return path, make_bot(f"net:{path}", variant=variant)


def log(text: str) -> None:
    """A progress line on stderr."""
    print(text, file=sys.stderr, flush=True)


def run(parser, argv, body) -> int:
    """Parse ``argv`` and run ``body(args)``, which returns the line to print when done.
    "A bad or foreign file gets a one-line error": one line, exit 2, no traceback."""
    from gammon.eval.bots.registry import BotUnavailable
    from gammon.eval.gnubg.cli import UsageError, first_line
    try:
        done = body(parser.parse_args(argv))
    except (UsageError, ValueError, OSError, BotUnavailable) as e:
        print(f"error: {first_line(e)}", file=sys.stderr)
        return 2
    print(done)
    return 0


__all__ = ["dataset_parser", "log", "net_bot", "run"]
