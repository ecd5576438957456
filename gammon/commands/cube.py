"""``gammon cube``: the proper money cube action of positions, as JSON lines."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

from gammon.engine.rules import VARIANTS

from gammon.eval.analysis import MatchLookAhead, analyze_position, cube_action

from ..errors import UsageError, quote
from ..match_state import add_score_options, check_money_rules, options_state, read_at_score
from ..options import (add_cube_options, add_plies_option, bot_name, check_in_play, cube_model,
                       cube_settings)
from ..rollout_options import (add_rollout_flag, check_rollout_args, check_rollout_bot,
                               progress_bar, rollout_seed, rollout_settings)
from ..positions import answer_lines

HELP = """\
The proper cube action of a position before the roll: money play, centred cube, the player
on roll free to double (unless a match score or the cube options say otherwise, below): one
JSON line {"action": "no_double"|"double"|"too_good", "response": "take"|"pass"|"beaver"},
the response being what the opponent should answer to a double (see `gammon analyze` for
the equities behind it). Jacoby and beavers are off unless asked for (--jacoby, --beavers),
as in `gammon analyze` and `gammon match --cube`. The bot is the shipped network (net:)
unless --bot names another (net:PATH, gnubg).

With --plies N (or the bot net:PATH@N) the cube is played N plies ahead, as GNU
Backgammon's cubeful evaluation does: each of the 21 rolls with its best play (0-ply), then
the opponent's cube action and rolls, each side doubling, taking or passing at every turn,
the cube heads at the end (0-ply = the cube heads alone; 2-ply takes about 0.1 s a position).

At a match score (GNU Backgammon's POSID:MATCHID, or --score A-B --length N [--crawford],
A the points of the player on roll, B his opponent's) the action comes from the score-aware
cube model (model.match_cube) with the live-cube match equity table of engine.met (gammon
rate 0.26) and the cube efficiency of --efficiency; the answer is the same JSON line. Where
the player on roll may not double the action is "no_double" (the response still says what
his opponent should do were he doubled) and an extra key says why: "cube": "crawford" (the
Crawford game), "owned by opponent" (in money play too: --cube-owner opponent) or "dead" (a
single win at this cube already wins him the match, e.g. the leader post-Crawford).
--crawford marks the Crawford game (exactly one player at N-1 points); a player at N-1
without it is post-Crawford. --cube-value and --cube-owner set the cube (money play or
--score); a Match ID carries its own score and cube, so none of these five options go with
a POSID:MATCHID. Jacoby, beavers and the cube look-ahead (--plies) are money play only: at
a match score they are an error (the Match ID's Jacoby flag is not read: --jacoby says it).
The Match ID's dice, pending double or resignation are ignored: the answer is the cube
action before the roll.

With --batch, read one Position ID or POSID:MATCHID per line on stdin and answer each with
one such line, flushed at once; a bad line is answered {"error": "..."} and the stream goes
on. The score and cube options apply to the plain Position IDs (a POSID:MATCHID line with
them is an error line), --jacoby and --beavers to the money lines, and --plies makes each
match line an error line.

With --rollout the action comes from cubeful rollouts instead (the cube played inside
every trial by the bot's cube heads): "no double" (the cube as it lies) and "double, take"
(twice the cube, the opponent's) on the same dice, "double, pass" exact; the JSON line
then also holds "rollout": the three equities (money per cube, or MWC at a match score),
the paired difference double/take - no double, each with its standard error and 95%
interval, and the settings (--trials, --seed, --truncate, --no-vr, --no-quasi, --no-bearoff
as for `gammon rollout`; --plies is the depth of the bot's checker play in the trials).
Where the player on roll may not double only "no double" is rolled out and the response
is null.

examples:
  gammon cube 4HPwATDgc/ABMA
  gammon cube 4HPwATDgc/ABMA:cAkAAAAAAAAA
  gammon cube 4HPwATDgc/ABMA --score 5-5 --length 7
  gammon cube 4HPwATDgc/ABMA --score 6-3 --length 7 --crawford
  printf '4HPwATDgc/ABMA\\n' | gammon cube --batch --beavers
  gammon cube 4HPwATDgc/ABMA --rollout --trials 144 --seed 1
"""


def add_parser(sub) -> None:
    p = sub.add_parser("cube", help="the cube action of positions, money or at a match score "
                                    "(JSON lines)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("posid", nargs="?",
                   help="gnubg Position ID, e.g. 4HPwATDgc/ABMA, or POSID:MATCHID, e.g. "
                        "4HPwATDgc/ABMA:cAkAAAAAAAAA")
    p.add_argument("--batch", action="store_true",
                   help="read one Position ID or POSID:MATCHID per line on stdin, answer one "
                        "JSON line each")
    add_cube_options(p)
    add_score_options(p)
    add_plies_option(p)
    add_rollout_flag(p, "no double and double/take on the same dice")
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant (default: standard)")
    p.set_defaults(run=run)


def answer(evaluate, efficiency: float, args, text: str, plies: int = 0) -> dict:
    """The action and response for one Position ID or POSID:MATCHID (a UsageError for a
    bad one): money play as ever, or at the score of the Match ID or of the options."""
    words = text.split()
    if len(words) != 1:
        raise UsageError(f"expected one Position ID or POSID:MATCHID, got {quote(text.strip())}")
    given = options_state(args)
    board, state = read_at_score(words[0], args, given, args.variant)
    check_in_play(board)
    _, jacoby, beavers = cube_settings(args)
    if state is not None and not getattr(args, "batch", False):
        check_money_rules(args, state)  # in a stream they are for the money lines
    if getattr(args, "rollout", False):
        return rollout_answer(args, board, state)
    try:
        return cube_action(analyze_position(evaluate, board, state, efficiency, jacoby,
                                            beavers, plies))
    except MatchLookAhead:
        raise UsageError("the cube look-ahead (--plies, net:PATH@N) is for money play; at a "
                         "match score the cube action is 0-ply: drop the plies") from None


def rollout_answer(args, board, state) -> dict:
    """``answer`` by rollouts: the action, response and the rollout's numbers."""
    from gammon.eval.analysis.rollout_decisions import rollout_cube
    from gammon.eval.analysis.rollouts import RolloutError
    settings = replace(args.rollout_settings, double_at_start=False)  # rollout_cube's
    with progress_bar(2 * settings.trials, args) as bar:
        try:
            r = rollout_cube(args.rollout_bot, board, settings, state, progress=bar.update)
        except RolloutError as e:
            raise UsageError(str(e)) from None
    out = cube_action(r)
    keys = ("no_double", "double_take", "double_pass")
    out["rollout"] = {
        "equities": {k: r["cubeful"][k] for k in keys if k in r["cubeful"]},
        "stderr": {k: r["stderr"].get(k, 0.0) for k in keys if k in r["cubeful"]},
        "ci95": {k: r["ci95"].get(k, [r["cubeful"][k]] * 2) for k in keys if k in r["cubeful"]},
        "unit": "mwc" if state is not None and state.length else "money per cube",
        "trials": r["trials"],
        "settings": {"bot": args.rollout_name, **settings.to_dict(bool(state and state.length))}}
    if "double_take_minus_no_double" in r:
        out["rollout"]["double_take_minus_no_double"] = r["double_take_minus_no_double"]
    return out


def prepare_rollout(args, bot) -> None:
    """The rollout's settings and bot on ``args`` (before the first line is read)."""
    check_rollout_args(args)
    if not args.rollout:
        return
    settings = rollout_settings(args, rollout_seed(args), cubeful=True)
    check_rollout_bot(settings, bot)
    args.rollout_settings, args.rollout_bot, args.rollout_name = settings, bot, bot_name(args)


def run(args) -> int:
    if args.batch and args.posid is not None:
        raise UsageError("--batch reads positions from stdin; give no POSID")
    if not args.batch and args.posid is None:
        raise UsageError("give a POSID (or --batch)")
    check_money_rules(args, options_state(args))  # bad options: an error before any line
    bot, evaluate, efficiency = cube_model(args)
    prepare_rollout(args, bot)
    plies = 0 if args.rollout else getattr(bot, "plies", 0)
    if not args.batch:
        print(json.dumps(answer(evaluate, efficiency, args, args.posid, plies)))
        return 0
    return answer_lines(lambda line: json.dumps(answer(evaluate, efficiency, args, line,
                                                       plies)),
                        lambda message: json.dumps({"error": message}))
