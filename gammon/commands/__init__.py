"""The subcommands of ``gammon``, one module each."""

from . import (analyze, choose, cube, explode, export, hint, match, met, moves, play, plot,
               review, rollout, serve_external, serve_http, show, tournament, train)

ALL = [moves, show, explode, hint, choose, match, tournament, analyze, cube, rollout, met,
       train, export, plot, play, review, serve_external, serve_http]
