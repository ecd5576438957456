"""Make docs/board.png: the board in the browser (``gammon serve-http``'s page at ``/``) as
headless Chromium shows it, a few turns into a money game against the bot, with a hint.

    python docs/make_board_screenshot.py [--bot net:] [--seed 2026] [--turns 4]
                                         [--variant NAME] [--out docs/board.png]
                                         [--size 1300,1180]
    python docs/make_board_screenshot.py --variant plakoto --seed 6 --turns 5 \
                                         --out docs/plakoto.png

The server runs in this process on a free port; the person's plays are the first legal
play the page lists that hits (in Plakoto: pins), else the first, made by clicking its
steps. Needs the web extra, selenium, Chromium
and chromedriver (Debian: chromium, chromium-driver).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # chromium.py


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bot", default="net:", help="the server's bot (default: net:)")
    p.add_argument("--seed", type=int, default=2026, help="the game's dice (default: 2026)")
    p.add_argument("--turns", type=int, default=4, help="the person's turns played first")
    p.add_argument("--variant", default="standard", help="the variant chosen on the page "
                                                         "(default: standard)")
    p.add_argument("--out", default=str(ROOT / "docs" / "board.png"))
    p.add_argument("--size", default="1300,1180", help="the window, WIDTH,HEIGHT")
    args = p.parse_args(argv)
    import chromium  # tests/chromium.py: the browser the page tests use
    why = chromium.missing()
    if why:
        print(f"make_board_screenshot: {why}", file=sys.stderr)
        return 2
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from gammon.engine.files import WriteError, write_atomic
    from gammon.eval.bots.cube import probability_source
    from gammon.eval.bots.registry import make_bot
    from gammon.http_api import Api
    from gammon.web.server import WebServer

    bot = make_bot(args.bot)
    server = WebServer(Api(bot, args.bot, evaluate=probability_source(bot)), "127.0.0.1",
                       0).start()
    d = chromium.start(args.size, ("--hide-scrollbars",))
    try:
        def version() -> int:
            return int(d.find_element(By.TAG_NAME, "body").get_attribute("data-version") or 0)

        def press(element_id: str) -> None:
            before = version()
            d.find_element(By.ID, element_id).click()
            WebDriverWait(d, 20).until(lambda _: version() > before)

        def phase() -> str:
            return d.find_element(By.TAG_NAME, "body").get_attribute("data-phase")

        d.get(f"http://127.0.0.1:{server.port}/?start=0&seed={args.seed}"
              f"&variant={args.variant}")
        press("new-game")
        turns = 0
        while phase() in ("roll", "move", "answer"):
            if phase() == "roll":
                press("roll")
            elif phase() == "answer":
                press("take")
            elif turns == args.turns:
                break
            else:
                plays = d.find_elements(By.CSS_SELECTOR, "#legal-plays .legal-play")
                hitting = [li for li in plays if "true" in li.get_attribute("data-hits")]
                steps = json.loads((hitting or plays)[0].get_attribute("data-steps"))
                for source, target in steps:
                    for point in (source, target):
                        place = {25: "bar-you", 0: "off-you"}.get(point, f"point-{point}")
                        d.find_element(By.ID, place).click()
                press("done")
                turns += 1
        if phase() == "move":
            d.find_element(By.ID, "hint").click()
            WebDriverWait(d, 20).until(lambda _: d.find_element(By.ID, "hints").is_displayed())
        png = d.get_screenshot_as_png()
    finally:
        d.quit()
        server.stop()
    try:
        write_atomic(args.out, png)
    except WriteError as e:
        print(f"make_board_screenshot: cannot write {args.out}: {e.reason}", file=sys.stderr)
        return 1
    print(f"wrote {args.out} ({len(png):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
