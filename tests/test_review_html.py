"""The HTML report of ``gammon review`` (``eval.review.html``) and its SVG boards
(``eval.review.svg_board``).

Report objects are built here by hand, valid against the report's schema (checked by
``check_report``), with real boards: the standard start and the plays that
``engine.movegen.legal_plays`` makes from it, a bear-off, checkers on the bar, stacks taller
than five. The pages are checked twice: their structure and escaping with Python's
``html.parser``, and in headless Chromium (selenium), which must log no error and must draw
every marked decision's board with the board's checkers, and the equity graph with one
point per decision. The browser tests skip, saying why, where selenium, Chromium or
chromedriver is missing.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from gammon.engine import files
from gammon.engine.board import borne_off, flip
from gammon.engine.files import WriteError
from gammon.engine.formats import posid, xgid
from gammon.engine.formats.notation import format_play
from gammon.engine.movegen import legal_plays
from gammon.engine.rules import STANDARD, variant
from gammon.eval.review.html import render_report, write_report
from gammon.eval.review.svg_board import POINT_W, STACK, X_RIGHT, Y_MID, board_svg

NAMES = ['<script>alert("0")</script> Zoë & Co', "O'Brien \"the <u>bold</u>\""]
FILE_NAME = "</title><img src=x onerror=alert(1)> match.mat"
WARNING = "game 2, move 3: <i>illegal</i> 7/1 & the rest"  # a key the review may add
THRESHOLDS = {"doubtful": 0.04, "bad": 0.08, "very_bad": 0.16, "lucky": 0.3,
              "very_lucky": 0.6, "unlucky": -0.3, "very_unlucky": -0.6}
MARKS = ("doubtful", "bad", "very bad")
LUCK_MARKS = ("lucky", "very lucky", "unlucky", "very unlucky")
VOID = {"meta", "br", "img", "input", "link", "hr", "area", "base", "col", "embed",
        "source", "track", "wbr"}


# --- the report's schema -----------------------------------------------------------------------

def check_report(report: dict) -> None:
    """Assert that ``report`` has every key of the review's report object, of its type."""
    assert report["format"] in ("mat", "sgf")
    assert isinstance(report["file"], str) and isinstance(report["variant"], str)
    assert isinstance(report["match_length"], int) and report["match_length"] >= 0
    assert isinstance(report["bot"], str) and isinstance(report["plies"], int)
    assert set(report["thresholds"]) >= set(THRESHOLDS)
    assert len(report["players"]) == 2
    for p in report["players"]:
        assert isinstance(p["name"], str)
        for key in ("unforced", "cube_decisions", "points"):
            assert isinstance(p[key], int)
        for key in ("checker_loss", "cube_loss", "checker_error_rate", "cube_error_rate",
                    "error_rate", "pr", "luck", "luck_adjusted"):
            assert isinstance(p[key], float)
        assert set(p["marks"]) == {"doubtful", "bad", "very_bad"}
    for k, g in enumerate(report["games"]):
        assert g["number"] == k + 1 and len(g["score"]) == 2
        assert isinstance(g["crawford"], bool) and g["winner"] in (0, 1, None)
        assert isinstance(g["points"], int)
        for d in g["decisions"]:
            assert d["player"] in (0, 1) and d["kind"] in ("checker", "double", "take")
            assert len(d["board"]) == 26 and all(isinstance(c, int) for c in d["board"])
            assert posid.encode(np.array(d["board"], np.int8)) == d["posid"]
            assert d["xgid"].startswith("XGID=")
            assert (d["dice"] is None) == (d["kind"] != "checker")
            assert d["cube"]["owner"] in (-1, 0, 1) and d["cube"]["value"] >= 1
            assert isinstance(d["action"], str) and isinstance(d["best"], str)
            assert d["loss"] >= 0 and isinstance(d["forced"], bool)
            assert d["mark"] in (None,) + MARKS
            assert d["luck_mark"] in (None,) + LUCK_MARKS
            assert d["luck_mark"] is None or d["luck"] is not None
            assert isinstance(d["equity"], float)
            for o in d["options"]:
                assert isinstance(o["action"], str) and o["loss"] >= 0
                assert o["probabilities"] is None or len(o["probabilities"]) == 5


# --- building reports by hand --------------------------------------------------------------------

def _decision(move, player, kind, board, dice, cube, action, best, loss, options, *,
              mark=None, luck=None, luck_mark=None, equity=0.0, forced=False) -> dict:
    board = np.asarray(board, np.int8)
    return {"move": move, "player": player, "kind": kind,
            "board": [int(c) for c in board], "posid": posid.encode(board),
            "xgid": xgid.encode(board), "dice": None if dice is None else list(dice),
            "cube": dict(cube), "action": action, "best": best, "loss": float(loss),
            "forced": forced, "mark": mark, "luck": luck, "luck_mark": luck_mark,
            "equity": float(equity), "options": options}


def _mark(loss: float):
    for name, key in (("very bad", "very_bad"), ("bad", "bad"), ("doubtful", "doubtful")):
        if loss >= THRESHOLDS[key]:
            return name
    return None


def _checker_play(move, player, board, dice, rng, cube, equity, luck=None, luck_mark=None):
    """A real checker decision: the legal plays of ``board`` and ``dice``, ranked by a
    made-up equity, and the play made: the first that hits, else the last ranked.
    Returns (decision, the board after it from the other side)."""
    plays = legal_plays(board[None], np.array([dice]))
    texts = [format_play(s, h, dice) for s, h in zip(plays.steps, plays.hits)]
    hitting = [k for k in range(len(plays)) if plays.hits[k].any()]
    chosen = hitting[0] if hitting else len(plays) - 1
    values = np.sort(rng.uniform(-0.3, 0.3, len(plays)))[::-1]
    order = list(range(len(plays)))
    rng.shuffle(order)  # which play gets which equity
    equity_of = {k: float(values[r]) for r, k in enumerate(order)}
    ranked = sorted(equity_of, key=lambda k: -equity_of[k])
    best = ranked[0]
    options = [{"action": texts[k], "equity": equity_of[k],
                "loss": equity_of[best] - equity_of[k],
                "probabilities": [0.5, 0.14, 0.01, 0.12, 0.005] if r < 3 else None}
               for r, k in enumerate(ranked)]
    loss = equity_of[best] - equity_of[chosen]
    forced = len(plays) == 1
    d = _decision(move, player, "checker", board, dice, cube, texts[chosen], texts[best], loss,
                  options, mark=None if forced else _mark(loss), luck=luck,
                  luck_mark=luck_mark, equity=equity, forced=forced)
    return d, flip(plays.boards[chosen])


def _cube_decisions(move, player, board, cube, equity):
    """A double (a very bad one, say) and the other player's wrong pass."""
    double = [{"action": "no double", "equity": 0.31, "loss": 0.0, "probabilities":
               [0.62, 0.1, 0.0, 0.05, 0.0]},
              {"action": "double, take", "equity": 0.12, "loss": 0.19, "probabilities": None},
              {"action": "double, pass", "equity": 1.0, "loss": 0.0, "probabilities": None}]
    take = [{"action": "take", "equity": -0.24, "loss": 0.0, "probabilities": None},
            {"action": "pass", "equity": -0.5, "loss": 0.26, "probabilities": None}]
    return [_decision(move, player, "double", board, None, cube, "double", "no double", 0.19,
                      double, mark="very bad", equity=equity),
            _decision(move, 1 - player, "take", flip(board), None, cube, "pass", "take", 0.26,
                      take, mark="very bad", equity=equity)]


def _player(name: str, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return {"name": name, "unforced": int(rng.integers(5, 20)), "cube_decisions": 2,
            "checker_loss": float(rng.uniform(0, 1)), "cube_loss": 0.2,
            "checker_error_rate": float(rng.uniform(0, 30)), "cube_error_rate": 95.0,
            "error_rate": 18.5, "pr": 9.25, "luck": float(rng.uniform(-1, 1)), "points": 1,
            "luck_adjusted": 0.25, "marks": {"doubtful": 1, "bad": 2, "very_bad": 3}}


def bearoff_board() -> np.ndarray:
    """Player on roll bearing off, a tall stack on his 1 point, the opponent with a checker
    on the bar and a tall stack of his own: (26,) int8."""
    b = np.zeros(26, np.int8)
    b[1], b[2], b[4] = 7, 2, 1  # 10 on the board, 5 borne off
    b[0] = -1  # the opponent's bar
    b[19], b[20], b[24] = -6, -3, -2  # 12 more of his: 2 borne off
    return b


def build_report() -> dict:
    """A two-game match to 5 with real boards: game 1 from the start (plays of
    ``legal_plays``, hits, a cube action, a luck-marked roll), game 2 a bear-off."""
    rng = np.random.default_rng(7)
    rolls = [(3, 1), (6, 4), (5, 2), (4, 4), (6, 5), (2, 1), (6, 6), (5, 3), (4, 2), (1, 1)]
    board, player, equity = STANDARD.start_board().copy(), 0, 0.0
    centred = {"value": 1, "owner": -1}
    game1 = []
    for move, dice in enumerate(rolls, start=1):
        if move == 6:  # player 1 doubles (badly) and player 0 passes (wrongly)
            game1 += _cube_decisions(move, player, board, centred, equity)
            cube = {"value": 2, "owner": 1 - player}
        else:
            cube = centred if move < 6 else {"value": 2, "owner": 0}
        luck = float(rng.uniform(-0.8, 0.8))
        luck_mark = ("very lucky" if luck > 0.6 else "lucky" if luck > 0.3 else
                     "very unlucky" if luck < -0.6 else "unlucky" if luck < -0.3 else None)
        d, board = _checker_play(move, player, board, dice, rng, cube, equity, luck, luck_mark)
        game1.append(d)
        equity = float(np.clip(equity + rng.normal(0, 0.3), -2, 2))
        player = 1 - player
    b = bearoff_board()
    d_last, _ = _checker_play(1, 1, b, (6, 2), rng, {"value": 2, "owner": 1}, 1.4,
                              luck=-0.7, luck_mark="very unlucky")
    d_last["mark"] = d_last["mark"] or "doubtful"
    game2 = [d_last, _checker_play(2, 0, flip(b), (2, 1), rng, {"value": 2, "owner": 1},
                                   -1.2)[0]]
    report = {
        "format": "mat", "file": FILE_NAME, "variant": "standard", "match_length": 5,
        "bot": "net:", "plies": 0, "thresholds": dict(THRESHOLDS),
        "players": [_player(NAMES[0], 1), _player(NAMES[1], 2)],
        "games": [
            {"number": 1, "score": [0, 0], "crawford": False, "winner": 1, "points": 1,
             "decisions": game1},
            {"number": 2, "score": [0, 1], "crawford": False, "winner": None, "points": 0,
             "decisions": game2, "warning": WARNING},
        ]}
    check_report(report)
    return report


def marked(report) -> list[tuple[int, int, dict]]:
    """(game number, index in the game, decision) of every marked decision or roll."""
    return [(g["number"], i, d) for g in report["games"] for i, d in enumerate(g["decisions"])
            if d["mark"] or d["luck_mark"]]


def expected_cells(d: dict, checkers: int = 15) -> Counter:
    """The checkers the board of ``d`` must show: {(cell, player): count}, with the
    borne-off ones under cell "off"."""
    board, mover = np.array(d["board"]), d["player"]
    want = Counter()
    for cell, n in enumerate(board):
        if n:
            want[(str(cell), mover if n > 0 else 1 - mover)] += abs(int(n))
    off = borne_off(board[None].astype(np.int8), checkers)
    for who, n in ((mover, int(off[0][0])), (1 - mover, int(off[1][0]))):
        if n:
            want[("off", who)] = n
    return want


@pytest.fixture(scope="module")
def report():
    return build_report()


@pytest.fixture(scope="module")
def page(report):
    return render_report(report)


# --- (a) structure and escaping, by html.parser ---------------------------------------------------

class Page(HTMLParser):
    """The elements of a page, its text, and whether every element closes in order."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.elements, self.text = [], [], [], []
        self.current_classes = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elements.append((tag, a, tuple(self.stack)))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs), tuple(self.stack)))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:]}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)

    def find(self, tag, cls=None):
        return [(t, a, s) for t, a, s in self.elements
                if t == tag and (cls is None or cls in (a.get("class") or "").split())]


def parse(text: str) -> Page:
    p = Page()
    p.feed(text)
    p.close()
    return p


def test_page_structure(report, page):
    p = parse(page)
    assert p.errors == [] and p.stack == []
    assert page.startswith("<!DOCTYPE html>")
    sections = p.find("section", "game")
    assert [a["data-game"] for _, a, _ in sections] == ["1", "2"]
    divs = p.find("div", "decision")
    want = marked(report)
    assert len(want) >= 6  # checker marks, cube marks, luck marks in the test's match
    assert [(a["data-game"], a["data-index"]) for _, a, _ in divs] == \
        [(str(g), str(i)) for g, i, _ in want]
    assert len(p.find("svg", "board")) == len(want)  # one board per marked decision
    # every board inside its decision, every decision inside its game's section
    for _, _, ancestors in p.find("svg", "board"):
        assert "div" in ancestors and "section" in ancestors
    # the summary: one column per player, and the equity graph with a point per decision
    assert len(p.find("th", "player")) == 2
    total = sum(len(g["decisions"]) for g in report["games"])
    assert len(p.find("circle", "equity-point")) == total
    assert len(p.find("line", "game-boundary")) == len(report["games"]) - 1
    # every decision of each game in its table
    assert len([1 for t, a, s in p.elements if t == "tr" and "data-index" in a]) == total


def test_page_escapes_every_string_from_the_file(report, page):
    p = parse(page)
    text = "".join(p.text)
    for name in NAMES:
        assert name in text  # shown as text, every character of it
    assert FILE_NAME in text and WARNING in text
    assert p.find("script") == [] and p.find("img") == [] and p.find("u") == [] \
        and p.find("i") == []
    assert "<script>" not in page and "<img" not in page and "<u>" not in page
    for _, attrs, _ in p.elements:  # no handler came in through an attribute
        assert not any(k.startswith("on") for k in attrs)


def test_page_needs_no_network(page):
    p = parse(page)
    for tag, attrs, _ in p.elements:
        assert "src" not in attrs, tag
        href = attrs.get("href")
        assert href is None or href.startswith("#"), href
        if tag in ("link", "script", "iframe", "object", "embed", "image", "use"):
            pytest.fail(f"the page loads something: <{tag} {attrs}>")
    # the only address is the SVG namespace, which nothing fetches
    assert page.replace('xmlns="http://www.w3.org/2000/svg"', "").count("//") == 0
    assert "@import" not in page and "url(" not in page


def svg_checkers(svg: str) -> Counter:
    """{(cell, player): checkers} a board's SVG shows, read from its data attributes."""
    p = parse(svg)
    got = Counter()
    per_cell = Counter()
    for _, a, _ in p.find("circle", "checker"):
        got[(a["data-cell"], int(a["data-player"]))] += int(a["data-count"])
        per_cell[a["data-cell"]] += 1
    for _, a, _ in p.find("rect", "off"):
        got[("off", int(a["data-player"]))] += 1
    assert max(per_cell.values(), default=0) <= STACK  # never more than five drawn
    return got


def test_boards_show_every_checker_of_the_corpus(corpus):
    """Every board of the move-generation corpus (standard, Nackgammon, Hypergammon),
    from either player's side: the checkers drawn add up to the board's."""
    for case in corpus[::4]:
        checkers = variant(case["variant"]).checkers
        board = np.array(case["board28"][:26], np.int8)
        for player in (0, 1):
            d = {"board": board.tolist(), "player": player}
            svg = board_svg(board, player, dice=(case["d1"], case["d2"]), checkers=checkers)
            assert svg_checkers(svg) == expected_cells(d, checkers), case["case"]


def test_board_layout_follows_gnubg():
    """Player 0 on top and player 1 at the bottom whoever is on roll; the numbers are the
    mover's; a tall stack shows its count; dice and cube as given."""
    start = STANDARD.start_board()
    for player in (0, 1):
        svg = board_svg(start, player, dice=(6, 5), cube={"value": 4, "owner": 1})
        p = parse(svg)
        # each player's back checkers (his own 24 point): player 0's at the bottom right,
        # player 1's at the top right, whoever is on roll
        for owner in (0, 1):
            cell = "24" if owner == player else "1"  # cells are the mover's
            ys = [float(a["cy"]) for _, a, _ in p.find("circle", "checker")
                  if a["data-cell"] == cell and a["data-player"] == str(owner)]
            xs = [float(a["cx"]) for _, a, _ in p.find("circle", "checker")
                  if a["data-cell"] == cell and a["data-player"] == str(owner)]
            assert len(ys) == 2
            assert all((y > Y_MID) == (owner == 0) for y in ys)
            assert min(xs) > X_RIGHT + 5 * POINT_W  # the point beside the trays
        # the numbers are the mover's: his 24 point is where his back checkers stand
        labels = [t for t in parse(svg).text if t.isdigit()]
        top_row = labels[labels.index("13") if player == 1 else labels.index("12"):][:6]
        assert top_row == (["13", "14", "15", "16", "17", "18"] if player == 1 else
                           ["12", "11", "10", "9", "8", "7"])
        assert [a["data-value"] for _, a, _ in p.find("g", "die")] == ["6", "5"]
        (cube,) = p.find("g", "cube")
        assert (cube[1]["data-value"], cube[1]["data-owner"]) == ("4", "1")
        assert p.find("polygon", "on-roll")[0][1]["data-player"] == str(player)
    tall = bearoff_board()
    p = parse(board_svg(tall, 1))
    assert "7" in [t for t in p.text]  # the 1 point's seven checkers, five drawn
    counts = [int(a["data-count"]) for _, a, _ in p.find("circle", "checker")
              if a["data-cell"] == "1"]
    assert counts == [1, 1, 1, 1, 3]
    centred = parse(board_svg(start, 0, cube=(1, -1)))
    assert "64" in centred.text  # a centred 1-cube shows 64


def test_board_refuses_what_the_engine_refuses():
    start = STANDARD.start_board()
    with pytest.raises(ValueError, match="26 cells"):
        board_svg(start[:25], 0)
    bad = start.copy()
    bad[0] = 1
    with pytest.raises(ValueError, match="bar"):
        board_svg(bad, 0)
    with pytest.raises(ValueError, match="dice"):
        board_svg(start, 0, dice=(7, 1))
    with pytest.raises(ValueError, match="power of two"):
        board_svg(start, 0, cube=(3, -1))
    with pytest.raises(ValueError, match="0 or 1"):
        board_svg(start, 2)


# --- writing the page ---------------------------------------------------------------------------

def test_write_report_is_atomic(report, tmp_path, monkeypatch):
    out = tmp_path / "review.html"
    write_report(report, out)
    assert out.read_text(encoding="utf-8") == render_report(report)
    out.write_text("the previous page")

    def full(target, fd, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files, "_write", full)
    with pytest.raises(WriteError) as e:
        write_report(report, out)
    assert str(e.value) == f"cannot write {out}: No space left on device"
    assert out.read_text() == "the previous page"  # untouched, no temporary left
    assert sorted(x.name for x in tmp_path.iterdir()) == ["review.html"]


def test_write_report_to_a_missing_folder(report, tmp_path):
    out = tmp_path / "no" / "such" / "review.html"
    with pytest.raises(WriteError) as e:
        write_report(report, out)
    assert "\n" not in str(e.value) and str(e.value).startswith(f"cannot write {out}")
    assert not (tmp_path / "no").exists()


def test_empty_match(report):
    empty = dict(report, games=[])
    p = parse(render_report(empty))
    assert p.errors == [] and p.find("section", "game") == []
    assert p.find("circle", "equity-point") == []


# --- (b) in headless Chromium --------------------------------------------------------------------

def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _chromedriver() -> str | None:
    if os.access("/usr/bin/chromedriver", os.X_OK):
        return "/usr/bin/chromedriver"
    return shutil.which("chromedriver")


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for the module's page tests; skips where one is missing."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    from selenium.webdriver.chrome.service import Service
    binary, driver_path = _chromium(), _chromedriver()
    if binary is None:
        pytest.skip("no Chromium on PATH (Debian: apt-get install chromium)")
    if driver_path is None:
        pytest.skip("no chromedriver (Debian: apt-get install chromium-driver)")
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--window-size=1200,900"):
        options.add_argument(arg)
    options.binary_location = binary
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    try:
        yield driver
    finally:
        driver.quit()


READ_BOARDS = """
return Array.from(document.querySelectorAll('div.decision')).map(div => {
  const svg = div.querySelector('svg.board');
  if (!svg) return {game: div.dataset.game, index: div.dataset.index, svg: false};
  const box = svg.getBBox(), rect = svg.getBoundingClientRect();
  const checkers = Array.from(svg.querySelectorAll('circle.checker')).map(c => {
    const b = c.getBBox();
    return [c.dataset.cell, +c.dataset.player, +c.dataset.count, b.width, b.height];
  });
  const off = Array.from(svg.querySelectorAll('rect.off')).map(r =>
    [+r.dataset.player, r.getBBox().height]);
  return {game: div.dataset.game, index: div.dataset.index, svg: true,
          box: [box.width, box.height], rect: [rect.width, rect.height],
          points: svg.querySelectorAll('polygon.point').length, checkers: checkers, off: off,
          dice: Array.from(svg.querySelectorAll('g.die')).map(g => +g.dataset.value),
          cube: Array.from(svg.querySelectorAll('g.cube')).map(g =>
            [+g.dataset.value, +g.dataset.owner, g.getBBox().width])};
});
"""

READ_GRAPH = """
const svg = document.querySelector('svg.graph');
const box = svg.getBBox();
return {box: [box.width, box.height],
        points: Array.from(svg.querySelectorAll('circle.equity-point')).map(c =>
          [+c.dataset.game, +c.dataset.index, c.getBBox().width, +c.getAttribute('cy')]),
        boundaries: svg.querySelectorAll('line.game-boundary').length,
        scripts: document.querySelectorAll('script').length,
        names: Array.from(document.querySelectorAll('th.player')).map(t => t.textContent)};
"""


def open_page(browser, path: Path):
    browser.get_log("browser")  # drop what an earlier page logged
    browser.get(path.resolve().as_uri())
    return [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def check_in_browser(browser, path: Path, report: dict) -> None:
    """The page at ``path`` opens without errors and draws what ``report`` holds."""
    errors = open_page(browser, path)
    assert errors == []
    boards = browser.execute_script(READ_BOARDS)
    want = marked(report)
    assert [(b["game"], b["index"]) for b in boards] == [(str(g), str(i)) for g, i, _ in want]
    checkers = variant(report["variant"]).checkers
    for b, (_, _, d) in zip(boards, want):
        assert b["svg"] and min(b["box"]) > 100 and min(b["rect"]) > 100, b
        assert b["points"] == 24
        got = Counter()
        for cell, player, count, width, height in b["checkers"]:
            assert width > 0 and height > 0
            got[(cell, player)] += count
        for player, height in b["off"]:
            assert height > 0
            got[("off", player)] += 1
        assert got == expected_cells(d, checkers), (b["game"], b["index"])
        assert b["dice"] == (list(d["dice"]) if d["dice"] else [])
        assert len(b["cube"]) == 1 and b["cube"][0][:2] == [d["cube"]["value"],
                                                            d["cube"]["owner"]]
        assert b["cube"][0][2] > 0
    graph = browser.execute_script(READ_GRAPH)
    assert min(graph["box"]) > 0
    assert [(g, i) for g, i, _, _ in graph["points"]] == \
        [(g["number"], i) for g in report["games"] for i in range(len(g["decisions"]))]
    assert all(w > 0 for _, _, w, _ in graph["points"])
    # higher equity of player 0 is drawn higher (smaller y)
    equities = [d["equity"] for g in report["games"] for d in g["decisions"]]
    hi, lo = int(np.argmax(equities)), int(np.argmin(equities))
    if equities[hi] > equities[lo]:
        assert graph["points"][hi][3] < graph["points"][lo][3]
    assert graph["boundaries"] == len(report["games"]) - 1
    assert graph["scripts"] == 0
    assert graph["names"] == [p["name"] for p in report["players"]]


def test_page_in_chromium(browser, report, tmp_path):
    path = tmp_path / "review.html"
    write_report(report, path)
    check_in_browser(browser, path, report)


def test_chromium_reports_errors(browser, tmp_path):
    """The check can fail: a broken SVG attribute is an error Chromium logs."""
    path = tmp_path / "broken.html"
    path.write_text('<!DOCTYPE html><svg><rect width="10/" height="3"/></svg>')
    assert open_page(browser, path) != []


# --- end to end: a saved match, reviewed by `gammon review --html`, in Chromium --------------------

def test_review_of_a_saved_game_in_chromium(browser, tmp_path):
    """``gammon match --save`` then ``gammon review F.mat --html``: the page of a real review
    (the shipped net at 0-ply) opens without errors and draws every marked decision's
    board with its checkers, and the graph with a point per decision. The commands run in
    this process (``tests/inprocess.py``), as the command line runs them."""
    from inprocess import gammon

    saved, page = tmp_path / "F.mat", tmp_path / "out.html"
    done = gammon("match", "pubeval", "heuristic", "--games", "1", "--no-pairing",
                  "--seed", "3", "--save", saved, "--no-progress")
    assert done.returncode == 0, done.stderr
    done = gammon("review", saved, "--html", page, "--json", "--no-progress")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    check_report(report)
    assert marked(report)  # a real game has marked decisions to draw
    check_in_browser(browser, page, report)
    assert page.read_text(encoding="utf-8") == render_report(report)
