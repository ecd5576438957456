"""Make docs/review.png: the HTML report of ``gammon review`` as headless Chromium shows it.

    python docs/make_review_screenshot.py [--out docs/review.png] [--size 1200,1800]

Where ``gammon review`` exists it reviews a real match: a 3-point match of pubeval
against the heuristic bot, saved by ``gammon match`` (seed 3), reviewed by the shipped net at
0-ply with ``--html``. Without it the page is drawn from a small hand-built report (real
boards and plays from the start position, made-up equities, said so in the page's file
name). Needs selenium, Chromium and chromedriver (Debian: chromium, chromium-driver).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MATCH = ["gammon", "match", "pubeval", "heuristic", "--match-to", "3", "--matches", "2",
         "--seed", "3", "--no-progress"]


def has_review() -> bool:
    if shutil.which("gammon") is None:
        return False
    done = subprocess.run(["gammon", "review", "--help"], capture_output=True)
    return done.returncode == 0


def real_page(folder: Path) -> Path:
    """A real match, saved and reviewed: the page's path."""
    subprocess.run(MATCH + ["--save", "match.mat"], check=True, capture_output=True,
                   cwd=folder)
    first = sorted(folder.glob("match_*.mat"))[0]
    subprocess.run(["gammon", "review", first.name, "--html", "review.html", "--no-progress"],
                   check=True, capture_output=True, cwd=folder)  # the page names the file
    return folder / "review.html"


def hand_built_page(folder: Path) -> Path:
    """A report built here from the start position and a few real plays."""
    sys.path.insert(0, str(ROOT))
    import numpy as np

    from gammon.engine.board import flip
    from gammon.engine.formats import posid, xgid
    from gammon.engine.formats.notation import format_play
    from gammon.engine.movegen import legal_plays
    from gammon.engine.rules import STANDARD
    from gammon.eval.review.html import write_report

    board, player, decisions = STANDARD.start_board().copy(), 0, []
    for move, dice in enumerate([(3, 1), (6, 4), (5, 5), (6, 2), (4, 3), (2, 1)], start=1):
        plays = legal_plays(board[None], np.array([dice]))
        texts = [format_play(s, h, dice) for s, h in zip(plays.steps, plays.hits)]
        equities = -0.01 * np.arange(len(plays))  # made up: the generator's order
        chosen = min(len(plays) - 1, 3 * (move % 2))
        loss = float(equities[0] - equities[chosen])
        mark = "bad" if loss >= 0.03 else None
        decisions.append({
            "move": (move + 1) // 2, "player": player, "kind": "checker",
            "board": [int(c) for c in board], "posid": posid.encode(board),
            "xgid": xgid.encode(board), "dice": list(dice),
            "cube": {"value": 1, "owner": -1}, "action": texts[chosen], "best": texts[0],
            "loss": loss, "forced": False, "mark": mark, "luck": 0.0, "luck_mark": None,
            "equity": 0.05 * (-1) ** move,
            "options": [{"action": t, "equity": float(e), "loss": float(equities[0] - e),
                         "probabilities": None} for t, e in zip(texts[:5], equities)]})
        board, player = flip(plays.boards[chosen]), 1 - player
    player_stats = {"unforced": 3, "cube_decisions": 0, "checker_loss": 0.03,
                    "cube_loss": 0.0, "checker_error_rate": 10.0, "cube_error_rate": 0.0,
                    "error_rate": 10.0, "pr": 5.0, "luck": 0.0, "points": 0,
                    "luck_adjusted": 0.0, "marks": {"doubtful": 0, "bad": 1, "very_bad": 0}}
    report = {"format": "mat", "file": "hand-built example (made-up equities)",
              "variant": "standard", "match_length": 0, "bot": "none", "plies": 0,
              "thresholds": {"doubtful": 0.04, "bad": 0.08, "very_bad": 0.16, "lucky": 0.3,
                             "very_lucky": 0.6, "unlucky": -0.3, "very_unlucky": -0.6},
              "players": [dict(player_stats, name="Alice"), dict(player_stats, name="Bob")],
              "games": [{"number": 1, "score": [0, 0], "crawford": False, "winner": None,
                         "points": 0, "decisions": decisions}]}
    page = folder / "review.html"
    write_report(report, page)
    return page


def screenshot(page: Path, out: Path, size: str) -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                f"--window-size={size}", "--hide-scrollbars"):
        options.add_argument(arg)
    driver_path = "/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").exists() \
        else shutil.which("chromedriver")
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    try:
        driver.get(page.resolve().as_uri())
        png = driver.get_screenshot_as_png()
    finally:
        driver.quit()
    sys.path.insert(0, str(ROOT))
    from gammon.engine.files import write_atomic
    write_atomic(out, png)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "review.png"))
    parser.add_argument("--size", default="1200,1800", help="the window, WIDTH,HEIGHT")
    parser.add_argument("--hand-built", action="store_true",
                        help="draw the hand-built report even where gammon review exists")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        real = has_review() and not args.hand_built
        page = real_page(Path(folder)) if real else hand_built_page(Path(folder))
        screenshot(page, Path(args.out), args.size)
    print(f"wrote {args.out} from {'a real review' if real else 'the hand-built report'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
