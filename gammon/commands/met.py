"""``gammon met``: a match equity table, built from a gammon rate or loaded from a file."""

from __future__ import annotations

import argparse
import json

from gammon.engine.met import MAX_LENGTH, MatchEquityTable, format_met, met_from_gammon_rate

from ..errors import UsageError, quote
from ..met_tables import table_of
from ..positions import read_fraction, whole_type

DEFAULT_LENGTH = 11
DEFAULT_GAMMON_RATE = 0.26

HELP = f"""\
Print a match equity table (MET). Each number is the chance that the row player wins the
match: the row player needs i more points ("i-away"), the column player j more, before the
Crawford game; row and column 1 are the Crawford game itself (no doubling in it). A last
line gives the post-Crawford chances of the trailer, j-away, against a leader who needs 1
point. The text is in percent; --json gives probabilities.

How the table is built: every game is taken to be an even game, and a won game is a gammon
(twice the cube) with chance G, --gammon-rate (default {DEFAULT_GAMMON_RATE}), for both players at every
score. After the Crawford game the trailer doubles at once, so each game is worth twice as
much to him (less a small allowance at 2-away and 4-away, where the leader can drop a
double for free). The Crawford game is played without a cube. The scores before it are
worked out from the end of the match back to the start: by default with a live cube, each
game's winning chance wandering up and down until it ends, either player doubling when
that is best for him and the other taking or passing, whichever is better for him; with
--cubeless each game is simply played for one point, or two with a gammon. Up to 11-away
the live-cube table with the default gammon rate is 0.4 percentage points from the
Kazaross-XG2 table (built from rollouts) on average, 0.8 at most; the cubeless one is up to
7 points off.

With --file PATH the table is read from a file in the text format of engine/met.py
(headers "length:", optional "name:", "source:", "unit: percent|probability", then a
"pre-crawford" section of rows and a "post-crawford" line; '#' starts a comment; PATH -
reads stdin) or in GNU Backgammon's XML format (its met/*.xml files, explicit tables) and
printed instead; --length then prints only its first N rows and columns. --file
kazaross-xg2 prints the table that ships with gammon: Kazaross XG2, GNU Backgammon 1.07's
default (gammon review --met takes the same names and files).

--length N: the table up to N-away, 1..{MAX_LENGTH} (default {DEFAULT_LENGTH}; with --file, the file's own
length). A 64-point table with the live cube takes about 10 seconds.

--json prints one object: "length", "gammon_rate" (null for --file), "model" ("live cube",
"cubeless" or "file"), "name", "table" (rows i = 1..length, each the probabilities against
j = 1..length: table[i-1][j-1]) and "post_crawford" (the trailer 1..length-away).

examples:
  gammon met --length 7
  gammon met --length 9 --gammon-rate 0.2 --cubeless
  gammon met --length 5 --json
  gammon met --file my_met.txt --length 7
"""


def add_parser(sub) -> None:
    p = sub.add_parser("met", help="a match equity table (from a gammon rate, or a file)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--length", type=whole_type("--length", 1, MAX_LENGTH), default=None,
                   metavar="N",
                   help=f"the table up to N-away, 1..{MAX_LENGTH} (default {DEFAULT_LENGTH}; "
                        "with --file, the file's length)")
    p.add_argument("--gammon-rate", type=_gammon_rate, default=None, metavar="G",
                   help="share of won games that are gammons, 0 <= G < 1 "
                        f"(default {DEFAULT_GAMMON_RATE})")
    p.add_argument("--cubeless", action="store_true",
                   help="play the games before the Crawford game without a cube "
                        "(default: a live cube)")
    p.add_argument("--file", metavar="PATH",
                   help="print the table in this file (the text format of engine/met.py; "
                        "- reads stdin)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def _gammon_rate(text: str) -> float:
    """The argparse type of --gammon-rate: 0 <= G < 1 (a gammon rate of 1 leaves no single
    games, and the model needs some)."""
    message = f"--gammon-rate is a number from 0 up to (not including) 1, got {quote(text)}"
    try:
        rate = read_fraction(text, "--gammon-rate", 0.0, 1.0)
    except UsageError:
        raise argparse.ArgumentTypeError(message) from None
    if rate >= 1.0:
        raise argparse.ArgumentTypeError(message)
    return rate


def table_json(met: MatchEquityTable, length: int, model: str,
               gammon_rate: float | None) -> dict:
    """The --json object of the table up to ``length``-away."""
    def rounded(values) -> list[float]:
        return [round(float(x), 6) for x in values]
    return {
        "length": length,
        "gammon_rate": gammon_rate,
        "model": model,
        "name": met.name,
        "table": [rounded(met.pre[i, 1:length + 1]) for i in range(1, length + 1)],
        "post_crawford": rounded(met.post[1:length + 1]),
    }


def run(args) -> int:
    if args.file is not None:
        if args.gammon_rate is not None or args.cubeless:
            raise UsageError("--gammon-rate and --cubeless build a table; --file reads one: "
                             "give one or the other")
        met = table_of(args.file, "--file")
        length = met.length if args.length is None else args.length
        if length > met.length:
            raise UsageError(f"--length {length} is beyond the table in --file "
                             f"{quote(args.file)}, which goes to {met.length}-away")
        model, rate = "file", None
    else:
        length = DEFAULT_LENGTH if args.length is None else args.length
        rate = DEFAULT_GAMMON_RATE if args.gammon_rate is None else args.gammon_rate
        met = met_from_gammon_rate(length, rate, cube=not args.cubeless)
        model = "cubeless" if args.cubeless else "live cube"
    if args.json:
        print(json.dumps(table_json(met, length, model, rate)))
    else:
        print(format_met(met, length))
    return 0
