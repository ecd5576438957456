"""Rollouts: the value of positions before the roll as the mean result of playing them out
many times with a bot, every trial of every position in lock-step through the one game
loop (``engine.game``: ``cube_decisions``, ``play_turn``, ``end_turn``, the bomb's
``bomb_decisions``), so every variant rolls out by its own rules.

    results = rollout(bot, boards (P, 26), Settings(trials=1296, seed=1))

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
about 4 times smaller a standard error than none (``CUBEFUL_LUCK``); at a match score the
cubeful MWC has none. Where the bot is a 0-ply net choosing by cubeless equity, its play of
the roll rolled is the best play the luck was computed with (``SHORTCUT``; the same trials
as asking the bot, tested), so variance reduction costs the 21 rolls' plays and no more.

Speed: the trials of all positions share one batch (up to ``CAPACITY`` in flight, a
finished trial's slot refilled at once), the net is asked ``PLAY_CHUNK`` games at a time,
torch runs on one thread per process (``one_thread``) and more cores come as Ray workers.

Statistics: each trial gives one value of each quantity; the mean over the trials, its
sample standard error (``std(ddof=1) / sqrt(trials)``) and the 95% interval mean +- 1.96 SE.
Stratified dice make that SE conservative (the trials are less alike than independent ones).
With ``until_se`` a position stops after the first multiple of ``SE_CHECK`` trials whose
equity's SE is below it (the cubeful equity in a cubeful rollout).

The results of trials that share a dice stream (the same key, e.g. the candidate plays of
one roll) are paired trial by trial: ``paired_difference`` gives a difference of two with
its own interval.
"""

from __future__ import annotations

import math
import sys
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field

import numpy as np

from engine.bearoff import exact_races, settled
from engine.cube import Cube, CubeRules
from engine.game import GameState, bomb_decisions, cube_decisions, end_turn, play_turn
from engine.cube_policy import CubeBot, tell_score
from engine.match import MatchContext, MatchScore
from engine.movegen import legal_plays
from engine.outcomes import FIVE, OUTCOME_POINTS, certain, equity, to_five
from engine.phase import is_race
from engine.policy import best_per_root
from engine.rules import variant as get_variant
from eval.bots.cube import probability_source
from model.cube import EFFICIENCY, cubeful_equity

from .heap import kept_heap
from .rollout_dice import TrialDice, roll_index
from .rollout_vr import as_evaluator, distinct_rows, folded, luck, roll_values

MAX_TRIALS = 1_000_000  # trials per position at most
DEFAULT_TRIALS = 1296  # 36 x 36: every pair of first two rolls once
SE_CHECK = 144  # with until_se, the standard error is looked at every this many trials
MAX_PLIES = 10_000  # a trial longer than this is valued by the net, as if truncated there
CAPACITY = 4096  # trials in flight at once (finished ones are replaced at once)
PLAY_CHUNK = 1024  # games per call of play_turn: the net is quickest on batches of this size
Z95 = 1.959963984540054
SHORTCUT = True  # a 0-ply net's play is read off the variance reduction's best plays
CUBEFUL_LUCK = True  # a cubeful money result loses the cubeless luck times the cube


class RolloutError(ValueError):
    """Settings or positions a rollout cannot take; the message says why."""


@dataclass(frozen=True)
class Settings:
    """How to roll out (every option with its default; ``check`` says what is wrong).

    trials          trials per position, 1 .. MAX_TRIALS (the most, with ``until_se``)
    seed            the seed of every roll (a rerun with the same seed is bit-identical)
    truncate        stop each trial after this many plies and take the net's value of the
                    position reached (0: of the position itself); None: play to the end
    vr              variance reduction (the luck of each roll taken out)
    quasi           quasi-random dice: the first two rolls of the trials stratified
    bearoff         stop once both sides are in the bear-off database (None: where the
                    variant has it, i.e. on; it does nothing in Nuclear and Plakoto)
    cubeful         the cube as the bot plays it (cube heads: doubles, takes, passes)
    efficiency, jacoby, beavers   the cube model and the money rules of a cubeful rollout
    double_at_start the player on roll may double before his first roll (False: the
                    rollout of "no double now")
    until_se        stop a position early once its equity's standard error is below this
    variant         the rules
    """

    trials: int = DEFAULT_TRIALS
    seed: int = 0
    truncate: int | None = None
    vr: bool = True
    quasi: bool = True
    bearoff: bool | None = None
    cubeful: bool = False
    efficiency: float = EFFICIENCY
    jacoby: bool = False
    beavers: bool = False
    double_at_start: bool = True
    until_se: float | None = None
    variant: str = "standard"

    def check(self) -> None:
        """RolloutError naming the first setting out of range."""
        if isinstance(self.trials, bool) or not isinstance(self.trials, (int, np.integer)) \
                or not 1 <= self.trials <= MAX_TRIALS:
            raise RolloutError(f"trials are 1 to {MAX_TRIALS:,} per position, got "
                               f"{self.trials!r}")
        if not isinstance(self.seed, (int, np.integer)) or not 0 <= self.seed < 2 ** 63:
            raise RolloutError(f"a seed is a whole number from 0 to 2**63-1, got {self.seed!r}")
        if self.truncate is not None and (isinstance(self.truncate, bool) or not isinstance(
                self.truncate, (int, np.integer)) or not 0 <= self.truncate <= MAX_PLIES):
            raise RolloutError(f"truncation is after 0 to {MAX_PLIES:,} plies, got "
                               f"{self.truncate!r}")
        if self.until_se is not None and not (isinstance(self.until_se, (int, float))
                                              and math.isfinite(self.until_se)
                                              and self.until_se > 0):
            raise RolloutError(f"the standard error to stop at is a number above 0, got "
                               f"{self.until_se!r}")
        if not 0 <= self.efficiency <= 1:
            raise RolloutError(f"cube efficiency is between 0 and 1, got {self.efficiency!r}")
        get_variant(self.variant)

    @property
    def rules(self):
        return get_variant(self.variant)

    @property
    def stops_in_bearoff(self) -> bool:
        """Whether trials stop once both sides are in the bear-off database."""
        return (True if self.bearoff is None else bool(self.bearoff)) \
            and self.rules.bearoff_races

    def vr_words(self, match: bool = False) -> str:
        """What the variance reduction applies to, in words (for --help and the output)."""
        if not self.vr:
            return "off"
        if not self.cubeful:
            return "on (lookahead, 0-ply)"
        if match:
            return "on for the cubeless results; none for the cubeful match winning chance"
        return "on (cubeless luck; the cubeful result less the same luck times the cube)"

    def to_dict(self, match: bool = False) -> dict:
        """The settings as JSON values, the effective bear-off stop included."""
        out = asdict(self)
        out["bearoff"] = self.stops_in_bearoff
        out["variance_reduction"] = self.vr_words(match)
        if not self.cubeful:
            for key in ("efficiency", "jacoby", "beavers", "double_at_start"):
                out.pop(key)
        return out


@dataclass
class Result:
    """One position's rollout: per trial values (each (trials, ...) float64, in trial order)
    and their statistics, all for the player on roll at the start.

    outcomes  (T, 6)  the six exclusive outcomes (variance reduction applied: a trial's
                      values may lie outside [0, 1]; their means are the estimates)
    cubeful   (T,)    cubeful rollouts: money equity per unit of the position's cube, or
                      at a match score the match winning chance; else None
    mwc       (T,)    at a match score: the cubeless match winning chance of each trial's
                      outcomes at the position's cube (money: None)
    plies     (T,)    plies played in each trial
    """

    outcomes: np.ndarray
    cubeful: np.ndarray | None
    mwc: np.ndarray | None
    plies: np.ndarray
    settings: Settings
    match: bool = False
    seconds: float = math.nan
    extra: dict = field(default_factory=dict)

    @property
    def trials(self) -> int:
        return len(self.outcomes)

    @property
    def five(self) -> np.ndarray:
        """(T, 5): gnubg's five per trial (win, win gammon, win backgammon, lose gammon,
        lose backgammon; gammons include backgammons)."""
        return to_five(self.outcomes)

    @property
    def equities(self) -> np.ndarray:
        """(T,): cubeless money equity per trial."""
        return self.outcomes @ OUTCOME_POINTS

    @property
    def probabilities(self) -> np.ndarray:
        return self.five.mean(axis=0)

    @property
    def probabilities_se(self) -> np.ndarray:
        return np.array([standard_error(c) for c in self.five.T])

    @property
    def equity(self) -> float:
        return float(self.equities.mean())

    @property
    def equity_se(self) -> float:
        return standard_error(self.equities)

    @property
    def cubeful_equity(self) -> float | None:
        return None if self.cubeful is None else float(self.cubeful.mean())

    @property
    def cubeful_se(self) -> float | None:
        return None if self.cubeful is None else standard_error(self.cubeful)

    def main(self) -> np.ndarray:
        """The per-trial values of the headline equity: cubeful when rolled out cubeful,
        else the cubeless money equity (what ``until_se`` watches)."""
        return self.cubeful if self.cubeful is not None else self.equities

    def to_dict(self) -> dict:
        """Every estimate with its standard error and 95% interval, as JSON values."""
        p, se = self.probabilities, self.probabilities_se
        out = {"probabilities": {k: float(v) for k, v in zip(FIVE, p)},
               "equity": self.equity,
               "stderr": {**{k: _json(v) for k, v in zip(FIVE, se)},
                          "equity": _json(self.equity_se)},
               "ci95": {**{k: interval(v, s) for k, v, s in zip(FIVE, p, se)},
                        "equity": interval(self.equity, self.equity_se)}}
        if self.cubeful is not None:
            key = "cubeful_mwc" if self.match else "cubeful_equity"
            out[key] = self.cubeful_equity
            out["stderr"][key] = _json(self.cubeful_se)
            out["ci95"][key] = interval(self.cubeful_equity, self.cubeful_se)
        if self.mwc is not None:
            m, s = float(self.mwc.mean()), standard_error(self.mwc)
            out["cubeless_mwc"] = m
            out["stderr"]["cubeless_mwc"] = _json(s)
            out["ci95"]["cubeless_mwc"] = interval(m, s)
        out["trials"] = self.trials
        out["mean_plies"] = float(self.plies.mean())
        out["settings"] = self.settings.to_dict(self.match)
        out.update(self.extra)
        return out


def standard_error(values: np.ndarray) -> float:
    """The sample standard error of the mean of per-trial values (NaN for one trial)."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) < 2:
        return math.nan
    return float(values.std(ddof=1) / math.sqrt(len(values)))


def interval(mean: float, se: float) -> list | None:
    """The 95% interval [mean - 1.96 SE, mean + 1.96 SE] (None without an SE)."""
    if se is None or not math.isfinite(se):
        return None
    return [float(mean - Z95 * se), float(mean + Z95 * se)]


def _json(x):
    return None if x is None or not math.isfinite(x) else float(x)


def paired_difference(a: Result, b: Result, which: str = "equity") -> tuple[float, float]:
    """Mean and standard error of ``a`` minus ``b`` trial by trial, for two rollouts on the
    same dice (the same seed, key and trials): ``which`` is "equity" (cubeless) or
    "cubeful". The pairing takes the dice's luck out of the difference."""
    if a.trials != b.trials:
        raise ValueError(f"paired rollouts need the same trials, got {a.trials} and {b.trials}")
    pick = (lambda r: r.equities) if which == "equity" else (lambda r: r.cubeful)
    d = pick(a) - pick(b)
    return float(d.mean()), standard_error(d)


# --- the positions and the game loop --------------------------------------------------------

@dataclass
class Roots:
    """The positions rolled out, one row each, from the player on roll's side."""

    boards: np.ndarray  # (P, 26) int8
    keys: np.ndarray  # (P,) int64 dice streams
    bomb: np.ndarray  # (P,) int8 Nuclear's bomb relative to the player on roll
    cube: np.ndarray  # (P,) int32 the cube's value
    owner: np.ndarray  # (P,) int8 the cube's owner relative to him (+1, 0, -1)
    length: np.ndarray  # (P,) int64 match length, 0 money
    away: np.ndarray  # (P, 2) int64 points he and his opponent need (match)
    crawford: np.ndarray  # (P,) bool

    @property
    def match(self) -> bool:
        return bool((self.length > 0).any())

    def rows(self, rows) -> "Roots":
        return Roots(*(getattr(self, f)[rows] for f in
                       ("boards", "keys", "bomb", "cube", "owner", "length", "away",
                        "crawford")))

    def score(self, rows, cube=None, owner=None) -> MatchScore:
        """model.match_cube's score of the positions ``rows`` from the root player's side
        (the cube as given, else the position's)."""
        return MatchScore(self.away[rows, 0], self.away[rows, 1], self.length[rows],
                          self.crawford[rows], self.cube[rows] if cube is None else cube,
                          self.owner[rows] if owner is None else owner)


def make_roots(boards, states=None, keys=None, bombs=None, rules=None) -> Roots:
    """The positions of a rollout: boards (P, 26) from the player on roll; ``states`` an
    ``engine.formats.matchid.MatchState`` for all, one per position, or None (money play,
    centred 1-cube); ``keys`` (P,) their dice streams (default: one each, 0..P-1);
    ``bombs`` (P,) Nuclear's bomb relative to the player on roll (default centred)."""
    boards = np.asarray(boards, dtype=np.int8).reshape(-1, 26)
    n = len(boards)
    if states is None or not isinstance(states, (list, tuple)):
        states = [states] * n
    if len(states) != n:
        raise RolloutError(f"{len(states)} states for {n} positions")
    keys = np.arange(n, dtype=np.int64) if keys is None else np.asarray(keys, dtype=np.int64)
    if keys.shape != (n,) or (keys < 0).any():
        raise RolloutError("one dice stream (a whole number >= 0) per position")
    bomb = np.zeros(n, dtype=np.int8) if bombs is None else np.asarray(bombs, dtype=np.int8)
    cube = np.ones(n, dtype=np.int32)
    owner = np.zeros(n, dtype=np.int8)
    length = np.zeros(n, dtype=np.int64)
    away = np.zeros((n, 2), dtype=np.int64)
    crawford = np.zeros(n, dtype=bool)
    for i, state in enumerate(states):
        if state is None:
            continue
        s = MatchScore.from_match_state(state)
        cube[i], owner[i] = int(s.cube), int(s.owner)
        if state.length:
            length[i], away[i], crawford[i] = s.length, (s.away, s.opp_away), bool(s.crawford)
    return Roots(boards, keys, bomb, cube, owner, length, away, crawford)


def check_positions(roots: Roots, rules) -> None:
    """RolloutError for a position whose game is over (a side with no checker in play)."""
    mover, opponent = rules.in_play(roots.boards)
    over = np.flatnonzero((mover == 0) | (opponent == 0))
    if len(over):
        raise RolloutError(f"the game is over in position {int(over[0]) + 1}: nothing to "
                           f"roll out")
    if roots.match and not (roots.length > 0).all():
        raise RolloutError("money positions and match positions are rolled out apart")


def cube_player(bot, settings: Settings):
    """The bot a rollout plays: with its cube heads (``eval.bots.cube``, ``auto``) in a
    cubeful rollout, as it is otherwise."""
    if not settings.cubeful:
        return bot
    from eval.bots.cube import with_cube
    player = with_cube(bot, "auto", CubeRules(settings.jacoby, settings.beavers),
                       settings.efficiency)
    player.name = getattr(bot, "name", "bot")
    return player


def plays_like_lookahead(player, evaluator) -> bool:
    """Whether the player's play of a roll is exactly the variance reduction's best play:
    a 0-ply net valuing plays by cubeless equity with this evaluator."""
    inner = player.bot if isinstance(player, CubeBot) else player
    policy = sys.modules.get("model.policy")
    return (SHORTCUT and policy is not None and type(inner) is policy.NetPolicy
            and inner.plies == 0 and inner.evaluator is evaluator
            and getattr(inner, "score", None) is None)


class Trials:
    """Trials of positions in lock-step: ``run(pos, trial)`` plays the trials (P_j, T_j)
    and returns each one's values, in the order asked, whatever the order they ran in.

    Up to ``capacity`` trials are in flight; a finished trial's slot takes the next one at
    once. ``evaluator`` (None for a bot without probabilities) values truncations, passes,
    the plies' luck and the cubeful end of a truncated trial."""

    def __init__(self, player, evaluator, roots: Roots, settings: Settings,
                 capacity: int | None = None, progress=None):
        self.player, self.roots, self.settings = player, roots, settings
        self.rules = settings.rules
        self.evaluator = None if evaluator is None else as_evaluator(evaluator, self.rules)
        self.capacity = CAPACITY if capacity is None else capacity
        self.progress = progress
        self.match = roots.match
        self.cubeful = settings.cubeful
        self.cube_rules = (CubeRules() if self.match
                           else CubeRules(settings.jacoby, settings.beavers))
        self.bomb = "bomb" in self.rules.extra_state
        self.bearoff = settings.stops_in_bearoff
        self.dice = TrialDice(settings.seed, settings.quasi)
        zero_ply = not self.match and plays_like_lookahead(player, self.evaluator)
        self.shortcut = settings.vr and zero_ply
        # without variance reduction the loop plays a 0-ply net's rolls itself
        # (``_best_plays``), where no variant state (the bomb) goes with the board
        self.plays_itself = zero_ply and not self.rules.extra_state
        if self.match:
            from model.match_cube import met_for
            self.met = met_for(MatchScore(length=int(roots.length.max())))
            # M after the game for each of the six outcomes at the position's cube
            self.m6 = np.stack([self._mwc_after(np.arange(len(roots.boards)),
                                                np.full(len(roots.boards), k),
                                                roots.cube) for k in range(6)], axis=1)

    # the values of finished trials, for the root player --------------------------------------

    def _mwc_after(self, pos, outcome, value) -> np.ndarray:
        """The root player's MWC after a game whose result is ``outcome`` (0..5, the six
        from his side) at cube ``value``: (n,)."""
        from model.match_cube import match_winning_chances
        p6 = np.zeros((len(pos), 6))
        p6[np.arange(len(pos)), outcome] = 1.0
        return match_winning_chances(p6, self.roots.score(pos, np.asarray(value), 0), self.met)

    def _probs(self, slots) -> np.ndarray:
        """The six outcomes (n, 6) of the positions in the slots, for the player on roll:
        the net's (the bear-off database's where it settles them), else the database's."""
        boards = self.state.boards[slots]
        if self.evaluator is not None:
            bomb = self.state.extra["bomb"][slots] if self.bomb else None
            return np.asarray(self.evaluator(folded(self.evaluator, boards, bomb)),
                              dtype=np.float64)
        out = np.zeros((len(slots), 6))
        out[:, 2] = out[:, 3] = 0.5  # a bot without probabilities: only the cap's even game
        rows, exact = exact_races(boards, self.rules)
        out[rows] = exact
        return out

    def _root(self, six: np.ndarray, slots) -> np.ndarray:
        """Six outcomes for the player on roll in the slots -> for the root player."""
        return np.where((self.state.seat[slots] == 0)[:, None], six, six[:, ::-1])

    def _finish(self, slots, six_root, cubeful=None) -> None:
        job = self.job[slots]
        self.out6[job] = six_root + self.est6[slots]
        if self.cubeful:
            self.out_cf[job] = cubeful + self.est_cf[slots]
        self.out_plies[job] = self.ply[slots]
        self.active[slots] = False
        self.finished += len(slots)

    def _finish_stopped(self, slots) -> None:
        """Trials stopped before the roll (truncation, the bear-off database, the ply cap)."""
        probs = self._probs(slots)
        cubeful = None
        if self.cubeful:
            st, pos = self.state, self.pos[slots]
            value, owner = st.cube.value[slots], st.cube.owner[slots]
            if self.match:
                from model.match_cube import match_cube_equities
                score = self.roots.score(pos, value, owner)
                seat = st.seat[slots]
                # the score from the player on roll's side: the root's, or its mirror
                mine = MatchScore(np.where(seat == 0, score.away, score.opp_away),
                                  np.where(seat == 0, score.opp_away, score.away),
                                  score.length, score.crawford, value, owner)
                nd = np.asarray(match_cube_equities(probs, mine, self.met,
                                                    self.settings.efficiency).no_double)
                cubeful = np.where(seat == 0, nd, 1.0 - nd)
            else:
                eq = cubeful_equity(probs, owner, self.settings.efficiency,
                                    self.settings.jacoby) * value / self.roots.cube[pos]
                cubeful = np.where(st.seat[slots] == 0, eq, -eq)
        self._finish(slots, self._root(probs, slots), cubeful)

    def _finish_passed(self, slots) -> None:
        """Trials ended by a passed double: the pass's points; the cubeless outcomes from
        the net's probabilities of the position (the doubler on roll)."""
        st, pos = self.state, self.pos[slots]
        if self.match:
            won = np.where(st.points[slots] > 0, 2, 3)  # single win or loss, root's side
            cubeful = self._mwc_after(pos, won, st.cube.value[slots])
        else:
            cubeful = st.points[slots] / self.roots.cube[pos]
        self._finish(slots, self._root(self._probs(slots), slots), cubeful)

    def _finish_games(self, slots, won) -> None:
        """Trials whose game the last play ended: ``won`` (n,) the rules' points of the
        player who moved (the seats have already changed)."""
        st, pos = self.state, self.pos[slots]
        mover_six = certain(won)
        root = np.where((st.seat[slots] == 1)[:, None], mover_six, mover_six[:, ::-1])
        cubeful = None
        if self.cubeful:
            if self.match:
                outcome = np.argmax(root, axis=1)
                cubeful = self._mwc_after(pos, outcome, st.cube.value[slots])
            else:
                cubeful = st.points[slots] / self.roots.cube[pos]
        self._finish(slots, root.astype(np.float64), cubeful)

    # the loop ----------------------------------------------------------------------------

    def run(self, pos: np.ndarray, trial: np.ndarray) -> dict[str, np.ndarray]:
        """Play the trials ``trial`` (J,) of the positions ``pos`` (J,): their values in
        that order: "outcomes" (J, 6), "cubeful" (J,) or None, "mwc" (J,) or None,
        "plies" (J,). The nets' outputs do not depend on how the trials are batched
        (``model.rows.batch_independent``)."""
        from model.rows import batch_independent
        with batch_independent():
            return self._run(pos, trial)

    def _run(self, pos: np.ndarray, trial: np.ndarray) -> dict[str, np.ndarray]:
        pos, trial = np.asarray(pos, dtype=np.int64), np.asarray(trial, dtype=np.int64)
        jobs = len(pos)
        self.jobs_pos, self.jobs_trial = pos, trial
        self.out6 = np.zeros((jobs, 6))
        self.out_cf = np.zeros(jobs) if self.cubeful else None
        self.out_plies = np.zeros(jobs, dtype=np.int32)
        s = min(self.capacity, max(jobs, 1))
        self.state = GameState(np.zeros((s, 26), dtype=np.int8), np.zeros(s, dtype=np.int8),
                               Cube.centred(s) if (self.cubeful or self.match) else None,
                               {name: np.zeros(s, dtype=np.int8)
                                for name in self.rules.extra_state})
        self.context = (MatchContext(np.zeros(s, dtype=np.int64),
                                     np.zeros((s, 2), dtype=np.int64), np.zeros(s, dtype=bool))
                        if self.match else None)
        self.active = np.zeros(s, dtype=bool)
        self.job = np.zeros(s, dtype=np.int64)
        self.pos = np.zeros(s, dtype=np.int64)
        self.trial = np.zeros(s, dtype=np.int64)
        self.ply = np.zeros(s, dtype=np.int64)
        self.est6 = np.zeros((s, 6))
        self.est_cf = np.zeros(s)
        self.next = 0
        self.finished = 0
        reported = 0
        try:
            with one_thread(), kept_heap():
                while True:
                    self._refill()
                    if not self.active.any():
                        break
                    self._turn()
                    if self.progress is not None and self.finished > reported:
                        self.progress(self.finished - reported)
                        reported = self.finished
        finally:
            if self.match:
                tell_score(self.player, None)
        mwc = (self.out6 * self.m6[pos]).sum(axis=1) if self.match else None
        return {"outcomes": self.out6, "cubeful": self.out_cf, "mwc": mwc,
                "plies": self.out_plies}

    def _refill(self) -> None:
        free = np.flatnonzero(~self.active)
        take = min(len(free), len(self.jobs_pos) - self.next)
        if take <= 0:
            return
        slots = free[:take]
        job = np.arange(self.next, self.next + take)
        self.next += take
        p = self.jobs_pos[job]
        r, st = self.roots, self.state
        self.job[slots], self.pos[slots], self.trial[slots] = job, p, self.jobs_trial[job]
        self.ply[slots] = 0
        self.est6[slots] = 0.0
        self.est_cf[slots] = 0.0
        st.boards[slots] = r.boards[p]
        st.seat[slots] = 0
        st.points[slots] = 0
        st.plies[slots] = 1  # not an opening: the player on roll may detonate at once
        if st.cube is not None:
            st.cube.value[slots], st.cube.owner[slots] = r.cube[p], r.owner[p]
        if self.bomb:
            st.extra["bomb"][slots] = r.bomb[p]
        if self.context is not None:
            self.context.length[slots] = r.length[p]
            self.context.score[slots] = r.length[p, None] - r.away[p]
            self.context.crawford[slots] = r.crawford[p]
        self.active[slots] = True

    def _turn(self) -> None:
        """One turn of every trial in flight: the bomb, the cube, the stops, the roll, its
        luck, the play and the end of the games."""
        st, settings = self.state, self.settings
        policies = (self.player, self.player)
        act = np.flatnonzero(self.active)
        k = self.ply[act]
        cut = k >= MAX_PLIES
        if settings.truncate is not None:
            cut |= k >= settings.truncate
        if self.bomb:  # first the bomb, then the cube (engine.game's order)
            go = act[~cut]
            if len(go):
                bomb_decisions(policies, st, go)
        if self.cubeful:
            may = act if settings.double_at_start else act[k > 0]
            if len(may):
                over = cube_decisions(policies, st, may, self.cube_rules, match=self.context)
                if over.any():
                    self._finish_passed(may[over])
            keep = self.active[act]
            act, cut = act[keep], cut[keep]
        stop = cut
        if self.bearoff and len(act):
            stop = stop | settled(st.boards[act], self.rules)
        if stop.any():
            self._finish_stopped(act[stop])
            act = act[~stop]
        if len(act) == 0:
            return
        roll = self.dice.rolls(self.roots.keys[self.pos[act]], self.trial[act], self.ply[act])
        boards = st.boards[act]
        after = None
        if settings.vr:
            bomb = st.extra["bomb"][act] if self.bomb else None
            values, best = roll_values(self.evaluator, boards, bomb)
            rolled = roll_index(roll)
            lk = self._root(luck(values, rolled), act)
            self.est6[act] -= lk
            if self.cubeful and not self.match and CUBEFUL_LUCK:
                scale = st.cube.value[act] / self.roots.cube[self.pos[act]]
                self.est_cf[act] -= scale * (lk @ OUTCOME_POINTS)
            if self.shortcut:
                after = best[np.arange(len(act)), rolled]
        if after is None:
            after = self._play(act, boards, roll)
        won = end_turn(st, act, after, self.rules, self.cube_rules)
        self.ply[act] += 1
        ended = won != 0
        if ended.any():
            self._finish_games(act[ended], won[ended])

    def _play(self, act, boards, roll) -> np.ndarray:
        """The bot's plays of the rolls, at most PLAY_CHUNK games at a time, in chunks of
        even size (afterstates, not flipped)."""
        if self.plays_itself:
            return self._best_plays(boards, roll)
        st = self.state
        after = np.empty((len(act), 26), dtype=np.int8)
        policies = (self.player, self.player)
        size = -(-len(act) // -(-len(act) // PLAY_CHUNK))  # even chunks, none above PLAY_CHUNK
        for start in range(0, len(act), size):
            part = slice(start, start + size)
            rows = act[part]
            extra = ({name: v[rows] for name, v in st.extra.items()}
                     if self.rules.extra_state else None)
            score = (self.context.view(rows, st.seat[rows], st.cube.value[rows],
                                       st.cube.owner[rows]) if self.match else None)
            after[part] = play_turn(policies, boards[part], st.seat[rows], roll[part],
                                    self.rules, extra, score)
        return after


    def _best_plays(self, boards, roll) -> np.ndarray:
        """A 0-ply net's plays of the rolls (``plays_like_lookahead``), as the bot chooses
        them (the legal play of the highest cubeless equity, the first on a tie), with
        nothing worked out twice: each distinct (board, roll) of the trials is played once
        (the trials of a position share their first rolls, and races meet again), and each
        distinct afterstate of a race's plays is valued once (``_values_once``). A board's
        plays come in an order of its own (``engine.movegen``) and the net's values do not
        depend on the batch (``model.rows.batch_independent``), so the afterstates are the
        bot's.
        boards (n, 26), roll (n, 2) -> afterstates (n, 26), not flipped."""
        first, inverse = distinct_rows(np.concatenate([boards, roll.astype(np.int8)], axis=1))
        games, dice = boards[first], roll[first]  # (u, 26), (u, 2)
        parts, roots = [], []
        for start in range(0, len(games), PLAY_CHUNK):
            plays = legal_plays(games[start:start + PLAY_CHUNK], dice[start:start + PLAY_CHUNK],
                                self.rules)
            parts.append(plays.boards)
            roots.append(plays.root + start)
        after = np.concatenate(parts)  # (K, 26) every play of every distinct game
        root = np.concatenate(roots)
        # a game with one legal play (none: the board as it is) plays it unvalued
        counts = np.bincount(root, minlength=len(games))  # (u,) plays per game, >= 1
        chosen = np.cumsum(counts) - counts  # (u,) each game's first play
        choice = np.flatnonzero(counts > 1)
        if len(choice):
            rows = np.flatnonzero(counts[root] > 1)  # the plays of those games
            index = np.cumsum(counts > 1) - 1  # a game's place among them
            values = equity(self._values_once(after[rows], is_race(games)[root[rows]]))
            chosen[choice] = rows[best_per_root(values, index[root[rows]], len(choice))]
        return after[chosen][inverse]

    def _values_once(self, after: np.ndarray, race: np.ndarray) -> np.ndarray:
        """The evaluator's probabilities (K, 6) of afterstates (K, 26) for their mover, in
        one call, each distinct afterstate of a race (``race`` (K,): its game is one) valued
        once: the plays of races often meet (41% of them in a race position's trials), those
        of contact positions almost never (0.5% of them in 64 positions'), so only the races'
        are sorted out."""
        contact = np.flatnonzero(~race)
        racing = np.flatnonzero(race)
        first, inverse = distinct_rows(after[racing])
        probs = self.evaluator.after_play(np.concatenate([after[contact], after[racing[first]]]))
        out = np.empty((len(after), 6), dtype=probs.dtype)
        out[contact] = probs[:len(contact)]
        out[racing] = probs[len(contact):][inverse]
        return out


@contextmanager
def one_thread():
    """Torch and NumPy's BLAS (``eval.analysis.blas``) on one thread while trials run
    (restored after): the batches are small, and a second thread waiting on a busy core
    costs many times what it gains. A rollout uses more cores as more processes
    (``eval.analysis.rollout_actors``)."""
    from .blas import blas_threads
    torch = sys.modules.get("torch")
    with blas_threads(1):
        if torch is None:
            yield
            return
        before = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            yield
        finally:
            torch.set_num_threads(before)


# --- the front door -------------------------------------------------------------------------

def local_runner(player, evaluator, roots: Roots, settings: Settings, progress=None,
                 capacity: int | None = None):
    """The runner of one process: ``run(pos, trial) -> values`` (``Trials.run``)."""
    def run(pos, trial):
        return Trials(player, evaluator, roots, settings, capacity, progress).run(pos, trial)
    return run


def check_bot(settings: Settings, has_probabilities: bool) -> None:
    """RolloutError for settings that need the bot's probabilities when it has none."""
    if has_probabilities:
        return
    needs = [what for what, on in (("variance reduction", settings.vr),
                                   ("truncation", settings.truncate is not None),
                                   ("a cubeful rollout", settings.cubeful)) if on]
    if needs:
        raise RolloutError(f"{' and '.join(needs)} need{'s' if len(needs) == 1 else ''} a "
                           f"bot that estimates probabilities (net:, net:PATH or gnubg); "
                           f"for this bot roll out with no variance reduction (vr off), no "
                           f"truncation and no cube")


def rollout(bot, boards, settings: Settings = Settings(), states=None, keys=None,
            bombs=None, progress=None, runner=None) -> list[Result]:
    """Roll out positions before the roll: one ``Result`` per board of ``boards`` (P, 26)
    (from the player on roll), in order.

    ``bot`` plays both sides (any bot; its probabilities, where it has them, value the
    luck, truncations and passes: ``eval.analysis.evaluator``); ``settings`` says how.
    ``states``: an ``engine.formats.matchid.MatchState`` for every position or one each
    (None: money play, centred 1-cube): the cube as it lies and, with a length, the match
    score (the cube then plays by the score and the results are match winning chances).
    ``keys``: each position's dice stream (default: its own); positions given the same key
    see the same rolls trial by trial (paired). ``bombs``: Nuclear's bomb (default
    centred). ``progress(n)`` is told the trials as they finish. ``runner(pos, trial) ->
    values`` plays trials (default: this process, ``Trials``; the Ray workers of
    ``eval.analysis.rollout_actors`` give the same values).
    """
    import time
    settings.check()
    rules = settings.rules
    roots = make_roots(boards, states, keys, bombs, rules)
    n = len(roots.boards)
    if n == 0:
        return []
    evaluator = probability_source(bot)
    check_bot(settings, evaluator is not None)
    check_positions(roots, rules)
    if runner is None:
        runner = local_runner(cube_player(bot, settings), evaluator, roots, settings, progress)
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


__all__ = ["CAPACITY", "DEFAULT_TRIALS", "MAX_PLIES", "MAX_TRIALS", "SE_CHECK", "Result",
           "RolloutError", "Roots", "Settings", "Trials", "check_bot", "cube_player",
           "interval", "local_runner", "make_roots", "paired_difference", "rollout",
           "run_waves", "standard_error"]
