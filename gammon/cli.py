"""The ``gammon`` command: parses the command line and runs one subcommand.

Every subcommand lives in its own module and registers itself with ``add_parser``; errors
from bad input become one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys

from . import commands
from .errors import UsageError


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="gammon",
        description="gammon: a backgammon AI trainer. Rules engine, bots, training, analysis.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module in commands.ALL:
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args) or 0
    except UsageError as e:
        print(f"gammon {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"gammon {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def entry() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    entry()
