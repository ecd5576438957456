"""The web server's own fuzz (issue 41): malformed calls to every route the application
has, read from the application itself (so a route added later is fuzzed too), never answer
500; every error is a one-line JSON object. The page's random clicks are in
tests/test_browser.py (``test_random_clicks_...``)."""

import json
import random

import pytest

pytest.importorskip("fastapi")
from fastapi.routing import APIRoute  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from gammon.eval.bots.simple import PubevalBot  # noqa: E402
from gammon.http_api import Api  # noqa: E402
from gammon.web.app import make_app  # noqa: E402

# values of the wrong type, out of range, or odd: what a careless or hostile client sends
ODD = [None, True, -1, 0, 1, 3, 2**63, -2**70, 1e308, float("nan"), "", " ", "x", "3,1",
       "4HPwATDgc/ABMA", "XGID=bad", "plakoto:" + "1," * 30, "a" * 5000, "\u00ff\u2603",
       "<script>", [], [1], [[25, 0]], [[-1, 99]] * 5, {}, {"a": 1}, "take", "nuclear",
       "plakoto", "standard"]
FIELDS = ["variant", "length", "cube", "jacoby", "beavers", "seed", "position", "steps",
          "response", "level", "posid", "dice", "trials", "text", "plies", "count",
          "on_illegal", "truncate", "name"]
RAW = [b"", b"null", b"[]", b"{", b"\xff\xfe", b'"x"', b"{}" * 1000, b'{"steps": [[25]]}']


def _routes(app) -> list[tuple[str, str]]:
    """(method, path template) of every route of the application, the board's included."""
    out = []
    for route in app.routes:
        methods = getattr(route, "methods", None) or ()
        path = getattr(route, "path", None)
        if path is None or isinstance(route, APIRoute) is False and not methods:
            continue
        for method in sorted(methods):
            if method in ("GET", "POST"):
                out.append((method, path))
    return out


def _fill(path: str, game_ids: list[str], rng: random.Random) -> str:
    """The path with each {parameter} replaced: a real game's id, or something odd."""
    while "{" in path:
        start, end = path.index("{"), path.index("}")
        value = rng.choice(game_ids + ["x", "%00", "..", "a" * 60, "swagger-ui.css",
                                       "board.js", "review.js", "nope.py", "%2e%2e%2fetc"])
        path = path[:start] + value + path[end + 1:]
    return path


def test_malformed_calls_to_every_route_never_answer_500():
    rng = random.Random(41)
    app = make_app(Api(PubevalBot(), "pubeval", max_trials=64))
    routes = _routes(app)
    paths = {p for _, p in routes}
    for expected in ("/game", "/game/{game_id}/detonate", "/game/{game_id}/advice",
                     "/game/{game_id}/play", "/review", "/analyse", "/move", "/"):
        assert expected in paths, expected  # the routes the page and the API have
    seen: dict[int, int] = {}
    with TestClient(app, raise_server_exceptions=False) as client:
        ids = [client.post("/game", json={"variant": v, "seed": 1}).json()["id"]
               for v in ("standard", "nuclear", "plakoto")]
        for _ in range(1500):
            method, template = rng.choice(routes)
            path = _fill(template, ids, rng)
            params = {rng.choice(FIELDS): str(rng.choice(ODD))[:300]
                      for _ in range(rng.randrange(3))}
            if method == "GET":
                reply = client.get(path, params=params)
            elif rng.random() < 0.3:
                reply = client.post(path, params=params, content=rng.choice(RAW),
                                    headers={"Content-Type": "application/json"})
            else:
                body = {rng.choice(FIELDS): rng.choice(ODD) for _ in range(rng.randrange(4))}
                reply = client.post(path, params=params,
                                    content=json.dumps(body, allow_nan=True),
                                    headers={"Content-Type": "application/json"})
            seen[reply.status_code] = seen.get(reply.status_code, 0) + 1
            assert reply.status_code != 500, (method, path, params, reply.text[:300])
            if reply.status_code >= 400 and "json" in reply.headers.get("content-type", ""):
                error = reply.json()["error"]
                assert isinstance(error, str) and "\n" not in error and len(error) < 400
                assert "Traceback" not in error
    assert seen.get(200, 0) > 50 and seen.get(422, 0) > 100 and seen.get(404, 0) > 20, seen
