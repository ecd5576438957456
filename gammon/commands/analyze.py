"""``gammon analyze``: a money position's probabilities, equities, cube action and plays."""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import replace

from gammon.engine.board import flip
from gammon.engine.formats.matchid import CENTRED
from gammon.engine.plan import plan_names
from gammon.engine.rules import VARIANTS
from gammon.eval.analysis import (CubeView, analyze_position, is_match, met_words,
                           ranked_with_loss)
from gammon.eval.analysis.rollouts import RolloutError
from gammon.model.lookahead import FILTER_EQUITY, FILTER_PLAYS

from ..errors import UsageError, quote
from ..match_state import (add_score_options, check_money_rules, match_fields, options_state,
                           read_at_score, state_fields, state_lines)
from ..options import (add_cube_options, add_plies_option, bot_name, check_in_play, cube_model,
                       cube_settings)
from ..positions import read_roll
from ..rollout_options import (add_rollout_flag, check_rollout_args, check_rollout_bot,
                               progress_bar, rollout_seed, rollout_settings, settings_words)
from ..tables import ply_cells, probability_cells, probability_header

HELP = f"""\
Analyse a position before the roll (money play unless a match score is given, below), the
player on roll holding a centred cube he may turn: the five outcome probabilities (win,
gammon, backgammon, each side), the cubeless equity, the cubeful equities of no double,
double/take and double/pass (Janowski's model, per unit of the current cube, cube
efficiency --efficiency), the proper cube action in words
("No double, take", "Double, take", "Double, pass", "Too good, pass", "Double, beaver",
...) and the take point: the winning chances the opponent needs to take a double.

Jacoby and beavers are off unless asked for (--jacoby, --beavers), as in `gammon cube`,
`gammon hint --cubeful`, `gammon match --cube` and `gammon play --cube`.

With --dice D1 D2 (or --dice 31, --dice 3-1), also every legal play of that roll, best
first, with the five probabilities for the player who moved, its equity and its loss
against the best play, in Magriel notation with the resulting Position ID (not flipped).
The equity of the plays is cubeless (the bot's own scores) unless --cubeful: then it is the
cubeful money equity after the play, the opponent on roll with a centred cube doing what
the cube model says.

With --plies N (or the bot net:PATH@N) the plays of --dice are valued N plies ahead, as
GNU Backgammon counts them: 0-ply = the network alone, 1-ply = looks at the opponent's 21
rolls (his best reply to each), 2-ply = also at our 21 rolls after each of his replies.
Only the plays the move filter keeps (the best {FILTER_PLAYS}, within {FILTER_EQUITY} equity of the
best at 0-ply) are looked ahead and come first; the rest follow with their 0-ply values,
as the ply column says, and the loss is against the best play looked ahead. The cube
action is played N plies ahead too (each side doubling, taking or passing at every turn of
the look-ahead, as GNU Backgammon's cubeful evaluation does; see `gammon cube --help`); the
probabilities and the take point stay 0-ply.

At a match score (GNU Backgammon's POSID:MATCHID, or --score A-B --length N [--crawford],
A the points of the player on roll, B his opponent's; --cube-value and --cube-owner for the
cube) the cube part is score-aware (model.match_cube, with the live-cube match equity table
of engine.met, gammon rate 0.26, cube efficiency --efficiency): the score and the cube are
said, the equities are match winning chances (MWC) with their equivalent money equity per
current cube (EMG: double/pass is +1, as GNU Backgammon prints it), and the action is no
double where the player on roll may not double (the Crawford game, the opponent's cube, a
dead cube), with the reason. --crawford marks the Crawford game (exactly one player at N-1
points); a player at N-1 without it is post-Crawford. A Match ID carries its own score and
cube: none of the score or cube options go with POSID:MATCHID; its dice, pending double or
resignation are ignored (the cube action before the roll). At a match score the cube is
0-ply (--plies looks only the plays of --dice ahead), the plays are ranked cubeless
(--cubeful is money only), and Jacoby and beavers, money rules, are errors; money play
with --cube-value or --cube-owner (or a money Match ID) values the cube as it lies (the
Match ID's Jacoby flag is not read: --jacoby says it).

With --rollout the numbers come from rollouts instead of the network's guess: the cube
part from cubeful rollouts of "no double" and "double, take" on the same dice (the cube
played inside every trial; "double, pass" is exact), each equity with its standard error,
and the difference double/take - no double with its paired 95% interval; the plays of
--dice from rollouts of the plays the move filter keeps, on the same dice, their losses
with paired intervals (as `gammon hint --rollout`). Settings as for `gammon rollout`:
--trials (default 1,296), --seed, --truncate, --no-vr, --no-quasi, --no-bearoff; --plies
is the depth of the bot's checker play in the trials. The take point is not shown.

The bot must estimate probabilities: net:PATH (net: alone for the shipped
checkpoints/default.pt, the default) or gnubg.

examples:
  gammon analyze 4HPwATDgc/ABMA
  gammon analyze 4HPwATDgc/ABMA:cAkAAAAAAAAA
  gammon analyze 4HPwATDgc/ABMA --score 3-4 --length 5
  gammon analyze 4HPwATDgc/ABMA --score 4-1 --length 5 --crawford
  gammon analyze 4HPwATDgc/ABMA --dice 3 1 --json
  gammon analyze 4HPwATDgc/ABMA --dice 3 1 --plies 1
  gammon analyze 4HPwATDgc/ABMA --dice 31 --cubeful --jacoby
  gammon analyze 4HPwATDgc/ABMA --rollout --trials 144 --seed 1
"""


def add_parser(sub) -> None:
    p = sub.add_parser("analyze", help="probabilities, equities and cube action of a position",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("posid", nargs="?",
                   help="gnubg Position ID, e.g. 4HPwATDgc/ABMA, or POSID:MATCHID, e.g. "
                        "4HPwATDgc/ABMA:cAkAAAAAAAAA")
    add_cube_options(p)
    add_score_options(p)
    p.add_argument("--dice", nargs="+", metavar="D",
                   help="also rank every legal play of this roll: D1 D2, or 31, or 3-1")
    p.add_argument("--cubeful", action="store_true",
                   help="rank the plays of --dice by cubeful money equity (default: cubeless)")
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant (default: standard)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_plies_option(p)
    add_rollout_flag(p, "the cube decision (and the plays of --dice) on the same dice")
    p.set_defaults(run=run)


def _is_roll(word: str) -> bool:
    """Whether one word holds both dice (31, 3-1, 3,1, 3/1)."""
    return bool(re.fullmatch(r"[0-9][-,/]?[0-9]", word.strip()))


def split_dice(words: list[str], posid: str | None) -> tuple[list[str], str | None]:
    """The dice words of ``--dice`` and the Position ID: ``--dice 3 1 POSID`` and
    ``--dice 31 POSID`` hand the word after the dice back to the Position ID."""
    count = 1 if words and _is_roll(words[0]) else 2
    dice, rest = words[:count], words[count:]
    if rest:
        if posid is not None or len(rest) > 1:
            raise UsageError(f"--dice takes one roll (3 1, 31 or 3-1), got "
                             f"{quote(' '.join(words))}")
        posid = rest[0]
    return dice, posid


def run(args) -> int:
    dice_words, posid = split_dice(args.dice, args.posid) if args.dice else (None, args.posid)
    if posid is None:
        raise UsageError("give a POSID")
    board, state = read_at_score(posid, args, options_state(args), args.variant)
    check_in_play(board)
    dice = list(read_roll(dice_words)) if dice_words else None
    if args.cubeful and not dice:
        raise UsageError("--cubeful ranks the plays of --dice: give --dice D1 D2")
    efficiency, jacoby, beavers = cube_settings(args)
    check_money_rules(args, state)
    if args.cubeful and is_match(state):
        raise UsageError("--cubeful ranks plays by money equity: at a match score the plays "
                         "are ranked by match winning chance (drop --cubeful)")
    check_rollout_args(args)
    bot, evaluate, efficiency = cube_model(args)
    plies = 0 if is_match(state) else getattr(bot, "plies", 0)  # at a score: a 0-ply cube
    settings = None
    if args.rollout:
        settings = rollout_settings(args, rollout_seed(args), cubeful=True)
        check_rollout_bot(settings, bot)
        result = _rolled_out(args, bot, board, state, settings)
    else:
        result = analyze_position(evaluate, board, state, efficiency, jacoby, beavers, plies)
    out = {"posid": posid.strip(), "bot": bot_name(args), "efficiency": efficiency,
           "jacoby": jacoby, "beavers": beavers, **result,
           "plans": {"on_roll": plan_names(board[None])[0],
                     "opponent": plan_names(flip(board)[None])[0]}}
    if state is not None:
        out["match"] = state_fields(state)
    if is_match(state):
        out["match"]["met"] = met_words()
        out["unit"] = "mwc"
    if dice:
        cube = CubeView(efficiency, jacoby, beavers) if args.cubeful else None
        out["dice"] = dice
        out["play_equity"] = "cubeful" if cube is not None else "cubeless"
        if settings is not None:
            out["plays"] = _rolled_plays(args, bot, board, dice, state, settings)
            if is_match(state):
                out["play_equity"] = "mwc"  # the mover's match winning chance after it
        else:
            out["plays"] = ranked_with_loss(bot, board, *dice, variant=args.variant,
                                            cube=cube, state=state)
        if is_match(state) and getattr(bot, "score_label", "") == "MWC":
            out["play_equity"] = "mwc"  # ranked by the mover's match winning chance
    if args.json:
        print(json.dumps(out))
    else:
        print(report(out, state), end="")
    return 0


def _rolled_out(args, bot, board, state, settings) -> dict:
    """The cube part by rollouts (``eval.analysis.rollout_decisions.rollout_cube``)."""
    from gammon.eval.analysis.rollout_decisions import rollout_cube
    settings = replace(settings, double_at_start=False)
    with progress_bar(2 * settings.trials, args) as bar:
        try:
            result = rollout_cube(bot, board, settings, state, progress=bar.update)
        except RolloutError as e:
            raise UsageError(str(e)) from None
    result["cube_plies"] = 0
    result["rollout"] = {"bot": bot_name(args), **settings.to_dict(is_match(state))}
    return result


def _rolled_plays(args, bot, board, dice, state, settings) -> list[dict]:
    """The plays of --dice by rollouts, as ``ranked_with_loss``'s rows (equity and loss)
    with each one's standard errors, the loss's paired 95% interval and the trials."""
    from gammon.eval.analysis.rollout_decisions import rollout_plays
    settings = replace(settings, cubeful=args.cubeful)
    with progress_bar(FILTER_PLAYS * settings.trials, args) as bar:
        try:
            rows = rollout_plays(bot, board, *dice, settings, state, progress=bar.update)
        except RolloutError as e:
            raise UsageError(str(e)) from None
    out = []
    for r in rows:
        d = r["difference"] or {"mean": -0.0, "se": 0.0, "ci95": [-0.0, -0.0]}
        ci = d["ci95"]
        out.append({"rank": r["rank"], "play": r["play"], "equity": r["equity"]["mean"],
                    "loss": 0.0 - d["mean"], "result": r["result"],
                    "probabilities": r["probabilities"], "equity_se": r["equity"]["se"],
                    "loss_se": d["se"], "loss_ci95": None if ci is None else [-ci[1], -ci[0]],
                    "trials": r["trials"]})
    return out


def _se(a: dict, key: str) -> str:
    """'  s.e. 0.0123' after a rolled-out equity (nothing without a rollout)."""
    se = a.get("stderr", {}).get(key)
    return "" if "stderr" not in a or key not in a["stderr"] else (
        "  s.e. -" if se is None else f"  s.e. {se:.4f}")


def _money_cube_words(state) -> str:
    """The money cube in the header: 'centred cube' (as ever), or its value and owner."""
    if state is None or (state.cube_value == 1 and state.cube_owner == CENTRED):
        return "centred cube"
    owner = {"centred": "centred", "mover": "owned by the player on roll",
             "opponent": "owned by the opponent"}[match_fields(state)["cube_owner"]]
    return f"cube {state.cube_value} {owner}"


def _cube_lines(a: dict, state) -> list[str]:
    """The cubeless and cubeful equities and the cube action: money per cube, or at a
    match score in MWC and EMG."""
    c = a["cubeful"]
    if not is_match(state):
        lines = [f"{'cubeless equity':24}{a['cubeless_equity']:+.4f}"
                 + _se(a, "cubeless_equity"),
                 "cubeful equities (per cube" + (f", {a['cube_plies']}-ply"
                                                  if a.get("cube_plies") else "") + "):"]
        lines += [f"{'  ' + label:24}{c[key]:+.4f}" + _se(a, key)
                  for key, label in (("no_double", "no double"), ("double_take", "double, take"),
                                     ("double_pass", "double, pass")) if key in c]
        lines += _difference_lines(a)
        lines.append(f"{'proper cube action':24}{a['decision']}")
        if "take_point" in a:
            lines.append(f"{'take point':24}{a['take_point']:.1%} (the opponent has "
                         f"{a['taker_chances']:.1%})")
        return lines
    e = a["cubeful_emg"]
    rows = [("cubeless", a["cubeless_mwc"], a["cubeless_emg"], "cubeless_mwc"),
            ("cubeful equities:", None, None, None)]
    rows += [(f"  {name.replace('_', ' ').replace('double ', 'double, ')}", c[name], e[name],
              name) for name in ("no_double", "double_take", "double_pass") if name in c]
    lines = [f"{'':24}{'MWC':>8}{'EMG':>9}"]
    lines += [(f"{label:24}" + ("" if mwc is None else f"{mwc:8.2%}{emg:+9.4f}"
                                + _se(a, key))).rstrip()
              for label, mwc, emg, key in rows]
    return lines + _difference_lines(a) + [f"{'proper cube action':24}{a['decision']}"]


def _difference_lines(a: dict) -> list[str]:
    """The rollout's paired difference double/take - no double, with its interval."""
    d = a.get("double_take_minus_no_double")
    if d is None:
        return []
    ci = "" if d["ci95"] is None else f" (95%: {d['ci95'][0]:+.4f} .. {d['ci95'][1]:+.4f})"
    return [f"{'  take - no double':24}{d['mean']:+.4f}{ci}"]


def _plan_lines(a: dict) -> list[str]:
    """The game plan of each side (``engine.plan``), when the analysis has them."""
    plans = a.get("plans")
    if not plans:
        return []
    return [f"{'game plan':24}on roll: {plans['on_roll']}; opponent: {plans['opponent']}"]


def report(a: dict, state=None) -> str:
    """The analysis for people (``state``: the Match ID's or the options', None for a
    plain money position)."""
    p = a["probabilities"]
    beavers = "beavers allowed" if a["beavers"] else "no beavers"
    if is_match(state):
        head = state_lines(state)
        head[-1] += (f"; cube efficiency {a['efficiency']:.2f}; match equity table: "
                     f"{a['match']['met']}")
        head.append("equities: MWC = match winning chances, EMG = equivalent money equity "
                    "per cube (double/pass = +1)")
    else:
        head = [f"money game, {_money_cube_words(state)}, Jacoby "
                f"{'on' if a['jacoby'] else 'off'}, {beavers}, "
                f"cube efficiency {a['efficiency']:.2f}"]
    lines = [
        f"{a['posid']}  {a['bot']}",
        *head,
        "",
        f"{'':12}{'win':>8}{'gammon':>9}{'bg':>8}",
        f"{'on roll':12}{p['win']:8.1%}{p['win_gammon']:9.1%}{p['win_backgammon']:8.1%}",
        f"{'opponent':12}{1 - p['win']:8.1%}{p['lose_gammon']:9.1%}{p['lose_backgammon']:8.1%}",
        "",
        *_plan_lines(a),
        *_cube_lines(a, state),
    ]
    plays = a.get("plays")
    if plays is not None:
        d1, d2 = a["dice"]
        kind = a.get("play_equity", "cubeless")
        kind = "match winning chance after the play, MWC" if kind == "mwc" else \
            f"{kind} equity"
        lines += ["", f"plays of {d1}-{d2}, best first ({kind}; probabilities for "
                      f"the player who moved):"]
        if not plays:
            lines.append("  no legal play: the roll cannot be played and the turn passes")
        else:
            width = max(len(r["play"]) for r in plays)
            probs = "probabilities" in plays[0]
            ply_header, ply_cell = ply_cells(plays)
            column = "MWC" if a.get("play_equity") == "mwc" else "equity"
            rolled = "loss_ci95" in plays[0]
            lines.append(f"{'#':>4}  {'play':<{width}}  {ply_header}{column:>8}  "
                         + (f"{'s.e.':>6}  " if rolled else "") + f"{'loss':>7}  "
                         + (f"{'95% interval of the loss':>24}  " if rolled else "")
                         + (f"{probability_header()}  " if probs else "") + "result")
        for r in plays:
            lines.append(f"{r['rank']:>4}  {r['play']:<{width}}  {ply_cell(r)}"
                         f"{r['equity']:+8.4f}  " + (_se_cell(r) if rolled else "")
                         + f"{r['loss']:7.4f}  " + (_loss_interval(r) if rolled else "")
                         + (f"{probability_cells(r)}  " if "probabilities" in r else "")
                         + r["result"])
    if "rollout" in a:
        plays_words = ("" if plays is None or a.get("play_equity") != "cubeless"
                       else "; the plays rolled out cubeless")
        lines += ["", f"rollout: {a['trials']:,} trials on the same dice for each decision; "
                      + settings_words(a["rollout"]) + plays_words]
    return "\n".join(lines) + "\n"


def _se_cell(r: dict) -> str:
    return f"{'-' if r['equity_se'] is None else format(r['equity_se'], '.4f'):>6}  "


def _loss_interval(r: dict) -> str:
    ci = r["loss_ci95"]
    text = "" if ci is None or r["rank"] == 1 else f"{ci[0]:+.4f} .. {ci[1]:+.4f}"
    return f"{text:>24}  "
