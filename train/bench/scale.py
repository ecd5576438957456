"""How training scales past one core: measured here, projected to a cluster.

One run of this script measures, on the default config's network (or ``--hidden``):

- **single**: today's single-process ``gammon train`` (self-play and learning in turns on
  one thread), games/s;
- **actors 1, actors 2**: ``gammon train --actors N`` on a local Ray instance (each actor a
  process playing its batch of games; this process learns), games/s the learner absorbed;
  1 and 2 actors in turns, ``--repeats`` times, and the pair with the median ratio shown;
- **learner**: the learner alone, fed games recorded beforehand (valuing them, TD targets,
  updates): the games/s (and positions/s) it can absorb, the ceiling for any number of
  actors;
- **broadcast**: the bytes of the weights sent to the actors after every update, and the
  updates per game.

Every rate is taken after a warm-up (the first games of a run are slower), over
``--seconds`` of wall time. The projection for 8, 32 and 100 actors assumes each actor
plays as fast as the single actor measured here (one core each) and the learner on a core
of its own: games/s = min(N x one actor, the learner's ceiling), and the broadcast traffic
it implies. Prints a table, or JSON (``--json``).

    python -m gammon.train.bench.scale [--seconds 40] [--repeats 3] [--hidden 80] [--parallel 512]
                               [--json]
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import tempfile
import threading
import time


from gammon.train.config import Config
from gammon.train.trainer import Trainer

PROJECTED = (1, 2, 8, 32, 100)


def _config(hidden: int, parallel: int) -> Config:
    return Config().with_overrides(
        model={"hidden": (hidden,)},
        train={"games": 10**9, "parallel_games": parallel, "threads": 1, "device": "cpu"},
        eval={"every_games": 0}, run={"checkpoint_every_games": 0})


class _Clock:
    """A progress sink for ``Trainer.run``: games absorbed over time, counted from the first
    games that arrive (actors take seconds to start); stops the run ``warmup + seconds``
    after them."""

    def __init__(self, trainer: Trainer, warmup: float, seconds: float):
        self.trainer, self.warmup, self.seconds = trainer, warmup, seconds
        self.start = None
        self.marks: list[tuple[float, int]] = []
        self.games = 0
        self.disable = True

    def update(self, n: int) -> None:
        self.games += n
        if self.start is None:
            self.start = time.perf_counter()
        now = time.perf_counter() - self.start
        self.marks.append((now, self.games))
        if now >= self.warmup + self.seconds:
            self.trainer.stop_requested = True

    def set_postfix_str(self, *args, **kwargs) -> None:
        pass

    def rate(self) -> float:
        """Games/s between the first mark after the warm-up and the last one."""
        after = [(t, g) for t, g in self.marks if t >= self.warmup]
        if len(after) < 2:
            raise RuntimeError("too few games in the measured time: raise --seconds")
        (t0, g0), (t1, g1) = after[0], after[-1]
        return (g1 - g0) / (t1 - t0)


def run_rate(hidden: int, parallel: int, seconds: float, actors: int = 0,
             warmup: float | None = None) -> tuple[float, float]:
    """Games/s of a training run on ``actors`` actors (0: the single-process path), and
    the positions per game of its games."""
    warmup = seconds / 3 if warmup is None else warmup
    with tempfile.TemporaryDirectory() as out:
        trainer = Trainer(_config(hidden, parallel), out, log=lambda text: None)
        if actors:
            trainer.use_actors(actors)
        clock = _Clock(trainer, warmup, seconds)
        watchdog = threading.Timer(warmup + seconds + 600, lambda: setattr(
            trainer, "stop_requested", True))
        watchdog.start()
        try:
            trainer.run(progress=clock)
        finally:
            watchdog.cancel()
    c = trainer.counters
    return clock.rate(), c.positions / max(c.games, 1)


def learner_ceiling(hidden: int, parallel: int, seconds: float) -> dict:
    """What the learner absorbs alone: games recorded by an actor (here, in this process)
    valued and learned from as fast as it can, in positions/s (the untrained network's
    games are longer than a training run's, so games/s would understate it). Also the
    broadcast's bytes and the positions between two updates (broadcasts)."""
    from gammon.train.actors import GameBatch, SelfPlayActor
    with tempfile.TemporaryDirectory() as out:
        trainer = Trainer(_config(hidden, parallel), out, log=lambda text: None)
        payload = trainer._model_payload()
        actor = SelfPlayActor(payload, parallel, seed=1)
        recorded = [actor.play(parallel // 2)[0] for _ in range(4)]
        batch = GameBatch.concat(recorded)
        games = positions = updates = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            trainer._absorb(trainer._valued(batch))
            games += len(batch.lengths)
            positions += int(batch.lengths.sum())
            while trainer._pending() >= trainer.config.train.update_every:
                trainer._update()
                updates += 1
        elapsed = time.perf_counter() - start
    broadcast = len(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))
    return {"positions_per_s": positions / elapsed, "broadcast_bytes": broadcast,
            "positions_per_update": trainer.config.train.update_every, "updates": updates}


def project(one_actor: float, positions_per_game: float, learner: dict) -> list[dict]:
    """Games/s and broadcast traffic for N actors, each as fast as ``one_actor`` (games of
    ``positions_per_game`` positions), the learner absorbing ``learner['positions_per_s']``."""
    ceiling = learner["positions_per_s"] / positions_per_game  # games/s
    rows = []
    for n in PROJECTED:
        games = min(n * one_actor, ceiling)
        updates = games * positions_per_game / learner["positions_per_update"]
        rows.append({"actors": n, "games_per_s": games,
                     "bound": "learner" if n * one_actor > ceiling else "actors",
                     "broadcast_mb_per_s": updates * learner["broadcast_bytes"] * n / 1e6})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gammon.train.bench.scale", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=40.0,
                        help="measured wall time of each run after its warm-up (default 40)")
    parser.add_argument("--hidden", type=int, default=80, help="hidden units (default 80)")
    parser.add_argument("--parallel", type=int, default=512,
                        help="games in lock-step per actor (default 512)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs of 1 and of 2 actors, in turns; the ratio reported is "
                             "the median pair's (default 3)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if not 1 <= args.seconds <= 3600 or not 1 <= args.hidden <= 4096 or \
            not 2 <= args.parallel <= 65536 or not 1 <= args.repeats <= 20:
        print("bench_scale: --seconds 1..3600, --hidden 1..4096, --parallel 2..65536, "
              "--repeats 1..20", file=sys.stderr)
        return 2
    from gammon.train.actors import ActorError, start_ray
    try:
        start_ray(None, cpus=2)
    except ActorError as e:
        print(f"bench_scale: {e}", file=sys.stderr)
        return 2
    say = (lambda text: None) if args.json else (lambda text: print(text, file=sys.stderr))
    say("single process ...")
    single, _ = run_rate(args.hidden, args.parallel, args.seconds)
    # 1 and 2 actors in turns, --repeats times: the ratio of each pair of neighbouring runs,
    # and their median (this machine's speed drifts by more than 10% from minute to minute)
    pairs = []
    for turn in range(args.repeats):
        say(f"1 actor ({turn + 1}/{args.repeats}) ...")
        one, per_game = run_rate(args.hidden, args.parallel, args.seconds, actors=1)
        say(f"2 actors ({turn + 1}/{args.repeats}) ...")
        two, _ = run_rate(args.hidden, args.parallel, args.seconds, actors=2)
        pairs.append({"actors_1_games_per_s": one, "actors_2_games_per_s": two,
                      "ratio_2_to_1": two / one})
    middle = sorted(pairs, key=lambda p: p["ratio_2_to_1"])[(len(pairs) - 1) // 2]
    one, two = middle["actors_1_games_per_s"], middle["actors_2_games_per_s"]
    say("the learner alone ...")
    learner = learner_ceiling(args.hidden, args.parallel, args.seconds / 2)
    learner["games_per_s"] = learner["positions_per_s"] / per_game
    result = {"hidden": args.hidden, "parallel_games": args.parallel,
              "seconds": args.seconds, "cores": _cores(),
              "single_process_games_per_s": single, "actors_1_games_per_s": one,
              "actors_2_games_per_s": two, "ratio_2_to_1": two / one,
              "ratio_2_to_single": two / single, "pairs": pairs,
              "positions_per_game": per_game,
              "learner": learner, "projection": project(one, per_game, learner)}
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{'run':<28}{'games/s':>10}")
    print(f"{'single process':<28}{single:>10.1f}")
    print(f"{'1 actor':<28}{one:>10.1f}")
    print(f"{'2 actors':<28}{two:>10.1f}   {two / one:.2f}x 1 actor, "
          f"{two / single:.2f}x single process")
    if len(pairs) > 1:
        print(f"{'':<28}{'':>10}   (the median pair; each pair: " + ", ".join(
            f"{p['actors_2_games_per_s']:.0f}/{p['actors_1_games_per_s']:.0f} = "
            f"{p['ratio_2_to_1']:.2f}x" for p in pairs) + ")")
    print(f"{'learner alone (ceiling)':<28}{learner['games_per_s']:>10.1f}   "
          f"{learner['positions_per_s']:,.0f} positions/s, games of {per_game:.1f} positions")
    print(f"broadcast: {learner['broadcast_bytes']:,} bytes per update, an update every "
          f"{learner['positions_per_update']:,} positions")
    print(f"\n{'actors':>6} {'games/s':>10} {'bound by':>9} {'broadcast MB/s':>15}  (projected)")
    for row in result["projection"]:
        print(f"{row['actors']:>6} {row['games_per_s']:>10.0f} {row['bound']:>9} "
              f"{row['broadcast_mb_per_s']:>15.1f}")
    return 0


def _cores() -> int:
    import os
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


if __name__ == "__main__":
    sys.exit(main())
