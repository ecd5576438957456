"""A match replayed into the turns a review grades: each turn of each game with the board
before the roll, the cube and score of the moment, the cube action (if any), the roll and
the play made.

A turn is one player's time on roll: an optional double (and the other player's take or
drop), then the roll and its play. Turns are numbered from 1 in each game ("move" in the
report; a .mat file's row numbers count both columns, ours count turns). The first turn of
a game is the opening roll, which no double may precede.

The walk is the rules' (``engine.movegen``, ``engine.formats.notation.parse_play``): an
action that is not legal where it stands is an ``IllegalAction`` naming the game, the
move, the player and what the file says. ``walk_match`` either stops there (the error
goes up) or, with ``skip``, keeps the game's turns before it and notes a warning.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from gammon.engine.board import flip
from gammon.engine.formats.matfile import DOUBLE, DROP, PLAY, TAKE, Game, Match
from gammon.engine.formats.notation import parse_play
from gammon.engine.formats.sgf import crawford_games
from gammon.engine.movegen import legal_plays
from gammon.engine.rules import variant as get_variant

from .values import TurnState


class IllegalAction(ValueError):
    """An action of the file that the rules do not allow where it stands (one line)."""


@dataclass
class Turn:
    """One turn of a game.

    board:    (26,) the position before the roll, from ``state.player``'s side
    state:    the cube and score when the turn starts (before any double)
    doubled:  the player doubled before rolling
    response: "take" or "drop" when he doubled, else None
    roll:     (d1, d2) larger first, or None when the game ended on a drop
    play:     the play as the file writes it ("" for a roll that cannot be played)
    first:    the opening roll of the game
    """

    game: int
    move: int
    board: np.ndarray
    state: TurnState
    doubled: bool = False
    response: str | None = None
    roll: tuple[int, int] | None = None
    play: str = ""
    first: bool = False

    @property
    def player(self) -> int:
        return self.state.player

    def after_cube(self) -> TurnState:
        """The state when the roll comes: the taker owns the cube at twice the value after
        a take."""
        s = self.state
        if self.doubled and self.response == "take":
            return replace(s, cube=2 * s.cube, owner=1 - s.player)
        return s


@dataclass
class GameTurns:
    """The turns of one game and how it ended (the file's word)."""

    number: int
    score: tuple[int, int]
    crawford: bool
    winner: int | None
    points: int
    turns: list[Turn] = field(default_factory=list)
    warning: str | None = None


def _where(number: int, move: int, player: int, names, line: int, text: str) -> str:
    at = f", line {line}" if line else ""
    return f"game {number}, move {move}, {names[player]} (player {player}){at}: {text}"


def walk_game(game: Game, number: int, score, crawford: bool, match: Match,
              names, jacoby: bool = False, beavers: bool = False,
              efficiency: float | None = None) -> GameTurns:
    """The turns of one game; IllegalAction at the first action the rules refuse."""
    from gammon.model.cube import EFFICIENCY
    rules = get_variant(match.variant)
    x = EFFICIENCY if efficiency is None else efficiency
    out = GameTurns(number, tuple(score), crawford, game.winner, game.points)
    board, setup = None, game.start  # setup: a position set up by hand (SGF), not the opening
    cube, owner, move = (1, -1, 0) if setup is None else (setup.cube, setup.owner, 0)
    turn: Turn | None = None
    ended = False
    for a in game.actions:
        if ended:
            raise IllegalAction(_where(number, move, a.player, names, a.line,
                                       f"{a.kind} after the game is over"))
        if turn is None or turn.roll is not None:  # a new turn starts
            if turn is not None and a.player == turn.player:
                raise IllegalAction(_where(number, move + 1, a.player, names, a.line,
                                           "plays twice in a row"))
            if board is None:
                board = rules.start_board() if setup is None else setup.board
                if setup is not None and a.player != setup.player:
                    raise IllegalAction(_where(number, 1, a.player, names, a.line,
                                               f"acts first; the position set up has "
                                               f"{names[setup.player]} on roll"))
            move += 1
            state = TurnState(a.player, match.length, tuple(score), crawford, cube, owner,
                              jacoby and not match.length, beavers, x)
            turn = Turn(number, move, board.copy(), state,
                        first=move == 1 and setup is None)
            out.turns.append(turn)
        if a.kind == DOUBLE:
            if a.player != turn.player or turn.doubled:
                raise IllegalAction(_where(number, move, a.player, names, a.line,
                                           "doubles out of turn"))
            if turn.first:
                raise IllegalAction(_where(number, move, a.player, names, a.line,
                                           "doubles before the opening roll"))
            if not turn.state.may_double():
                raise IllegalAction(_where(number, move, a.player, names, a.line,
                                           "doubles without access to the cube"))
            turn.doubled = True
        elif a.kind in (TAKE, DROP):
            if not turn.doubled or turn.response is not None or a.player == turn.player:
                raise IllegalAction(_where(number, move, a.player, names, a.line,
                                           f"{'takes' if a.kind == TAKE else 'drops'} "
                                           f"without a double to answer"))
            turn.response = "take" if a.kind == TAKE else "drop"
            if a.kind == TAKE:
                cube, owner = 2 * cube, a.player
            else:
                ended = True
        elif a.kind == PLAY:
            if a.player != turn.player:
                raise IllegalAction(_where(number, move, a.player, names, a.line,
                                           f"plays {a.dice[0]}{a.dice[1]} on the other "
                                           f"player's turn"))
            if turn.doubled and turn.response is None:
                raise IllegalAction(_where(number, move, a.player, names, a.line,
                                           "rolls before the double is answered"))
            d1, d2 = a.dice
            plays = legal_plays(board[None], np.array([[d1, d2]]), rules)
            try:
                row = parse_play(a.play, board, d1, d2, plays, rules)
            except ValueError as e:
                raise IllegalAction(_where(number, move, a.player, names, a.line,
                                           f"{d1}{d2}: {a.play or '(no play)'!r}: {e}")
                                    ) from None
            turn.roll, turn.play = (d1, d2), a.play
            after = plays.boards[row]
            if rules.end_of_game(after[None])[0]:
                ended = True
            board = flip(after)
        else:
            raise IllegalAction(_where(number, move, a.player, names, a.line,
                                       f"unknown action {a.kind!r}"))
    if turn is not None and turn.doubled and turn.response is None:
        turn.roll = None  # the file ends on an unanswered double
    return out


def walk_match(match: Match, crawford: list[bool] | None = None, skip: bool = False,
               jacoby: bool = False, beavers: bool = False,
               efficiency: float | None = None) -> list[GameTurns]:
    """Every game's turns. ``crawford`` says which game is the Crawford game (default:
    ``engine.formats.sgf.crawford_games``). An illegal action: IllegalAction, or with
    ``skip`` the game's turns before it and a warning on the game."""
    crawford = crawford_games(match) if crawford is None else crawford
    names = match.names
    out = []
    for number, (game, score, is_crawford) in enumerate(
            zip(match.games, match.scores(), crawford), 1):
        try:
            out.append(walk_game(game, number, score, is_crawford, match, names, jacoby,
                                 beavers, efficiency))
        except IllegalAction as e:
            if not skip:
                raise
            cut = _cut(game, number, score, is_crawford, match, names, jacoby, beavers,
                       efficiency)
            cut.warning = f"{e}; the rest of game {number} is not reviewed"
            out.append(cut)
    return out


def _cut(game: Game, number, score, crawford, match, names, jacoby, beavers,
         efficiency) -> GameTurns:
    """The longest legal beginning of a game: its turns, the illegal one dropped."""
    for n in range(len(game.actions) - 1, -1, -1):
        part = Game(game.actions[:n], None, 0)
        try:
            turns = walk_game(part, number, score, crawford, match, names, jacoby,
                              beavers, efficiency)
        except IllegalAction:
            continue
        if turns.turns and turns.turns[-1].roll is None and n < len(game.actions):
            turns.turns.pop()  # the turn whose play was illegal
        turns.winner, turns.points = None, 0
        return turns
    return GameTurns(number, tuple(score), crawford, None, 0)


__all__ = ["IllegalAction", "Turn", "GameTurns", "walk_game", "walk_match"]
