"""``gammon explode``: a Nuclear position after the player on roll detonates the bomb."""

from __future__ import annotations

import argparse
import sys

from gammon.engine.formats import posid
from gammon.engine.rules.nuclear import explode

from ..errors import UsageError, quote
from ..positions import answer_lines, read_position

HELP = """\
Nuclear backgammon: print the position after the player on roll detonates the bomb, as a
Position ID. "All blots count as hit and go to the bar": every point holding a single
checker, of either side, is emptied and that checker joins its owner's bar (with any
checkers already there); points of two or more stay. The player who detonated is still on
roll (the detonation comes before his roll); the bomb now belongs to his opponent. A
position without blots comes back unchanged.

With --batch, read one Position ID per line from stdin and answer each with exactly one
line: the exploded Position ID, or a line starting 'error:' for a bad one.

examples:
  gammon explode fwzgQEJ/AADgcw
  printf 'fwzgQEJ/AADgcw\\n4HPwATDgc/ABMA\\n' | gammon explode --batch
"""

VARIANT = "nuclear"


def add_parser(sub) -> None:
    p = sub.add_parser("explode", help="Nuclear: the position after a detonation of the bomb",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("posid", nargs="?", help="gnubg Position ID, e.g. fwzgQEJ/AADgcw")
    p.add_argument("--batch", action="store_true",
                   help="read one Position ID per line on stdin, answer one line each")
    p.set_defaults(run=run)


def exploded(text: str) -> str:
    """The Position ID after a detonation by the player on roll of ``text``'s position."""
    board = read_position(text, VARIANT)
    return posid.encode(explode(board[None])[0])


def _line(line: str) -> str:
    words = line.split()
    if len(words) != 1:
        raise UsageError(f"expected one Position ID per line, got {quote(line.strip())}")
    return exploded(words[0])


def run(args) -> int:
    if args.batch:
        if args.posid is not None:
            raise UsageError("--batch reads positions from stdin; give no POSID")
        return answer_lines(_line, lambda message: f"error: {message}")
    if args.posid is None:
        raise UsageError("give a Position ID (or --batch), e.g. gammon explode fwzgQEJ/AADgcw")
    sys.stdout.write(exploded(args.posid) + "\n")
    return 0
