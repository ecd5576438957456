"""``gammon serve-http``'s server: the JSON API of ``gammon.http_api`` on FastAPI and uvicorn.

``app.make_app(api)`` is the ASGI application (the endpoints, their pydantic models, the
limits, the offline ``/docs`` page); ``server.WebServer`` runs it with uvicorn on a socket,
with the timeouts that keep an idle or half-sent client from holding anyone up. Both need
the ``web`` extra (``pip install 'gammon[web]'``); this module imports neither, so that the
command can say in one line what to install.
"""

from __future__ import annotations

import importlib.util

INSTALL = "pip install 'gammon[web]' (fastapi, uvicorn, fastapi-offline)"
NEEDS = ("fastapi", "uvicorn", "fastapi_offline")  # fastapi-offline: Swagger UI's files


def missing() -> str | None:
    """The first package of the web extra that is not installed, or None."""
    for name in NEEDS:
        if importlib.util.find_spec(name) is None:
            return name.replace("_", "-")
    return None


__all__ = ["INSTALL", "NEEDS", "missing"]
