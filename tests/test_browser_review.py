"""The review page (``/review/page``) driven in headless Chromium (selenium): a real .mat
file and a real SGF file uploaded through the file input, every figure of the summary
checked against the report of ``gammon review FILE --json`` for the same file and bot, the
match stepped through to its last decision with every board checked against the decision's
Position ID, the graph and the marked decisions as ways to jump, and bad files (unreadable,
an illegal move, too many turns, too many bytes) answered by one line on the page.

One server (the shipped net) runs in this process on a free port, one browser for the
module; both are stopped at the end, also on failure. Skips (saying why) where selenium,
Chromium or chromedriver is missing."""

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import chromium

from gammon.engine.formats import posid
from inprocess import gammon

pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
pytest.importorskip("fastapi", reason="the web extra (fastapi, uvicorn) is not installed")
from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

pytestmark = pytest.mark.xdist_group("test_browser_review")  # one server and browser

REAL = Path(__file__).parent / "data" / "real"
MAT = REAL / "galaxy" / "match8467110.txt"  # Galaxy's .mat export: one game, cube actions
SGF = REAL / "gnubg" / "charlot1-charlot2_7p_2025-11-08-2305_game3_saved.sgf"  # gnubg's
BIG = REAL / "gnubg" / "charlot1-charlot2_7p_2025-11-08-2305.sgf"  # 320 KB: over the limit
WAIT = 60  # seconds for the page to take the server's review

# each summary row's key and the format of its cell (the page's ROWS); None: counts "a / b"
SUMMARY = {"unforced": "d", "cube_decisions": "d", "checker_loss": ".3f",
           "cube_loss": ".3f", "checker_error_rate": ".1f", "cube_error_rate": ".1f",
           "error_rate": ".1f", "pr": ".1f", "marks": None, "cube_marks": None,
           "luck": "+.3f", "lucky_rolls,unlucky_rolls": None, "points": "d",
           "luck_adjusted": "+.3f"}


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
def server():
    """(base URL, its Api): the shipped net in an in-process server, stopped at the end."""
    from gammon.eval.bots.cube import probability_source
    from gammon.eval.bots.registry import make_bot
    from gammon.http_api import Api
    from gammon.web.server import WebServer
    net = make_bot("net:")
    api = Api(net, "net:", evaluate=probability_source(net))
    made = WebServer(api, "127.0.0.1", 0).start()
    try:
        yield f"http://127.0.0.1:{made.port}", api
    finally:
        made.stop()


def _cli_report(path: Path) -> dict:
    """What ``gammon review PATH --json`` prints (the default bot, the shipped net)."""
    run = gammon("review", path, "--json", "--no-progress")
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


# --- driving the page ------------------------------------------------------------------

def _body(d, name: str) -> str:
    return d.find_element(By.TAG_NAME, "body").get_attribute(f"data-{name}")


def _upload(d, base: str, path: Path, wait_for: str = "report", skip: bool = False) -> None:
    """Open the page, choose ``path`` in the file input (``skip``: an illegal move skips the
    rest of its game) and send it; wait for the answer."""
    d.get(f"{base}/review/page")
    WebDriverWait(d, WAIT).until(lambda _: d.find_element(By.ID, "limits").text)
    before = int(_body(d, "version"))
    d.find_element(By.ID, "file").send_keys(str(path.resolve()))
    if skip:
        d.find_element(By.CSS_SELECTOR, "#review-form details summary").click()
        d.find_element(By.ID, "skip").click()
    d.find_element(By.ID, "review").click()
    try:
        WebDriverWait(d, WAIT).until(lambda _: int(_body(d, "version")) > before)
    except TimeoutException:
        raise AssertionError(f"no answer; the page says {_message(d)!r}") from None
    assert _body(d, "state") == wait_for, _message(d)


def _message(d) -> str:
    return d.find_element(By.ID, "message").text


def _step(d) -> int:
    return int(_body(d, "step"))


def _summary(d) -> dict:
    """{(player, key): (data-value, text)} of every figure of the summary table."""
    return {(int(c[0]), c[1]): (c[2], c[3]) for c in d.execute_script(
        "return [...document.querySelectorAll('#summary td[data-key]')]"
        ".map(td => [td.dataset.player, td.dataset.key, td.dataset.value, td.textContent])")}


def _board(d) -> dict:
    """What the step-through's board shows: each stack, bar and tray as (count, owner),
    the dice and the cube."""
    shown = d.execute_script(
        "const svg = document.getElementById('board');"
        "const out = {};"
        "for (const g of svg.querySelectorAll('g[data-count]'))"
        "  out[g.id] = [Number(g.dataset.count), g.dataset.owner];"
        "const cube = svg.querySelector('#cube');"
        "out.dice = svg.querySelector('#dice').dataset.dice;"
        "out.cube = cube ? [Number(cube.dataset.value), cube.dataset.owner] : null;"
        "return out;")
    return {k: tuple(v) if isinstance(v, list) else v for k, v in shown.items()}


def _expected_board(decision: dict) -> dict:
    """The board the page should show for ``decision``: its Position ID decoded, from the
    deciding player's side (his checkers "you", at the bottom)."""
    cells = [int(x) for x in posid.decode(decision["posid"])]
    assert cells == decision["board"]
    out = {f"stack-{p}": (abs(c), "you" if c > 0 else "bot" if c < 0 else "")
           for p, c in enumerate(cells) if 1 <= p <= 24}
    out["bar-you-checkers"] = (cells[25], "you")
    out["bar-bot-checkers"] = (-cells[0], "bot")
    out["off-you-checkers"] = (15 - sum(c for c in cells if c > 0), "you")
    out["off-bot-checkers"] = (15 + sum(c for c in cells if c < 0), "bot")
    out["dice"] = ",".join(map(str, decision["dice"])) if decision["dice"] else ""
    owner = decision["cube"]["owner"]
    out["cube"] = (decision["cube"]["value"], "centred" if owner < 0 else
                   "you" if owner == decision["player"] else "bot")
    return out


def _decisions(report: dict) -> list:
    return [d for g in report["games"] for d in g["decisions"]]


def _check_summary(d, report: dict) -> None:
    """Every figure of the page's summary is the report's, rounded as the page rounds."""
    shown = _summary(d)
    assert {key for _, key in shown} == set(SUMMARY)
    assert len(shown) == 2 * len(SUMMARY)
    for (player, key), (value, text) in shown.items():
        figures = report["players"][player]
        spec = SUMMARY[key]
        if spec is None:
            want = ([figures[k] for k in key.split(",")] if "," in key else
                    [figures[key][m] for m in ("doubtful", "bad", "very_bad")])
            assert json.loads(value) == want, (key, value)
            assert text == " / ".join(map(str, want))
        else:
            assert float(value) == figures[key], (player, key, value, figures[key])
            assert text == format(figures[key], spec), (player, key, text)
    names = [th.text for th in d.find_elements(By.CSS_SELECTOR, "#summary th[data-player]")]
    assert names == [p["name"] for p in report["players"]]


def _check_step(d, report: dict, k: int) -> None:
    """Decision ``k`` (from 1) of the match is the one shown: its facts and its board."""
    decision = _decisions(report)[k - 1]
    assert _step(d) == k
    facts = d.find_element(By.ID, "step")
    for name in ("move", "player", "kind", "action", "best", "posid"):
        assert facts.get_attribute(f"data-{name}") == str(decision[name]), name
    assert float(facts.get_attribute("data-loss")) == decision["loss"]
    assert facts.get_attribute("data-mark") == (decision["mark"] or "")
    assert _board(d) == _expected_board(decision), k


def _console_errors(d) -> list:
    """The console's errors other than the network's (a 4xx answer is logged by Chromium
    itself as a failed resource, whatever the page does with it)."""
    return [e for e in d.get_log("browser")
            if e["level"] == "SEVERE" and e.get("source") != "network"]


# --- the tests ---------------------------------------------------------------------------

def test_a_mat_file_reviewed_and_stepped_through_to_its_last_decision(server, browser):
    base, _ = server
    d = browser
    report = _cli_report(MAT)
    decisions = _decisions(report)
    _upload(d, base, MAT)
    assert "error" not in d.find_element(By.ID, "message").get_attribute("class")
    _check_summary(d, report)
    n = len(decisions)
    assert int(_body(d, "steps")) == n and d.find_element(By.ID, "step-count").text == str(n)
    _check_step(d, report, 1)
    assert not d.find_element(By.ID, "previous").is_enabled()
    for k in range(2, n + 1):  # Next, to the last decision, every board checked
        d.find_element(By.ID, "next").click()
        _check_step(d, report, k)
    assert not d.find_element(By.ID, "next").is_enabled()
    assert not d.find_element(By.ID, "last").is_enabled()
    # the marked decisions: one card each, with its board; a click shows it on the board
    marked = [k for k, x in enumerate(decisions, 1) if x["mark"]]
    assert marked, "the file should have marked decisions"
    cards = d.find_elements(By.CSS_SELECTOR, "#marked .marked-decision")
    assert [int(c.get_attribute("data-step")) for c in cards] == marked
    for card, k in zip(cards, marked):
        assert card.find_elements(By.CSS_SELECTOR, "svg g#stack-1")
        assert decisions[k - 1]["action"] in card.text and decisions[k - 1]["best"] in card.text
    cards[0].click()
    _check_step(d, report, marked[0])
    d.find_element(By.ID, "first").click()
    d.find_element(By.ID, "next-marked").click()
    _check_step(d, report, marked[0])
    # the list of every decision marks the same ones
    rows = d.find_elements(By.CSS_SELECTOR, "#decisions tbody tr")
    assert len(rows) == n
    assert [int(r.get_attribute("data-step")) for r in rows
            if "mark-" in (r.get_attribute("class") or "")] == marked
    assert "current" in rows[marked[0] - 1].get_attribute("class")
    assert not _console_errors(d)


def test_an_sgf_file_its_graph_and_the_keyboard(server, browser):
    base, _ = server
    d = browser
    report = _cli_report(SGF)
    assert report["format"] == "sgf"
    decisions = _decisions(report)
    n = len(decisions)
    _upload(d, base, SGF)
    _check_summary(d, report)
    assert int(_body(d, "steps")) == n
    # the graph: one point per decision at player 0's equity; a click jumps there
    points = d.find_elements(By.CSS_SELECTOR, "#graph circle.equity-point")
    assert len(points) == n
    marked = [k for k, x in enumerate(decisions, 1) if x["mark"]]
    assert [int(p.get_attribute("data-step")) for p in points
            if "mark-" in p.get_attribute("class")] == marked
    d.find_element(By.CSS_SELECTOR, f"#graph circle[data-step='{marked[-1]}']").click()
    _check_step(d, report, marked[-1])
    # the keyboard: End, Home and the arrows
    body = d.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.END)
    _check_step(d, report, n)
    body.send_keys(Keys.ARROW_RIGHT)  # past the last: stays
    assert _step(d) == n
    body.send_keys(Keys.ARROW_LEFT)
    _check_step(d, report, n - 1)
    body.send_keys(Keys.HOME)
    _check_step(d, report, 1)
    d.find_element(By.ID, "last").click()
    _check_step(d, report, n)
    assert not _console_errors(d)


def _server_error(base: str, text: str) -> str:
    """The one line POST /review answers ``text`` with."""
    request = urllib.request.Request(f"{base}/review", data=text.encode(), method="POST",
                                     headers={"Content-Type": "text/plain"})
    try:
        urllib.request.urlopen(request, timeout=WAIT)
    except urllib.error.HTTPError as e:
        return json.loads(e.read())["error"]
    raise AssertionError("the file was reviewed")


def test_bad_files_are_answered_with_the_reviews_one_line(server, browser, tmp_path):
    base, api = server
    d = browser

    def refused(path: Path, words: str) -> None:
        _upload(d, base, path, wait_for="error")
        message = d.find_element(By.ID, "message")
        assert "error" in message.get_attribute("class")
        assert message.text.startswith(f"{path.name}: ") and words in message.text, message.text
        assert "\n" not in message.text and "Traceback" not in message.text
        assert not d.find_element(By.ID, "report").is_displayed()
        assert _body(d, "steps") == "0"

    unreadable = tmp_path / "notes.mat"
    unreadable.write_text("hello, this is not a match\n")
    refused(unreadable, _server_error(base, unreadable.read_text()))
    illegal = tmp_path / "illegal.mat"
    text = MAT.read_text()
    assert "61: 13/7 8/7" in text
    illegal.write_text(text.replace("61: 13/7 8/7", "61: 13/3"))  # ten pips with a 6-1
    error = _server_error(base, illegal.read_text())
    assert "illegal" in error
    refused(illegal, error)
    _upload(d, base, illegal, skip=True)  # on_illegal "skip": the rest of the game skipped
    warnings = d.find_element(By.ID, "warnings").text
    assert warnings.startswith("warning: ") and "13/3" in warnings, warnings
    assert "no decisions" in d.find_element(By.ID, "graph").text
    assert _body(d, "steps") == "0" and _body(d, "step") == "0"
    assert d.find_element(By.ID, "next").get_attribute("disabled")
    saved = api.max_review_turns
    api.max_review_turns = 20  # the match has more turns than that
    try:
        refused(MAT, "at most 20 a request")
    finally:
        api.max_review_turns = saved
    assert BIG.stat().st_size > 65536
    refused(BIG, "request body longer than 65536 bytes")
    # and a good file after them is reviewed
    _upload(d, base, MAT)
    assert "error" not in d.find_element(By.ID, "message").get_attribute("class")
    assert d.find_element(By.ID, "report").is_displayed()
    assert not _console_errors(d)


def test_random_clicks_and_keys_on_the_review_page(server, browser):
    """The page's own fuzz: after a review, eighty random clicks on its buttons, the graph,
    the marked cards and the decision list, and random keys: no console error, no answer
    500 (the page never asks the server again after the review), the step always within
    the report."""
    import random
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.keys import Keys
    base, _ = server
    d = browser
    _upload(d, base, MAT)
    d.get_log("browser")  # what came before
    steps = int(_body(d, "steps"))
    rng = random.Random(41)
    keys = [Keys.ARROW_LEFT, Keys.ARROW_RIGHT, Keys.HOME, Keys.END, Keys.ARROW_UP, "x"]
    for _ in range(80):
        try:
            if rng.random() < 0.25:
                d.find_element(By.TAG_NAME, "body").send_keys(rng.choice(keys))
            else:
                clickable = d.execute_script(  # the visible ones, asked of the page at once
                    "return [...document.querySelectorAll('button, #graph circle, .card, "
                    "#decisions tr, summary')].filter(e => e.getClientRects().length)")
                rng.choice(clickable).click()
        except WebDriverException:  # redrawn under the click
            continue
        assert 1 <= _step(d) <= steps
    assert not _console_errors(d)
    assert "error" not in d.find_element(By.ID, "message").get_attribute("class")
