"""``gammon show``: a position as a diagram with pip counts and borne-off counts."""

from __future__ import annotations

import argparse

from engine.rules import VARIANTS, variant as get_variant
from engine.formats.diagram import diagram

from ..errors import UsageError
from ..positions import read_position

BOMB = {"centre": 0, "mine": 1, "theirs": -1}  # --bomb: the owner relative to X, on roll

HELP = """\
Draw a position given by its gnubg Position ID (for Plakoto, its plakoto: text): the board
from the player on roll's side (X, moving from 24 down to 1) against O, with pip counts and
checkers borne off. Plakoto's pinned checkers are drawn in lower case at the foot of their
point, under the checkers that pin them. Nuclear's bomb is said beside the board: --bomb
centre (the default), mine (X's, the player on roll's) or theirs (O's).

examples:
  gammon show 4HPwATDgc/ABMA
  gammon show --variant nuclear --bomb theirs fwzgQEJ/AADgcw
  gammon show --variant plakoto plakoto:-14,0,0,0,0,0,1p,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,14
"""


def add_parser(sub) -> None:
    p = sub.add_parser("show", help="draw a position with pip and borne-off counts",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("posid", help="gnubg Position ID, e.g. 4HPwATDgc/ABMA (Plakoto: plakoto:...)")
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant, for the checkers per side (default: standard)")
    p.add_argument("--bomb", choices=list(BOMB),
                   help="Nuclear: who owns the bomb, relative to the player on roll "
                        "(default: centre)")
    p.set_defaults(run=run)


def run(args) -> int:
    board = read_position(args.posid, args.variant)
    rules = get_variant(args.variant)
    has_bomb = "bomb" in rules.extra_state
    if args.bomb is not None and not has_bomb:
        raise UsageError(f"--bomb is for --variant nuclear, not {args.variant}")
    bomb = BOMB[args.bomb or "centre"] if has_bomb else None
    print(diagram(board, rules.checkers, pins=rules.position_format == "plakoto", bomb=bomb))
    return 0
