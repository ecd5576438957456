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

Other programs write the same layout with their own habits, which ``parse_match`` reads as
GNU Backgammon 1.07's ``import mat`` does (its ``ParseMatMove``): ``; [Key "Value"]`` header
lines (kept in ``Match.headers``; ``engine.formats.foreign`` says what the rules ones mean);
a roll that cannot be played written ``64: Cannot Move`` (Backgammon Studio, eXtreme
Gammon); a roll with ``????`` for its play (Backgammon Studio, eXtreme Gammon: the player
rolled and then resigned, or the game ended on time); a ``Losses N point(s)`` cell beside
or under the winner's (Backgammon Galaxy), which only repeats the points and may stand in
either column; ``Wins N point(s) and the match``; ``Wins`` in a numbered row; names and
scores of any length. The score line of each game is kept (``Game.score``) and the first
one is the match's score before its first game (``Match.start_score``), so a file holding
the later games of a match reads at their score.

``format_match`` writes a ``Match``, ``parse_match`` reads one, ``replay`` plays a game's
actions on the board and raises ValueError at the first illegal one; ``settle`` makes a
read match say what its play says (a roll then a resignation, results and scores the file
states otherwise), as GNU Backgammon imports it, with a warning for each change. No files:
callers read and write the text.
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
    line: int = field(default=0, compare=False)  # the file's line it was read from (0: none)

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
class SetUp:
    """A game that starts from a position set up by hand rather than the opening position:
    the board (26,) from the side of ``player`` (0 or 1), who is on roll; the cube's value
    and owner (-1 centred, else the player who holds it)."""

    board: np.ndarray
    player: int
    cube: int = 1
    owner: int = -1

    def __eq__(self, other) -> bool:
        return (isinstance(other, SetUp) and np.array_equal(self.board, other.board)
                and (self.player, self.cube, self.owner)
                == (other.player, other.cube, other.owner))


@dataclass
class Game:
    """A game's actions in order, and its end: the winner (None while unfinished) and the
    points won (cube value included). ``start``: a set-up position it starts from (None:
    the opening). What a read file says besides: ``score``, its score line (left, right);
    ``losses``, the N of a ``Losses N point`` line; ``line``, the line its ``Game N``
    header stands on."""

    actions: list[Action] = field(default_factory=list)
    winner: int | None = None
    points: int = 0
    start: SetUp | None = None
    score: tuple[int, int] | None = field(default=None, compare=False)
    losses: int | None = field(default=None, compare=False)
    line: int = field(default=0, compare=False)


@dataclass
class Match:
    """Two players (left, right), the match length (0: a money session), the games and the
    variant they were played in; the score before the first game (a file may hold the later
    games of a match); a read file's ``; [Key "Value"]`` header lines."""

    names: tuple[str, str]
    length: int = 0
    games: list[Game] = field(default_factory=list)
    variant: str = "standard"
    start_score: tuple[int, int] = (0, 0)
    headers: dict[str, str] = field(default_factory=dict, compare=False)

    def scores(self) -> list[tuple[int, int]]:
        """The score before each game: [(left, right), ...]."""
        scores, (left, right) = [], self.start_score
        for game in self.games:
            scores.append((left, right))
            if game.winner == 0:
                left += game.points
            elif game.winner == 1:
                right += game.points
        return scores

    def total(self) -> tuple[int, int]:
        """The score after the last finished game."""
        left = self.start_score[0] + sum(g.points for g in self.games if g.winner == 0)
        return left, self.start_score[1] + sum(g.points for g in self.games if g.winner == 1)


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
    for number, game in enumerate(match.games, 1):
        if game.start is not None:
            raise ValueError(f"game {number} starts from a set-up position, which a .mat "
                             f"file cannot hold")
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
_COMMENT = re.compile(r'^[;#]\s*\[\s*([^"\]]*?)\s*"(.*)"\s*\]\s*$')
# what stands for no play after a roll: Studio and XG's "Cannot Move" for a roll that cannot
# be played; their "????" (gnubg: "XG writes this when the player resigned after rolling")
_NO_PLAY = re.compile(r"^(cannot\s+move|\?{3,4})$", re.IGNORECASE)
_CELLS = ("a roll and its play ('52: 13/8 13/11'), 'Doubles => N', 'Takes', 'Drops', "
          "'Wins N point(s)' or 'Losses N point(s)'")


def variant_of(name: str) -> str | None:
    """The variant a ``Variation`` header names (gnubg's words), None for one gammon does not
    know."""
    return {v.lower(): k for k, v in VARIATIONS.items()}.get(name.strip().lower())


def parse_match(text: str) -> Match:
    """A Match from .mat text; ValueError names the line it cannot read and what it
    expected there.

    Names and scores come from each game's score line (the first one's score is the
    match's ``start_score``). Plays keep their text (checked only by ``replay`` and
    ``settle``); a game's winner and points come from its ``Wins`` line, as written.
    """
    match: Match | None = None
    length, variant, headers = None, "standard", {}
    game: Game | None = None
    expect_names = False
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r\n").lstrip("\ufeff")
        if not line.strip():
            continue
        if line.lstrip().startswith((";", "#")):
            found = _COMMENT.match(line.strip())
            if found and length is None:
                key, value = found.group(1), found.group(2)
                headers[key] = value
                if key.lower() == "variation":
                    variant = variant_of(value) or variant
            continue
        if length is None:
            header = _HEADER.match(line)
            if not header:
                raise ValueError(f"line {number}: expected 'N point match', got "
                                 f"{line.strip()[:60]!r}")
            length = int(header.group(1))
            continue
        if _GAME.match(line):
            game, expect_names = Game(line=number), True
            continue
        if game is None:
            raise ValueError(f"line {number}: expected 'Game N', got {line.strip()[:60]!r}")
        if expect_names:
            names, score = _read_names(line, number)
            game.score = score
            if match is None:
                match = Match(names, length, [], variant, score, headers)
            match.games.append(game)
            expect_names = False
            continue
        for row in _rows(line):
            for player, cell in enumerate(_split_row(row)):
                _read_cell(cell, player, game, number)
    if length is None:
        raise ValueError("not a .mat file: no 'N point match' line")
    return match or Match(("player 1", "player 2"), length, [], variant, (0, 0), headers)


def _read_names(line: str, number: int) -> tuple[tuple[str, str], tuple[int, int]]:
    """Names and scores of ``alice : 3        bob : 0`` (a name may be empty, as some
    sites write a player who left: it is named by its column then)."""
    found = re.match(r"^\s*(.*?)\s*:\s*(\d+)\s+(.*?)\s*:\s*(\d+)\s*$", line)
    if not found:
        raise ValueError(f"line {number}: expected the players and the score, 'NAME : SCORE"
                         f"   NAME : SCORE', got {line.strip()[:60]!r}")
    names = (found.group(1).strip() or "player 1", found.group(3).strip() or "player 2")
    return names, (int(found.group(2)), int(found.group(4)))


_SECOND_ROW = re.compile(r"^(.*?\S)\s{2,}(\d+\)\s.*)$")


def _rows(line: str) -> list[str]:
    """The rows of a line: one, or two when a row number stands after the first one's
    cells (Galaxy: ``24) 43: 21/18 18/14      24)  Losses 2 point ...  Wins 2 point``, a
    row written without its line break)."""
    found = _SECOND_ROW.match(line)
    if found and re.match(r"^\s*\d+\)", line):
        return [found.group(1), found.group(2)]
    return [line]


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
        play = " ".join(roll.group(3).split())
        if _NO_PLAY.match(play):
            play = ""
        game.actions.append(Action(player, PLAY, (d1, d2), play, line=number))
    elif lower.startswith("double"):
        value = re.search(r"=>\s*(\d+)", cell)
        game.actions.append(Action(player, DOUBLE, cube=int(value.group(1)) if value else 0,
                                   line=number))
    elif lower.startswith("take"):
        game.actions.append(Action(player, TAKE, line=number))
    elif lower.startswith(("drop", "pass")):
        game.actions.append(Action(player, DROP, line=number))
    elif lower.startswith("win"):
        points = re.search(r"(\d+)", cell)
        game.winner, game.points = player, int(points.group(1)) if points else 1
    elif lower.startswith("loss"):  # Galaxy's loser's line: its points, in either column
        points = re.search(r"(\d+)", cell)
        game.losses = int(points.group(1)) if points else None
    elif lower.startswith(("beaver", "raccoon")):
        raise ValueError(f"line {number}: {cell[:40]!r}: a beaver (a double answered by a "
                         f"redouble) cannot be held by gammon's records")
    else:
        raise ValueError(f"line {number}: cannot read {cell[:40]!r}: expected {_CELLS}")


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


def replay(game: Game, variant: str = "standard", number: int = 1,
           jacoby: bool = False) -> Replay:
    """Play a game's actions from the start through the game loop (``engine.game``) and the
    cube's rules (``engine.cube``; ``jacoby``: a money game's gammons count single while the
    cube is centred); ValueError at the first illegal one.

    Checks that players alternate, that every play is legal for its roll, that a double
    comes before a roll from the player on turn with the cube the rules give, that takes and
    drops answer a double, and that the Wins line agrees with the end of the game.
    """
    rules = get_variant(variant)
    cube_rules = CubeRules(jacoby=True, max_cube=_MONEY.max_cube) if jacoby else _MONEY
    state, ended, winner, points = _walk(game, rules, cube_rules, number)
    if state is None:
        state = start_state(game, rules, 0)
    board = state.boards[0] if ended != "bear-off" else flip(state.boards[0])
    if game.winner is not None:
        if not ended:
            winner, points, ended = game.winner, game.points, "resignation"
        elif (game.winner, game.points) != (winner, points):
            raise ValueError(f"game {number}: the file says player {game.winner} wins "
                             f"{game.points}, the play says player {winner} wins {points}")
    return Replay(board, int(state.cube.value[0]), winner, points, ended)


def _walk(game: Game, rules, cube_rules: CubeRules, number: int = 1, settle: bool = False):
    """The one walk of a game's actions through the game loop: (the game loop's state or
    None without actions, how the play ended the game ("bear-off", "drop" or ""), the
    winner, the points); ValueError naming the first illegal action.

    ``settle``: as GNU Backgammon imports, rolls written without plays after the game's end
    are dropped from ``game.actions``, and so is a last roll without a play that could be
    played (the player rolled, then resigned)."""
    state, pending, winner, points, ended = None, None, None, 0, ""
    one = np.zeros(1, dtype=np.int64)
    actions = game.actions
    for k, a in enumerate(actions):
        where = (f"game {number}, action {k + 1} ({a.kind} by player {a.player}"
                 f"{f', line {a.line}' if a.line else ''})")
        if ended:
            if settle and all(b.kind == PLAY and not b.play for b in actions[k:]):
                del actions[k:]  # rolls written after the game's end, without plays
                break
            raise ValueError(f"{where}: the game is already over ({ended})")
        if state is None:
            state = start_state(game, rules, a.player)
        mover, cube = int(state.seat[0]), state.cube
        if a.kind == PLAY:
            if pending is not None:
                raise ValueError(f"{where}: the double must be taken or dropped first")
            if a.player != mover:
                raise ValueError(f"{where}: it is player {mover}'s turn")
            board = state.boards[0]
            plays = legal_plays(board[None], np.array([a.dice]), rules)
            if settle and not a.play and plays.dice_used[0] > 0 and k == len(actions) - 1:
                del actions[k]  # a roll, then the end: the player resigned after rolling
                break
            try:
                row = parse_play(a.play, board, a.dice[0], a.dice[1], plays, rules)
            except ValueError as e:
                raise ValueError(f"{where}: {a.dice[0]}{a.dice[1]}: {a.play!r}: {e}") from None
            if end_turn(state, one, plays.boards[row][None], rules, cube_rules)[0]:
                winner, ended, points = mover, "bear-off", abs(int(state.points[0]))
        elif a.kind == DOUBLE:
            if pending is not None or a.player != mover:
                raise ValueError(f"{where}: only the player on turn may double, before rolling")
            if not may_double(cube, cube_rules)[0]:
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
    return state, ended, winner, points


def start_state(game: Game, rules, player: int):
    """The game loop's state (``engine.game``) of one game at its start: the opening
    position with ``player`` on roll and a centred cube, or the game's set-up position."""
    if game.start is None:
        return new_games(rules, [player], Cube.centred(1))
    s = game.start
    owner = 0 if s.owner < 0 else (1 if s.owner == s.player else -1)
    state = new_games(rules, [s.player], Cube(np.array([s.cube], dtype=np.int32),
                                              np.array([owner], dtype=np.int8)))
    state.boards[0] = np.asarray(s.board, dtype=np.int8)
    return state


# ---------------------------------------------------------------------------------------------
# Settling a read match


def _who(match: Match, player: int | None) -> str:
    return match.names[player] if player in (0, 1) else "nobody"


def settle(match: Match, jacoby: bool = False) -> list[str]:
    """Make a read match say what its play says, as GNU Backgammon 1.07 imports it; one
    warning (a line) for each thing changed, saying what the file says and what is used.

    - A roll written without a play (``51:``, ``51: ????``) as the last action of a game,
      when the roll could be played, is the player rolling and then resigning (or the game
      ending on time): the roll is dropped (gnubg: "roll but no move found; if there are
      legal moves assume a resignation"). So is a roll without a play after the game's end.
    - A game the play ends (the last checker borne off, a double dropped) is won as the
      play says; a ``Wins`` line saying another winner or other points is warned about.
    - A ``Wins`` line in a game the play does not end is a resignation, which wins 1, 2 or
      3 times the cube: other points are rounded up to one of them, as gnubg does (at most
      3 times the cube), with a warning. A ``Losses`` line with other points is warned about.
    - The score before each game is the match's first score plus the games before it; a
      score line saying otherwise is warned about (once where the difference appears).
    - Games after the match is over (a player has the match length) are dropped, as gnubg
      does, with a warning.

    A game with an illegal action is left as read from that action on (its winner as the
    file says): ``replay`` or the review's walk names the action. ``jacoby``: money games
    were played with the Jacoby rule (gammons single while the cube is centred).
    """
    warnings: list[str] = []
    rules = get_variant(match.variant)
    cube_rules = CubeRules(jacoby=bool(jacoby) and not match.length, max_cube=_MONEY.max_cube)
    score = list(match.start_score)  # before each game, as the games settled add up
    for number, game in enumerate(match.games, 1):
        end = _settle_game(game, rules, cube_rules)
        if end is None:
            if game.winner in (0, 1):
                score[game.winner] += game.points
            continue
        ended, winner, points, cube = end
        said = (game.winner, game.points) if game.winner is not None else None
        if said is not None and game.losses is not None and game.losses != said[1]:
            warnings.append(f"game {number}: the file's Losses line says {game.losses}, its "
                            f"Wins line {said[1]}: the Wins line is read")
        if ended:
            if said is not None and said != (winner, points) and \
                    not _ends_match(match, score, said, winner, points):
                warnings.append(
                    f"game {number}: the file says {_who(match, said[0])} wins {said[1]}, the "
                    f"play says {_who(match, winner)} wins {points} ({ended}): {points} for "
                    f"{_who(match, winner)} is used")
            game.winner, game.points = winner, points
        elif said is not None:
            allowed = (cube, 2 * cube, 3 * cube)
            if said[1] not in allowed:
                used = next((v for v in allowed if said[1] <= v), allowed[-1])
                if not _ends_match(match, score, said, said[0], used):
                    warnings.append(
                        f"game {number}: the file says {_who(match, said[0])} wins {said[1]}, "
                        f"a resignation wins 1, 2 or 3 times the cube ({cube}): {used} is used")
                game.points = used
        if game.winner in (0, 1):
            score[game.winner] += game.points
    before, gap = match.scores(), (0, 0)
    for number, (game, score) in enumerate(zip(match.games, before), 1):
        if match.length and max(score) >= match.length:
            left = len(match.games) - number + 1
            warnings.append(f"game {number}: the match is over before it (score "
                            f"{score[0]}-{score[1]} in a match to {match.length}): "
                            f"{'it is' if left == 1 else f'it and the {left - 1} after it are'}"
                            f" not read")
            del match.games[number - 1:]
            break
        if game.score is None or number == 1:
            continue
        diff = (game.score[0] - score[0], game.score[1] - score[1])
        if diff != gap and diff != (0, 0):
            warnings.append(f"game {number}: the file says the score before it is "
                            f"{game.score[0]}-{game.score[1]}, the games before it add up to "
                            f"{score[0]}-{score[1]}: {score[0]}-{score[1]} is used")
        gap = diff
    return warnings


def _ends_match(match: Match, score, said, player: int, won: int) -> bool:
    """Whether a game that the file says ``said`` (winner, points) of ends the match either
    way: Galaxy writes the points the winner needed, or the match length, for "Wins N point
    and the match", whatever the game was worth."""
    need = match.length - score[player] if match.length else 0
    return (said[0] == player and need > 0 and said[1] in (need, match.length)
            and won >= need)


def _settle_game(game: Game, rules, cube_rules: CubeRules):
    """(how the play ended the game, winner, points, the cube's value at the end) after
    dropping a trailing roll without a play (``_walk``'s settle); None at the first illegal
    action (the game is left as read: ``replay`` or the review's walk names the action)."""
    try:
        state, ended, winner, points = _walk(game, rules, cube_rules, settle=True)
    except ValueError:
        return None
    value = int(state.cube.value[0]) if state is not None else (
        game.start.cube if game.start is not None else 1)
    return ended, winner, points, value


__all__ = ["Action", "Game", "Match", "SetUp", "PLAY", "DOUBLE", "TAKE", "DROP", "play_text",
           "format_match", "parse_match", "replay", "Replay", "settle", "start_state",
           "variant_of", "VARIATIONS"]
