"""A round robin: every pair of bots plays a paired money match (``eval.playing.match.run_match``),
the pairs spread over processes; a cross table of points per game with 95% intervals and
an Elo-style rating per bot (``gammon tournament``).

Each pair (i, j), i before j in the list, plays ``games`` cubeless games with paired dice,
seeded from the tournament's seed and the pair (``pair_seed``), so a pair's games do not
depend on which process plays them or in what order. The rating: a Bradley-Terry model
fitted to the games won (each game a win or a loss; the minorization-maximization
iteration), as Elo points, 400 log10 of the strength, shifted so that the ratings average
1500: a 100-point gap is a 64% expected share of the games won.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field

import numpy as np

ELO_MEAN = 1500.0


def pair_seed(seed: int, i: int, j: int) -> int:
    """The match seed of pair (i, j) of a tournament seeded ``seed``."""
    words = np.random.SeedSequence([seed, i, j]).generate_state(2, np.uint32)
    return (int(words[0]) << 32 | int(words[1])) & ((1 << 63) - 1)


@dataclass
class Tournament:
    """bots (B names); for every ordered pair, from the row bot's side: ppg (B, B), its 95%
    interval ci (B, B), the share of games won wins (B, B) (NaN on the diagonal); games per
    pair; ratings (B,) Elo-style; seconds of wall time."""

    bots: list[str]
    games: int
    seed: int
    variant: str
    ppg: np.ndarray = field(default=None)
    ci: np.ndarray = field(default=None)
    wins: np.ndarray = field(default=None)
    ratings: np.ndarray = field(default=None)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        b = len(self.bots)
        table = {self.bots[i]: {self.bots[j]: {"ppg": float(self.ppg[i, j]),
                                               "ppg_ci95": float(self.ci[i, j]),
                                               "win_rate": float(self.wins[i, j])}
                                for j in range(b) if j != i} for i in range(b)}
        return {"bots": self.bots, "games_per_pair": self.games, "seed": self.seed,
                "variant": self.variant, "table": table,
                "ratings": {name: float(r) for name, r in zip(self.bots, self.ratings)},
                "seconds": self.seconds}


def _pair(a: str, b: str, games: int, seed: int, variant: str) -> tuple[float, float, float]:
    """One pair's match in a worker: (A's ppg, its 95% half-width, A's share of wins)."""
    import torch
    torch.set_num_threads(1)
    from gammon.eval.playing.match import run_match
    r = run_match(a, b, games, seed, variant, paired=True, progress=False)
    return r.ppg_a, r.ppg_a_ci95, r.wins_a / r.games


def bradley_terry(wins: np.ndarray, games: np.ndarray, iterations: int = 2000) -> np.ndarray:
    """Elo-style ratings (B,) from games won: wins[i, j] games i won against j out of
    games[i, j] (symmetric). A bot that won or lost everything is pulled in by half a game
    (so every rating is finite)."""
    w = wins.astype(np.float64) + 0.5 * (games > 0)
    n = games.astype(np.float64) + 1.0 * (games > 0)
    strength = np.ones(len(w))
    for _ in range(iterations):
        total = w.sum(axis=1)
        denom = (n / (strength[:, None] + strength[None, :])).sum(axis=1)
        new = total / np.maximum(denom, 1e-300)
        new /= math.exp(np.log(new).mean())
        if np.allclose(new, strength, rtol=1e-12, atol=0):
            strength = new
            break
        strength = new
    elo = 400 * np.log10(strength)
    return elo - elo.mean() + ELO_MEAN


def run_tournament(bots: list[str], games: int, seed: int, variant: str = "standard",
                   workers: int | None = None, progress=None) -> Tournament:
    """Every pair of ``bots`` (names) plays ``games`` paired games, on ``workers`` processes
    (default: every core; 1: in this process). ``progress(n)`` is told each pair's games
    as the pair finishes."""
    import time
    b = len(bots)
    pairs = [(i, j) for i in range(b) for j in range(i + 1, b)]
    ppg = np.full((b, b), np.nan)
    ci = np.full((b, b), np.nan)
    wins = np.full((b, b), np.nan)
    start = time.perf_counter()
    workers = workers or os.cpu_count() or 1

    def store(i, j, result):
        p, c, w = result
        ppg[i, j], ppg[j, i] = p, -p
        ci[i, j] = ci[j, i] = c
        wins[i, j], wins[j, i] = w, 1 - w
        if progress is not None:
            progress(games)

    if workers == 1 or len(pairs) == 1:
        for i, j in pairs:
            store(i, j, _pair(bots[i], bots[j], games, pair_seed(seed, i, j), variant))
    else:
        import multiprocessing
        with ProcessPoolExecutor(max_workers=min(workers, len(pairs)),
                                 mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = {pool.submit(_pair, bots[i], bots[j], games, pair_seed(seed, i, j),
                                   variant): (i, j) for i, j in pairs}
            for future in as_completed(futures):
                store(*futures[future], future.result())
    won = np.nan_to_num(wins) * games
    counts = np.where(np.eye(b, dtype=bool), 0, games)
    ratings = bradley_terry(won, counts)
    return Tournament(list(bots), games, seed, variant, ppg, ci, wins, ratings,
                      time.perf_counter() - start)


def cross_table(t: Tournament) -> str:
    """The cross table for people: each row bot's points per game against each column bot
    (95% interval), its rating and its mean ppg."""
    names = t.bots
    width = max(12, max(len(n) for n in names) + 1)
    cell = 15
    lines = [f"round robin, {t.games:,} paired games a pair, {t.variant}, seed {t.seed}; "
             f"points per game of the row bot against the column bot (± 95%)",
             f"{'':{width}}" + "".join(f"{n[:cell - 1]:>{cell}}" for n in names)
             + f"{'mean ppg':>10}{'rating':>8}"]
    order = np.argsort(-t.ratings)
    for i in order:
        cells = []
        for j in range(len(names)):
            cells.append(f"{'—':>{cell}}" if i == j else
                         f"{f'{t.ppg[i, j]:+.3f}±{t.ci[i, j]:.3f}':>{cell}}")
        mean = np.nanmean(t.ppg[i])
        lines.append(f"{names[i]:{width}}" + "".join(cells) + f"{mean:+10.3f}"
                     f"{t.ratings[i]:8.0f}")
    lines.append(f"ratings: Elo-style, from the games won (Bradley-Terry), average "
                 f"{ELO_MEAN:.0f}; {t.seconds:.0f} s")
    return "\n".join(lines) + "\n"


__all__ = ["Tournament", "run_tournament", "cross_table", "bradley_terry", "pair_seed"]
