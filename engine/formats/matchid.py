"""GNU Backgammon Match IDs: the 72-bit match key, base64 encoded, both ways.

The key packs fourteen fields into 9 bytes. Each field's bits go least significant bit
first, the fields follow one another from bit 0, and bit ``k`` of the key is bit ``k % 8``
of byte ``k // 8``. The 9 bytes are written in base64 (12 characters, no padding). Fields,
in key order (bit widths in brackets):

    cube      [4]   log2 of the cube value: 0..15 (gnubg itself stops at 12, a 4096 cube)
    owner     [2]   who owns the cube: 0 player 0, 1 player 1, 3 centred (2 is unused)
    on roll   [1]   the player on roll: 0 or 1
    crawford  [1]   1 in the Crawford game (gnubg also sets it once a game over leaves one
                    player length-1 away for the first time: the next game is Crawford)
    state     [3]   game state: 0 no game, 1 playing, 2 over, 3 resigned, 4 dropped
    turn      [1]   the player who must make the next decision: 0 or 1 (the opponent of the
                    player on roll while a double or a resignation waits for an answer)
    double    [1]   1 while a double waits for an answer
    resign    [2]   resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon
    die 1     [3]   0 (not rolled) or 1..6; gnubg writes the larger die first
    die 2     [3]   0 (not rolled) or 1..6
    length   [15]   match length: 0 for money play, else 1..32767
    score 0  [15]   points of player 0: 0..32767
    score 1  [15]   points of player 1: 0..32767
    no jacoby [1]   1 when the Jacoby rule is not in force. gnubg's manual describes a 66-bit
                    key and stops before this bit; gnubg 1.07 sets it in every match and in
                    money sessions without Jacoby, and reads it back ("set matchid")
    (bits 67..71 are unused and must be 0)

A fresh 7-point match with player 1 on roll of an opening 6-3 is ``cAnvAAAAAAAE``.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

CENTRED = 3  # cube owner when either player may double
NO_GAME, PLAYING, OVER, RESIGNED, DROPPED = range(5)  # game states
GAME_STATES = ("no game", "playing", "over", "resigned", "dropped")
KEY_BYTES, ID_CHARS = 9, 12
MAX_POINTS = (1 << 15) - 1  # length and scores are 15-bit
_ALPHABET = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_WIDTHS = (4, 2, 1, 1, 3, 1, 1, 2, 3, 3, 15, 15, 15, 1)  # the fields above, in key order


@dataclass(frozen=True)
class MatchState:
    """The match and game state a Match ID holds (players are 0 and 1, as gnubg numbers them).

    cube_value:     1, 2, 4, .. 2**15
    cube_owner:     0, 1 or CENTRED (3)
    on_roll:        0 or 1, the player whose turn it is to roll or move
    crawford:       this is the Crawford game (or the game just over makes the next one Crawford)
    game_state:     NO_GAME, PLAYING, OVER, RESIGNED or DROPPED (0..4)
    turn:           0 or 1, the player who must decide next (answers a double or resignation)
    double_offered: a double waits for an answer
    resign:         0 none, 1 single, 2 gammon, 3 backgammon offered
    dice:           (d1, d2), each 1..6, or (0, 0) when not rolled
    length:         match length, 0 for money play
    score:          (player 0's points, player 1's points)
    jacoby:         the Jacoby rule is in force (money play; False in every gnubg match, so
                    that gnubg's own IDs round-trip; True for IDs that leave bit 66 at 0)
    """

    cube_value: int = 1
    cube_owner: int = CENTRED
    on_roll: int = 0
    crawford: bool = False
    game_state: int = PLAYING
    turn: int = 0
    double_offered: bool = False
    resign: int = 0
    dice: tuple[int, int] = (0, 0)
    length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = False


def _quote(text: str) -> str:
    """The input as it appears in an error message: repr of at most 40 characters."""
    return repr(text[:40]) + ("..." if len(text) > 40 else "")


def problem(state: MatchState) -> str | None:
    """What makes ``state`` impossible to write or to believe, or None when it is sound.

    Ranges first (what the key can hold), then consistency: in a match whose game is not
    over, no score may have reached the length and the Crawford flag needs a player
    length-1 away; money play has no Crawford game.
    """
    cube = state.cube_value
    if not (isinstance(cube, int) and cube >= 1 and cube & (cube - 1) == 0):
        return f"cube value {cube!r} is not a power of two"
    if cube.bit_length() - 1 > 15:
        return f"cube value {cube} is beyond 2**15 (the key holds log2 of the cube in 4 bits)"
    if state.cube_owner not in (0, 1, CENTRED):
        return f"cube owner {state.cube_owner!r} is not 0, 1 or 3 (centred)"
    for name in ("on_roll", "turn"):
        if getattr(state, name) not in (0, 1):
            return f"{name.replace('_', ' ')} {getattr(state, name)!r} is not 0 or 1"
    if state.game_state not in range(len(GAME_STATES)):
        return f"unknown game state {state.game_state!r} (0..4)"
    if state.resign not in range(4):
        return f"resignation {state.resign!r} is not 0..3"
    d1, d2 = state.dice
    if not (0 <= d1 <= 6 and 0 <= d2 <= 6):
        return f"dice {d1}-{d2} outside 0..6"
    if (d1 == 0) != (d2 == 0):
        return f"dice {d1}-{d2}: either both dice are rolled or neither"
    length, (s0, s1) = state.length, state.score
    for name, value in (("match length", length), ("score", s0), ("score", s1)):
        if not 0 <= value <= MAX_POINTS:
            return f"{name} {value} outside 0..{MAX_POINTS}"
    if length == 0:
        return "Crawford flag set in money play" if state.crawford else None
    if state.game_state in (OVER, RESIGNED, DROPPED):
        return None  # the final score may pass the length; the flag speaks of the next game
    if max(s0, s1) >= length:
        return f"score {s0}-{s1} has reached the match length {length} while the game goes on"
    if state.crawford and length - 1 not in (s0, s1):
        return f"Crawford flag set but neither player is 1-away at {s0}-{s1} to {length}"
    return None


def encode_match_id(state: MatchState) -> str:
    """The 12-character Match ID of ``state``; ValueError when it is out of range or unsound."""
    why = problem(state)
    if why:
        raise ValueError(f"cannot write a Match ID: {why}")
    fields = (
        state.cube_value.bit_length() - 1, state.cube_owner, state.on_roll, int(state.crawford),
        state.game_state, state.turn, int(state.double_offered), state.resign,
        state.dice[0], state.dice[1], state.length, state.score[0], state.score[1],
        int(not state.jacoby),
    )
    key, bit = 0, 0
    for value, width in zip(fields, _WIDTHS):
        key |= int(value) << bit
        bit += width
    return base64.b64encode(key.to_bytes(KEY_BYTES, "little")).decode("ascii")


def decode_match_id(text: str) -> MatchState:
    """The state in a Match ID (surrounding blanks ignored).

    Raises ValueError, one line quoting at most 40 characters of the input, for a wrong
    length, characters outside base64, an unknown game state, cube owner 2, dice beyond 6,
    or a state that contradicts itself (see ``problem``).
    """
    mid = text.strip()
    if len(mid) != ID_CHARS:
        raise ValueError(f"Match ID {_quote(mid)} has {len(mid)} characters, not {ID_CHARS}")
    bad = sorted(set(mid) - _ALPHABET)
    if bad:
        raise ValueError(f"Match ID {_quote(mid)} has characters outside base64: {''.join(bad)!r}")
    try:
        key = int.from_bytes(base64.b64decode(mid, validate=True), "little")
    except (binascii.Error, ValueError):
        raise ValueError(f"Match ID {_quote(mid)} is not valid base64") from None
    fields = []
    for width in _WIDTHS:
        fields.append(key & ((1 << width) - 1))
        key >>= width
    if key:
        raise ValueError(f"Match ID {_quote(mid)} has bits set after bit 66 (unused, must be 0)")
    cube, owner, on_roll, crawford, game, turn, double, resign, d1, d2, length, s0, s1, nj = fields
    state = MatchState(
        cube_value=1 << cube, cube_owner=owner, on_roll=on_roll, crawford=bool(crawford),
        game_state=game, turn=turn, double_offered=bool(double), resign=resign,
        dice=(d1, d2), length=length, score=(s0, s1), jacoby=not nj,
    )
    why = problem(state)
    if why:
        raise ValueError(f"Match ID {_quote(mid)}: {why}")
    return state
