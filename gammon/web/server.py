"""``WebServer``: the API's application (``gammon.web.app``) served by uvicorn on a socket.

uvicorn's event loop reads every connection at once, so no client holds up another; the
limits uvicorn lacks are in its HTTP protocol here (``protocol_class``):

- a request (its request line, headers and body) must arrive whole within ``timeout``
  seconds of the connection or of the previous answer: else 408, and the connection is
  closed (an idle client, a client sending a byte at a time);
- between requests on a kept-alive connection, at most ``KEEP_ALIVE`` seconds (or
  ``timeout``, if shorter) of silence;
- at most ``max_clients`` connections at once: a newcomer past them is answered 503;
- a request line or header section over ``MAX_BYTES`` is answered 414 or 431 before more is
  read (h11's limit on an incomplete event); other unreadable HTTP 400;

each in JSON, ``{"error": "..."}``, written straight to the socket (no request was read to
answer). Every connection closes by lingering (``Lingering``): the server's side is shut
for writing and what the client still sends (the rest of a refused body) is read and
dropped, ``LINGER`` seconds or ``DRAIN`` bytes at most, so that closing does not reset the
connection before the client reads its answer.
``stop`` stops accepting, closes the idle connections, gives the answers in flight ``GRACE``
seconds, and ends the rollouts being played.
"""

from __future__ import annotations

import asyncio
import http
import json
import logging
import socket
import threading
import time

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..external import GRACE, MAX_CLIENTS, TIMEOUT
from ..http_api import MAX_BYTES, Api, error_body
from .app import make_app
from .threads import BotThread

KEEP_ALIVE = 5.0  # seconds a kept-alive connection may wait for its next request
LINGER = 1.0  # seconds a closing connection waits for the client to hang up
DRAIN = 1 << 20  # bytes a closing connection reads and drops at most
BACKLOG = 1024  # a burst of clients waits in the kernel, not refused


def raw_reply(status: int, message: str) -> bytes:
    """A whole HTTP answer with the JSON error ``message``, the connection to close."""
    body = (json.dumps(error_body(message)) + "\n").encode()
    phrase = http.HTTPStatus(status).phrase
    return (f"HTTP/1.1 {status} {phrase}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n").encode() + body


class Lingering:
    """A transport whose ``close`` lingers: shut for writing at once, closed once the client
    hangs up, after ``LINGER`` seconds, or past ``DRAIN`` bytes dropped (the protocol drops
    what arrives meanwhile). Everything else is the transport's."""

    def __init__(self, transport, loop):
        self._transport, self._loop = transport, loop
        self.closing = False
        self.dropped = 0

    def close(self) -> None:
        if self.closing:
            return
        self.closing = True
        transport = self._transport
        if transport.is_closing() or not transport.can_write_eof():
            transport.close()
            return
        try:
            transport.write_eof()
        except OSError:  # the client is gone already (ENOTCONN, EPIPE): nothing to linger for
            transport.close()
            return
        self._loop.call_later(LINGER, transport.close)

    def drop(self, data: bytes) -> None:
        self.dropped += len(data)
        if self.dropped > DRAIN:
            self._transport.close()

    def abort(self) -> None:
        self.closing = True
        self._transport.abort()

    def is_closing(self) -> bool:
        return self.closing or self._transport.is_closing()

    def __getattr__(self, name):
        return getattr(self._transport, name)


def protocol_class(timeout: float = TIMEOUT, max_clients: int = MAX_CLIENTS):
    """uvicorn's h11 protocol with the time, connection and size limits above."""

    class Protocol(H11Protocol):
        def connection_made(self, transport) -> None:
            self._timer = None
            self._refused = False
            super().connection_made(Lingering(transport, asyncio.get_running_loop()))
            if len(self.connections) > max_clients:
                self._refuse(503, f"too many connections ({max_clients}); try again later")
                return
            self._arm()

        def connection_lost(self, exc) -> None:
            self._disarm()
            self.transport.closing = True  # nothing more to write or linger for
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._refused or self.transport.closing:  # answered: what follows is dropped
                self.transport.drop(data)
                return
            if self._timer is None and self.conn.their_state is h11.IDLE:
                self._arm()  # the next request on a kept-alive connection begins
            try:
                super().data_received(data)
            except Exception:  # noqa: BLE001 - uvicorn could not read it (a bad target...)
                if not self.transport.is_closing():
                    self._refuse(400, "bad request: not an HTTP/1.x request line and headers")
                return
            if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED):
                self._disarm()  # the request came whole

        def send_400_response(self, msg: str) -> None:
            """h11 could not read the request: too long, or not HTTP."""
            data = self.conn.trailing_data[0]
            if len(data) > MAX_BYTES:
                end = data.find(b"\n")
                if end < 0 or end > MAX_BYTES:
                    self._refuse(414, f"request line longer than {MAX_BYTES} bytes")
                else:
                    self._refuse(431, f"headers longer than {MAX_BYTES} bytes")
                return
            self._refuse(400, "bad request: not an HTTP/1.x request line and headers")

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if (self.timeout_keep_alive_task is not None
                    and self.conn.their_state is not h11.IDLE):
                # answered before the body came whole: the request's own timer still runs
                self._unset_keepalive_if_required()

        def _arm(self) -> None:
            self._disarm()
            self._timer = self.loop.call_later(timeout, self._timed_out)

        def _disarm(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def _timed_out(self) -> None:
            self._timer = None
            if self.transport.is_closing():
                return
            cycle = self.cycle
            if cycle is not None and cycle.response_started:
                if cycle.response_complete:  # answered; the rest of the body never came
                    self.transport.close()
                return  # an answer in progress is not the client's delay
            if cycle is not None:  # the app waits for a body that does not come
                cycle.disconnected = True
                cycle.message_event.set()
            self._refuse(408, f"request not complete within {timeout:g} s")

        def _refuse(self, status: int, message: str) -> None:
            self._disarm()
            self._unset_keepalive_if_required()
            self._refused = True
            self.transport.write(raw_reply(status, message))
            self.transport.close()  # lingering

    return Protocol


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to (host, port) (port 0: a free one); OSError when it cannot."""
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    # proto TCP named: asyncio sets TCP_NODELAY only on sockets that say so (an answer's
    # headers and body then leave at once, not after the client's delayed ACK, 40 ms)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)
    except OSError:
        sock.close()
        raise
    return sock


class WebServer:
    """``api`` served by uvicorn on (host, port): ``start()`` in a thread of its own, then
    ``stop()``; or ``serve_forever()`` in the caller's thread. Binding happens here, so an
    address in use is an OSError at once and ``server_address`` is known before starting."""

    def __init__(self, api: Api, host: str, port: int, timeout: float = TIMEOUT,
                 max_clients: int = MAX_CLIENTS):
        self.api = api
        self.bot = BotThread()
        self.app = make_app(api, self.bot)
        self.socket = listening_socket(host, port)
        self.server_address = self.socket.getsockname()[:2]
        config = uvicorn.Config(
            self.app, http=protocol_class(timeout, max_clients), ws="none", lifespan="off",
            loop="asyncio", log_config=None, log_level="error", access_log=False,
            proxy_headers=False, server_header=False, backlog=BACKLOG,
            timeout_keep_alive=min(KEEP_ALIVE, timeout), timeout_graceful_shutdown=GRACE,
            h11_max_incomplete_event_size=MAX_BYTES)
        logging.getLogger("uvicorn.error").setLevel(logging.ERROR)
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self.server_address[1]

    def serve_forever(self) -> None:
        self.server.run(sockets=[self.socket])

    def start(self, wait: float = 30.0) -> "WebServer":
        """Serve in a daemon thread; returns once uvicorn listens."""
        self._thread = threading.Thread(target=self.serve_forever, name="serve-http",
                                        daemon=True)
        self._thread.start()
        deadline = time.monotonic() + wait
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise OSError("the server did not start")
            time.sleep(0.01)
        return self

    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def open_connections(self) -> int:
        return len(self.server.server_state.connections)

    def stop(self, grace: float = GRACE) -> None:
        """Stop accepting, close the listening socket and the idle connections, let the
        answers in flight finish (``grace`` seconds at most) and end the rollouts."""
        self.app.state.stopping.set()
        self.server.config.timeout_graceful_shutdown = grace
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(grace + 5)
        self.socket.close()
        self.bot.close()


__all__ = ["WebServer", "Lingering", "listening_socket", "protocol_class", "raw_reply",
           "KEEP_ALIVE"]
