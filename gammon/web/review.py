"""``POST /review`` of ``gammon serve-http``: a .mat or SGF match file in the body (as text,
or a JSON object with the text and the options), every decision of both players graded
(``gammon.http_api.Api.review``, the report object of ``gammon review --json``).

Limits: the body is at most ``MAX_BYTES`` (413, as every body), the file at most
``Api.max_review_turns`` turns (413, one line saying how many it has); a file that cannot
be read, an illegal move (with ``on_illegal`` "stop", the default) or a bad option is 422,
naming the field. The review runs in the bot's thread, as every question to the bot.
"""

from __future__ import annotations

import json
from typing import Literal

from fastapi import Request
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.exceptions import HTTPException

from ..errors import quote
from ..http_api import MAX_REVIEW_TURNS, BadRequest, ReviewTooLong

TEXT_TYPES = ("text/plain", "application/octet-stream", "application/x-sgf", "")


class ReviewRequest(BaseModel):
    """A match file to review and how (the JSON form of a /review body)."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(description="the .mat or SGF file's text")
    on_illegal: Literal["stop", "skip"] = Field(
        "stop", description="an illegal move: stop (422 naming it) or skip the rest of "
                            "that game (a warning in the report)")
    doubtful: float | None = Field(None, ge=0, description="loss past which a decision is "
                                                           "doubtful (default 0.03)")
    bad: float | None = Field(None, ge=0, description="loss past which it is bad (0.06)")
    very_bad: float | None = Field(None, ge=0, description="loss past which it is very bad "
                                                           "(0.12)")
    lucky: float | None = Field(None, gt=0, description="luck past which a roll is lucky "
                                                        "(0.3)")
    very_lucky: float | None = Field(None, gt=0, description="very lucky (0.6)")
    unlucky: float | None = Field(None, lt=0, description="luck below which a roll is "
                                                          "unlucky (-0.3)")
    very_unlucky: float | None = Field(None, lt=0, description="very unlucky (-0.6)")


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")  # the report may gain keys, never lose them


class ReviewCube(_Open):
    value: int = Field(description="the cube's value")
    owner: int = Field(description="-1 centred, else the player (0 or 1) who holds it")


class ReviewOption(_Open):
    action: str = Field(description="a play (Magriel notation) or cube action")
    equity: float = Field(description="its cubeful EMG per 1-cube, for the decider")
    loss: float = Field(description="its loss against the best")
    probabilities: list[float] | None = Field(description="win, wg, wbg, lg, lbg for the "
                                                          "mover (checker plays and cube)")


class ReviewDecision(_Open):
    move: int = Field(description="the turn in its game, from 1")
    player: Literal[0, 1]
    kind: Literal["checker", "double", "take"]
    board: list[int] = Field(description="26 ints, the engine's layout from the player's "
                                         "side")
    posid: str
    xgid: str
    dice: list[int] | None = Field(description="the roll of a checker decision")
    cube: ReviewCube
    action: str = Field(description="what was played or decided")
    best: str = Field(description="the best play or cube action")
    loss: float = Field(description="EMG per 1-cube lost against the best, >= 0")
    forced: bool
    mark: Literal["doubtful", "bad", "very bad"] | None
    luck: float | None = Field(description="the roll's luck (checker decisions)")
    luck_mark: Literal["lucky", "very lucky", "unlucky", "very unlucky"] | None
    equity: float = Field(description="player 0's cubeful EMG before the decision")
    options: list[ReviewOption] = Field(description="up to 5, best first")


class ReviewGame(_Open):
    number: int
    score: list[int] = Field(description="the score before the game")
    crawford: bool
    winner: Literal[0, 1] | None
    points: int
    decisions: list[ReviewDecision]


class ReviewMarks(_Open):
    doubtful: int
    bad: int
    very_bad: int


class ReviewPlayer(_Open):
    name: str
    unforced: int = Field(description="unforced checker decisions")
    cube_decisions: int = Field(description="close or actual cube decisions")
    checker_loss: float
    cube_loss: float
    checker_error_rate: float = Field(description="mEMG lost per unforced checker decision")
    cube_error_rate: float = Field(description="mEMG per close or actual cube decision")
    error_rate: float = Field(description="mEMG per decision, checker and cube")
    pr: float = Field(description="performance rating, eXtreme Gammon's scale: 500 x the "
                                  "mean loss per decision")
    luck: float
    points: int
    luck_adjusted: float
    marks: ReviewMarks


class ReviewThresholds(_Open):
    doubtful: float
    bad: float
    very_bad: float
    lucky: float
    very_lucky: float
    unlucky: float
    very_unlucky: float


class ReviewAnswer(_Open):
    """The report of ``gammon review --json``."""

    format: Literal["mat", "sgf"]
    file: str
    variant: str
    match_length: int = Field(description="0 for money play")
    bot: str
    plies: int
    thresholds: ReviewThresholds
    players: list[ReviewPlayer] = Field(description="in the file's order")
    games: list[ReviewGame]


def _body_schema() -> dict:
    return {"requestBody": {"required": True, "content": {
        "text/plain": {"schema": {"type": "string", "description": "a .mat or SGF file"}},
        "application/json": {"schema": ReviewRequest.model_json_schema()}}}}


def review_route(app, api, bot, errors: dict, Json) -> None:
    """Add ``POST /review`` to ``app``: ``api``'s review, asked in ``bot``'s thread, answered
    as the response class ``Json`` (the app's own, passed in so that this module does not
    import the app)."""

    @app.post("/review", response_model=ReviewAnswer, responses=errors, tags=["bot"],
              summary=f"grade every decision of a .mat or SGF match file (gammon review "
                      f"--json; at most {getattr(api, 'max_review_turns', MAX_REVIEW_TURNS):,}"
                      f" turns a request)", openapi_extra=_body_schema())
    async def review(request: Request):
        raw = await request.body()
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind == "application/json":
            try:
                fields = json.loads(raw)
            except (ValueError, RecursionError):
                raise BadRequest("the body is not JSON (send the file as text/plain, or "
                                 "a JSON object with 'text')", "text") from None
            if not isinstance(fields, dict):
                raise BadRequest("a JSON body is an object with 'text' and the options",
                                 "text")
            unknown = sorted(set(fields) - set(ReviewRequest.model_fields))
            if unknown:
                raise BadRequest(f"unknown field {quote(unknown[0])}; /review takes "
                                 f"{', '.join(ReviewRequest.model_fields)}", unknown[0])
            try:
                body = ReviewRequest.model_validate(fields).model_dump(exclude_none=True)
            except ValidationError as e:
                first = e.errors()[0]
                field = next((str(x) for x in first.get("loc", ())), None)
                raise BadRequest(f"field {field!r}: {first.get('msg', 'not valid')}",
                                 field) from None
        else:
            body = raw
        try:
            question = api.review_question(body)
        except ReviewTooLong as e:
            raise HTTPException(413, str(e)) from None
        return Json(await bot.run(api.review_answer, question))


__all__ = ["ReviewAnswer", "ReviewRequest", "review_route"]
