"""The JSON API of `gammon serve-http`: answers, validation, and a real server."""

import json
import threading
import urllib.error
import urllib.request

import pytest

from eval.bots.cube import probability_source
from eval.bots.registry import make_bot
from gammon.http_api import Api, make_server
from model import checkpoint as ckpt
from model.net import ValueNet

START = "4HPwATDgc/ABMA"


@pytest.fixture(scope="module")
def net_api(tmp_path_factory):
    path = tmp_path_factory.mktemp("net") / "tiny.pt"
    ckpt.save(path, ckpt.model_payload(ValueNet(198, (8,)), "classic", "standard"))
    bot = make_bot(f"net:{path}")
    return Api(bot, f"net:{path}", evaluate=probability_source(bot))


def test_move_ranks_every_legal_play():
    status, body = Api(make_bot("pubeval"), "pubeval").answer(f"/move?posid={START}&dice=3,1")
    assert status == 200 and body["dice"] == [3, 1] and len(body["plays"]) == 16
    assert body["plays"][0]["play"] == "8/5 6/5" and body["plays"][0]["rank"] == 1


def test_eval_gives_probabilities_and_the_cube_action(net_api):
    status, body = net_api.answer(f"/eval?posid={START}")
    assert status == 200
    assert set(body["probabilities"]) == {"win", "win_gammon", "win_backgammon",
                                          "lose_gammon", "lose_backgammon"}
    assert body["action"] in ("no_double", "double", "too_good")
    assert body["response"] in ("take", "pass", "beaver")


@pytest.mark.parametrize("target, status, message", [
    ("/move?posid=4HPwATDgc/ABM&dice=3,1", 400, "14 characters"),
    (f"/move?posid={START}&dice=7,1", 400, "1 to 6"),
    (f"/move?posid={START}", 400, "missing parameter 'dice'"),
    (f"/move?posid={START}&posid={START}&dice=3,1", 400, "2 times"),
    (f"/move?posid={START}&dice=3", 400, "two numbers"),
    ("/nothing", 404, "no such endpoint"),
    ("/move?" + "x" * 3000, 400, "longer than"),
])
def test_bad_requests_say_what_is_wrong(target, status, message):
    got, body = Api(make_bot("pubeval"), "pubeval").answer(target)
    assert got == status and message in body["error"]


def test_eval_needs_a_bot_with_probabilities():
    status, body = Api(make_bot("pubeval"), "pubeval").answer(f"/eval?posid={START}")
    assert status == 400 and "no probabilities" in body["error"]


def test_a_real_server_answers_over_http(net_api):
    server = make_server(net_api, "127.0.0.1", 0)
    port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{port}/move?posid={START}&dice=6,5"
        with urllib.request.urlopen(url, timeout=30) as reply:
            body = json.loads(reply.read())
        assert reply.status == 200 and body["plays"]
        with pytest.raises(urllib.error.HTTPError) as bad:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/move?posid=x&dice=1,1", timeout=30)
        assert bad.value.code == 400 and "error" in json.loads(bad.value.read())
    finally:
        server.shutdown()
        server.server_close()
