"""A small JSON API over HTTP for one bot: ``/move`` ranks the plays of a position and
roll, ``/eval`` gives the probabilities, equities and cube action of a position.

Requests are GET with query parameters; every answer is a JSON object, and a bad request
gets status 400 with ``{"error": "..."}`` naming what is wrong. ``answer`` is a pure
function of the path and query, so it is tested without a socket.

    GET /move?posid=4HPwATDgc/ABMA&dice=3,1     -> {"posid", "dice", "plays": [...]}
    GET /eval?posid=4HPwATDgc/ABMA              -> {"posid", "probabilities", ...}
    GET /                                       -> what the server offers
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlsplit

from .commands.hint import ranked
from .errors import UsageError
from .positions import read_die, read_position

MAX_QUERY = 2048  # characters: a position and a roll need far fewer


class BadRequest(ValueError):
    """A request the API cannot answer; the message says why (status 400)."""


def _one(query: dict, name: str) -> str:
    values = query.get(name)
    if not values:
        raise BadRequest(f"missing parameter {name!r}")
    if len(values) > 1:
        raise BadRequest(f"parameter {name!r} given {len(values)} times")
    return values[0]


def _dice(text: str) -> tuple[int, int]:
    parts = text.replace("-", ",").split(",")
    if len(parts) != 2:
        raise BadRequest(f"dice are two numbers like 3,1, got {text!r}")
    return read_die(parts[0]), read_die(parts[1])


class Api:
    """The answers of one bot. ``evaluate`` (boards -> probabilities) may be None: then
    ``/eval`` says the bot has no probabilities."""

    def __init__(self, bot, name: str, variant: str = "standard", evaluate=None):
        self.bot, self.name, self.variant, self.evaluate = bot, name, variant, evaluate

    def answer(self, target: str) -> tuple[int, dict]:
        """(HTTP status, JSON object) for a request target such as ``/move?posid=...``."""
        if len(target) > MAX_QUERY:
            return 400, {"error": f"request longer than {MAX_QUERY} characters"}
        parts = urlsplit(target)
        query = parse_qs(parts.query, keep_blank_values=True)
        routes = {"/": self._index, "/move": self._move, "/eval": self._eval}
        if parts.path not in routes:
            return 404, {"error": f"no such endpoint {parts.path!r}; try /move or /eval"}
        try:
            return 200, routes[parts.path](query)
        except (BadRequest, UsageError) as e:
            return 400, {"error": str(e)}

    def _index(self, query) -> dict:
        return {"bot": self.name, "variant": self.variant,
                "endpoints": {"/move": "posid, dice (e.g. 3,1): the legal plays ranked",
                              "/eval": "posid: probabilities, equities, cube action"}}

    def _move(self, query) -> dict:
        board = read_position(_one(query, "posid"), self.variant)
        d1, d2 = _dice(_one(query, "dice"))
        return {"posid": _one(query, "posid"), "dice": [d1, d2], "bot": self.name,
                "score": getattr(self.bot, "score_label", "score"),
                "plays": ranked(self.bot, board, d1, d2, self.variant)}

    def _eval(self, query) -> dict:
        from eval.analysis import analyze_cube
        text = _one(query, "posid")
        board = read_position(text, self.variant)
        if self.evaluate is None:
            raise BadRequest(f"the bot {self.name!r} estimates no probabilities")
        if board[board > 0].sum() == 0 or board[board < 0].sum() == 0:
            raise BadRequest("the game is over in this position")
        return {"posid": text, "bot": self.name, **analyze_cube(self.evaluate, board[None])[0]}


def handler_for(api: Api):
    """An http.server request handler class answering with ``api``."""

    class Handler(BaseHTTPRequestHandler):
        server_version = "gammon"

        def do_GET(self):  # noqa: N802 (http.server's name)
            status, body = api.answer(self.path)
            data = (json.dumps(body) + "\n").encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format, *args):  # quiet: one line per request is noise
            pass

    return Handler


def make_server(api: Api, host: str, port: int) -> HTTPServer:
    """A server bound to (host, port); port 0 picks a free one."""
    return HTTPServer((host, port), handler_for(api))
