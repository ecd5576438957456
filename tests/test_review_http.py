"""serve-http's POST /review: a .mat or SGF file (as text, or a JSON object with the text
and options) answered with the report of `gammon review --json`; the limits on the body
and on the work (413), bad files and fields (422, naming the field), and /openapi.json
describing the endpoint."""

import json
from pathlib import Path

import pytest

from eval.bots.cube import probability_source
from gammon.http_api import MAX_BYTES, Api, BadRequest, ReviewTooLong
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
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient
    from gammon.web.app import make_app
    with TestClient(make_app(api)) as c:
        yield c


def test_api_review_is_the_command_line_report(api, tmp_path):
    text = (DATA / "money.mat").read_text()
    report = api.review(text)
    path = tmp_path / "money.mat"
    path.write_text(text)
    run = gammon("review", path, "--json", "--no-progress")
    mine = json.loads(run.stdout)
    mine["file"] = ""
    assert report == mine
    assert api.review(text.encode()) == report
    assert api.review({"text": text, "very_bad": 0.5})["thresholds"]["very_bad"] == 0.5


def test_api_review_refuses_bad_bodies_naming_the_field(api):
    with pytest.raises(BadRequest, match="unknown format") as e:
        api.review("hello")
    assert e.value.field == "text"
    with pytest.raises(BadRequest, match="not UTF-8") as e:
        api.review(b"\xff\xfe")
    with pytest.raises(BadRequest, match="unknown field 'txt'") as e:
        api.review({"txt": "x"})
    with pytest.raises(BadRequest, match="stop or skip") as e:
        api.review({"text": "x", "on_illegal": "maybe"})
    assert e.value.field == "on_illegal"
    with pytest.raises(BadRequest, match="loss thresholds") as e:
        api.review({"text": (DATA / "money.mat").read_text(), "bad": 0.01})
    pubeval = Api(api.bot, "pubeval")  # no probabilities
    with pytest.raises(BadRequest, match="estimates no probabilities"):
        pubeval.review((DATA / "money.mat").read_text())


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
        with pytest.raises(ReviewTooLong):
            api.review(text)
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
