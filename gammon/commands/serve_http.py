"""``gammon serve-http``: a bot behind a JSON API (/move, /eval, /rollout) on loopback,
FastAPI on uvicorn (``gammon.web``, the web extra)."""

from __future__ import annotations

import argparse
import sys
import threading
import time

from gammon.engine.rules import VARIANTS
from gammon.eval.analysis.rollouts import DEFAULT_TRIALS, MAX_TRIALS

from ..errors import UsageError
from ..external import MAX_CLIENTS, TIMEOUT
from ..options import add_plies_option, load_bot, with_plies
from ..positions import whole_type
from ..web import INSTALL

HELP = f"""\
Serve a bot over HTTP with a JSON API (FastAPI on uvicorn; needs the web extra: {INSTALL}):

  /move?posid=POSID&dice=D1,D2   the legal plays ranked by the bot: notation, score,
                                 resulting Position ID (not flipped)
  /eval?posid=POSID              probabilities, cubeless and cubeful equities, cube action
                                 (bots with probabilities: net:PATH, gnubg)
  /rollout?posid=POSID&trials=N&seed=S&truncate=P&vr=false ...
                                 a rollout, the JSON of `gammon rollout --json`; at most
                                 --max-trials trials a request (default {DEFAULT_TRIALS:,})
  /docs, /openapi.json           every endpoint and field, as a page and as OpenAPI
  /                              the board in the browser: play the bot (money games or a
                                 match to N, the cube, resign), hints, a Position ID /
                                 XGID box to analyse any position, the record as .mat
                                 (its game API: /game/..., /analyse; /api: the index)

Each endpoint answers GET with query parameters and POST with the same fields as a JSON
object. Every answer is JSON, errors too: {{"error": "...", "field": "..."}} with status 422
(a bad or missing field, named), 404 (an unknown path), 405 (another method), 408 (a request
not complete within --timeout seconds), 413/414/431 (a body over 64 KB, a request target
over 2,048 characters, headers over 64 KB or 100 lines) or 503 (more than --max-clients
connections, or 2 rollouts being played). A Position ID's '+' is written %2B in a URL (a
plain '+' arrives as a space, which is read as '+').

One event loop reads every connection, so an idle or slow client holds up nobody; one
thread asks the bot (the /move requests that wait meanwhile ranked in one batch), and a
rollout plays its trials a few dozen at a time so that other requests are answered
between them. Listens on 127.0.0.1 unless --host says otherwise; Ctrl-C or SIGTERM stops
(answers in flight finish first, 2 s at most; exit status 0).

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
    p.add_argument("--max-trials", type=whole_type("--max-trials", 1, MAX_TRIALS),
                   default=DEFAULT_TRIALS, metavar="N",
                   help=f"the most trials of one /rollout request, 1 to {MAX_TRIALS:,} "
                        f"(default: {DEFAULT_TRIALS:,})")
    add_plies_option(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from ..web import INSTALL, missing
    gone = missing()
    if gone is not None:
        raise UsageError(f"serve-http needs the package {gone}: {INSTALL}")
    from gammon.eval.bots.cube import probability_source

    from ..external import one_torch_thread, signal_name, stop_on_signals
    from ..http_api import Api
    from ..web.server import WebServer
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0..65535, got {args.port}")
    if not args.timeout > 0:
        raise UsageError(f"--timeout must be a positive number of seconds, got {args.timeout}")
    if args.max_clients < 1:
        raise UsageError(f"--max-clients must be >= 1, got {args.max_clients}")
    bot_name = with_plies(args.bot, args.plies)
    bot = load_bot(bot_name, None, args.variant)
    api = Api(bot, bot_name, args.variant, probability_source(bot), args.max_trials)
    one_torch_thread()
    try:
        server = WebServer(api, args.host, args.port, args.timeout, args.max_clients)
    except OSError as e:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from None
    host, port = server.server_address[:2]
    print(f"serving {bot_name} on http://{host}:{port} (the board at /; /move, /eval, "
          f"/rollout, /docs); "
          f"Ctrl-C stops", file=sys.stderr, flush=True)
    stop = threading.Event()
    with stop_on_signals(stop) as received:
        server.start()
        try:
            while not stop.is_set() and server.running():
                time.sleep(0.1)  # poll: the signal handler sets ``stop``
        finally:
            server.stop()
    print(f"stopped ({signal_name(received[0]) if received else 'server ended'})",
          file=sys.stderr, flush=True)
    return 0
