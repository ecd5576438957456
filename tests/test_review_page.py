"""The review page of serve-http (``gammon.web.review_page``) through FastAPI's TestClient:
the page, every file it loads, its limits, the links to and from the board's page, and the
review endpoint left as it was (POST only). The page itself is driven in Chromium by
tests/test_browser_review.py."""

import re

import pytest

from gammon.eval.bots.simple import PubevalBot
from gammon.eval.review.marks import Thresholds

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from gammon.http_api import MAX_BYTES, Api  # noqa: E402
from gammon.web.app import make_app  # noqa: E402


@pytest.fixture(scope="module")
def api():
    return Api(PubevalBot(), "pubeval")


@pytest.fixture(scope="module")
def client(api):
    with TestClient(make_app(api)) as c:
        yield c


def test_the_page_and_every_file_it_loads_are_served(client):
    page = client.get("/review/page")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    for needed in ('id="file"', 'type="file"', 'id="summary"', 'id="graph"', 'id="board"',
                   'id="next"', 'id="marked"', 'href="/"'):
        assert needed in page.text, needed
    loaded = re.findall(r'(?:src|href)="(/static/[^"]+)"', page.text)
    assert set(loaded) == {"/static/board.css", "/static/review.css", "/static/draw.js",
                           "/static/review.js"}
    for path in loaded:
        reply = client.get(path)
        assert reply.status_code == 200, path
        kind = "text/css" if path.endswith(".css") else "text/javascript"
        assert reply.headers["content-type"].startswith(kind), path
    assert "drawBoard(" in client.get("/static/review.js").text  # the board's own drawing
    assert 'href="/review/page"' in client.get("/").text  # the link from the board's page


def test_the_limits_are_the_servers(client, api):
    assert client.get("/review/limits").json() == {
        "max_bytes": MAX_BYTES, "max_turns": api.max_review_turns,
        "thresholds": Thresholds().to_dict()}
    saved = api.max_review_turns
    api.max_review_turns = 30
    try:
        assert client.get("/review/limits").json()["max_turns"] == 30
    finally:
        api.max_review_turns = saved


def test_the_review_endpoint_is_unchanged_and_the_page_not_in_the_api_docs(client):
    reply = client.get("/review")
    assert reply.status_code == 405 and reply.headers["allow"] == "POST"
    assert client.post("/review/page").status_code == 405
    assert client.get("/review/nothing").status_code == 404
    paths = client.get("/openapi.json").json()["paths"]
    assert "/review" in paths and "/review/page" not in paths
