"""The review page of ``gammon serve-http``: a .mat or SGF file reviewed in the browser.

    GET /review/page     the page (``static/review.html``, its script ``static/review.js``
                         served from ``/static/`` with the board's files)
    GET /review/limits   what the page needs to know before it sends a file: the most bytes
                         a body may have, the most turns a review grades, the default marks

The page reads the chosen file, sends its text to ``POST /review`` (``gammon.web.review``,
the report of ``gammon review --json``) and shows the answer: the summary table, the equity
graph, the marked decisions with their boards, and every decision one at a time on the
board (drawn by ``static/draw.js``). The page is not at ``GET /review`` because that path
is the API's, answering POST only (405 to a GET, as every endpoint answers a method it does
not take).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse

from ..http_api import MAX_BYTES, MAX_REVIEW_TURNS, Api

STATIC = Path(__file__).resolve().parent / "static"


def review_page_routes(router: FastAPI, api: Api, Json) -> None:
    """Add the review page and its limits to the application ``router``; ``api``'s limits,
    answered as the response class ``Json`` (the app's own)."""

    @router.get("/review/page", include_in_schema=False)
    async def page():
        return FileResponse(STATIC / "review.html", media_type="text/html",
                            headers={"Cache-Control": "no-cache"})

    @router.get("/review/limits", include_in_schema=False)
    async def limits():
        from gammon.eval.review.marks import Thresholds
        return Json({"max_bytes": MAX_BYTES,
                     "max_turns": getattr(api, "max_review_turns", MAX_REVIEW_TURNS),
                     "thresholds": Thresholds().to_dict()})


__all__ = ["review_page_routes"]
