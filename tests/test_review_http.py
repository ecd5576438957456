"""serve-http's POST /review: a .mat or SGF file (as text, or a JSON object with the text
and options) answered with the report of `gammon review --json`; the limits on the body
and on the work (413), bad files and fields (422, naming the field), and /openapi.json
describing the endpoint. The real server on a socket (``gammon.web.server``) and FastAPI's
TestClient; skipped without the web extra."""

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from gammon.eval.bots.cube import probability_source
from gammon.http_api import MAX_BYTES, Api
from inprocess import gammon

DATA = Path(__file__).parent / "data" / "review"


@pytest.fixture(scope="module")
def api():
    from gammon.options import load_bot
    bot = load_bot("net:")
    return Api(bot, "net:", evaluate=probability_source(bot))


@pytest.fixture(scope="module")
def client(api):
    pytest.importorskip("fastapi")
    import importlib.util
    if not any(importlib.util.find_spec(m) for m in ("httpx2", "httpx")):
        pytest.skip("starlette's TestClient needs httpx2 (or httpx before starlette 1.x)")
    from fastapi.testclient import TestClient
    from gammon.web.app import make_app
    with TestClient(make_app(api)) as c:
        yield c


def _serve(api):
    """A real server of ``api`` on a loopback port: (server, base URL)."""
    for module in ("fastapi", "uvicorn", "fastapi_offline"):
        pytest.importorskip(module)
    from gammon.web.server import WebServer
    server = WebServer(api, "127.0.0.1", 0).start()
    return server, f"http://127.0.0.1:{server.port}"


@pytest.fixture(scope="module")
def base(api):
    server, url = _serve(api)
    yield url
    server.stop(grace=1.0)


def _post(url: str, body) -> tuple[int, dict]:
    """POST ``body``: bytes as text/plain, anything else as JSON; (status, JSON answer)."""
    if isinstance(body, bytes):
        data, kind = body, "text/plain"
    else:
        data, kind = json.dumps(body).encode(), "application/json"
    request = urllib.request.Request(url, data=data, method="POST",
                                     headers={"Content-Type": kind})
    try:
        with urllib.request.urlopen(request, timeout=120) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_the_report_is_the_command_line_report(base, tmp_path):
    text = (DATA / "money.mat").read_text()
    status, report = _post(f"{base}/review", text.encode())
    assert status == 200
    path = tmp_path / "money.mat"
    path.write_text(text)
    run = gammon("review", path, "--json", "--no-progress")
    mine = json.loads(run.stdout)
    mine["file"] = ""
    assert report == mine
    assert _post(f"{base}/review", {"text": text}) == (200, report)
    status, changed = _post(f"{base}/review", {"text": text, "very_bad": 0.5})
    assert status == 200 and changed["thresholds"]["very_bad"] == 0.5


def test_bad_bodies_are_refused_naming_the_field(api, base):
    def refused(body, words: str, field: str | None = None) -> None:
        status, answer = _post(f"{base}/review", body)
        assert status == 422 and words in answer["error"], answer
        if field is not None:
            assert answer["field"] == field, answer

    refused(b"hello", "unknown format", "text")
    refused(b"\xff\xfe", "not UTF-8", "text")
    refused({"txt": "x"}, "unknown field 'txt'", "txt")
    refused({"text": "x", "on_illegal": "maybe"}, "'stop' or 'skip'", "on_illegal")
    refused({"text": (DATA / "money.mat").read_text(), "bad": 0.01}, "loss thresholds")
    server, pubeval = _serve(Api(api.bot, "pubeval"))  # no probabilities
    try:
        status, answer = _post(f"{pubeval}/review", (DATA / "money.mat").read_bytes())
    finally:
        server.stop(grace=1.0)
    assert status == 422 and "estimates no probabilities" in answer["error"]


def test_a_file_over_the_work_limit_is_413(api, base):
    saved = api.max_review_turns
    api.max_review_turns = 10
    try:
        status, answer = _post(f"{base}/review", (DATA / "match3.sgf").read_bytes())
    finally:
        api.max_review_turns = saved
    assert status == 413 and "at most 10 a request" in answer["error"]


def test_the_endpoint_answers_text_and_json_and_limits_the_work(client, api):
    text = (DATA / "match3.sgf").read_text()
    reply = client.post("/review", content=text, headers={"content-type": "text/plain"})
    assert reply.status_code == 200
    body = reply.json()
    assert body["format"] == "sgf" and body["match_length"] == 3
    assert len(body["players"]) == 2 and body["games"][0]["decisions"]
    reply = client.post("/review", json={"text": text, "on_illegal": "skip", "doubtful": 0.0})
    assert reply.status_code == 200 and reply.json()["thresholds"]["doubtful"] == 0.0
    reply = client.post("/review", json={"text": "(;GM[6]"})
    assert reply.status_code == 422 and reply.json()["field"] == "text"
    assert "truncated SGF" in reply.json()["error"]
    reply = client.post("/review", json={"text": text, "beavers": True})
    assert reply.status_code == 422 and reply.json()["field"] == "beavers"
    reply = client.post("/review", content=b"{not json", headers={"content-type":
                                                                 "application/json"})
    assert reply.status_code == 422 and "not JSON" in reply.json()["error"]
    reply = client.post("/review", content=b"x" * (MAX_BYTES + 1))
    assert reply.status_code == 413
    saved = api.max_review_turns
    api.max_review_turns = 10
    try:
        reply = client.post("/review", content=text)
        assert reply.status_code == 413
        assert "at most 10 a request" in reply.json()["error"]
    finally:
        api.max_review_turns = saved
    assert client.get("/review").status_code == 405


def test_openapi_describes_the_endpoint(client):
    spec = client.get("/openapi.json").json()
    post = spec["paths"]["/review"]["post"]
    assert set(post["requestBody"]["content"]) == {"text/plain", "application/json"}
    answer = post["responses"]["200"]["content"]["application/json"]["schema"]
    assert answer == {"$ref": "#/components/schemas/ReviewAnswer"}
    schema = spec["components"]["schemas"]
    assert {"players", "games", "thresholds"} <= set(schema["ReviewAnswer"]["properties"])
    assert {"413", "422"} <= set(post["responses"])
