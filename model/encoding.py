"""Input encodings: boards (N, 26) int8 from the player on roll -> network inputs (N, F).

``classic``: TD-Gammon's 198 units. For each of the 24 points and each side, four units
(one checker or more, two or more, three or more, (n - 3) / 2 beyond three); then each
side's bar (n / 2) and borne-off checkers (n / 15); then two units for the side on roll,
which, since the board is always from the mover's view, are the constant (1, 0).

``expert``: ``classic`` plus hand-made features of both sides (pip counts, blots within
direct range, home-board points, longest prime, escapes, ...), 24 more units.
The encoders are NumPy only, so bots can run without torch.
"""

from __future__ import annotations

import numpy as np

from engine.board import BAR, OPP_BAR

ENCODINGS = ("classic", "expert")


def _point_table() -> np.ndarray:
    """Units of one point by its signed count: (31, 8) float32, row = count + 15."""
    table = np.zeros((31, 8), dtype=np.float32)
    for count in range(-15, 16):
        n = abs(count)
        units = [n >= 1, n >= 2, n >= 3, max(n - 3, 0) / 2]
        if count > 0:
            table[count + 15, :4] = units
        elif count < 0:
            table[count + 15, 4:] = units
    return table


_POINT_UNITS = _point_table()


def classic(boards: np.ndarray, checkers: int = 15) -> np.ndarray:
    """TD-Gammon's 198 units: (N, 26) int8 -> (N, 198) float32."""
    n = len(boards)
    out = np.empty((n, 198), dtype=np.float32)
    points = boards[:, 1:25].astype(np.intp) + 15  # (N, 24)
    out[:, :192] = _POINT_UNITS[points].reshape(n, 192)
    b = boards.astype(np.float32)
    mover_on = np.where(boards > 0, b, 0).sum(axis=1)
    opponent_on = np.where(boards < 0, -b, 0).sum(axis=1)
    out[:, 192] = b[:, BAR] / 2
    out[:, 193] = -b[:, OPP_BAR] / 2
    out[:, 194] = (checkers - mover_on) / checkers
    out[:, 195] = (checkers - opponent_on) / checkers
    out[:, 196] = 1.0
    out[:, 197] = 0.0
    return out


def _side_features(boards: np.ndarray) -> np.ndarray:
    """Twelve expert features of the mover's side: (N, 12) float32."""
    b = boards.astype(np.int16)
    mine = np.maximum(b, 0)  # (N, 26)
    theirs = np.maximum(-b, 0)
    points = np.arange(26)
    pips = (mine * points).sum(axis=1)
    made = mine[:, 1:25] >= 2  # (N, 24)
    blot = mine[:, 1:25] == 1
    # opponent checkers at our point q move towards 24: a checker at q hits a blot at p > q
    # directly when p - q <= 6 (from their bar, q = 0)
    opp_at = theirs[:, :25]  # (N, 25): index 0 = their bar, 1..24 points
    direct = np.zeros(len(b), dtype=np.float32)
    indirect = np.zeros(len(b), dtype=np.float32)
    for d in range(1, 13):
        shooters = np.zeros_like(blot, dtype=np.int16)
        shooters[:, d - 1:] = opp_at[:, :25 - d]  # blot at point p sees opponent at p - d
        hits = (blot & (shooters > 0)).sum(axis=1)
        (direct if d <= 6 else indirect)[:] += hits
    home_points = made[:, :6].sum(axis=1)
    # longest run of made points (a prime)
    run = np.zeros(len(b), dtype=np.int16)
    longest = np.zeros(len(b), dtype=np.int16)
    for p in range(24):
        run = np.where(made[:, p], run + 1, 0)
        longest = np.maximum(longest, run)
    # the opponent's rearmost checker, our checkers behind it (still to escape)
    their_back = np.where(theirs[:, :25].any(axis=1), np.argmax(theirs[:, :25] > 0, axis=1), 0)
    behind = (mine * (points[None, :] > their_back[:, None])).sum(axis=1)
    anchors = made[:, 18:24].sum(axis=1)
    blots = blot.sum(axis=1)
    outside = mine[:, 7:26].sum(axis=1)
    stacked = np.maximum(mine[:, 1:7] - 3, 0).sum(axis=1)
    contact = (behind > 0).astype(np.float32)
    return np.stack([pips / 167, direct / 5, indirect / 5, home_points / 6, longest / 6,
                     behind / 15, anchors / 3, blots / 5, outside / 15, stacked / 10,
                     contact, mine[:, 25] / 2], axis=1).astype(np.float32)


def expert(boards: np.ndarray, checkers: int = 15) -> np.ndarray:
    """Classic units plus expert features of both sides: (N, 26) -> (N, 222) float32."""
    flipped = -boards[:, ::-1]
    return np.concatenate([classic(boards, checkers), _side_features(boards),
                           _side_features(flipped)], axis=1)


def encoder(name: str):
    """The encoding function of a name; ValueError lists the valid ones."""
    if name == "classic":
        return classic
    if name == "expert":
        return expert
    raise ValueError(f"unknown encoding {name!r}; valid: {', '.join(ENCODINGS)}")


def width(name: str) -> int:
    """Number of input units of an encoding."""
    return {"classic": 198, "expert": 222}[encoder(name).__name__]
