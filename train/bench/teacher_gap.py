"""The teacher's gap: how much each student loses, by one fixed teacher's look-ahead, on
the same decisions (issue 37: does a new net play more as its teacher would?).

    python -m gammon.train.bench.teacher_gap --teacher checkpoints/expert-gen3.pt \\
        --net checkpoints/expert-gen3.pt --net runs/expert-gen5/model.pt

The decisions: positions drawn as the second stage draws them (``sample_positions``: the
teacher's own games at 0-ply, exploring, a share against pubeval), a roll for each drawn at
random, and of each roll's plays those the teacher's 0-ply move filter keeps
(``model.lookahead.candidates``); decisions with one such play are left out. Every kept
play is valued by the teacher at ``--plies`` (2: 21 x 21 rolls, as the mining's teacher), a
play that ends the game by its result. Each student picks among the same plays by its own
0-ply equity, and loses the teacher's equity of the teacher's best minus that of its pick:
reported in millipoints a decision (with a 95% interval; the students are compared on the
same decisions, so their differences are steadier than the intervals say), per phase of
the position (contact, crashed, race), and the share of decisions where it picks the
teacher's play. ``--cache FILE`` keeps the teacher's values (a .npz) for the next run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

PHASE_NAMES = ("contact", "crashed", "race")


def decisions(teacher_file: str, positions: int, plies: int, seed: int) -> dict:
    """The decisions and the teacher's values: boards (N, 26), dice (N, 2), plays' boards
    (K, 26), root (K,), kept (K,) bool, value (K,) teacher equity (-inf where not kept),
    phase (N,)."""
    from gammon.engine.dice import ROLLS
    from gammon.engine.movegen import legal_plays
    from gammon.engine.outcomes import equity
    from gammon.eval.bots.registry import make_bot
    from gammon.model.lookahead import candidates, look_ahead
    from gammon.train.rollout_positions import phase_of, sample_positions
    bot = make_bot(f"net:{teacher_file}")
    ev = bot.evaluator
    boards, _ = sample_positions(bot, positions, seed, opponents=(make_bot("pubeval"),),
                                 opponent_share=0.2)
    rng = np.random.default_rng(seed)
    dice = np.asarray(ROLLS, dtype=np.int8)[rng.integers(0, len(ROLLS), len(boards))]
    plays = legal_plays(boards, dice, ev.rules)
    n = len(boards)
    e0 = equity(ev.after_play(plays.boards))
    kept = candidates(e0, plays.root, n)
    kept &= (np.bincount(plays.root[kept], minlength=n) > 1)[plays.root]
    value = np.full(len(plays.boards), -np.inf)
    rows = np.flatnonzero(kept)
    ended = ev.rules.end_of_game(plays.boards[rows]) != 0
    value[rows[ended]] = e0[rows[ended]]
    value[rows[~ended]] = equity(look_ahead(ev, plays.boards[rows[~ended]], plies))
    return {"boards": boards, "dice": dice, "plays": plays.boards, "root": plays.root,
            "kept": kept, "value": value, "phase": phase_of(boards)}


def gap(data: dict, student_file: str) -> dict:
    """One student's loss against the teacher on the decisions: {"decisions", "mp",
    "mp_ci95", "agree", "by_phase": {phase: mp}}."""
    from gammon.engine.outcomes import equity
    from gammon.engine.policy import best_per_root
    from gammon.eval.bots.registry import make_bot
    ev = make_bot(f"net:{student_file}").evaluator
    n, root, kept = len(data["boards"]), data["root"], data["kept"]
    chosen = np.flatnonzero(np.bincount(root[kept], minlength=n) > 1)  # decisions (M,)
    own = np.full(len(root), -np.inf)
    own[kept] = equity(ev.after_play(data["plays"][kept]))
    best = best_per_root(data["value"], root, n)[chosen]
    pick = best_per_root(own, root, n)[chosen]
    loss = 1000 * (data["value"][best] - data["value"][pick])  # (M,) mp
    phase = data["phase"][chosen]
    return {"decisions": len(chosen), "mp": float(loss.mean()),
            "mp_ci95": float(1.96 * loss.std() / np.sqrt(max(len(loss), 1))),
            "agree": float((loss == 0).mean()),  # a play as good as the best agrees
            "by_phase": {name: float(loss[phase == k].mean()) if (phase == k).any() else None
                         for k, name in enumerate(PHASE_NAMES)}}


def load_or_make(cache: Path | None, teacher: str, positions: int, plies: int, seed: int,
                 log) -> dict:
    settings = np.array([positions, plies, seed])
    if cache is not None and cache.exists():
        with np.load(cache) as f:
            if str(f["teacher"]) == teacher and np.array_equal(f["settings"], settings):
                return {k: f[k] for k in f.files if k not in ("teacher", "settings")}
        log(f"{cache}: made with another teacher or settings; made again")
    started = time.process_time()
    data = decisions(teacher, positions, plies, seed)
    log(f"teacher values: {int(data['kept'].sum()):,} plays at {plies}-ply in "
        f"{time.process_time() - started:.0f} core-s")
    if cache is not None:
        import io

        from gammon.engine.files import write_atomic
        buffer = io.BytesIO()
        np.savez_compressed(buffer, teacher=teacher, settings=settings, **data)
        write_atomic(cache, buffer.getvalue())
    return data


def main(argv=None) -> int:
    from gammon.eval.bots.registry import BotUnavailable
    from gammon.eval.gnubg.cli import OneLineParser, UsageError, first_line
    p = OneLineParser(prog="python -m gammon.train.bench.teacher_gap", description=__doc__,
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--teacher", required=True, help="the teacher's checkpoint")
    p.add_argument("--net", action="append", required=True,
                   help="a student's checkpoint (repeat for several)")
    p.add_argument("--positions", type=int, default=2000,
                   help="positions drawn (default 2000; about two in three are decisions)")
    p.add_argument("--plies", type=int, default=2, help="the teacher's look-ahead (default 2)")
    p.add_argument("--seed", type=int, default=99)
    p.add_argument("--cache", type=Path, default=None,
                   help="a .npz file keeping the teacher's values between runs")
    p.add_argument("--json", action="store_true", help="the figures as JSON")
    args = p.parse_args(argv)

    def log(text):
        print(text, file=sys.stderr, flush=True)
    try:
        from gammon.eval.analysis.rollouts import one_thread
        from gammon.model.lookahead import check_plies
        if args.positions < 1:
            raise UsageError(f"--positions is 1 or more, got {args.positions}")
        if check_plies(args.plies) < 1:
            raise UsageError("--plies: the teacher looks 1 or 2 plies ahead, got 0")
        with one_thread():
            data = load_or_make(args.cache, args.teacher, args.positions, args.plies,
                                args.seed, log)
            rows = {net: gap(data, net) for net in args.net}
    except (UsageError, ValueError, OSError, BotUnavailable) as e:
        print(f"error: {first_line(e)}", file=sys.stderr)
        return 2
    if args.json:
        import json
        print(json.dumps({"teacher": args.teacher, "plies": args.plies, "students": rows},
                         indent=1))
        return 0
    print(f"| student | decisions | mp lost by {args.teacher} at {args.plies}-ply | "
          "contact | crashed | race | picks the teacher's play |")
    print("|---|---|---|---|---|---|---|")
    for net, r in rows.items():
        ph = " | ".join("—" if v is None else f"{v:.2f}" for v in r["by_phase"].values())
        print(f"| {net} | {r['decisions']:,} | {r['mp']:.2f} ± {r['mp_ci95']:.2f} | {ph} | "
              f"{100 * r['agree']:.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
