"""The board in the browser, driven by clicks in headless Chromium (selenium): a whole game
against pubeval played to its end, illegal clicks refused, a drag and an undo, a hint with
its probabilities, and positions set up from a Position ID and from an XGID and analysed.

Two servers run in this process on free ports (pubeval for the game, the shipped net for
the hint and the analysis), one browser for the module; all are stopped at the end, also
on failure. Skips (saying why) where selenium, Chromium or chromedriver is missing."""

import json
import random
import shutil
from pathlib import Path

import pytest

from gammon.engine.formats import xgid

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
pytest.importorskip("fastapi", reason="the web extra (fastapi, uvicorn) is not installed")
from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

START = "4HPwATDgc/ABMA"
RACE = "eO85AAD4vg8AAA"
WAIT = 20  # seconds for the page to take a server's answer


def _program(*names: str) -> str | None:
    for name in names:
        if Path(name).is_absolute() and Path(name).exists():
            return name
        found = shutil.which(name)
        if found:
            return found
    return None


CHROMIUM = _program("chromium", "chromium-browser", "google-chrome", "/usr/bin/chromium")
DRIVER = _program("/usr/bin/chromedriver", "chromedriver")


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium)")
    if DRIVER is None:
        pytest.skip("chromedriver is not installed (Debian: apt-get install chromium-driver)")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    options = Options()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                 "--window-size=1300,1000", "--disable-gpu"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
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
