"""Make docs/review-page.png: the review page of ``gammon serve-http`` (``/review/page``) as
headless Chromium shows it, with a real match reviewed and a marked decision on the board.

    python docs/make_review_page_screenshot.py [--bot net:] [--file FILE]
                                               [--out docs/review-page.png] [--size 1300,1500]

The server runs in this process on a free port; the file (by default a 7-point match two
people played in GNU Backgammon, tests/data/real/gnubg/) is chosen in the page's file input
and sent, then the first decision marked bad or very bad is picked on the equity graph.
Needs the web extra, selenium, Chromium and chromedriver (Debian: chromium,
chromium-driver).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # chromium.py
FILE = ROOT / "tests" / "data" / "real" / "gnubg" / "charlot1-charlot2_7p_2025-11-08-2305.mat"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bot", default="net:", help="the server's bot (default: net:)")
    p.add_argument("--file", default=str(FILE), help="the .mat or SGF file to review")
    p.add_argument("--out", default=str(ROOT / "docs" / "review-page.png"))
    p.add_argument("--size", default="1300,1500", help="the window, WIDTH,HEIGHT")
    args = p.parse_args(argv)
    import chromium  # tests/chromium.py: the browser the page tests use
    why = chromium.missing()
    if why:
        print(f"make_review_page_screenshot: {why}", file=sys.stderr)
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
        def body(name: str) -> str:
            return d.find_element(By.TAG_NAME, "body").get_attribute(f"data-{name}")

        d.get(f"http://127.0.0.1:{server.port}/review/page")
        WebDriverWait(d, 20).until(lambda _: d.find_element(By.ID, "limits").text)
        d.find_element(By.ID, "file").send_keys(str(Path(args.file).resolve()))
        d.find_element(By.ID, "review").click()
        WebDriverWait(d, 300).until(lambda _: body("state") in ("report", "error"))
        if body("state") != "report":
            message = d.find_element(By.ID, "message").text
            print(f"make_review_page_screenshot: {message}", file=sys.stderr)
            return 1
        worst = d.find_elements(By.CSS_SELECTOR, "#graph circle.mark-bad, "
                                                 "#graph circle.mark-very-bad")
        if worst:
            worst[0].click()
        d.execute_script("window.scrollTo(0, 0)")
        png = d.get_screenshot_as_png()
    finally:
        d.quit()
        server.stop()
    try:
        write_atomic(args.out, png)
    except WriteError as e:
        print(f"make_review_page_screenshot: cannot write {args.out}: {e.reason}",
              file=sys.stderr)
        return 1
    print(f"wrote {args.out} ({len(png):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
