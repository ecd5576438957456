"""Benchmark of legal-play generation: the vectorised generator at several batch sizes, the
scalar reference, and GNU Backgammon's C generator (PyPI ``gnubg-nn``) when installed, all
in one process on the same positions from random play. Prints a table (or JSON).

With ``--baseline REV`` the generator of an older git revision is loaded too (``git archive
REV engine``, imported under a package name of its own) and timed against today's on the
same positions at every batch size, the two taking turns (``--rounds`` slices of
``--seconds / --rounds`` each, ABBA order) so that a noisy machine slows both alike; the
ratios current/baseline and each against gnubg-nn's C generator are printed per batch size.

    python -m gammon.eval.bench.movegen [--seconds 2] [--games 200] [--seed 1] [--json]
                                 [--baseline REV] [--rounds 5]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, as the targets are stated

import numpy as np  # noqa: E402

from gammon.engine import reference  # noqa: E402
from gammon.engine.formats import posid  # noqa: E402
from gammon.engine.movegen import legal_plays  # noqa: E402
from gammon.engine.rules import STANDARD, VARIANTS, variant  # noqa: E402
from gammon.engine.sample import from_random_play  # noqa: E402
from gammon.eval.bench.revision import (BaselineError, extract_revision,  # noqa: E402
                                 resolve_revision)

BATCHES = (1, 64, 1024, 8192)
GNUBG_PAIRED_BATCH = 1024  # with --baseline, gnubg takes its turns in this batch size's rounds
REPO_ROOT = Path(__file__).resolve().parents[2]


def load_baseline_legal_plays(commit: str, into: str, root: Path = REPO_ROOT):
    """``legal_plays`` of ``engine/movegen.py`` at ``commit``, imported from a copy of that
    revision's ``engine`` folder extracted under ``into`` as package
    ``baseline_engine_<short commit>`` (the engine imports itself relatively only)."""
    name = f"baseline_engine_{commit[:12]}"
    stage = extract_revision(commit, Path(into) / "archive", root, ("engine",))
    (stage / "engine").rename(Path(into) / name)
    sys.path.insert(0, str(into))
    try:
        module = importlib.import_module(f"{name}.movegen")
    except Exception as error:  # noqa: BLE001 - any import failure is a bad baseline
        raise BaselineError(f"cannot import engine.movegen of {commit[:12]}: "
                            f"{type(error).__name__}: {error}") from None
    finally:
        sys.path.remove(str(into))
    if not callable(getattr(module, "legal_plays", None)):
        raise BaselineError(f"engine/movegen.py of {commit[:12]} has no legal_plays")
    if not module.__file__.startswith(str(into)):
        raise BaselineError(f"imported {module.__file__} instead of the baseline copy")
    return module.legal_plays


def _timed(run_chunk, total: int, seconds: float, start_index: int = 0) -> tuple[int, int, float]:
    """Call run_chunk(i) -> (positions, afterstates) on successive chunks for ``seconds``,
    starting at position ``start_index``.

    Returns (positions, afterstates, elapsed).
    """
    positions = afterstates = 0
    i = start_index
    start = time.perf_counter()
    while True:
        p, a = run_chunk(i % total)
        positions += p
        afterstates += a
        i += p
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return positions, afterstates, elapsed


def _row(name: str, p: int, a: int, t: float) -> dict:
    return {"name": name, "positions_per_s": p / t, "afterstates_per_s": a / t,
            "us_per_position": 1e6 * t / p}


def _vectorised_chunks(boards, dice, batch: int, generator=legal_plays):
    """(chunk function, positions it cycles through) for ``generator`` at ``batch``."""
    if len(boards) < batch:  # too few positions for one batch: repeat them
        copies = -(-batch // len(boards))
        boards, dice = np.tile(boards, (copies, 1)), np.tile(dice, (copies, 1))
    n = len(boards) - len(boards) % batch

    def chunk(i):
        i -= i % batch
        if i + batch > n:
            i = 0
        plays = generator(boards[i:i + batch], dice[i:i + batch])
        return batch, len(plays)

    generator(boards[:batch], dice[:batch])  # warm up
    return chunk, n


def bench_vectorised(boards, dice, batch: int, seconds: float, generator=legal_plays) -> dict:
    chunk, n = _vectorised_chunks(boards, dice, batch, generator)
    p, a, t = _timed(chunk, n, seconds)
    return _row(f"vectorised, batch {batch}", p, a, t)


def _gnubg_chunks(boards, dice):
    """(chunk function, positions) for gnubg-nn's C generator, or None without gnubg-nn."""
    try:
        import gnubg_nn
    except ImportError:
        return None
    ids = posid.encode_many(boards)
    gboards = [gnubg_nn.board_from_position_id(text) for text in ids]  # outside the timing

    def chunk(i):
        return 1, len(gnubg_nn.moves(gboards[i], int(dice[i, 0]), int(dice[i, 1])))

    return chunk, len(boards)


def alternate(contestants: dict, seconds: float, rounds: int) -> dict:
    """Time every contestant (name -> (chunk, positions)) for ``seconds`` in all, taking
    turns in ``rounds`` slices of ``seconds / rounds``, the order reversed every other round
    (ABBA...), so that slow spells of a noisy machine fall on all of them alike.

    Returns name -> {"positions", "afterstates", "seconds", "rounds": [positions/s, ...]}.
    """
    names = list(contestants)
    tally = {name: {"positions": 0, "afterstates": 0, "seconds": 0.0, "rounds": [],
                    "next": 0} for name in names}
    for r in range(rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            chunk, n = contestants[name]
            entry = tally[name]
            p, a, t = _timed(chunk, n, seconds / rounds, entry["next"] % n)
            entry["next"] += p
            entry["positions"] += p
            entry["afterstates"] += a
            entry["seconds"] += t
            entry["rounds"].append(p / t)
    for entry in tally.values():
        del entry["next"]
    return tally


def _afterstates(plays) -> np.ndarray:
    """The (root, afterstate) rows of ``plays`` in a canonical order."""
    rows = np.column_stack([np.asarray(plays.root, dtype=np.int64),
                            np.asarray(plays.boards, dtype=np.int64)])
    return rows[np.lexsort(rows.T[::-1])]


def check_same_plays(boards, dice, baseline_plays, generator=legal_plays) -> list[str]:
    """Notes where today's generator and ``baseline_plays`` disagree on these positions (they
    must find the same afterstates for the race to be a fair one)."""
    new, old = generator(boards, dice), baseline_plays(boards, dice)
    if len(new) != len(old):
        return [f"the baseline finds {len(old)} plays where today's finds {len(new)} "
                f"on the {len(boards)} positions"]
    try:
        same = np.array_equal(_afterstates(new), _afterstates(old))
    except AttributeError:  # a baseline whose Plays has no boards/root: lengths only
        return []
    return [] if same else [f"the baseline's afterstates differ from today's on the "
                            f"{len(boards)} positions"]


def bench_against_baseline(boards, dice, seconds: float, rounds: int, baseline_plays,
                           label: str, gnubg: bool = True, generator=legal_plays,
                           baseline_positions=None):
    """Today's generator and ``baseline_plays`` in turns at every batch size (gnubg-nn taking
    its turns too at batch GNUBG_PAIRED_BATCH when installed and ``gnubg``).
    ``baseline_positions``: (boards, dice) of the baseline's own, when it cannot read
    these (the standard rules beside Plakoto); else both time the same positions.

    Returns (current rows, gnubg row or None, baseline rows, notes).
    """
    current_rows, baseline_rows = [], []
    base_boards, base_dice = baseline_positions or (boards, dice)
    notes = ([] if baseline_positions is not None
             else check_same_plays(boards, dice, baseline_plays, generator))
    gnubg_row = None
    gnubg_chunks = _gnubg_chunks(boards, dice) if gnubg else None
    for batch in BATCHES:
        contestants = {"current": _vectorised_chunks(boards, dice, batch, generator),
                       "baseline": _vectorised_chunks(base_boards, base_dice, batch,
                                                      baseline_plays)}
        if batch == GNUBG_PAIRED_BATCH and gnubg_chunks:
            contestants["gnubg"] = gnubg_chunks
        tally = alternate(contestants, seconds, rounds)
        rows = {}
        for name, entry in tally.items():
            row_name = {"current": f"vectorised, batch {batch}",
                        "baseline": f"{label}, batch {batch}",
                        "gnubg": "gnubg-nn moves() (C)"}[name]
            rows[name] = _row(row_name, entry["positions"], entry["afterstates"],
                              entry["seconds"])
            rows[name]["rounds_positions_per_s"] = entry["rounds"]
        rows["current"]["batch"] = rows["baseline"]["batch"] = batch
        current_rows.append(rows["current"])
        baseline_rows.append(rows["baseline"])
        if "gnubg" in rows:
            gnubg_row = rows["gnubg"]
    return current_rows, gnubg_row, baseline_rows, notes


def compare(current_rows: list[dict], baseline_rows: list[dict], gnubg_row: dict | None
            ) -> list[dict]:
    """Per batch size: both rates, current/baseline (over all rounds, and the median and
    range of the per-round ratios), and each against gnubg-nn's row."""
    table = []
    for cur, base in zip(current_rows, baseline_rows):
        per_round = [c / b for c, b in zip(cur["rounds_positions_per_s"],
                                           base["rounds_positions_per_s"])]
        entry = {"batch": cur["batch"], "current_positions_per_s": cur["positions_per_s"],
                 "baseline_positions_per_s": base["positions_per_s"],
                 "current_over_baseline": cur["positions_per_s"] / base["positions_per_s"],
                 "round_ratios": per_round,
                 "median_round_ratio": statistics.median(per_round)}
        if gnubg_row:
            g = gnubg_row["positions_per_s"]
            entry["current_over_gnubg"] = cur["positions_per_s"] / g
            entry["baseline_over_gnubg"] = base["positions_per_s"] / g
        table.append(entry)
    return table


def bench_reference(boards, dice, seconds: float) -> dict:
    def chunk(i):
        found = reference.legal_results(boards[i], int(dice[i, 0]), int(dice[i, 1]))
        return 1, len(found)

    p, a, t = _timed(chunk, len(boards), seconds)
    return {"name": "scalar reference", "positions_per_s": p / t,
            "afterstates_per_s": a / t, "us_per_position": 1e6 * t / p}


def bench_gnubg(boards, dice, seconds: float) -> dict | None:
    found = _gnubg_chunks(boards, dice)
    if found is None:
        return None
    p, a, t = _timed(*found, seconds)
    return _row("gnubg-nn moves() (C)", p, a, t)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per row (default 2)")
    parser.add_argument("--games", type=int, default=200,
                        help="random games to draw positions from (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random games")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--baseline", metavar="REV",
                        help="also time the generator of this git revision (a commit, tag or "
                             "branch of this repository) against today's, in turns")
    parser.add_argument("--variant", default="standard", choices=list(VARIANTS),
                        help="the rules to time, on positions from random games of that "
                             "variant; another than standard is timed in turns against the "
                             "standard rules on the same positions (Plakoto, whose cells the "
                             "standard rules cannot read: on as many positions of standard "
                             "games) unless --baseline")
    parser.add_argument("--rounds", type=int, default=5,
                        help="with --baseline: turns each generator takes per batch size, "
                             "--seconds/--rounds each (default 5)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.seconds <= 0:
        parser.error("--rounds must be at least 1 and --seconds positive")

    with tempfile.TemporaryDirectory(prefix="bench_movegen_") as scratch:
        baseline_plays = label = commit = None
        if args.baseline is not None:
            try:
                commit = resolve_revision(args.baseline)
                baseline_plays = load_baseline_legal_plays(commit, scratch)
            except BaselineError as error:
                print(f"eval.bench.movegen: error: --baseline: {error}", file=sys.stderr)
                return 2
            label = f"baseline {commit[:8]}"
        elif args.variant != "standard":
            baseline_plays = partial(legal_plays, rules=variant(STANDARD))
            label = "standard rules"
        return _run(args, baseline_plays, label, commit)


def _run(args, baseline_plays, label, commit) -> int:
    rng = np.random.default_rng(args.seed)
    boards, dice = from_random_play(rng, args.games, args.variant)
    generator = partial(legal_plays, rules=variant(args.variant))
    order = rng.permutation(len(boards))  # mix early and late game in every batch
    boards, dice = boards[order], dice[order]

    rows = [bench_reference(boards, dice, args.seconds)]
    baseline_rows, comparison, notes = [], [], []
    if baseline_plays is None:
        rows += [bench_vectorised(boards, dice, b, args.seconds, generator) for b in BATCHES]
        gnubg = bench_gnubg(boards, dice, args.seconds)
    else:
        own = None
        if commit is None and variant(args.variant).position_format != "posid":
            # Plakoto's cells hold pins: the standard rules time standard positions, as many
            own_boards, own_dice = from_random_play(np.random.default_rng(args.seed),
                                                    args.games, "standard")
            take = np.resize(rng.permutation(len(own_boards)), len(boards))
            own = (own_boards[take], own_dice[take])
        current, gnubg, baseline_rows, notes = bench_against_baseline(
            boards, dice, args.seconds, args.rounds, baseline_plays, label,
            generator=generator, baseline_positions=own)
        if own is not None:
            notes.append(f"the standard rules timed {len(boards)} positions of random "
                         f"standard games (they cannot read {args.variant}'s)")
        rows += current
        comparison = compare(current, baseline_rows, gnubg)
    if gnubg:
        rows.append(gnubg)
    base = rows[0]["positions_per_s"]
    for row in rows + baseline_rows:
        row["x_reference"] = row["positions_per_s"] / base

    if args.json:
        result = {"positions": len(boards), "rows": rows}
        if baseline_plays is not None:
            result["baseline"] = {"revision": args.baseline, "commit": commit,
                                  "rounds": args.rounds, "rows": baseline_rows,
                                  "comparison": comparison, "notes": notes}
        print(json.dumps(result, indent=1))
        return 0
    print(f"{len(boards)} positions from {args.games} random games of {args.variant} "
          f"(seed {args.seed}), "
          f"{args.seconds:g} s per row, one thread")
    if baseline_plays is not None:
        what = f"{args.baseline} = {commit[:12]}" if commit else "the standard rules"
        print(f"baseline: {what}; the vectorised rows (and gnubg at "
              f"batch {GNUBG_PAIRED_BATCH}) timed in {args.rounds} alternating turns of "
              f"{args.seconds / args.rounds:g} s")
    print(f"{'generator':<30}{'positions/s':>14}{'afterstates/s':>16}{'us/position':>14}"
          f"{'x reference':>13}")
    for row in rows + baseline_rows:
        print(f"{row['name']:<30}{row['positions_per_s']:>14,.0f}"
              f"{row['afterstates_per_s']:>16,.0f}{row['us_per_position']:>14.1f}"
              f"{row['x_reference']:>13.1f}")
    if comparison:
        print()
        print(f"{'batch':>6}{'current pos/s':>15}{'baseline pos/s':>16}{'cur/base':>10}"
              f"{'round ratios (median, min-max)':>33}"
              + (f"{'cur/gnubg':>11}{'base/gnubg':>12}" if gnubg else ""))
        for c in comparison:
            spread = (f"{c['median_round_ratio']:.3f} ({min(c['round_ratios']):.3f}-"
                      f"{max(c['round_ratios']):.3f})")
            print(f"{c['batch']:>6}{c['current_positions_per_s']:>15,.0f}"
                  f"{c['baseline_positions_per_s']:>16,.0f}"
                  f"{c['current_over_baseline']:>10.3f}{spread:>33}"
                  + (f"{c['current_over_gnubg']:>11.3f}{c['baseline_over_gnubg']:>12.3f}"
                     if gnubg else ""))
    for note in notes:
        print(f"note: {note}")
    if not gnubg:
        print("(install gnubg-nn for GNU Backgammon's generator as a reference column)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
