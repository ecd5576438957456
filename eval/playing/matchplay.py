"""Matches to N points between two bots: many matches at once, game by game, with match
statistics (``gammon match A B --match-to N --matches M``).

All M matches are played in rounds: round r plays game r of every match still going, in
one batch of the game loop (``engine.game.play`` with a ``MatchContext``: the cube, the
Crawford rule, each bot told the score from its side), then adds each game's points to its
match (``engine.match.Matches``). Bots given by name get their ``auto`` cube strategy
(``eval.bots.cube``): the cube heads for nets and gnubg, the Keith count with plain match
rules for the others; score-aware bots (``observe_score``) decide at the score.

Paired (the default): matches 2i and 2i + 1 use the same dice, game by game (round r's
dice row i), with A in seat 0 of the first and B in seat 0 of the second, so luck largely
cancels in the pair, as in paired money matches. The dice of a round are drawn whatever
the games do, so the same seed gives the same matches. The match winning rate's interval
comes from the independent units: pair means when paired, matches otherwise.

Match statistics (``MatchSeries``): A's match winning rate with its 95% interval, the
points each scored per match, games per match (and Crawford games), the cube's actions
per player.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from gammon.engine.cube import CubeRules
from gammon.engine.dice import DiceTable
from gammon.engine.game import play
from gammon.engine.match import Matches
from gammon.engine.policy import Bot
from gammon.engine.rules import variant as get_variant

from gammon.eval.playing.match import _bot, _label, ci95, match_seeds, new_seed

MAX_LENGTH = 64  # the longest match (points); gnubg's Match ID holds up to 32,767
MAX_GAMES = 1000  # games of one match at most (numbering of recorded games)


@dataclass
class MatchSeries:
    """M matches to ``length`` between A and B, from A's side.

    winner:  (M,) int8 0 A won, 1 B won, -1 unfinished (a game hit the ply limit too often)
    score:   (M, 2) int32 final points of A and B
    games:   (M,) int32 games played;  crawford_games (M,) int32 of them Crawford games
    game_points: (M, G) int32 A's points in each game of each match (negative: B's; the
             first ``games[m]`` columns are played, 0 in them: a game left unfinished)
    offers, takes, passes: (2,) int cube actions of A and B over all the matches
    """

    length: int
    winner: np.ndarray
    score: np.ndarray
    games: np.ndarray
    crawford_games: np.ndarray
    game_points: np.ndarray
    offers: np.ndarray
    takes: np.ndarray
    passes: np.ndarray
    paired: bool
    seed: int
    variant: str
    seconds: float
    names: tuple[str, str]

    @property
    def matches(self) -> int:
        return len(self.winner)

    @property
    def finished(self) -> int:
        return int((self.winner >= 0).sum())

    @property
    def wins_a(self) -> int:
        return int((self.winner == 0).sum())

    @property
    def wins_b(self) -> int:
        return int((self.winner == 1).sum())

    @property
    def win_rate_a(self) -> float:
        """A's share of the finished matches."""
        return self.wins_a / self.finished if self.finished else math.nan

    @property
    def win_rate_a_ci95(self) -> float:
        """95% half-width of A's match winning rate, from pair means when paired."""
        won = (self.winner == 0).astype(np.float64)
        return ci95(won.reshape(-1, 2).mean(axis=1) if self.paired else won)

    def to_dict(self) -> dict:
        score = self.score.astype(np.float64)
        return {
            "a": self.names[0], "b": self.names[1], "variant": self.variant,
            "match_to": self.length, "matches": self.matches, "paired": self.paired,
            "seed": self.seed, "wins_a": self.wins_a, "wins_b": self.wins_b,
            "unfinished": self.matches - self.finished,
            "match_win_rate_a": self.win_rate_a, "match_win_rate_a_ci95": self.win_rate_a_ci95,
            "points_per_match_a": float(score[:, 0].mean()),
            "points_per_match_b": float(score[:, 1].mean()),
            "games": int(self.games.sum()),
            "games_per_match": float(self.games.mean()),
            "crawford_games": int(self.crawford_games.sum()),
            "cube": {"offers_a": int(self.offers[0]), "offers_b": int(self.offers[1]),
                     "takes_a": int(self.takes[0]), "takes_b": int(self.takes[1]),
                     "passes_a": int(self.passes[0]), "passes_b": int(self.passes[1])},
            "seconds": self.seconds,
        }


def run_matches(bot_a: Bot | str, bot_b: Bot | str, matches: int, length: int,
                seed: int | None = None, variant: str = "standard", paired: bool = True,
                progress: bool = True, max_plies: int = 10_000, recorder=None) -> MatchSeries:
    """Play ``matches`` matches to ``length`` points of A against B (see the module's doc).

    Bots given by name are made with seeds drawn from ``seed`` (a new one, kept in the
    result, when None) and their ``auto`` cube strategy; instances are used as they are
    (without ``offer_double``/``respond`` they never double and always take).
    ``recorder`` (``engine.formats.record.PlayRecorder``), when given, is told every play
    and cube action, game ``r`` of match ``m`` as its game ``m * MAX_GAMES + r``, players
    A = 0 and B = 1; ``matches_of`` turns it into one .mat ``Match`` per match.
    """
    if matches < 1:
        raise ValueError(f"a series needs at least one match, got {matches}")
    if paired and matches % 2:
        raise ValueError(f"paired dice play each match's dice twice: matches must be even, "
                         f"got {matches}")
    if not 1 <= length <= MAX_LENGTH:
        raise ValueError(f"a match is played to 1..{MAX_LENGTH} points, got {length}")
    get_variant(variant)
    if seed is None:
        seed = new_seed()
    rng, seed_a, seed_b = match_seeds(seed)
    cube = CubeRules()
    a, b = _bot(bot_a, seed_a, variant, cube), _bot(bot_b, seed_b, variant, cube)
    state = Matches.start(matches, length)
    index = np.arange(matches)
    a_first = (index % 2 == 0) if paired else np.ones(matches, dtype=bool)
    dice_row = index // 2 if paired else index
    offers, takes, passes = (np.zeros(2, dtype=np.int64) for _ in range(3))
    start = time.perf_counter()
    # every game scores at least a point unless it hits the ply limit: 2 N - 1 games end
    # any match; the rest is room for unfinished games
    max_games = min(2 * length + 8, MAX_GAMES)
    game_points = np.zeros((matches, max_games), dtype=np.int32)
    with _progress_bar(matches, progress) as bar:
        done = 0
        for round_ in range(max_games):
            live = np.flatnonzero(~state.over)
            if len(live) == 0:
                break
            table = DiceTable(rng, (matches + 1) // 2 if paired else matches)
            for a_seat, policies in ((0, (a, b)), (1, (b, a))):
                rows = live[a_first[live] == (a_seat == 0)]
                if len(rows) == 0:
                    continue
                context = state.game_context(rows, a_seat)
                on_play = on_cube = None
                if recorder is not None:
                    on_play = _numbered(recorder, rows, round_, a_seat)
                    on_cube = _numbered(recorder.cube, rows, round_, a_seat)
                result = play(policies, len(rows), rng, variant, max_plies, dice=table,
                              dice_rows=dice_row[rows], cube=cube, match=context,
                              on_play=on_play, on_cube=on_cube)
                points_a = result.points if a_seat == 0 else -result.points
                game_points[rows, round_] = points_a
                state.record(rows, points_a)
                order = slice(None) if a_seat == 0 else slice(None, None, -1)
                offers += result.offers.sum(axis=0)[order]
                takes += (result.takes + result.beavers).sum(axis=0)[order]
                passes += result.passes.sum(axis=0)[order]
            now = int(state.over.sum())
            bar.update(now - done)
            done = now
    seconds = time.perf_counter() - start
    return MatchSeries(length, state.winner, state.score.copy(), state.games.copy(),
                       state.crawford_games.copy(), game_points, offers, takes, passes,
                       paired, seed, variant, seconds, (_label(bot_a), _label(bot_b)))


def _numbered(callback, rows: np.ndarray, round_: int, a_seat: int):
    """A recording callback for one batch of games: the loop's game i is game ``round_``
    of match ``rows[i]`` (number ``rows[i] * MAX_GAMES + round_``), its seats players A = 0
    and B = 1."""
    return lambda games, seats, *rest: callback(
        rows[np.asarray(games)] * MAX_GAMES + round_, np.asarray(seats) ^ a_seat, *rest)


def matches_of(recorder, series: MatchSeries, names: tuple[str, str] | None = None) -> list:
    """One ``engine.formats.matfile.Match`` per match of ``series`` from its ``recorder``:
    the match length, each game's actions, winner and points (the score lines and the
    Crawford game follow from them, as GNU Backgammon reads a .mat file)."""
    from gammon.engine.formats.matfile import Game, Match
    out = []
    for m in range(series.matches):
        games = []
        for r in range(int(series.games[m])):
            p = int(series.game_points[m, r])
            games.append(Game(list(recorder.actions.get(m * MAX_GAMES + r, [])),
                              None if p == 0 else (0 if p > 0 else 1), abs(p)))
        out.append(Match(names or series.names, series.length, games, series.variant))
    return out


def _progress_bar(matches: int, show: bool):
    """A tqdm bar over matches on stderr; silent unless asked for and stderr is a terminal."""
    from tqdm import tqdm
    return tqdm(total=matches, unit="match", disable=None if show else True, leave=False,
                dynamic_ncols=True)


__all__ = ["MatchSeries", "run_matches", "matches_of", "MAX_LENGTH"]
