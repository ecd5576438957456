"""The ASGI application of ``gammon serve-http``: ``make_app(api)``.

Endpoints (GET with query parameters, or POST with the same fields as a JSON object):

    /move      posid, dice                          the legal plays ranked by the bot
    /eval      posid                                probabilities, equities, cube action
    /rollout   posid, trials, seed, truncate, ...   a Monte-Carlo rollout (gammon rollout)
    /review    a .mat or SGF file (POST)            every decision graded (gammon review)
    /api       what the server offers (GET)
    /          the board in the browser (a page; the game API: ``gammon.web.board``)
    /docs      Swagger UI, served from this server (no file fetched from outside)
    /openapi.json   the OpenAPI description of every endpoint, field and answer

Every field has a pydantic model, so that ``/openapi.json`` and ``/docs`` describe it; the
answers are those of ``gammon.http_api.Api`` (the same JSON as before FastAPI), declared by
response models (``tests/test_http_api.py`` checks real answers against them).

Errors are JSON objects ``{"error": "...", "field": "..."}``: 422 for a bad field (named),
404 an unknown path, 405 another method (with ``Allow``), 413 a body over ``MAX_BYTES``,
414 a request target over ``MAX_QUERY`` characters, 431 more than ``MAX_HEADERS`` header
lines or a header section over ``MAX_BYTES``, 503 too many rollouts at once or a server
stopping; 500 only for a bug, logged in one line.

Threads: the event loop reads requests and checks their fields; one thread (``BotThread``)
asks the bot, jobs in the order they come, so the bot (not every one is thread-safe) is
asked by one thread at a time and a slow job never stops the loop from taking requests.
The ``/move`` questions that wait meanwhile go to the bot as one batch (``AsyncBatcher``;
the rankings are those of each alone); ``/eval`` asks one position at a time (a net's floats
in a batch differ from alone in the last bits). A rollout runs in a thread of its own and
sends its trials to the bot thread ``ROLLOUT_CHUNK`` at a time, so the requests that come
meanwhile are answered between chunks.
"""

import asyncio
import concurrent.futures
import json
import queue
import sys
import threading
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException

from eval.analysis.rollouts import MAX_PLIES
from model.cube import EFFICIENCY

from ..errors import quote
from ..external import clip
from ..http_api import (EVAL_FIELDS, MAX_BYTES, MAX_QUERY, MOVE_FIELDS, ROLLOUT_FIELDS, Api,
                        BadRequest, RolloutStopped, error_body)
from .review import ReviewAnswer, ReviewRequest, review_route

MAX_HEADERS = 100  # header lines of a request
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


# --- the requests ------------------------------------------------------------------------

POSID = Field(description="the position, a GNU Backgammon Position ID from the player on "
                          "roll's side (a '+' is written %2B in a URL; a space is read as '+')",
              examples=["4HPwATDgc/ABMA"])


class MoveRequest(BaseModel):
    """A position and a roll."""

    model_config = ConfigDict(extra="forbid")
    posid: str = POSID
    dice: str = Field(description="the roll: two dice from 1 to 6, written 3,1 or 3-1",
                      examples=["3,1"])


class EvalRequest(BaseModel):
    """A position before the roll."""

    model_config = ConfigDict(extra="forbid")
    posid: str = POSID


def rollout_request(max_trials: int) -> type[BaseModel]:
    """The model of a /rollout request on a server that plays at most ``max_trials``."""

    class RolloutRequest(BaseModel):
        """A position before the roll and how to roll it out (as ``gammon rollout``)."""

        model_config = ConfigDict(extra="forbid")
        posid: str = POSID
        trials: int | None = Field(None, ge=1, le=max_trials, description=(
            f"trials to play, 1 to {max_trials:,} on this server (default "
            f"{min(1296, max_trials):,}; the first two rolls stratified over 1,296)"))
        seed: int | None = Field(None, ge=0, le=2 ** 63 - 1, description=(
            "seed of the dice, 0 .. 2**63-1: the same seed gives the same numbers "
            "(default: a fresh one, reported in settings.seed)"))
        truncate: int | None = Field(None, ge=0, le=MAX_PLIES, description=(
            "stop each trial after this many plies and take the net's value of the position "
            "reached (0: of the position itself; default: play to the end)"))
        vr: bool = Field(True, description="variance reduction (needs a bot with "
                                           "probabilities: net:, gnubg)")
        quasi: bool = Field(True, description="quasi-random dice: the first two rolls "
                                              "stratified")
        bearoff: bool = Field(True, description="stop a trial once both sides are in the "
                                                "bear-off database")
        cubeful: bool = Field(False, description="play the cube inside every trial (the "
                                                 "bot's cube heads) and report the cubeful "
                                                 "equity")
        efficiency: float = Field(EFFICIENCY, ge=0, le=1, description="Janowski's cube "
                                                                       "efficiency (cubeful)")
        jacoby: bool = Field(False, description="the Jacoby rule (cubeful)")
        beavers: bool = Field(False, description="beavers allowed (cubeful)")

    return RolloutRequest


# --- the answers (declared for the docs; the endpoints return Api's JSON as it is) ---------

class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Probabilities(Answer):
    """gnubg's five for the player concerned; gammons include backgammons."""

    win: float = Field(description="winning chances")
    win_gammon: float = Field(description="chances to win a gammon or backgammon")
    win_backgammon: float = Field(description="chances to win a backgammon")
    lose_gammon: float = Field(description="chances to lose a gammon or backgammon")
    lose_backgammon: float = Field(description="chances to lose a backgammon")


class Play(Answer):
    rank: int = Field(description="1 for the bot's choice, then by score")
    play: str = Field(description="the play in Magriel notation, e.g. 8/5 6/5")
    score: float = Field(description="the bot's score of the play (see the answer's score)")
    result: str = Field(description="the Position ID after the play, from the mover's side "
                                    "(not flipped)")
    probabilities: Probabilities | None = Field(None, description="for the player who "
                                                "moved (bots with probabilities)")
    cubeless_equity: float | None = Field(None, description="cubeless money equity after "
                                                            "the play, for the mover")
    cubeful_equity: float | None = Field(None, description="cubeful money equity after the "
                                                           "play")
    plies: int | None = Field(None, description="the look-ahead the play was valued at "
                                                "(nets)")


class MoveAnswer(Answer):
    posid: str = Field(description="the position asked about")
    dice: list[int] = Field(description="the roll, two dice", min_length=2, max_length=2)
    bot: str = Field(description="the bot that ranked the plays")
    score: str = Field(description="what a play's score is for this bot (e.g. equity)")
    plays: list[Play] = Field(description="every legal play, best first; empty when none is "
                                          "legal")


class CubefulEquities(Answer):
    no_double: float = Field(description="the equity of not doubling, per current cube")
    double_take: float = Field(description="of doubling when the opponent takes")
    double_pass: float = Field(description="of doubling when the opponent passes")


class EvalAnswer(Answer):
    posid: str = Field(description="the position asked about")
    bot: str = Field(description="the bot that evaluated it")
    probabilities: Probabilities = Field(description="for the player on roll")
    cubeless_equity: float = Field(description="cubeless money equity, player on roll")
    cubeful: CubefulEquities = Field(description="cubeful equities of the cube actions "
                                                 "(Janowski)")
    action: Literal["no_double", "double", "too_good"] = Field(description="the proper "
                                                                           "cube action")
    response: Literal["take", "pass", "beaver"] = Field(description="the opponent's proper "
                                                                    "answer to a double")
    decision: str = Field(description="the decision in words")
    cubeful_equity: float = Field(description="the cubeful equity after proper cube play")
    take_point: float = Field(description="the winning chances the opponent needs to take")
    taker_chances: float = Field(description="the opponent's winning chances here")
    cube_plies: int = Field(description="the look-ahead of the cube decision")


class RolloutErrors(Answer):
    """The standard error of each estimate (null for a single trial)."""

    win: float | None = None
    win_gammon: float | None = None
    win_backgammon: float | None = None
    lose_gammon: float | None = None
    lose_backgammon: float | None = None
    equity: float | None = None
    cubeful_equity: float | None = None


Interval = Annotated[list[float], Field(min_length=2, max_length=2)]


class RolloutIntervals(Answer):
    """The 95% interval of each estimate, mean +- 1.96 s.e. (null without an s.e.)."""

    win: Interval | None = None
    win_gammon: Interval | None = None
    win_backgammon: Interval | None = None
    lose_gammon: Interval | None = None
    lose_backgammon: Interval | None = None
    equity: Interval | None = None
    cubeful_equity: Interval | None = None


class RolloutSettings(Answer):
    bot: str = Field(description="the bot that played both sides")
    trials: int
    seed: int = Field(description="the seed of the dice (replays the same rollout)")
    truncate: int | None = Field(description="plies after which trials stopped (null: "
                                             "played to the end)")
    vr: bool
    quasi: bool
    bearoff: bool = Field(description="whether trials stopped in the bear-off database")
    cubeful: bool
    efficiency: float | None = None
    jacoby: bool | None = None
    beavers: bool | None = None
    double_at_start: bool | None = None
    until_se: float | None = None
    variant: str
    variance_reduction: str = Field(description="what the variance reduction applied to, "
                                                "in words")


class RolloutAnswer(Answer):
    posid: str = Field(description="the position rolled out")
    probabilities: Probabilities = Field(description="for the player on roll")
    equity: float = Field(description="cubeless money equity, player on roll")
    cubeful_equity: float | None = Field(None, description="cubeful money equity per unit "
                                                           "of the cube (cubeful rollouts)")
    stderr: RolloutErrors
    ci95: RolloutIntervals
    trials: int = Field(description="trials played")
    mean_plies: float = Field(description="plies a trial, on average")
    settings: RolloutSettings
    seconds: float = Field(description="the rollout's time")


class IndexAnswer(Answer):
    bot: str
    variant: str
    endpoints: dict[str, str]
    max_trials: int = Field(description="the most trials of one /rollout request")
    note: str


class ErrorAnswer(Answer):
    error: str = Field(description="what is wrong, in one line (quoting at most 80 "
                                   "characters of the request)")
    field: str | None = Field(None, description="the field at fault, where one is")


def _errors(*codes: int) -> dict:
    words = {404: "no such endpoint", 405: "a method the endpoint does not answer",
             413: f"a body over {MAX_BYTES} bytes",
             414: f"a request target over {MAX_QUERY} characters",
             422: "a bad or missing field, named in 'field'",
             431: f"more than {MAX_HEADERS} header lines or over {MAX_BYTES} bytes of them",
             503: f"more than {ROLLOUTS} rollouts at once, or the server stopping"}
    return {code: {"model": ErrorAnswer, "description": words[code]} for code in codes}


# --- the bot's thread and the batches ---------------------------------------------------

class BotThread:
    """One daemon thread running the jobs given to it in order: the only thread that asks
    the bot while the server runs."""

    def __init__(self, name: str = "serve-http bot"):
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._work, name=name, daemon=True)
        self._thread.start()

    def submit(self, function, *args) -> concurrent.futures.Future:
        future: concurrent.futures.Future = concurrent.futures.Future()
        self._jobs.put((future, function, args))
        return future

    def call(self, function, *args):
        """``function(*args)`` in the bot's thread, waited for (from another thread)."""
        return self.submit(function, *args).result()

    async def run(self, function, *args):
        """``function(*args)`` in the bot's thread, awaited (from the event loop)."""
        return await asyncio.wrap_future(self.submit(function, *args))

    def close(self) -> None:
        self._jobs.put(None)

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            future, function, args = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(function(*args))
            except BaseException as e:  # noqa: BLE001 - handed to the one who asked
                future.set_exception(e)


class AsyncBatcher:
    """``solve(questions) -> answers`` in the bot's thread, with every question that came
    while the previous call ran (at most ``most`` at a time); a question whose batch fails
    is asked alone, so that one bad question fails alone."""

    def __init__(self, solve, bot: BotThread, most: int = 256):
        self.solve, self.bot, self.most = solve, bot, most
        self._waiting: list[tuple[Any, asyncio.Future]] = []
        self._task: asyncio.Task | None = None

    async def ask(self, question):
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._waiting.append((question, future))
        if self._task is None:
            self._task = loop.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting[:self.most], self._waiting[self.most:]
                try:
                    answers = await self.bot.run(self.solve, [q for q, _ in batch])
                except Exception as e:  # noqa: BLE001 - one question: its error
                    if len(batch) == 1:
                        _settle(batch[0][1], error=e)
                    else:  # one bad question must not fail the others: each alone
                        await self._alone(batch)
                    continue
                for (_, future), answer in zip(batch, answers, strict=True):
                    _settle(future, answer)
        finally:
            self._task = None

    async def _alone(self, batch) -> None:
        for question, future in batch:
            try:
                answer = (await self.bot.run(self.solve, [question]))[0]
            except Exception as e:  # noqa: BLE001 - that question's own error
                _settle(future, error=e)
            else:
                _settle(future, answer)


def _settle(future: asyncio.Future, answer=None, error: BaseException | None = None) -> None:
    if future.done():  # its request went away
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(answer)


async def in_thread(function, *args):
    """``function(*args)`` in a new daemon thread, awaited."""
    future: concurrent.futures.Future = concurrent.futures.Future()

    def work():
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(function(*args))
        except BaseException as e:  # noqa: BLE001 - handed to the one who awaits
            future.set_exception(e)

    threading.Thread(target=work, name="serve-http rollout", daemon=True).start()
    return await asyncio.wrap_future(future)


# --- errors ---------------------------------------------------------------------------------

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


class Guard:
    """The outermost layer (pure ASGI): the limits on the request target, the headers and
    the body, and a bug answered 500 in JSON and logged in one line, never a traceback."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        refusal = self._refusal(scope)
        if refusal is not None:
            await _reply(sending, *refusal)
            return
        body = 0

        async def receiving():
            nonlocal body
            message = await receive()
            if message["type"] == "http.request":
                body += len(message.get("body", b""))
                if body > MAX_BYTES:
                    raise HTTPException(413, f"request body longer than {MAX_BYTES} bytes",
                                        headers={"Connection": "close"})
            return message

        try:
            await self.app(scope, receiving, sending)
        except Exception as e:  # a bug: say so in one line, answer if still possible
            path = scope.get("path", "")
            print(f"serve-http: error answering {scope.get('method')} {quote(path)}: "
                  f"{type(e).__name__}: {clip(str(e))}", file=sys.stderr, flush=True)
            if not started:
                await _reply(sending, 500, f"internal error: {type(e).__name__}")

    @staticmethod
    def _refusal(scope) -> tuple[int, str] | None:
        target = len(scope.get("raw_path", b"")) + len(scope.get("query_string", b"")) + 1
        if target > MAX_QUERY:
            return 414, f"request target longer than {MAX_QUERY} characters"
        headers = scope.get("headers", [])
        if len(headers) > MAX_HEADERS:
            return 431, f"more than {MAX_HEADERS} header lines"
        if sum(len(k) + len(v) + 4 for k, v in headers) > MAX_BYTES:
            return 431, f"headers longer than {MAX_BYTES} bytes"
        for name, value in headers:
            if name == b"content-length" and value.strip().isdigit() \
                    and int(value) > MAX_BYTES:
                return 413, f"request body longer than {MAX_BYTES} bytes"
        return None


async def _reply(send, status: int, message: str, headers: dict | None = None) -> None:
    data = (json.dumps(error_body(message)) + "\n").encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
           (b"connection", b"close")]  # what follows the refused request goes unread
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": data})


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
    from .board import board_routes  # the page at / and the game API it plays through
    board_routes(app, api, bot, Json, ErrorAnswer)
    app.add_middleware(Guard)
    return app


__all__ = ["AsyncBatcher", "BotThread", "ErrorAnswer", "EvalAnswer", "Guard", "IndexAnswer",
           "MAX_HEADERS", "MoveAnswer", "ReviewAnswer", "ReviewRequest", "RolloutAnswer",
           "ROLLOUTS", "make_app", "rollout_request"]
