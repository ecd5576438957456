"""Rollouts checked: against exact values, plain against variance-reduced, batched against one
at a time, on Ray workers against one process.

    python -m gammon.eval.reports.rollout_check calibration   # >= 200 small races, exact by DP
    python -m gammon.eval.reports.rollout_check vr            # >= 100 contact positions, by phase
    python -m gammon.eval.reports.rollout_check batch         # 64 positions at once vs one by one
    python -m gammon.eval.reports.rollout_check actors        # --actors 2 vs one process

calibration: every race with at most ``--checkers`` (4) checkers a side, all in the home
boards, is valued exactly by dynamic programming (``exact_race_values``) for the game in
which both sides play as the rollout's bot plays (``net:`` at 0-ply: in these races its
plays follow the bear-off database's values). Rollouts of ``--races`` of them (played to the
end: no bear-off stop) at 144, 576 and 2,304 trials: how often the 95% interval covers the
exact equity, with plain random dice and with quasi-random dice and variance reduction, and
the mean absolute error (which should halve each time the trials grow fourfold).

vr: positions from the bot's self-play, by phase (contact early: both sides over 130 pips;
contact middle; race), each rolled out plain and with variance reduction on independent
dice: how often the two agree within their intervals (|difference| <= 1.96 x the SE of the
difference) and the ratio of their standard errors at equal trials.

batch: the trials per second of 64 positions rolled out in one call against the same 64
one call each (same numbers, by construction), in ``--rounds`` rounds taken in turns; the
speedup is the median of the rounds' ratios. actors: the same rollout in one process and
on two Ray workers: equal numbers, and the ratio of the times.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from itertools import combinations_with_replacement

import numpy as np

from gammon.engine.dice import ROLLS, ROLL_WEIGHTS
from gammon.engine.movegen import legal_plays
from gammon.engine.phase import RACE, classify
from gammon.engine.rules import variant as get_variant
from gammon.eval.analysis.rollouts import Settings, rollout
from gammon.eval.playing.match import Z95

TRIALS = (144, 576, 2304)


# --- exact values of small races --------------------------------------------------------------

def home_configs(checkers: int) -> np.ndarray:
    """Every one-sided home board with 1..``checkers`` checkers: (K, 6) int8 counts on the
    points 1..6."""
    out = []
    for n in range(1, checkers + 1):
        for points in combinations_with_replacement(range(6), n):
            c = np.zeros(6, dtype=np.int8)
            for p in points:
                c[p] += 1
            out.append(c)
    return np.array(out, dtype=np.int8)


def race_board(mine: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """Boards (N, 26) from the mover: his counts on points 1..6, the opponent's on his own
    points 1..6 (cells 24..19)."""
    mine, theirs = np.atleast_2d(mine), np.atleast_2d(theirs)
    b = np.zeros((len(mine), 26), dtype=np.int8)
    b[:, 1:7] = mine
    b[:, 24:18:-1] = -theirs
    return b


def exact_race_values(bot, checkers: int = 4, variant: str = "standard",
                      batch: int = 20000) -> tuple[np.ndarray, dict]:
    """The exact cubeless equity, for the player on roll, of every race with 1..``checkers``
    checkers a side all home, when both sides play ``bot``'s choice (deterministic bots):
    V(m, o) = sum over the 21 rolls of its chance x (the points of the bot's play when it
    ends the game, else -V(o, m')), over states by total pips. Returns (V (K, K) for mover
    config m and opponent config o, the configs (K, 6) and their index)."""
    rules = get_variant(variant)
    conf = home_configs(checkers)
    k = len(conf)
    code = {tuple(c): i for i, c in enumerate(conf.tolist())}
    pips = conf.astype(np.int64) @ np.arange(1, 7)
    m_idx, o_idx = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    m_idx, o_idx = m_idx.ravel(), o_idx.ravel()
    boards = race_board(conf[m_idx], conf[o_idx])  # (k*k, 26)
    nxt = np.full((k * k, len(ROLLS)), -1, dtype=np.int64)  # the mover's config after
    won = np.zeros((k * k, len(ROLLS)), dtype=np.int64)
    for start in range(0, k * k, batch // len(ROLLS) + 1):
        part = np.arange(start, min(start + batch // len(ROLLS) + 1, k * k))
        b = np.repeat(boards[part], len(ROLLS), axis=0)
        d = np.tile(ROLLS, (len(part), 1))
        plays = legal_plays(b, d, rules)
        chosen = np.asarray(bot.choose(plays, b, d))
        after = plays.boards[chosen]
        pts = rules.end_of_game(after).reshape(len(part), len(ROLLS))
        won[part] = pts
        left = np.maximum(after[:, 1:7], 0)
        for row, counts in enumerate(left.tolist()):
            i, r = divmod(row, len(ROLLS))
            if pts[i, r] == 0:
                nxt[part[i], r] = code[tuple(counts)]
    value = np.zeros((k, k))
    total = pips[m_idx] + pips[o_idx]
    for level in np.unique(total):
        rows = np.flatnonzero(total == level)
        m, o = m_idx[rows], o_idx[rows]
        n = nxt[rows]
        after = np.where(n >= 0, -value[o[:, None], np.maximum(n, 0)], won[rows])
        value[m, o] = after @ ROLL_WEIGHTS
    return value, {"configs": conf, "index": code}


def sample_races(value: np.ndarray, configs: np.ndarray, count: int, seed: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``count`` different races drawn at random: boards (count, 26) and exact equities.
    Races already decided (the exact equity +-1: every roll wins, or none) are left out:
    their rollouts have no spread and nothing to cover."""
    rng = np.random.default_rng(seed)
    k = len(configs)
    open_ = np.flatnonzero(np.abs(value.ravel()) < 1 - 1e-9)
    cells = rng.choice(open_, size=count, replace=False)
    m, o = np.divmod(cells, k)
    return race_board(configs[m], configs[o]), value[m, o]


def calibration(bot, races: int, seed: int, checkers: int, trials=TRIALS) -> list[dict]:
    """Coverage and mean error of rollouts of random small races against the exact values."""
    value, info = exact_race_values(bot, checkers)
    boards, exact = sample_races(value, info["configs"], races, seed)
    rows = []
    for name, vr, quasi in (("plain random dice", False, False),
                            ("quasi-random dice, no VR", False, True),
                            ("random dice + VR", True, False),
                            ("quasi-random dice + VR", True, True)):
        for n in trials:
            start = time.perf_counter()
            res = rollout(bot, boards, Settings(trials=n, seed=seed + n, vr=vr, quasi=quasi,
                                                bearoff=False))
            seconds = time.perf_counter() - start
            eq = np.array([r.equity for r in res])
            se = np.array([r.equity_se for r in res])
            err = np.abs(eq - exact)
            covered = err <= Z95 * se + 1e-9  # the DP's own rounding
            # the spread of the errors against the SEs: 1 when the SEs are honest
            ratio = float(np.sqrt(np.mean((eq - exact) ** 2)) / np.sqrt(np.mean(se ** 2)))
            rows.append({"dice": name, "trials": n, "races": races,
                         "coverage": float(covered.mean()),
                         "mean_abs_error": float(err.mean()),
                         "mean_se": float(se.mean()),
                         "error_over_se": ratio, "seconds": seconds})
    return rows


# --- variance reduction on positions of play ----------------------------------------------

def play_positions(bot, count: int, seed: int, variant: str = "standard") -> np.ndarray:
    """Positions before the roll from self-play games of ``bot``, every game's first two
    plies and finished or bear-off positions left out, drawn at random: (count, 26)."""
    from gammon.engine.bearoff import all_home
    from gammon.engine.game import play
    seen = []
    play((bot, bot), max(8, count // 4), np.random.default_rng(seed), variant,
         on_position=lambda b, d: seen.append(b.copy()))
    boards = np.concatenate(seen)
    mover = (boards > 0).any(axis=1) & (boards < 0).any(axis=1)
    boards = boards[mover & ~all_home(boards)]
    boards = np.unique(boards, axis=0)
    rng = np.random.default_rng(seed + 1)
    return boards[rng.permutation(len(boards))]


def phase_of(boards: np.ndarray) -> list[str]:
    """contact early (both sides over 130 pips), contact middle, race."""
    from gammon.engine.board import pip_counts
    phase = classify(boards)
    mine, theirs = pip_counts(boards)
    out = []
    for p, a, b in zip(phase, mine, theirs):
        if p == RACE:
            out.append("race")
        else:
            out.append("contact early" if min(a, b) > 130 else "contact middle")
    return out


def vr_check(bot, contact: int, race: int, trials: int, seed: int,
             cubeful: bool = False) -> dict:
    """Plain against VR on the same positions (independent dice): agreement and SE ratio of
    the cubeless equity (with ``cubeful``: of the cubeful money equity)."""
    pool = play_positions(bot, 4 * (contact + race), seed)
    phase = classify(pool)
    boards = np.concatenate([pool[phase != RACE][:contact], pool[phase == RACE][:race]])
    names = phase_of(boards)
    out = {}
    for name, vr, s in (("plain", False, seed), ("vr", True, seed + 1)):
        start = time.perf_counter()
        res = rollout(bot, boards, Settings(trials=trials, seed=s, vr=vr, cubeful=cubeful))
        out[name] = [_Main(r) for r in res]
        out[name + "_seconds"] = time.perf_counter() - start
    rows = {}
    for label in ("contact early", "contact middle", "race", "all contact", "all"):
        pick = [i for i, n in enumerate(names)
                if n == label or (label == "all contact" and n != "race") or label == "all"]
        if not pick:
            continue
        p = [out["plain"][i] for i in pick]
        v = [out["vr"][i] for i in pick]
        diff = np.array([a.equity - b.equity for a, b in zip(p, v)])
        se = np.array([math.hypot(a.equity_se, b.equity_se) for a, b in zip(p, v)])
        # a decided position (every trial alike) has no spread to compare
        spread = np.array([a.equity_se > 0 and b.equity_se > 0 for a, b in zip(p, v)])
        ratio = np.array([a.equity_se / b.equity_se for a, b, ok in zip(p, v, spread) if ok])
        z = diff[spread] / se[spread]
        rows[label] = {"positions": len(pick), "decided": int((~spread).sum()),
                       "agree": float(np.mean(np.abs(z) <= Z95)),
                       "mean_z": float(np.mean(z)),
                       "se_plain": float(np.mean([a.equity_se for a in p])),
                       "se_vr": float(np.mean([b.equity_se for b in v])),
                       "se_ratio_median": float(np.median(ratio)),
                       "se_ratio_of_means": float(np.mean([a.equity_se for a in p])
                                                  / np.mean([b.equity_se for b in v]))}
    return {"trials": trials, "cubeful": cubeful, "by_phase": rows,
            "seconds_plain": out["plain_seconds"], "seconds_vr": out["vr_seconds"]}


class _Main:
    """A result's headline equity (cubeful in a cubeful rollout) as ``equity``/``equity_se``."""

    def __init__(self, result):
        values = result.main()
        self.equity = float(values.mean())
        self.equity_se = float(values.std(ddof=1) / math.sqrt(len(values)))


# --- speed ----------------------------------------------------------------------------------

def batch_check(bot, positions: int, trials: int, vr: bool, seed: int, rounds: int = 3
                ) -> dict:
    """Trials per second: all positions in one call against one call per position, in
    ``rounds`` rounds of both, in turns (ABBA), so that a noisy machine slows both alike:
    the median of the rounds' ratios, and each round's figures."""
    import statistics
    boards = play_positions(bot, 2 * positions, seed)[:positions]
    settings = Settings(trials=trials, seed=seed, vr=vr)
    n = positions * trials

    def together():
        return rollout(bot, boards, settings, keys=np.zeros(len(boards), dtype=np.int64))

    def alone():
        return [rollout(bot, b[None], settings, keys=[0])[0] for b in boards]
    seconds: dict[str, list[float]] = {"together": [], "one_by_one": []}
    first: dict[str, list] = {}  # the first round's results, compared
    for r in range(rounds):
        order = (("together", together), ("one_by_one", alone))
        for name, run in (order if r % 2 == 0 else order[::-1]):
            start = time.perf_counter()
            results = run()
            seconds[name].append(time.perf_counter() - start)
            first.setdefault(name, results)
    same = all(np.array_equal(a.outcomes, b.outcomes)
               for a, b in zip(first["together"], first["one_by_one"]))
    ratios = [b / a for a, b in zip(seconds["together"], seconds["one_by_one"])]
    t_all = statistics.median(seconds["together"])
    t_one = statistics.median(seconds["one_by_one"])
    return {"positions": positions, "trials": trials, "vr": vr, "rounds": rounds,
            "same_numbers": same, "trials_per_s_together": n / t_all,
            "trials_per_s_one_by_one": n / t_one, "speedup": statistics.median(ratios),
            "speedup_each_round": [round(x, 3) for x in ratios],
            "seconds_together": [round(x, 3) for x in seconds["together"]],
            "seconds_one_by_one": [round(x, 3) for x in seconds["one_by_one"]]}


def actors_check(bot_name: str, positions: int, trials: int, vr: bool, seed: int) -> dict:
    """The same rollout in one process and on two Ray workers: equal numbers, times."""
    from gammon.eval.analysis.rollout_actors import rollout_on_actors
    from gammon.eval.bots.registry import make_bot
    from gammon.eval.playing.cluster import start_ray
    bot = make_bot(bot_name)
    boards = play_positions(bot, 2 * positions, seed)[:positions]
    settings = Settings(trials=trials, seed=seed, vr=vr)
    start = time.perf_counter()
    one = rollout(bot, boards, settings)
    t_one = time.perf_counter() - start
    start_ray(None, cpus=2)
    rollout_on_actors(bot, bot_name, boards[:1], Settings(trials=36, seed=seed, vr=vr), 2)
    start = time.perf_counter()  # the workers' start-up counted: a fresh pair each call
    two = rollout_on_actors(bot, bot_name, boards, settings, 2)
    t_two = time.perf_counter() - start
    same = all(np.array_equal(a.outcomes, b.outcomes) for a, b in zip(one, two))
    return {"positions": positions, "trials": trials, "vr": vr, "same_numbers": same,
            "seconds_one_process": t_one, "seconds_two_actors": t_two,
            "speedup": t_one / t_two}


def _load() -> str:
    try:
        with open("/proc/loadavg") as f:
            return f.read().split()[0]
    except OSError:
        return "?"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gammon.eval.reports.rollout_check",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("part", choices=("calibration", "vr", "batch", "actors"))
    parser.add_argument("--bot", default="net:")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--races", type=int, default=200, help="calibration: races")
    parser.add_argument("--checkers", type=int, default=4, help="calibration: checkers a side")
    parser.add_argument("--trials", type=int, nargs="+", default=None,
                        help="calibration: trial counts (default 144 576 2304); vr, batch, "
                             "actors: one count (defaults 144, 144, 1296)")
    parser.add_argument("--contact", type=int, default=100, help="vr: contact positions")
    parser.add_argument("--race", type=int, default=30, help="vr: race positions")
    parser.add_argument("--positions", type=int, default=64, help="batch, actors: positions")
    parser.add_argument("--vr", action="store_true", help="batch, actors: with VR")
    parser.add_argument("--rounds", type=int, default=3,
                        help="batch: rounds of both ways, in turns (default 3)")
    parser.add_argument("--cubeful", action="store_true",
                        help="vr: compare the cubeful money equity")
    args = parser.parse_args(argv)
    from gammon.eval.bots.registry import make_bot
    bot = make_bot(args.bot)
    print(f"load average at the start: {_load()}", flush=True)
    start = time.perf_counter()
    if args.part == "calibration":
        rows = calibration(bot, args.races, args.seed, args.checkers,
                           tuple(args.trials or TRIALS))
        print("| dice | trials | races | covered by the 95% interval | mean abs error | "
              "mean SE | RMS error / RMS SE | seconds |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            print(f"| {r['dice']} | {r['trials']:,} | {r['races']} | {r['coverage']:.1%} | "
                  f"{r['mean_abs_error']:.2e} | {r['mean_se']:.2e} | "
                  f"{r['error_over_se']:.2f} | {r['seconds']:.0f} |")
    elif args.part == "vr":
        out = vr_check(bot, args.contact, args.race, (args.trials or [144])[0], args.seed,
                       args.cubeful)
        print(f"{'cubeful' if args.cubeful else 'cubeless'} equity, {out['trials']} trials "
              f"each; seconds: plain {out['seconds_plain']:.0f}, VR {out['seconds_vr']:.0f}")
        print("| phase | positions (decided) | plain and VR agree (95%) | mean z | mean SE "
              "plain | mean SE VR | SE ratio (median) | SE ratio (of means) |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for label, r in out["by_phase"].items():
            print(f"| {label} | {r['positions']} ({r['decided']}) | {r['agree']:.1%} | "
                  f"{r['mean_z']:+.2f} | "
                  f"{r['se_plain']:.4f} | {r['se_vr']:.4f} | {r['se_ratio_median']:.1f}x | "
                  f"{r['se_ratio_of_means']:.1f}x |")
    elif args.part == "batch":
        print(json.dumps(batch_check(bot, args.positions, (args.trials or [144])[0], args.vr,
                                     args.seed, max(1, args.rounds))))
    else:
        print(json.dumps(actors_check(args.bot, args.positions, (args.trials or [1296])[0],
                                      args.vr, args.seed)))
    print(f"load average at the end: {_load()}; {time.perf_counter() - start:.0f} s",
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
