"""The board in the browser, driven by clicks in headless Chromium (selenium): a whole game
against pubeval played to its end, illegal clicks refused, a drag and an undo, a hint with
its probabilities, and positions set up from a Position ID and from an XGID and analysed.

Two servers run in this process on free ports (pubeval for the game, the shipped net for
the hint and the analysis), one browser for the module; all are stopped at the end, also
on failure. Skips (saying why) where selenium, Chromium or chromedriver is missing."""

import json
import random

import pytest

import chromium

from gammon.engine.formats import xgid

pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
pytest.importorskip("fastapi", reason="the web extra (fastapi, uvicorn) is not installed")
from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

START = "4HPwATDgc/ABMA"
RACE = "eO85AAD4vg8AAA"
WAIT = 20  # seconds for the page to take a server's answer


@pytest.fixture(scope="module")
def browser():
    why = chromium.missing()
    if why:
        pytest.skip(why)
    driver = chromium.start()
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def servers():
    """{"pubeval": URL, "net": URL}: in-process servers, stopped at the end."""
    from gammon.eval.bots.cube import probability_source
    from gammon.eval.bots.registry import make_bot
    from gammon.http_api import Api
    from gammon.web.server import WebServer
    net = make_bot("net:")
    made = []
    try:
        for api in (Api(make_bot("pubeval"), "pubeval"),
                    Api(net, "net:", evaluate=probability_source(net))):
            made.append(WebServer(api, "127.0.0.1", 0).start())
        yield {"pubeval": f"http://127.0.0.1:{made[0].port}",
               "net": f"http://127.0.0.1:{made[1].port}"}
    finally:
        for server in made:
            server.stop()


# --- driving the page ------------------------------------------------------------------

def _version(d) -> int:
    return int(d.find_element(By.TAG_NAME, "body").get_attribute("data-version") or 0)


def _answered(d, before: int) -> None:
    """Wait until the page has taken a new answer from the server."""
    try:
        WebDriverWait(d, WAIT).until(lambda _: _version(d) > before)
    except TimeoutException:
        raise AssertionError(f"no answer; the page says {_message(d)!r}") from None


def _press(d, element_id: str) -> None:
    before = _version(d)
    d.find_element(By.ID, element_id).click()
    _answered(d, before)


def _phase(d) -> str:
    return d.find_element(By.TAG_NAME, "body").get_attribute("data-phase")


def _message(d) -> str:
    return d.find_element(By.ID, "message").text


def _new_game(d, base: str, seed: int, length: int = 0) -> None:
    d.get(f"{base}/?start=0")
    WebDriverWait(d, WAIT).until(lambda _: _phase(d) == "none")
    for element_id, value in (("seed", str(seed)), ("length", str(length))):
        field = d.find_element(By.ID, element_id)
        field.clear()
        field.send_keys(value)
    _press(d, "new-game")


def _place(point: int) -> str:
    """The id of the place a click on ``point`` lands on (bar 25, off 0)."""
    return {25: "bar-you", 0: "off-you"}.get(point, f"point-{point}")


def _counts(d) -> dict:
    """What the board shows: each stack's count and owner, the bars and trays."""
    return d.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('#board g[data-count]')]"
        ".map(g => [g.id, g.dataset.count + ':' + g.dataset.owner]))")


def _legal_plays(d) -> list:
    """The legal plays the page lists, each as its steps."""
    return [json.loads(s) for s in d.execute_script(
        "return [...document.querySelectorAll('#legal-plays .legal-play')]"
        ".map(li => li.dataset.steps)")]


def _to_move(d) -> None:
    """Roll (answering a double by taking) until the person has a roll to play."""
    for _ in range(50):
        phase = _phase(d)
        if phase == "move":
            return
        _press(d, {"roll": "roll", "answer": "take"}[phase])
    raise AssertionError("never a roll to play")


# --- the tests ---------------------------------------------------------------------------

def test_a_whole_game_against_pubeval_by_clicks(servers, browser):
    d = browser
    _new_game(d, servers["pubeval"], seed=2026)
    rng = random.Random(7)
    for turn in range(500):
        phase = _phase(d)
        if phase in ("over", "match_over"):
            break
        if phase == "roll":
            _press(d, "roll")
        elif phase == "answer":  # the bot doubled: the test takes
            _press(d, "take")
        else:
            assert phase == "move", phase
            plays = _legal_plays(d)
            assert plays and d.find_element(By.ID, "done").get_attribute("disabled")
            for source, target in rng.choice(plays):
                d.find_element(By.ID, _place(source)).click()
                d.find_element(By.ID, _place(target)).click()
                assert "error" not in d.find_element(By.ID, "message").get_attribute("class")
            assert d.find_element(By.ID, "done").is_enabled()
            _press(d, "done")
    else:
        raise AssertionError("the game did not end in 500 actions")
    assert _phase(d) == "over"
    score = d.find_element(By.ID, "score")
    you, bot = int(score.get_attribute("data-you")), int(score.get_attribute("data-bot"))
    assert you + bot >= 1 and (you == 0 or bot == 0)
    log = d.find_element(By.ID, "log").text
    assert ("You win" in log) == (you > 0) and ("pubeval wins" in log) == (bot > 0)
    assert d.find_element(By.ID, "next").is_enabled()
    record = d.find_element(By.ID, "download").get_attribute("href")
    assert record.endswith("/record.mat")


def test_illegal_clicks_are_refused_the_board_unchanged(servers, browser):
    d = browser
    _new_game(d, servers["pubeval"], seed=11)
    _to_move(d)
    before = _counts(d)
    sources = {steps[0][0] for steps in _legal_plays(d)}
    theirs = next(p for p in range(1, 25)
                  if before[f"stack-{p}"].endswith(":bot") and p not in sources)
    d.find_element(By.ID, f"point-{theirs}").click()
    message = d.find_element(By.ID, "message")
    assert "error" in message.get_attribute("class") and "Not a legal step" in message.text
    assert _counts(d) == before
    # a legal checker to a closed point: refused as well
    source = sorted(sources)[0]
    closed = next(p for p in range(source - 1, 0, -1)
                  if before[f"stack-{p}"].endswith(":bot")
                  and int(before[f"stack-{p}"].split(":")[0]) >= 2)
    d.find_element(By.ID, f"point-{source}").click()
    d.find_element(By.ID, f"point-{closed}").click()
    assert "Not a legal step" in _message(d) and _counts(d) == before
    assert not d.find_element(By.ID, "done").is_enabled()
    # a legal step by dragging, then taken back
    source, target = _legal_plays(d)[0][0]
    start, end = (d.find_element(By.ID, _place(p)).rect for p in (source, target))
    dx = round(end["x"] + end["width"] / 2 - start["x"] - start["width"] / 2)
    dy = round(end["y"] + end["height"] / 2 - start["y"] - start["height"] / 2)
    ActionChains(d).move_to_element(d.find_element(By.ID, _place(source))).click_and_hold() \
        .move_by_offset(dx, dy).release().perform()  # the board is redrawn on the way
    moved = _counts(d)
    assert moved != before and "error" not in message.get_attribute("class")
    assert int(moved[f"stack-{source}"].split(":")[0]) == \
        int(before[f"stack-{source}"].split(":")[0]) - 1
    d.find_element(By.ID, "undo").click()
    assert _counts(d) == before and not d.find_element(By.ID, "undo").is_enabled()


def test_a_hint_shows_the_ranked_plays_and_their_probabilities(servers, browser):
    d = browser
    _new_game(d, servers["net"], seed=5)
    _to_move(d)
    legal = {li.get_attribute("textContent")
             for li in d.find_elements(By.CSS_SELECTOR, "#legal-plays .legal-play")}
    d.find_element(By.ID, "hint").click()
    WebDriverWait(d, WAIT).until(lambda _: d.find_element(By.ID, "hints").is_displayed())
    rows = d.find_elements(By.CSS_SELECTOR, "#hint-table .hint-row")
    assert 1 <= len(rows) <= 5 and len(rows) == min(5, len(legal))
    for row in rows:
        cells = row.find_elements(By.TAG_NAME, "td")
        assert len(cells) == 8 and row.get_attribute("data-play") in legal
        win = float(cells[3].text)
        assert 0 <= win <= 100
    assert "cubeless equity" in d.find_element(By.ID, "hint-label").text


def test_positions_set_up_from_a_position_id_and_an_xgid_are_analysed(servers, browser):
    d = browser
    d.get(f"{servers['net']}/?start=0")
    WebDriverWait(d, WAIT).until(lambda _: _phase(d) == "none")

    def analyse(position: str, dice: str = "") -> None:
        for element_id, value in (("position", position), ("position-dice", dice)):
            field = d.find_element(By.ID, element_id)
            field.clear()
            field.send_keys(value)
        _press(d, "analyse")

    analyse(START, "3,1")
    assert _phase(d) == "analysis" and d.find_element(By.ID, "analysis").is_displayed()
    assert d.find_element(By.ID, "analysis-posid").text == START
    assert d.find_element(By.ID, "analysis-xgid").text.startswith(
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:31")
    board = _counts(d)
    assert board["stack-6"] == "5:you" and board["stack-24"] == "2:you"
    assert board["stack-19"] == "5:bot" and board["stack-1"] == "2:bot"
    assert d.find_element(By.ID, "dice").get_attribute("data-dice") == "3,1"
    probabilities = d.find_element(By.ID, "analysis-probabilities").text
    assert "win gammon" in probabilities and "cubeless equity" in probabilities
    action = d.find_element(By.ID, "analysis-action").get_attribute("data-action")
    assert action in ("no_double", "double", "too_good")
    plays = d.find_elements(By.CSS_SELECTOR, "#analysis-plays .analysis-play")
    assert len(plays) == 16 and plays[0].find_elements(By.TAG_NAME, "td")[3].text == "0.000"

    position = xgid.decode(xgid.encode(_race_board())).board  # a race, as an XGID
    text = xgid.encode(position).replace(":0:0:1:00:0:0:0:0:", ":1:-1:1:00:2:4:0:5:")
    analyse(text)
    assert d.find_element(By.ID, "analysis-xgid").text == text
    assert "5-point match" in d.find_element(By.ID, "analysis-note").text
    cube = d.find_element(By.ID, "cube")
    assert (cube.get_attribute("data-value"), cube.get_attribute("data-owner")) == \
        ("2", "opponent")
    board = _counts(d)
    for p in range(1, 25):
        n = int(position[p])
        assert board[f"stack-{p}"] == f"{abs(n)}:{'you' if n > 0 else 'bot' if n else ''}"
    assert d.find_element(By.ID, "analysis-action").get_attribute("data-action")

    field = d.find_element(By.ID, "position")  # no position: refused, said in one line
    field.clear()
    field.send_keys("xyz")
    d.find_element(By.ID, "analyse").click()
    message = d.find_element(By.ID, "message")
    WebDriverWait(d, WAIT).until(lambda _: "error" in message.get_attribute("class"))
    assert "a Position ID has 14 characters" in message.text
    assert _counts(d) == board  # the position shown stays


def _race_board():
    from gammon.engine.formats import posid
    return posid.decode(RACE)


# --- every variant on the board (issue 41, point 1) ---------------------------------------

def _new_variant_game(d, base: str, variant: str, seed: int) -> None:
    """A money game of ``variant`` without the cube, chosen on the new-game form."""
    d.get(f"{base}/?start=0&cube=0")
    WebDriverWait(d, WAIT).until(lambda _: _phase(d) == "none")
    Select(d.find_element(By.ID, "variant")).select_by_value(variant)
    field = d.find_element(By.ID, "seed")
    field.clear()
    field.send_keys(str(seed))
    _press(d, "new-game")


def _stacks(d) -> dict:
    """Each point's stack as the page draws it: {point: (count, owner, pinned, mother)}."""
    return {int(k): tuple(v) for k, v in d.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('#board g[id^=stack-]')]"
        ".map(g => [g.dataset.point, [Number(g.dataset.count), g.dataset.owner,"
        " g.dataset.pinned, g.dataset.mother]]))").items()}


def _play_out(d, rng, choose, on_roll=None, turns: int = 600) -> None:
    """Play the game to its end by clicks: roll (or ``on_roll(d)`` first, which may act and
    return True), take any double, make the play ``choose(plays, hits)`` picks step by
    step, Done."""
    for _ in range(turns):
        phase = _phase(d)
        if phase in ("over", "match_over"):
            return
        if phase == "roll":
            if on_roll is None or not on_roll(d):
                _press(d, "roll")
        elif phase == "answer":
            _press(d, "take")
        else:
            assert phase == "move", phase
            plays = _legal_plays(d)
            hits = [json.loads(h) for h in d.execute_script(
                "return [...document.querySelectorAll('#legal-plays .legal-play')]"
                ".map(li => li.dataset.hits)")]
            for source, target in plays[choose(plays, hits)]:
                d.find_element(By.ID, _place(source)).click()
                d.find_element(By.ID, _place(target)).click()
                assert "error" not in d.find_element(By.ID, "message").get_attribute("class")
            _press(d, "done")
    raise AssertionError(f"the game did not end in {turns} actions")


def test_a_plakoto_game_by_clicks_to_the_end_against_its_shipped_model(servers, browser):
    """Plakoto against checkpoints/plakoto.pt (the server plays standard): a move onto a
    lone checker draws a pin, not a hit; the game is played to its end."""
    d = browser
    _new_variant_game(d, servers["pubeval"], "plakoto", seed=41)
    assert d.find_element(By.ID, "variant").get_attribute("value") == "plakoto"
    assert "Plakoto" in d.find_element(By.ID, "score").text
    assert "pinned, not hit" in d.find_element(By.ID, "log").text  # the rules, said
    assert "net:" in d.find_element(By.ID, "score").text  # the shipped model, not pubeval
    rng = random.Random(41)
    pinned = []

    def choose(plays, hits):
        """A play that pins where there is one (checking the pin drawn before Done)."""
        pins = [k for k, h in enumerate(hits) if any(h)]
        if not pins or pinned:
            return rng.randrange(len(plays))
        k = rng.choice(pins)
        step = next(s for s, h in zip(plays[k], hits[k]) if h)
        for source, target in plays[k]:
            d.find_element(By.ID, _place(source)).click()
            d.find_element(By.ID, _place(target)).click()
        count, owner, under, _ = _stacks(d)[step[1]]
        pinned.append((step[1], count, owner, under))
        d.find_element(By.ID, "undo").click()
        while d.find_element(By.ID, "undo").is_enabled():
            d.find_element(By.ID, "undo").click()
        return k

    _play_out(d, rng, choose)
    assert pinned, "no move onto a lone checker in the whole game"
    point, count, owner, under = pinned[0]
    assert (owner, under) == ("you", "bot") and count >= 1  # ours on top, theirs pinned
    assert _phase(d) == "over"
    log = d.find_element(By.ID, "log").text
    assert "pinning on" in log and ("You win" in log or "net: wins" in log)


def test_a_nuclear_game_with_a_detonation_by_clicks_to_the_end(servers, browser):
    """Nuclear against checkpoints/nuclear.pt: the bomb drawn centred, a detonation by the
    Detonate button sends every blot to the bar and the bomb to the bot."""
    d = browser
    _new_variant_game(d, servers["pubeval"], "nuclear", seed=7)
    bomb = d.find_element(By.ID, "bomb")
    assert bomb.get_attribute("data-owner") in ("centred", "bot")
    done = []

    def detonate(d) -> bool:
        button = d.find_element(By.ID, "detonate")
        if done or not button.is_enabled():
            return False
        blots = sum(1 for count, owner, *_ in _stacks(d).values() if count == 1)
        bars = [int(d.find_element(By.ID, f"bar-{w}-checkers").get_attribute("data-count"))
                for w in ("you", "bot")]
        _press(d, "detonate")
        after = [int(d.find_element(By.ID, f"bar-{w}-checkers").get_attribute("data-count"))
                 for w in ("you", "bot")]
        assert all(count != 1 for count, *_ in _stacks(d).values())  # no blot left
        assert sum(after) - sum(bars) == blots
        assert d.find_element(By.ID, "bomb").get_attribute("data-owner") == "bot"
        assert "You detonate the bomb" in d.find_element(By.ID, "log").text
        assert not d.find_element(By.ID, "detonate").is_enabled()  # the bot's now
        done.append(blots)
        return True

    rng = random.Random(7)
    _play_out(d, rng, lambda plays, hits: rng.randrange(len(plays)), on_roll=detonate)
    assert done, "the Detonate button was never enabled"
    assert _phase(d) == "over"


def test_the_board_draws_plakoto_mothers_and_pins_from_its_cells(servers, browser):
    """draw.js reads Plakoto's cells: +17 one of yours pinning one of the bot's, -18 two of
    the bot's pinning one of yours; a mother ringed."""
    d = browser
    d.get(f"{servers['pubeval']}/?start=0")
    WebDriverWait(d, WAIT).until(lambda _: _phase(d) == "none")
    board = [0] * 26
    board[24], board[10], board[1], board[5], board[20] = 1, 17, -1, -18, -12
    d.execute_script("drawBoard(document.getElementById('board'), {board: arguments[0], "
                     "variant: 'plakoto', checkers: 15, mothers: {you: 24, bot: 1}})", board)
    stacks = _stacks(d)
    assert stacks[10] == (1, "you", "bot", "") and stacks[5] == (2, "bot", "you", "")
    assert stacks[24] == (1, "you", "", "you") and stacks[1] == (1, "bot", "", "bot")
    assert len(d.find_elements(By.CSS_SELECTOR, "#board .mother")) == 2
    assert len(d.find_elements(By.CSS_SELECTOR, "#board .checker.pinned")) == 2
    off = d.find_element(By.ID, "off-you-checkers").get_attribute("data-count")
    assert off == str(15 - (1 + 1 + 1))  # 24, 10 and the one pinned on 5
    d.execute_script("drawBoard(document.getElementById('board'), {board: arguments[0], "
                     "variant: 'plakoto', checkers: 15})", board)  # the mothers from the cells
    assert _stacks(d) == stacks


# --- a game from any position, and the cube's advice (issue 41, points 2 and 3) -------------

def _type(d, element_id: str, text: str) -> None:
    field = d.find_element(By.ID, element_id)
    field.clear()
    field.send_keys(text)


def _gammon_cube(position: str, *options: str) -> dict:
    """``gammon cube``'s answer for the same position, by the command itself (run in this
    process: tests/inprocess.py)."""
    from inprocess import gammon
    done = gammon("cube", position, "--bot", "net:", *options)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _advice(d, plies: int) -> dict:
    Select(d.find_element(By.ID, "plies")).select_by_value(str(plies))
    _press(d, "advice")
    box = d.find_element(By.ID, "advice-action")
    rows = d.find_elements(By.CSS_SELECTOR, "#advice-table .advice-row")
    return {"action": box.get_attribute("data-action"),
            "response": box.get_attribute("data-response"),
            "plies": int(box.get_attribute("data-plies")),
            "equities": {r.get_attribute("data-key"): float(r.get_attribute("data-equity"))
                         for r in rows}}


def test_a_match_from_a_match_id_at_3_away_2_away_with_the_cube_on_2(servers, browser):
    """POSID:MATCHID of a 5-point match, you 2 (3-away), net: 3 (2-away), the cube on 2 and
    yours: the game starts there, the cube advice before the roll is gammon cube's, and the
    match is played out by clicks to its end."""
    from gammon.engine.formats.matchid import MatchState, encode_match_id
    d = browser
    match_id = encode_match_id(MatchState(cube_value=2, cube_owner=0, on_roll=0, turn=0,
                                          length=5, score=(2, 3)))
    d.get(f"{servers['net']}/?start=0")
    WebDriverWait(d, WAIT).until(lambda _: _phase(d) == "none")
    _type(d, "seed", "17")
    _type(d, "position", f"{RACE}:{match_id}")
    _press(d, "play-position")
    score = d.find_element(By.ID, "score")
    assert (score.get_attribute("data-you"), score.get_attribute("data-bot")) == ("2", "3")
    assert "5-point match" in score.text and _phase(d) == "roll"
    cube = d.find_element(By.ID, "cube")
    assert (cube.get_attribute("data-value"), cube.get_attribute("data-owner")) == ("2", "you")
    shown = _counts(d)
    assert {k: v for k, v in shown.items() if k.startswith("stack-")} == \
        _counts_of(_race_board())
    assert d.find_element(By.ID, "game-matchid").text == match_id

    page = _advice(d, 0)  # the cube advice before the roll: gammon cube's
    said = _gammon_cube(f"{RACE}:{match_id}")
    assert (page["action"], page["response"]) == (said["action"], said["response"])
    assert set(page["equities"]) == {"no_double", "double_take", "double_pass"}
    assert 0 <= page["equities"]["no_double"] <= 1  # match winning chances

    rng = random.Random(5)  # the game played out: its points (times the cube) to the winner
    _play_out(d, rng, lambda plays, hits: rng.randrange(len(plays)))
    you, bot = (int(score.get_attribute(f"data-{w}")) for w in ("you", "bot"))
    gained = (you - 2, bot - 3)  # one side, by the cube (2 or more) times 1, 2 or 3
    assert min(gained) == 0 and max(gained) >= 2 and max(gained) % 2 == 0, gained
    assert _phase(d) == ("match_over" if max(you, bot) >= 5 else "over")


def _counts_of(board) -> dict:
    """``_counts`` of the points of ``board`` (26,) as the page would draw it."""
    return {f"stack-{p}": f"{abs(int(board[p]))}:{'you' if board[p] > 0 else 'bot' if board[p] else ''}"
            for p in range(1, 25)}


def test_cube_advice_at_each_depth_is_gammon_cubes_answer(servers, browser):
    """A money game from a racing Position ID: the advice at 0, 1 and 2 plies equals
    ``gammon cube --plies N`` for the same position, the depth said."""
    d = browser
    d.get(f"{servers['net']}/?start=0")
    WebDriverWait(d, WAIT).until(lambda _: _phase(d) == "none")
    _type(d, "position", RACE)
    _press(d, "play-position")
    assert _phase(d) == "roll" and d.find_element(By.ID, "game-posid").text == RACE
    for plies in (0, 1, 2):
        page = _advice(d, plies)
        said = _gammon_cube(RACE, "--plies", str(plies))
        assert page["plies"] == plies
        assert (page["action"], page["response"]) == (said["action"], said["response"])
        label = d.find_element(By.ID, "advice-label").text
        assert f"{plies}-ply" in label and " s " in label + " "


def test_the_caucasian_rule_refuses_a_hitter_hiding_and_says_why(servers, browser):
    """A Caucasian money game from POSID:MATCHID with 3-1 rolled: 6/5* then 5/2 (the hitter
    onto your own checkers) is refused, the status line naming the rule."""
    import numpy as np
    from gammon.engine.formats import posid
    from gammon.engine.formats.matchid import MatchState, encode_match_id
    board = np.zeros(26, dtype=np.int8)
    board[2], board[6], board[8], board[13] = 2, 3, 2, 8
    board[5], board[24], board[19], board[17], board[12] = -1, -2, -5, -4, -3
    position = f"{posid.encode(board)}:{encode_match_id(MatchState(dice=(3, 1)))}"
    d = browser
    d.get(f"{servers['pubeval']}/?start=0")
    WebDriverWait(d, WAIT).until(lambda _: _phase(d) == "none")
    Select(d.find_element(By.ID, "variant")).select_by_value("caucasian")
    _type(d, "position", position)
    _press(d, "play-position")
    assert _phase(d) == "move" and "Caucasian" in d.find_element(By.ID, "log").text
    d.find_element(By.ID, "point-6").click()
    d.find_element(By.ID, "point-5").click()  # 6/5*: a hit in the home board
    assert "error" not in d.find_element(By.ID, "message").get_attribute("class")
    assert _counts(d)["bar-bot-checkers"] == "1:bot"
    d.find_element(By.ID, "point-5").click()  # the hitter: its 3 would hide it on 2
    message = _message(d)
    assert "Not a legal step" in message and "Caucasian rule" in message, message
    assert "hit on 5" in message
    assert _counts(d)["stack-2"] == "2:you"  # nothing moved
    d.find_element(By.ID, "point-8").click()  # 8/5 covers the hitter instead: legal
    d.find_element(By.ID, "point-5").click()
    assert "error" not in d.find_element(By.ID, "message").get_attribute("class")
    assert d.find_element(By.ID, "done").is_enabled()


# --- the page's own fuzz (issue 41) --------------------------------------------------------

WATCH = """
window.__errors = [];
window.__statuses = [];
window.addEventListener('error', e => window.__errors.push('error: ' + e.message));
window.addEventListener('unhandledrejection', e => window.__errors.push('rejection: ' + e.reason));
const consoleError = console.error;
console.error = (...a) => { window.__errors.push('console: ' + a.join(' ')); consoleError(...a); };
const realFetch = window.fetch;
window.fetch = async (...a) => { const r = await realFetch(...a);
  window.__statuses.push(r.status); return r; };
"""


def _watched(d, url: str) -> None:
    """Open ``url`` with the page's errors, console errors and answer statuses recorded."""
    d.get(url)
    WebDriverWait(d, WAIT).until(lambda _: _phase(d) != "")
    d.execute_script(WATCH)


def _check_watch(d, what: str) -> None:
    errors, statuses = d.execute_script("return [window.__errors, window.__statuses]")
    assert not errors, (what, errors)
    assert 500 not in statuses, (what, statuses)


def test_random_clicks_and_typing_on_the_page_give_no_500_and_no_console_error(servers,
                                                                            browser):
    """A hundred and twenty random actions: a click on any button, point, bar or tray, a random
    choice in each menu, odd text typed into each box, a new game in a random variant now
    and then; after each, no error in the page's console and no answer 500."""
    from selenium.common.exceptions import WebDriverException
    d = browser
    rng = random.Random(4141)
    texts = ["", "0", "-1", "99999999999999999999", "x", "3,1", "7,7", "4HPwATDgc/ABMA",
             f"{START}:cAkAAAAAAAAA", "XGID=junk", "plakoto:1,2,3", "<b>", "1e400", " "]
    _watched(d, f"{servers['net']}/?seed=3")
    actions = 0
    for k in range(120):
        if k % 40 == 39:  # a fresh page now and then, in a random variant
            variant = rng.choice(["standard", "nuclear", "plakoto", "caucasian",
                                  "hypergammon", "suddendeath"])
            _check_watch(d, "before reload")
            _watched(d, f"{servers['net']}/?seed={k}&variant={variant}&cube={rng.randrange(2)}")
        kind = rng.random()
        try:
            if kind < 0.45:
                targets = d.find_elements(By.CSS_SELECTOR, "#board rect.hit")
                assert len(targets) == 26, d.current_url
                rng.choice(targets).click()
            elif kind < 0.8:
                buttons = [b for b in d.find_elements(By.TAG_NAME, "button")
                           if b.is_displayed() and b.is_enabled()]
                if not buttons:  # all of them waiting for an answer
                    continue
                rng.choice(buttons).click()
            elif kind < 0.9:
                menus = [m for m in d.find_elements(By.TAG_NAME, "select") if m.is_displayed()]
                assert menus, d.current_url
                menu = Select(rng.choice(menus))
                options = [o for o in menu.options if o.is_enabled()]
                if not options:  # resigning, with no game in play
                    continue
                menu.select_by_visible_text(rng.choice(options).text)
            else:
                boxes = [b for b in d.find_elements(By.CSS_SELECTOR, "input[type=text], "
                                                    "input[type=number]") if b.is_displayed()]
                assert boxes, d.current_url
                box = rng.choice(boxes)
                box.clear()
                box.send_keys(rng.choice(texts))
            actions += 1
        except WebDriverException:  # an element redrawn under the click: try another
            continue
        if k % 10 == 0:
            WebDriverWait(d, WAIT).until(lambda _: d.execute_script(
                "return document.readyState") == "complete")
            _check_watch(d, f"action {k}")
    import time
    time.sleep(1.0)  # the last answers in
    _check_watch(d, "the end")
    assert actions > 100
