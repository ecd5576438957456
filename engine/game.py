"""The one game loop and the one turn: G games in lock-step, under any rules, with or without
the cube.

Every way the project plays games goes through here: matches (``eval.playing.match``), cubeful
matches, matches to N points (``eval.playing.matchplay``, with ``engine.match``'s score), self-play
(``train.selfplay``), rollouts (``eval.analysis.rollout_trials``), terminal play
(``gammon.session``, through ``gammon.table``) and the replay of .mat files
(``engine.formats.matfile``). A turn (``Turn``; ``before_roll``) is

    the variant's actions before the roll (``Rules.before_roll_actions``: Nuclear's bomb)
    ->  the cube, when one is used  ->  roll  ->  play  ->  the rules' end of game
    ->  the other side is on roll

and no decision comes before the opening roll, which is played at once. The loop knows no
variant: a variant's state and its actions are its rules object's (``engine.rules.base``).

A player is any callable ``player(plays, boards, dice) -> (N,) int`` (its policy,
``Policy``) that, given the legal plays of N positions, returns for each position the row
of ``plays`` it chooses; cube decisions are its optional ``offer_double`` and ``respond``
(``engine.cube_policy``). Optional methods serve variants with extra state:

    <action>(boards, *state) -> (N,) bool  take the variant's action before the roll
                                          (named by the rules: Nuclear's
                                          ``detonate(boards, bomb)``); without it: never
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


def _observe(player, extra: dict | None) -> None:
    """Tell ``player`` the variant's state of the games it is about to choose for, when
    there is such state and it has ``observe_extra``."""
    if extra:
        observe = getattr(player, "observe_extra", None)
        if observe is not None:
            observe(extra)


def play_turn(players: tuple, boards: np.ndarray, side: np.ndarray,
              roll: np.ndarray, rules: Rules | str = "standard",
              extra: dict | None = None, score: MatchScore | None = None) -> np.ndarray:
    """Each game's seat on roll plays its roll: afterstates (N, 26) int8, not flipped.

    boards (N, 26) from the seat on roll, side (N,) that seat (0 or 1), roll (N, 2). One
    call of the generator when both seats are the same player (self-play). ``extra`` (the
    variant's state of these N games, name -> (N,) array, relative to the mover) is passed
    to each player's ``observe_extra`` for its games right before it chooses; in match play
    ``score`` (the N games' ``MatchScore`` from the side on roll) to its ``observe_score``.
    """
    rules = get_variant(rules)
    if players[0] is players[1]:
        plays = legal_plays(boards, roll, rules)
        _observe(players[0], extra)
        if score is not None:
            tell_score(players[0], score)
        return plays.boards[players[0](plays, boards, roll)]
    after = np.empty((len(boards), 26), dtype=np.int8)
    for s in (0, 1):
        mine = np.flatnonzero(side == s)
        if len(mine) == 0:
            continue
        plays = legal_plays(boards[mine], roll[mine], rules)
        if extra:
            _observe(players[s], {name: v[mine] for name, v in extra.items()})
        if score is not None:
            tell_score(players[s], score.rows(mine))
        after[mine] = plays.boards[players[s](plays, boards[mine], roll[mine])]
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


def _never(boards: np.ndarray, *state) -> np.ndarray:
    return np.zeros(len(boards), dtype=bool)


def asks(player, action: str, boards: np.ndarray, state: tuple) -> np.ndarray:
    """``player.<action>(boards, *state)`` where it has that method, else never: (N,) bool
    (a variant's action before the roll, ``Rules.before_roll_actions``)."""
    ask = getattr(player, action, None) or _never
    answer = np.asarray(ask(boards, *state), dtype=bool)
    if answer.shape != (len(boards),):
        raise ValueError(f"{action} answered shape {answer.shape} for {len(boards)} boards")
    return answer


def action_decisions(players, state: GameState, rows: np.ndarray, rules: Rules, action: str,
                     counts: np.ndarray | None = None) -> np.ndarray:
    """A variant's action before the roll (``rules.before_roll_actions``: Nuclear's
    "detonate") in the games ``rows``: where the rules allow it (``rules.may_act``), the
    player of the seat on roll is asked (``asks``; it is given the boards and the games'
    ``extra_state`` arrays, relative to it), and where it says so the rules do it
    (``rules.act``: the board and the state changed in place).

    No decision comes before the opening roll, which is played at once: games that have
    made no play yet (``state.plies == 0``) are skipped, so self-play may pass freshly
    restarted games too. ``counts`` (G, 2) int16, when given, counts the actions per game
    and seat.

    Returns (len(rows),) bool: the games where the player on roll took the action.
    """
    rows = np.asarray(rows)
    taken = np.zeros(len(rows), dtype=bool)
    extra = {name: state.extra[name][rows] for name in rules.extra_state}
    can = np.flatnonzero(rules.may_act(action, state.boards[rows], extra)
                         & (state.plies[rows] > 0))
    if len(can) == 0:
        return taken
    same = players[0] is players[1]
    for seat in ((0,) if same else (0, 1)):
        at = can if same else can[state.seat[rows[can]] == seat]  # positions in rows
        if len(at) == 0:
            continue
        g = rows[at]
        taken[at] = asks(players[seat], action, state.boards[g],
                         tuple(state.extra[name][g] for name in rules.extra_state))
    g = rows[taken]
    if len(g):
        boards, changed = rules.act(action, state.boards[g],
                                    {name: state.extra[name][g] for name in rules.extra_state})
        state.boards[g] = boards
        for name, values in changed.items():
            state.extra[name][g] = values
        if counts is not None:
            np.add.at(counts, (g, state.seat[g].astype(np.intp)), 1)
    return taken


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


def cube_decisions(players, state: GameState, rows: np.ndarray, rules: CubeRules,
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
            tell_score(players[doubler], seen)
        doubled = offers(players[doubler], state.boards[g], cube.value[g], cube.owner[g])
        at, g = at[doubled], g[doubled]
        if len(g) == 0:
            continue
        taker = 1 - doubler
        before = Cube(cube.value[g], cube.owner[g])
        if seen is not None:
            tell_score(players[taker], seen.rows(doubled))
        answer = legal_responses(
            responses(players[taker], state.boards[g], before.value, before.owner), before,
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


def before_roll(players, state: GameState, rows: np.ndarray, rules: Rules,
                cube_rules: CubeRules | None = None, *, acting: np.ndarray | None = None,
                doubling: np.ndarray | None = None, counts: CubeCounts | None = None,
                tallies: dict | None = None, on_cube=None,
                match: MatchContext | None = None) -> np.ndarray:
    """The decisions before the roll of the games ``rows``, in the turn's order: first the
    variant's actions (``rules.before_roll_actions``, each by ``action_decisions``: Nuclear's
    bomb), then the cube's (``cube_decisions``, with ``cube_rules``) on the position they
    leave. ``acting`` and ``doubling`` (len(rows),) bool say in which of the games the
    actions and the cube may be taken (default all); ``tallies`` action -> (G, 2) int16
    counts the actions, ``counts`` the cube's.

    Returns (len(rows),) bool: the games ended before the roll (a passed double).
    """
    rows = np.asarray(rows)
    go = rows if acting is None else rows[acting]
    for action in rules.before_roll_actions:
        if len(go):
            action_decisions(players, state, go, rules, action,
                             None if tallies is None else tallies[action])
    over = np.zeros(len(rows), dtype=bool)
    if cube_rules is not None:
        at = np.arange(len(rows)) if doubling is None else np.flatnonzero(doubling)
        if len(at):
            over[at] = cube_decisions(players, state, rows[at], cube_rules, counts, on_cube,
                                      match)
    return over


class Turn:
    """A turn of the games in flight, in the one order of the game:

        the decisions before the roll (``before_roll``: the variant's actions, then the cube)
        ->  [stops]  ->  roll  ->  play  ->  the rules' end of game (``end_turn``)
        ->  the other side is on roll

    ``turn(rows)`` takes one turn of the games ``rows`` of ``state``. The game loop
    (``play``), rollouts (``eval.analysis.rollout_trials``) and self-play
    (``train.selfplay``) are turns that give their own parts; whatever a part does, the order
    is this one:

    - ``roll(rows) -> (R, 2)``: the dice (no default);
    - ``play(rows, roll) -> (R, 26)`` afterstates, not flipped: by default the players
      choose (``play_turn``), told the variant's state and, in a match, the score;
    - ``may_act(rows)``, ``may_double(rows)``: (R,) bool or None (all) where the variant's
      actions and the cube may be taken; by default where a play has been made (the
      opening roll is played at once: no decision comes before it);
    - ``stops(rows)``: (R,) bool or None: games that end before the roll (rollouts'
      truncation), told to ``stopped(rows)``;
    - ``passed(rows)``: games ended by a passed double; ``ended(rows, won)``: the games
      that played, with the rules' points for the mover (0: the game goes on).
    """

    def __init__(self, players, state: GameState, rules: Rules,
                 cube_rules: CubeRules | None = None, *, counts: CubeCounts | None = None,
                 tallies: dict | None = None, on_cube=None, match: MatchContext | None = None):
        self.players, self.state, self.rules = players, state, rules
        self.cube_rules, self.counts, self.tallies = cube_rules, counts, tallies
        self.on_cube, self.match = on_cube, match

    def __call__(self, rows: np.ndarray) -> None:
        rows = np.asarray(rows)
        over = before_roll(self.players, self.state, rows, self.rules, self.cube_rules,
                           acting=self.may_act(rows), doubling=self.may_double(rows),
                           counts=self.counts, tallies=self.tallies, on_cube=self.on_cube,
                           match=self.match)
        if over.any():
            self.passed(rows[over])
            rows = rows[~over]
        stop = self.stops(rows)
        if stop is not None and stop.any():
            self.stopped(rows[stop])
            rows = rows[~stop]
        if len(rows) == 0:
            return
        roll = self.roll(rows)
        after = self.play(rows, roll)
        self.ended(rows, end_turn(self.state, rows, after, self.rules, self.cube_rules))

    # --- the parts -----------------------------------------------------------------------

    def may_act(self, rows: np.ndarray) -> np.ndarray | None:
        return self.state.plies[rows] > 0

    def may_double(self, rows: np.ndarray) -> np.ndarray | None:
        return self.state.plies[rows] > 0

    def stops(self, rows: np.ndarray) -> np.ndarray | None:
        return None

    def roll(self, rows: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def play(self, rows: np.ndarray, roll: np.ndarray) -> np.ndarray:
        state = self.state
        extra = ({name: v[rows] for name, v in state.extra.items()} if self.rules.extra_state
                 else None)
        score = None
        if self.match is not None:
            score = self.match.view(rows, state.seat[rows], state.cube.value[rows],
                                    state.cube.owner[rows])
        return play_turn(self.players, state.boards[rows], state.seat[rows], roll,
                         self.rules, extra, score)

    def passed(self, rows: np.ndarray) -> None:
        pass

    def stopped(self, rows: np.ndarray) -> None:
        pass

    def ended(self, rows: np.ndarray, won: np.ndarray) -> None:
        pass


@dataclass
class Results:
    """Outcome of G games, from seat 0's view.

    points: (G,) int32 -- seat 0's points: +1/+2/+3 (times the cube) when seat 0 won,
            negative when seat 1 won, 0 when the game hit the ply limit unfinished
    plies:  (G,) int32 -- plays made (passes of the dice included) in each game
    With the cube (else None): ``cube`` (G,) int32 the value at the end (for a passed
    double: the value won), ``passed`` (G,) bool the game ended on a passed double, and
    ``offers``, ``takes`` (plain takes), ``beavers``, ``passes``: (G, 2) int16 per seat.
    ``actions``: the variant's actions before the roll (``Rules.before_roll_actions``)
    taken, name -> (G, 2) int16 per seat (Nuclear: {"detonate": ...}); empty for others.
    """

    points: np.ndarray
    plies: np.ndarray
    cube: np.ndarray | None = None
    passed: np.ndarray | None = None
    offers: np.ndarray | None = None
    takes: np.ndarray | None = None
    beavers: np.ndarray | None = None
    passes: np.ndarray | None = None
    actions: dict = field(default_factory=dict)


def play(players: tuple, games: int, rng: np.random.Generator,
         variant: str | Rules = "standard", max_plies: int = 10_000,
         on_position: Callable[[np.ndarray, np.ndarray], None] | None = None,
         dice: DiceTable | None = None, dice_rows: np.ndarray | None = None,
         on_play: Callable[..., None] | None = None, cube: CubeRules | None = None,
         ties: np.ndarray | None = None, on_cube=None,
         match: MatchContext | None = None, start: np.ndarray | None = None) -> Results:
    """Play ``games`` games between players[0] (seat 0) and players[1] (seat 1), turn by
    turn (``Turn``) until every game is over or ``max_plies``.

    The opening roll decides who moves first and is that seat's first roll (with ``start``,
    (G, 26) or (26,) positions to start from, the first roll is an ordinary one). Dice come
    from ``dice`` (row ``dice_rows[g]`` for game g) when given, else from a new table drawn
    from ``rng``. Every position a seat faces, with its roll, is passed to
    ``on_position(boards, dice)`` when given; every play made, to
    ``on_play(games, seats, boards, dice, afterstates)`` (games (M,) indices, for recording).

    With ``cube`` (the cube's rules) the games are cubeful money games: before every roll
    but the opening one the player on roll may double (``cube_decisions``); ``ties`` (one
    per dice row) counts the tied opening throws that trigger automatic doubles, drawn from
    ``rng`` when not given; ``on_cube(games, doubler_seats, values, answers)`` is told every
    double offered. The cubeless game is the same loop without that step, on the same dice.

    Under rules with actions before the roll (Nuclear's bomb) the player on roll may take
    them before every roll but the opening one, before the cube's decision; players are
    told the variant's state before they choose a play (``observe_extra``);
    ``Results.actions`` counts.

    With ``match`` (``engine.match.MatchContext``, one per game) each game is a game of a
    match: the cube is used (``cube``, default ``CubeRules()``: no Jacoby, no beavers, no
    automatic doubles), not in the Crawford game, and the players are told the score
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
    tallies = {action: np.zeros((games, 2), dtype=np.int16)
               for action in rules.before_roll_actions}
    turn = _GameTurn(players, state, rules, cube, counts=counts, tallies=tallies,
                     on_cube=on_cube, match=match)
    turn.dice, turn.dice_rows, turn.opening = dice, rows, start is None
    turn.on_position, turn.on_play = on_position, on_play
    try:
        for ply in range(max_plies):
            if len(turn.live) == 0:
                break
            turn.ply = ply
            turn(turn.live)
    finally:
        if match is not None:
            for player in players:
                tell_score(player, None)
    if cube is None:
        return Results(state.points, state.plies, actions=tallies)
    return Results(state.points, state.plies, state.cube.value, turn.passed_games,
                   counts.offers, counts.takes, counts.beavers, counts.passes, tallies)


class _GameTurn(Turn):
    """``play``'s turn: the dice from its table, the plays told to its observers, the games
    that go on kept in ``live``."""

    def __init__(self, players, state: GameState, rules: Rules, cube_rules=None, **parts):
        super().__init__(players, state, rules, cube_rules, **parts)
        self.live = np.arange(len(state))
        self.passed_games = np.zeros(len(state), dtype=bool)
        self.ply = 0

    def roll(self, rows: np.ndarray) -> np.ndarray:
        if self.ply == 0:
            return (self.dice.opening[self.dice_rows] if self.opening
                    else self.dice.roll(self.dice_rows, 0))
        return self.dice.roll(self.dice_rows[rows], self.ply)

    def play(self, rows: np.ndarray, roll: np.ndarray) -> np.ndarray:
        boards = self.state.boards[rows]
        if self.on_position is not None:
            self.on_position(boards, roll)
        after = super().play(rows, roll)
        if self.on_play is not None:
            self.on_play(rows, self.state.seat[rows], boards, roll, after)
        return after

    def passed(self, rows: np.ndarray) -> None:
        self.passed_games[rows] = True
        self.live = self.live[~self.passed_games[self.live]]

    def ended(self, rows: np.ndarray, won: np.ndarray) -> None:
        self.live = rows[won == 0]


__all__ = ["GameState", "Policy", "Results", "CubeCounts", "Turn", "new_games", "restart",
           "random_policy", "play_turn", "end_turn", "before_roll", "cube_decisions",
           "action_decisions", "asks", "play"]
