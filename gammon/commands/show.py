"""``gammon show``: a position as a diagram with pip counts and borne-off counts."""

from __future__ import annotations

import argparse

from engine.rules import VARIANTS, variant as get_variant
from engine.formats.diagram import diagram

from ..positions import read_position

HELP = """\
Draw a position given by its gnubg Position ID (for Plakoto, its plakoto: text): the board
from the player on roll's side (X, moving from 24 down to 1) against O, with pip counts and
checkers borne off. Plakoto's pinned checkers are drawn in lower case at the foot of their
point, under the checkers that pin them.

examples:
  gammon show 4HPwATDgc/ABMA
  gammon show --variant plakoto plakoto:-14,0,0,0,0,0,1p,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,14
"""


def add_parser(sub) -> None:
    p = sub.add_parser("show", help="draw a position with pip and borne-off counts",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("posid", help="gnubg Position ID, e.g. 4HPwATDgc/ABMA (Plakoto: plakoto:...)")
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant, for the checkers per side (default: standard)")
    p.set_defaults(run=run)


def run(args) -> int:
    board = read_position(args.posid, args.variant)
    rules = get_variant(args.variant)
    print(diagram(board, rules.checkers, pins=rules.position_format == "plakoto"))
    return 0
