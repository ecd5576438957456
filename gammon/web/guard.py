"""The outermost layer of ``gammon serve-http``'s application (pure ASGI): the limits on a
request's target, headers and body, and a bug answered 500 in JSON, logged in one line.

414 for a request target over ``MAX_QUERY`` characters, 431 for more than ``MAX_HEADERS``
header lines or a header section over ``MAX_BYTES``, 413 for a body over ``MAX_BYTES``
(by its Content-Length, or counted as it arrives). Each answer is the API's JSON error and
closes the connection: what follows the refused request goes unread.
"""

import json
import sys

from starlette.exceptions import HTTPException

from ..errors import quote
from ..external import clip
from ..http_api import MAX_BYTES, MAX_QUERY, error_body

MAX_HEADERS = 100  # header lines of a request


class Guard:
    """The outermost layer (pure ASGI): the limits on the request target, the headers and
    the body, and a bug answered 500 in JSON and logged in one line, never a traceback."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        refusal = self._refusal(scope)
        if refusal is not None:
            await _reply(sending, *refusal)
            return
        body = 0

        async def receiving():
            nonlocal body
            message = await receive()
            if message["type"] == "http.request":
                body += len(message.get("body", b""))
                if body > MAX_BYTES:
                    raise HTTPException(413, f"request body longer than {MAX_BYTES} bytes",
                                        headers={"Connection": "close"})
            return message

        try:
            await self.app(scope, receiving, sending)
        except Exception as e:  # a bug: say so in one line, answer if still possible
            path = scope.get("path", "")
            print(f"serve-http: error answering {scope.get('method')} {quote(path)}: "
                  f"{type(e).__name__}: {clip(str(e))}", file=sys.stderr, flush=True)
            if not started:
                await _reply(sending, 500, f"internal error: {type(e).__name__}")

    @staticmethod
    def _refusal(scope) -> tuple[int, str] | None:
        target = len(scope.get("raw_path", b"")) + len(scope.get("query_string", b"")) + 1
        if target > MAX_QUERY:
            return 414, f"request target longer than {MAX_QUERY} characters"
        headers = scope.get("headers", [])
        if len(headers) > MAX_HEADERS:
            return 431, f"more than {MAX_HEADERS} header lines"
        if sum(len(k) + len(v) + 4 for k, v in headers) > MAX_BYTES:
            return 431, f"headers longer than {MAX_BYTES} bytes"
        for name, value in headers:
            if name == b"content-length" and value.strip().isdigit() \
                    and int(value) > MAX_BYTES:
                return 413, f"request body longer than {MAX_BYTES} bytes"
        return None


async def _reply(send, status: int, message: str, headers: dict | None = None) -> None:
    data = (json.dumps(error_body(message)) + "\n").encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
           (b"connection", b"close")]  # what follows the refused request goes unread
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": data})


__all__ = ["Guard", "MAX_HEADERS"]
