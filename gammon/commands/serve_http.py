"""``gammon serve-http``: a bot behind a small JSON API (/move, /eval) on loopback."""

from __future__ import annotations

import argparse
import sys

from engine.rules import VARIANTS

from ..errors import UsageError
from .match import load_bot

HELP = """\
Serve a bot over HTTP with a small JSON API (GET only):

  /move?posid=POSID&dice=D1,D2   the legal plays ranked by the bot: notation, score,
                                 resulting Position ID (not flipped)
  /eval?posid=POSID              probabilities, cubeless and cubeful equities, cube action
                                 (bots with probabilities: net:PATH, gnubg)

A bad request gets status 400 and {"error": "..."}. Listens on 127.0.0.1 unless --host
says otherwise; Ctrl-C stops.

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
    p.set_defaults(run=run)


def run(args) -> int:
    from eval.cube_bots import probability_source

    from ..http_api import Api, make_server
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0..65535, got {args.port}")
    bot = load_bot(args.bot, None, args.variant)
    api = Api(bot, args.bot, args.variant, probability_source(bot))
    try:
        server = make_server(api, args.host, args.port)
    except OSError as e:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from None
    host, port = server.server_address[:2]
    print(f"serving {args.bot} on http://{host}:{port} (/move, /eval); Ctrl-C stops",
          file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
