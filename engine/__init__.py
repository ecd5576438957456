"""gammon's rules engine: boards, rules objects, legal plays, the game loop, outcomes, and
(in ``engine.formats``) the interchange formats.

NumPy only: this package never imports torch.
"""

from .board import flip, pip_counts
from .movegen import Plays, legal_plays
from .rules import VARIANTS, Rules, start_boards, variant

__all__ = ["VARIANTS", "Rules", "flip", "pip_counts", "start_boards", "variant", "Plays",
           "legal_plays"]
