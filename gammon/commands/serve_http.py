"""``gammon serve-http``: a bot behind a small JSON API (/move, /eval) on loopback."""

from __future__ import annotations

import argparse
import sys
import threading
import time

from engine.rules import VARIANTS

from ..errors import UsageError
from ..external import MAX_CLIENTS, TIMEOUT
from ..options import add_plies_option, load_bot, with_plies

HELP = """\
Serve a bot over HTTP with a small JSON API (GET only):

  /move?posid=POSID&dice=D1,D2   the legal plays ranked by the bot: notation, score,
                                 resulting Position ID (not flipped)
  /eval?posid=POSID              probabilities, cubeless and cubeful equities, cube action
                                 (bots with probabilities: net:PATH, gnubg)

Every answer is JSON, errors too: {"error": "..."} with status 400 (a bad parameter), 404
(an unknown path), 405 (a method other than GET), 408 (a request not complete within
--timeout seconds), 413/414/431 (a body, request line or headers over 64 KB) or 503 (more
than --max-clients connections). A Position ID's '+' is written %2B in a URL (a plain '+'
arrives as a space, which is read as '+').

Requests are served at once, each connection in its own thread. Listens on 127.0.0.1
unless --host says otherwise; Ctrl-C or SIGTERM stops (answers in flight finish first, 2 s
at most; exit status 0).

example:
  gammon serve-http --port 8080 --bot net: &
  curl 'http://127.0.0.1:8080/move?posid=4HPwATDgc/ABMA&dice=3,1'
"""


def add_parser(sub) -> None:
    p = sub.add_parser("serve-http", help="serve a bot as a JSON API over HTTP",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=int, default=8080, help="TCP port (default 8080; 0: any)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (loopback)")
    p.add_argument("--bot", default="net:", help="the bot (default: net:, the shipped one)")
    p.add_argument("--variant", default="standard", choices=list(VARIANTS))
    p.add_argument("--timeout", type=float, default=TIMEOUT, metavar="SECONDS",
                   help=f"a request must arrive whole within SECONDS (default: {TIMEOUT:g})")
    p.add_argument("--max-clients", type=int, default=MAX_CLIENTS, metavar="N",
                   help=f"connections served at once; more get 503 (default: {MAX_CLIENTS})")
    add_plies_option(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from eval.bots.cube import probability_source

    from ..external import one_torch_thread, signal_name, stop_on_signals
    from ..http_api import Api, make_server
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0..65535, got {args.port}")
    if not args.timeout > 0:
        raise UsageError(f"--timeout must be a positive number of seconds, got {args.timeout}")
    if args.max_clients < 1:
        raise UsageError(f"--max-clients must be >= 1, got {args.max_clients}")
    bot_name = with_plies(args.bot, args.plies)
    bot = load_bot(bot_name, None, args.variant)
    api = Api(bot, bot_name, args.variant, probability_source(bot))
    one_torch_thread()
    try:
        server = make_server(api, args.host, args.port, args.timeout, args.max_clients)
    except OSError as e:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from None
    host, port = server.server_address[:2]
    print(f"serving {bot_name} on http://{host}:{port} (/move, /eval); Ctrl-C stops",
          file=sys.stderr, flush=True)
    stop = threading.Event()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.25},
                              name="serve-http", daemon=True)
    with stop_on_signals(stop) as received:
        thread.start()
        try:
            while not stop.is_set() and thread.is_alive():
                time.sleep(0.1)  # poll: the signal handler sets ``stop``
        finally:
            server.stop()
    print(f"stopped ({signal_name(received[0]) if received else 'server ended'})",
          file=sys.stderr, flush=True)
    return 0
