"""A small JSON API over HTTP for one bot: ``/move`` ranks the plays of a position and
roll, ``/eval`` gives the probabilities, equities and cube action of a position.

Requests are GET with query parameters; every answer is a JSON object, errors included:
``{"error": "..."}`` with status 400 for a bad parameter, 404 for an unknown path, 405
(and an ``Allow: GET`` header) for another method, 408 for a request not complete within
the timeout, 413/414/431 for a body, request line or header section over 64 KB, 503 when
too many connections are open. ``Api.answer`` is a function of the path and query (the bot
asked by one thread at a time), so it is tested without a socket.

    GET /move?posid=4HPwATDgc/ABMA&dice=3,1     -> {"posid", "dice", "plays": [...]}
    GET /eval?posid=4HPwATDgc/ABMA              -> {"posid", "probabilities", ...}
    GET /                                       -> what the server offers

A ``+`` of a Position ID must be written ``%2B`` in a URL; written plain it arrives as a
space, which is read as ``+`` (Position IDs have no spaces).

``make_server`` serves an ``Api`` with one thread per connection (``ApiServer``): no client
can block the others (each request must arrive whole within ``timeout`` seconds), and a
client hanging up mid-reply is no error.
"""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import numpy as np

from eval.analysis import analyze_cube, ranked_many

from .batching import Batcher
from .errors import UsageError
from .external import GRACE, MAX_CLIENTS, TIMEOUT, clip, finish_connections, quote
from .positions import read_die, read_position

MAX_QUERY = 2048  # characters of a request target: a position and a roll need far fewer
MAX_BYTES = 65536  # bytes of a request line, of the header section, of a body
PLUS = "('+' in a URL is written %2B; a space is read as '+')"


class BadRequest(ValueError):
    """A request the API cannot answer; the message says why (status 400)."""


def _one(query: dict, name: str) -> str:
    values = query.get(name)
    if not values:
        raise BadRequest(f"missing parameter {name!r}")
    if len(values) > 1:
        raise BadRequest(f"parameter {name!r} given {len(values)} times")
    return values[0]


def _posid(query: dict) -> str:
    """The ``posid`` parameter, a space read as the ``+`` it was before URL decoding."""
    return _one(query, "posid").replace(" ", "+")


def _board(text: str, variant: str):
    try:
        return read_position(text, variant)
    except UsageError as e:
        raise BadRequest(f"{e} {PLUS}" if "+" in text else str(e)) from None


def _dice(text: str) -> tuple[int, int]:
    parts = text.replace("-", ",").split(",")
    if len(parts) != 2:
        raise BadRequest(f"dice are two numbers like 3,1, got {quote(text)}")
    return read_die(parts[0]), read_die(parts[1])


class Api:
    """The answers of one bot. ``evaluate`` (boards -> probabilities) may be None: then
    ``/eval`` says the bot has no probabilities. ``answer`` may be called from several
    threads: the bot is asked by one at a time, the ``/move`` questions waiting meanwhile
    all at once (``gammon.batching``)."""

    def __init__(self, bot, name: str, variant: str = "standard", evaluate=None):
        self.bot, self.name, self.variant, self.evaluate = bot, name, variant, evaluate
        self._lock = threading.Lock()  # bots need not be thread-safe (gnubg_nn, RNGs)
        # /move questions waiting together are answered in one batch, under the same lock
        self._plays = Batcher(self._rank, self._lock)

    def answer(self, target: str) -> tuple[int, dict]:
        """(HTTP status, JSON object) for a request target such as ``/move?posid=...``."""
        if len(target) > MAX_QUERY:
            return 400, {"error": f"request longer than {MAX_QUERY} characters"}
        parts = urlsplit(target)
        query = parse_qs(parts.query, keep_blank_values=True)
        routes = {"/": self._index, "/move": self._move, "/eval": self._eval}
        if parts.path not in routes:
            return 404, {"error": f"no such endpoint {quote(parts.path)}; try /move or /eval"}
        try:
            return 200, routes[parts.path](query)
        except (BadRequest, UsageError) as e:
            return 400, {"error": clip(str(e))}

    def _index(self, query) -> dict:
        return {"bot": self.name, "variant": self.variant,
                "endpoints": {"/move": "posid, dice (e.g. 3,1): the legal plays ranked",
                              "/eval": "posid: probabilities, equities, cube action"},
                "note": "a Position ID's '+' is written %2B in a URL"}

    def _move(self, query) -> dict:
        text = _posid(query)
        board = _board(text, self.variant)
        d1, d2 = _dice(_one(query, "dice"))
        return {"posid": text, "dice": [d1, d2], "bot": self.name,
                "score": getattr(self.bot, "score_label", "score"),
                "plays": self._plays.ask((board, d1, d2))}

    def _rank(self, questions) -> list[list[dict]]:
        """The ranked plays of each (board, d1, d2), in one batch."""
        boards = np.stack([board for board, _, _ in questions])  # (B, 26)
        dice = np.array([[d1, d2] for _, d1, d2 in questions])  # (B, 2)
        return ranked_many(self.bot, boards, dice, self.variant)

    def _eval(self, query) -> dict:
        text = _posid(query)
        board = _board(text, self.variant)
        if self.evaluate is None:
            raise BadRequest(f"the bot {self.name!r} estimates no probabilities")
        if board[board > 0].sum() == 0 or board[board < 0].sum() == 0:
            raise BadRequest("the game is over in this position")
        with self._lock:
            return {"posid": text, "bot": self.name,
                    **analyze_cube(self.evaluate, board[None])[0]}


class _Closing(Exception):
    """The connection ended before a whole request came: nothing to answer."""


class _SocketInput(io.RawIOBase):
    """A socket read with a deadline for the whole request (not per read, so a client
    sending a byte at a time gains nothing)."""

    def __init__(self, conn: socket.socket):
        self.conn, self.deadline = conn, None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        remaining = None if self.deadline is None else self.deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            raise TimeoutError("request not complete in time")
        self.conn.settimeout(remaining)
        return self.conn.recv_into(buffer)  # socket.timeout is TimeoutError


class _Input:
    """The request stream: a readline that may be held to a byte budget (the header
    section), and notes when the stream ended."""

    def __init__(self, raw: _SocketInput):
        self.reader = io.BufferedReader(raw, MAX_BYTES)
        self.budget: int | None = None
        self.ended = False

    def readline(self, limit: int = -1) -> bytes:
        cap = limit if limit is not None and limit >= 0 else None
        if self.budget is not None:
            cap = self.budget + 1 if cap is None else min(cap, self.budget + 1)
        line = self.reader.readline(-1 if cap is None else cap)
        if not line.endswith(b"\n") and (cap is None or len(line) < cap):
            self.ended = True
        if self.budget is not None:
            self.budget -= len(line)
            if self.budget < 0:
                raise http.client.LineTooLong("the header section")
        return line

    def read(self, n: int = -1) -> bytes:
        data = self.reader.read(n)
        if n is None or n < 0 or len(data) < n:
            self.ended = True
        return data

    def close(self) -> None:
        self.reader.close()

    @property
    def closed(self) -> bool:
        return self.reader.closed


class _Output:
    """Writes go out whole (``sendall``), with a fresh timeout."""

    def __init__(self, conn: socket.socket, timeout: float):
        self.conn, self.timeout, self.closed = conn, timeout, False

    def write(self, data: bytes) -> int:
        self.conn.settimeout(self.timeout)
        self.conn.sendall(data)
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def handler_for(api: Api, timeout: float = TIMEOUT):
    """An http.server request handler class answering with ``api``: one request per
    connection (HTTP/1.0), which must arrive whole within ``timeout`` seconds."""

    class Handler(BaseHTTPRequestHandler):
        server_version = "gammon"
        protocol_version = "HTTP/1.0"

        def setup(self):
            self.connection = self.request
            self._raw = _SocketInput(self.connection)
            self.rfile = _Input(self._raw)
            self.wfile = _Output(self.connection, timeout)
            self._linger = self._answered = False

        def handle_one_request(self):
            self.close_connection = True
            self.command, self.request_version, self.requestline = None, "", ""
            self._raw.deadline = time.monotonic() + timeout
            try:
                line = self.rfile.readline(MAX_BYTES + 1)
                if len(line) > MAX_BYTES:
                    self.send_error(414, f"request line longer than {MAX_BYTES} bytes")
                    return
                if self.rfile.ended:  # hung up (or shut at a stop) before a whole line
                    return
                self.raw_requestline = line
                self.rfile.budget = MAX_BYTES
                parsed = self.parse_request()  # its errors go through send_error
                self.rfile.budget = None
                if not parsed or self.rfile.ended or not self._read_body():
                    return
                if self.command != "GET":
                    self.send_error(405, f"method {quote(self.command)} not allowed; "
                                         f"the API answers GET")
                    return
                self._get()
            except TimeoutError:
                self._request_timeout()
            except (_Closing, OSError):  # hung up, reset: nothing to say, nobody to hear
                pass

        def _read_body(self) -> bool:
            """Read and drop a body (none is used); False when an error was sent."""
            if self.headers.get("Transfer-Encoding"):
                self.send_error(411, "a request body needs a Content-Length")
                return False
            length = self.headers.get("Content-Length")
            if length is None:
                return True
            if not length.strip().isdigit():
                self.send_error(400, f"bad Content-Length {quote(length)}")
                return False
            if int(length) > MAX_BYTES:
                self.send_error(413, f"request body longer than {MAX_BYTES} bytes")
                return False
            self.rfile.read(int(length))
            if self.rfile.ended:
                raise _Closing
            return True

        def _get(self):
            try:
                status, body = api.answer(self.path)
            except Exception as e:  # a bug: say so, once, and keep serving
                print(f"serve-http: error answering {quote(self.path)}: "
                      f"{type(e).__name__}: {clip(str(e))}", file=sys.stderr, flush=True)
                status, body = 500, {"error": f"internal error: {type(e).__name__}"}
            self._send_json(status, body)

        def _request_timeout(self):
            if self._answered:  # the client stopped reading the answer: give up
                return
            with contextlib.suppress(OSError):
                self.send_error(408, f"request not complete within {timeout:g} s")

        def send_error(self, code, message=None, explain=None):
            """Every error as JSON (http.server's own ones too: 400, 414, 431, ...)."""
            text = message or self.responses.get(code, ("error",))[0]
            if code == 431:  # http.server's words for its header limits
                text = ("more than 100 header lines" if message == "Too many headers"
                        else f"headers longer than {MAX_BYTES} bytes")
            headers = {"Allow": "GET"} if code == 405 else {}
            self._linger = code != 408  # a rest of the request may wait unread
            self._send_json(code, {"error": clip(text)}, headers)

        def _send_json(self, status: int, body: dict, headers: dict | None = None):
            data = (json.dumps(body) + "\n").encode()
            self._answered = True
            if self.request_version == "HTTP/0.9":  # a status line and headers all the same
                self.request_version = "HTTP/1.0"
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def finish(self):
            # after an error, drop what the client still sends (a bounded while) so that
            # closing does not reset the connection before it reads the answer
            if self._linger:
                _drain(self.connection)
            with contextlib.suppress(OSError):
                self.rfile.close()

        def log_message(self, format, *args):  # quiet: one line per request is noise
            pass

    return Handler


def _drain(conn: socket.socket, seconds: float = 1.0, most: int = 1 << 20) -> None:
    with contextlib.suppress(OSError):
        conn.shutdown(socket.SHUT_WR)
        deadline, got = time.monotonic() + seconds, 0
        while got < most:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            conn.settimeout(remaining)
            data = conn.recv(65536)
            if not data:
                break
            got += len(data)


BUSY = (b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json\r\n"
        b"Connection: close\r\n")


class ApiServer(ThreadingHTTPServer):
    """A threading HTTP server that holds at most ``max_clients`` connections (past them, a
    newcomer gets 503 at once), keeps a client hanging up out of the log, and stops
    (``stop``) by closing its socket and letting the answers in flight finish briefly."""

    daemon_threads = True
    request_queue_size = 1024  # a burst of clients waits in the kernel, not refused

    def __init__(self, address, handler, max_clients: int = MAX_CLIENTS):
        self.max_clients = max_clients
        self._slots = threading.BoundedSemaphore(max_clients)
        self._active: dict[socket.socket, threading.Thread] = {}
        self._lock = threading.Lock()
        super().__init__(address, handler)

    def process_request(self, request, client_address):
        if not self._slots.acquire(blocking=False):
            body = json.dumps({"error": f"too many connections ({self.max_clients}); "
                                        f"try again later"}).encode() + b"\n"
            with contextlib.suppress(OSError):
                request.settimeout(1.0)
                request.sendall(BUSY + b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address):
        with self._lock:
            self._active[request] = threading.current_thread()
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._lock:
                self._active.pop(request, None)
            self._slots.release()

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], OSError):
            return  # the client hung up, reset or stalled: nothing to report
        super().handle_error(request, client_address)

    def open_connections(self) -> int:
        with self._lock:
            return len(self._active)

    def stop(self, grace: float = GRACE) -> None:
        """From another thread than ``serve_forever``'s (which must be running): stop
        accepting, close the listening socket, end the connections still waiting for a
        request, and give the answers in flight up to ``grace`` seconds."""
        self.shutdown()
        self.server_close()
        finish_connections(self._active, self._lock, grace)


def make_server(api: Api, host: str, port: int, timeout: float = TIMEOUT,
                max_clients: int = MAX_CLIENTS) -> ApiServer:
    """A server bound to (host, port); port 0 picks a free one."""
    return ApiServer((host, port), handler_for(api, timeout), max_clients)
