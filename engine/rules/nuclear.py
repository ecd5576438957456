"""Nuclear backgammon: standard movement and start, and a bomb that sends every blot home.

Our rules source: "a bomb, at the start owned by nobody (like the cube); at any time either
player may declare an explosion: all blots count as hit and go to the bar, and the bomb
passes to the opponent's side".

Our reading: the decision comes before the roll, like a double; a player may detonate when
the bomb is centred or his; every blot of both players goes to its owner's bar (joining any
checkers already there); the bomb then belongs to the opponent, who may detonate it later.
Gammons and backgammons as usual.

So the legal plays, the end of the game and the points are the standard ones
(``StandardRules``); the variant adds one per-game state and one board operation:

- ``extra_state = ("bomb",)``: the bomb's owner, ``GameState.extra["bomb"]`` (G,) int8,
  **relative to the seat on roll**: +1 the player on roll owns it, -1 his opponent does, 0
  it is centred (every game starts with 0). Like the cube's owner it is negated whenever
  the turn passes (``relative_state = ("bomb",)``, which ``engine.game.end_turn`` reads).
  The player on roll may detonate where the bomb is >= 0 (``may_detonate``); after a
  detonation it is -1: the opponent's.
- ``explode(boards)``: the board after a detonation, from the same (mover's) view.

The action is the rules object's: ``before_roll_actions = ("detonate",)``, allowed where
``may_detonate`` (``may_act``) and done by ``explode`` with the bomb set to the opponent's
(``act``); when the player on roll is asked is the turn's (``engine.game.before_roll``),
which calls a player's ``detonate(boards, bomb)``.
"""

from __future__ import annotations

import numpy as np

from ..board import BAR, OPP_BAR
from .standard import STANDARD, StandardRules

CENTRED, MINE, THEIRS = 0, 1, -1  # the bomb's owner, relative to the player on roll


class NuclearRules(StandardRules):
    """Standard movement, start and points; a bomb either side may detonate before a roll."""

    # a detonation sends every blot to the bar, even in a race: the dice alone do not decide
    bearoff_races = False
    # ... and a race is no longer final: a loser's blot sent to his bar can be backgammoned
    race_is_final = False
    def may_act(self, action: str, boards: np.ndarray, extra: dict) -> np.ndarray:
        """Where the player on roll may detonate: "when the bomb is centred or his"."""
        if action != "detonate":
            return super().may_act(action, boards, extra)
        return may_detonate(extra["bomb"])

    def act(self, action: str, boards: np.ndarray, extra: dict) -> tuple[np.ndarray, dict]:
        """A detonation: "all blots count as hit and go to the bar, and the bomb passes to
        the opponent's side" (``explode``; the bomb -1, relative to the player on roll)."""
        if action != "detonate":
            return super().act(action, boards, extra)
        return explode(boards), {"bomb": np.full(len(boards), THEIRS, dtype=np.int8)}


def explode(boards: np.ndarray) -> np.ndarray:
    """The boards after a detonation: (N, 26) int8 -> (N, 26) int8, the mover's view kept.

    "All blots count as hit and go to the bar": every point 1..24 holding exactly one
    checker, of either side, is emptied; the mover's blots join his bar (cell 25), the
    opponent's join the opponent's bar (cell 0, negative counts). Points with two or more
    checkers and checkers already on a bar are untouched; no blots, no change.
    """
    boards = np.asarray(boards, dtype=np.int8)
    out = boards.copy()
    points = out[..., 1:25]  # a view: emptied in place below
    mine = points == 1
    theirs = points == -1
    out[..., BAR] += mine.sum(axis=-1, dtype=np.int8)
    out[..., OPP_BAR] -= theirs.sum(axis=-1, dtype=np.int8)
    points[mine | theirs] = 0
    return out


def explode_one(board) -> tuple[int, ...]:
    """``explode`` for one board, plainly, checker by checker (a second implementation for
    the tests): a sequence of 26 ints -> a tuple of 26 ints."""
    b = [int(x) for x in board]
    for point in range(1, 25):
        if b[point] == 1:  # a blot of the mover: to his bar
            b[point] = 0
            b[BAR] += 1
        elif b[point] == -1:  # a blot of the opponent: to the opponent's bar
            b[point] = 0
            b[OPP_BAR] -= 1
    return tuple(b)


def may_detonate(bomb: np.ndarray) -> np.ndarray:
    """Where the player on roll may detonate: "when the bomb is centred or his" (bomb
    relative to him: 0 or +1), (N,) bool; never where the opponent owns it (-1)."""
    return np.asarray(bomb) >= CENTRED


# "at any time either player may declare an explosion" (our reading: before his roll)
NUCLEAR = NuclearRules("nuclear", 15, STANDARD.layout, extra_state=("bomb",),
                       relative_state=("bomb",), before_roll_actions=("detonate",))

__all__ = ["NuclearRules", "NUCLEAR", "explode", "explode_one", "may_detonate", "CENTRED",
           "MINE", "THEIRS"]
