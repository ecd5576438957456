"""``gammon serve-external``: a bot as GNU Backgammon's external player, over TCP."""

from __future__ import annotations

import argparse
import sys
import threading

from gammon.engine.rules import VARIANTS
from gammon.eval.bots.registry import valid_names

from ..errors import UsageError
from ..external import MAX_CLIENTS, TIMEOUT
from ..options import add_plies_option, load_bot, with_plies

HELP = f"""\
Serve a bot to GNU Backgammon as an external player. gnubg connects to HOST:PORT and, each
time that player must act, sends a FIBS board line; the answer is the bot's play in gnubg's
notation (an empty line when it cannot move), 'roll' or 'double' before a roll, 'take',
'drop' or 'beaver' to a double, or a line starting 'Error:' for a line it cannot read. A
board followed by 'resignation N' (the side on turn resigns, offering 1, 2 or 3 points per
cube, as gnubg's own external interface reads it) is answered 'accept' or 'reject' by the
bot's evaluation (a bot without probabilities accepts only the most the resigner could
lose now). gnubg itself never sends it to an external player: it answers for it.

Connections are served at once, each in its own thread (at most --max-clients). A line must
be complete within --timeout seconds of the previous answer (or of connecting), else the
connection is closed: raise it when a human plays the other side in gnubg. A line longer
than 65536 bytes is answered 'Error: line longer than 65536 bytes' and skipped. Ctrl-C or
SIGTERM stops the server: it stops listening, lets answers in flight finish (2 s at most)
and exits with status 0.

Cube decisions are money-game ones (the bot's cube strategy, as in `gammon match --cube`),
also in gnubg matches; the Crawford game is respected.

In gnubg (terminal: gnubg -t):
  set player 1 external localhost:PORT
  set player 0 gnubg
  new match 5

bots: {valid_names()}

examples:
  gammon serve-external --port 4567                 # the shipped net (net:)
  gammon serve-external --port 4567 --bot pubeval
  gammon serve-external --port 4567 --bot net:strong.npz --timeout 3600
"""


def add_parser(sub) -> None:
    p = sub.add_parser("serve-external", help="serve a bot to GNU Backgammon (external player)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=int, required=True, help="TCP port to listen on (0: any free)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default: 127.0.0.1, this machine only)")
    p.add_argument("--bot", default="net:",
                   help="the bot that plays (default: net:, the shipped net)")
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant, for the checkers per side (default: standard)")
    p.add_argument("--seed", type=int, default=None, help="seed for bots that draw numbers")
    p.add_argument("--connections", type=int, default=0, metavar="N",
                   help="stop after serving N connections (default: 0, serve until Ctrl-C)")
    p.add_argument("--timeout", type=float, default=TIMEOUT, metavar="SECONDS",
                   help=f"close a connection whose line is not complete within SECONDS of the "
                        f"previous answer (default: {TIMEOUT:g})")
    p.add_argument("--max-clients", type=int, default=MAX_CLIENTS, metavar="N",
                   help=f"connections served at once; more are refused (default: {MAX_CLIENTS})")
    p.add_argument("--quiet", action="store_true", help="no log of connections on stderr")
    add_plies_option(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from gammon.engine.cube import CubeRules

    from ..external import (ExternalPlayer, Tally, listen, one_torch_thread, serve,
                            signal_name, stop_on_signals)
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0..65535, got {args.port}")
    if args.connections < 0:
        raise UsageError(f"--connections must be >= 0, got {args.connections}")
    if not args.timeout > 0:
        raise UsageError(f"--timeout must be a positive number of seconds, got {args.timeout}")
    if args.max_clients < 1:
        raise UsageError(f"--max-clients must be >= 1, got {args.max_clients}")
    bot_name = with_plies(args.bot, args.plies)
    bot = load_bot(bot_name, args.seed, args.variant, CubeRules())
    one_torch_thread()
    player = ExternalPlayer(bot, args.variant)
    try:
        server = listen(args.host, args.port)
    except OSError as e:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from None
    host, port = server.getsockname()[:2]
    log = (lambda text: None) if args.quiet else (lambda text: print(text, file=sys.stderr,
                                                                      flush=True))
    print(f"serving {bot_name} as a gnubg external player on {host}:{port} "
          f"(in gnubg: set player 1 external {host}:{port}); Ctrl-C stops", file=sys.stderr,
          flush=True)
    stop = threading.Event()
    tally = Tally()
    with server, stop_on_signals(stop) as received:
        served = serve(server, player.answer, log, args.connections, stop,
                       timeout=args.timeout, max_clients=args.max_clients, tally=tally)
    if received:
        print(f"stopped ({signal_name(received[0])}) after {served} connection(s)",
              file=sys.stderr, flush=True)
        return 0
    log(f"done: {served} connection(s) served, {tally.answers} answers, "
        f"{tally.errors} errors")
    return 0
