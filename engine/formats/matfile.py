"""Jellyfish ``.mat`` match files, as GNU Backgammon exports and imports them.

A match is a header, then each game: `` Game N``, the two names with the score before the
game, then numbered rows with the left player's action and the right player's action::

     0 point match

     Game 1
     alice : 0                      bob : 0
      1)                             31: 8/5 6/5
      2) 64: 24/18 13/9              Doubles => 2
      3)  Takes                      52: 13/8 13/11
     ...
          Wins 1 point

A play is the roll and its steps in the order played, each ``from/to`` from the mover's
own side (bar 25, off 0, ``*`` after a hit), with no step combined (``13/10 10/6``), as
gnubg's ``FormatMovePlain``; a roll that cannot be played is the roll alone (``66:``).
Cube actions fill a cell of their own: `` Doubles => 2``, `` Takes``, `` Drops``. A game
ends with ``Wins N point(s)`` under the winner's column; written while the game is still
in play (no last bear-off, no drop) it records a resignation, as gnubg reads it. The
layout follows gnubg's exporter (left cells ``%3d) %-27s ``), and reading follows its
importer's column rules, so files round-trip through ``import mat`` / ``export match mat``.

``format_match`` writes a ``Match``, ``parse_match`` reads one, ``replay`` plays a game's
actions on the board and raises ValueError at the first illegal one. No files: callers
read and write the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..board import flip
from ..rules import variant as get_variant
from ..cube import TAKE as TAKE_CUBE, Cube, CubeRules, accept, may_double, pass_points
from ..game import end_turn, new_games
from ..movegen import legal_plays
from .notation import parse_play

PLAY, DOUBLE, TAKE, DROP = "play", "double", "take", "drop"
# the Variation header gnubg reads, per variant (longgammon: gnubg has none)
VARIATIONS = {"standard": "Backgammon", "nackgammon": "NackGammon",
              "hypergammon": "HyperGammon (3)"}


@dataclass
class Action:
    """One cell of a game: a play (roll and steps) or a cube action, by player 0 or 1.

    player: 0 for the left column (the first name), 1 for the right
    kind:   "play", "double", "take" or "drop"
    dice:   the roll of a play, larger die first
    play:   the play in .mat notation (``8/5 6/5``), "" when the roll could not be played
    cube:   the cube value a double offers (2, 4, ...)
    """

    player: int
    kind: str
    dice: tuple[int, int] = (0, 0)
    play: str = ""
    cube: int = 0

    def cell(self) -> str:
        """The action as gnubg writes it in its cell (moves with a trailing space)."""
        if self.kind == PLAY:
            d1, d2 = self.dice
            return f"{d1}{d2}: " + "".join(f"{step} " for step in self.play.split())
        if self.kind == DOUBLE:
            return f" Doubles => {self.cube}"
        if self.kind == TAKE:
            return " Takes"
        if self.kind == DROP:
            return " Drops"
        raise ValueError(f"unknown action kind {self.kind!r}")


@dataclass
class Game:
    """A game's actions in order, and its end: the winner (None while unfinished) and the
    points won (cube value included)."""

    actions: list[Action] = field(default_factory=list)
    winner: int | None = None
    points: int = 0


@dataclass
class Match:
    """Two players (left, right), the match length (0: a money session), the games and the
    variant they were played in."""

    names: tuple[str, str]
    length: int = 0
    games: list[Game] = field(default_factory=list)
    variant: str = "standard"

    def scores(self) -> list[tuple[int, int]]:
        """The score before each game: [(left, right), ...]."""
        scores, left, right = [], 0, 0
        for game in self.games:
            scores.append((left, right))
            if game.winner == 0:
                left += game.points
            elif game.winner == 1:
                right += game.points
        return scores

    def total(self) -> tuple[int, int]:
        """The score after the last finished game."""
        left = sum(g.points for g in self.games if g.winner == 0)
        return left, sum(g.points for g in self.games if g.winner == 1)


def play_text(steps, hits) -> str:
    """A play in .mat notation from its steps (4, 2) of (from, to), -1 unused, and hits (4,):
    ``24/18 13/9``, ``25/22*``, ``5/0``; '' when no step was played."""
    out = []
    for (source, target), hit in zip(np.asarray(steps).reshape(-1, 2), np.asarray(hits)):
        if source < 0:
            continue
        out.append(f"{int(source)}/{int(target)}{'*' if hit else ''}")
    return " ".join(out)


def _name(name: str) -> str:
    """A player name as a .mat line can hold it: no colon (it ends the name), no newline."""
    name = re.sub(r"[:\r\n]", "_", str(name)).strip()
    return name or "player"


def _points(n: int) -> str:
    return f"Wins {n} point{'s' if n != 1 else ''}"


def format_match(match: Match, comments: dict[str, str] | None = None) -> str:
    """The .mat text of a match. ``comments`` become ``; [Key "Value"]`` header lines.

    ValueError when the actions of a game do not alternate between the players (every
    legal game does: a double is answered by the other player, who then rolls or not).
    """
    lines = [f'; [{key} "{value}"]' for key, value in (comments or {}).items()]
    if match.variant in VARIATIONS:
        lines.append(f'; [Variation "{VARIATIONS[match.variant]}"]')
    text = "\n".join(lines) + ("\n\n" if lines else "")
    text += f" {match.length} point match\n\n"
    names = [_name(n) for n in match.names]
    for number, (game, (left, right)) in enumerate(zip(match.games, match.scores()), 1):
        text += f" Game {number}\n"
        text += f" {f'{names[0]} : {left}':<31}{names[1]} : {right}\n"
        text += _format_game(game, number)
    return text


def _format_game(game: Game, number: int) -> str:
    """The rows of one game and its Wins line (or a blank line while unfinished)."""
    out, i = [], 0
    for k, action in enumerate(game.actions):
        if action.player not in (0, 1):
            raise ValueError(f"game {number}: player is 0 or 1, got {action.player}")
        if k == 0 and action.player == 1:
            out.append("  1)" + " " * 29)  # the right player starts: empty left cell
            i = 1
        elif action.player != i % 2:
            raise ValueError(f"game {number}, action {k + 1}: player {action.player} acts "
                             f"out of turn")
        if i % 2:
            out.append(action.cell() + "\n")
        else:
            out.append(f"{i // 2 + 1:3d}) {action.cell():<27} ")
        i += 1
    if i % 2:
        out.append("\n")  # close a row whose right cell stays empty
    if game.winner is None:
        return "".join(out) + "\n"
    indent = "      " if game.winner == 0 else " " * 34
    return "".join(out) + f"{indent}{_points(game.points)}\n\n"


# ---------------------------------------------------------------------------------------------
# Reading

_HEADER = re.compile(r"^\s*(\d+)\s+point\s+match", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(\d+)", re.IGNORECASE)
_ROLL = re.compile(r"^([1-6])([1-6]):(.*)$")
_VARIATION = re.compile(r'^[;#]\s*\[Variation\s+"([^"]*)"\]', re.IGNORECASE)


def parse_match(text: str) -> Match:
    """A Match from .mat text; ValueError names the line it cannot read.

    Names come from the first game's score line. Plays keep their text (checked only by
    ``replay``); a game's winner and points come from its ``Wins`` line.
    """
    match: Match | None = None
    length, variant = None, "standard"
    game: Game | None = None
    expect_names = False
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r\n")
        if not line.strip():
            continue
        if line.lstrip().startswith((";", "#")):
            found = _VARIATION.match(line.lstrip())
            if found:
                variant = {v.lower(): k for k, v in VARIATIONS.items()}.get(
                    found.group(1).lower(), variant)
            continue
        if length is None:
            header = _HEADER.match(line)
            if not header:
                raise ValueError(f"line {number}: expected 'N point match', got {line.strip()!r}")
            length = int(header.group(1))
            continue
        if _GAME.match(line):
            game, expect_names = Game(), True
            continue
        if game is None:
            raise ValueError(f"line {number}: expected 'Game N', got {line.strip()!r}")
        if expect_names:
            names = _read_names(line, number)
            if match is None:
                match = Match(names, length, [], variant)
            match.games.append(game)
            expect_names = False
            continue
        for player, cell in enumerate(_split_row(line)):
            _read_cell(cell, player, game, number)
    if length is None:
        raise ValueError("not a .mat file: no 'N point match' line")
    return match or Match(("player 1", "player 2"), length, [], variant)


def _read_names(line: str, number: int) -> tuple[str, str]:
    """Names of ``alice : 3        bob : 0``."""
    found = re.match(r"^\s*(.+?)\s*:\s*(\d+)\s+(.+?)\s*:\s*(\d+)\s*$", line)
    if not found:
        raise ValueError(f"line {number}: expected 'NAME : SCORE   NAME : SCORE', "
                         f"got {line.strip()!r}")
    return found.group(1), found.group(3)


def _split_row(line: str) -> tuple[str, str]:
    """(left cell, right cell) of a row, by gnubg's importer's rules: the right cell starts at
    the roll before a second colon, or else at the first double space after column 15."""
    right = ""
    first = line.find(":")
    second = line.find(":", first + 1) if first >= 0 else -1
    if first >= 0 and second > 3:
        line, right = line[:second - 3], line[second - 2:]
    elif len(line) > 15 and "  " in line[15:]:
        cut = line.index("  ", 15)
        line, right = line[:cut], line[cut + 1:]
    paren = line.find(")")
    return (line[paren + 1:] if paren >= 0 else line), right


def _read_cell(cell: str, player: int, game: Game, number: int) -> None:
    """Add the action of one cell (if any) to the game."""
    cell = cell.strip()
    if not cell:
        return
    roll = _ROLL.match(cell)
    lower = cell.lower()
    if roll:
        d1, d2 = sorted((int(roll.group(1)), int(roll.group(2))), reverse=True)
        game.actions.append(Action(player, PLAY, (d1, d2), " ".join(roll.group(3).split())))
    elif lower.startswith("double"):
        value = re.search(r"=>\s*(\d+)", cell)
        game.actions.append(Action(player, DOUBLE, cube=int(value.group(1)) if value else 0))
    elif lower.startswith("take"):
        game.actions.append(Action(player, TAKE))
    elif lower.startswith(("drop", "pass")):
        game.actions.append(Action(player, DROP))
    elif lower.startswith("win"):
        points = re.search(r"(\d+)", cell)
        game.winner, game.points = player, int(points.group(1)) if points else 1
    else:
        raise ValueError(f"line {number}: cannot read {cell!r}")


# ---------------------------------------------------------------------------------------------
# Replaying


_MONEY = CubeRules(max_cube=1 << 30)  # the cube as a .mat file records it: no limit


@dataclass
class Replay:
    """The end of a replayed game: the board from the player on roll (or who just won), the
    cube, who won how (None while unfinished) and whether it ended on a drop or a
    resignation."""

    board: np.ndarray
    cube: int
    winner: int | None
    points: int
    ended_by: str  # "bear-off", "drop", "resignation" or "" (unfinished)


def replay(game: Game, variant: str = "standard", number: int = 1) -> Replay:
    """Play a game's actions from the start through the game loop (``engine.game``) and the
    cube's rules (``engine.cube``); ValueError at the first illegal one.

    Checks that players alternate, that every play is legal for its roll, that a double
    comes before a roll from the player on turn with the cube the rules give, that takes and
    drops answer a double, and that the Wins line agrees with the end of the game.
    """
    rules = get_variant(variant)
    state = None  # one game; its seat is the .mat player (0 left, 1 right)
    pending, winner, points, ended = None, None, 0, ""
    one = np.zeros(1, dtype=np.int64)
    for k, a in enumerate(game.actions, 1):
        where = f"game {number}, action {k} ({a.kind} by player {a.player})"
        if ended:
            raise ValueError(f"{where}: the game is already over ({ended})")
        if state is None:
            state = new_games(rules, [a.player], Cube.centred(1))
        mover, cube = int(state.seat[0]), state.cube
        if a.kind == PLAY:
            if pending is not None:
                raise ValueError(f"{where}: the double must be taken or dropped first")
            if a.player != mover:
                raise ValueError(f"{where}: it is player {mover}'s turn")
            board = state.boards[0]
            plays = legal_plays(board[None], np.array([a.dice]), rules)
            try:
                row = parse_play(a.play, board, a.dice[0], a.dice[1], plays, rules)
            except ValueError as e:
                raise ValueError(f"{where}: {a.dice[0]}{a.dice[1]}: {a.play!r}: {e}") from None
            if end_turn(state, one, plays.boards[row][None], rules, _MONEY)[0]:
                winner, ended, points = mover, "bear-off", abs(int(state.points[0]))
        elif a.kind == DOUBLE:
            if pending is not None or a.player != mover:
                raise ValueError(f"{where}: only the player on turn may double, before rolling")
            if not may_double(cube, _MONEY)[0]:
                raise ValueError(f"{where}: the cube belongs to the other player")
            if a.cube and a.cube != 2 * cube.value[0]:
                raise ValueError(f"{where}: doubles to {a.cube}, the cube is at {cube.value[0]}")
            pending = a.player
        elif a.kind in (TAKE, DROP):
            if pending is None or a.player == pending:
                raise ValueError(f"{where}: there is no double to answer")
            if a.kind == TAKE:
                state.cube = accept(cube, np.array([TAKE_CUBE], dtype=np.int8))
                pending = None
            else:
                winner, points, ended = pending, int(pass_points(cube)[0]), "drop"
        else:
            raise ValueError(f"{where}: unknown action")
    if state is None:
        state = new_games(rules, [0], Cube.centred(1))
    board = state.boards[0] if ended != "bear-off" else flip(state.boards[0])
    if game.winner is not None:
        if not ended:
            winner, points, ended = game.winner, game.points, "resignation"
        elif (game.winner, game.points) != (winner, points):
            raise ValueError(f"game {number}: the file says player {game.winner} wins "
                             f"{game.points}, the play says player {winner} wins {points}")
    return Replay(board, int(state.cube.value[0]), winner, points, ended)


__all__ = ["Action", "Game", "Match", "PLAY", "DOUBLE", "TAKE", "DROP", "play_text",
           "format_match", "parse_match", "replay", "Replay"]
