"""The public API's position and play (``from gammon import Position, Play``).

A ``Position`` is a board seen from the player on roll, as the engine sees every board
(``gammon.engine.board``: (26,) int8, cell 0 the opponent's bar, cells 1..24 the points,
his checkers positive, cell 25 his bar), and the variant it is played under. It is read
from and written as a GNU Backgammon Position ID or an XGID (Plakoto: its ``plakoto:``
text), and gives the legal plays of a roll. Everything here is NumPy and the engine; no
network is loaded.

The work is the engine's: ``gammon.engine.formats`` reads and writes the text
(``gammon.positions.read_position`` with its one-line errors), ``gammon.engine.movegen``
makes the plays, ``gammon.engine.formats.notation`` writes them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gammon.engine.board import flip
from gammon.engine.formats import position as position_text
from gammon.engine.formats import xgid
from gammon.engine.formats.diagram import diagram
from gammon.engine.formats.notation import format_play
from gammon.engine.movegen import legal_plays
from gammon.engine.rules import Rules, variant as get_variant

from .api_checks import die, rules_of
from .errors import UsageError
from .positions import read_position

CELLS = 26


def checked_board(board: object, rules: Rules) -> np.ndarray:
    """``board`` as a read-only (26,) int8 array, if it is a position of ``rules``: 26
    whole numbers that its own text (Position ID, ``plakoto:``) writes and reads back
    unchanged (so no more checkers a side than the variant has, each bar holding only its
    own side's checkers). A one-line ValueError otherwise."""
    cells = np.asarray(board)
    if cells.shape != (CELLS,) or cells.dtype.kind not in "iu":
        raise UsageError(f"a board is 26 whole numbers (cell 0 the opponent's bar, 1..24 the "
                         f"points, 25 the bar of the player on roll), got shape "
                         f"{cells.shape} of {cells.dtype}")
    if np.abs(cells.astype(np.int64)).max() > 127:
        raise UsageError("a board cell holds at most 127 checkers")
    cells = cells.astype(np.int8)
    try:
        same = np.array_equal(position_text.read(position_text.write(cells, rules), rules),
                              cells)
    except ValueError:
        same = False
    if not same:
        raise UsageError(f"not a {rules.name} position: {rules.checkers} checkers a side at "
                         f"most, the player on roll's positive, his bar in cell 25 (>= 0), "
                         f"the opponent's in cell 0 (<= 0); got {cells.tolist()}")
    cells.setflags(write=False)
    return cells


@dataclass(frozen=True, eq=False)
class Position:
    """A position from the side of the player on roll: ``board`` (26,) int8 (read-only;
    cell 0 the opponent's bar, 1..24 the points, 25 the bar of the player on roll, his
    checkers positive) under ``variant`` (``standard``, ``nackgammon``, ``plakoto``, ...).
    ``Position(board, variant)`` checks the board; ``from_id`` reads text, ``start`` gives
    the opening position. Two positions are equal when their variant and cells are."""

    board: np.ndarray
    variant: str = "standard"

    def __post_init__(self) -> None:
        rules = rules_of(self.variant)
        object.__setattr__(self, "variant", rules.name)
        object.__setattr__(self, "board", checked_board(self.board, rules))

    @classmethod
    def from_id(cls, text: str, variant: str = "standard") -> Position:
        """The position of a GNU Backgammon Position ID (``4HPwATDgc/ABMA``), an XGID (its
        board, from the side of the player it gives on roll) or, for Plakoto, its
        ``plakoto:`` text. A one-line ValueError says what is wrong with bad text."""
        if not isinstance(text, str):
            raise UsageError(f"a position is text (a Position ID or an XGID), got "
                             f"{type(text).__name__}")
        rules = rules_of(variant)
        return cls(read_position(text, rules.name), rules.name)

    @classmethod
    def _made(cls, board: np.ndarray, variant: str) -> Position:
        """A position the engine made (a generator's afterstate): not checked again."""
        cells = np.array(board, dtype=np.int8)
        cells.setflags(write=False)
        made = object.__new__(cls)
        object.__setattr__(made, "board", cells)
        object.__setattr__(made, "variant", variant)
        return made

    @classmethod
    def start(cls, variant: str = "standard") -> Position:
        """The opening position of ``variant``."""
        rules = rules_of(variant)
        return cls(rules.start_board(), rules.name)

    @property
    def rules(self) -> Rules:
        """The variant's rules object (``gammon.engine.rules``)."""
        return get_variant(self.variant)

    @property
    def position_id(self) -> str:
        """The GNU Backgammon Position ID (for Plakoto, its ``plakoto:`` text)."""
        return position_text.write(self.board, self.rules)

    @property
    def xgid(self) -> str:
        """The XGID of the position: money play, a centred cube, the player on roll at the
        bottom, not yet rolled. ValueError for Plakoto, whose pins an XGID cannot hold."""
        if self.rules.position_format != "posid":
            raise UsageError(f"an XGID cannot hold {self.variant} positions; use position_id")
        return xgid.encode(self.board)

    def flipped(self) -> Position:
        """The same position with the other player on roll."""
        return Position(flip(self.board), self.variant)

    def legal_plays(self, d1: int, d2: int) -> list[Play]:
        """Every legal play of the roll ``d1``-``d2``, one per distinct result, in the order
        ``gammon moves`` lists them (by the resulting Position ID). Empty when the roll
        cannot be played. ValueError for a die outside 1..6."""
        roll = (die(d1), die(d2))
        rules = self.rules
        plays = legal_plays(self.board[None], np.array([roll]), rules)
        if plays.dice_used[0] == 0:
            return []
        points = rules.end_of_game(plays.boards)
        found = [Play(format_play(plays.steps[k], plays.hits[k], roll),
                      Position._made(plays.boards[k], self.variant), int(points[k]))
                 for k in range(len(plays))]
        return sorted(found, key=lambda play: play.after.position_id)

    def diagram(self) -> str:
        """The board as text (``gammon show``), X on roll."""
        rules = self.rules
        return diagram(self.board, rules.checkers, pins=rules.position_format == "plakoto")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self.variant == other.variant and bool(np.array_equal(self.board, other.board))

    def __hash__(self) -> int:
        return hash((self.variant, self.board.tobytes()))

    def __repr__(self) -> str:
        more = "" if self.variant == "standard" else f", variant={self.variant!r}"
        return f"Position.from_id({self.position_id!r}{more})"


@dataclass(frozen=True)
class Play:
    """One legal play of a roll: ``notation`` in Magriel notation (``8/5 6/5``, ``Ø`` for
    dice it leaves unused), ``after`` the afterstate (still from the side of the player who
    moved: its ``position_id`` is what ``gammon moves`` prints; ``after.flipped()`` puts the
    opponent on roll), ``points`` what the play wins when it ends the game (1, 2, 3), else
    0."""

    notation: str
    after: Position
    points: int = 0

    def __str__(self) -> str:
        return self.notation


def as_position(position: Position | str) -> Position:
    """A ``Position``, or text read as a standard one (``Position.from_id``)."""
    if isinstance(position, Position):
        return position
    return Position.from_id(position)


__all__ = ["Play", "Position", "as_position", "checked_board"]
