"""``gammon hint``: every legal play of a position and roll, ranked by a bot."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

import numpy as np

from engine.board import flip
from engine.formats import position
from engine.formats.notation import format_play
from engine.movegen import legal_plays
from engine.outcomes import FIVE, certain, equity_of_five, to_five
from engine.rules import VARIANTS, variant as get_variant
from eval.bots.simple import Bot, best_per_root
from eval.bots.registry import DEFAULT_BOT, valid_names
from model.lookahead import FILTER_EQUITY, FILTER_PLAYS

from ..errors import UsageError, quote
from ..positions import SEED_RANGE, dice_words, read_position, read_roll, seed_type
from .match import add_plies_option, load_bot, with_plies

HELP = f"""\
Rank every legal play of a position and roll by a bot's scores, best first: the rank, the
play in Magriel notation, the bot's score (higher is better for the player on roll) and the
resulting Position ID (not flipped: the player who moved is still on roll in the key, as in
`gammon moves`). Rank 1 is the play the bot would make. A roll with no legal play says so.
The dice may be written 3 1, 31 or 3-1.

Bots that estimate probabilities (net:PATH, net: alone for the shipped network, which is
the default; gnubg) also show each play's probabilities for the player who moved: win,
win a gammon, win a backgammon, lose a gammon, lose a backgammon (gammons include
backgammons). Their score is the cubeless money equity (points per game, no cube);
--cubeful ranks by the cubeful money equity instead: after the play the opponent, on roll
with a centred cube, doubles, takes or passes as Janowski's model says (cube efficiency
--efficiency; Jacoby and beavers off unless --jacoby, --beavers), as `gammon analyze`.

With --plies N (or the bot net:PATH@N) a network looks N plies ahead, as GNU Backgammon
counts them: 0-ply = the network alone, 1-ply = looks at the opponent's 21 rolls (his best
reply to each), 2-ply = also at our 21 rolls after each of his replies. Only the plays
the move filter keeps (at most {FILTER_PLAYS}, within {FILTER_EQUITY} equity of the best at
0-ply) are looked ahead: they come first, with their N-ply values; the rest follow with
their 0-ply values, the ply column saying which is which (in --json each play's "plies").

bots: {valid_names()}

examples:
  gammon hint 4HPwATDgc/ABMA 3 1
  gammon hint 4HPwATDgc/ABMA 3 1 --plies 1
  gammon hint 4HPwATDgc/ABMA 31 --cubeful
  gammon hint 4HPwATDgc/ABMA 3 1 --bot pubeval
  gammon hint 4HPwATDgc/ABMA 6 5 --bot gnubg --json
"""


def add_parser(sub) -> None:
    from .analyze import add_cube_model_options
    p = sub.add_parser("hint", help="rank the legal plays of a position by a bot",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("posid", help="gnubg Position ID, e.g. 4HPwATDgc/ABMA")
    p.add_argument("d1", nargs="?", help="first die, 1..6 (or both dice: 31, 3-1)")
    p.add_argument("d2", nargs="?", help="second die, 1..6")
    p.add_argument("--bot", default=DEFAULT_BOT,
                   help=f"the bot that ranks (default: {DEFAULT_BOT}, the shipped network)")
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant (default: standard)")
    p.add_argument("--seed", type=seed_type, default=None,
                   help=f"seed for bots that draw numbers, {SEED_RANGE}")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_plies_option(p)
    p.add_argument("--cubeful", action="store_true",
                   help="rank by cubeful money equity (bots with probabilities: net:, gnubg)")
    add_cube_model_options(p)
    p.set_defaults(run=run)


class CubeView:
    """The cube model plays are valued under with --cubeful: a centred money cube after the
    play, the opponent on roll (``model.cube``, Janowski)."""

    def __init__(self, efficiency: float, jacoby: bool = False, beavers: bool = False):
        self.efficiency, self.jacoby, self.beavers = efficiency, jacoby, beavers

    def to_dict(self) -> dict:
        return {"efficiency": self.efficiency, "jacoby": self.jacoby, "beavers": self.beavers}


def _flip_five(p5: np.ndarray) -> np.ndarray:
    """gnubg's five outputs (K, 5) seen by the other player."""
    return np.stack([1 - p5[:, 0], p5[:, 3], p5[:, 4], p5[:, 1], p5[:, 2]], axis=1)


def play_probabilities(bot, plays, rules) -> np.ndarray | None:
    """The five probabilities (K, 5) of each play for the player who made it, or None for
    a bot that estimates none. A play that ends the game is valued by its result."""
    from eval.bots.cube import probability_source
    source = probability_source(bot)
    if source is None:
        return None
    if callable(getattr(bot, "probabilities", None)):  # a net: its look-ahead included
        return to_five(np.asarray(bot.probabilities(plays), dtype=np.float64))
    after = plays.boards
    over = rules.end_of_game(after)  # (K,) points for the mover, 0 while the game goes on
    p5 = np.zeros((len(after), 5))
    going = np.flatnonzero(over == 0)
    if len(going):
        p5[going] = _flip_five(to_five(np.asarray(source(flip(after[going])), np.float64)))
    done = np.flatnonzero(over != 0)
    if len(done):
        p5[done] = to_five(certain(over[done]))
    return p5


def cubeful_after(p5: np.ndarray, plays, rules, cube: CubeView) -> np.ndarray:
    """(K,) the mover's cubeful money equity after each play (per cube): minus the
    opponent's equity after proper cube play, he being on roll with a centred cube."""
    from model.cube import decide
    value = -np.asarray(decide(_flip_five(p5), 0, cube.efficiency, cube.jacoby,
                               cube.beavers).equity, dtype=np.float64)
    points = rules.end_of_game(plays.boards)
    over = points != 0
    if over.any():  # the game is over: its points (single under Jacoby, the cube centred)
        value[over] = np.minimum(points[over], 1) if cube.jacoby else points[over]
    return value


def ranked(bot, board: np.ndarray, d1: int, d2: int, variant: str = "standard",
           cube: CubeView | None = None) -> list[dict]:
    """The legal plays of one position, best first: rank, play, score, result; for bots
    with probabilities also ``probabilities`` (the five, for the mover) and
    ``cubeless_equity``, and with ``cube`` the ``cubeful_equity`` the plays are ranked by;
    for nets ``plies``, the look-ahead each play was valued at.

    Without ``cube`` the bot's own choice comes first; the rest follow by score (ties by
    Position ID), those the move filter left at 0-ply after all that were looked ahead.
    Empty when no play is legal.
    """
    return ranked_many(bot, board[None], np.array([[d1, d2]]), variant, cube)[0]


def ranked_many(bot, boards: np.ndarray, dice: np.ndarray, variant: str = "standard",
                cube: CubeView | None = None) -> list[list[dict]]:
    """``ranked`` for a batch, boards (B, 26) and dice (B, 2): one list of rows per
    position, the bot asked once for the whole batch (what a server answering many
    clients at a time wants)."""
    rules = get_variant(variant)
    boards, dice = np.asarray(boards), np.asarray(dice)
    plays = legal_plays(boards, dice, rules)
    scores = np.asarray(bot.scores(plays, boards, dice), dtype=np.float64)  # (K,)
    ids = position.write_many(plays.boards, rules)
    p5 = play_probabilities(bot, plays, rules)
    depths = play_depths(bot, plays)  # (K,) plies, or None
    cubeful = None
    if cube is not None:
        if p5 is None:
            raise ValueError("cubeful equities need a bot that estimates probabilities")
        cubeful = cubeful_after(p5, plays, rules, cube)
        chosen = None
    else:
        chosen = _choices(bot, plays, boards, dice, scores)  # (B,) rows of plays
    steps, hits = plays.steps, plays.hits  # (K, 4, 2), (K, 4)
    offsets = np.searchsorted(plays.root, np.arange(len(boards) + 1))  # (B+1,)
    answers = []
    for i in range(len(boards)):
        rows = range(offsets[i], offsets[i + 1])
        if plays.dice_used[offsets[i]] == 0:  # no legal play: the board unchanged
            answers.append([])
            continue
        deep = None if depths is None else depths[offsets[i]:offsets[i + 1]].max()
        shallow = {k: deep is not None and depths[k] < deep for k in rows}
        if cubeful is not None:
            order = sorted(rows, key=lambda k: (shallow[k], -cubeful[k], ids[k]))
        else:
            order = sorted(rows, key=lambda k: (k != chosen[i], shallow[k], -scores[k],
                                                ids[k]))
        roll = (int(dice[i, 0]), int(dice[i, 1]))
        answers.append([_row(rank, k, steps, hits, roll, scores, ids, p5, cubeful, depths)
                        for rank, k in enumerate(order, 1)])
    return answers


def _row(rank: int, k: int, steps, hits, roll, scores, ids, p5, cubeful, depths) -> dict:
    """The row of play ``k`` of a batch's plays, ranked ``rank``."""
    row = {"rank": rank, "play": format_play(steps[k], hits[k], roll),
           "score": float(scores[k]), "result": ids[k]}
    if p5 is not None:
        row["probabilities"] = {name: float(v) for name, v in zip(FIVE, p5[k])}
        row["cubeless_equity"] = float(equity_of_five(p5[k]))
    if cubeful is not None:
        row["cubeful_equity"] = float(cubeful[k])
    if depths is not None:
        row["plies"] = int(depths[k])
    return row


def play_depths(bot, plays) -> np.ndarray | None:
    """(K,) the plies each play was valued at, for a net (``NetPolicy.depths``: the move
    filter leaves some at 0-ply when it looks ahead); None for other bots."""
    depths = getattr(bot, "depths", None)
    return np.asarray(depths(plays)) if callable(depths) else None


def ply_cells(rows: list[dict]) -> tuple[str, Callable[[dict], str]]:
    """The header and the cell maker of the plies column: shown only when some play was
    looked ahead (``row['plies']`` > 0), as '1-ply', '0-ply'..."""
    if not any(r.get("plies", 0) for r in rows):
        return "", lambda row: ""
    return f"{'ply':>5}  ", lambda row: f"{row['plies']}-ply  "


def _choices(bot, plays, boards, dice, scores: np.ndarray) -> np.ndarray:
    """(B,) the row of ``plays`` the bot plays in each position; from the scores already
    drawn when it plays the best score (so a random bot's ranking and choice agree)."""
    if type(bot).choose is Bot.choose:
        return best_per_root(scores, plays.root, len(boards))
    return np.asarray(bot.choose(plays, boards, dice))


def equity_type(bot, cube: CubeView | None) -> str | None:
    """'cubeful', 'cubeless' or None (a bot without probabilities: its own score)."""
    from eval.bots.cube import probability_source
    if probability_source(bot) is None:
        return None
    return "cubeful" if cube is not None else "cubeless"


def probability_header() -> str:
    return f"{'win':>6} {'w(g)':>6} {'w(bg)':>6} {'l(g)':>6} {'l(bg)':>6}"


def probability_cells(row: dict) -> str:
    p = row["probabilities"]
    return " ".join(f"{100 * p[name]:5.1f}%" for name in FIVE)


def run(args) -> int:
    from .analyze import cube_settings
    if args.d1 is None:
        raise UsageError("give POSID D1 D2")
    board = read_position(args.posid, args.variant)
    d1, d2 = read_roll(dice_words(args))
    efficiency, jacoby, beavers = cube_settings(args)
    cube = CubeView(efficiency, jacoby, beavers) if args.cubeful else None
    name = with_plies(args.bot, args.plies)
    bot = load_bot(name, args.seed, args.variant)
    kind = equity_type(bot, cube)
    if cube is not None and kind is None:
        raise UsageError(f"--cubeful needs a bot that estimates probabilities (net:, "
                         f"net:PATH or gnubg), not {quote(args.bot)}")
    rows = ranked(bot, board, d1, d2, args.variant, cube)
    if args.json:
        out = {"posid": args.posid.strip(), "dice": [d1, d2], "bot": name,
               "score": bot.score_label, "equity_type": kind, "plays": rows}
        if cube is not None:
            out["cube"] = cube.to_dict()
        print(json.dumps(out))
        return 0
    if not rows:
        print(f"no legal play for {max(d1, d2)}-{min(d1, d2)}: the roll cannot be played "
              f"and the turn passes")
        return 0
    width = max(len(r["play"]) for r in rows)
    if kind is None:  # the bot's own score, as it always was
        label = max(14, len(bot.score_label))
        print(f"{'#':>3}  {'play':<{width}}  {bot.score_label:>{label}}  result")
        for r in rows:
            print(f"{r['rank']:>3}  {r['play']:<{width}}  {r['score']:>{label}.6f}  "
                  f"{r['result']}")
        return 0
    first = "cubeful equity" if cube is not None else "cubeless equity"
    extra = f"  {'cubeless':>9}" if cube is not None else ""
    ply_header, ply_cell = ply_cells(rows)
    print(f"{'#':>3}  {'play':<{width}}  {ply_header}{first:>15}{extra}  "
          f"{probability_header()}  result")
    for r in rows:
        value = r["cubeful_equity"] if cube is not None else r["cubeless_equity"]
        more = f"  {r['cubeless_equity']:>+9.4f}" if cube is not None else ""
        print(f"{r['rank']:>3}  {r['play']:<{width}}  {ply_cell(r)}{value:>+15.4f}{more}  "
              f"{probability_cells(r)}  {r['result']}")
    return 0
