"""A rollout's trials on Ray workers: the same numbers as one process, bit for bit.

Every trial's dice depend on the seed, its position's dice stream and its trial number
alone (``eval.analysis.rollout_dice``), and a net values a board the same whatever else is
in its batch (``model.rows.batch_independent``), so the trials can run anywhere in any grouping:
the jobs (position, trial) are cut into pieces of whole blocks of ``BLOCK`` trials, each
worker (a Ray actor holding its own bot, made from the bot's name) plays one piece at a
time and takes the next as it finishes, and the values are put back in the order asked.
Trials, not positions, are split: one position's trials spread over every worker.

    runner = ActorRunner("net:", roots, settings, actors=2)
    results = rollout(bot, boards, settings, runner=runner)   # eval.analysis.rollouts
    runner.close()

Ray must be started first (``eval.playing.cluster.start_ray``). A bot that draws random
numbers (``random``) would give other numbers on other workers: the command line refuses
it with ``--actors``.
"""

from __future__ import annotations

import numpy as np

from gammon.eval.bots.cube import probability_source

from .rollout_dice import BLOCK
from .rollout_players import cube_player, net_plays
from .rollout_roots import Roots, make_roots
from .rollout_settings import Settings
from .rollout_stats import Result
from .rollout_trials import CAPACITY, Trials
from .rollouts import rollout

PIECE = 4 * CAPACITY  # trials a worker plays in one call at most


class RolloutWorker:
    """One Ray actor's side: the bot made once, then pieces of trials played on demand,
    its plays found as ``rollout`` finds them by default (``net_plays``)."""

    def __init__(self, bot_name: str, bot_seed: int | None, roots: Roots, settings: Settings):
        from gammon.eval.bots.registry import make_bot
        bot = make_bot(bot_name, bot_seed, settings.variant)
        self.player = cube_player(bot, settings)
        self.evaluator = probability_source(bot)
        self.plays = net_plays(self.player, self.evaluator, settings.rules, roots.match)
        self.roots, self.settings = roots, settings

    def run(self, pos: np.ndarray, trial: np.ndarray) -> dict:
        return Trials(self.player, self.evaluator, self.roots, self.settings,
                      plays=self.plays).run(pos, trial)


def pieces(pos: np.ndarray, trial: np.ndarray, workers: int) -> list[np.ndarray]:
    """The jobs (indices into pos/trial) cut into pieces of whole blocks: the blocks taken
    round the positions (the first block of each position, then the second...), so that
    every piece holds a share of every position's trials and the pieces cost alike; about
    ``PIECE`` trials each at most, as many pieces for every worker (5 pieces of ``PIECE``
    and a sliver on 2 workers would keep one busy for 3 while the other did 2)."""
    jobs = len(pos)
    if jobs == 0:
        return []
    each = -(-jobs // (workers * PIECE))  # pieces a worker plays
    size = max(BLOCK, -(-jobs // (workers * each)))
    order = np.lexsort((trial, pos, trial // BLOCK))  # block number, position, trial
    block = (trial // BLOCK)[order] * (1 << 40) + pos[order]
    starts = np.flatnonzero(np.concatenate([[True], block[1:] != block[:-1]]))
    out, begin = [], 0
    for s in starts[1:]:
        if s - begin >= size:
            out.append(np.sort(order[begin:s]))
            begin = s
    out.append(np.sort(order[begin:]))
    return out


class ActorRunner:
    """``runner(pos, trial) -> values`` for ``eval.analysis.rollouts.rollout``, on
    ``actors`` Ray actors (``close`` ends them). ``progress(n)`` is told the trials of each
    piece as it comes back."""

    def __init__(self, bot_name: str, roots: Roots, settings: Settings, actors: int = 2,
                 bot_seed: int | None = None, progress=None):
        from gammon.eval.playing.cluster import ray_module
        self.ray = ray_module()
        remote = self.ray.remote(num_cpus=1, max_restarts=0)(RolloutWorker)
        self.workers = [remote.remote(bot_name, bot_seed, roots, settings)
                        for _ in range(actors)]
        self.progress = progress

    def __call__(self, pos, trial) -> dict:
        ray = self.ray
        pos, trial = np.asarray(pos, dtype=np.int64), np.asarray(trial, dtype=np.int64)
        todo = pieces(pos, trial, len(self.workers))
        parts: dict[int, tuple[np.ndarray, dict]] = {}
        running = {}
        queue = list(range(len(todo)))
        for w in self.workers:
            if queue:
                i = queue.pop(0)
                running[w.run.remote(pos[todo[i]], trial[todo[i]])] = (i, w)
        while running:
            ready, _ = ray.wait(list(running), num_returns=1)
            i, w = running.pop(ready[0])
            parts[i] = (todo[i], ray.get(ready[0]))
            if self.progress is not None:
                self.progress(len(todo[i]))
            if queue:
                j = queue.pop(0)
                running[w.run.remote(pos[todo[j]], trial[todo[j]])] = (j, w)
        return _assemble(len(pos), [parts[i] for i in range(len(todo))])

    def close(self) -> None:
        """Let the actors go (Ray ends an actor once no handle to it is left)."""
        self.workers = []


def rollout_on_actors(bot, bot_name: str, boards, settings: Settings, actors: int = 2,
                      states=None, keys=None, extra=None, progress=None,
                      bot_seed: int | None = None) -> list[Result]:
    """``eval.analysis.rollouts.rollout`` with the trials on ``actors`` Ray actors, each
    making the bot ``bot_name`` (``bot`` is the same bot here, for the checks): the same
    results as one process."""
    roots = make_roots(boards, states, keys, extra, settings.rules)
    runner = ActorRunner(bot_name, roots, settings, actors, bot_seed, progress)
    try:
        return rollout(bot, roots.boards, settings, states, roots.keys, roots.extra,
                       runner=runner)
    finally:
        runner.close()


def _assemble(jobs: int, parts: list[tuple[np.ndarray, dict]]) -> dict:
    """The values of the pieces, back in the order of the jobs."""
    first = parts[0][1]
    out = {k: None if v is None else np.empty((jobs,) + v.shape[1:], dtype=v.dtype)
           for k, v in first.items()}
    for rows, values in parts:
        for k, v in values.items():
            if v is not None:
                out[k][rows] = v
    return out


__all__ = ["PIECE", "ActorRunner", "RolloutWorker", "pieces", "rollout_on_actors"]
