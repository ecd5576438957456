"""What a search (expectimax, MCTS) needs beside the envs: the roll as an explicit chance
step, every afterstate of a roll with its play in notation, positions read from a Position
ID or an XGID, and envs cloned and set to a position or a roll.

    chance_outcomes()                  the 21 rolls and their chances (1/36, 2/36)
    afterstates(board, roll, variant)  every legal play of a roll: its Magriel notation,
                                       the afterstate, the env's actions that make it, the
                                       points it wins when it ends the game
    read_position(text, variant)       (board, MatchState or None) of a Position ID,
                                       POSID:MATCHID or XGID
    clone(env)                         an independent copy of an env (single, vector or
                                       PettingZoo), sharing its bots
    set_position(env, board, ...)      the agent (slot 0's actor) on roll at ``board``
                                       (before the roll, or with ``dice`` at its play)
    set_dice(env, d1, d2)              the roll of the play just begun, replaced: the
                                       chance node's outcome chosen by the search

The functions take an env or its ``unwrapped``; in the vector env they act on ``slot``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from gammon.engine.dice import ROLL_WEIGHTS, ROLLS
from gammon.engine.formats import posid, xgid
from gammon.engine.formats.matchid import MatchState, decode_match_id
from gammon.engine.formats.notation import format_play
from gammon.engine.formats.position import read
from gammon.engine.movegen import legal_plays
from gammon.engine.plays import Plays
from gammon.engine.rules import Rules, variant as get_variant

from .actions import NO_PLAY
from .core import BEFORE, MOVE, ROLLING, START, Games
from .dice import RandomDice
from .steps import StepPlays


def chance_outcomes() -> list[tuple[tuple[int, int], float]]:
    """The 21 distinct rolls (larger die first) with their chances, summing to 1."""
    return [((int(a), int(b)), float(p)) for (a, b), p in zip(ROLLS, ROLL_WEIGHTS)]


@dataclass(frozen=True)
class Afterstate:
    """One legal play of a roll."""

    play: str  # Magriel notation, as gnubg writes it ('' for no play)
    board: np.ndarray  # (26,) int8 the afterstate, still from the mover's view (not flipped)
    actions: tuple[int, ...]  # the env's actions that make it, in order ((NO_PLAY,): none)
    points: int  # the rules' points when the play ends the game (1, 2, 3), else 0


def afterstates(board, roll, variant: Rules | str = "standard") -> list[Afterstate]:
    """Every legal play of ``roll`` (d1, d2) from ``board`` (26,) (the mover's view), as the
    generator gives them (one per distinct afterstate)."""
    rules = get_variant(variant)
    board = np.asarray(board, dtype=np.int8).reshape(1, 26)
    dice = np.asarray(roll, dtype=np.int64).reshape(1, 2)
    plays = legal_plays(board, dice, rules)
    k = len(plays)
    actions = play_actions(plays, board, dice, rules)
    points = rules.end_of_game(plays.boards)
    return [Afterstate(format_play(plays.steps[i], plays.hits[i]), plays.boards[i].copy(),
                       tuple(int(a) for a in actions[i] if a >= 0) or (NO_PLAY,),
                       int(points[i])) for i in range(k)]


def play_actions(plays, board: np.ndarray, dice: np.ndarray, rules: Rules) -> np.ndarray:
    """(K, 4) the env's step actions that make each of the ``plays`` of one position
    ``board`` (1, 26) and roll ``dice`` (1, 2), -1 past its last step: the K plays
    followed at once, one copy of the position each, through ``StepPlays``."""
    k = len(plays)
    tiled = Plays(np.tile(plays.boards, (k, 1)), np.repeat(np.arange(k), k),
                  np.tile(plays.dice_used, k), np.tile(plays.packed, (k, 1)))
    slots = np.arange(k, dtype=np.int64)
    steps = StepPlays(k, rules)
    if steps.start(slots, np.repeat(board, k, axis=0), np.repeat(dice, k, axis=0),
                   tiled).all():
        return np.full((k, 4), -1, dtype=np.int64)
    out = np.full((k, 4), -1, dtype=np.int64)
    for t in range(int(plays.dice_used.max())):
        own = (steps.after == plays.boards[steps.game]).all(axis=1)
        going = steps.game[own]
        out[going, t] = steps.labels()[own]
        steps.step(going, out[going, t])
    return out


def read_position(text: str, variant: Rules | str = "standard"
                  ) -> tuple[np.ndarray, MatchState | None]:
    """The board (26,) from the player on roll and the state (cube, score, dice) of a
    Position ID (state None), ``POSID:MATCHID`` or an XGID; ValueError says what is wrong."""
    rules = get_variant(variant)
    word = str(text).strip()
    if xgid.looks_like_xgid(word):
        found = xgid.decode(word, rules.checkers)
        return found.board, found.state
    if ":" in word and rules.position_format == "posid":
        position, _, match = word.partition(":")
        return posid.decode(position, rules.checkers), decode_match_id(match)
    return read(word, rules), None


def _games(env) -> Games:
    return getattr(env, "unwrapped", env).games


def clone(env):
    """An independent copy of ``env``: its games, dice generator and state deep-copied,
    its bots (the opponent's, which hold networks) shared."""
    base = getattr(env, "unwrapped", env)
    memo = {id(p): p for p in base.games.players}
    twin = object.__new__(type(base))  # not through pickling: EzPickle would build anew
    twin.__dict__.update(copy.deepcopy(base.__dict__, memo))
    return twin


def set_position(env, board, *, dice=None, cube_value: int = 1, cube_owner: int = 0,
                 extra: dict | None = None, slot: int = 0) -> None:
    """Put the actor of ``slot`` (the agent; in the PettingZoo env the agent to act) on roll
    at ``board`` (26,) from its side, the cube's ``cube_value`` and ``cube_owner`` (+1 its,
    -1 the opponent's, 0 centred), the variant's ``extra`` state from its side (default 0).
    The game is taken as under way (decisions before the roll are offered); with ``dice``
    the roll is made at once and the agent is at its play."""
    games = _games(env)
    rows = np.array([slot], dtype=np.int64)
    seat = int(games.actor(rows)[0]) if games.phase[slot] <= MOVE else int(
        np.flatnonzero(games.external)[0])
    st = games.state
    st.boards[slot] = np.asarray(board, dtype=np.int8)
    st.seat[slot], st.plies[slot], st.points[slot] = seat, max(int(st.plies[slot]), 1), 0
    if st.cube is not None:
        st.cube.value[slot], st.cube.owner[slot] = cube_value, cube_owner
    for name in games.rules.extra_state:
        st.extra[name][slot] = (extra or {}).get(name, 0)
    _forget(games.plays, slot)
    games.dice[slot] = 0
    if games.dice_source is None:
        games.dice_source = RandomDice(np.random.default_rng())
        games.dice_source.reset(games.n)
    games.phase[slot] = START
    games.advance()
    _told(env)
    if dice is not None:
        set_dice(env, *dice, slot=slot)


def set_dice(env, d1: int, d2: int, slot: int = 0) -> None:
    """The roll of ``slot``'s actor, whose play has not begun (or who is still before the
    roll), is ``d1``-``d2``: its plays are those of that roll from now on."""
    games = _games(env)
    if games.phase[slot] == MOVE and games.plays.taken[slot] > 0:
        raise ValueError("the play has begun: set the dice before its first step")
    if games.phase[slot] not in (MOVE, BEFORE):
        raise ValueError("the agent is not about to play: no roll to set")
    _forget(games.plays, slot)
    games.state.plies[slot] = max(int(games.state.plies[slot]), 1)
    forced = _Forced(games.dice_source, (int(d1), int(d2)))
    games.dice_source = forced
    try:
        games.phase[slot] = ROLLING  # the roll is made, with these dice
        games.advance()
    finally:
        games.dice_source = forced.then
    _told(env)


def _told(env) -> None:
    """An env that keeps who acts next beside its games (PettingZoo's agent_selection) is
    told the games changed."""
    sync = getattr(getattr(env, "unwrapped", env), "sync", None)
    if sync is not None:
        sync()


def _forget(plays: StepPlays, slot: int) -> None:
    """Drop the plays of ``slot`` (its roll is being replaced)."""
    keep = plays.game != slot
    plays.code, plays.after, plays.game = plays.code[keep], plays.after[keep], plays.game[keep]
    plays.used[slot] = plays.taken[slot] = 0
    plays._labels = None


class _Forced:
    """A dice source whose next roll is given (then the source it stands in for)."""

    def __init__(self, then, roll):
        self.then, self.roll_ = then, roll

    def start(self, slots, ties=False):
        return self.then.start(slots, ties)

    def reset(self, n):
        self.then.reset(n)

    def roll(self, slots, plies):
        out = self.then.roll(slots, plies)
        if self.roll_ is not None:
            out = np.array(out, dtype=np.int8)
            out[0] = self.roll_
            self.roll_ = None
        return out


__all__ = ["Afterstate", "chance_outcomes", "afterstates", "read_position", "clone",
           "set_position", "set_dice"]
