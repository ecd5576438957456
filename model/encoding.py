"""Input encodings: boards (N, 26) int8 from the player on roll -> network inputs (N, F).

``classic``: TD-Gammon's 198 units. For each of the 24 points and each side, four units
(one checker or more, two or more, three or more, (n - 3) / 2 beyond three); then each
side's bar (n / 2) and borne-off checkers (n / 15); then two units for the side on roll,
which, since the board is always from the mover's view, are the constant (1, 0).

``expert``: ``classic`` plus hand-made features of both sides (pip counts, blots within
direct range, home-board points, longest prime, escapes, ...), 24 more units.

``advanced``: ``classic`` plus the expert inputs of ``model.features`` for the mover, then
the same for the opponent (features of the flipped boards): pip count, checkers off, break
of contact, back checker and anchor, forward anchor, shots (pip loss, rolls hitting one and
two), back escapes, containment, mobility, entering, timing, backbone. 198 + 2 * 17 units.
``plakoto``: for Plakoto's boards (``engine.rules.plakoto``: pins in the cell values, no
bar). The classic units of the checkers on top of each point, the borne-off units counting
pinned checkers as on the board, then 48 pin units: for each point, a checker of the
opponent pinned under ours, and one of ours pinned under theirs. 246 units.

``nuclear``: the classic units and two for the bomb (the player on roll owns it; the
opponent owns it); a centred bomb is (0, 0). 200 units. The bomb is state beyond the board
(``engine.game``: +1 the player on roll's, -1 the opponent's, 0 centred), given to the
encoder as ``bomb`` (N,) or folded into the boards themselves (``fold_bomb``): the networks'
side of the project (self-play histories, training batches, checkpoints, evaluators) carries
a Nuclear position as its 26 cells with the bomb folded in, so that it stays one int8 row
and changing sides (``engine.board.flip``) hands the bomb over with the board.

A variant with state of its own needs its encoding (``VARIANT_ENCODINGS``); the others take
``classic``, ``expert`` or ``advanced``. The encoders are NumPy only, so bots can run without
torch.

Each encoding publishes its columns (``LAYOUTS``: the classic block's point, bar and
borne-off and side-on-roll units, then its own) and which leading units it shares with
another (``shared_units``); the networks' fast paths and warm starts read them there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gammon.engine.board import BAR, OPP_BAR, flip
from gammon.engine.rules.plakoto import PIN, counts

from . import features

ENCODINGS = ("classic", "expert", "advanced", "plakoto", "nuclear")
# variants whose networks need an encoding of their own (their state is not in 26 cells)
VARIANT_ENCODINGS = {"plakoto": "plakoto", "nuclear": "nuclear"}

CLASSIC_UNITS = 198  # every encoding starts with a block laid out as ``classic``'s 198 units


@dataclass(frozen=True)
class Layout:
    """The columns of an encoding's inputs (N, F) by meaning: a block laid out as the
    classic units (``points`` to ``off_roll``), then its own units (``more``). Encodings
    of the same ``block`` name hold the same units of the same board in that block (a
    network of one can start from the other's weights there: ``shared_units``)."""

    width: int  # F
    block: str  # "classic": ``classic``'s units; "plakoto": those of the checkers on top
    points = slice(0, 192)  # 24 points x 8 units, point p's at 8 (p - 1): POINT_UNITS[n + 15]
    bar_off = slice(192, 196)  # the bars / 2 (mover's, opponent's), borne off / checkers (both)
    on_roll = 196  # the mover is on roll: always 1 (the board is seen from him)
    off_roll = 197  # the opponent is on roll: always 0

    @property
    def more(self) -> slice:
        """The encoding's own units after the block: columns 198..F."""
        return slice(CLASSIC_UNITS, self.width)


LAYOUTS = {"classic": Layout(198, "classic"), "expert": Layout(222, "classic"),
           "advanced": Layout(198 + 2 * features.WIDTH, "classic"),
           "plakoto": Layout(246, "plakoto"), "nuclear": Layout(200, "classic")}
WIDTHS = {name: layout.width for name, layout in LAYOUTS.items()}
CLASSIC = LAYOUTS["classic"]


def shared_units(a: str, b: str) -> int:
    """How many leading input units encodings ``a`` and ``b`` hold alike: all of them for
    one encoding, the classic block's 198 for two of the same block, else 0."""
    if a == b:
        return LAYOUTS[a].width
    return CLASSIC_UNITS if LAYOUTS[a].block == LAYOUTS[b].block else 0


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


POINT_UNITS = _point_table()  # (31, 8) float32: one point's units, row = signed count + 15


def classic(boards: np.ndarray, checkers: int = 15) -> np.ndarray:
    """TD-Gammon's 198 units: (N, 26) int8 -> (N, 198) float32."""
    n = len(boards)
    out = np.empty((n, CLASSIC.width), dtype=np.float32)
    points = boards[:, 1:25].astype(np.intp) + 15  # (N, 24)
    out[:, CLASSIC.points] = POINT_UNITS[points].reshape(n, 192)
    b = boards.astype(np.float32)
    mover_on = np.where(boards > 0, b, 0).sum(axis=1)
    opponent_on = np.where(boards < 0, -b, 0).sum(axis=1)
    out[:, 192] = b[:, BAR] / 2
    out[:, 193] = -b[:, OPP_BAR] / 2
    out[:, 194] = (checkers - mover_on) / checkers
    out[:, 195] = (checkers - opponent_on) / checkers
    out[:, CLASSIC.on_roll] = 1.0
    out[:, CLASSIC.off_roll] = 0.0
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


def both_sides(boards: np.ndarray, checkers: int = 15) -> np.ndarray:
    """The expert inputs (``model.features``) of the mover, then of the opponent:
    (N, 26) int8 -> (N, 2 * features.WIDTH) float32, both sides in one batch."""
    return np.ascontiguousarray(both_sides_rows(boards, checkers).T)


def both_sides_rows(boards: np.ndarray, checkers: int = 15,
                    out: np.ndarray | None = None) -> np.ndarray:
    """``both_sides`` feature-major: (N, 26) int8 -> (2 * features.WIDTH, N) float32, the
    mover's rows then the opponent's, written into ``out`` when given (C-contiguous, as a
    block of rows of a bigger array is) and returned."""
    n, width = len(boards), features.WIDTH
    if out is None:
        out = np.empty((2 * width, n), dtype=np.float32)
    elif out.shape != (2 * width, n) or not out.flags.c_contiguous:
        raise ValueError(f"out must be C-contiguous ({2 * width}, {n}), got {out.shape}")
    # rows (F, 2, N): the mover's boards, then the flipped ones
    features.feature_rows(np.concatenate([boards, flip(boards)]), checkers,
                          out=out.reshape(2, width, n).transpose(1, 0, 2))
    return out


def advanced(boards: np.ndarray, checkers: int = 15) -> np.ndarray:
    """Classic units plus the expert inputs of both sides: (N, 26) -> (N, 232) float32."""
    return np.concatenate([classic(boards, checkers), both_sides(boards, checkers)], axis=1)


CLASSIC_PLUS = {"classic": None, "advanced": both_sides}
"""Encodings made of the classic units then more inputs, by name: the function of the more
(None: nothing more). A network on them may sum its classic part from a table
(``model.net.ValueNet.forward_boards``) and take the more from the function. (``expert``
is one too but keeps the plain path, so that its shipped model's values stay as they are.)"""
CLASSIC_PLUS_ROWS = {"classic": None, "advanced": both_sides_rows}
"""The same more, feature-major: ``function(boards, checkers, out)`` fills ``out`` (F - 198,
N) (``model.net.ValueNet.probabilities_boards``' ``units`` take them so, with no copy)."""


def plakoto(boards: np.ndarray, checkers: int = 15) -> np.ndarray:
    """Plakoto boards (N, 26) -> (N, 246) float32: classic units of the checkers on top,
    borne-off units counting pinned checkers, 24 units "theirs pinned under ours", 24 units
    "ours pinned under theirs"."""
    v = boards[:, 1:25].astype(np.int16)
    pinned = np.abs(v) >= PIN
    top = np.zeros_like(boards)
    top[:, 1:25] = np.sign(v) * (np.abs(v) & (PIN - 1))
    out = np.empty((len(boards), 246), dtype=np.float32)
    out[:, :198] = classic(top, checkers)
    ours_pinned = pinned & (v < 0)
    theirs_pinned = pinned & (v > 0)
    mover_on, opponent_on = counts(boards)  # borne off: pinned checkers are still on the board
    out[:, 194] = (checkers - mover_on) / checkers
    out[:, 195] = (checkers - opponent_on) / checkers
    out[:, 198:222] = theirs_pinned
    out[:, 222:246] = ours_pinned
    return out


BOMB_FOLD = 64  # added to the mover's bar (his bomb) or taken from the opponent's (theirs)


def fold_bomb(boards: np.ndarray, bomb: np.ndarray) -> np.ndarray:
    """Boards (N, 26) with the bomb (N,) relative to the player on roll folded in: cell 25
    + 64 when he owns it, cell 0 - 64 when the opponent does (bars hold at most 15, so the
    fold is told apart; a side change negates and mirrors both). A new array."""
    out = np.array(boards, dtype=np.int8, copy=True)
    bomb = np.asarray(bomb)
    out[:, 25] += np.where(bomb > 0, BOMB_FOLD, 0).astype(np.int8)
    out[:, 0] -= np.where(bomb < 0, BOMB_FOLD, 0).astype(np.int8)
    return out


def unfold_bomb(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The plain boards (N, 26) and the bomb (N,) int8 of boards made by ``fold_bomb``."""
    mine, theirs = boards[:, 25] >= BOMB_FOLD, boards[:, 0] <= -BOMB_FOLD
    plain = np.array(boards, dtype=np.int8, copy=True)
    plain[mine, 25] -= BOMB_FOLD
    plain[theirs, 0] += BOMB_FOLD
    return plain, (mine.astype(np.int8) - theirs.astype(np.int8))


def read_boards(encoding: str | None, boards: np.ndarray, extra: dict | None) -> np.ndarray:
    """Boards (N, 26) as a network of ``encoding`` reads them, given the variant's state of
    the N positions (``extra``: name -> (N,), relative to the player on roll, as
    ``engine.game.GameState`` keeps it): the state folded into the cells where the encoding
    reads it (nuclear: the bomb, ``fold_bomb``, a new array); the boards themselves
    otherwise (no other encoding reads a variant's state)."""
    if encoding == "nuclear" and extra and "bomb" in extra:
        return fold_bomb(boards, extra["bomb"])
    return boards


def plain_boards(encoding: str | None, boards: np.ndarray) -> np.ndarray:
    """The boards of ``read_boards`` without the state folded in (for the rules)."""
    return unfold_bomb(boards)[0] if encoding == "nuclear" else boards


def nuclear(boards: np.ndarray, checkers: int = 15, bomb: np.ndarray | None = None) -> np.ndarray:
    """Nuclear boards (N, 26) and the bomb (N,) relative to the player on roll (or boards
    with the bomb folded in, ``fold_bomb``) -> (N, 200) float32: classic units, then (he
    owns the bomb, the opponent owns it)."""
    if bomb is None:
        boards, bomb = unfold_bomb(boards)
    out = np.zeros((len(boards), 200), dtype=np.float32)
    out[:, :198] = classic(boards, checkers)
    bomb = np.asarray(bomb)
    out[:, 198] = bomb > 0
    out[:, 199] = bomb < 0
    return out


def encoder(name: str):
    """The encoding function of a name; ValueError lists the valid ones."""
    functions = {"classic": classic, "expert": expert, "advanced": advanced,
                 "plakoto": plakoto, "nuclear": nuclear}
    if name not in functions:
        raise ValueError(f"unknown encoding {name!r}; valid: {', '.join(ENCODINGS)}")
    return functions[name]


def width(name: str) -> int:
    """Number of input units of an encoding."""
    return WIDTHS[encoder(name).__name__]


def check_encoding(name: str, variant: str) -> None:
    """ValueError when an encoding cannot describe a variant's positions: Plakoto and
    Nuclear need their own (pins, the bomb); the others take classic, expert or advanced."""
    need = VARIANT_ENCODINGS.get(variant)
    if need is not None and name != need:
        raise ValueError(f"the {variant} variant needs the {need!r} encoding "
                         f"(its positions hold more than 26 cells say), not {name!r}")
    if need is None and name in VARIANT_ENCODINGS.values():
        raise ValueError(f"the {name!r} encoding is for the {name} variant, not {variant}")
