"""A game on the board started from a position set up by hand: ``read_set_up`` reads a
GNU Backgammon Position ID, a POSID:MATCHID (gnubg's Match ID after the Position ID), an
XGID, or Plakoto's ``plakoto:`` text into a ``SetUpGame``: what ``WebGame`` needs to play
it out against the bot.

The person is the player on roll in the position (Position IDs are written from his side);
the match length, score, Crawford game, cube value and owner, and the dice already rolled
come from the Match ID or the XGID. A plain Position ID is money play with a centred cube
(or a match from 0-0 when the new-game form asks for one). A pending double or resignation
in an ID is not carried (the person is on roll, to roll or to play the dice), as
``gammon cube`` ignores them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gammon.engine.formats.matchid import CENTRED, PLAYING, MatchState

from ..errors import UsageError
from ..http_api import BadRequest
from ..table import BOT, HUMAN


@dataclass(frozen=True)
class SetUpGame:
    """A position to play out. ``board`` (26,) from the person's side, the person on roll;
    ``score`` (person, bot) before this game; ``owner`` HUMAN, BOT or None (centred);
    ``dice`` the person's roll when it is already rolled, else None; ``state`` the ID's
    whole state (None for a plain Position ID)."""

    board: np.ndarray
    length: int
    score: tuple[int, int]
    crawford: bool
    cube: int
    owner: int | None
    dice: tuple[int, int] | None
    state: MatchState | None


def read_set_up(text: str, variant: str, length: int = 0) -> SetUpGame:
    """The position ``text`` to play out in ``variant``; ``length`` the new-game form's
    match length (0: money, or the ID's own). A BadRequest naming the field says what is
    wrong: a bad ID, a finished game, a length the ID contradicts."""
    from gammon.match_state import read_position_and_match
    from gammon.options import check_in_play
    try:
        board, state = read_position_and_match(str(text), variant)
        check_in_play(board)
    except UsageError as e:
        raise BadRequest(str(e), "position") from None
    if state is None:
        return SetUpGame(board, length, (0, 0), False, 1, None, None, None)
    if state.game_state != PLAYING:
        raise BadRequest("the game in this ID is not being played (it is over, or not "
                         "started): set up a position in play", "position")
    if length and state.length and length != state.length:
        raise BadRequest(f"the ID is of a {state.length}-point match, the form asks for "
                         f"{length}: leave the match length at 0 to take the ID's",
                         "length")
    me = state.on_roll
    if state.length:
        length = state.length
    score = (state.score[me], state.score[1 - me]) if length else (0, 0)
    owner = None if state.cube_owner == CENTRED else (HUMAN if state.cube_owner == me
                                                      else BOT)
    dice = tuple(state.dice) if state.dice[0] else None
    return SetUpGame(board, length, score, bool(state.crawford and length), state.cube_value,
                     owner, dice, state)


__all__ = ["SetUpGame", "read_set_up"]
