"""The game API of the board in the browser (``gammon.web.board``, ``gammon.web.game``)
through FastAPI's TestClient: legal and illegal plays, the step graph, the cube (offers,
takes, passes, beavers), resignations, a match to 3 with its Crawford game, the .mat
download read back and replayed, the position box, the page and its files, and errors that
name their field (never a 500)."""

import numpy as np
import pytest

from gammon.engine.cube import BEAVER, PASS, TAKE
from gammon.engine.formats.matfile import parse_match, replay
from gammon.engine.movegen import legal_plays
from gammon.engine.rules import variant
from gammon.eval.bots.simple import PubevalBot

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from gammon.http_api import Api  # noqa: E402
from gammon.web.app import make_app  # noqa: E402
from gammon.web.games import MAX_GAMES  # noqa: E402
from gammon.web.steps import step_graph  # noqa: E402

START = "4HPwATDgc/ABMA"


class Scripted(PubevalBot):
    """pubeval's checker play with cube decisions and an evaluator set by the test: it
    doubles when ``doubles`` is true, answers doubles with ``answer`` (engine.cube PASS,
    TAKE, BEAVER), and estimates that the player on roll loses a single game for sure (so
    it accepts a resignation of a single game when the person is on roll)."""

    def __init__(self):
        super().__init__()
        self.doubles, self.answer, self.offers = False, TAKE, 0

    def offer_double(self, boards, value, owner):
        self.offers += 1
        return np.full(len(boards), self.doubles)

    def respond(self, boards, value, owner):
        return np.full(len(boards), self.answer, dtype=np.int8)

    def evaluator(self, boards):  # the five for the player on roll: a certain single loss
        return np.zeros((len(boards), 5))


@pytest.fixture(scope="module")
def client():
    with TestClient(make_app(Api(PubevalBot(), "pubeval"))) as c:
        yield c


@pytest.fixture()
def scripted():
    bot = Scripted()
    with TestClient(make_app(Api(bot, "scripted", evaluate=bot.evaluator))) as c:
        yield c, bot


def _new(client, **fields):
    reply = client.post("/game", json=fields)
    assert reply.status_code == 200, reply.text
    return reply.json()


def _to_move(client, state):
    """Roll until the person has a roll with a legal play; the state then."""
    while state["phase"] != "move":
        assert state["phase"] == "roll", state["phase"]
        state = client.post(f"/game/{state['id']}/roll").json()
    return state


def _play_out(client, state, rng, answer="take"):
    """Play the game to its end, the person choosing at random among the legal plays."""
    path = f"/game/{state['id']}"
    while state["phase"] in ("roll", "move", "answer"):
        if state["phase"] == "roll":
            state = client.post(f"{path}/roll").json()
        elif state["phase"] == "move":
            play = state["plays"][rng.integers(len(state["plays"]))]
            state = client.post(f"{path}/play", json={"steps": play["steps"]}).json()
        else:
            state = client.post(f"{path}/answer", json={"response": answer}).json()
    return state


def test_the_page_and_its_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert 'id="board"' in page.text and "/static/board.js" in page.text
    assert "http" not in page.text.replace("http://www.w3.org", "")  # nothing from outside
    script = client.get("/static/board.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert "fetch(" in script.text and "https://" not in script.text
    assert client.get("/static/board.css").headers["content-type"].startswith("text/css")
    assert client.get("/static/secret.py").status_code == 404
    assert client.get("/api").json()["endpoints"]["/"].startswith("the board")


def test_a_game_starts_with_the_opening_roll_and_the_legal_plays(client):
    state = _new(client, seed=11)
    assert state["seed"] == 11 and state["game"] == 1 and state["events"][0]["kind"] == "start"
    assert sum(c for c in state["board"] if c > 0) == 15  # the person's side, 15 checkers
    again = _new(client, seed=11)
    assert again["events"] == state["events"] and again["board"] == state["board"]
    state = _to_move(client, state)
    board = np.array(state["board"], dtype=np.int8)
    d1, d2 = state["dice"]
    plays = legal_plays(board[None], np.array([[d1, d2]]))
    assert len(state["plays"]) == len(plays)
    assert {p["result"] for p in state["plays"]} == {
        p["result"] for p in client.get(f"/move?posid={state['posid']}&dice={d1},{d2}")
        .json()["plays"]}


def test_the_step_graph_holds_every_order_of_a_play():
    """6-2 from the start: 24/18/16 and 24/22/16 reach the same board, 13/7 8/6 is made in
    either order; each start of a legal play is an edge, and nothing else is."""
    board = variant("standard").start_board()
    plays = legal_plays(board[None], np.array([[6, 2]]))
    graph = step_graph(board, 6, 2, plays, variant("standard"))
    root = graph["nodes"][graph["root"]]
    firsts = {(e[0], e[1]) for e in root["edges"]}
    assert firsts == {(24, 18), (24, 22), (13, 7), (13, 11), (8, 2), (8, 6), (6, 4)}
    assert (6, 0) not in firsts and (13, 12) not in firsts  # no bearing off; 12 is closed

    def ends(node, path):
        n = graph["nodes"][node]
        if n["play"] is not None:
            yield path, n["play"]
        for e in n["edges"]:
            yield from ends(e[3], path + [(e[0], e[1])])

    found = {}
    for path, row in ends(graph["root"], []):
        found.setdefault(row, set()).add(tuple(path))
    assert set(found) == set(range(len(plays)))  # every legal play is reachable
    run = next(r for r, b in enumerate(plays.boards) if b[24] == 1 and b[16] == 1)
    assert found[run] == {((24, 18), (18, 16)), ((24, 22), (22, 16))}
    split = next(r for r, b in enumerate(plays.boards) if b[13] == 4 and b[7] == 1
                 and b[8] == 2)
    assert found[split] == {((13, 7), (8, 6)), ((8, 6), (13, 7))}


def test_illegal_plays_are_refused_and_the_game_unchanged(client):
    state = _to_move(client, _new(client, seed=3))
    path = f"/game/{state['id']}"
    legal = state["plays"][0]["steps"]
    for steps, words in (([[3, 1]], "step 1"), (legal[:1], "not whole"),
                         (legal + [[6, 5]], "step"), ([], "not whole")):
        if steps == legal:
            continue
        reply = client.post(f"{path}/play", json={"steps": steps})
        assert reply.status_code == 422 and reply.json()["field"] == "steps", reply.text
        assert words in reply.json()["error"]
    for body, field in (({"steps": [[26, 1]]}, "steps"), ({"steps": "8/5"}, "steps"),
                        ({"steps": [[8, 5]], "x": 1}, "x"), ({}, "steps")):
        reply = client.post(f"{path}/play", json=body)
        assert reply.status_code == 422 and reply.json()["field"] == field, reply.text
    now = client.get(path).json()
    assert (now["board"], now["dice"], now["phase"]) == (state["board"], state["dice"], "move")
    assert client.post(f"{path}/roll").status_code == 409  # rolled already
    done = client.post(f"{path}/play", json={"steps": legal}).json()
    assert done["events"][0]["kind"] == "play" and done["phase"] in ("roll", "answer", "over")


def test_errors_name_the_field_and_never_500(client):
    state = _new(client, seed=5)
    gid = state["id"]
    cases = [("post", "/game", {"length": 65}, 422, "length"),
             ("post", "/game", {"seed": -1}, 422, "seed"),
             ("post", "/game", {"jacoby": "perhaps"}, 422, "jacoby"),
             ("post", "/game", {"colour": "red"}, 422, "colour"),
             ("get", "/game/nothing-here", None, 404, "game_id"),
             ("post", f"/game/{gid}/resign", {"level": 4}, 422, "level"),
             ("post", f"/game/{gid}/answer", {"response": "maybe"}, 422, "response"),
             ("get", f"/game/{gid}/hint?count=0", None, 422, "count"),
             ("post", "/analyse", {"position": "xyz"}, 422, "position"),
             ("post", "/analyse", {"position": START, "dice": "7,1"}, 422, "dice"),
             ("post", "/analyse", {"position": "AAAAAAAAAAAAAA"}, 422, "position"),
             ("post", "/analyse", {}, 422, "position")]
    for method, url, body, status, field in cases:
        reply = getattr(client, method)(url, **({"json": body} if body is not None else {}))
        assert reply.status_code == status and reply.json().get("field") == field, \
            (url, body, reply.text)
    assert client.post(f"/game/{gid}/answer", json={"response": "take"}).status_code == 409
    assert client.post(f"/game/{gid}/next").status_code == 409


def test_the_server_holds_a_bounded_number_of_games(client):
    first = _new(client, seed=1)["id"]
    for _ in range(MAX_GAMES):
        _new(client, seed=2)
    assert client.get(f"/game/{first}").status_code == 404


def test_a_money_game_played_to_the_end_and_the_next_one(client):
    rng = np.random.default_rng(0)
    state = _play_out(client, _new(client, seed=21), rng)
    assert state["phase"] == "over" and state["winner"] in ("you", "bot")
    assert state["points"] >= 1 and sum(state["score"].values()) == state["points"]
    state = client.post(f"/game/{state['id']}/next").json()
    assert state["game"] == 2 and state["phase"] in ("roll", "move")


def test_the_person_doubles_and_the_bot_takes_passes_or_beavers(scripted):
    client, bot = scripted
    state = _new(client, seed=4, beavers=True)
    while state["phase"] != "roll":  # a turn of the person's before rolling
        state = _play_out_one(client, state)
    path = f"/game/{state['id']}"
    assert state["cube"] == {"value": 1, "owner": None, "may_double": True,
                             "may_beaver": False}
    bot.answer = BEAVER
    state = client.post(f"{path}/double").json()
    assert [e["kind"] for e in state["events"][:2]] == ["double", "beaver"]
    assert state["cube"]["value"] == 4 and state["cube"]["owner"] == "bot"
    assert state["phase"] == "move"  # the doubler rolls at once
    assert client.post(f"{path}/double").status_code == 409

    state = _new(client, seed=4)
    while state["phase"] != "roll":
        state = _play_out_one(client, state)
    bot.answer = PASS
    state = client.post(f"/game/{state['id']}/double").json()
    assert state["phase"] == "over" and state["winner"] == "you" and state["points"] == 1
    assert state["score"] == {"you": 1, "bot": 0}

    bot.answer = BEAVER  # beavers off: a beaver counts as a take
    state = _new(client, seed=4)
    while state["phase"] != "roll":
        state = _play_out_one(client, state)
    state = client.post(f"/game/{state['id']}/double").json()
    assert state["events"][1]["kind"] == "take" and state["cube"]["value"] == 2


def _play_out_one(client, state):
    """One action of the person's: roll, or the first legal play."""
    if state["phase"] == "move":
        return client.post(f"/game/{state['id']}/play",
                           json={"steps": state["plays"][0]["steps"]}).json()
    return client.post(f"/game/{state['id']}/roll").json()


def test_the_bot_doubles_and_the_person_takes_passes_or_beavers(scripted):
    client, bot = scripted
    bot.doubles = True
    for response, value, over in (("take", 2, False), ("beaver", 4, False), ("pass", 1, True)):
        state = _new(client, seed=8, beavers=True)
        while state["phase"] not in ("answer", "over"):
            state = _play_out_one(client, state)
        assert state["phase"] == "answer" and state["events"][-1]["kind"] == "double"
        assert state["cube"]["may_beaver"] and state["xgid"].split(":")[4] == "D"
        state = client.post(f"/game/{state['id']}/answer", json={"response": response}).json()
        if over:
            assert state["phase"] == "over" and state["winner"] == "bot"
            assert state["points"] == value
        else:
            assert state["cube"]["value"] == value and state["cube"]["owner"] == "you"
            assert state["events"][1]["who"] == "bot"  # the bot rolled and played on
    state = _new(client, seed=8)  # beavers off: no beaver to answer with
    while state["phase"] != "answer":
        state = _play_out_one(client, state)
    reply = client.post(f"/game/{state['id']}/answer", json={"response": "beaver"})
    assert reply.status_code == 422 and reply.json()["field"] == "response"


def test_resignations_the_bot_accepts_or_declines(client, scripted):
    state = _to_move(client, _new(client, seed=6))  # pubeval: no probabilities
    path = f"/game/{state['id']}"
    assert state["resign"] == 3  # no checker off, one in the bot's home board
    state = client.post(f"{path}/resign", json={"level": 1}).json()
    assert state["events"][0]["kind"] == "decline" and state["phase"] == "move"
    state = client.post(f"{path}/resign", json={"level": 3}).json()
    assert state["events"][0]["kind"] == "accept" and state["winner"] == "bot"
    assert state["points"] == 3 and state["phase"] == "over"
    assert client.post(f"{path}/resign", json={"level": 1}).status_code == 409
    scripted_client, _ = scripted  # a bot sure of a single game takes one
    state = _new(scripted_client, seed=6)
    state = scripted_client.post(f"/game/{state['id']}/resign", json={"level": 1}).json()
    assert state["events"][0]["kind"] == "accept" and state["points"] == 1


def test_a_match_to_3_with_its_crawford_game_and_the_mat_record(scripted):
    client, bot = scripted
    state = _new(client, length=3, seed=9, jacoby=True, beavers=True)
    path = f"/game/{state['id']}"
    assert state["rules"] == {"cube": True, "jacoby": False, "beavers": False}
    while state["phase"] != "roll":
        state = _play_out_one(client, state)
    bot.answer = PASS
    state = client.post(f"{path}/double").json()  # game 1: the bot passes, 1-0
    assert state["score"] == {"you": 1, "bot": 0} and not state["crawford"]
    for expected in ({"you": 1, "bot": 1}, {"you": 1, "bot": 2}):  # games 2, 3: resigned
        state = client.post(f"{path}/next").json()
        state = client.post(f"{path}/resign", json={"level": 1}).json()
        assert state["score"] == expected and state["phase"] == "over"
    assert not state["crawford"]
    state = client.post(f"{path}/next").json()  # the bot is 1 away: the Crawford game
    assert state["crawford"] and state["game"] == 4
    bot.doubles, offers = True, bot.offers
    while state["phase"] != "roll":
        state = _play_out_one(client, state)
    assert state["cube"]["may_double"] is False
    reply = client.post(f"{path}/double")
    assert reply.status_code == 409 and "Crawford" in reply.json()["error"]
    for _ in range(6):  # the bot is never asked to double in the Crawford game
        state = _play_out_one(client, state)
        if state["phase"] not in ("roll", "move"):
            break
    assert bot.offers == offers and state["phase"] in ("roll", "move")
    state = client.post(f"{path}/resign", json={"level": 1}).json()
    assert state["phase"] == "match_over" and state["match_winner"] == "bot"
    assert state["score"] == {"you": 1, "bot": 3}
    assert client.post(f"{path}/next").status_code == 409

    reply = client.get(f"{path}/record.mat")
    assert reply.status_code == 200 and "attachment" in reply.headers["content-disposition"]
    match = parse_match(reply.text)
    assert match.length == 3 and match.names == ("you", "scripted")
    assert [(g.winner, g.points) for g in match.games] == [(0, 1), (1, 1), (1, 1), (1, 1)]
    for number, game in enumerate(match.games, 1):
        replayed = replay(game, number=number)  # every play legal, the cube as recorded
        assert (replayed.winner, replayed.points) == (game.winner, game.points)
    assert replay(match.games[0]).ended_by == "drop"


def test_a_money_record_replays_through_the_game_loop(client):
    rng = np.random.default_rng(1)
    state = _new(client, seed=31)
    for _ in range(2):
        state = _play_out(client, state, rng)
        state = client.post(f"/game/{state['id']}/next").json()
    match = parse_match(client.get(f"/game/{state['id']}/record.mat").text)
    assert match.length == 0 and len(match.games) == 3 and match.games[2].winner is None
    for number, game in enumerate(match.games[:2], 1):
        replayed = replay(game, number=number)
        assert replayed.ended_by in ("bear-off", "drop")
        assert (replayed.winner, replayed.points) == (game.winner, game.points)


def test_a_hint_ranks_the_legal_plays(client):
    state = _to_move(client, _new(client, seed=12))
    hint = client.get(f"/game/{state['id']}/hint?count=3").json()
    assert hint["dice"] == state["dice"] and len(hint["plays"]) == min(3, len(state["plays"]))
    assert [r["rank"] for r in hint["plays"]] == list(range(1, len(hint["plays"]) + 1))
    assert {r["result"] for r in hint["plays"]} <= {p["result"] for p in state["plays"]}
    state = client.post(f"/game/{state['id']}/play",
                        json={"steps": state["plays"][0]["steps"]}).json()
    if state["phase"] != "move":
        assert client.get(f"/game/{state['id']}/hint").status_code == 409


def test_the_position_box_reads_position_ids_and_xgids(scripted):
    client, _ = scripted  # a bot with probabilities: the cube analysis too
    reply = client.post("/analyse", json={"position": START, "dice": "3,1"}).json()
    assert reply["posid"] == START and reply["dice"] == [3, 1]
    assert reply["xgid"].startswith("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:")
    assert reply["analysis"]["probabilities"]["win"] == 0.0
    assert reply["action"]["action"] in ("no_double", "double", "too_good")
    assert len(reply["plays"]) == 16 and reply["plays"][0]["loss"] == 0
    xg = "XGID=-b----E-C---eE---c-e----B-:1:1:1:52:3:2:0:7:10"
    reply = client.post("/analyse", json={"position": xg}).json()
    assert reply["match"] == {"length": 7, "score": [3, 2], "crawford": False}
    assert reply["cube"] == {"value": 2, "owner": "on roll"} and reply["dice"] == [5, 2]
    assert reply["xgid"] == xg and len(reply["plays"]) > 1


def test_the_openapi_description_lists_the_game_api(client):
    validate = pytest.importorskip("openapi_spec_validator").validate
    spec = client.get("/openapi.json").json()
    validate(spec)
    paths = spec["paths"]
    for path in ("/game", "/game/{game_id}", "/game/{game_id}/roll", "/game/{game_id}/play",
                 "/game/{game_id}/double", "/game/{game_id}/answer",
                 "/game/{game_id}/resign", "/game/{game_id}/next", "/game/{game_id}/hint",
                 "/game/{game_id}/record.mat", "/analyse"):
        assert path in paths, path
    schemas = spec["components"]["schemas"]
    for name in ("NewGame", "PlayRequest", "AnswerRequest", "ResignRequest",
                 "AnalyseRequest"):
        assert all(f.get("description") for f in schemas[name]["properties"].values()), name


WRONG = (None, 3, -1, 2**70, 1.5, True, [], [1, 2], [[1, 2, 3]], [[25, 0]] * 5, {},
         {"a": 1}, "", "x" * 5000, "\u00e9\u0663", "take", "XGID=" + "a" * 26 + ":0")


def test_bad_values_of_every_field_never_answer_500(client):
    """Every field of every board endpoint given wrong types and values: 422 (or 404 /
    409 where the game or its phase says no), one line naming what is wrong, never 500."""
    state = _to_move(client, _new(client, seed=40))
    gid = state["id"]
    good = {"/game": {"length": 3, "cube": True, "jacoby": False, "beavers": False,
                      "seed": 1},
            f"/game/{gid}/play": {"steps": state["plays"][0]["steps"]},
            f"/game/{gid}/answer": {"response": "take"},
            f"/game/{gid}/resign": {"level": 1},
            "/analyse": {"position": START, "dice": "3,1"}}
    statuses = {}
    for path, fields in good.items():
        for field in fields:
            for wrong in WRONG:
                reply = client.post(path, json={**fields, field: wrong})
                assert reply.status_code in (200, 404, 409, 422), (path, field, wrong)
                if reply.status_code != 200:
                    body = reply.json()
                    assert set(body) <= {"error", "field"} and len(body["error"]) < 300
                statuses[reply.status_code] = statuses.get(reply.status_code, 0) + 1
        for raw in (b"", b"null", b"[]", b"{", b"\xff\xfe", b'"x"'):
            reply = client.post(path, content=raw, headers={"Content-Type": "application/json"})
            assert reply.status_code == 422, (path, raw, reply.text)
    for target in (f"/game/{gid}/hint?count=x", f"/game/{gid}/hint?count=1&count=2",
                   "/game/" + "x" * 50, f"/game/{gid}/record.mat?x=1"):
        assert client.get(target).status_code in (200, 404, 409, 422), target
    assert statuses[422] > 50 and client.get(f"/game/{gid}").status_code == 200


# --- every variant, positions set up, the cube's advice (issue 41) --------------------------

VARIANTS_PLAYED = ("standard", "nackgammon", "hypergammon", "longgammon", "caucasian",
                   "suddendeath", "nuclear", "plakoto")


def _play_by_steps(client, state, rng, detonate=False):
    """Play the game to its end along the step graph (the steps the page would send), the
    person taking doubles and, with ``detonate``, exploding Nuclear's bomb when allowed.
    Every state's board is checked against its step graph's root."""
    path = f"/game/{state['id']}"
    for _ in range(1000):
        if state["phase"] not in ("roll", "move", "answer"):
            return state
        if state["phase"] == "roll":
            bomb = state["bomb"]
            if detonate and bomb and bomb["may_detonate"] and rng.random() < 0.3:
                state = client.post(f"{path}/detonate").json()
                assert state["bomb"]["owner"] == "bot"
            state = client.post(f"{path}/roll").json()
        elif state["phase"] == "move":
            graph = state["moves"]
            node, steps = graph["nodes"][graph["root"]], []
            assert node["board"] == state["board"]
            while node["edges"]:
                edge = node["edges"][rng.integers(len(node["edges"]))]
                steps.append(edge[:2])
                node = graph["nodes"][edge[3]]
            result = state["plays"][node["play"]]["result"]
            reply = client.post(f"{path}/play", json={"steps": steps})
            assert reply.status_code == 200, reply.text
            state = reply.json()
            assert result  # the play's result written in the variant's own format
        else:
            state = client.post(f"{path}/answer", json={"response": "take"}).json()
        assert "error" not in state, state
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("name", VARIANTS_PLAYED)
def test_every_variant_is_played_to_its_end_against_its_shipped_model(client, name):
    """POST /game with a variant: the server (pubeval, standard) gives its own bot in its
    variant and each other variant's shipped model; the game is played out by steps."""
    rng = np.random.default_rng(3)
    state = _new(client, variant=name, seed=5)
    assert state["variant"] == name and state["bot"] == ("pubeval" if name == "standard"
                                                         else "net:")
    assert state["checkers"] == variant(name).checkers
    assert (state["rule_words"] is None) == (name == "standard")
    state = _play_by_steps(client, state, rng, detonate=True)
    assert state["phase"] == "over" and state["winner"] in ("you", "bot")
    if name == "suddendeath":  # no gammons: a single game times the cube
        assert state["points"] == (state["cube"]["value"] if state["cube"] else 1)
    if name == "plakoto":
        assert state["posid"].startswith("plakoto:") and state["xgid"] is None


def test_plakoto_pins_and_mothers_in_the_state(client):
    """A Plakoto game's state says each side's mother (the last checker on its starting
    point) and a pin made by the person is in the board's cells (+16) and in the play's
    words and event."""
    rng = np.random.default_rng(11)
    state = _new(client, variant="plakoto", seed=8, cube=False)
    assert state["mothers"] == {}  # fifteen on each starting point: no mother yet
    path, seen_pin, seen_mother = f"/game/{state['id']}", False, False
    for _ in range(400):
        if state["phase"] not in ("roll", "move"):
            break
        if state["phase"] == "roll":
            state = client.post(f"{path}/roll").json()
            continue
        pins = [p for p in state["plays"] if any(p["hits"])]
        play = pins[0] if pins and not seen_pin else \
            state["plays"][rng.integers(len(state["plays"]))]
        board = state["board"]
        state = client.post(f"{path}/play", json={"steps": play["steps"]}).json()
        mine = [e for e in state["events"] if e["who"] == "you" and e["kind"] == "play"]
        if any(play["hits"]):
            target = next(b for (a, b), h in zip(play["steps"], play["hits"]) if h)
            assert board[target] == -1  # a lone checker of the bot's ...
            assert mine[0]["pins"] and target in mine[0]["pins"]
            assert "pinning on" in mine[0]["text"] and "pinning on" in play["play"]
            seen_pin = True
        seen_mother |= bool(state["mothers"])
        for side, point in (state["mothers"] or {}).items():
            cell = state["board"][point]
            assert point == (24 if side == "you" else 1)
            if side == "you":
                assert cell == 1 or cell == -17  # alone, or pinned under one of the bot's
    assert seen_pin and seen_mother


def test_nuclear_detonation_and_its_refusals(client):
    state = _new(client, variant="nuclear", seed=4, cube=False)
    path = f"/game/{state['id']}"
    while state["phase"] != "roll":
        state = _play_by_steps_once(client, state)
    if state["bomb"]["owner"] == "bot":  # the bot detonated first: the person may not
        reply = client.post(f"{path}/detonate")
        assert reply.status_code == 409 and "the bomb is the bot's" in reply.json()["error"]
        return
    board = np.array(state["board"])
    blots = int((np.abs(board[1:25]) == 1).sum())
    state = client.post(f"{path}/detonate").json()
    after = np.array(state["board"])
    assert state["bomb"] == {"owner": "bot", "may_detonate": False}
    assert not (np.abs(after[1:25]) == 1).any()
    assert after[25] - after[0] - (board[25] - board[0]) == blots
    assert f"{blots} blot" in state["events"][0]["text"] and state["phase"] == "roll"
    assert client.post(f"{path}/detonate").status_code == 409
    standard = _new(client, seed=4)
    reply = client.post(f"/game/{standard['id']}/detonate")
    assert reply.status_code == 409 and "only Nuclear" in reply.json()["error"]


def _play_by_steps_once(client, state):
    """One action of the person: roll, or the first legal play."""
    path = f"/game/{state['id']}"
    if state["phase"] == "move":
        return client.post(f"{path}/play", json={"steps": state["plays"][0]["steps"]}).json()
    return client.post(f"{path}/roll").json()


def test_sudden_death_says_how_the_game_ended(client):
    rng = np.random.default_rng(2)
    for seed in range(6):
        state = _play_by_steps(client, _new(client, variant="suddendeath", seed=seed,
                                            cube=False), rng)
        ends = [e["text"] for e in state["events"] if e["kind"] == "win"]
        if ends and "first hit" in ends[0]:
            assert state["points"] == 1
            return
    raise AssertionError("no game of six ended by a hit")


def test_a_game_from_a_match_id_an_xgid_and_a_position_id(scripted):
    from gammon.engine.formats.matchid import MatchState, encode_match_id
    client, _ = scripted
    match_id = encode_match_id(MatchState(cube_value=4, cube_owner=1, on_roll=0, turn=0,
                                          length=7, score=(5, 3), dice=(6, 2)))
    state = _new(client, position=f"{START}:{match_id}", seed=1)
    assert state["length"] == 7 and state["score"] == {"you": 5, "bot": 3}
    assert state["cube"]["value"] == 4 and state["cube"]["owner"] == "bot"
    assert state["phase"] == "move" and state["dice"] == [6, 2]
    assert state["posid"] == START and state["matchid"] == match_id
    assert "from the position set up" in state["events"][0]["text"]
    mat = client.get(f"/game/{state['id']}/record.mat").text  # game 1 cannot be in it
    assert "7 point match" in mat and "set up by hand" in mat and "Game 1" not in mat
    state = client.post(f"/game/{state['id']}/resign", json={"level": 1}).json()
    assert state["score"] == {"you": 5, "bot": 7} and state["phase"] == "match_over"

    crawford = encode_match_id(MatchState(on_roll=1, turn=1, length=5, score=(4, 2),
                                          crawford=True))
    state = _new(client, position=f"{START}:{crawford}")  # the mover is player 1: 2-4
    assert state["score"] == {"you": 2, "bot": 4} and state["crawford"]
    assert state["cube"]["may_double"] is False
    post = encode_match_id(MatchState(on_roll=0, turn=0, length=5, score=(4, 2)))
    state = _new(client, position=f"{START}:{post}")  # 4-2 without Crawford: after it
    assert not state["crawford"] and state["cube"]["may_double"]

    text = "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:0:0:0:0:10"  # money, the cube 2, mine
    state = _new(client, position=text)
    assert state["length"] == 0 and state["cube"]["value"] == 2
    assert state["cube"]["owner"] == "you" and state["phase"] == "roll"

    state = _new(client, position=START, length=3)  # a plain Position ID: a match from 0-0
    assert state["length"] == 3 and state["score"] == {"you": 0, "bot": 0}

    for fields, field in (({"position": "4HPwATDgc/ABM"}, "position"),
                          ({"position": f"{START}:{match_id}", "length": 5}, "length"),
                          ({"position": text, "cube": False}, "cube"),
                          ({"position": "XGID=bad"}, "position"),
                          ({"position": "x" * 201}, "position")):
        reply = client.post("/game", json=fields)
        assert reply.status_code == 422 and reply.json()["field"] == field, reply.text
        assert "\n" not in reply.json()["error"]


def test_cube_advice_is_gammon_cubes_answer_and_hints_look_ahead():
    from inprocess import gammon
    from gammon.eval.bots.cube import probability_source
    from gammon.eval.bots.registry import make_bot
    net = make_bot("net:")
    with TestClient(make_app(Api(net, "net:", evaluate=probability_source(net)))) as client:
        race = "eO85AAD4vg8AAA"
        state = _new(client, position=race, seed=2)
        path = f"/game/{state['id']}"
        for plies in (0, 1):
            advice = client.get(f"{path}/advice", params={"plies": plies}).json()
            said = gammon("cube", race, "--plies", str(plies))
            assert said.returncode == 0, said.stderr
            answer = json_line(said.stdout)
            assert (advice["action"], advice["response"]) == (answer["action"],
                                                              answer["response"])
            assert advice["plies"] == plies and advice["seconds"] >= 0
            assert set(advice["equities"]) == {"no_double", "double_take", "double_pass"}
        assert client.get(f"{path}/advice", params={"plies": 3}).status_code == 422
        assert client.get(f"{path}/hint").status_code == 409  # the dice are not rolled
        state = _to_move(client, client.post(f"{path}/roll").json())
        assert client.get(f"{path}/advice").status_code == 409  # after the roll: none
        deep = client.get(f"{path}/hint", params={"plies": 1, "count": 3}).json()
        flat = client.get(f"{path}/hint", params={"count": 3}).json()
        assert deep["plies"] == 1 and flat["plies"] == 0 and len(deep["plays"]) >= 1
        assert {r["play"] for r in deep["plays"]} <= {p["play"] for p in state["plays"]}


def test_cube_advice_needs_a_bot_with_probabilities_and_the_cube(client):
    state = _new(client, seed=3)
    while state["phase"] != "roll":
        state = _play_by_steps_once(client, state)
    reply = client.get(f"/game/{state['id']}/advice")
    assert reply.status_code == 409 and "no probabilities" in reply.json()["error"]
    reply = client.get(f"/game/{state['id']}/hint", params={"plies": 1})
    assert reply.status_code in (409, 422)


def json_line(text: str) -> dict:
    import json
    return json.loads(text)
