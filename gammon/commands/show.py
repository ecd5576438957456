"""``gammon show``: a position as a diagram with pip counts and borne-off counts, its XGID,
and the match state of a gnubg Match ID (POSID:MATCHID) or of an XGID, as text or JSON."""

from __future__ import annotations

import argparse
import json

import numpy as np

from gammon.engine.board import BAR, OPP_BAR, borne_off, pip_counts
from gammon.engine.formats import position, xgid
from gammon.engine.formats.diagram import diagram
from gammon.engine.formats.matchid import encode_match_id
from gammon.engine.rules import VARIANTS, variant as get_variant
from gammon.engine.rules.plakoto import per_point

from ..errors import UsageError, quote
from ..match_state import match_fields, match_lines, read_position_and_match
from ..positions import answer_lines, read_xgid

BOMB = {"centre": 0, "mine": 1, "theirs": -1}  # --bomb: the owner relative to X, on roll
HELP = """\
Draw a position given by its gnubg Position ID (for Plakoto, its plakoto: text): the board
from the player on roll's side (X, moving from 24 down to 1) against O, with pip counts and
checkers borne off. Plakoto's pinned checkers are drawn in lower case at the foot of their
point, under the checkers that pin them. Nuclear's bomb is said beside the board: --bomb
centre (the default), mine (X's, the player on roll's) or theirs (O's).

GNU Backgammon's POSID:MATCHID form (what gnubg prints as "Position ID" and "Match ID",
joined by a colon) also reads the Match ID: the match length (0 for money play), the
score, the Crawford game, the cube's value and owner, the dice and a pending double or
resignation are said under the board. Everything is from the side of the player on roll,
the mover (X): gnubg writes the Position ID from that side too, and while a double waits
for an answer the doubler stays the mover. A score that has reached the length while the
game goes on, or a Crawford flag where nobody is 1-away (or in money play), is an error.

eXtreme Gammon's XGID (XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10, the "XGID="
optional) is read wherever a Position ID is, here with its cube, score, turn, dice and
rules, and every position is printed with its XGID under the board (a plain Position ID
as money play, the player on roll at the bottom, to roll; a game that is over, or a
resignation on offer, has none). The XGID's bottom player is gnubg's player 1 (X).

--json prints one object instead of the board: "position", "match_id" (null without one;
gnubg's Match ID of an XGID's state), "xgid" (null where there is none), "variant",
"pips", "off" and "bar" ([mover, opponent] each), "length" (0 for money), "score"
([mover, opponent]), "crawford" (this game is the Crawford game; once a game is
over, gnubg's flag says whether the next one is), "cube_value" (before a pending double is
answered), "cube_owner" ("centred", "mover" or "opponent"), "turn" (who decides next:
"mover", or "opponent" while he answers a double or a resignation), "double_offered",
"dice" ([d1, d2], or null when not rolled), "resign" (null, "single", "gammon" or
"backgammon" offered), "game_state" ("playing"; gnubg also writes "over", "resigned",
"dropped" and "no game"), "jacoby" (money play under the Jacoby rule) and, in Nuclear,
"bomb". A plain Position ID gets the money defaults: length 0, score [0, 0], crawford
false, cube 1 centred, turn "mover", no double offered, dice null, game state "playing".

With --batch, read one POSID, POSID:MATCHID or XGID per line on stdin and answer each
with one such JSON line, flushed at once; a bad line is answered {"error": "..."} and the
stream goes on.

examples:
  gammon show 4HPwATDgc/ABMA
  gammon show 4HPwATDgc/ABMA:cAkAAAAAAAAA
  gammon show sGfwATDgc/ABMA:cAnzADAAKAAE --json
  gammon show XGID=-b----E-C---eE---c-e----B-:1:1:-1:52:2:4:0:7:10
  printf '4HPwATDgc/ABMA\\n4HPwBSCwZ/ABMA:MBngADAAKAAE\\n' | gammon show --batch
  gammon show --variant nuclear --bomb theirs fwzgQEJ/AADgcw
  gammon show --variant plakoto plakoto:-14,0,0,0,0,0,1p,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,14
"""


def add_parser(sub) -> None:
    p = sub.add_parser("show", help="draw a position (and a gnubg Match ID's match state)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("posid", nargs="?",
                   help="gnubg Position ID, e.g. 4HPwATDgc/ABMA, or POSID:MATCHID, e.g. "
                        "4HPwATDgc/ABMA:cAkAAAAAAAAA, or an XGID (Plakoto: plakoto:...)")
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant, for the checkers per side (default: standard)")
    p.add_argument("--bomb", choices=list(BOMB),
                   help="Nuclear: who owns the bomb, relative to the player on roll "
                        "(default: centre)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object instead of the board")
    p.add_argument("--batch", action="store_true",
                   help="read one POSID, POSID:MATCHID or XGID per line on stdin, answer "
                        "one JSON line each")
    p.set_defaults(run=run)


def _counts(board: np.ndarray, rules) -> tuple[list[int], list[int], list[int]]:
    """pips, off and bar, each [mover, opponent]."""
    if rules.position_format == "plakoto":
        mine, theirs = per_point(board)
        points = np.arange(1, 25)
        pips = [int((mine * points).sum()), int((theirs * (25 - points)).sum())]
        off = [rules.checkers - int(mine.sum()), rules.checkers - int(theirs.sum())]
        return pips, off, [0, 0]
    pips = [int(x[0]) for x in pip_counts(board[None])]
    off = [int(x[0]) for x in borne_off(board[None], rules.checkers)]
    return pips, off, [int(board[BAR]), -int(board[OPP_BAR])]


def xgid_of(text: str, board: np.ndarray, state, variant: str) -> tuple[str | None, str]:
    """The XGID of a position read from ``text`` (an XGID comes back as it was read, beaver
    rule and max cube included) and, when there is none, why not."""
    if get_variant(variant).position_format != "posid":
        return None, "an XGID cannot hold this variant's positions"
    if xgid.looks_like_xgid(text):
        found = read_xgid(text, variant)
        return xgid.encode(found.board, found.state, found.beavers, found.max_cube), ""
    try:
        return xgid.encode(board, state), ""
    except ValueError as e:
        return None, str(e).removeprefix("cannot write an XGID: ")


def describe(text: str, args) -> dict:
    """The --json object of one POSID, POSID:MATCHID or XGID."""
    board, state = read_position_and_match(text, args.variant)
    rules = get_variant(args.variant)
    pips, off, bar = _counts(board, rules)
    word = str(text).strip()
    if state is None:
        match_id = None
    elif xgid.looks_like_xgid(word):
        match_id = encode_match_id(state)
    else:
        match_id = word.partition(":")[2].strip()
    out = {"position": position.write(board, rules), "match_id": match_id,
           "xgid": xgid_of(word, board, state, args.variant)[0],
           "variant": rules.name, "pips": pips, "off": off, "bar": bar}
    out |= match_fields(state)
    bomb = _bomb(args)
    if bomb is not None:
        out["bomb"] = args.bomb or "centre"
    return out


def _bomb(args) -> int | None:
    rules = get_variant(args.variant)
    if "bomb" not in rules.extra_state:
        if args.bomb is not None:
            raise UsageError(f"--bomb is for --variant nuclear, not {args.variant}")
        return None
    return BOMB[args.bomb or "centre"]


def run(args) -> int:
    if args.batch and args.posid is not None:
        raise UsageError("--batch reads positions from stdin; give no POSID")
    if not args.batch and args.posid is None:
        raise UsageError("give a POSID, POSID:MATCHID or XGID (or --batch)")
    if args.batch:
        _bomb(args)  # --bomb without Nuclear: an error before any line is read

        def answer(line: str) -> str:
            words = line.split()
            if len(words) != 1:
                raise UsageError(f"expected one POSID or POSID:MATCHID (or an XGID), got "
                                 f"{quote(line.strip())}")
            return json.dumps(describe(words[0], args))
        return answer_lines(answer, lambda message: json.dumps({"error": message}))
    if args.json:
        print(json.dumps(describe(args.posid, args)))
        return 0
    board, state = read_position_and_match(args.posid, args.variant)
    rules = get_variant(args.variant)
    bomb = _bomb(args)
    print(diagram(board, rules.checkers, pins=rules.position_format == "plakoto", bomb=bomb))
    if rules.position_format == "posid":
        found, why = xgid_of(args.posid, board, state, args.variant)
        print(found or f"XGID: none ({why})")
    if state is not None:
        print("\n".join(match_lines(state)))
    return 0
