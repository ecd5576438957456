"""gammon's rules engine: boards, legal plays, game mechanics and interchange formats.

NumPy only: this package never imports torch.
"""

from .board import VARIANTS, Variant, flip, pip_counts, start_boards, variant
from .movegen import Plays, legal_plays

__all__ = ["VARIANTS", "Variant", "flip", "pip_counts", "start_boards", "variant", "Plays",
           "legal_plays"]
