"""Matches between two bots: many cubeless money games in batches, with honest statistics.

``run_match(a, b, games, seed)`` plays ``games`` games of A against B through the one game
loop (``engine.game.play``), a chunk of games at a time in lock-step, and returns a
``MatchResult`` whose statistics are all from A's side.

Paired dice (the default): each dice sequence of a ``DiceTable`` is played twice, once with
A in seat 0 and once with the seats swapped, so that whatever luck one bot had in the first
game the other gets in the second. ``games`` must then be even; games 2i and 2i+1 of the
result are pair i. The games of a pair are not independent, the pairs are: the 95%
confidence interval of A's points per game is computed from the per-pair means. It is
usually much narrower than the interval the same games would give if treated as
independent (``ci95_unpaired``, reported beside it to show what pairing buys).

Reproducible bit for bit: the dice and each bot's seed are drawn from ``seed`` (through
``numpy.random.SeedSequence``), so the same seed, games and chunk size replay the same games.

With ``cube=CubeRules(...)`` the games are cubeful money games (the same loop with the
cube's decisions before each roll): the points are cube value x 1/2/3 (or the cube value on
a pass) and ``MatchResult.cube`` holds what the cube did (``CubeStats``); the pairing (each
dice sequence, and its tied opening throws for automatic doubles, played twice with the
seats swapped) and the statistics are the same. This is the one paired-dice match runner:
``gammon match``, cubeful matches and the trainer's evaluation against pubeval use it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from gammon.engine.cube import CubeRules, opening_ties
from gammon.engine.dice import DiceTable
from gammon.engine.formats.record import renumbered
from gammon.engine.game import play

from gammon.eval.bots.simple import Bot
from gammon.eval.bots.registry import draws_numbers, make_bot

Z95 = 1.959963984540054  # two-sided 95% quantile of the normal distribution
CHUNK = 2000  # games played in lock-step at a time


@dataclass
class CubeStats:
    """What the cube did in a match; columns (G, 2) are (A, B).

    values: (G,) int32 -- cube value at the end of each game (the value won on a pass)
    passed: (G,) bool -- the game ended on a passed double
    offers, takes, beavers, passes: (G, 2) int16 -- doubles offered, taken, beavered and
        passed by A and by B (a take or pass is by the side that was doubled)
    """

    rules: CubeRules
    values: np.ndarray
    passed: np.ndarray
    offers: np.ndarray
    takes: np.ndarray
    beavers: np.ndarray
    passes: np.ndarray

    @classmethod
    def concat(cls, parts: list["CubeStats"]) -> "CubeStats":
        """One record of several chunks of the same match, in order."""
        keys = ("values", "passed", "offers", "takes", "beavers", "passes")
        return cls(parts[0].rules, *(np.concatenate([getattr(p, k) for p in parts])
                                     for k in keys))

    def histogram(self) -> dict[int, int]:
        """Games by the cube value they ended at, lowest value first."""
        values, counts = np.unique(self.values, return_counts=True)
        return {int(v): int(c) for v, c in zip(values, counts)}

    def totals(self) -> dict[str, tuple[int, int]]:
        """(A, B) totals of offers, takes, beavers and passes."""
        return {k: tuple(int(x) for x in getattr(self, k).sum(axis=0))
                for k in ("offers", "takes", "beavers", "passes")}

    def to_dict(self) -> dict:
        """Plain JSON values: the rules, the histogram and the (A, B) counts."""
        out = {"jacoby": self.rules.jacoby, "beavers_allowed": self.rules.beavers,
               "auto_doubles": self.rules.auto_doubles, "max_cube": self.rules.max_cube,
               "cube_values": {str(v): c for v, c in self.histogram().items()},
               "mean_cube": float(self.values.mean()) if len(self.values) else None,
               "games_passed": int(self.passed.sum())}
        for key, (a, b) in self.totals().items():
            out[f"{key}_a"], out[f"{key}_b"] = a, b
        return out


def ci95(values: np.ndarray) -> float:
    """Half-width of the 95% confidence interval of the mean of independent values.

    Normal approximation, ``1.96 * sample sd / sqrt(n)``; NaN with fewer than two values.
    """
    values = np.asarray(values, dtype=np.float64)
    if len(values) < 2:
        return math.nan
    return float(Z95 * values.std(ddof=1) / math.sqrt(len(values)))


@dataclass
class MatchResult:
    """The games of a match and their statistics, all from A's side.

    points: (G,) int32 -- A's points in each game: +1/+2/+3 for a single/gammon/backgammon
            win, negative for a loss, 0 for a game cut off unfinished at the ply limit;
            with the cube times the cube value (the cube value on a pass)
    plies:  (G,) int32 -- plays made (passes included) in each game
    paired: games 2i and 2i+1 shared one dice sequence with the seats swapped
    cube:   the cube statistics of a cubeful match (``CubeStats``), else None
    Gammons count gammons and backgammons together, as gnubg does; backgammons alone too.
    With the cube, a game counts as a gammon (backgammon) when it scored 2 (3) times the
    cube; a pass counts as neither.
    """

    points: np.ndarray
    plies: np.ndarray
    paired: bool
    seed: int | None = None
    variant: str = "standard"
    seconds: float = math.nan
    names: tuple[str, str] = ("A", "B")
    chunk: int = field(default=CHUNK)
    cube: CubeStats | None = None

    @property
    def _kinds(self) -> np.ndarray:
        """A's result per game as 1/2/3 (negative for B), 0 unfinished or passed."""
        if self.cube is None:
            return self.points
        kinds = self.points // np.maximum(self.cube.values, 1)
        return np.where(self.cube.passed, 0, kinds)

    @property
    def games(self) -> int:
        return len(self.points)

    @property
    def wins_a(self) -> int:
        return int((self.points > 0).sum())

    @property
    def wins_b(self) -> int:
        return int((self.points < 0).sum())

    @property
    def unfinished(self) -> int:
        return int((self.points == 0).sum())

    @property
    def gammons_a(self) -> int:
        """Games A won by a gammon or a backgammon."""
        return int((self._kinds >= 2).sum())

    @property
    def gammons_b(self) -> int:
        return int((self._kinds <= -2).sum())

    @property
    def backgammons_a(self) -> int:
        return int((self._kinds >= 3).sum())

    @property
    def backgammons_b(self) -> int:
        return int((self._kinds <= -3).sum())

    def rate(self, count: int) -> float:
        """A count as a fraction of the games played (NaN for no games)."""
        return count / self.games if self.games else math.nan

    @property
    def ppg_a(self) -> float:
        """A's mean points per game (cubeless: 1, 2, 3 per game; cubeful: times the cube)."""
        return float(self.points.mean()) if self.games else math.nan

    @property
    def units(self) -> np.ndarray:
        """The independent units of the match: per-pair means when paired, else games."""
        points = self.points.astype(np.float64)
        return points.reshape(-1, 2).mean(axis=1) if self.paired else points

    @property
    def ppg_a_ci95(self) -> float:
        """95% half-width of ppg_a, from the independent units (pairs when paired)."""
        return ci95(self.units)

    @property
    def points_share_a(self) -> float:
        """A's share of all the points won in the match: A's / (A's + B's)."""
        won = np.abs(self.points).sum()
        return float(np.where(self.points > 0, self.points, 0).sum() / won) if won else math.nan

    @property
    def points_share_a_ci95(self) -> float:
        """95% half-width of ``points_share_a``: a ratio of means over the independent units
        (pairs when paired), by the delta method."""
        points = self.points.astype(np.float64)
        a = np.where(points > 0, points, 0)
        total = np.abs(points)
        if self.paired:
            a, total = a.reshape(-1, 2).sum(axis=1), total.reshape(-1, 2).sum(axis=1)
        if len(a) < 2 or total.mean() == 0:
            return math.nan
        residual = a - self.points_share_a * total
        return float(ci95(residual) / total.mean())

    @property
    def wins_a_ci95(self) -> float:
        """95% half-width of A's win rate, from the independent units (pairs when paired)."""
        wins = (self.points > 0).astype(np.float64)
        return ci95(wins.reshape(-1, 2).mean(axis=1) if self.paired else wins)

    @property
    def ci95_unpaired(self) -> float:
        """The half-width the same games would give if each were independent."""
        return ci95(self.points)

    @property
    def plies_per_game(self) -> float:
        return float(self.plies.mean()) if self.games else math.nan

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else math.nan

    def to_dict(self) -> dict:
        """Every statistic as plain JSON values (NaN becomes None)."""
        out = {
            "a": self.names[0], "b": self.names[1], "variant": self.variant,
            "seed": self.seed, "paired": self.paired, "chunk": self.chunk,
            "games": self.games, "wins_a": self.wins_a, "wins_b": self.wins_b,
            "unfinished": self.unfinished, "win_rate_a": self.rate(self.wins_a),
            "ppg_a": self.ppg_a, "ppg_a_ci95": self.ppg_a_ci95,
            "ci95_unpaired": self.ci95_unpaired,
        }
        for side in ("a", "b"):
            for kind in ("gammons", "backgammons"):
                count = getattr(self, f"{kind}_{side}")
                out[f"{kind}_{side}"] = count
                out[f"{kind[:-1]}_rate_{side}"] = self.rate(count)
        out.update(plies_per_game=self.plies_per_game, seconds=self.seconds,
                   games_per_s=self.games_per_s)
        out = {k: (None if isinstance(v, float) and math.isnan(v) else v)
               for k, v in out.items()}
        if self.cube is not None:
            out["cube"] = self.cube.to_dict()
        return out


def new_seed() -> int:
    """A fresh match seed from the operating system's entropy, to report and replay."""
    return int(np.random.SeedSequence().generate_state(1)[0])


def match_seeds(seed: int) -> tuple[np.random.Generator, int, int]:
    """From a match seed: the dice generator and the seeds of bot A and bot B."""
    dice, a, b = np.random.SeedSequence(seed).spawn(3)
    return (np.random.default_rng(dice), int(a.generate_state(1)[0]),
            int(b.generate_state(1)[0]))


def _bot(bot: Bot | str, seed: int, variant: str, cube: CubeRules | None = None) -> Bot:
    """A bot given by name is made here with its derived seed (and, for a cubeful match,
    its ``auto`` cube strategy); an instance is used as is."""
    if not isinstance(bot, str):
        return bot
    return make_bot(bot, seed, variant) if cube is None else \
        make_bot(bot, seed, variant, cube="auto", rules=cube)


def _label(bot: Bot | str) -> str:
    return bot if isinstance(bot, str) else getattr(bot, "name", type(bot).__name__)


def play_chunk(a: Bot, b: Bot, games: int, rng: np.random.Generator, variant: str,
               paired: bool, max_plies: int = 10_000, on_position=None, on_play=None,
               cube: CubeRules | None = None, on_cube=None):
    """``games`` games of A against B: A's points (G,) int32, plies (G,) int32 and, with
    the cube, its statistics (else None).

    Paired: games // 2 dice sequences (and tied opening throws), each played with A in
    seat 0 (game 2i) and then with B in seat 0 (game 2i + 1). Unpaired: A always sits in
    seat 0; the opening roll decides who starts, so the seat gives no edge. ``on_play`` and
    ``on_cube`` (``engine.game.play``) are told the plays and doubles with this chunk's
    game numbers and the players A = 0, B = 1 for seats.
    """
    if not paired:
        r = play((a, b), games, rng, variant, max_plies, on_position, on_play=on_play,
                 cube=cube, on_cube=on_cube)
        return r.points, r.plies, None if cube is None else _stats(cube, r, r)
    pairs = games // 2
    table, ties = chunk_dice(rng, games, cube)
    ab = play((a, b), pairs, rng, variant, max_plies, on_position, dice=table,
              on_play=renumbered(on_play, 2, 0, False), cube=cube, ties=ties,
              on_cube=renumbered(on_cube, 2, 0, False))
    ba = play((b, a), pairs, rng, variant, max_plies, on_position, dice=table,
              on_play=renumbered(on_play, 2, 1, True), cube=cube, ties=ties,
              on_cube=renumbered(on_cube, 2, 1, True))
    points = _interleave(ab.points, -ba.points)
    plies = _interleave(ab.plies, ba.plies)
    return points, plies, None if cube is None else _stats(cube, ab, ba)


def chunk_dice(rng: np.random.Generator, games: int, cube: CubeRules | None):
    """The dice of a paired chunk of ``games`` games: its ``DiceTable`` (one row per pair)
    and, with the cube, the tied opening throws of each pair (else None). What a chunk
    draws from ``rng`` does not depend on how its games go, so a worker can skip the
    chunks before its own by drawing their dice (``eval.playing.distributed``)."""
    pairs = games // 2
    table = DiceTable(rng, pairs)
    return table, None if cube is None else opening_ties(rng, pairs)


def chunk_seed(seed: int, index: int) -> int:
    """The seed of a bot that draws numbers for chunk ``index`` of a match: its match seed
    for the first chunk, one derived from it for the others (so that each chunk's games
    depend on the match seed and the chunk alone, wherever the chunk is played)."""
    if index == 0:
        return seed
    words = np.random.SeedSequence([seed, index]).generate_state(2, np.uint32)
    return int(words[0]) << 32 | int(words[1])


def chunk_bot(bot: Bot | str, made: Bot, seed: int, index: int, variant: str,
              cube: CubeRules | None) -> Bot:
    """The bot that plays chunk ``index``: ``made`` (chunk 0's), or for a bot given by a
    name that draws numbers (``random``) one made again with the chunk's seed."""
    if index == 0 or not (isinstance(bot, str) and draws_numbers(bot)):
        return made
    return _bot(bot, chunk_seed(seed, index), variant, cube)


def chunk_sizes(games: int, chunk: int) -> list[int]:
    """The games of each chunk of a match, in order."""
    return [min(chunk, games - done) for done in range(0, games, chunk)]


def _interleave(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Games 2i from ``first`` and 2i + 1 from ``second`` (same leading shape)."""
    out = np.empty((2 * len(first),) + first.shape[1:], dtype=first.dtype)
    out[0::2], out[1::2] = first, second
    return out


def _stats(rules: CubeRules, ab, ba) -> CubeStats:
    """Cube statistics with columns (A, B): ``ab`` had A in seat 0, ``ba`` B in seat 0
    (for an unpaired chunk both are the same results and nothing is interleaved)."""
    if ab is ba:
        return CubeStats(rules, ab.cube, ab.passed, ab.offers, ab.takes, ab.beavers, ab.passes)
    pick = {k: _interleave(getattr(ab, k), getattr(ba, k)[:, ::-1])
            for k in ("offers", "takes", "beavers", "passes")}
    return CubeStats(rules, _interleave(ab.cube, ba.cube), _interleave(ab.passed, ba.passed),
                     **pick)


def run_match(bot_a: Bot | str, bot_b: Bot | str, games: int, seed: int | None = None,
              variant: str = "standard", paired: bool = True, chunk: int = CHUNK,
              progress: bool = True, max_plies: int = 10_000,
              on_position=None, cube: CubeRules | None = None,
              on_play=None, on_cube=None) -> MatchResult:
    """Play ``games`` money games of A against B; statistics from A's side.

    Cubeless, or with the doubling cube under ``cube`` rules: bots then decide with their
    ``offer_double``/``respond`` (``engine.cube_policy``; bots given by name get their
    ``auto`` strategy, instances without them never double and always take).

    Bots given by name are made with seeds drawn from ``seed`` (a new random seed, kept in
    the result, when None); one that draws numbers (``random``) is made again for each
    chunk with that chunk's seed (``chunk_seed``), so that ``eval.playing.distributed`` can play
    the chunks anywhere and get the same games. Paired matches need an even number of games. Games run
    ``chunk`` at a time in lock-step, with a tqdm bar on stderr when ``progress`` and
    stderr is a terminal. ``on_position`` is handed to the game loop; ``on_play`` is told
    every play with the match's game numbers and A = 0, B = 1, and ``on_cube`` every double
    (cubeful games; see ``engine.game.play``).
    """
    if games < 1:
        raise ValueError(f"a match needs at least one game, got {games}")
    if paired and games % 2:
        raise ValueError(f"paired dice play each sequence twice: games must be even, got {games}")
    if seed is None:
        seed = new_seed()
    chunk = max(2, chunk - chunk % 2) if paired else max(1, chunk)
    rng, seed_a, seed_b = match_seeds(seed)
    a, b = _bot(bot_a, seed_a, variant, cube), _bot(bot_b, seed_b, variant, cube)
    points, plies, cubes = [], [], []
    start = time.perf_counter()
    with _progress_bar(games, progress) as bar:
        done = 0
        for index, size in enumerate(chunk_sizes(games, chunk)):
            p, n, c = play_chunk(chunk_bot(bot_a, a, seed_a, index, variant, cube),
                                 chunk_bot(bot_b, b, seed_b, index, variant, cube),
                                 size, rng, variant, paired, max_plies, on_position,
                                 renumbered(on_play, 1, done, False), cube,
                                 renumbered(on_cube, 1, done, False))
            done += size
            if c is not None:
                cubes.append(c)
            points.append(p)
            plies.append(n)
            bar.update(size)
    seconds = time.perf_counter() - start
    return MatchResult(np.concatenate(points), np.concatenate(plies), paired, seed, variant,
                       seconds, (_label(bot_a), _label(bot_b)), chunk,
                       CubeStats.concat(cubes) if cubes else None)


def _progress_bar(games: int, show: bool):
    """A tqdm bar over games on stderr; silent unless asked for and stderr is a terminal."""
    from tqdm import tqdm
    # disable=None: tqdm turns itself off when stderr is not a terminal
    return tqdm(total=games, unit="game", disable=None if show else True, leave=False,
                dynamic_ncols=True)
