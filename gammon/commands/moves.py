"""``gammon moves``: the legal plays of a position and roll, as notation and Position IDs."""

from __future__ import annotations

import argparse
import sys

from gammon.engine.rules import VARIANTS

from ..errors import UsageError
from ..positions import answer_requests, dice_words, read_position, read_roll, results

HELP = """\
List every legal play of a position and roll: one line per distinct result, the play in
Magriel notation, a tab, and the resulting Position ID (not flipped: the player who moved
is still the player on roll in the key, as gnubg writes move results). A play that leaves
dice unused ends with a slashed O (U+00D8, as in '6/1 O-slash'). No lines when no play is
legal. The dice may be written 3 1, 31 or 3-1.

With --batch, read 'POSID D1 D2' lines from stdin and answer each with exactly one line:
the resulting Position IDs separated by spaces (an empty line when no play is legal, a
line starting 'error:' for a bad request).

examples:
  gammon moves 4HPwATDgc/ABMA 3 1
  gammon moves 4HPwATDgc/ABMA 31
  printf '4HPwATDgc/ABMA 6 5\\n' | gammon moves --batch
"""


def add_parser(sub) -> None:
    p = sub.add_parser("moves", help="list the legal plays of a position and roll",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("posid", nargs="?", help="gnubg Position ID, e.g. 4HPwATDgc/ABMA")
    p.add_argument("d1", nargs="?", help="first die, 1..6 (or both dice: 31, 3-1)")
    p.add_argument("d2", nargs="?", help="second die, 1..6")
    p.add_argument("--batch", action="store_true",
                   help="read 'POSID D1 D2' lines on stdin, answer one line each")
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant, for the checkers allowed per side (default: standard)")
    p.set_defaults(run=run)


def run(args) -> int:
    if args.batch:
        if args.posid is not None:
            raise UsageError("--batch reads positions from stdin; give no POSID")
        return _batch(args.variant)
    if args.d1 is None:
        raise UsageError("give POSID D1 D2 (or --batch)")
    board = read_position(args.posid, args.variant)
    d1, d2 = read_roll(dice_words(args))
    out = sys.stdout
    for play, result, won in results(board, d1, d2, variant=args.variant):
        # a play that ends the game says so: "wins N", N points to the mover
        out.write(f"{play}\t{result}\twins {won}\n" if won else f"{play}\t{result}\n")
    return 0


def _batch(variant: str) -> int:
    return answer_requests(
        lambda board, d1, d2: " ".join(
            r for _, r, _ in results(board, d1, d2, notation=False, variant=variant)),
        variant)
