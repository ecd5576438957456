"""eXtreme Gammon's position IDs (XGID), both ways, mapped to our board and ``MatchState``.

An XGID is ``XGID=`` (optional on input) and ten fields separated by colons::

    XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10      the start, money, bottom to roll

Our reading of each field, from eXtreme Gammon's published description (the quoted words
are its own, as other programs quote it); what the code checks is said with each:

1. **position**, 26 characters, always seen from the *bottom* player, who moves from his
   24-point down to his 1-point: character 0 is the top player's bar, characters 1..24
   the bottom player's points 1..24, character 25 the bottom player's bar. ``-`` is an
   empty point, ``A``..``P`` 1..16 checkers of the bottom player, ``a``..``p`` 1..16 of
   the top player. We refuse an upper-case letter on the top player's bar (0), a lower-case
   one on the bottom player's (25), and more checkers a side than the variant has.
2. **cube value**, the exponent: the cube is 2**n ("0" is a 1-cube). 0..15 (what a Match
   ID holds).
3. **cube position**: ``1`` the bottom player owns it, ``-1`` the top player, ``0``
   centred.
4. **turn**: ``1`` the bottom player's turn, ``-1`` the top player's.
5. **dice**: "00: player is to roll or double"; "D: player has doubled, opponent must take
   or drop"; "B: player has doubled, the opponent beavered"; "R: player has doubled, the
   opponent beavered and the player racooned"; otherwise the two dice the "player has
   rolled" (``63``). "Player" is the one whose turn field 4 gives: under ``D`` the doubler
   (GNU Backgammon 1.07's ``set xgid`` reads it so too). A pending beaver or raccoon
   (``B``, ``R``) has no ``MatchState`` (nor gnubg Match ID) to go to: refused, one line.
6. **score of the bottom player**, 7. **score of the top player**.
8. **Crawford / Jacoby**: in a match, ``1`` when this is the Crawford game, else ``0``; in
   money play the rules, "1 = Jacoby, 2 = beaver, 3 = both" (bit 0 Jacoby, bit 1 beavers).
9. **match length**: ``0`` for money play.
10. **max cube**, the exponent of the largest cube allowed (``10``: 1024), which XG always
    writes and nobody here uses: kept for round trips, written as ``10`` by default. An ID
    without it (nine fields, as some programs write) is read too.

The sides map to GNU Backgammon's players as gnubg draws them, the bottom player its
player 1 (X), the top player its player 0 (O): ``MatchState.score`` is (top, bottom) and
``on_roll`` 1 means the bottom player is on roll, so that an XGID comes back as it was
written. (gnubg 1.07's ``set xgid`` makes whichever side is on roll its player 1: the same
position and state with the players' numbers swapped when the top player is on roll.)

Our board is the player on roll's (``engine.board``: cell 25 his bar, cell 0 the
opponent's, his checkers positive), so the XGID position is flipped when the top player
is on roll; while a double waits for an answer, the doubler is on roll (as in gnubg's
Position IDs) and the taker decides (``MatchState.turn``). Every XGID is a game in play; a game over, or a resignation
on offer, has no XGID and is refused by ``encode``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..board import flip
from .matchid import CENTRED, PLAYING, MatchState, problem

PREFIX = "XGID="
MAX_CUBE_EXPONENT = 10  # what XG writes in field 10 unless told otherwise
_FIELDS = 10
_POSITION = re.compile(r"[-a-pA-P]{26}")
_LOOKS = re.compile(r"^(?:xgid=)?[-a-zA-Z]{26}:", re.IGNORECASE)
BOTTOM, TOP = 1, 0  # gnubg's player numbers of the two sides


@dataclass(frozen=True)
class Xgid:
    """What an XGID holds: the board from the player on roll (26,) int8, the state with
    gnubg's player numbers (bottom = 1, top = 0), the money game's beaver rule (field 8,
    bit 1) and the max-cube exponent (field 10)."""

    board: np.ndarray
    state: MatchState
    beavers: bool = False
    max_cube: int = MAX_CUBE_EXPONENT


def looks_like_xgid(text: str) -> bool:
    """Whether ``text`` is written as an XGID (``XGID=`` or 26 letters and dashes, then a
    colon), not as a Position ID; the reader says what is wrong with it afterwards."""
    return bool(_LOOKS.match(str(text).strip()))


def _quote(text: str) -> str:
    return repr(text[:40]) + ("..." if len(text) > 40 else "")


def _integer(field: str, name: str, low: int, high: int) -> int:
    if not re.fullmatch(r"-?[0-9]{1,6}", field) or not low <= int(field) <= high:
        raise ValueError(f"XGID field {name} is a whole number from {low} to {high}, "
                         f"got {_quote(field)}")
    return int(field)


def _bottom_board(position: str, checkers: int) -> np.ndarray:
    """The 26 characters as a board from the bottom player's side (his checkers positive,
    cell 25 his bar, cell 0 the top player's bar)."""
    if not _POSITION.fullmatch(position):
        bad = sorted(set(position) - set("-abcdefghijklmnopABCDEFGHIJKLMNOP"))
        why = (f"letters beyond p/P or other characters: {''.join(bad)!r}" if bad
               else f"{len(position)} characters, not 26")
        raise ValueError(f"XGID position {_quote(position)}: {why} (26 of '-', A-P for the "
                         f"bottom player's checkers, a-p for the top player's)")
    board = np.zeros(26, dtype=np.int16)
    for i, c in enumerate(position):
        if c != "-":
            board[i] = (ord(c) - 64) if c.isupper() else -(ord(c) - 96)
    if board[0] > 0:
        raise ValueError(f"XGID position {_quote(position)}: the first character is the top "
                         f"player's bar, it cannot hold the bottom player's checkers")
    if board[25] < 0:
        raise ValueError(f"XGID position {_quote(position)}: the last character is the "
                         f"bottom player's bar, it cannot hold the top player's checkers")
    for side, count in (("bottom", int(board[board > 0].sum())),
                        ("top", int(-board[board < 0].sum()))):
        if count > checkers:
            raise ValueError(f"XGID position {_quote(position)}: the {side} player has "
                             f"{count} checkers; at most {checkers}")
    return board.astype(np.int8)


def decode(text: str, checkers: int = 15) -> Xgid:
    """The board and state of an XGID (``XGID=`` optional, surrounding blanks ignored).

    ValueError, one line naming the field, for a wrong number of fields, a bad field, a
    pending beaver or raccoon, or a state that contradicts itself (a score at the match
    length, a Crawford flag where nobody is 1-away: ``matchid.problem``)."""
    raw = str(text).strip()
    body = raw[len(PREFIX):] if raw[:len(PREFIX)].upper() == PREFIX else raw
    fields = body.split(":")
    if len(fields) not in (_FIELDS - 1, _FIELDS):
        raise ValueError(f"XGID {_quote(raw)} has {len(fields)} fields; an XGID has 10 "
                         f"separated by colons (position:cube:owner:turn:dice:score:score:"
                         f"rules:length:max cube)")
    bottom = _bottom_board(fields[0], checkers)
    exponent = _integer(fields[1], "2 (cube value, the exponent)", 0, 15)
    owner = _integer(fields[2], "3 (cube position: 1 bottom, -1 top, 0 centred)", -1, 1)
    turn = fields[3]
    if turn not in ("1", "-1"):
        raise ValueError(f"XGID field 4 (turn) is 1 (the bottom player) or -1 (the top "
                         f"player), got {_quote(turn)}")
    dice_field = fields[4].upper()
    s_bottom = _integer(fields[5], "6 (the bottom player's score)", 0, (1 << 15) - 1)
    s_top = _integer(fields[6], "7 (the top player's score)", 0, (1 << 15) - 1)
    flags = _integer(fields[7], "8 (Crawford in a match; Jacoby and beavers in money)", 0, 3)
    length = _integer(fields[8], "9 (match length, 0 for money)", 0, (1 << 15) - 1)
    max_cube = (_integer(fields[9], "10 (max cube, the exponent)", 0, 15)
                if len(fields) == _FIELDS else MAX_CUBE_EXPONENT)
    if length and flags > 1:
        raise ValueError(f"XGID field 8 is the Crawford flag in a match (0 or 1), got {flags}")
    player = BOTTOM if turn == "1" else TOP
    double = False
    dice = (0, 0)
    if dice_field == "D":
        double = True
    elif dice_field in ("B", "R"):
        what = "beaver" if dice_field == "B" else "raccoon"
        raise ValueError(f"XGID dice field {dice_field!r}: a {what} waiting for an answer has "
                         f"no Match ID state; give the position before the double")
    elif re.fullmatch(r"00|[1-6][1-6]", dice_field):
        dice = (int(dice_field[0]), int(dice_field[1]))
    else:
        raise ValueError(f"XGID field 5 (dice) is 00 (to roll or double), D (doubled), or "
                         f"two dice 1-6 like 63; got {_quote(fields[4])}")
    state = MatchState(
        cube_value=1 << exponent,
        cube_owner={1: BOTTOM, -1: TOP, 0: CENTRED}[owner],
        on_roll=player, crawford=bool(length and flags), game_state=PLAYING,
        turn=1 - player if double else player, double_offered=double, dice=dice,
        length=length, score=(s_top, s_bottom), jacoby=bool(not length and flags & 1))
    why = problem(state)
    if why:
        raise ValueError(f"XGID {_quote(raw)}: {why}")
    board = bottom if player == BOTTOM else flip(bottom)
    return Xgid(board, state, bool(not length and flags & 2), max_cube)


def encode(board: np.ndarray, state: MatchState | None = None, beavers: bool = False,
           max_cube: int = MAX_CUBE_EXPONENT) -> str:
    """The XGID (with its ``XGID=``) of a board from the player on roll and its state.

    ``state`` None is money play, a centred 1-cube, no Jacoby rule, the player on roll at
    the bottom with the dice not rolled. ValueError for a state an XGID cannot hold: a game
    not in play, a resignation on offer, an unsound state, or more than 16 checkers on a
    point."""
    if state is None:
        state = MatchState(on_roll=BOTTOM, turn=BOTTOM)
    why = problem(state)
    if why:
        raise ValueError(f"cannot write an XGID: {why}")
    if state.game_state != PLAYING:
        raise ValueError("cannot write an XGID: the game is over, and an XGID is a "
                         "position of a game in play")
    if state.resign:
        raise ValueError("cannot write an XGID: a resignation is on offer, which an XGID "
                         "has no field for")
    if not 0 <= max_cube <= 15:
        raise ValueError(f"cannot write an XGID: max cube exponent {max_cube} outside 0..15")
    board = np.asarray(board, dtype=np.int16)
    bottom = board if state.on_roll == BOTTOM else -board[::-1]
    if np.abs(bottom).max(initial=0) > 16:
        raise ValueError("cannot write an XGID: more than 16 checkers on a point")
    position = "".join("-" if n == 0 else chr(64 + n) if n > 0 else chr(96 - n)
                       for n in bottom.tolist())
    side = {BOTTOM: "1", TOP: "-1"}
    owner = "0" if state.cube_owner == CENTRED else side[state.cube_owner]
    if state.double_offered:
        dice = "D"
    else:
        dice = f"{state.dice[0]}{state.dice[1]}"
    if state.length:
        flags = int(state.crawford)
    else:
        flags = int(state.jacoby) | (2 if beavers else 0)
    fields = (position, str(state.cube_value.bit_length() - 1), owner, side[state.on_roll],
              dice, str(state.score[BOTTOM]), str(state.score[TOP]), str(flags),
              str(state.length), str(max_cube))
    return PREFIX + ":".join(fields)


__all__ = ["PREFIX", "Xgid", "looks_like_xgid", "decode", "encode", "BOTTOM", "TOP"]
