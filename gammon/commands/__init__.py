"""The subcommands of ``gammon``, one module each."""

from . import moves, show

ALL = [moves, show]
