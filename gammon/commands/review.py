"""``gammon review``: every decision of a game or a match graded, the luck of every roll,
each player's error rates and performance rating (``eval.review``)."""

from __future__ import annotations

import argparse
import json
import sys

from gammon.engine.rules import VARIANTS
from gammon.eval.bots.registry import DEFAULT_BOT, bot_plies, valid_names

from ..errors import UsageError, quote
from ..options import load_bot, with_plies
from ..positions import fraction_type

HELP = f"""\
Review a game or a match: grade every decision of both players with a bot, mark the
errors, measure the luck of every roll and sum each player's figures, as GNU Backgammon's
"analyse match" does. FILE is a .mat file (ours from `gammon match --save` or `gammon play
--save`, or one that GNU Backgammon, eXtreme Gammon, Backgammon Galaxy or Backgammon Studio
exported) or an SGF file of GNU Backgammon or GNU Gibbon (told by its content), read as GNU
Backgammon 1.07 imports it: a .mat file's Jacoby, Beaver and Crawford headers are the rules
(--jacoby and --beavers add to them), and where the file contradicts itself (a Wins line
other than its play, a score line other than its games) a warning says what is used.

Every equity is cubeful at the cube state of the moment (the cube's value and owner; at a
match score the match winning chance as equivalent money equity, EMG) and normalised to a
1-cube, as GNU Backgammon's mEMG:
  checker play  the loss against the best play; forced plays (one legal result or none)
                are not counted
  cube          no double / double (missed and wrong doubles) and take / pass (wrong takes
                and passes); counted, as GNU Backgammon counts them, when the decision was
                "close or actual": a double, a take or a pass, or a decision not to double
                where doubling would have cost less than 0.16
  luck          the value after the roll (the best play for it) minus the mean over the 36
                rolls (the 30 ways of the opening roll for the first)
Marks (GNU Backgammon 1.07's defaults): doubtful past a loss of 0.03, bad past 0.06, very
bad past 0.12; rolls lucky past +0.3, very lucky +0.6, unlucky past -0.3, very unlucky -0.6.
Per player: unforced checker decisions, checker, cube and overall error rates (mEMG per
decision), the performance rating on eXtreme Gammon's scale (PR = 500 x the mean loss per
decision, half the error rate), luck, points and the luck-adjusted result.

A match is valued with a match equity table: by default engine.met's (built with a live
cube from a gammon rate of 0.26); --met kazaross-xg2 takes the Kazaross XG2 table, the one
GNU Backgammon 1.07 uses, and --met FILE a table file (engine/met.py's text format or
gnubg's XML, as `gammon met --file` reads). To compare with gnubg's own analysis of a
match, use --bot gnubg --met kazaross-xg2.

The text report is a table of both players, then every marked decision with its board,
roll, play, best options and loss; --json prints the report object, --html FILE writes a
page of it (no network needed to view it). An illegal move in the file is reported with
its game, move and player (and its line in a .mat file): --on-illegal stop (the default)
ends with that one line, --on-illegal skip warns and reviews the rest of the file without
the rest of that game. A file that cannot be reviewed is named by its whole path.

The bot must estimate probabilities: net: (the shipped network, the default), net:PATH or
gnubg (GNU Backgammon's nets at 0-ply, through gnubg-nn).

--rollout rolls out every marked decision again (cubeful, the cube played inside every
trial, at the cube and score of the moment; settings as for `gammon rollout`): a checker
play against the move filter's candidates on the same dice, a cube decision as no double
and double/take on the same dice. Each marked decision then also shows its loss by the
rollout with a 95% interval and the rollout's best play or action ("rollout" in --json);
the marks and error rates stay those of the grading bot. At a match score the trials play
on engine.met's table (so not with --met).

bots: {valid_names()}

examples:
  gammon match net: pubeval --games 2 --cube --seed 1 --save games.mat
  gammon review games.mat
  gammon review games.mat --bot gnubg --json
  gammon review match.mat --bot gnubg --met kazaross-xg2
  gammon review match.sgf --very-bad 0.1 --html review.html
  gammon review games.mat --rollout --trials 324 --seed 1
"""


def add_parser(sub) -> None:
    p = sub.add_parser("review", help="grade every decision of a game or a match",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE", help="a .mat or SGF match file")
    p.add_argument("--bot", default=DEFAULT_BOT,
                   help=f"the bot that grades (default: {DEFAULT_BOT}, the shipped network)")
    from ..options import add_plies_option
    add_plies_option(p)
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.add_argument("--html", metavar="OUT", default=None,
                   help="also write the report as a self-contained HTML page to OUT")
    p.add_argument("--variant", default=None, choices=list(VARIANTS),
                   help="the variant the games were played in (default: the file's)")
    p.add_argument("--on-illegal", choices=("stop", "skip"), default="stop",
                   help="an illegal move: stop with one line (default), or skip the rest "
                        "of that game with a warning")
    p.add_argument("--efficiency", type=fraction_type("--efficiency"), default=None,
                   metavar="X", help="Janowski's cube efficiency, 0 to 1 (default: 0.68)")
    p.add_argument("--met", default=None, metavar="TABLE",
                   help="the match equity table a match is valued with: kazaross-xg2 (GNU "
                        "Backgammon 1.07's default; use it to compare with gnubg), or a "
                        "file in engine/met.py's text format or gnubg's XML (default: "
                        "engine.met's live-cube table)")
    p.add_argument("--jacoby", action="store_true",
                   help="money games used the Jacoby rule (an SGF file says so itself, a "
                        ".mat file with its Jacoby header)")
    p.add_argument("--beavers", action="store_true",
                   help="money games allowed beavers (a take may be a beaver; a .mat file "
                        "says so with its Beaver header)")
    for name, default, what in (("doubtful", 0.03, "a doubtful decision"),
                                ("bad", 0.06, "a bad decision"),
                                ("very-bad", 0.12, "a very bad decision")):
        p.add_argument(f"--{name}", type=fraction_type(f"--{name}", 0.0, 10.0),
                       default=default, metavar="E",
                       help=f"loss (EMG per 1-cube) past which {what} is marked "
                            f"(default {default:g})")
    for name, default in (("lucky", 0.3), ("very-lucky", 0.6)):
        p.add_argument(f"--{name}", type=fraction_type(f"--{name}", 0.0, 10.0),
                       default=default, metavar="E",
                       help=f"luck past which a roll is {name.replace('-', ' ')} "
                            f"(default {default:g}); unlucky / very unlucky mirror them "
                            f"unless given" if name == "lucky" else
                            f"luck past which a roll is very lucky (default {default:g})")
    for name, default in (("unlucky", -0.3), ("very-unlucky", -0.6)):
        p.add_argument(f"--{name}", type=fraction_type(f"--{name}", -10.0, 0.0),
                       default=None, metavar="E",
                       help=f"luck below which a roll is {name.replace('-', ' ')} "
                            f"(default: minus the lucky threshold, {default:g})")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    from ..rollout_options import add_rollout_flag
    add_rollout_flag(p, "every marked decision again, cubeful, and tell its loss beside "
                        "the 0-ply one")
    p.set_defaults(run=run)


def thresholds_of(args):
    """The marks' Thresholds of the options (a usage error when they make no sense)."""
    from gammon.eval.review.marks import Thresholds
    t = Thresholds(args.doubtful, args.bad, args.very_bad, args.lucky, args.very_lucky,
                   -args.lucky if args.unlucky is None else args.unlucky,
                   -args.very_lucky if args.very_unlucky is None else args.very_unlucky)
    why = t.problem()
    if why:
        raise UsageError(why)
    return t


class Refused(Exception):
    """A file the review cannot read: the whole path and the one line saying why and where,
    printed without the length limit of other usage errors (a user with many files must be
    able to tell which one failed)."""

    def __init__(self, path: str, message: str):
        super().__init__(message)
        self.path, self.message = str(path), str(message)

    def line(self) -> str:
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in self.message)
        return f"gammon review: error: {whole_path(self.path)}: {text}"


def whole_path(path: str) -> str:
    """A path as an error message names it: whole, quoted, control characters escaped."""
    return repr(str(path))


def read_text(path: str) -> str:
    """A file's text; a one-line refusal, naming the whole path, for a file that is missing
    or not text."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Refused(path, f"cannot read it ({e.strerror or e})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Refused(path, f"not UTF-8 text (byte {e.start}): neither a .mat nor an SGF "
                            f"file") from None


def review_bot(bot_name: str, variant: str):
    """The bot, loaded; a usage error for one that estimates no probabilities."""
    from gammon.eval.analysis import NoProbabilities, evaluator
    bot = load_bot(bot_name, None, variant)
    try:
        evaluator(bot)
    except NoProbabilities:
        raise UsageError(f"the bot {quote(bot_name)} estimates no probabilities; a review "
                         f"needs net:, net:PATH or gnubg") from None
    return bot




def _roll_out(args, report: dict, prepared, bot) -> None:
    """Every marked decision of ``report`` rolled out (``eval.review.rollout``)."""
    from gammon.engine.rules import variant as get_variant
    from gammon.eval.analysis.rollouts import RolloutError
    from gammon.eval.review.rollout import count_marked, roll_out_marked

    from ..rollout_options import check_rollout_bot, rollout_seed, rollout_settings
    source, games, rules = prepared
    if args.met is not None and source.match.length:
        raise UsageError("--rollout plays a match's trials on engine.met's table: leave out "
                         "--met (or review without --rollout)")
    options = argparse.Namespace(**{**vars(args), "variant": rules.name,
                                     "no_beavers": False})
    seed = rollout_seed(args)
    settings = rollout_settings(options, seed, cubeful=True)
    check_rollout_bot(settings, bot)
    from tqdm import tqdm
    with tqdm(total=count_marked(report), unit="decision", leave=False,
              disable=True if args.no_progress else None, dynamic_ncols=True) as bar:
        try:
            roll_out_marked(report, games, bot, get_variant(rules.name), settings,
                            bar.update)
        except RolloutError as e:
            raise UsageError(str(e)) from None
    report["rollout"] = {"trials": settings.trials, "seed": seed,
                         "truncate": settings.truncate, "vr": settings.vr,
                         "cubeful": True}


def run(args) -> int:
    try:
        return _run(args)
    except Refused as e:
        print(e.line(), file=sys.stderr)
        return 2


def _run(args) -> int:
    from gammon.eval.review.report import ReviewInputError, TooMuchWork, count_turns, prepare, review
    from ..rollout_options import ONLY_WITH_ROLLOUT, check_rollout_args
    check_rollout_args(args, [n for n in ONLY_WITH_ROLLOUT if n != "no_progress"] + ["seed"])
    thresholds = thresholds_of(args)
    text = read_text(args.file)
    efficiency = args.efficiency
    from ..met_tables import table_of
    met = table_of(args.met) if args.met is not None else None
    try:
        prepared = prepare(text, args.on_illegal == "skip", args.variant,
                           True if args.jacoby else None, True if args.beavers else None,
                           efficiency, met)
    except ReviewInputError as e:
        raise Refused(args.file, str(e)) from None
    name = with_plies(args.bot, args.plies)
    bot = review_bot(name, prepared[0].match.variant)
    for w in prepared[0].warnings + [g.warning for g in prepared[1] if g.warning]:
        print(f"gammon review: warning: {w}", file=sys.stderr)
    from tqdm import tqdm
    with tqdm(total=count_turns(prepared[1]), unit="turn", leave=False,
              disable=True if args.no_progress else None, dynamic_ncols=True) as bar:
        try:
            report = review(text, bot, name, bot_plies(name), args.file, thresholds,
                            prepared=prepared, progress=bar.update)
        except (ReviewInputError, TooMuchWork) as e:
            raise Refused(args.file, str(e)) from None
    if args.rollout:
        _roll_out(args, report, prepared, bot)
    if args.html:
        from gammon.eval.review.html import write_report
        write_report(report, args.html)
    if args.json:
        print(json.dumps(report))
    else:
        from gammon.eval.review.text import text_report
        print(text_report(report))
        if args.html:
            print(f"wrote the HTML report to {args.html}")
    return 0
