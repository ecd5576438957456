"""``gammon serve-external``: a bot as GNU Backgammon's external player, over TCP."""

from __future__ import annotations

import argparse
import sys

from engine.rules import VARIANTS
from eval.registry import valid_names

from ..errors import UsageError
from .match import load_bot

HELP = f"""\
Serve a bot to GNU Backgammon as an external player. gnubg connects to HOST:PORT and, each
time that player must act, sends a FIBS board line; the answer is the bot's play in gnubg's
notation (an empty line when it cannot move), 'roll' or 'double' before a roll, 'take',
'drop' or 'beaver' to a double, or a line starting 'Error:' for a line it cannot read.
Connections are served one after another; Ctrl-C stops the server.

Cube decisions are money-game ones (the bot's cube strategy, as in `gammon match --cube`),
also in gnubg matches; the Crawford game is respected.

In gnubg (terminal: gnubg -t):
  set player 1 external localhost:PORT
  set player 0 gnubg
  new match 5

bots: {valid_names()}

examples:
  gammon serve-external --port 4567 --bot pubeval
  gammon serve-external --port 4567 --bot net:strong.npz
"""


def add_parser(sub) -> None:
    p = sub.add_parser("serve-external", help="serve a bot to GNU Backgammon (external player)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=int, required=True, help="TCP port to listen on (0: any free)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default: 127.0.0.1, this machine only)")
    p.add_argument("--bot", default="pubeval", help="the bot that plays (default: pubeval)")
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant, for the checkers per side (default: standard)")
    p.add_argument("--seed", type=int, default=None, help="seed for bots that draw numbers")
    p.add_argument("--connections", type=int, default=0, metavar="N",
                   help="stop after serving N connections (default: 0, serve until Ctrl-C)")
    p.add_argument("--quiet", action="store_true", help="no log of connections on stderr")
    p.set_defaults(run=run)


def run(args) -> int:
    from engine.cube import CubeRules

    from ..external import ExternalPlayer, listen, serve
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0..65535, got {args.port}")
    if args.connections < 0:
        raise UsageError(f"--connections must be >= 0, got {args.connections}")
    bot = load_bot(args.bot, args.seed, args.variant, CubeRules())
    player = ExternalPlayer(bot, args.variant)
    try:
        server = listen(args.host, args.port)
    except OSError as e:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from None
    host, port = server.getsockname()[:2]
    log = (lambda text: None) if args.quiet else (lambda text: print(text, file=sys.stderr,
                                                                      flush=True))
    print(f"serving {args.bot} as a gnubg external player on {host}:{port} "
          f"(in gnubg: set player 1 external {host}:{port}); Ctrl-C stops", file=sys.stderr,
          flush=True)
    try:
        with server:
            served = serve(server, player.answer, log, args.connections)
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
        return 0
    log(f"done: {served} connection(s) served")
    return 0
