"""The board in the browser: the page at ``/`` and the game API it plays through, the routes
that ``gammon.web.app.make_app`` adds with ``board_routes`` (on the application itself, so
that its 405 answers list their methods).

    GET  /                         the page (``static/index.html``: SVG board, no build step,
                                   nothing fetched from outside)
    GET  /static/NAME              its script and style sheet
    POST /game                     a new game: a money series or a match to N points
    GET  /game/{id}                the game as it stands
    POST /game/{id}/roll           roll the dice
    POST /game/{id}/play           the whole play, as its steps [[from, to], ...]
    POST /game/{id}/double         offer the cube (the bot takes, passes or beavers)
    POST /game/{id}/detonate       Nuclear: explode the bomb before your roll
    POST /game/{id}/answer         take, pass or beaver the bot's double
    POST /game/{id}/resign         resign a single game, a gammon or a backgammon
    POST /game/{id}/next           the next game of the series or match
    GET  /game/{id}/hint           the bot's ranked plays for your roll, with probabilities
    GET  /game/{id}/advice         the cube action before your roll, with its equities
    GET  /game/{id}/record.mat     the match so far as a .mat file (a download)
    POST /analyse                  a Position ID or XGID (and dice) analysed

Every game answer is the game's state (``gammon.web.game.WebGame.to_json``) with the
``events`` since the request came: what the person did and what the bot did after. The
games live in ``gammon.web.game.Games`` and are played in the bot's thread (``BotThread``),
like every other question to the bot. Errors as the rest of the API: 422 naming the field,
404 for a game the server does not hold, 409 for an action the game cannot take now (not
your turn, no double to answer).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from gammon.engine.rules import VARIANTS

from fastapi import FastAPI, Path as InPath, Query
from fastapi.responses import FileResponse, PlainTextResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from ..http_api import SEED_LIMIT, Api, error_body
from .analyse import analyse
from .games import MAX_GAMES, Games
from .refusals import NoGame, Refused

STATIC = Path(__file__).resolve().parent / "static"
FILES = {"board.js": "text/javascript", "draw.js": "text/javascript", "board.css": "text/css",
         "review.js": "text/javascript", "review.css": "text/css"}  # review.*: the review page
MAX_LENGTH = 64  # points of a match, as gammon play --match


VariantName = Literal[tuple(VARIANTS)]  # as --variant spells them


class NewGame(BaseModel):
    """A new game against the server's bot."""

    model_config = ConfigDict(extra="forbid")
    variant: VariantName | None = Field(None, description=(
        "the rules: " + ", ".join(VARIANTS) + " (default: the server's --variant). The "
        "opponent is the server's bot in its own variant, else the variant's shipped "
        "model (net:)"))
    length: int = Field(0, ge=0, le=MAX_LENGTH, description=(
        f"0 for money games (a series, one game after another), or a match to 1 to "
        f"{MAX_LENGTH} points (the cube always in play, the Crawford rule)"))
    cube: bool = Field(True, description="money games with the doubling cube (a match "
                                         "always has it)")
    jacoby: bool = Field(False, description="money games: gammons count single while the "
                                            "cube is centred")
    beavers: bool = Field(False, description="money games: the taker of a double may "
                                             "beaver it (redouble at once, keeping the cube)")
    seed: int | None = Field(None, ge=0, le=SEED_LIMIT - 1, description=(
        "seed of this game's dice, 0 .. 2**63-1: the same seed and the same plays give "
        "the same game (default: a fresh one, in the answer's seed)"))
    position: str | None = Field(None, max_length=200, description=(
        "start from this position, you on roll: a GNU Backgammon Position ID, "
        "POSID:MATCHID (the Match ID's length, score, Crawford game, cube and dice), an "
        "XGID (the same), or Plakoto's plakoto: text (default: the opening)"),
        examples=["4HPwATDgc/ABMA:cAkAAAAAAAAA"])


Step = Annotated[list[Annotated[int, Field(ge=0, le=25)]],
                 Field(min_length=2, max_length=2, description="[from, to]: the bar is 25, "
                                                               "off is 0")]


class PlayRequest(BaseModel):
    """The person's whole play, step by step."""

    model_config = ConfigDict(extra="forbid")
    steps: list[Step] = Field(max_length=4, description=(
        "the steps in the order made, each [from, to] from your side (you move from 24 "
        "to 1); [] when no play is legal; must be a legal play of the roll"))


class AnswerRequest(BaseModel):
    """The person's answer to the bot's double."""

    model_config = ConfigDict(extra="forbid")
    response: Literal["take", "pass", "beaver"] = Field(description=(
        "take (the cube doubles, yours), pass (you lose the cube's value), beaver (money "
        "games with beavers: take and redouble at once, x 4, yours)"))


class ResignRequest(BaseModel):
    """A resignation offered to the bot."""

    model_config = ConfigDict(extra="forbid")
    level: int = Field(ge=1, le=3, description=(
        "1 a single game, 2 a gammon, 3 a backgammon (times the cube); at most what you "
        "could lose now (the state's resign)"))


class AnalyseRequest(BaseModel):
    """A position set up for analysis."""

    model_config = ConfigDict(extra="forbid")
    position: str = Field(max_length=200, description=(
        "a GNU Backgammon Position ID (money play, a centred cube) or an XGID (its cube, "
        "score, match length and dice)"), examples=["4HPwATDgc/ABMA"])
    dice: str | None = Field(None, max_length=20, description=(
        "a roll to rank the plays of, like 3,1 (default: the XGID's dice, if rolled)"))


def _responses(error_model, *codes: int) -> dict:
    words = {404: "no game by that id (never started, dropped for newer ones, or the "
                  "server restarted)",
             409: "an action the game cannot take now (not your turn, no double to answer)",
             422: "a bad or missing field, named in 'field'"}
    return {code: {"model": error_model, "description": words[code]} for code in codes}


Plies = Annotated[int | None, Query(ge=0, le=2, description=(
    "how far the bot looks ahead, 0 to 2 plies as GNU Backgammon counts them (default: the "
    "bot's own depth); 2-ply takes about a second"))]

GameId = Annotated[str, InPath(max_length=40, description="the game's id (the 'id' of "
                                                          "POST /game)")]


def board_routes(router: FastAPI, api: Api, bot, Json, error_model) -> None:
    """Add the page and the game API to the application ``router``, the games played by
    ``api``'s bot in ``bot``'s thread (``gammon.web.threads.BotThread``); answers of the
    response class ``Json``, errors declared by ``error_model`` (the app's own, passed in
    so that this module does not import the app)."""
    def opponent(variant: str) -> tuple:
        """The bot of a new game: the server's own in its variant; in another, the
        variant's shipped model (``checkpoints/VARIANT.pt``, the bot ``net:``)."""
        if variant == api.variant:
            return api.bot, api.name
        from ..options import load_bot
        return load_bot("net:", None, variant), "net:"

    games = Games(opponent, api.variant)

    def _errors(*codes: int) -> dict:
        return _responses(error_model, *codes)

    async def act(function, *args):
        try:
            return Json(await bot.run(function, *args))
        except NoGame as e:
            return Json(error_body(str(e), "game_id"), status_code=404)
        except Refused as e:
            return Json(error_body(str(e)), status_code=409)

    def on(game_id: str, method: str, *args):
        def run():
            return getattr(games.get(game_id), method)(*args)
        return act(run)

    game_doc = dict(tags=["board"], responses=_errors(404, 409, 422))

    @router.get("/", include_in_schema=False)
    async def page():
        return FileResponse(STATIC / "index.html", media_type="text/html",
                            headers={"Cache-Control": "no-cache"})

    @router.get("/static/{name}", include_in_schema=False)
    async def static_file(name: str):
        if name not in FILES:
            return Json(error_body(f"no such file {name[:40]!r}"), status_code=404)
        return FileResponse(STATIC / name, media_type=FILES[name],
                            headers={"Cache-Control": "no-cache"})

    @router.post("/game", tags=["board"], responses=_errors(409, 422),
                 summary=f"start a game against the bot (a money series or a match; the "
                         f"server holds {MAX_GAMES} games, dropping the least recently "
                         f"used)")
    async def new_game(request: NewGame):
        return await act(lambda: games.new(**request.model_dump()))

    @router.get("/game/{game_id}", summary="the game as it stands", **game_doc)
    async def show(game_id: GameId):
        return await on(game_id, "to_json")

    @router.post("/game/{game_id}/roll", summary="roll the dice (then play them)", **game_doc)
    async def roll(game_id: GameId):
        return await on(game_id, "roll")

    @router.post("/game/{game_id}/play", summary="make your whole play; the bot then "
                                                 "plays its turn", **game_doc)
    async def play(game_id: GameId, request: PlayRequest):
        return await on(game_id, "play", request.steps)

    @router.post("/game/{game_id}/double", summary="offer the cube before rolling",
                 **game_doc)
    async def double(game_id: GameId):
        return await on(game_id, "double")

    @router.post("/game/{game_id}/detonate", summary="Nuclear: explode the bomb before your "
                                                     "roll (when it is centred or yours)",
                 **game_doc)
    async def detonate(game_id: GameId):
        return await on(game_id, "detonate")

    @router.post("/game/{game_id}/answer", summary="take, pass or beaver the bot's double",
                 **game_doc)
    async def answer(game_id: GameId, request: AnswerRequest):
        return await on(game_id, "answer", request.response)

    @router.post("/game/{game_id}/resign", summary="offer to resign; the bot accepts or "
                                                   "declines", **game_doc)
    async def resign(game_id: GameId, request: ResignRequest):
        return await on(game_id, "resign", request.level)

    @router.post("/game/{game_id}/next", summary="the next game of the series or match",
                 **game_doc)
    async def next_game(game_id: GameId):
        return await on(game_id, "next_game")

    @router.get("/game/{game_id}/hint", summary="the bot's best plays for your roll, "
                                                "with their probabilities", **game_doc)
    async def hint(game_id: GameId,
                   count: Annotated[int, Query(ge=1, le=100, description="how many of "
                                                                          "the best plays")] = 5,
                   plies: Plies = None):
        return await on(game_id, "hint", count, plies)

    @router.get("/game/{game_id}/advice", summary="the cube action before your roll, with "
                                                  "its equities (gammon cube's answer)",
                **game_doc)
    async def advice(game_id: GameId, plies: Plies = None):
        return await on(game_id, "advice", plies)

    @router.get("/game/{game_id}/record.mat", summary="the match so far as a .mat file",
                response_class=PlainTextResponse, tags=["board"],
                responses=_errors(404))
    async def record(game_id: GameId):
        def run():
            return games.get(game_id).mat()
        try:
            text = await bot.run(run)
        except NoGame as e:
            return Json(error_body(str(e), "game_id"), status_code=404)
        return Response(text, media_type="text/plain; charset=utf-8", headers={
            "Content-Disposition": f'attachment; filename="gammon-{game_id}.mat"'})

    @router.post("/analyse", tags=["board"], responses=_errors(422),
                 summary="a Position ID or XGID (and dice) analysed: probabilities, "
                         "equities, cube action, ranked plays")
    async def analyse_position(request: AnalyseRequest):
        return Json(await bot.run(analyse, api.bot, api.evaluate, api.variant,
                                  request.position, request.dice))


__all__ = ["AnalyseRequest", "AnswerRequest", "NewGame", "PlayRequest", "ResignRequest",
           "board_routes"]
