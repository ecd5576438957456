"""Sudden death: standard movement and start; the first hit wins.

Our rules source: "whoever first hits an opponent's checker wins; no gammons or
backgammons". Our reading: the legal plays are the standard ones; a play that hits wins at
once, 1 point (times the cube when one is used); a game without a hit ends as usual with
single points only.

No state beyond the board is needed: until the first hit no checker has ever been on a
bar, so a play hits exactly when its afterstate has an opponent's checker on the bar.
"""

from __future__ import annotations

import numpy as np

from .base import SINGLE
from .standard import STANDARD, StandardRules


class SuddenDeathRules(StandardRules):
    """Standard movement; a hit or the last checker borne off wins a single game."""

    gammons = False  # "no gammons or backgammons"

    def end_of_game(self, afterstates: np.ndarray) -> np.ndarray:
        """1 for the player who just moved when the play hit ("whoever first hits ...
        wins") or bore off his last checker ("no gammons or backgammons"); else 0."""
        b = np.asarray(afterstates)
        hit = b[..., 0] < 0  # an opponent's checker on the bar: only the winning hit
        off = (b > 0).sum(axis=-1) == 0  # the mover has no checker left on the board
        return np.where(hit | off, SINGLE, 0).astype(np.int8)


SUDDENDEATH = SuddenDeathRules("suddendeath", 15, STANDARD.layout)
