"""``gammon match``: play two bots against each other and report honest statistics."""

from __future__ import annotations

import argparse
import json
import os
import sys

from gammon.engine.rules import VARIANTS
from gammon.eval.bots.registry import NET_PREFIX, draws_numbers, valid_names
from gammon.model.lookahead import FILTER_EQUITY, FILTER_PLAYS

from ..errors import UsageError, quote
from ..options import load_bot
from ..positions import SEED_RANGE, seed_type, whole_type

MAX_GAMES = 100_000_000
MAX_MATCHES = 10_000_000
MAX_LENGTH = 64  # eval.playing.matchplay.MAX_LENGTH
MAX_CUBE = 2**20  # cube values (and points: x3) stay far from int32's limit

HELP = f"""\
Play GAMES cubeless money games of bot A against bot B and report, from A's side: wins,
points per game with a 95% confidence interval, gammon and backgammon rates of both sides,
plies per game and games per second.

By default the dice are paired: each dice sequence is played twice with the seats swapped,
so the luck of the dice largely cancels (GAMES must be even). The confidence interval is
then computed from the per-pair means, the pairs being the independent units; the width
the same games would give if independent is shown beside it. The same --seed (0 .. 2**63-1)
replays the same games bit for bit.

With --cube the games are cubeful money games: before each roll the player on roll may
double, the opponent takes, passes or (with --beavers) beavers; points are cube value x
1/2/3 (the cube value on a pass). Jacoby and beavers are off unless asked for (--jacoby,
--beavers), as in `gammon analyze`, `gammon cube` and `gammon play --cube`. The report
adds the cube values reached and the doubles offered, taken, beavered and passed by each
side. Nets double with their cube heads, the other bots by the Keith count in races;
nodouble:NAME never doubles and always takes.

A network looks ahead with @N after its name, N plies as GNU Backgammon counts them:
net:@1 is the shipped network at 1-ply, net:PATH@2 a checkpoint at 2-ply. 0-ply = the
network alone (the default), 1-ply = looks at the opponent's 21 rolls (his best reply to
each), 2-ply = also at our 21 rolls after each of his replies. Only the best {FILTER_PLAYS} plays
of a position within {FILTER_EQUITY} equity of the best at 0-ply are looked ahead; the cube
is decided at 0-ply. Each ply is some 20 times the work of the one before.

With --match-to N the bots play --matches M matches to N points instead of money games:
the cube is always used (no Jacoby, no beavers, no automatic doubles), the game after a
player first reaches N-1 is the Crawford game (no doubling), and the bots decide at the
score: nets choose their plays by match winning chance and their cube actions from the
match equity table; pubeval and the heuristic bots double by the Keith count in races,
never with a dead cube, at once as the post-Crawford trailer. Paired by default: matches
2i and 2i+1 use the same dice game by game, seats swapped (M must be even). The report:
A's match winning rate with its 95% interval (over pairs), points per match of both,
games per match, Crawford games and cube actions. --save FILE writes one file per match
(FILE with the match number before the extension: FILE_0001.mat, FILE_0001.sgf, ...).

--save FILE writes every game as a .mat file (GNU Backgammon: import mat FILE), or as GNU
Backgammon's SGF when FILE ends in .sgf (load match FILE; one game tree per game, the
Crawford game and the Jacoby rule marked). Both hold standard backgammon, nackgammon and
hypergammon; other variants are saved as .mat only.

bots: {valid_names()}

examples:
  gammon match pubeval random --games 1000
  gammon match net:@1 net: --games 200
  gammon match heuristic pubeval --games 10000 --seed 7 --json
  gammon match net: nodouble:net: --games 2000 --cube --jacoby --beavers
  gammon match net: pubeval --match-to 7 --matches 1000
"""


def add_parser(sub) -> None:
    p = sub.add_parser("match", help="play two bots against each other, with statistics",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", metavar="A", help="bot A (statistics are from its side)")
    p.add_argument("b", metavar="B", help="bot B")
    p.add_argument("--games", type=whole_type("--games", 0, MAX_GAMES), default=None,
                   help="games to play (default: 1000)")
    p.add_argument("--seed", type=seed_type, default=None,
                   help=f"seed for dice and bots, {SEED_RANGE} (default: a fresh one, printed)")
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant (default: standard)")
    p.add_argument("--no-pairing", action="store_true",
                   help="independent dice for every game instead of pairs of games")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--actors", type=int, default=None, metavar="K",
                   help="split the paired games over K Ray workers (a local Ray instance, "
                        "or --ray-address); the same games and numbers as in one process "
                        "for the same --seed. Needs the ray extra: pip install -e '.[ray]'")
    p.add_argument("--ray-address", metavar="ADDR", default=None,
                   help="with --actors: join the Ray cluster at ADDR")
    p.add_argument("--save", metavar="FILE",
                   help="write every game as a .mat match file (GNU Backgammon: import mat), "
                        "or as an SGF file when FILE ends in .sgf (GNU Backgammon: load "
                        "match)")
    series = p.add_argument_group("matches to N points")
    series.add_argument("--match-to", type=whole_type("--match-to", 1, MAX_LENGTH),
                        default=None, metavar="N",
                        help=f"play matches to N points (1..{MAX_LENGTH}) instead of money "
                             f"games")
    series.add_argument("--matches", type=whole_type("--matches", 1, MAX_MATCHES),
                        default=None, metavar="M",
                        help="with --match-to: how many matches (default: 100; even when "
                             "paired)")
    cube = p.add_argument_group("the doubling cube")
    cube.add_argument("--cube", action="store_true", help="cubeful money games")
    cube.add_argument("--jacoby", action="store_true",
                      help="gammons count single while the cube is centred (default: off)")
    cube.add_argument("--beavers", action="store_true",
                      help="a taker may redouble at once and keep the cube (default: off)")
    cube.add_argument("--auto-doubles", type=whole_type("--auto-doubles", 0, 64), default=0,
                      metavar="N",
                      help="double the cube on tied opening throws, at most N times (default: 0)")
    cube.add_argument("--max-cube", type=whole_type("--max-cube", 1, MAX_CUBE), default=64,
                      metavar="V", help="highest cube value, a power of two (default: 64)")
    p.set_defaults(run=run)


def cube_rules(args):
    """The ``CubeRules`` of the cube flags, or None without --cube."""
    from gammon.engine.cube import CubeRules
    extra = [flag for flag, on in (("--jacoby", args.jacoby), ("--beavers", args.beavers),
                                   ("--auto-doubles", args.auto_doubles),
                                   ("--max-cube", args.max_cube != 64)) if on]
    if not args.cube:
        if extra:
            raise UsageError(f"{extra[0]} needs --cube")
        return None
    try:
        return CubeRules(args.jacoby, args.beavers, args.auto_doubles, args.max_cube)
    except ValueError as e:
        raise UsageError(str(e)) from None


def run(args) -> int:
    from gammon.eval.playing.match import match_seeds, new_seed, run_match
    paired = not args.no_pairing
    if args.match_to is not None:
        return run_series(args, paired)
    if args.matches is not None:
        raise UsageError("--matches counts matches to N points: add --match-to N")
    args.games = 1000 if args.games is None else args.games
    if args.games < 1 or (paired and args.games % 2):
        raise UsageError(f"--games must be positive{' and even with paired dice' if paired else ''}"
                         f" (or use --no-pairing), at most {MAX_GAMES:,}; got {args.games}")
    rules = cube_rules(args)
    seed = new_seed() if args.seed is None else args.seed
    _, seed_a, seed_b = match_seeds(seed)
    _check_actors(args, paired)
    bot_a = load_bot(args.a, seed_a, args.variant, rules)
    bot_b = load_bot(args.b, seed_b, args.variant, rules)
    if args.actors:
        result = _distributed(args, seed, rules)
    else:
        recorder = _recorder(args, rules)
        # a bot that draws numbers is passed by name: run_match seeds it afresh per chunk
        result = run_match(args.a if draws_numbers(args.a) else bot_a,
                           args.b if draws_numbers(args.b) else bot_b,
                           args.games, seed, args.variant, paired,
                           progress=not args.no_progress, cube=rules, on_play=recorder,
                           on_cube=recorder.cube if recorder is not None else None)
        if recorder is not None:
            result.names = (args.a, args.b)
            _save(args, recorder, result)
    result.names = (args.a, args.b)
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        sys.stdout.write(table(result))
    return 0


def run_series(args, paired: bool) -> int:
    """``--match-to N``: matches to N points (``eval.playing.matchplay``), with match statistics."""
    from gammon.eval.playing.match import match_seeds, new_seed
    from gammon.eval.playing.matchplay import matches_of, run_matches
    matches = 100 if args.matches is None else args.matches
    if args.games is not None:
        raise UsageError("--games counts money games; with --match-to give --matches M")
    for flag, on in (("--jacoby", args.jacoby), ("--beavers", args.beavers),
                     ("--auto-doubles", args.auto_doubles), ("--max-cube", args.max_cube != 64)):
        if on:
            raise UsageError(f"{flag} is a money-game rule; a match to N points has no "
                             f"Jacoby rule, beavers, automatic doubles or cube limit")
    if args.actors is not None or args.ray_address is not None:
        raise UsageError("--actors splits money games; drop it with --match-to")
    if paired and matches % 2:
        raise UsageError(f"--matches must be even with paired dice (or use --no-pairing); "
                         f"got {matches}")
    from gammon.engine.cube import CubeRules
    seed = new_seed() if args.seed is None else args.seed
    _, seed_a, seed_b = match_seeds(seed)
    rules = CubeRules()
    bot_a = load_bot(args.a, seed_a, args.variant, rules)
    bot_b = load_bot(args.b, seed_b, args.variant, rules)
    recorder = None
    if args.save:
        check_writable(args.save, "--save")
        check_save_format(args.save, args.variant)
        from gammon.engine.formats.record import PlayRecorder
        recorder = PlayRecorder(args.variant)
    result = run_matches(bot_a, bot_b, matches, args.match_to, seed, args.variant, paired,
                         progress=not args.no_progress, recorder=recorder)
    result.names = (args.a, args.b)
    if recorder is not None:
        _save_matches(args, matches_of(recorder, result), result.seed)
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        sys.stdout.write(series_table(result))
    return 0


def match_file_names(path: str, count: int) -> list[str]:
    """The files of ``count`` matches saved to ``path``: the path itself for one match,
    else the match number before its extension (``m.mat`` -> ``m_0001.mat``, ...)."""
    if count == 1:
        return [path]
    from pathlib import Path
    p = Path(path)
    suffix = p.suffix or ".mat"
    return [str(p.with_name(f"{p.stem}_{i:04d}{suffix}")) for i in range(1, count + 1)]


def _save_matches(args, matches: list, seed: int) -> None:
    """One .mat (or SGF) file per match, each written whole or not at all; a one-line error
    (``engine.files.WriteError``) when one cannot be written."""
    from gammon.engine.files import write_atomic
    names = match_file_names(args.save, len(matches))
    for number, (match, name) in enumerate(zip(matches, names), 1):
        comments = {"Site": "gammon match", "Seed": str(seed), "Round": str(number)}
        write_atomic(os.path.expanduser(name), match_file_text(name, match, comments))
    print(f"saved {len(matches):,} matches to {names[0]}"
          + (f" .. {names[-1]}" if len(names) > 1 else ""), file=sys.stderr)


def series_table(r) -> str:
    """The report of matches to N points for people, from A's side."""
    a, b = r.names
    how = "paired dice" if r.paired else "independent dice"
    units = f"{r.matches // 2:,} pairs" if r.paired else f"{r.matches:,} matches"
    d = r.to_dict()
    lines = [
        f"{a} (A) vs {b} (B): {r.matches:,} matches to {r.length} points, {r.variant}, "
        f"{how}, seed {r.seed}",
        f"{'':22}{'A: ' + a:>20}  {'B: ' + b:>20}",
        f"{'matches won':22}{_count(r.wins_a, r.matches)}  {_count(r.wins_b, r.matches)}",
        f"{'A match winning rate':22}{100 * r.win_rate_a:.1f}% ± {100 * r.win_rate_a_ci95:.1f}% "
        f"(95% CI over {units})",
        f"{'points per match':22}{d['points_per_match_a']:>20.2f}  "
        f"{d['points_per_match_b']:>20.2f}",
        f"{'doubles offered':22}{d['cube']['offers_a']:>20,}  {d['cube']['offers_b']:>20,}",
        f"{'doubles taken':22}{d['cube']['takes_a']:>20,}  {d['cube']['takes_b']:>20,}",
        f"{'doubles passed':22}{d['cube']['passes_a']:>20,}  {d['cube']['passes_b']:>20,}",
        f"{'games per match':22}{d['games_per_match']:8.2f}  ({d['games']:,} games, "
        f"{d['crawford_games']:,} Crawford games)",
    ]
    if d["unfinished"]:
        lines.append(f"{'unfinished':22}{d['unfinished']:>8,} (games cut off at the ply limit)")
    lines.append(f"{'seconds':22}{r.seconds:8.1f}")
    return "\n".join(lines) + "\n"


def _check_actors(args, paired: bool) -> None:
    """Check --actors and --ray-address (before any bot is loaded)."""
    if args.actors is None:
        if args.ray_address is not None:
            raise UsageError("--ray-address joins a Ray cluster for --actors; add --actors K")
        return
    if not 1 <= args.actors <= 4096:
        raise UsageError(f"--actors must be 1..4096 Ray workers, got {args.actors}")
    if not paired:
        raise UsageError("--actors splits paired matches only; drop --no-pairing")
    if args.save:
        raise UsageError("--save records the games of one process; drop --actors to --save")


def _distributed(args, seed: int, rules):
    """The match on ``args.actors`` Ray workers (``eval.playing.distributed``): the games and
    numbers of the single-process match with the same seed."""
    from tqdm import tqdm

    from gammon.eval.playing.distributed import run_distributed_match
    from gammon.eval.playing.cluster import ActorError, start_ray
    try:
        start_ray(args.ray_address)
    except ActorError as e:
        raise UsageError(str(e)) from None
    with tqdm(total=args.games, unit="game", disable=True if args.no_progress else None,
              leave=False, dynamic_ncols=True) as bar:
        return run_distributed_match(_anywhere(args.a), _anywhere(args.b), args.games, seed,
                                     args.variant, args.actors, cube=rules,
                                     progress=bar.update)


def _anywhere(name: str) -> str:
    """A bot name a worker in another directory reads the same: net:PATH made absolute."""
    from gammon.eval.bots.cube import NEVER_PREFIX
    from gammon.eval.bots.registry import net_spec
    prefix = NEVER_PREFIX if name.startswith(NEVER_PREFIX) else ""
    inner = name[len(prefix):]
    if not inner.startswith(NET_PREFIX):
        return name
    path, plies = net_spec(inner[len(NET_PREFIX):])
    if path is None:
        return name
    from pathlib import Path
    return f"{prefix}{NET_PREFIX}{Path(path).resolve()}" + (f"@{plies}" if plies else "")


def _recorder(args, rules):
    """A recorder of every play and cube action for --save, else None."""
    if not args.save:
        return None
    if rules is not None and (rules.beavers or rules.auto_doubles):
        raise UsageError(".mat files (and gammon's SGF files) have no beavers or automatic "
                         "doubles: drop --beavers/--auto-doubles to --save")
    check_writable(args.save, "--save")
    check_save_format(args.save, args.variant)
    from gammon.engine.formats.record import PlayRecorder
    return PlayRecorder(args.variant)


def check_writable(path: str, what: str) -> None:
    """A usage error, before any game is played, for a file that cannot be written: a NUL
    in its name, a directory, a folder that does not exist or cannot be written."""
    from pathlib import Path
    if not path or "\x00" in path:
        raise UsageError(f"{what} needs a file name, got {quote(path)}")
    target = Path(os.path.expanduser(path))  # ~user that does not exist: as it is
    try:
        if target.is_dir():
            raise UsageError(f"{what} {quote(path)} is a directory; give a file name")
        folder = target.parent
        if not folder.is_dir():
            raise UsageError(f"{what} {quote(path)}: no such directory {quote(str(folder))}")
        if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
            raise UsageError(f"{what} {quote(path)}: permission denied")
    except OSError as e:  # a name too long for the system, ...
        raise UsageError(f"{what} {quote(path)}: {e.strerror or e}") from None


def check_save_format(path: str, variant: str) -> None:
    """A usage error, before any game is played, for an SGF file of a variant SGF cannot
    hold."""
    from gammon.engine.formats.sgf import is_sgf_name, sgf_problem
    why = sgf_problem(variant) if is_sgf_name(path) else None
    if why:
        raise UsageError(f"--save {quote(path)}: {why}")


def match_file_text(path: str, match, comments: dict, jacoby: bool = False) -> str:
    """The text of a saved match: SGF when ``path`` ends in .sgf, else a .mat file; a play
    that cannot be written is a usage error of one line."""
    from gammon.engine.formats.sgf import format_match_file
    try:
        return format_match_file(path, match, comments, jacoby)
    except ValueError as e:
        raise UsageError(f"--save {quote(path)}: {e}") from None


def _save(args, recorder, result) -> None:
    """Write the recorded games as a .mat (or SGF) file, whole or not at all; a one-line
    error (``engine.files.WriteError``) when it cannot."""
    from gammon.engine.files import write_atomic
    match = recorder.match((args.a, args.b), result.points, args.variant)
    comments = {"Site": "gammon match", "Seed": str(result.seed)}
    write_atomic(os.path.expanduser(args.save),
                 match_file_text(args.save, match, comments, bool(args.cube and args.jacoby)))
    print(f"saved {len(match.games):,} games to {args.save}", file=sys.stderr)


def _count(n: int, games: int) -> str:
    return f"{f'{n:,} ({100 * n / games:.2f}%)':>20}"


def table(r) -> str:
    """The match report for people: one row per statistic, A's and B's columns."""
    a, b = r.names
    how = "paired dice" if r.paired else "independent dice"
    units = f"{r.games // 2:,} pairs" if r.paired else f"{r.games:,} games"
    kind = ", cubeful money" if r.cube is not None else ""
    lines = [
        f"{a} (A) vs {b} (B): {r.games:,} games{kind}, {r.variant}, {how}, seed {r.seed}",
        f"{'':22}{'A: ' + a:>20}  {'B: ' + b:>20}",
        f"{'wins':22}{_count(r.wins_a, r.games)}  {_count(r.wins_b, r.games)}",
        f"{'gammons':22}{_count(r.gammons_a, r.games)}  {_count(r.gammons_b, r.games)}",
        f"{'backgammons':22}{_count(r.backgammons_a, r.games)}  "
        f"{_count(r.backgammons_b, r.games)}",
        f"{'A points per game':22}{r.ppg_a:+.4f} ± {r.ppg_a_ci95:.4f} (95% CI over {units})",
    ]
    if r.paired:
        lines.append(f"{'':22}(± {r.ci95_unpaired:.4f} if the games were independent)")
    if r.unfinished:
        lines.append(f"{'unfinished':22}{r.unfinished:>8,} (cut off at the ply limit, 0 points)")
    lines += [
        f"{'plies per game':22}{r.plies_per_game:8.1f}",
        f"{'games per second':22}{r.games_per_s:8,.0f}",
    ]
    if r.cube is not None:
        lines += cube_lines(r)
    return "\n".join(lines) + "\n"


def cube_lines(r) -> list[str]:
    """The cube part of the report: rules, cube values reached, the two sides' actions."""
    c = r.cube
    lines = [f"cube: {c.rules.describe()}",
             f"{'cube values reached':22}" + "  ".join(
                 f"{v}: {n:,}" for v, n in c.histogram().items()),
             f"{'ended by a pass':22}{_count(int(c.passed.sum()), r.games)}"]
    for key, words in (("offers", "doubles offered"), ("takes", "doubles taken"),
                       ("beavers", "doubles beavered"), ("passes", "doubles passed")):
        if key == "beavers" and not c.rules.beavers:
            continue
        a, b = c.totals()[key]
        lines.append(f"{words:22}{a:>20,}  {b:>20,}")
    return lines
