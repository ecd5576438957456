"""``gammon rollout``: the value of positions by Monte-Carlo, every trial in lock-step."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

from gammon.engine.outcomes import FIVE
from gammon.engine.rules import VARIANTS
from gammon.eval.analysis.rollouts import DEFAULT_TRIALS, MAX_TRIALS, SE_CHECK, RolloutError, Settings
from gammon.eval.bots.registry import DEFAULT_BOT, NET_PREFIX, draws_numbers, valid_names

from ..errors import UsageError, quote
from ..match_state import add_score_options, check_money_rules, options_state, read_at_score
from ..options import add_cube_model_options, add_plies_option, check_in_play, load_bot, with_plies
from ..positions import input_lines, read_fraction, whole_type
from ..rollout_options import (add_rollout_settings, check_rollout_bot, progress_bar,
                               rollout_seed, rollout_settings, settings_words)

MAX_ACTORS = 4096

HELP = f"""\
Roll out a position: play it out many times with a bot from the player on roll, before his
roll, and average the results. Prints the five probabilities for the player on roll (win,
win a gammon, win a backgammon, lose a gammon, lose a backgammon; gammons include
backgammons), the cubeless money equity and, with --cubeful, the cubeful equity, each with
its standard error and 95% interval (mean +- 1.96 s.e.), the trials done and the settings.

All trials (and, with --batch, all positions) advance in lock-step through the game loop,
the bot playing both sides (net:, the shipped network at 0-ply, unless --bot or --plies
say otherwise). A trial ends at the end of its game (its exact result), after --truncate N
plies (the net's value of the position reached; 0: of the position itself) or once both
sides have every checker home, where the bear-off database values it exactly (off with
--no-bearoff; Nuclear and Plakoto have no such stop).

Dice: a trial's rolls depend on --seed (0 .. 2**63-1; default: a fresh one, printed) and
its number only, so the same seed replays the same rollout bit for bit, with --actors too.
The first roll of the trials is stratified over its 36 outcomes and the first two over
36 x 36 = 1,296 (every pair once in 1,296 trials), the rest random; --no-quasi makes them
all random.

Variance reduction (on; --no-vr turns it off): at every ply the luck of the roll rolled
(the 0-ply value after the mover's best play of it, minus the mean of that value over the
21 rolls) is taken out of the trial's result; the estimate stays unbiased and its standard
error falls. It applies to the probabilities and the cubeless equity; in a cubeful money
rollout the cubeful result loses the same luck times the cube; at a match score the
cubeful match winning chance has none. It needs a bot with probabilities (net:, gnubg).

--cubeful plays the cube inside every trial as the bot's cube heads decide (doubles,
takes, passes; --efficiency, --jacoby, --beavers as for `gammon analyze`); the cubeful
equity is per unit of the position's cube. At a match score (POSID:MATCHID, or --score
A-B --length N [--crawford], --cube-value, --cube-owner as for `gammon cube`) the results
are match winning chances (engine.met's table): the cubeless MWC always, the cubeful MWC
with --cubeful; the bot plays its checkers by MWC.

--until-se X stops once the headline equity's standard error (cubeful with --cubeful) is
below X, looked at every {SE_CHECK} trials, --trials being the most. --actors K plays the
trials on K Ray workers (needs the ray extra: pip install -e '.[ray]'): the same numbers
as one process. Trials are 1 to {MAX_TRIALS:,} per position (default {DEFAULT_TRIALS:,}).

With --batch, read one Position ID (or POSID:MATCHID) per line on stdin until its end,
roll them all out together (the same dice for every line: each line's numbers are what
`gammon rollout POSID` prints with the same seed) and answer one line each, in order; with
--json one JSON object a line: "probabilities" (the five), "equity" (cubeless money, player
on roll), "stderr" (the same keys), "trials" (and "cubeful_equity" with --cubeful); a bad
line is answered {{"error": "..."}} and the stream goes on.

bots: {valid_names()}

examples:
  gammon rollout 4HPwATDgc/ABMA --trials 144 --seed 1
  gammon rollout 4HPwATDgc/ABMA --cubeful --seed 7 --json
  gammon rollout 4HPwATDgc/ABMA --no-vr --trials 1296 --truncate 10
  gammon rollout 4HPwATDgc/ABMA --until-se 0.01 --trials 100000 --actors 2
  printf '4HPwATDgc/ABMA\\n' | gammon rollout --batch --json --trials 36
"""


def until_se_type(text: str) -> float:
    """The argparse ``type`` of ``--until-se``: a number above 0."""
    try:
        value = read_fraction(text, "--until-se", -1e9, 1e9)
    except UsageError:
        value = math.nan
    if not value > 0:
        raise argparse.ArgumentTypeError(f"--until-se is a standard error above 0 (e.g. "
                                         f"0.01), got {quote(text)}")
    return value


def add_parser(sub) -> None:
    p = sub.add_parser("rollout", help="roll out positions: Monte-Carlo probabilities and "
                                       "equities with their errors",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("posid", nargs="?",
                   help="gnubg Position ID, e.g. 4HPwATDgc/ABMA, or POSID:MATCHID")
    p.add_argument("--batch", action="store_true",
                   help="read one Position ID per line on stdin, answer one line each")
    add_rollout_settings(p)
    p.add_argument("--cubeful", action="store_true",
                   help="the cube inside every trial, as the bot's cube heads decide")
    p.add_argument("--until-se", type=until_se_type, default=None, metavar="X",
                   help=f"stop once the equity's standard error is below X (looked at every "
                        f"{SE_CHECK} trials)")
    p.add_argument("--bot", default=DEFAULT_BOT,
                   help=f"the bot that plays both sides (default: {DEFAULT_BOT}, the shipped "
                        f"network)")
    add_plies_option(p)
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant (default: standard)")
    add_cube_model_options(p)
    add_score_options(p)
    p.add_argument("--actors", type=whole_type("--actors", 1, MAX_ACTORS), default=None,
                   metavar="K", help="play the trials on K Ray workers (the same numbers as "
                                     "one process); needs the ray extra")
    p.add_argument("--ray-address", metavar="ADDR", default=None,
                   help="with --actors: join the Ray cluster at ADDR")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=run)


def _check_actors(args, name: str) -> None:
    if args.actors is None:
        if args.ray_address is not None:
            raise UsageError("--ray-address joins a Ray cluster for --actors; add --actors K")
        return
    if draws_numbers(name):
        raise UsageError(f"the bot {quote(name)} draws random numbers: its rollouts would "
                         f"differ from worker to worker; drop --actors")


def _anywhere(name: str) -> str:
    """A bot name a worker in another directory reads the same: net:PATH made absolute."""
    from gammon.eval.bots.registry import net_spec
    if not name.startswith(NET_PREFIX):
        return name
    path, plies = net_spec(name[len(NET_PREFIX):])
    if not path:
        return name
    full = os.path.abspath(path)
    return f"{NET_PREFIX}{full}" + (f"@{plies}" if plies else "")


def _read(text: str, args, given):
    """The board and state of one POSID or POSID:MATCHID (a UsageError for a bad one)."""
    words = text.split()
    if len(words) != 1:
        raise UsageError(f"expected one Position ID or POSID:MATCHID, got {quote(text.strip())}")
    board, state = read_at_score(words[0], args, given, args.variant)
    check_in_play(board)
    if state is not None and state.length == 0 and not args.cubeful:
        state = None  # a money cube matters only to a cubeful rollout
    return board, state


def _roll(args, bot, name: str, boards, states, settings: Settings, bar):
    """The results of the positions, in one process or on the actors."""
    from gammon.eval.analysis.rollouts import rollout
    kwargs = dict(states=states, keys=[0] * len(boards))
    try:
        if args.actors is None:
            return rollout(bot, boards, settings, progress=bar.update, **kwargs)
        from gammon.eval.analysis.rollout_actors import rollout_on_actors
        from gammon.eval.playing.cluster import ActorError, start_ray
        try:
            start_ray(args.ray_address)
        except ActorError as e:
            raise UsageError(str(e)) from None
        return rollout_on_actors(bot, _anywhere(name), boards, settings, args.actors,
                                 progress=bar.update, bot_seed=args.seed, **kwargs)
    except RolloutError as e:
        raise UsageError(str(e)) from None


def run(args) -> int:
    import numpy as np

    if args.batch and args.posid is not None:
        raise UsageError("--batch reads positions from stdin; give no POSID")
    if not args.batch and args.posid is None:
        raise UsageError("give a POSID (or --batch)")
    given = options_state(args)
    check_money_rules(args, given)
    if given is not None and given.length == 0 and not args.cubeful:
        given = None
    settings = rollout_settings(args, rollout_seed(args), args.cubeful, args.until_se)
    name = with_plies(args.bot, args.plies)
    _check_actors(args, name)
    bot = load_bot(name, args.seed, args.variant)
    check_rollout_bot(settings, bot)
    if not args.batch:
        board, state = _read(args.posid, args, given)
        if state is not None and state.length:
            check_money_rules(args, state)
        with progress_bar(settings.trials, args) as bar:
            result = _roll(args, bot, name, board[None], [state], settings, bar)[0]
        out = _fields(result, name)
        out = {"posid": args.posid.strip(), **out}
        if args.json:
            out["seconds"] = result.seconds
            print(json.dumps(out))
        else:
            print(_text(out, result))
        return 0
    return _batch(args, bot, name, settings, given, np)


def _batch(args, bot, name, settings, given, np) -> int:
    """Every line of stdin read first, the good ones rolled out together (money and match
    positions apart), then one answer a line, in order."""
    lines = list(input_lines())
    answers: list[str | None] = [None] * len(lines)
    good: dict[bool, list[tuple[int, object, object]]] = {False: [], True: []}
    for i, line in enumerate(lines):
        try:
            board, state = _read(line, args, given)
        except ValueError as e:
            answers[i] = _error_line(args, e)
            continue
        good[state is not None and state.length > 0].append((i, board, state))
    total = sum(len(v) for v in good.values()) * settings.trials
    with progress_bar(total, args) as bar:
        for rows in good.values():
            if not rows:
                continue
            boards = np.stack([b for _, b, _ in rows])
            results = _roll(args, bot, name, boards, [s for _, _, s in rows], settings, bar)
            for (i, _, _), r in zip(rows, results):
                answers[i] = _batch_line(args, lines[i].strip(), r)
    out = sys.stdout
    for text in answers:
        out.write(text.replace("\n", " ") + "\n")
    out.flush()
    return 0


def _error_line(args, e) -> str:
    from ..errors import one_line
    message = one_line(e)
    return json.dumps({"error": message}) if args.json else f"error: {message}"


def _batch_line(args, posid: str, r) -> str:
    d = r.to_dict()
    if args.json:
        keep = {k: d[k] for k in ("probabilities", "equity", "stderr", "trials")}
        for k in ("cubeful_equity", "cubeful_mwc", "cubeless_mwc"):
            if k in d:
                keep[k] = d[k]
        return json.dumps(keep)
    se = d["stderr"]["equity"]
    probs = " ".join(f"{k} {100 * d['probabilities'][k]:.2f}%" for k in FIVE)
    line = f"{posid}  equity {d['equity']:+.4f}  se {_num(se, 4)}  {probs}"
    if "cubeful_equity" in d:
        cubeful_se = _num(d["stderr"]["cubeful_equity"], 4)
        line += f"  cubeful {d['cubeful_equity']:+.4f}  se {cubeful_se}"
    return line + f"  trials {d['trials']}"


def _fields(result, name: str) -> dict:
    out = result.to_dict()
    out["settings"] = {"bot": name, **out["settings"]}
    return out


def _num(x, digits: int) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


LABELS = {"win": "win", "win_gammon": "win gammon", "win_backgammon": "win backgammon",
          "lose_gammon": "lose gammon", "lose_backgammon": "lose backgammon"}


def _text(out: dict, result) -> str:
    """The table for people: each estimate, its standard error and 95% interval."""
    lines = [f"{'':18}{'mean':>9}{'s.e.':>9}   95% interval"]
    se, ci = out["stderr"], out["ci95"]
    for k in FIVE:
        lines.append(f"{LABELS[k]:18}{_pct(out['probabilities'][k]):>9}{_pct(se[k]):>9}   "
                     f"{_pct_interval(ci[k])}")
    rows = [("equity", "cubeless equity")]
    if "cubeless_mwc" in out:
        rows.append(("cubeless_mwc", "cubeless MWC"))
    if "cubeful_equity" in out:
        rows.append(("cubeful_equity", "cubeful equity"))
    if "cubeful_mwc" in out:
        rows.append(("cubeful_mwc", "cubeful MWC"))
    for key, label in rows:
        if key.endswith("mwc"):
            lines.append(f"{label:18}{_pct(out[key]):>9}{_pct(se[key]):>9}   "
                         f"{_pct_interval(ci[key])}")
        else:
            lines.append(f"{label:18}{out[key]:>+9.4f}{_num(se[key], 4):>9}   "
                         f"{_eq_interval(ci[key])}")
    lines.append(f"trials {out['trials']:,}, {out['mean_plies']:.1f} plies a trial")
    lines.append("settings: " + settings_words(out["settings"]))
    return "\n".join(lines)


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.2f}%"


def _pct_interval(ci) -> str:
    return "-" if ci is None else f"{100 * ci[0]:.2f}% .. {100 * ci[1]:.2f}%"


def _eq_interval(ci) -> str:
    return "-" if ci is None else f"{ci[0]:+.4f} .. {ci[1]:+.4f}"


__all__ = ["add_parser", "run"]
