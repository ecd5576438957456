"""Our rollouts against GNU Backgammon 1.07's own: its rollouts of a small committed set of
positions, how close our rollout and our 0-ply evaluation come to them, and the speed of
both programs side by side.

    python -m gammon.eval.gnubg.rollouts                      # compare (about 20 min on one core)
    python -m gammon.eval.gnubg.rollouts --positions 3 --trials 144   # a quick look
    python -m gammon.eval.gnubg.rollouts --speed              # trials a second, gnubg -t beside us
    python -m gammon.eval.gnubg.rollouts --speed --modes plain --rounds 3   # plain only, 3 turns
    python -m gammon.eval.gnubg.rollouts --generate --seed 1 --per-phase 8   # needs gnubg, gnubg-nn

The data (``eval/gnubg/data/gnubg_rollouts.jsonl``, committed): money positions before the
roll from self-play of the shipped net (``eval.reports.rollout_check.play_positions``, the
seed in the file), ``--per-phase`` of each of gnubg's classes contact, crashed and race
(``eval.gnubg.benchmark.phase_of``), each rolled out by ``gnubg -t`` with the settings
``GNUBG_SETTINGS`` (1,296 trials, 0-ply cubeless checker play without pruning, cubeless,
lookahead variance reduction, quasi-random dice, Mersenne Twister with the file's seed, no
truncation; gnubg stops its cubeless trials in its one-sided bear-off database). gnubg
prints a rollout's table only when its standard output is a terminal, so it runs on a
pseudo-terminal (``driver.run_gnubg_on_terminal``). ``--generate`` appends a line per
position as it is done, so a stopped run goes on where it stopped when run again.

Compare: our rollout (``--bot``, default the shipped net at 0-ply; ``--trials`` 1,296, VR,
quasi-random dice) and our bot's 0-ply cubeless equity of each position, both against
gnubg's rolled-out equity: the mean absolute difference by phase. A rollout of our net
corrects what the net gets wrong only as far as its own play is right, so the rollout's
distance to gnubg's is what is left of our net's error after the look at whole games.

Speed: ``--speed-positions`` positions of the set (one per phase first), rolled out with
``--trials`` by ``gnubg -t`` (``set threads 1``) and by us in this process (torch on one
thread, NumPy's BLAS too), with and without variance reduction (``--modes``), gnubg then
us, ``--rounds`` times: trials a second of each and their ratio. gnubg's start (loading its
nets, timed with an empty script) is taken off its time.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

from gammon.engine.files import WriteError, append_line
from gammon.engine.formats.posid import decode, encode
from gammon.engine.outcomes import FIVE, OUTCOME_POINTS
from gammon.eval.gnubg.cli import OneLineParser, UsageError, first_line, probability_bot
from gammon.eval.gnubg.cube_check import CubeDataError, read_lines
from gammon.eval.gnubg.driver import GnubgError, find_gnubg, gnubg_version, run_gnubg_on_terminal

DATA_PATH = Path(__file__).parent / "data" / "gnubg_rollouts.jsonl"
FORMAT = 1
TRIALS = 1296
DEFAULT_SEED = 1
PER_PHASE = 8
PHASES = ("contact", "crashed", "race")
SPEED_POSITIONS = 3
POOL_GAMES_PER_POSITION = 4  # self-play positions drawn per position wanted, per phase share
GENERATE_COMMAND = "python -m gammon.eval.gnubg.rollouts --generate --seed {seed} --per-phase {n}"


def gnubg_settings(trials: int, vr: bool) -> list[str]:
    """The commands that set gnubg's rollouts as this module compares them."""
    return ["set threads 1",
            "set sound enable off",
            "set player 0 human",
            "set player 1 human",
            "set automatic roll off",
            "set jacoby off",
            "set beavers 0",
            f"set rollout trials {trials}",
            "set rollout cubeful off",
            "set rollout chequerplay plies 0",
            "set rollout chequerplay cubeful off",
            "set rollout chequerplay prune off",
            f"set rollout varredn {'on' if vr else 'off'}",
            "set rollout quasirandom on",
            "set rollout truncation enable off",
            "set rollout rng mersenne",
            "new session",
            "set matchid cAkAAAAAAAAA"]  # money, centred 1-cube, nobody has rolled


GNUBG_SETTINGS = gnubg_settings(TRIALS, True)


def rollout_script(posids: list[str], trials: int, vr: bool, seed: int) -> list[str]:
    """A gnubg script rolling out each position (before the roll, player on roll)."""
    lines = gnubg_settings(trials, vr)
    for posid in posids:
        lines += [f"set board {posid}", f"set rollout seed {seed}", "rollout"]
    return lines


_NUM = r"([+-]?\d+\.\d+)"
_SIX = r"\s+".join([_NUM] * 3) + r"\s+-\s+" + r"\s+".join([_NUM] * 3)
# 'Current Position:' then '  0.543 0.135 0.008 - 0.457 0.112 0.007 CL +0.110'
# then ' [0.012 0.010 0.002 - 0.012 0.007 0.001 CL  0.029] 1r', then '36 games, ...'
_TABLE = re.compile(r"Current Position:\s*\n\s*" + _SIX + r"\s+CL\s+" + _NUM + r"\s*\n\s*\[\s*"
                    + _SIX + r"\s+CL\s+" + _NUM + r"\s*\].*\n.*\n\s*(\d+) games")
_DONE = "Rollout done. Printing final results."


def parse_rollouts(output: str) -> list[dict]:
    """Every finished rollout's table in gnubg's output, in order: "probabilities" (the
    five, gnubg's order win, win gammon, win backgammon, lose gammon, lose backgammon),
    "equity" (cubeless), "stderr" (the five and "equity"), "trials"."""
    out = []
    for part in output.split(_DONE)[1:]:
        m = _TABLE.search(part)
        if m is None:
            raise GnubgError("gnubg's rollout printed no table we can read")
        v = [float(x) for x in m.groups()[:14]]
        # gnubg: win wg wbg - lose lg lbg CL equity; ours: win wg wbg lg lbg
        p = [v[0], v[1], v[2], v[4], v[5]]
        se = [v[7], v[8], v[9], v[11], v[12]]
        out.append({"probabilities": dict(zip(FIVE, p)), "equity": v[6],
                    "stderr": {**dict(zip(FIVE, se)), "equity": v[13]},
                    "trials": int(m.group(15))})
    return out


def gnubg_rollouts(posids: list[str], trials: int, vr: bool, seed: int,
                   gnubg: str | None = None, timeout: float = 3600) -> list[dict]:
    """gnubg's rollouts of the positions (one process)."""
    out = run_gnubg_on_terminal(rollout_script(posids, trials, vr, seed), gnubg, timeout)
    found = parse_rollouts(out)
    if len(found) != len(posids):
        raise GnubgError(f"gnubg finished {len(found)} of {len(posids)} rollouts: "
                         f"{first_line(out.strip().splitlines()[-1] if out.strip() else '')}")
    return found


# --------------------------------------------------------------------------- the data

def load(path: Path | str = DATA_PATH) -> tuple[dict, list[dict]]:
    """The file's meta and its positions; CubeDataError for a missing or damaged file."""
    path = Path(path)
    meta, rows = read_lines(path, "gnubg rollout data", FORMAT,
                            f"{path}: no gnubg rollout data; make it with: "
                            + GENERATE_COMMAND.format(seed=DEFAULT_SEED, n=PER_PHASE))
    for r in rows:
        try:
            decode(r["posid"])
            assert r["phase"] in PHASES and len(r["gnubg"]["probabilities"]) == 5
            float(r["gnubg"]["equity"])
        except Exception:  # noqa: BLE001 - any damage is the same one line
            raise CubeDataError(f"{path}: damaged gnubg rollout data: a bad position "
                                f"line") from None
    return meta, rows


def candidates(seed: int, per_phase: int, bot) -> dict[str, list[str]]:
    """Position IDs of self-play positions of ``bot``, ``per_phase`` of each phase."""
    import gnubg_nn

    from gammon.eval.gnubg.benchmark import phase_of
    from gammon.eval.reports.rollout_check import play_positions
    pool = play_positions(bot, 60 * per_phase * POOL_GAMES_PER_POSITION, seed)
    found: dict[str, list[str]] = {p: [] for p in PHASES}
    for board in pool:
        phase = PHASES[phase_of(gnubg_nn, board)]
        if len(found[phase]) < per_phase:
            found[phase].append(encode(board))
        if all(len(v) == per_phase for v in found.values()):
            break
    return found


def generate(path: Path, seed: int, per_phase: int, trials: int, log) -> int:
    """gnubg's rollouts of new positions, one line each appended to ``path`` as it is
    done (a run stopped midway goes on where it stopped)."""
    if find_gnubg() is None:
        raise UsageError("generating needs GNU Backgammon's gnubg program "
                         "(Debian: apt-get install gnubg)")
    try:
        import gnubg_nn  # noqa: F401  (the phases are gnubg's classes)
    except ImportError:
        raise UsageError("generating needs the gnubg-nn package: pip install "
                         "'gammon[gnubg]'") from None
    bot, _ = probability_bot("net:")
    done: set[str] = set()
    if path.exists():
        meta, rows = load(path)
        if (meta.get("seed"), meta.get("trials")) != (seed, trials):
            raise UsageError(f"{path} holds rollouts of seed {meta.get('seed')} and "
                             f"{meta.get('trials')} trials; give those, or another --data")
        done = {r["posid"] for r in rows}
    else:
        meta = {"format": FORMAT, "seed": seed, "trials": trials, "per_phase": per_phase,
                "positions": "self-play of net: (eval.reports.rollout_check.play_positions)",
                "gnubg": gnubg_version(), "gnubg_settings": gnubg_settings(trials, True),
                "rollout_seed": seed}
        append_line(path, json.dumps({"meta": meta}))
    todo = [(phase, p) for phase, ids in candidates(seed, per_phase, bot).items()
            for p in ids if p not in done]
    for i, (phase, posid) in enumerate(todo):
        start = time.perf_counter()
        got = gnubg_rollouts([posid], trials, True, seed)[0]
        seconds = time.perf_counter() - start
        append_line(path, json.dumps({"posid": posid, "phase": phase, "gnubg": got,
                                      "seconds": round(seconds, 1)}))
        log(f"gnubg: {i + 1}/{len(todo)} {phase} {posid} equity {got['equity']:+.3f} "
            f"({seconds:.0f} s)")
    return len(todo)


# --------------------------------------------------------------------------- the checks

def compare(rows: list[dict], bot, trials: int, seed: int, log=None) -> dict:
    """Our rollout and our 0-ply against gnubg's rollouts: mean |difference| of the
    cubeless equity, by phase."""
    from gammon.eval.analysis import evaluator
    from gammon.eval.analysis.rollouts import Settings, rollout
    boards = np.stack([decode(r["posid"]) for r in rows])
    start = time.perf_counter()
    ours = rollout(bot, boards, Settings(trials=trials, seed=seed),
                   progress=_bar(len(rows) * trials) if log else None)
    seconds = time.perf_counter() - start
    p6 = np.asarray(evaluator(bot)(boards), dtype=np.float64)
    zero = (p6 @ OUTCOME_POINTS if p6.shape[1] == 6 else _five_equity(p6))
    gnubg = np.array([r["gnubg"]["equity"] for r in rows])
    gnubg_se = np.array([r["gnubg"]["stderr"]["equity"] for r in rows])
    roll = np.array([r.equity for r in ours])
    roll_se = np.array([r.equity_se for r in ours])
    phases = [r["phase"] for r in rows]
    by_phase = {}
    for label in (*PHASES, "all"):
        pick = np.array([label in ("all", p) for p in phases])
        if not pick.any():
            continue
        gap, se = np.abs(roll - gnubg)[pick], np.hypot(roll_se, gnubg_se)[pick]
        by_phase[label] = {
            "positions": int(pick.sum()),
            "rollout_vs_gnubg": float(np.abs(roll - gnubg)[pick].mean()),
            "zero_ply_vs_gnubg": float(np.abs(zero - gnubg)[pick].mean()),
            "rollout_closer": float(np.mean(np.abs(roll - gnubg)[pick]
                                            < np.abs(zero - gnubg)[pick])),
            "within_95": float(np.mean(gap <= 1.96 * se)),
            "se_ours": float(roll_se[pick].mean()), "se_gnubg": float(gnubg_se[pick].mean())}
    return {"trials": trials, "seed": seed, "seconds": seconds, "by_phase": by_phase,
            "positions": [{"posid": r["posid"], "phase": r["phase"],
                           "gnubg": r["gnubg"]["equity"], "rollout": float(a),
                           "rollout_se": float(s), "zero_ply": float(z0)}
                          for r, a, s, z0 in zip(rows, roll, roll_se, zero)]}


def _five_equity(p5: np.ndarray) -> np.ndarray:
    w, wg, wbg, lg, lbg = p5.T
    return 2 * w - 1 + wg - lg + wbg - lbg


def speed_positions(rows: list[dict], count: int) -> list[dict]:
    """``count`` positions of the set, one of each phase in turn."""
    by = {p: [r for r in rows if r["phase"] == p] for p in PHASES}
    out: list[dict] = []
    i = 0
    while len(out) < min(count, len(rows)):
        for p in PHASES:
            if i < len(by[p]) and len(out) < count:
                out.append(by[p][i])
        i += 1
    return out


MODES = ("plain", "vr")


def speed(rows: list[dict], bot, trials: int, seed: int, log=None, modes=MODES,
          rounds: int = 1) -> dict:
    """Trials a second of gnubg -t (one thread) and of our rollout (one process, torch and
    NumPy's BLAS on one thread) on the same positions and trials, with and without VR
    (``modes``), in ``rounds`` turns of gnubg then us: per mode the seconds of each turn,
    the totals' trials a second and their ratio (ours / gnubg's: above 1, ours are more)."""
    from gammon.eval.analysis.rollouts import Settings, rollout
    posids = [r["posid"] for r in rows]
    boards = np.stack([decode(p) for p in posids])
    start = time.perf_counter()
    run_gnubg_on_terminal(gnubg_settings(trials, True))
    startup = time.perf_counter() - start
    out = {"positions": posids, "trials": trials, "gnubg_startup_seconds": startup,
           "gnubg": gnubg_version(), "rounds": rounds}
    rollout(bot, boards[:1], Settings(trials=36, seed=seed))  # our nets and tables loaded
    for mode in modes:
        vr = mode == "vr"
        gnubg_turns, our_turns = [], []
        for r in range(rounds):
            start = time.perf_counter()
            gnubg_rollouts(posids, trials, vr, seed)
            gnubg_turns.append(max(time.perf_counter() - start - startup, 1e-9))
            start = time.perf_counter()
            rollout(bot, boards, Settings(trials=trials, seed=seed, vr=vr))
            our_turns.append(time.perf_counter() - start)
            if log:
                log(f"{mode} round {r + 1}: gnubg {gnubg_turns[-1]:.2f} s, ours "
                    f"{our_turns[-1]:.2f} s, ratio {gnubg_turns[-1] / our_turns[-1]:.2f}")
        g, ours = sum(gnubg_turns), sum(our_turns)
        total = trials * len(posids) * rounds
        out[mode] = {"gnubg_seconds": g, "our_seconds": ours,
                     "gnubg_turns": gnubg_turns, "our_turns": our_turns,
                     "gnubg_trials_per_second": total / g,
                     "our_trials_per_second": total / ours, "ratio": g / ours}
        if log:
            log(f"{mode}: gnubg {total / g:.1f} trials/s, ours {total / ours:.1f} trials/s, "
                f"ratio {g / ours:.2f}")
    return out


def _bar(total: int):
    from tqdm import tqdm
    bar = tqdm(total=total, unit="trial", leave=False, disable=None)
    return bar.update


def main(argv=None) -> int:
    p = OneLineParser(prog="python -m gammon.eval.gnubg.rollouts", description=__doc__,
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=DATA_PATH, help="the data file")
    p.add_argument("--bot", default="net:", help="our bot (default net:, the shipped net)")
    p.add_argument("--trials", type=int, default=TRIALS, help="trials (default 1296)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed (default 1)")
    p.add_argument("--positions", type=int, default=None,
                   help="compare only the first N positions of each phase")
    p.add_argument("--speed", action="store_true", help="time gnubg -t and us side by side")
    p.add_argument("--speed-positions", type=int, default=SPEED_POSITIONS,
                   help=f"positions timed (default {SPEED_POSITIONS}, one per phase)")
    p.add_argument("--modes", default=",".join(MODES),
                   help="with --speed: plain, vr or both, comma-separated (default both)")
    p.add_argument("--rounds", type=int, default=1,
                   help="with --speed: turns of gnubg then us per mode (default 1)")
    p.add_argument("--generate", action="store_true", help="make (or go on making) the data")
    p.add_argument("--per-phase", type=int, default=PER_PHASE,
                   help=f"with --generate: positions per phase (default {PER_PHASE})")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    try:
        args = p.parse_args(argv)
        if not 1 <= args.trials <= 1_000_000:
            raise UsageError("--trials is 1 to 1,000,000")
        if args.seed < 0:
            raise UsageError("--seed is a whole number >= 0")
        modes = tuple(m for m in args.modes.split(",") if m)
        if not modes or any(m not in MODES for m in modes):
            raise UsageError(f"--modes are among {', '.join(MODES)}, got {args.modes!r}")
        if args.rounds < 1:
            raise UsageError("--rounds is a whole number >= 1")

        def log(text):
            print(text, file=sys.stderr, flush=True)
        if args.generate:
            made = generate(args.data, args.seed, args.per_phase, args.trials, log)
            print(f"{made} positions rolled out by gnubg into {args.data}")
            return 0
        _, rows = load(args.data)
        if args.positions is not None:
            rows = [r for p in PHASES for r in [r for r in rows if r["phase"] == p]
                    [:args.positions]]
        bot, _ = probability_bot(args.bot)
        if args.speed:
            if find_gnubg() is None:
                raise UsageError("--speed needs GNU Backgammon's gnubg program "
                                 "(Debian: apt-get install gnubg)")
            report = speed(speed_positions(rows, args.speed_positions), bot, args.trials,
                           args.seed, log, modes, args.rounds)
        else:
            report = compare(rows, bot, args.trials, args.seed, log)
    except (UsageError, CubeDataError, GnubgError, WriteError) as e:
        print(f"error: {first_line(e)}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report))
        return 0
    if args.speed:
        for mode in modes:
            r = report[mode]
            print(f"{mode:5}  gnubg {r['gnubg_trials_per_second']:8.1f} trials/s  ours "
                  f"{r['our_trials_per_second']:8.1f} trials/s  ours/gnubg "
                  f"{r['ratio']:.2f}")
        return 0
    print(f"{'phase':8} {'positions':>9} {'|rollout-gnubg|':>16} {'|0-ply-gnubg|':>14} "
          f"{'rollout closer':>15} {'within 95%':>11}")
    for label, r in report["by_phase"].items():
        print(f"{label:8} {r['positions']:>9} {r['rollout_vs_gnubg']:>16.4f} "
              f"{r['zero_ply_vs_gnubg']:>14.4f} {100 * r['rollout_closer']:>14.0f}% "
              f"{100 * r['within_95']:>10.0f}%")
    print(f"our rollouts: {report['trials']} trials, seed {report['seed']}, "
          f"{report['seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
