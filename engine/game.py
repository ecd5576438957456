"""The one game loop: G games in lock-step, under any rules, with or without the cube.

Every way the project plays games goes through here: matches (``eval.playing.match``), cubeful
matches, matches to N points (``eval.playing.matchplay``, with ``engine.match``'s score), self-play
(``train.selfplay``), terminal play (``gammon.session``) and the replay of .mat files
(``engine.formats.matfile``). A turn is

    before-the-roll decisions (the bomb, in Nuclear; then the cube, when one is used)
    ->  roll  ->  play  ->  the rules' end of game  ->  the other side is on roll

A player (a "policy") is any callable ``player(plays, boards, dice) -> (N,) int`` that,
given the legal plays of N positions, returns for each position the row of ``plays`` it
chooses; cube decisions are its optional ``offer_double`` and ``respond``
(``engine.cube_policy``). Two more optional methods serve variants with extra state:

    detonate(boards, bomb) -> (N,) bool   Nuclear: explode the bomb now, before the roll?
                                          (``bomb_decisions``; without it: never)
    observe_extra(extra: dict) -> None    told the variant's state of the N games it is
                                          about to choose plays for, right before it is
                                          asked (Nuclear: {"bomb": (N,) int8}, relative
                                          to the mover), so a network can take it as input

State (``GameState``), all arrays of G games:

    boards (G, 26) int8   from the seat on roll
    seat   (G,)    int8   the seat on roll (0 or 1)
    cube   Cube or None   value and owner (owner relative to the seat on roll)
    extra  dict           a variant's state beyond the 26 cells (``rules.extra_state``):
                          name -> (G,) int8; those named in ``rules.relative_state`` are
                          relative to the seat on roll and negated when the turn passes
                          (Nuclear: "bomb", +1 the seat on roll owns it, -1 the other
                          seat, 0 centred)
    points (G,)    int32  seat 0's points once a game is over (negative: seat 1 won)
    plies  (G,)    int32  plays made (passes of the dice included)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .cube import (BEAVER, PASS, TAKE, Cube, CubeRules, accept, game_points, legal_responses,
                   may_double, opening_ties, pass_points, start_cubes)
from .cube_policy import offers, responses, tell_score
from .dice import DiceTable
from .match import MatchContext, MatchScore
from .movegen import Plays, legal_plays
from .rules import Rules, variant as get_variant
from .rules.nuclear import THEIRS, explode, may_detonate

Policy = Callable[[Plays, np.ndarray, np.ndarray], np.ndarray]


@dataclass
class GameState:
    """G games in progress (see the module's docstring for the arrays)."""

    boards: np.ndarray
    seat: np.ndarray
    cube: Cube | None = None
    extra: dict = field(default_factory=dict)
    points: np.ndarray | None = None
    plies: np.ndarray | None = None

    def __post_init__(self):
        g = len(self.boards)
        if self.points is None:
            self.points = np.zeros(g, dtype=np.int32)
        if self.plies is None:
            self.plies = np.zeros(g, dtype=np.int32)

    def __len__(self) -> int:
        return len(self.boards)


def new_games(rules: Rules, first_seat: np.ndarray, cube: Cube | None = None) -> GameState:
    """Games at their start: the rules' start position, ``first_seat`` (G,) on roll."""
    first_seat = np.asarray(first_seat, dtype=np.int8)
    extra = {name: np.zeros(len(first_seat), dtype=np.int8) for name in rules.extra_state}
    return GameState(rules.start_boards(len(first_seat)), first_seat.copy(), cube, extra)


def restart(state: GameState, rows: np.ndarray, rules: Rules) -> None:
    """Start new games in the slots ``rows`` (self-play keeps its batch full this way)."""
    state.boards[rows] = rules.start_board()
    state.points[rows] = 0
    state.plies[rows] = 0
    for name in rules.extra_state:
        state.extra[name][rows] = 0


def random_policy(rng: np.random.Generator) -> Policy:
    """A policy choosing uniformly among the distinct legal results."""

    def choose(plays: Plays, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        n = len(boards)
        counts = plays.counts(n)
        start = plays.offsets(n)[:-1]
        return start + (rng.random(n) * counts).astype(np.int64)

    return choose


def _observe(policy, extra: dict | None) -> None:
    """Tell ``policy`` the variant's state of the games it is about to choose for, when
    there is such state and it has ``observe_extra``."""
    if extra:
        observe = getattr(policy, "observe_extra", None)
        if observe is not None:
            observe(extra)


def play_turn(policies: tuple[Policy, Policy], boards: np.ndarray, side: np.ndarray,
              roll: np.ndarray, rules: Rules | str = "standard",
              extra: dict | None = None, score: MatchScore | None = None) -> np.ndarray:
    """Each game's seat on roll plays its roll: afterstates (N, 26) int8, not flipped.

    boards (N, 26) from the seat on roll, side (N,) that seat (0 or 1), roll (N, 2). One
    call of the generator when both seats are the same player (self-play). ``extra`` (the
    variant's state of these N games, name -> (N,) array, relative to the mover) is passed
    to each policy's ``observe_extra`` for its games right before it chooses; in match play
    ``score`` (the N games' ``MatchScore`` from the side on roll) to its ``observe_score``.
    """
    rules = get_variant(rules)
    if policies[0] is policies[1]:
        plays = legal_plays(boards, roll, rules)
        _observe(policies[0], extra)
        if score is not None:
            tell_score(policies[0], score)
        return plays.boards[policies[0](plays, boards, roll)]
    after = np.empty((len(boards), 26), dtype=np.int8)
    for s in (0, 1):
        mine = np.flatnonzero(side == s)
        if len(mine) == 0:
            continue
        plays = legal_plays(boards[mine], roll[mine], rules)
        if extra:
            _observe(policies[s], {name: v[mine] for name, v in extra.items()})
        if score is not None:
            tell_score(policies[s], score.rows(mine))
        after[mine] = plays.boards[policies[s](plays, boards[mine], roll[mine])]
    return after


def end_turn(state: GameState, rows: np.ndarray, after: np.ndarray, rules: Rules,
             cube_rules: CubeRules | None = None) -> np.ndarray:
    """Apply the plays ``after`` (afterstates of the games ``rows``), end the games the
    rules end, score them (times the cube) and give the roll to the other side.

    Returns the rules' points for the player who moved, (len(rows),) int8, 0 where the
    game goes on.
    """
    state.plies[rows] += 1
    won = rules.end_of_game(after)
    over = won != 0
    if over.any():
        g = rows[over]
        pts = won[over].astype(np.int32)
        if state.cube is not None:
            pts = game_points(Cube(state.cube.value[g], state.cube.owner[g]), pts,
                              cube_rules or CubeRules())
        state.points[g] = np.where(state.seat[g] == 0, pts, -pts)
    state.boards[rows] = -after[:, ::-1]  # the other side is on roll
    state.seat[rows] ^= 1
    if state.cube is not None:
        state.cube.owner[rows] = -state.cube.owner[rows]
    for name in rules.relative_state:  # relative to the seat on roll, like the cube's owner
        state.extra[name][rows] = -state.extra[name][rows]
    return won


def _never_detonate(boards: np.ndarray, bomb: np.ndarray) -> np.ndarray:
    return np.zeros(len(boards), dtype=bool)


def detonations(policy, boards: np.ndarray, bomb: np.ndarray) -> np.ndarray:
    """``policy.detonate(boards, bomb)`` where it has one, else never: (N,) bool."""
    ask = getattr(policy, "detonate", None) or _never_detonate
    answer = np.asarray(ask(boards, bomb), dtype=bool)
    if answer.shape != (len(boards),):
        raise ValueError(f"detonate answered shape {answer.shape} for {len(boards)} boards")
    return answer


def bomb_decisions(policies, state: GameState, rows: np.ndarray,
                   counts: np.ndarray | None = None) -> np.ndarray:
    """Nuclear's decision before the roll of the games ``rows``: the player on roll may
    detonate "when the bomb is centred or his" (``state.extra["bomb"]`` >= 0, relative to
    him); where his policy's ``detonate(boards, bomb)`` says so, "all blots count as hit
    and go to the bar, and the bomb passes to the opponent's side": the board is exploded
    (``engine.rules.nuclear.explode``) and the bomb set to -1 (the opponent's), in place.

    Our reading: "the decision comes before the roll, like a double", so no one detonates
    before the opening roll, which is played at once: games that have made no play yet
    (``state.plies == 0``) are skipped, so self-play may pass freshly restarted games too.
    The game loop takes this decision before the cube's, on the position the roll will be
    played from. ``counts`` (G, 2) int16, when given, counts detonations per game and seat.

    Returns (len(rows),) bool: the games where the player on roll detonated.
    """
    rows = np.asarray(rows)
    bomb = state.extra["bomb"]
    fired = np.zeros(len(rows), dtype=bool)
    can = np.flatnonzero(may_detonate(bomb[rows]) & (state.plies[rows] > 0))
    if len(can) == 0:
        return fired
    same = policies[0] is policies[1]
    for seat in ((0,) if same else (0, 1)):
        at = can if same else can[state.seat[rows[can]] == seat]  # positions in rows
        if len(at) == 0:
            continue
        g = rows[at]
        fired[at] = detonations(policies[seat], state.boards[g], bomb[g])
    g = rows[fired]
    if len(g):
        state.boards[g] = explode(state.boards[g])
        bomb[g] = THEIRS
        if counts is not None:
            np.add.at(counts, (g, state.seat[g].astype(np.intp)), 1)
    return fired


@dataclass
class CubeCounts:
    """Cube actions per game and seat: (G, 2) int16 each (seat 0, seat 1)."""

    offers: np.ndarray
    takes: np.ndarray
    beavers: np.ndarray
    passes: np.ndarray

    @classmethod
    def zeros(cls, games: int) -> "CubeCounts":
        return cls(*(np.zeros((games, 2), dtype=np.int16) for _ in range(4)))


def cube_decisions(policies, state: GameState, rows: np.ndarray, rules: CubeRules,
                   counts: CubeCounts | None = None, on_cube=None,
                   match: MatchContext | None = None) -> np.ndarray:
    """The cube before the roll of the games ``rows``: offers where the rules allow, then
    answers; updates the cube, the points of passed games and ``counts`` in place.

    In match play (``match``, by game) nobody doubles in the Crawford game ("the game
    after a player first reaches N-1 has no doubling", ``engine.match``), and both the
    doubler and the taker are told the score from the doubler's side before they decide.

    Returns (len(rows),) bool: games ended by a passed double.
    """
    cube = state.cube
    over = np.zeros(len(rows), dtype=bool)
    allowed = may_double(Cube(cube.value[rows], cube.owner[rows]), rules)
    if match is not None:
        allowed &= ~match.crawford[rows]
    can = np.flatnonzero(allowed)
    for doubler in (0, 1):
        at = can[state.seat[rows[can]] == doubler]  # positions in rows
        if len(at) == 0:
            continue
        g = rows[at]
        seen = None  # the score from the doubler's side, told to both players
        if match is not None:
            seen = match.view(g, np.full(len(g), doubler), cube.value[g], cube.owner[g])
            tell_score(policies[doubler], seen)
        doubled = offers(policies[doubler], state.boards[g], cube.value[g], cube.owner[g])
        at, g = at[doubled], g[doubled]
        if len(g) == 0:
            continue
        taker = 1 - doubler
        before = Cube(cube.value[g], cube.owner[g])
        if seen is not None:
            tell_score(policies[taker], seen.rows(doubled))
        answer = legal_responses(
            responses(policies[taker], state.boards[g], before.value, before.owner), before,
            rules)
        if counts is not None:
            counts.offers[g, doubler] += 1
            for code, tally in ((PASS, counts.passes), (TAKE, counts.takes),
                                (BEAVER, counts.beavers)):
                tally[g[answer == code], taker] += 1
        if on_cube is not None:
            on_cube(g, np.full(len(g), doubler), 2 * before.value, answer)
        dropped = answer == PASS
        won = pass_points(before)[dropped]
        state.points[g[dropped]] = won if doubler == 0 else -won
        over[at[dropped]] = True
        after = accept(before, answer)
        cube.value[g], cube.owner[g] = after.value, after.owner
    return over


@dataclass
class Results:
    """Outcome of G games, from seat 0's view.

    points: (G,) int32 -- seat 0's points: +1/+2/+3 (times the cube) when seat 0 won,
            negative when seat 1 won, 0 when the game hit the ply limit unfinished
    plies:  (G,) int32 -- plays made (passes of the dice included) in each game
    With the cube (else None): ``cube`` (G,) int32 the value at the end (for a passed
    double: the value won), ``passed`` (G,) bool the game ended on a passed double, and
    ``offers``, ``takes`` (plain takes), ``beavers``, ``passes``: (G, 2) int16 per seat.
    With a bomb (Nuclear, else None): ``detonations`` (G, 2) int16 per seat.
    """

    points: np.ndarray
    plies: np.ndarray
    cube: np.ndarray | None = None
    passed: np.ndarray | None = None
    offers: np.ndarray | None = None
    takes: np.ndarray | None = None
    beavers: np.ndarray | None = None
    passes: np.ndarray | None = None
    detonations: np.ndarray | None = None


def play(policies: tuple[Policy, Policy], games: int, rng: np.random.Generator,
         variant: str | Rules = "standard", max_plies: int = 10_000,
         on_position: Callable[[np.ndarray, np.ndarray], None] | None = None,
         dice: DiceTable | None = None, dice_rows: np.ndarray | None = None,
         on_play: Callable[..., None] | None = None, cube: CubeRules | None = None,
         ties: np.ndarray | None = None, on_cube=None,
         match: MatchContext | None = None, start: np.ndarray | None = None) -> Results:
    """Play ``games`` games between policies[0] (seat 0) and policies[1] (seat 1).

    The opening roll decides who moves first and is that seat's first roll. Dice come from
    ``dice`` (row ``dice_rows[g]`` for game g) when given, else from a new table drawn from
    ``rng``. Every position a seat faces, with its roll, is passed to
    ``on_position(boards, dice)`` when given; every play made, to
    ``on_play(games, seats, boards, dice, afterstates)`` (games (M,) indices, for recording).

    With ``cube`` (the cube's rules) the games are cubeful money games: before every roll
    but the opening one the player on roll may double (``cube_decisions``); ``ties`` (one
    per dice row) counts the tied opening throws that trigger automatic doubles, drawn from
    ``rng`` when not given; ``on_cube(games, doubler_seats, values, answers)`` is told every
    double offered. The cubeless game is the same loop without that step, on the same dice.

    Under rules with a bomb (Nuclear) the player on roll may detonate it before every roll
    but the opening one (``bomb_decisions``), before the cube's decision; policies are told
    the bomb before they choose a play (``observe_extra``); ``Results.detonations`` counts.

    With ``match`` (``engine.match.MatchContext``, one per game) each game is a game of a
    match: the cube is used (``cube``, default ``CubeRules()``: no Jacoby, no beavers, no
    automatic doubles), not in the Crawford game, and the policies are told the score
    (``observe_score``) before every decision, from the side deciding (the doubler's for
    both cube decisions); they are told None when the games are over.
    """
    rules = get_variant(variant)
    if match is not None:
        cube = cube or CubeRules()
        if cube.jacoby or cube.beavers or cube.auto_doubles:
            raise ValueError("a match has no Jacoby rule, no beavers and no automatic doubles")
        ties = np.zeros(len(dice.first) if dice is not None else games, dtype=np.int64)
    if dice is None:
        dice = DiceTable(rng, games)
    rows = np.arange(games) if dice_rows is None else np.asarray(dice_rows)
    counts = None
    cubes = None
    if cube is not None:
        if ties is None:
            ties = opening_ties(rng, len(dice.first))
        cubes = start_cubes(np.asarray(ties)[rows], cube)  # owner relative to the seat on roll
        counts = CubeCounts.zeros(games)
    state = new_games(rules, dice.first[rows], cubes)
    if start is not None:
        state.boards[:] = np.asarray(start, dtype=np.int8)
    passed = np.zeros(games, dtype=bool)
    bomb = "bomb" in rules.extra_state
    detonated = np.zeros((games, 2), dtype=np.int16) if bomb else None
    roll = dice.opening[rows] if start is None else dice.roll(rows, 0)
    live = np.arange(games)
    try:
        _loop(policies, state, rules, dice, rows, roll, live, max_plies, cube, counts, passed,
              detonated, on_position, on_play, on_cube, match)
    finally:
        if match is not None:
            for policy in policies:
                tell_score(policy, None)
    if cube is None:
        return Results(state.points, state.plies, detonations=detonated)
    return Results(state.points, state.plies, state.cube.value, passed, counts.offers,
                   counts.takes, counts.beavers, counts.passes, detonated)


def _loop(policies, state: GameState, rules: Rules, dice: DiceTable, rows, roll, live,
          max_plies: int, cube, counts, passed, detonated, on_position, on_play, on_cube,
          match) -> None:
    """The turns of ``play`` until every game is over or ``max_plies``."""
    bomb = detonated is not None
    for ply in range(max_plies):
        if len(live) == 0:
            break
        if ply > 0:  # the opening roll is played at once: no decision before it
            if bomb:  # first the bomb, then the cube on the position after it
                bomb_decisions(policies, state, live, detonated)
            if cube is not None:
                over = cube_decisions(policies, state, live, cube, counts, on_cube, match)
                passed[live[over]] = True
                live = live[~over]
            roll = dice.roll(rows[live], ply)
        boards = state.boards[live]
        if on_position is not None:
            on_position(boards, roll)
        extra = ({name: v[live] for name, v in state.extra.items()} if rules.extra_state
                 else None)
        score = None
        if match is not None:
            score = match.view(live, state.seat[live], state.cube.value[live],
                               state.cube.owner[live])
        after = play_turn(policies, boards, state.seat[live], roll, rules, extra, score)
        if on_play is not None:
            on_play(live, state.seat[live], boards, roll, after)
        won = end_turn(state, live, after, rules, cube)
        live = live[won == 0]


__all__ = ["GameState", "Policy", "Results", "CubeCounts", "new_games", "restart",
           "random_policy", "play_turn", "end_turn", "cube_decisions", "bomb_decisions",
           "detonations", "play"]
