"""Positions for the rollout stage: drawn from self-play of the current net, with some
exploration, by phase, deduplicated.

    boards, phase = sample_positions(bot, 5000, seed=1)   # (N, 26) int8, (N,) int8

Games: a share ``opponent_share`` of them the net plays against other bots (``opponents``,
e.g. pubeval: positions the net would not reach against itself), the rest against itself.
Exploration: at each of the net's turns, with probability ``explore`` it plays a play chosen
at random among those within ``within`` of its best score (``Exploring``), so the positions
stray from its own habits the way a human opponent's would. Every position a player faces
before his roll is a candidate, except the first two plies of a game (the openings, the same
every time), positions already settled by the bear-off database (both sides home: exact)
and finished games. The candidates are deduplicated and drawn at random to the phase shares
``shares`` (contact, crashed, race: ``PHASES``; crashed as gnubg classifies,
``engine.phase.is_crashed``) as far as the games give them.

Alternatives (``alternatives`` = k > 0): the games reach only the positions their plays
lead to, so a play the net undervalues is never rolled out and never corrected. With k,
every position a player faces also adds the results of his k + 1 best plays of the roll
he rolled there (by the net's score, those within ``within`` of the best; one of them is
usually the play he then makes), each as the position his opponent then faces: about k
positions the net chose against for every one it chose.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.bearoff import all_home
from gammon.engine.board import flip
from gammon.engine.game import play
from gammon.engine.movegen import legal_plays
from gammon.engine.phase import is_crashed, is_race
from gammon.engine.policy import Bot, best_per_root

PHASES = ("contact", "crashed", "race")
SHARES = (0.5, 0.2, 0.3)  # contact, crashed, race
POSITIONS_PER_GAME = 20  # the games played per position wanted: count / this, at least 8


def phase_of(boards: np.ndarray) -> np.ndarray:
    """(N,) int8: 0 contact, 1 crashed, 2 race (``PHASES``)."""
    race = is_race(boards)
    return np.where(race, 2, np.where(is_crashed(boards), 1, 0)).astype(np.int8)


class Exploring(Bot):
    """A bot that plays as ``bot`` but, with probability ``share`` at each position, picks
    at random among the plays within ``within`` of the best score."""

    def __init__(self, bot, share: float, within: float, rng: np.random.Generator):
        self.bot, self.share, self.within, self.rng = bot, share, within, rng
        self.name = f"{getattr(bot, 'name', 'bot')} exploring"

    def scores(self, plays, boards, dice):
        return self.bot.scores(plays, boards, dice)

    def choose(self, plays, boards, dice):
        chosen = np.asarray(self.bot.choose(plays, boards, dice))
        n = len(boards)
        wander = np.flatnonzero(self.rng.random(n) < self.share)
        if len(wander) == 0:
            return chosen
        scores = np.asarray(self.bot.scores(plays, boards, dice), dtype=np.float64)  # (K,)
        best = scores[best_per_root(scores, plays.root, n)]  # (n,)
        near = scores >= best[plays.root] - self.within  # (K,)
        starts = np.searchsorted(plays.root, np.arange(n + 1))
        for i in wander:
            rows = starts[i] + np.flatnonzero(near[starts[i]:starts[i + 1]])
            chosen[i] = self.rng.choice(rows)
        return chosen


def alternative_positions(bot, boards: np.ndarray, dice: np.ndarray, most: int,
                          within: float, variant: str = "standard") -> np.ndarray:
    """The results of the ``most`` best plays of each of N positions (26,) before roll
    ``dice`` (N, 2) by ``bot``'s score, those within ``within`` of the best, each as the
    position the opponent then faces (flipped): (M, 26) int8."""
    plays = legal_plays(boards, dice, variant)
    if len(plays) == 0:
        return np.zeros((0, 26), dtype=np.int8)
    n = len(boards)
    scores = np.asarray(bot.scores(plays, boards, dice), dtype=np.float64)  # (K,)
    best = scores[best_per_root(scores, plays.root, n)]  # (n,)
    starts = np.searchsorted(plays.root, np.arange(n + 1))
    keep = []
    for i in range(n):
        rows = np.arange(starts[i], starts[i + 1])
        if len(rows) < 2:
            continue  # a forced play: no alternative
        rows = rows[scores[rows] >= best[i] - within]
        keep.append(rows[np.argsort(-scores[rows], kind="stable")[:most]])
    if not keep:
        return np.zeros((0, 26), dtype=np.int8)
    return flip(plays.boards[np.concatenate(keep)])


def candidate_positions(bot, games: int, rng: np.random.Generator, explore: float = 0.1,
                        within: float = 0.1, opponents=(), opponent_share: float = 0.0,
                        variant: str = "standard", alternatives: int = 0) -> np.ndarray:
    """Unique positions before the roll from ``games`` games (see the module's doc)."""
    seen: list[np.ndarray] = []
    against = max(0, min(games, round(games * opponent_share))) if opponents else 0
    me = Exploring(bot, explore, within, rng)
    plans = [((me, me), games - against)]
    for k, other in enumerate(opponents):
        share = against // len(opponents) + (k < against % len(opponents))
        plans += [((me, other), share - share // 2), ((other, me), share // 2)]
    for policies, n in plans:
        if n <= 0:
            continue
        plies = {"k": 0}

        def record(boards, dice, plies=plies):
            plies["k"] += 1
            if plies["k"] > 2:  # not the openings
                seen.append(boards.copy())
            if alternatives and plies["k"] > 1:  # the plays of the second ply on
                seen.append(alternative_positions(bot, boards, np.asarray(dice),
                                                  alternatives + 1, within, variant))
        play(policies, n, rng, variant, on_position=record)
    if not seen:
        return np.zeros((0, 26), dtype=np.int8)
    boards = np.concatenate(seen)
    in_play = (boards > 0).any(axis=1) & (boards < 0).any(axis=1)
    return np.unique(boards[in_play & ~all_home(boards)], axis=0)


def sample_positions(bot, count: int, seed: int, explore: float = 0.1, within: float = 0.1,
                     opponents=(), opponent_share: float = 0.0, shares=SHARES,
                     variant: str = "standard", exclude: set[bytes] | None = None,
                     alternatives: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``count`` positions (at most) drawn to the phase ``shares`` from new games, none of
    ``exclude`` (board bytes): boards (n, 26) int8 and their phases (n,) int8."""
    rng = np.random.default_rng(seed)
    games = max(8, count // POSITIONS_PER_GAME * 4)
    pool = candidate_positions(bot, games, rng, explore, within, opponents, opponent_share,
                               variant, alternatives)
    if exclude:
        pool = pool[[b.tobytes() not in exclude for b in pool]] if len(pool) else pool
    phase = phase_of(pool)
    wanted = np.floor(np.asarray(shares) / np.sum(shares) * count).astype(int)
    wanted[0] += count - wanted.sum()
    picked = []
    for p, n in enumerate(wanted):
        rows = np.flatnonzero(phase == p)
        picked.append(rng.permutation(rows)[:n])
    rows = np.concatenate(picked)
    short = count - len(rows)
    if short > 0:  # a phase the games gave too few of: the others fill in
        rest = np.setdiff1d(np.arange(len(pool)), rows)
        rows = np.concatenate([rows, rng.permutation(rest)[:short]])
    rows = rng.permutation(rows)
    return pool[rows], phase[rows]


__all__ = ["Exploring", "PHASES", "SHARES", "alternative_positions", "candidate_positions",
           "phase_of",
           "sample_positions"]
