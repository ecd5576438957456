"""Plakoto: the Greek game of pins, as our rules source describes it.

Our rules source: "start as LongGammon; a single opposing checker is not hit to the bar but
pinned -- until the opponent releases it, it cannot move; the last checker on the starting
point is the mother; pinning the mother counts as a loss by gammon".

Our reading (each clause is quoted again where the code enforces it):

- all 15 of each side start on its own 24-point; there is no bar;
- landing on a point with exactly one opposing checker pins it: it stays under the pinner
  and cannot move; the point belongs to the pinner, who may add checkers; it is free again
  when every checker of the pinner has left;
- a point with two or more opposing checkers, or with an opposing checker pinning one of
  ours, is closed;
- bear off as in backgammon once all 15 (pinned ones included) are home; a pinned checker
  cannot be borne off; the use-both-dice and larger-die rules are as in backgammon;
- for the bear-off rule "from a lower point only when no checker stands higher", a pinned
  checker of ours on a higher home point counts as standing there;
- pinning the opponent's last checker still on its starting point (the mother) ends the
  game: 2 points to the pinner; the play in which it happens is a whole play under the usual
  dice rules, and the game ends after it;
- otherwise the first to bear off all 15 wins: 2 points if the loser has borne off none,
  else 1; no backgammons.

The board keeps the engine's 26 cells seen from the mover, so side changes (``flip``), the
game loop and the generator's frontier work unchanged. A point's cell holds the signed
count of the checkers on top of it (+ mover, - opponent), plus ``PIN`` (16, with the same
sign) when one checker of the other side lies pinned beneath them:

    +3   three of ours                 -2   two of theirs
    +17  one of ours pinning theirs    -18  two of theirs pinning one of ours

Cell 25 (a bar) is always 0. Cell 0 is 0 in every position in play; in an afterstate it
counts the times the play pinned the opponent's mother (our 1-point is the opponent's
starting point), so the end of the game is read off the afterstate even when the pinner
later bore off from the 1-point in the same play.

A step's code is packed as the standard one (source << 6 | target << 1 | pin), plus
``RELEASE`` (bit 11) when the checker leaving is the last one on top of a pinned checker,
which is then free again. Boards after a play are a function of the root board and of how
many of the mover's checkers each point gained or lost (the opponent's checkers do not move;
each is pinned exactly when ours stand on it), so the generator's exact merge key is taken
from those counts (``key_delta``), not from the cells.
"""

from __future__ import annotations

import re

import numpy as np

from ..board import CELLS
from .base import GAMMON, SINGLE, Rules
from .standard import step_code

PIN = 16  # added to a cell's count (with its sign) when a checker of the other side is pinned
RELEASE = 1 << 11  # step code bit: the step frees a checker its source point had pinned
MOTHER_POINT = 1  # the opponent's starting point (its 24-point) is our 1-point
_COUNT = PIN - 1  # |cell| & _COUNT = checkers on top


def per_point(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Checkers of each side on points 1..24 (mover, opponent), pinned ones included:
    (N, 24) int16 each. boards (N, 26) int8 in this module's cell form."""
    v = boards[..., 1:25].astype(np.int16)
    top = np.abs(v) & _COUNT
    pinned = np.abs(v) >= PIN
    mover = np.where(v > 0, top, 0) + (pinned & (v < 0))
    opponent = np.where(v < 0, top, 0) + (pinned & (v > 0))
    return mover, opponent


def counts(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Checkers on the board per side (mover, opponent), pinned ones included: (N,) each."""
    mover, opponent = per_point(boards)
    return mover.sum(axis=-1), opponent.sum(axis=-1)


def _step_tables():
    """Per step code: the cell change, the change of the mover's counts (for the merge
    key) and whether a checker comes home."""
    size = RELEASE * 2
    delta = np.zeros((size, CELLS), dtype=np.int8)  # (C, 26)
    key_delta = np.zeros((size, CELLS), dtype=np.int8)  # (C, 26)
    came_home = np.zeros(size, dtype=np.int64)  # (C,)
    for source in range(1, 25):
        for target in range(0, source):
            for pin in (0, 1) if target else (0,):
                for release in (0, 1):
                    code = step_code(source, target, pin) | (release * RELEASE)
                    # "it is free again when every checker of the pinner has left":
                    # our last checker on top leaves, theirs is the point's own again
                    delta[code, source] -= PIN + 2 if release else 1  # +17 -> -1
                    key_delta[code, source] -= 1
                    if target:
                        delta[code, target] += PIN + 2 if pin else 1  # -1 -> +17
                        key_delta[code, target] += 1
                        if pin and target == MOTHER_POINT:
                            delta[code, 0] += 1  # the mother is pinned: mark the play
                            key_delta[code, 0] += 1
                    came_home[code] = source >= 7 and target <= 6
    return delta, key_delta, came_home


def _move_tables():
    """Per (die, source column 0..23): the target point (0 = borne off), step code without
    pin or release."""
    die, column = np.divmod(np.arange(7 * 32), 32)
    source = column + 1
    target = np.maximum(source - die, 0)
    return target, step_code(source, target, 0)


_DELTA, _KEY_DELTA, _CAME_HOME = _step_tables()
_TARGET, _CODE = _move_tables()
_HOME_POINTS = np.arange(1, 7)


class PlakotoRules(Rules):
    """Plakoto's movement (pins, no bar), its bear-off and its two ways to end."""

    delta = _DELTA
    key_delta = _KEY_DELTA
    came_home = _CAME_HOME
    position_format = "plakoto"
    bearoff_races = False  # its cells are not the standard ones (pins), and no table for them
    backgammons = False  # "no backgammons"

    def start_board(self) -> np.ndarray:
        """"Start as LongGammon": all 15 on the own 24-point (our 24, their 24 = our 1)."""
        board = np.zeros(CELLS, dtype=np.int8)
        board[24], board[1] = self.checkers, -self.checkers
        return board

    def outside(self, boards: np.ndarray) -> np.ndarray:
        """The mover's checkers not yet home (points 7..24), pinned ones included:
        "bear off ... once all 15 (pinned ones included) are home". (M,) int64."""
        v = boards[:, 7:25]
        return (np.where(v > 0, v & _COUNT, 0).sum(axis=1, dtype=np.int64)
                + (v <= -PIN).sum(axis=1, dtype=np.int64))

    def steps(self, boards: np.ndarray, dice: np.ndarray, outside: np.ndarray):
        """All single legal steps: (parent (S,), code (S,)); see ``Rules.steps``."""
        m = len(boards)
        v = boards[:, 1:25]  # (M, 24) points 1..24
        mine = v > 0  # our checkers on top (pinned ones of ours, v <= -16, cannot move)
        all_home = outside == 0
        # landing[:, t + 6] for targets t = -5..24; t <= 0 bears off (only when all home).
        # Open: empty, ours, or a single unpinned opposing checker (-1, which we pin);
        # "a point with two or more opposing checkers, or with an opposing checker pinning
        # one of ours, is closed" (-2.., and -17.. for theirs on top of ours).
        landing = np.empty((m, 30), dtype=bool)
        landing[:, :6] = all_home[:, None]
        np.greater_equal(v, -1, out=landing[:, 6:30])
        windows = np.ndarray((m, 7, 24), dtype=bool, buffer=landing, strides=(30, 1, 1))
        legal = np.zeros((m, 32), dtype=bool)
        np.logical_and(mine, windows[np.arange(m), 6 - dice], out=legal[:, :24])

        bearing = np.flatnonzero(all_home)
        if len(bearing):
            # "from a lower point only when no checker stands higher": a pinned checker of
            # ours on a higher home point counts as standing there
            home = (v[bearing, :6] > 0) | (v[bearing, :6] <= -PIN)  # (B, 6)
            highest = 6 - np.argmax(home[:, ::-1], axis=1)  # (B,) 1..6
            lower = _HOME_POINTS[None, :] < highest[:, None]
            overshoot = _HOME_POINTS[None, :] < dice[bearing, None]
            legal[bearing, :6] &= ~(lower & overshoot)

        found = np.flatnonzero(legal)
        parent, column = found >> 5, found & 31
        move = dice[parent] * 32 + column
        target = _TARGET[move]
        flat = boards.reshape(-1)
        pin = (flat[parent * CELLS + target] == -1) & (target > 0)  # a lone opposing checker
        release = flat[parent * CELLS + column + 1] == PIN + 1  # our last one over a pin
        return parent, _CODE[move] + pin + release * RELEASE

    def step(self, board, source: int, die: int):
        """One checker from ``source`` by ``die``, plainly: (new board, pinned) or why not."""
        b = list(board)
        if not 1 <= source <= 24 or b[source] <= 0:
            name = "bar" if source == 25 else source
            return f"no checker of yours free to move on {name}"
        target = source - die
        if target >= 1:
            if b[target] < -1:
                return f"point {target} is closed"
        else:
            # "bear off as in backgammon once all 15 (pinned ones included) are home"
            if any(b[p] > 0 or b[p] <= -PIN for p in range(7, 25)):
                return "checkers bear off only when all 15 (pinned ones included) are home"
            if target < 0 and any(b[p] > 0 or b[p] <= -PIN for p in range(source + 1, 7)):
                return (f"a {die} bears off from {source} only when no checker of yours "
                        f"(pinned ones included) stands higher")
        # leave the source: our last checker over a pinned one frees it
        b[source] = -1 if b[source] == PIN + 1 else b[source] - 1
        pinned = False
        if target >= 1:
            if b[target] == -1:  # a single opposing checker: pinned, not hit
                b[target] = PIN + 1
                pinned = True
                if target == MOTHER_POINT:
                    b[0] += 1  # the opponent's mother
            else:
                b[target] += 1
        return tuple(b), pinned

    def end_of_game(self, afterstates: np.ndarray) -> np.ndarray:
        """Points won by the player who just moved, 0 where the game goes on.

        "Pinning the opponent's last checker still on its starting point ends the game: 2
        points to the pinner"; "otherwise the first to bear off all 15 wins: 2 points if the
        loser has borne off none, else 1; no backgammons"."""
        b = np.asarray(afterstates)
        mover, opponent = counts(b)
        race = np.where(opponent == self.checkers, GAMMON, SINGLE)
        points = np.where(mover == 0, race, 0)
        points = np.where(b[..., 0] > 0, GAMMON, points)
        return points.astype(np.int8)

    def in_play(self, boards: np.ndarray, cells: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
        """Checkers still on the board (mover, opponent), pinned ones included: (N,) each
        (``cells`` unused: pins are counted from the boards)."""
        return counts(boards)

    def pins(self, boards: np.ndarray) -> np.ndarray:
        """(N, 24) bool: a checker of the other side is pinned under point 1..24."""
        return np.abs(boards[..., 1:25]) >= PIN


PLAKOTO = PlakotoRules("plakoto", 15, ((24, 15),))


# --- the position text --------------------------------------------------------------------

PREFIX = "plakoto:"
_FIELD = re.compile(r"([-+]?)([0-9]{1,2})(p?)")


def write_position(board) -> str:
    """The ``plakoto:`` text of one board: 24 comma-separated fields, points 1..24 from the
    mover's view, each the signed count of the checkers on top (+ mover, - opponent), with
    ``p`` when one checker of the other side is pinned beneath them."""
    fields = []
    for cell in np.asarray(board)[1:25].tolist():
        count = abs(cell) & _COUNT
        text = str(count if cell >= 0 else -count)
        fields.append(text + ("p" if abs(cell) >= PIN else ""))
    return PREFIX + ",".join(fields)


def write_positions(boards) -> list[str]:
    """``write_position`` of each board of (N, 26)."""
    return [write_position(b) for b in np.asarray(boards)]


def read_position(text: str, checkers: int = 15) -> np.ndarray:
    """The board of a ``plakoto:`` text, checked: (26,) int8. ValueError says what is wrong."""
    word = str(text).strip()
    if not word.startswith(PREFIX):
        raise ValueError(f"a Plakoto position is written {PREFIX} and 24 comma-separated "
                         f"fields (e.g. {PREFIX}-15,0,...,0,15)")
    fields = word[len(PREFIX):].split(",")
    if len(fields) != 24:
        raise ValueError(f"a Plakoto position has 24 fields (points 1..24), got {len(fields)}")
    board = np.zeros(CELLS, dtype=np.int8)
    for point, field in enumerate(fields, start=1):
        f = field.strip()
        match = _FIELD.fullmatch(f)
        if match is None:
            if f.count("p") > 1 or f.lower().endswith("pp"):
                raise ValueError(f"point {point}: {f[:20]!r} pins more than one checker; a "
                                 f"point holds at most one pinned checker")
            raise ValueError(f"point {point}: {f[:20]!r} is not a signed count with an "
                             f"optional p (like 3, -2 or 1p)")
        sign, digits, pinned = match.groups()
        count = int(digits)
        if count > checkers:
            raise ValueError(f"point {point}: {count} checkers; a side has {checkers}")
        if pinned and count == 0:
            raise ValueError(f"point {point}: a pinned checker lies under at least one "
                             f"checker of the other side, got {f!r}")
        value = count + (PIN if pinned else 0)
        board[point] = -value if sign == "-" else value
    mover, opponent = counts(board[None])
    for who, n in (("the player on roll", int(mover[0])), ("the opponent", int(opponent[0]))):
        if n > checkers:
            raise ValueError(f"{who} has {n} checkers on the board (pinned ones included); "
                             f"at most {checkers}")
    return board
