"""The ASGI application of ``gammon serve-http``: ``make_app(api)``.

Endpoints (GET with query parameters, or POST with the same fields as a JSON object):

    /move      posid, dice                          the legal plays ranked by the bot
    /eval      posid                                probabilities, equities, cube action
    /rollout   posid, trials, seed, truncate, ...   a Monte-Carlo rollout (gammon rollout)
    /review    a .mat or SGF file (POST)            every decision graded (gammon review)
    /review/page   the review in the browser (a page: ``gammon.web.review_page``)
    /api       what the server offers (GET)
    /          the board in the browser (a page; the game API: ``gammon.web.board``)
    /docs      Swagger UI, served from this server (no file fetched from outside)
    /openapi.json   the OpenAPI description of every endpoint, field and answer

Every field has a pydantic model (``schemas.py``), so that ``/openapi.json`` and ``/docs``
describe it; the answers are those of ``gammon.http_api.Api``, declared by response models.

Errors are JSON objects ``{"error": "...", "field": "..."}``: 422 for a bad field (named),
404 an unknown path, 405 another method (with ``Allow``), 413 a body over ``MAX_BYTES``,
414 a request target over ``MAX_QUERY`` characters, 431 more than ``MAX_HEADERS`` header
lines or a header section over ``MAX_BYTES`` (those four by ``guard.Guard``), 503 too many
rollouts at once or a server stopping; 500 only for a bug, logged in one line.

Threads (``threads.py``): the event loop reads requests and checks their fields; one thread
(``BotThread``) asks the bot, jobs in the order they come. The ``/move`` questions that wait
meanwhile go to the bot as one batch (``AsyncBatcher``; the rankings are those of each
alone); ``/eval`` asks one position at a time (a net's floats in a batch differ from alone
in the last bits). A rollout runs in a thread of its own and sends its trials to the bot
thread ``ROLLOUT_CHUNK`` at a time, so the requests that come meanwhile are answered between
chunks.
"""

import json
import threading
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, JSONResponse
from starlette.exceptions import HTTPException

from ..errors import quote
from ..http_api import (EVAL_FIELDS, MAX_BYTES, MAX_QUERY, MOVE_FIELDS, ROLLOUT_FIELDS, Api,
                        BadRequest, RolloutStopped, error_body)
from .guard import MAX_HEADERS, Guard
from .review import review_route
from .review_page import review_page_routes
from .schemas import (ErrorAnswer, EvalAnswer, EvalRequest, IndexAnswer, MoveAnswer,
                      MoveRequest, RolloutAnswer, rollout_request)
from .threads import AsyncBatcher, BotThread, in_thread

ROLLOUTS = 2  # rollouts played at once; more are answered 503
ENDPOINTS = ("/move", "/eval", "/rollout")
DOCS_FILES = {"swagger-ui-bundle.js": "text/javascript", "swagger-ui.css": "text/css",
              "favicon.png": "image/png"}


def docs_folder() -> Path:
    """Swagger UI's files (5.x, for OpenAPI 3.1), as the fastapi-offline package ships them."""
    import fastapi_offline
    return Path(fastapi_offline.__file__).resolve().parent / "static"


class Json(JSONResponse):
    """JSON as the API always wrote it: ``json.dumps`` and a newline."""

    def render(self, content: Any) -> bytes:
        return (json.dumps(content) + "\n").encode()


# --- errors ---------------------------------------------------------------------------------

def _errors(*codes: int) -> dict:
    """The error answers an endpoint documents (``responses=`` of a route)."""
    words = {404: "no such endpoint", 405: "a method the endpoint does not answer",
             413: f"a body over {MAX_BYTES} bytes",
             414: f"a request target over {MAX_QUERY} characters",
             422: "a bad or missing field, named in 'field'",
             431: f"more than {MAX_HEADERS} header lines or over {MAX_BYTES} bytes of them",
             503: f"more than {ROLLOUTS} rollouts at once, or the server stopping"}
    return {code: {"model": ErrorAnswer, "description": words[code]} for code in codes}


def _validation_message(errors: list[dict], path: str) -> tuple[str, str | None]:
    """One line naming the field of the first error (and how many more there are)."""
    first = errors[0]
    loc = [str(x) for x in first.get("loc", ())]
    where = loc[0] if loc else "body"
    names = [x for x in loc[1:] if not x.isdigit()]
    field = names[0] if names else None
    kind = "parameter" if where == "query" else "field"
    kind_of = {"/move": MOVE_FIELDS, "/eval": EVAL_FIELDS, "/rollout": ROLLOUT_FIELDS}
    if field is None:
        message = f"request body: {first.get('msg', 'not valid')}"
    elif first.get("type") == "missing":
        message = f"missing {kind} {field!r}"
    elif first.get("type") == "extra_forbidden":
        message = f"unknown {kind} {quote(field)}" + (
            f"; {path} takes {', '.join(kind_of[path])}" if path in kind_of else "")
    else:
        message = f"{kind} {field!r}: {first.get('msg', 'not valid')}"
        given = first.get("input")
        if isinstance(given, (str, int, float, bool)) and first.get("type") != "json_invalid":
            message += f", got {quote(given)}"
    if len(errors) > 1:
        message += f" (and {len(errors) - 1} more)"
    return message, field


async def _one_value_each(request: Request) -> None:
    """A dependency of the GET endpoints: a parameter given twice is an error (the first
    and the last would say different things)."""
    seen: dict[str, int] = {}
    for name, _ in request.query_params.multi_items():
        seen[name] = seen.get(name, 0) + 1
    for name, count in seen.items():
        if count > 1:
            raise BadRequest(f"parameter {quote(name)} given {count} times", name)


# --- the application -------------------------------------------------------------------

DESCRIPTION = """\
The bot of `gammon serve-http` as a JSON API. Each endpoint answers GET with query
parameters and POST with the same fields as a JSON object. Positions are GNU Backgammon
Position IDs from the player on roll's side; in a URL a `+` is written `%2B`.

Errors are JSON objects `{"error": "...", "field": "..."}`: 422 for a bad or missing field
(named), 404 an unknown path, 405 another method, 413 a body over 64 KB, 414 a request
target over 2,048 characters, 431 headers over 64 KB or 100 lines, 503 too many rollouts at
once; 408 for a request not complete within the server's --timeout, 503 past its
--max-clients connections.
"""


def make_app(api: Api, bot: BotThread | None = None) -> FastAPI:
    """The FastAPI application answering with ``api``; its bot asked by ``bot`` (default: a
    new ``BotThread``, also at ``app.state.bot``)."""
    bot = bot or BotThread()
    moves = AsyncBatcher(api.rank, bot)
    rollouts = {"running": 0}
    RolloutRequest = rollout_request(api.max_trials)

    app = FastAPI(title="gammon serve-http", version="1", description=DESCRIPTION,
                  docs_url=None, redoc_url=None, openapi_url="/openapi.json",
                  default_response_class=Json,
                  swagger_ui_parameters={"validatorUrl": None})
    stopping = threading.Event()  # set when the server stops: rollouts end at a chunk
    app.state.api, app.state.bot, app.state.stopping = api, bot, stopping

    @app.exception_handler(BadRequest)
    async def bad_request(request: Request, exc: BadRequest):
        return Json(error_body(str(exc), exc.field), status_code=422)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError):
        message, field = _validation_message(list(exc.errors()), request.url.path)
        return Json(error_body(message, field), status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException):
        headers = dict(exc.headers or {})
        if exc.status_code == 404:
            message = (f"no such endpoint {quote(request.url.path)}; try "
                       f"{', '.join(ENDPOINTS[:-1])} or {ENDPOINTS[-1]}")
        elif exc.status_code == 405:
            allowed = ", ".join(sorted({m for r in app.routes
                                        if getattr(r, "path", None) == request.url.path
                                        for m in getattr(r, "methods", ()) or ()}))
            headers = {k: v for k, v in headers.items() if k.lower() != "allow"}
            headers["Allow"] = allowed
            message = (f"method {quote(request.method)} not allowed; "
                       f"{request.url.path} answers {allowed}")
        else:
            message = str(exc.detail)
        return Json(error_body(message), status_code=exc.status_code, headers=headers)

    one_each = [Depends(_one_value_each)]

    async def move(request: MoveRequest):
        text, question = api.move_question(request.posid, request.dice)
        return Json(api.move_answer(text, question, await moves.ask(question)))

    async def evaluate(request: EvalRequest):
        text, board = api.eval_question(request.posid)
        # one at a time: a net's floats in a batch differ (in the last bits) from alone
        return Json(api.eval_answer(text, (await bot.run(api.analyze, [board]))[0]))

    async def roll_out(request):
        text, board, settings = api.rollout_question(**request.model_dump())
        if rollouts["running"] >= ROLLOUTS:
            raise HTTPException(503, f"{ROLLOUTS} rollouts are being played; try again later")
        rollouts["running"] += 1
        try:
            result = await in_thread(api.play_rollout, board, settings, bot.call, stopping)
        except RolloutStopped:
            raise HTTPException(503, "the server is stopping") from None
        finally:
            rollouts["running"] -= 1
        return Json(api.rollout_answer(text, result))

    move_doc = dict(response_model=MoveAnswer, responses=_errors(422), tags=["bot"],
                    summary="the legal plays of a roll, ranked by the bot")
    eval_doc = dict(response_model=EvalAnswer, responses=_errors(422), tags=["bot"],
                    summary="probabilities, equities and the cube action of a position "
                            "(bots with probabilities)")
    rollout_doc = dict(response_model=RolloutAnswer, responses=_errors(422, 503),
                       tags=["bot"],
                       summary=f"roll a position out: the JSON of gammon rollout --json "
                               f"(at most {api.max_trials:,} trials a request)")

    @app.get("/move", dependencies=one_each, **move_doc)
    async def move_get(request: Annotated[MoveRequest, Query()]):
        return await move(request)

    @app.post("/move", **move_doc)
    async def move_post(request: MoveRequest):
        return await move(request)

    @app.get("/eval", dependencies=one_each, **eval_doc)
    async def eval_get(request: Annotated[EvalRequest, Query()]):
        return await evaluate(request)

    @app.post("/eval", **eval_doc)
    async def eval_post(request: EvalRequest):
        return await evaluate(request)

    @app.get("/rollout", dependencies=one_each, **rollout_doc)
    async def rollout_get(request: Annotated[RolloutRequest, Query()]):
        return await roll_out(request)

    @app.post("/rollout", **rollout_doc)
    async def rollout_post(request: RolloutRequest):
        return await roll_out(request)

    @app.get("/api", response_model=IndexAnswer, tags=["server"], summary="what the server "
                                                                          "offers")
    async def index():
        return Json(api.index())

    @app.get("/docs", include_in_schema=False)
    async def docs():
        return get_swagger_ui_html(openapi_url=app.openapi_url, title=f"{app.title}: docs",
                                   swagger_js_url="/docs/swagger-ui-bundle.js",
                                   swagger_css_url="/docs/swagger-ui.css",
                                   swagger_favicon_url="/docs/favicon.png",
                                   swagger_ui_parameters=app.swagger_ui_parameters)

    folder = docs_folder()

    @app.get("/docs/{name}", include_in_schema=False)
    async def docs_file(name: str):
        if name not in DOCS_FILES:
            raise HTTPException(404)
        return FileResponse(folder / name, media_type=DOCS_FILES[name],
                            headers={"Cache-Control": "max-age=86400"})

    review_route(app, api, bot, _errors(413, 422), Json)  # POST /review: a match file graded
    review_page_routes(app, api, Json)  # GET /review/page: the review in the browser
    from .board import board_routes  # the page at / and the game API it plays through
    board_routes(app, api, bot, Json, ErrorAnswer)
    app.add_middleware(Guard)
    return app


__all__ = ["ROLLOUTS", "make_app"]
