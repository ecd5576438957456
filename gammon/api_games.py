"""The public API's runners of bot against bot: ``play_games`` (money games, points per
game) and ``play_matches`` (matches to N points, the share of matches won).

Both play through the one paired-dice runner of ``gammon match``
(``gammon.eval.playing.match.run_match``, ``gammon.eval.playing.matchplay.run_matches``)
with the bots and seeds that command makes, so ``play_games("pubeval", "random",
games=1000, seed=1)`` plays the very games of ``gammon match pubeval random --games 1000
--seed 1``. Paired dice: each dice sequence is played twice with the seats swapped, and the
95% interval is taken over the pairs. Every statistic is from A's side.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gammon.eval.bots.registry import draws_numbers

from .api_analysis import BotLike
from .api_checks import count, rules_of, seed as checked_seed
from .errors import UsageError
from .options import load_bot

MAX_GAMES = 100_000_000  # as gammon match
MAX_MATCHES = 10_000_000


def _name(player: BotLike) -> str:
    return player if isinstance(player, str) else getattr(player, "name", type(player).__name__)


def _players(a: BotLike, b: BotLike, seed: int, variant: str, rules) -> tuple:
    """The two bots as ``gammon match`` hands them to the runner: made from their names
    with the match's bot seeds (a bot that draws numbers passed by its name, to be made
    again for each chunk of games), objects as they are."""
    from gammon.eval.playing.match import match_seeds
    _, seed_a, seed_b = match_seeds(seed)
    out = []
    for player, bot_seed in ((a, seed_a), (b, seed_b)):
        if not isinstance(player, str):
            out.append(player)
            continue
        made = load_bot(player, bot_seed, variant, rules)  # a one-line error for a bad name
        out.append(player if draws_numbers(player) else made)
    return tuple(out)


def _even(n: int, what: str, paired: bool) -> None:
    if paired and n % 2:
        raise UsageError(f"{what} must be even with paired dice (each dice sequence is played "
                         f"twice, the seats swapped), or pass paired=False; got {n}")


@dataclass(frozen=True)
class GamesResult:
    """Money games of A against B, from A's side: ``games`` played, A's ``wins``, ``ppg``
    (points per game: +1/+2/+3 for a single game, gammon, backgammon won, times the cube)
    and ``ppg_ci95``, the half-width of its 95% interval (NaN with
    fewer than two pairs); ``seed`` replays them;
    ``details`` holds every statistic of ``gammon match --json`` (gammons, cube actions,
    plies, speed)."""

    a: str
    b: str
    games: int
    wins: int
    ppg: float
    ppg_ci95: float
    seed: int
    paired: bool
    details: dict[str, Any]

    @property
    def win_rate(self) -> float:
        """A's share of the games won."""
        return self.wins / self.games

    @property
    def interval(self) -> tuple[float, float]:
        """A's points per game, 95% interval (low, high)."""
        return (self.ppg - self.ppg_ci95, self.ppg + self.ppg_ci95)


def play_games(a: BotLike, b: BotLike, games: int = 1000, *, seed: int | None = None,
               variant: str = "standard", cube: bool = False,
               paired: bool = True) -> GamesResult:
    """Play ``games`` money games of bot A against bot B (``gammon match A B``): cubeless,
    or with the doubling cube (``cube``: no Jacoby rule, no beavers; a bot by name doubles
    with its ``auto`` strategy, a bot object without cube methods never doubles and always
    takes). ``seed`` None draws a fresh one (kept in the result). ``games`` must be even
    with paired dice."""
    from gammon.engine.cube import CubeRules
    from gammon.eval.playing.match import new_seed, run_match
    games = count(games, "games", 1, MAX_GAMES)
    _even(games, "games", paired)
    rules = rules_of(variant)
    seed = checked_seed(seed)
    seed = new_seed() if seed is None else seed
    cube_rules = CubeRules() if cube else None
    bot_a, bot_b = _players(a, b, seed, rules.name, cube_rules)
    result = run_match(bot_a, bot_b, games, seed, rules.name, bool(paired), progress=False,
                       cube=cube_rules)
    result.names = (_name(a), _name(b))
    return GamesResult(_name(a), _name(b), result.games, result.wins_a, result.ppg_a,
                       result.ppg_a_ci95, seed, bool(paired), result.to_dict())


@dataclass(frozen=True)
class MatchesResult:
    """Matches to ``length`` points of A against B, from A's side: ``matches`` played, A's
    ``wins``, ``win_rate`` (A's share of the matches finished) and ``win_rate_ci95``, the
    half-width of its 95% interval (NaN with fewer than two pairs); ``seed`` replays them;
    ``details`` holds every statistic of ``gammon match --match-to N --json``."""

    a: str
    b: str
    length: int
    matches: int
    wins: int
    win_rate: float
    win_rate_ci95: float
    seed: int
    paired: bool
    details: dict[str, Any]

    @property
    def interval(self) -> tuple[float, float]:
        """A's match winning rate, 95% interval (low, high)."""
        return (self.win_rate - self.win_rate_ci95, self.win_rate + self.win_rate_ci95)


def play_matches(a: BotLike, b: BotLike, length: int = 7, matches: int = 100, *,
                 seed: int | None = None, variant: str = "standard",
                 paired: bool = True) -> MatchesResult:
    """Play ``matches`` matches to ``length`` points of bot A against bot B (``gammon match
    A B --match-to N``): the cube always on, the Crawford rule, the bots deciding at the
    score. ``seed`` None draws a fresh one. ``matches`` must be even with paired dice."""
    from gammon.engine.cube import CubeRules
    from gammon.eval.playing.match import new_seed
    from gammon.eval.playing.matchplay import MAX_LENGTH, run_matches
    length = count(length, "length (points)", 1, MAX_LENGTH)
    matches = count(matches, "matches", 1, MAX_MATCHES)
    _even(matches, "matches", paired)
    rules = rules_of(variant)
    seed = checked_seed(seed)
    seed = new_seed() if seed is None else seed
    bot_a, bot_b = _players(a, b, seed, rules.name, CubeRules())
    result = run_matches(bot_a, bot_b, matches, length, seed, rules.name, bool(paired),
                         progress=False)
    result.names = (_name(a), _name(b))
    return MatchesResult(_name(a), _name(b), length, result.matches, result.wins_a,
                         result.win_rate_a, result.win_rate_a_ci95, seed, bool(paired),
                         result.to_dict())


__all__ = ["GamesResult", "MatchesResult", "play_games", "play_matches"]
