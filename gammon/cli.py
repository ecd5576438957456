"""The ``gammon`` command: parses the command line and runs one subcommand.

Every subcommand lives in its own module and registers itself with ``add_parser``; errors
from bad input become one line on stderr and exit code 2, never a traceback. That holds
for the parser's own errors too (an unknown option, a missing argument, a value of the
wrong kind): one line naming the command, not argparse's usage block. A file that cannot be
written (``engine.files.WriteError``: a full disk, a read-only filesystem, a folder that is
missing or not writable, a run directory another process is using) is such an error too.
"""

from __future__ import annotations

import argparse
import sys

from gammon.engine.files import WriteError

from . import commands
from .errors import UsageError, one_line, quote


class _ParseError(Exception):
    """argparse found bad arguments: (the command's name, the message)."""

    def __init__(self, prog: str, message: str):
        super().__init__(message)
        self.prog, self.message = prog, message


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are raised (and printed by ``main`` as one line)
    instead of printing the usage and exiting. Subcommand parsers are of the same class."""

    def error(self, message: str):
        raise _ParseError(self.prog, message)

    def _check_value(self, action, value):
        # argparse's own message repeats the whole value: quote it (80 characters at most)
        if action.choices is not None and value not in action.choices:
            choices = ", ".join(str(c) for c in action.choices)
            raise argparse.ArgumentError(action, f"invalid choice: {quote(value)} "
                                                 f"(choose from {choices})")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = Parser(
        prog="gammon",
        description="gammon: a backgammon AI trainer. Rules engine, bots, training, analysis.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module in commands.ALL:
        module.add_parser(sub)
    return parser


def _error(command: str, message) -> int:
    print(f"{command}: error: {one_line(message)}", file=sys.stderr)
    return 2


def _tolerant_output() -> None:
    """Characters stdout cannot encode are escaped rather than raising mid-answer."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors="backslashreplace")
        except (ValueError, OSError):
            pass


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
    except _ParseError as e:
        return _error(e.prog, f"{e.message} (see {e.prog} --help)")
    except SystemExit as e:  # --help: argparse printed it
        return e.code if isinstance(e.code, int) else 0
    command = f"gammon {args.command}"
    if extra:
        return _error(command, f"unrecognized arguments: {quote(' '.join(extra))} "
                               f"(see {command} --help)")
    args.argv = list(sys.argv[1:] if argv is None else argv)  # for the lock of a run
    _tolerant_output()
    try:
        return args.run(args) or 0
    except (UsageError, WriteError) as e:
        return _error(command, e)
    except KeyboardInterrupt:
        print(f"{command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def entry() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    entry()
