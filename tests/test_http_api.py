"""The JSON API of `gammon serve-http`, asked of the real server (``gammon.web``: FastAPI on
uvicorn, on a loopback socket): the answers and their validation, GET and POST, the OpenAPI
description validated and complete, the answers matching their declared models
(``gammon.web.schemas``), the offline /docs page, rollouts as `gammon rollout --json` prints
them. Skipped without the web extra."""

import json
import re
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

from gammon.eval.analysis import analyze_cube, ranked
from gammon.eval.bots.cube import probability_source
from gammon.eval.bots.registry import make_bot
from gammon.http_api import EVAL_FIELDS, MOVE_FIELDS, ROLLOUT_FIELDS, Api
from gammon.positions import read_position
from inprocess import gammon
from gammon.model import checkpoint as ckpt
from gammon.model.net import ValueNet

START = "4HPwATDgc/ABMA"
RACE = "eO85AAD4vg8AAA"


@pytest.fixture(scope="module")
def tiny_net(tmp_path_factory):
    path = tmp_path_factory.mktemp("net") / "tiny.pt"
    ckpt.save(path, ckpt.model_payload(ValueNet(198, (8,)), "classic", "standard"))
    return f"net:{path}"


@pytest.fixture(scope="module")
def net_api(tiny_net):
    bot = make_bot(tiny_net)
    return Api(bot, tiny_net, evaluate=probability_source(bot))


@pytest.fixture(scope="module")
def pubeval_api():
    return Api(make_bot("pubeval"), "pubeval")


@pytest.fixture(scope="module")
def web():
    """(gammon.web.app, gammon.web.server, gammon.web.schemas), or the test skipped."""
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    pytest.importorskip("fastapi_offline")
    from gammon.web import app, schemas, server
    return app, server, schemas


@pytest.fixture
def serve(web):
    """serve(api, **options) -> base URL of a server started for the test."""
    started = []

    def start(api, **options):
        server = web[1].WebServer(api, "127.0.0.1", 0, **options).start()
        started.append(server)
        return f"http://127.0.0.1:{server.port}"

    yield start
    for server in started:
        server.stop(grace=1.0)


def _served(web, api):
    server = web[1].WebServer(api, "127.0.0.1", 0).start()
    return server, f"http://127.0.0.1:{server.port}"


@pytest.fixture(scope="module")
def pubeval_base(web, pubeval_api):
    """The base URL of a server of pubeval for the module's tests."""
    server, base = _served(web, pubeval_api)
    yield base
    server.stop(grace=1.0)


@pytest.fixture(scope="module")
def net_base(web, net_api):
    """The base URL of a server of the tiny net (a bot with probabilities)."""
    server, base = _served(web, net_api)
    yield base
    server.stop(grace=1.0)


def _get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=30) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def _post(url: str, body) -> tuple[int, dict]:
    data = json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


# --- the answers and their validation ----------------------------------------------------


def test_move_ranks_every_legal_play(pubeval_base):
    status, body = _get(f"{pubeval_base}/move?posid={START}&dice=3,1")
    assert status == 200 and body["dice"] == [3, 1] and len(body["plays"]) == 16
    assert body["plays"][0]["play"] == "8/5 6/5" and body["plays"][0]["rank"] == 1


def test_eval_gives_probabilities_and_the_cube_action(net_base):
    status, body = _get(f"{net_base}/eval?posid={START}")
    assert status == 200
    assert set(body["probabilities"]) == {"win", "win_gammon", "win_backgammon",
                                          "lose_gammon", "lose_backgammon"}
    assert body["action"] in ("no_double", "double", "too_good")
    assert body["response"] in ("take", "pass", "beaver")


@pytest.mark.parametrize("target, status, message, field", [
    ("/move?posid=4HPwATDgc/ABM&dice=3,1", 422, "14 characters", "posid"),
    (f"/move?posid={START}&dice=7,1", 422, "1 to 6", "dice"),
    (f"/move?posid={START}", 422, "missing parameter 'dice'", "dice"),
    (f"/move?posid={START}&posid={START}&dice=3,1", 422, "2 times", "posid"),
    (f"/move?posid={START}&dice=3", 422, "two numbers", "dice"),
    (f"/move?posid={START}&dice=3,1&die=3", 422, "unknown parameter 'die'", "die"),
    (f"/rollout?posid={START}&trials=99999", 422, "less than or equal to 1296", "trials"),
    (f"/rollout?posid={START}&trials=x", 422, "valid integer", "trials"),
    (f"/rollout?posid={START}&seed=-1", 422, "greater than or equal to 0", "seed"),
    (f"/rollout?posid={START}&truncate=10001&vr=false", 422, "less than or equal to",
     "truncate"),
    (f"/rollout?posid={START}&trials=5", 422, "variance reduction", "vr"),
    (f"/rollout?posid={START}&vr=off&truncate=3", 422, "truncation", "truncate"),
    (f"/rollout?posid={START}&vr=maybe", 422, "valid boolean", "vr"),
    ("/rollout?posid=AAAAAAAAAAAAAA&vr=false", 422, "game is over", "posid"),
    ("/nothing", 404, "no such endpoint", None),
    ("/move?" + "x" * 3000, 414, "longer than", None),
])
def test_bad_requests_say_what_is_wrong(pubeval_base, target, status, message, field):
    got, body = _get(pubeval_base + target)
    assert got == status and message in body["error"], body
    assert body.get("field") == field


def test_eval_needs_a_bot_with_probabilities(pubeval_base):
    status, body = _get(f"{pubeval_base}/eval?posid={START}")
    assert status == 422 and "no probabilities" in body["error"]


def _without_seconds(answer: dict) -> dict:
    return {k: v for k, v in answer.items() if k != "seconds"}


@pytest.mark.parametrize("which, extra", [("pubeval", ["--no-vr"]),
                                          ("net", ["--truncate", "10"]),
                                          ("net", ["--truncate", "4", "--cubeful"])])
def test_rollout_answers_as_gammon_rollout_json(which, extra, pubeval_api, net_api,
                                                pubeval_base, net_base):
    """The same JSON as the command, though the server plays the trials in chunks (100
    trials: one chunk and a part). The tiny untrained net plays hundreds of plies a game:
    its rollouts are truncated."""
    api, base = (pubeval_api, pubeval_base) if which == "pubeval" else (net_api, net_base)
    run = gammon("rollout", START, "--trials", "100", "--seed", "7", "--bot", api.name,
                 "--json", "--no-progress", *extra)
    assert run.returncode == 0, run.stderr
    expected = json.loads(run.stdout)
    settings = {"posid": START, "trials": 100, "seed": 7, "vr": "--no-vr" not in extra,
                "cubeful": "--cubeful" in extra}
    if "--truncate" in extra:
        settings["truncate"] = int(extra[extra.index("--truncate") + 1])
    status, got = _post(f"{base}/rollout", settings)
    assert status == 200
    assert _without_seconds(got) == _without_seconds(expected)
    assert got["seconds"] > 0 and list(got) == list(expected)


def test_a_rollout_gets_a_fresh_seed_unless_given(pubeval_base):
    status, a = _get(f"{pubeval_base}/rollout?posid={START}&trials=3&vr=false")
    assert status == 200
    seed = a["settings"]["seed"]
    status, b = _get(f"{pubeval_base}/rollout?posid={START}&trials=3&vr=false&seed={seed}")
    assert status == 200 and _without_seconds(a) == _without_seconds(b)


# --- GET and POST, the description, the docs, the threads, the limits --------------------


def test_a_real_server_answers_get_and_post(net_base, net_api):
    """The answers are the analysis library's: the plays as ``ranked`` gives them, the
    position as ``analyze_cube`` does, whether asked by GET or by POST."""
    base = net_base
    status, body = _get(f"{base}/move?posid={START}&dice=6,5")
    plays = ranked(net_api.bot, read_position(START), 6, 5)
    assert status == 200 and body["plays"] and body == {
        "posid": START, "dice": [6, 5], "bot": net_api.name,
        "score": getattr(net_api.bot, "score_label", "score"), "plays": plays}
    assert _post(f"{base}/move", {"posid": START, "dice": "6-5"}) == (200, body)
    analysis = analyze_cube(net_api.evaluate, read_position(RACE)[None])[0]
    assert _get(f"{base}/eval?posid={RACE}") == _post(f"{base}/eval", {"posid": RACE}) \
        == (200, {"posid": RACE, "bot": net_api.name, **analysis})
    status, bad = _get(f"{base}/move?posid=x&dice=1,1")
    assert status == 422 and bad["field"] == "posid" and "14 characters" in bad["error"]
    status, bad = _post(f"{base}/move", {"posid": START, "dice": [3, 1]})
    assert status == 422 and bad["field"] == "dice" and "valid string" in bad["error"]
    status, bad = _post(f"{base}/move", {"posid": START})
    assert (status, bad) == (422, {"error": "missing field 'dice'", "field": "dice"})
    status, bad = _post(f"{base}/rollout", {"posid": START, "trials": 0})
    assert status == 422 and bad["field"] == "trials" and "greater than or equal to 1" \
        in bad["error"]


def test_a_real_server_rolls_out(pubeval_base):
    base = pubeval_base
    query = f"posid={START}&trials=40&seed=3&vr=false"
    status, body = _get(f"{base}/rollout?{query}")
    assert status == 200 and body["trials"] == 40 and body["settings"]["bot"] == "pubeval"
    fields = {"posid": START, "trials": 40, "seed": 3, "vr": False}
    status, posted = _post(f"{base}/rollout", fields)
    assert status == 200 and _without_seconds(posted) == _without_seconds(body)


def test_openapi_validates_and_lists_every_endpoint_and_field(pubeval_base):
    validate = pytest.importorskip("openapi_spec_validator").validate
    base = pubeval_base
    status, spec = _get(f"{base}/openapi.json")
    assert status == 200
    validate(spec)  # raises on an invalid description
    fields = {"/move": MOVE_FIELDS, "/eval": EVAL_FIELDS, "/rollout": ROLLOUT_FIELDS}
    # the board's game API (/game..., /analyse) is checked in tests/test_board_api.py
    assert {"/api", *fields} <= set(spec["paths"]) and "/" not in spec["paths"]
    schemas = spec["components"]["schemas"]
    for path, names in fields.items():
        assert set(spec["paths"][path]) == {"get", "post"}
        get, post = spec["paths"][path]["get"], spec["paths"][path]["post"]
        assert [p["name"] for p in get["parameters"]] == list(names)
        assert all(p["in"] == "query" and p["description"] for p in get["parameters"])
        required = {p["name"] for p in get["parameters"] if p["required"]}
        assert required == ({"posid", "dice"} if path == "/move" else {"posid"})
        ref = post["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        body = schemas[ref.rsplit("/", 1)[1]]
        assert list(body["properties"]) == list(names)
        assert all(field.get("description") for field in body["properties"].values())
        for operation in (get, post):
            assert {"200", "422"} <= set(operation["responses"])
            answer = operation["responses"]["200"]["content"]["application/json"]["schema"]
            assert answer["$ref"].endswith(("MoveAnswer", "EvalAnswer", "RolloutAnswer"))
            error = operation["responses"]["422"]["content"]["application/json"]["schema"]
            assert error["$ref"].endswith("ErrorAnswer")
    trials = next(p for p in spec["paths"]["/rollout"]["get"]["parameters"]
                  if p["name"] == "trials")
    assert "1 to 1,296 on this server" in trials["description"]
    assert trials["schema"]["anyOf"][0] == {"type": "integer", "minimum": 1, "maximum": 1296}


def test_answers_are_what_their_models_declare(web, net_base, pubeval_base):
    """Every key of every answer is a field of its model (extra keys forbidden), so the
    docs describe every field the server sends."""
    models = web[2]

    def answer(url: str, body: dict | None = None) -> dict:
        status, got = _get(url) if body is None else _post(url, body)
        assert status == 200, got
        return got

    for base in (net_base, pubeval_base):
        for posid, dice in ((START, "3,1"), (RACE, "6,6"), ("/wAAAAAAAAAAAA", "1,1")):
            models.MoveAnswer.model_validate(answer(f"{base}/move?posid={posid}&dice={dice}"))
        models.IndexAnswer.model_validate(answer(f"{base}/api"))
        models.RolloutAnswer.model_validate(answer(f"{base}/rollout",
                                                   {"posid": START, "trials": 3, "vr": False}))
    models.EvalAnswer.model_validate(answer(f"{net_base}/eval?posid={START}"))
    models.RolloutAnswer.model_validate(answer(f"{net_base}/rollout", {
        "posid": START, "trials": 1, "truncate": 2, "cubeful": True}))
    status, error = _get(f"{pubeval_base}/move?posid=x&dice=3,1")
    assert status == 422
    models.ErrorAnswer.model_validate(error)
    plays = answer(f"{net_base}/move?posid={START}&dice=3,1")["plays"]
    assert {"probabilities", "cubeless_equity"} <= set(plays[0])


def test_the_docs_page_needs_nothing_from_outside(serve, pubeval_api):
    base = serve(pubeval_api)
    with urllib.request.urlopen(f"{base}/docs", timeout=30) as reply:
        html = reply.read().decode()
    assert reply.status == 200 and "SwaggerUIBundle" in html
    assert "http://" not in html and "https://" not in html and "//cdn" not in html
    links = re.findall(r"""(?:src|href|url)\s*[=:]\s*['"]([^'"]+)['"]""", html)
    assert set(links) == {"/docs/swagger-ui.css", "/docs/favicon.png",
                          "/docs/swagger-ui-bundle.js", "/openapi.json"}
    for link in links:
        with urllib.request.urlopen(base + link, timeout=30) as reply:
            assert reply.status == 200 and len(reply.read()) > 1000
    bundle = urllib.request.urlopen(f"{base}/docs/swagger-ui-bundle.js", timeout=30).read()
    assert re.search(rb'"5\.\d+\.\d+"', bundle)  # Swagger UI 5 reads OpenAPI 3.1


def test_moves_are_answered_while_a_rollout_plays(serve, pubeval_api):
    """A rollout gives the bot's thread back between chunks of trials: /move requests
    sent meanwhile are answered long before it ends."""
    base = serve(pubeval_api)
    done = {}

    def roll():
        done["answer"] = _get(f"{base}/rollout?posid={START}&trials=1296&seed=1&vr=false")
        done["at"] = time.monotonic()

    thread = threading.Thread(target=roll)
    start = time.monotonic()
    thread.start()
    time.sleep(0.2)
    answered = []
    for dice in ("3,1", "6,5", "2,2"):
        assert _get(f"{base}/move?posid={START}&dice={dice}")[0] == 200
        answered.append(time.monotonic())
    thread.join(timeout=120)
    assert done["answer"][0] == 200 and done["answer"][1]["trials"] == 1296
    print(f"\nrollout of 1,296 trials {done['at'] - start:.2f} s; 3 moves answered "
          f"{answered[-1] - start:.2f} s after it began")
    assert answered[-1] < done["at"]


def test_rollouts_past_the_limit_get_503(web, serve, pubeval_api, monkeypatch):
    monkeypatch.setattr(web[0], "ROLLOUTS", 0)
    base = serve(pubeval_api)
    status, body = _get(f"{base}/rollout?posid={START}&trials=3&vr=false")
    assert status == 503 and "try again later" in body["error"]


class _Broken:
    """A bot with a bug."""

    def scores(self, plays, boards, dice):
        raise RuntimeError("a bug in the bot")


def test_a_bug_is_answered_500_in_json_and_logged_in_one_line(serve, capfd):
    base = serve(Api(_Broken(), "broken"))
    status, body = _get(f"{base}/move?posid={START}&dice=3,1")
    assert (status, body) == (500, {"error": "internal error: RuntimeError"})
    assert _get(f"{base}/move?posid={START}&dice=3")[0] == 422  # serving goes on
    err = capfd.readouterr().err
    assert "Traceback" not in err
    assert err.strip().splitlines() == ["serve-http: error answering GET '/move': "
                                        "RuntimeError: a bug in the bot"]


def test_serve_http_says_what_to_install_without_the_web_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "fastapi", None)  # as if not installed
    run = gammon("serve-http", "--port", "0", "--bot", "pubeval")
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "pip install 'gammon[web]'" in run.stderr


def test_index_lists_the_endpoints(serve, pubeval_api):
    status, body = _get(serve(pubeval_api) + "/api")
    assert status == 200 and set(body["endpoints"]) == {"/move", "/eval", "/rollout", "/docs",
                                                         "/", "/review", "/review/page"}
    assert body["max_trials"] == 1296
