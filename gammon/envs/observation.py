"""The environments' observation: one flat ``Box`` of float32, field by field (``fields``).

Every observation is from one seat's side (the seat deciding; in the PettingZoo env the
agent observing): its checkers are the mover's of ``engine.board`` (positive, travelling
from 24 to 1), the opponent's negative. The fields, in order:

    board      the board block of the network encoding (``model.encoding``): ``classic``,
               TD-Gammon's 198 units, by default; ``expert`` (222) or ``advanced`` (232) on
               request; Plakoto's own 246 (pins) for Plakoto. In the classic block, units
               196 and 197 say whether this side is on roll (1, 0) or answering the
               opponent's double (0, 1). During a play the board is the position after the
               steps taken so far.
    dice       2: the roll, larger die / 6 then smaller / 6; 0 while no roll is being played
    dice_left  6: how many of each number 1..6 are still to be played, / 4
    cube       3: log2(cube value) / 6 (1 -> 0, 64 -> 1); this side owns the cube; the
               opponent owns it (both 0: centred, or no cube)
    match      5: a match (1) or money (0); this side's points to go / length; the
               opponent's / length; the Crawford game; post-Crawford
    phase      3: the decision pending: before the roll (the cube, the variant's actions),
               answering a double, moving checkers (all 0 once the episode is over)
    variant    one per state of the variant (``Rules.extra_state``), from this side: Nuclear's
               bomb +1 this side's, -1 the opponent's, 0 centred; none for the others
"""

from __future__ import annotations

import numpy as np

from gammon.engine.rules import Rules
from gammon.model.encoding import LAYOUTS, VARIANT_ENCODINGS, encoder, read_boards

BEFORE_ROLL, RESPOND, MOVE = range(3)  # the phase units' order
LOW, HIGH = -1.0, 64.0  # the Box's bounds (every unit of every encoding lies within)


def board_encoding(rules: Rules, encoding: str | None) -> str:
    """The encoding of the board block: the variant's own (Plakoto, Nuclear) or the one
    asked for (``classic`` by default)."""
    own = VARIANT_ENCODINGS.get(rules.name)
    if own is not None and encoding not in (None, own):
        raise ValueError(f"the {rules.name} variant's board is encoded by {own!r}, not "
                         f"{encoding!r}")
    name = own or encoding or "classic"
    encoder(name)  # checks the name
    return name


def fields(rules: Rules, encoding: str | None = None) -> dict[str, slice]:
    """The observation's fields by name: name -> slice of the flat vector."""
    widths = [("board", LAYOUTS[board_encoding(rules, encoding)].width), ("dice", 2),
              ("dice_left", 6), ("cube", 3), ("match", 5), ("phase", 3),
              ("variant", len(rules.extra_state))]
    out, at = {}, 0
    for name, width in widths:
        out[name] = slice(at, at + width)
        at += width
    return out


class Observer:
    """Observations of a batch of games from given sides."""

    def __init__(self, rules: Rules, encoding: str | None = None):
        self.rules = rules
        self.encoding = board_encoding(rules, encoding)
        self.encode = encoder(self.encoding)
        self.layout = LAYOUTS[self.encoding]
        self.fields = fields(rules, encoding)
        self.width = self.fields["variant"].stop

    def __call__(self, boards: np.ndarray, on_roll: np.ndarray, dice: np.ndarray,
                 left: np.ndarray, cube_value: np.ndarray, cube_owner: np.ndarray,
                 match: np.ndarray, phase: np.ndarray, extra: dict) -> np.ndarray:
        """(R, width) float32. All from the observing side: boards (R, 26), on_roll (R,)
        bool, dice (R, 2) (0: none), left (R, 7) dice counts, cube_value (R,), cube_owner
        (R,) +1 this side / -1 the opponent / 0, match (R, 5) the match units, phase (R,)
        0..2 or -1 (over), extra name -> (R,) the variant's state from this side."""
        r = len(boards)
        out = np.zeros((r, self.width), dtype=np.float32)
        f = self.fields
        board = out[:, f["board"]]
        board[:] = self.encode(read_boards(self.encoding, boards, extra), self.rules.checkers)
        board[:, self.layout.on_roll] = on_roll
        board[:, self.layout.off_roll] = ~on_roll
        dice = np.sort(np.asarray(dice), axis=1)[:, ::-1]
        out[:, f["dice"]] = dice / 6
        out[:, f["dice_left"]] = left[:, 1:] / 4
        cube = out[:, f["cube"]]
        cube[:, 0] = np.log2(np.maximum(cube_value, 1)) / 6
        cube[:, 1] = cube_owner > 0
        cube[:, 2] = cube_owner < 0
        out[:, f["match"]] = match
        shown = phase >= 0
        out[np.flatnonzero(shown), f["phase"].start + phase[shown]] = 1
        for i, name in enumerate(self.rules.extra_state):
            out[:, f["variant"].start + i] = extra[name]
        return out


__all__ = ["Observer", "fields", "board_encoding", "BEFORE_ROLL", "RESPOND", "MOVE", "LOW",
           "HIGH"]
