"""A match played on Ray workers: the same games as ``eval.playing.match.run_match``, split by chunk.

``run_match`` plays a paired match a chunk of games at a time, each chunk's dice drawn from
the match's dice generator in turn (``chunk_dice``: what a chunk draws does not depend on
how its games go) and bots that draw numbers made with the chunk's own seed
(``chunk_seed``). So a worker handed chunks 1 and 3 draws the dice of chunks 0 to 3 and
plays only its own, and the chunks of all workers put back in order are the games the
single process plays, number for number. ``run_distributed_match`` does that on
``actors`` Ray tasks and merges the statistics into one ``MatchResult``.

Only paired matches (the default) split this way: an unpaired chunk rolls its dice as the
games go. Bots are given by name, since each worker makes its own.
"""

from __future__ import annotations

import time

import numpy as np

from gammon.engine.cube import CubeRules

from gammon.eval.playing.match import (CHUNK, CubeStats, MatchResult, _bot, chunk_bot, chunk_dice, chunk_sizes,
                    match_seeds, new_seed, play_chunk)


def play_chunks(bot_a: str, bot_b: str, games: int, seed: int, variant: str, chunk: int,
                mine: list[int], cube: CubeRules | None = None,
                max_plies: int = 10_000) -> dict[int, tuple]:
    """The chunks numbered ``mine`` of the paired match ``run_match(bot_a, bot_b, games,
    seed, variant, chunk=chunk, cube=cube)``: chunk -> (points, plies, cube stats or None)."""
    rng, seed_a, seed_b = match_seeds(seed)
    a, b = _bot(bot_a, seed_a, variant, cube), _bot(bot_b, seed_b, variant, cube)
    wanted, out = set(mine), {}
    for index, size in enumerate(chunk_sizes(games, chunk)):
        if index > max(wanted, default=-1):
            break
        if index not in wanted:
            chunk_dice(rng, size, cube)  # the dice this chunk draws, drawn and dropped
            continue
        out[index] = play_chunk(chunk_bot(bot_a, a, seed_a, index, variant, cube),
                                chunk_bot(bot_b, b, seed_b, index, variant, cube),
                                size, rng, variant, True, max_plies, cube=cube)
    return out


def split(chunks: int, workers: int) -> list[list[int]]:
    """Chunk numbers dealt round-robin to at most ``workers`` workers (none empty)."""
    return [list(range(w, chunks, workers)) for w in range(min(workers, chunks))]


def run_distributed_match(bot_a: str, bot_b: str, games: int, seed: int | None = None,
                          variant: str = "standard", actors: int = 2, chunk: int = CHUNK,
                          cube: CubeRules | None = None, max_plies: int = 10_000,
                          progress=None) -> MatchResult:
    """``run_match`` for a paired match of bots given by name, its chunks played by
    ``actors`` Ray tasks (Ray must be started: ``eval.playing.cluster.start_ray``); the same games
    and statistics for the same seed, games and chunk. ``progress(games)`` is told the
    games of each chunk as it comes back."""
    from gammon.eval.playing.cluster import ray_module
    ray = ray_module()
    if games < 2 or games % 2:
        raise ValueError(f"paired dice play each sequence twice: games must be even, got {games}")
    if seed is None:
        seed = new_seed()
    chunk = max(2, chunk - chunk % 2)
    sizes = chunk_sizes(games, chunk)
    task = ray.remote(num_cpus=1, max_retries=0)(play_chunks)
    start = time.perf_counter()
    pending = [task.remote(bot_a, bot_b, games, seed, variant, chunk, mine, cube, max_plies)
               for mine in split(len(sizes), actors)]
    parts: dict[int, tuple] = {}
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        got = ray.get(ready[0])
        parts.update(got)
        if progress is not None:
            progress(sum(sizes[i] for i in got))
    seconds = time.perf_counter() - start
    order = [parts[i] for i in range(len(sizes))]
    cubes = [c for _, _, c in order if c is not None]
    return MatchResult(np.concatenate([p for p, _, _ in order]),
                       np.concatenate([n for _, n, _ in order]), True, seed, variant, seconds,
                       (bot_a, bot_b), chunk, CubeStats.concat(cubes) if cubes else None)
