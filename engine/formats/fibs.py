"""FIBS board states (``board:...`` lines), as GNU Backgammon sends them to external players.

A FIBS board line is ``board:`` and 52 or more colon-separated fields (gnubg may append one):

    0, 1 the two names  2 match length (0 or 9999: money)   3, 4 their scores
    5..30  the 26 cells of the board: 5 and 30 are the bars (see home/bar below),
           6..29 the points 1..24; > 0 checkers of colour O (+1), < 0 of colour X (-1)
    31 turn: +1 O to act, -1 X to act, 0 game over
    32, 33 the player's dice    34, 35 the opponent's dice   (0 0: not rolled)
    36 cube value   37 player may double   38 opponent may double
    39 was doubled (non-zero: a double waits for an answer; gnubg's sign says by whom)
    40 colour of the player (+1 O, -1 X)
    41 direction of the player (-1: moves from 24 down to 1, +1: from 1 up to 24)
    42 home   43 bar    (0 and 25, or 25 and 0, for the player)
    44, 45 borne off by the player, by the opponent    46, 47 on the bar (often 0)
    48 can move   49 forced move   50 did Crawford   51 redoubles   [52 post-Crawford]

The side that must act is the one on turn, or, while a double waits for an answer, the
other one (as gnubg's own reader decides). The names and scores (fields 0, 1 and 3, 4):
gnubg 1.07 writes the acting side's pair first exactly when the turn field is -1, and
second when it is 1, whichever side that is (read off its lines in real matches against
this server, as player 0 and as player 1, on the turn and answering doubles, against the
scores of the .mat files it exported: ``tests/test_external.py``). Reading field 3 as the
acting side's score always would have reversed the score of every decision on our turn
in a match with the server as gnubg's player 1. ``parse_board`` returns everything from that
side's view: the board in this package's layout (``engine.board``: cell 25 its bar, 0 the
opponent's, points numbered from its own side), its dice, its score first, and whether it
answers a double. ``format_board`` writes the line gnubg writes for a position (and the
other orientations, for tests).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..board import CELLS, check_board

FIELDS = 52  # after "board:"; gnubg 1.07 sends exactly these, later versions one more


@dataclass
class FibsBoard:
    """A FIBS board seen from the side that must act now ("we").

    names:       (ours, theirs)
    match_length: 0 for a money session
    score:       (ours, theirs)
    board:       (26,) int8 from our side: cell 25 our bar, 0 theirs, + our checkers
    dice:        our roll (larger first), or (0, 0) when we have not rolled (a cube decision)
    cube:        the cube value
    may_double:  (we may, they may): both while the cube is centred
    doubled:     we must answer a double (take, drop or beaver)
    crawford:    this is the Crawford game (no doubling)
    """

    names: tuple[str, str]
    match_length: int
    score: tuple[int, int]
    board: np.ndarray
    dice: tuple[int, int]
    cube: int
    may_double: tuple[bool, bool]
    doubled: bool
    crawford: bool

    @property
    def cube_owner(self) -> int:
        """Who owns the cube, from our side: +1 we do, 0 centred, -1 they do."""
        ours, theirs = self.may_double
        if ours and not theirs:
            return 1
        if theirs and not ours:
            return -1
        return 0


def parse_board(line: str, checkers: int = 15) -> FibsBoard:
    """Read a ``board:...`` line; ValueError says what is wrong with it."""
    text = line.strip().strip("\x00").strip()
    if not text.startswith("board:"):
        raise ValueError("a FIBS board line starts with 'board:'")
    fields = text[len("board:"):].split(":")
    if len(fields) < FIELDS:
        raise ValueError(f"a FIBS board has at least {FIELDS} fields after 'board:', "
                         f"got {len(fields)}")
    try:
        n = [int(f) for f in fields[2:FIELDS]]
    except ValueError:
        bad = next(f for f in fields[2:FIELDS] if not _is_int(f))
        raise ValueError(f"field {fields.index(bad)} is not a whole number: {bad!r}") from None
    v = [0, 0] + n  # v[i] is field i
    cells = np.array(v[5:31], dtype=np.int64)
    turn, colour, direction = v[31], v[40], v[41]
    if turn == 0:
        raise ValueError("the game is over (turn 0): nothing to decide")
    if colour not in (-1, 1) or direction not in (-1, 1) or turn not in (-1, 1):
        raise ValueError(f"turn, colour and direction must be 1 or -1, got {turn}, "
                         f"{colour}, {direction}")
    may, opp_may = bool(v[37]), bool(v[38])
    doubled = v[39] != 0 or (not may and not opp_may)  # FIBS: both flags 0 while doubled
    acting = -turn if doubled else turn  # the colour that decides now
    mine = acting == colour  # the acting side is the line's "player"
    moves_down = (direction if mine else -direction) < 0
    board = _from_cells(cells, acting, moves_down)
    try:
        check_board(board, checkers)
    except ValueError as e:
        raise ValueError(f"impossible position: {e}") from None
    dice = (v[32], v[33]) if mine else (v[34], v[35])
    if dice == (0, 0):
        dice = (v[34], v[35]) if mine else (v[32], v[33])
    if any(not 0 <= d <= 6 for d in dice) or (0 in dice and dice != (0, 0)):
        raise ValueError(f"dice must be 1..6 (or 0 0 before the roll), got {dice}")
    # names and scores: the acting side's pair first when the turn field is -1 (module doc)
    first = turn == -1
    names = (fields[0], fields[1]) if first else (fields[1], fields[0])
    score = (v[3], v[4]) if first else (v[4], v[3])
    may_double = (may, opp_may) if mine else (opp_may, may)
    length = 0 if v[2] == 9999 else v[2]
    return FibsBoard(names, length, score, board, tuple(sorted(dice, reverse=True)), v[36],
                     may_double, doubled, bool(v[50]))


def _is_int(text: str) -> bool:
    try:
        int(text)
        return True
    except ValueError:
        return False


def _from_cells(cells: np.ndarray, acting: int, moves_down: bool) -> np.ndarray:
    """The board from the acting colour's side: its checkers positive, its points counted
    from its own home (so its bar is cell 25 and the opponent's bar cell 0)."""
    signed = cells * acting  # our checkers > 0
    board = signed if moves_down else signed[::-1]
    if np.abs(board).max(initial=0) > 127:
        raise ValueError("a cell holds more than 127 checkers")
    return board.astype(np.int8)


def format_board(board, dice=(0, 0), names=("gammon", "gnubg"), score=(0, 0),
                 match_length: int = 0, cube: int = 1, cube_owner: int = 0,
                 doubled: bool = False, checkers: int = 15, colour: int = 1,
                 direction: int = -1, crawford: bool = False,
                 from_opponent: bool = False) -> str:
    """The FIBS board line of a position, as gnubg writes it by default.

    ``board`` (26,), ``dice``, ``names``, ``score`` and ``cube_owner`` (+1, 0, -1) are from
    the side that must act: on roll, or with ``doubled`` answering a double (the turn then
    stays with the doubler). gnubg makes the acting side the line's player, colour 1,
    direction -1; ``colour``, ``direction`` and ``from_opponent`` (the line's player is the
    other side) write the other ways FIBS allows, for tests.
    """
    board = np.asarray(board, dtype=np.int64)
    if board.shape != (CELLS,):
        raise ValueError(f"a board has 26 cells, got shape {board.shape}")
    view = -board[::-1] if from_opponent else board  # the line's player's side
    cells = (view if direction < 0 else view[::-1]) * colour
    acting = -colour if from_opponent else colour
    turn = -acting if doubled else acting
    we_may, they_may = int(cube_owner >= 0), int(cube_owner <= 0)
    mover_on = int(np.maximum(view, 0).sum())
    opponent_on = int(np.maximum(-view, 0).sum())
    player, other = we_may, they_may
    if from_opponent:
        player, other = other, player
    # names and scores: the acting side's pair first when the turn field is -1 (module doc)
    pairs = [(names[0], score[0]), (names[1], score[1])]
    if turn != -1:
        pairs.reverse()
    your_dice = (0, 0) if from_opponent else tuple(dice)  # gnubg writes the roll twice
    home, bar = (0, 25) if direction < 0 else (25, 0)
    fields = [pairs[0][0], pairs[1][0], match_length, pairs[0][1], pairs[1][1],
              *cells.tolist(), turn,
              *your_dice, *dice, cube, player, other, int(doubled), colour, direction,
              home, bar, checkers - mover_on, checkers - opponent_on, 0, 0, 0, 0,
              int(crawford), 0]
    return "board:" + ":".join(str(f) for f in fields)


__all__ = ["FIELDS", "FibsBoard", "parse_board", "format_board"]
