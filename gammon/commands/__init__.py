"""The subcommands of ``gammon``, one module each."""

from . import choose, hint, match, moves, show, train

ALL = [moves, show, hint, choose, match, train]
