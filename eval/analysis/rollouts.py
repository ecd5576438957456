"""Rollouts: the value of positions before the roll as the mean result of playing them out
many times with a bot, every trial of every position in lock-step through the one turn
(``engine.game.Turn``: the variant's actions and the cube before the roll, the roll, the
play, ``end_turn``), so every variant rolls out by its own rules.

    results = rollout(bot, boards (P, 26), Settings(trials=1296, seed=1))

This module is the front door; the rest is in rooms of its own, and every name it ever
had is still importable from here:

    rollout_settings  ``Settings``, their limits and checks, ``RolloutError``
    rollout_roots     ``Roots``: the positions, their cube, score, dice streams and bomb
    rollout_players   who plays: the bot (with cube heads), asked every roll or, for a
                      0-ply net, its plays worked out by the loop (``NetPlays``)
    rollout_trials    ``Trials``: the trial engine, the values of finished trials
    rollout_stats     ``Result``: per-trial values, means, standard errors, intervals
    rollout_dice, rollout_vr, rollout_actors   the dice, variance reduction, Ray workers

A trial starts from its position with the player on roll (the "root" player, seat 0) about
to roll (in a cubeful rollout, about to decide on the cube first) and ends

- at the end of the game: its exact result (one outcome of six; cubeful: the points, times
  the cube, per unit of the position's cube; at a match score, the root player's match
  winning chance after the game, ``engine.met``'s table through ``model.match_cube``);
- at a double passed (cubeful): the points of the pass, the six cubeless outcomes then
  from the net's probabilities of the position;
- after ``truncate`` plies: the net's 0-ply probabilities of the position reached (and, in
  a cubeful rollout, the cube model's cubeful equity of it with the cube as it lies after
  the decisions of that turn: Janowski's money formula, or ``model.match_cube`` at a
  score); ``truncate=0`` is the net's value of the position itself;
- once both sides have every checker home (``bearoff``, the variants whose races the
  bear-off database values: ``engine.bearoff``): the database's exact probabilities.

Dice (``eval.analysis.rollout_dice``): per trial, from the seed, the position's dice stream
(``keys``) and the trial number alone, the first two rolls stratified (quasi-random) unless
``quasi=False``; so a rerun, a different batch or the trials split over Ray workers
(``eval.analysis.rollout_actors``) give the same numbers bit for bit (the nets pad their
batches for that: ``model.rows.batch_independent``).

Variance reduction (``eval.analysis.rollout_vr``, on by default): at every ply the luck of
the roll rolled (its 0-ply value after the mover's best play minus the mean over the 21
rolls) is taken out of the trial's six outcomes, and so of the five probabilities and the
cubeless equity. In a cubeful money rollout the cubeful result has the same luck taken out,
as cubeless equity times the cube's value at that turn (per unit of the position's cube):
still unbiased (each roll's luck has mean 0 whatever the cube known before the roll
multiplies it by), a rougher match for a cubeful value than a cubeful luck would be, yet
about 4 times smaller a standard error than none; at a match score the cubeful MWC has
none. Where the bot is a 0-ply net choosing by cubeless equity, its play of the roll rolled
is the best play the luck was computed with (``eval.analysis.rollout_players.NetPlays``;
the same trials as asking the bot, tested), so variance reduction costs the 21 rolls'
plays and no more; ``ask_bot=True`` asks the bot all the same.

Speed: the trials of all positions share one batch (up to ``CAPACITY`` in flight, a
finished trial's slot refilled at once), the net is asked ``PLAY_CHUNK`` games at a time,
torch runs on one thread per process (``one_thread``) and more cores come as Ray workers.

Statistics (``eval.analysis.rollout_stats``): each trial gives one value of each quantity;
the mean over the trials, its sample standard error and the 95% interval. With
``until_se`` a position stops after the first multiple of ``SE_CHECK`` trials whose
equity's SE is below it (the cubeful equity in a cubeful rollout). The results of trials
that share a dice stream (the same key, e.g. the candidate plays of one roll) are paired
trial by trial: ``paired_difference`` gives a difference of two with its own interval.
"""

from __future__ import annotations

import time

import numpy as np

from gammon.engine.outcomes import OUTCOME_POINTS
from gammon.eval.bots.cube import probability_source

from .rollout_players import PLAY_CHUNK, NetPlays, cube_player, net_plays
from .rollout_roots import Roots, check_positions, make_roots
from .rollout_settings import (DEFAULT_TRIALS, MAX_PLIES, MAX_TRIALS, SE_CHECK, RolloutError,
                               Settings, check_bot)
from .rollout_stats import Result, interval, paired_difference, standard_error
from .rollout_trials import CAPACITY, Trials, one_thread


def local_runner(player, evaluator, roots: Roots, settings: Settings, progress=None,
                 capacity: int | None = None, ask_bot: bool = False):
    """The runner of one process: ``run(pos, trial) -> values`` (``Trials.run``), the
    player's plays worked out by ``NetPlays`` where ``net_plays`` allows it, unless
    ``ask_bot``: then asked of the player every roll (the same numbers, slower)."""
    plays = None if ask_bot else net_plays(player, evaluator, settings.rules, roots.match)

    def run(pos, trial):
        return Trials(player, evaluator, roots, settings, capacity, progress,
                      plays).run(pos, trial)
    return run


def rollout(bot, boards, settings: Settings = Settings(), states=None, keys=None,
            extra=None, progress=None, runner=None, ask_bot: bool = False) -> list[Result]:
    """Roll out positions before the roll: one ``Result`` per board of ``boards`` (P, 26)
    (from the player on roll), in order.

    ``bot`` plays both sides (any bot; its probabilities, where it has them, value the
    luck, truncations and passes: ``eval.analysis.evaluator``); ``settings`` says how.
    ``states``: an ``engine.formats.matchid.MatchState`` for every position or one each
    (None: money play, centred 1-cube): the cube as it lies and, with a length, the match
    score (the cube then plays by the score and the results are match winning chances).
    ``keys``: each position's dice stream (default: its own); positions given the same key
    see the same rolls trial by trial (paired). ``extra``: the variant's state of the
    positions, name -> (P,) (Nuclear: {"bomb": ...}, default centred). ``progress(n)`` is told the trials as they finish. ``runner(pos, trial) ->
    values`` plays trials (default: this process, ``local_runner``; the Ray workers of
    ``eval.analysis.rollout_actors`` give the same values). ``ask_bot``: the default
    runner asks the bot for every play even where it is a 0-ply net whose plays the loop
    works out itself (``eval.analysis.rollout_players``: the same numbers).
    """
    settings.check()
    rules = settings.rules
    roots = make_roots(boards, states, keys, extra, rules)
    n = len(roots.boards)
    if n == 0:
        return []
    evaluator = probability_source(bot)
    check_bot(settings, evaluator is not None)
    check_positions(roots, rules)
    if runner is None:
        runner = local_runner(cube_player(bot, settings), evaluator, roots, settings, progress,
                              ask_bot=ask_bot)
    start = time.perf_counter()
    values = run_waves(runner, roots, settings)
    seconds = time.perf_counter() - start
    return [Result(v["outcomes"], v["cubeful"], v["mwc"], v["plies"], settings,
                   roots.match, seconds) for v in values]


def run_waves(runner, roots: Roots, settings: Settings) -> list[dict]:
    """Every position's trials through ``runner``: all at once, or with ``until_se`` in
    waves of ``SE_CHECK`` trials, a position leaving once its equity's SE is below the
    mark. The values of each position in trial order."""
    n = len(roots.boards)
    step = settings.trials if settings.until_se is None else SE_CHECK
    done = np.zeros(n, dtype=np.int64)
    parts: list[list[dict]] = [[] for _ in range(n)]
    going = np.arange(n)
    while len(going):
        counts = np.minimum(step, settings.trials - done[going])
        pos = np.repeat(going, counts)
        trial = np.concatenate([np.arange(done[p], done[p] + c) for p, c in zip(going, counts)])
        values = runner(pos, trial)
        bounds = np.concatenate([[0], np.cumsum(counts)])
        for i, p in enumerate(going):
            parts[p].append({k: None if v is None else v[bounds[i]:bounds[i + 1]]
                             for k, v in values.items()})
        done[going] += counts
        left = []
        for p in going:
            if done[p] >= settings.trials:
                continue
            main = _joined(parts[p])
            values_p = main["cubeful"] if settings.cubeful else main["outcomes"] @ OUTCOME_POINTS
            if standard_error(values_p) < settings.until_se:
                continue
            left.append(p)
        going = np.array(left, dtype=np.int64)
    return [_joined(p) for p in parts]


def _joined(parts: list[dict]) -> dict:
    """Values of successive waves, one array each."""
    return {k: None if parts[0][k] is None else np.concatenate([p[k] for p in parts])
            for k in parts[0]}


__all__ = ["CAPACITY", "DEFAULT_TRIALS", "MAX_PLIES", "MAX_TRIALS", "PLAY_CHUNK", "SE_CHECK",
           "NetPlays", "Result", "RolloutError", "Roots", "Settings", "Trials", "check_bot",
           "check_positions", "cube_player", "interval", "local_runner", "make_roots",
           "net_plays", "one_thread", "paired_difference", "rollout", "run_waves",
           "standard_error"]
