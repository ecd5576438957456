"""The answers of ``gammon serve-http``'s JSON API, without HTTP: ``/move`` ranks the plays
of a position and roll, ``/eval`` gives the probabilities, equities and cube action of a
position, ``/rollout`` rolls a position out.

``Api`` reads the fields of a request (Position IDs, dice, rollout settings, a match
file), raising ``BadRequest`` naming the field for a bad one, asks the bot, and writes the
answers: plain functions. The server (FastAPI on uvicorn, ``gammon.web``)
routes the requests to them and decides which thread asks the bot: one, ``BotThread``
(``gammon.web.threads``), so the bot need not be thread-safe.

    GET /move?posid=4HPwATDgc/ABMA&dice=3,1     -> {"posid", "dice", "bot", "score", "plays"}
    GET /eval?posid=4HPwATDgc/ABMA              -> {"posid", "bot", "probabilities", ...}
    GET /rollout?posid=4HPwATDgc/ABMA&trials=36 -> what ``gammon rollout --json`` prints
    GET /api                                    -> what the server offers

A ``+`` of a Position ID must be written ``%2B`` in a URL; written plain it arrives as a
space, which is read as ``+`` (Position IDs have no spaces).
"""

from __future__ import annotations

import threading
from typing import Callable

import numpy as np

from gammon.eval.analysis import analyze_cube, ranked_many
from gammon.eval.analysis.rollouts import (DEFAULT_TRIALS, MAX_PLIES, RolloutError,
                                    Settings, check_bot, cube_player, local_runner,
                                    make_roots, rollout)
from gammon.eval.bots.cube import probability_source
from gammon.eval.bots.registry import bot_plies
from gammon.model.cube import EFFICIENCY

from .errors import UsageError, quote
from .external import clip
from .positions import read_die, read_position

MAX_QUERY = 2048  # characters of a request target: a position and its settings need far fewer
MAX_BYTES = 65536  # bytes of the header section, of a body
MAX_REVIEW_TURNS = 2000  # turns of a match file one /review grades at most
ROLLOUT_CHUNK = 72  # trials a rollout plays at a time; other requests are answered between
PLUS = "('+' in a URL is written %2B; a space is read as '+')"
SEED_LIMIT = 2 ** 63  # seeds are 0 .. 2**63-1

# the fields of each endpoint, in the order of their checks (and of the docs)
MOVE_FIELDS = ("posid", "dice")
EVAL_FIELDS = ("posid",)
ROLLOUT_FIELDS = ("posid", "trials", "seed", "truncate", "vr", "quasi", "bearoff", "cubeful",
                  "efficiency", "jacoby", "beavers")
REVIEW_FIELDS = ("text", "on_illegal", "doubtful", "bad", "very_bad", "lucky", "very_lucky",
                 "unlucky", "very_unlucky")


class BadRequest(ValueError):
    """A request the API cannot answer (status 422); ``field`` names the field at fault."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


class RolloutStopped(RuntimeError):
    """The server stopped while a rollout was being played."""


class ReviewTooLong(ValueError):
    """A /review file with more turns than the server grades (status 413)."""


def read_dice(text: str) -> tuple[int, int]:
    """Two dice written ``3,1`` or ``3-1``."""
    parts = str(text).replace("-", ",").split(",")
    if len(parts) != 2:
        raise BadRequest(f"dice are two numbers like 3,1, got {quote(text)}", "dice")
    try:
        return read_die(parts[0]), read_die(parts[1])
    except UsageError as e:
        raise BadRequest(str(e), "dice") from None


def _rollout_error_field(message: str) -> str | None:
    """The request field a ``Settings.check`` RolloutError is about."""
    for words, field in (("trials", "trials"), ("seed", "seed"), ("truncation", "truncate"),
                         ("efficiency", "efficiency")):
        if words in message[:20]:
            return field
    return None


class Api:
    """The answers of one bot. ``evaluate`` (boards -> probabilities) may be None: then
    ``/eval`` says the bot has no probabilities. ``max_trials`` caps the trials of one
    ``/rollout`` (work per request)."""

    def __init__(self, bot, name: str, variant: str = "standard", evaluate=None,
                 max_trials: int = DEFAULT_TRIALS):
        self.bot, self.name, self.variant, self.evaluate = bot, name, variant, evaluate
        self.max_trials = max_trials

    # --- reading the fields -------------------------------------------------------------

    def position(self, text: str, field: str = "posid") -> tuple[str, np.ndarray]:
        """(the Position ID, its board); a space is read as the '+' it was in the URL."""
        text = str(text).replace(" ", "+")
        try:
            return text, read_position(text, self.variant)
        except UsageError as e:
            raise BadRequest(f"{e} {PLUS}" if "+" in text else str(e), field) from None

    def move_question(self, posid: str, dice: str) -> tuple[str, tuple]:
        """(the Position ID, (board, d1, d2)) of a /move request."""
        text, board = self.position(posid)
        d1, d2 = read_dice(dice)
        return text, (board, d1, d2)

    def eval_question(self, posid: str) -> tuple[str, np.ndarray]:
        text, board = self.position(posid)
        if self.evaluate is None:
            raise BadRequest(f"the bot {self.name!r} estimates no probabilities; /eval needs "
                             f"one that does (net:, gnubg)")
        if board[board > 0].sum() == 0 or board[board < 0].sum() == 0:
            raise BadRequest("the game is over in this position", "posid")
        return text, board

    def rollout_question(self, posid: str, trials: int | None = None, seed: int | None = None,
                         truncate: int | None = None, vr: bool = True, quasi: bool = True,
                         bearoff: bool = True, cubeful: bool = False,
                         efficiency: float = EFFICIENCY, jacoby: bool = False,
                         beavers: bool = False) -> tuple[str, np.ndarray, Settings]:
        """(the Position ID, its board, the rollout's Settings) of a /rollout request."""
        from gammon.eval.playing.match import new_seed
        text, board = self.position(posid)
        if board[board > 0].sum() == 0 or board[board < 0].sum() == 0:
            raise BadRequest("the game is over in this position: nothing to roll out", "posid")
        if trials is None:
            trials = min(DEFAULT_TRIALS, self.max_trials)
        if not 1 <= trials <= self.max_trials:
            raise BadRequest(f"this server rolls out 1 to {self.max_trials:,} trials a "
                             f"request, got {trials}", "trials")
        if seed is not None and not 0 <= seed < SEED_LIMIT:
            raise BadRequest(f"a seed is a whole number from 0 to 2**63-1, got {seed}", "seed")
        if truncate is not None and not 0 <= truncate <= MAX_PLIES:
            raise BadRequest(f"truncation is after 0 to {MAX_PLIES:,} plies, got {truncate}",
                             "truncate")
        settings = Settings(trials=trials, seed=new_seed() if seed is None else seed,
                            truncate=truncate, vr=vr, quasi=quasi, bearoff=bearoff,
                            cubeful=cubeful, efficiency=efficiency, jacoby=jacoby,
                            beavers=beavers, variant=self.variant)
        try:
            settings.check()
        except RolloutError as e:
            raise BadRequest(str(e), _rollout_error_field(str(e))) from None
        try:
            check_bot(settings, probability_source(self.bot) is not None)
        except RolloutError as e:  # the first setting that needs probabilities
            field = "vr" if vr else "truncate" if truncate is not None else "cubeful"
            raise BadRequest(str(e), field) from None
        return text, board, settings

    # --- asking the bot (the server calls these in its one bot thread) --------------------

    def rank(self, questions) -> list[list[dict]]:
        """The ranked plays of each (board, d1, d2), in one batch."""
        boards = np.stack([board for board, _, _ in questions])  # (B, 26)
        dice = np.array([[d1, d2] for _, d1, d2 in questions])  # (B, 2)
        return ranked_many(self.bot, boards, dice, self.variant)

    def analyze(self, boards) -> list[dict]:
        """The money cube analysis of each board, in one batch."""
        return analyze_cube(self.evaluate, np.stack(list(boards)))

    def play_rollout(self, board: np.ndarray, settings: Settings,
                     call: Callable | None = None, stopping: threading.Event | None = None):
        """The rollout's Result, its trials played ``ROLLOUT_CHUNK`` at a time, each chunk
        by ``call(function, *args)`` (the server's: in its bot thread; default: here) so
        that other requests are answered between chunks; the same numbers as one batch
        (each trial's dice depend on the seed and its number alone). Raises RolloutStopped
        once ``stopping`` (an Event, if given) is set."""
        call = call or (lambda function, *args: function(*args))
        boards = board[None]
        roots = make_roots(boards, None, [0], None, settings.rules)
        inner = local_runner(cube_player(self.bot, settings), probability_source(self.bot),
                             roots, settings)

        def run(pos, trial):
            parts = []
            for i in range(0, len(pos), ROLLOUT_CHUNK):
                if stopping is not None and stopping.is_set():
                    raise RolloutStopped("the server is stopping")
                parts.append(call(inner, pos[i:i + ROLLOUT_CHUNK], trial[i:i + ROLLOUT_CHUNK]))
            return {k: None if parts[0][k] is None else np.concatenate([p[k] for p in parts])
                    for k in parts[0]}

        return rollout(self.bot, boards, settings, keys=[0], runner=run)[0]

    # --- the answers -----------------------------------------------------------------------

    def index(self) -> dict:
        return {"bot": self.name, "variant": self.variant,
                "endpoints": {"/move": "posid, dice (e.g. 3,1): the legal plays ranked",
                              "/eval": "posid: probabilities, equities, cube action",
                              "/rollout": f"posid, trials (1 to {self.max_trials:,}), seed, "
                                          f"truncate, vr, ...: a Monte-Carlo rollout",
                              "/review": "POST a .mat or SGF file (or JSON: text, "
                                         "on_illegal, thresholds): every decision graded",
                              "/docs": "every endpoint and field (/openapi.json: the same "
                                       "as OpenAPI)",
                              "/": "the board in the browser: play the bot in any "
                                   "variant or from any position, hints and cube advice, "
                                   "a position box (its game API: /game, /analyse)",
                              "/review/page": "the review in the browser: upload a .mat "
                                              "or SGF file, step through its decisions"},
                "max_trials": self.max_trials,
                "note": "a Position ID's '+' is written %2B in a URL"}

    def move_answer(self, text: str, question: tuple, plays: list[dict]) -> dict:
        _, d1, d2 = question
        return {"posid": text, "dice": [d1, d2], "bot": self.name,
                "score": getattr(self.bot, "score_label", "score"), "plays": plays}

    def eval_answer(self, text: str, analysis: dict) -> dict:
        return {"posid": text, "bot": self.name, **analysis}

    def rollout_answer(self, text: str, result) -> dict:
        """As ``gammon rollout POSID --json`` prints it."""
        out = result.to_dict()
        out["settings"] = {"bot": self.name, **out["settings"]}
        return {"posid": text, **out, "seconds": result.seconds}

    # --- /review: a match file's decisions graded ------------------------------------------

    max_review_turns = MAX_REVIEW_TURNS  # turns one /review grades at most (work per request)

    def review_question(self, body) -> tuple:
        """What a /review body asks: the .mat or SGF text (``str`` or UTF-8 ``bytes``), or
        a dict of REVIEW_FIELDS ("text" and its options). BadRequest (422) naming the field
        for a bad one or a file that cannot be read, ReviewTooLong (413) for a file with
        more than ``max_review_turns`` turns. Gives (prepared file, thresholds, options)."""
        from gammon.eval.review.marks import Thresholds
        from gammon.eval.review.report import ReviewInputError, count_turns, prepare
        if isinstance(body, (bytes, bytearray)):
            try:
                body = bytes(body).decode("utf-8")
            except UnicodeDecodeError as e:
                raise BadRequest(f"the body is not UTF-8 text (byte {e.start}): neither a "
                                 f".mat nor an SGF file", "text") from None
        options = {"text": body} if isinstance(body, str) else dict(body)
        unknown = sorted(set(options) - set(REVIEW_FIELDS))
        if unknown:
            raise BadRequest(f"unknown field {quote(unknown[0])}; /review takes "
                             f"{', '.join(REVIEW_FIELDS)}", unknown[0])
        text = options.get("text")
        if not isinstance(text, str):
            raise BadRequest("missing field 'text' (the .mat or SGF file)", "text")
        if self.evaluate is None:
            raise BadRequest(f"the bot {self.name!r} estimates no probabilities; /review "
                             f"needs one that does (net:, gnubg)")
        skip = options.get("on_illegal", "stop")
        if skip not in ("stop", "skip"):
            raise BadRequest(f"field 'on_illegal' is stop or skip, got {quote(skip)}",
                             "on_illegal")
        defaults = Thresholds()
        values = {}
        for name in ("doubtful", "bad", "very_bad", "lucky", "very_lucky", "unlucky",
                     "very_unlucky"):
            value = options.get(name)
            if value is None:
                value = (-values["lucky"] if name == "unlucky" else
                         -values["very_lucky"] if name == "very_unlucky" else
                         getattr(defaults, name))
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not np.isfinite(value):
                raise BadRequest(f"field {name!r} is a number, got {quote(value)}", name)
            values[name] = float(value)
        thresholds = Thresholds(**values)
        why = thresholds.problem()
        if why:
            raise BadRequest(why, "doubtful" if "loss" in why else "lucky")
        try:
            prepared = prepare(text, skip == "skip", self.variant)
        except ReviewInputError as e:
            raise BadRequest(str(e), "text") from None
        turns = count_turns(prepared[1])
        if turns > self.max_review_turns:
            raise ReviewTooLong(f"the file has {turns:,} turns to grade; this server grades "
                                f"at most {self.max_review_turns:,} a request")
        return prepared, thresholds, skip == "skip"

    def review_answer(self, question) -> dict:
        """The report of a review_question (asks the bot: the server calls it in its bot
        thread)."""
        from gammon.eval.review.report import review
        prepared, thresholds, skip = question
        return review("", self.bot, self.name, bot_plies(self.name), "", thresholds, skip,
                      max_turns=self.max_review_turns, prepared=prepared)


def error_body(message: str, field: str | None = None) -> dict:
    """The JSON of an error: its message (at most about 160 characters of it) and the field
    at fault, if one is."""
    body = {"error": clip(message)}
    if field is not None:
        body["field"] = field
    return body


__all__ = ["Api", "BadRequest", "RolloutStopped", "ReviewTooLong", "read_dice", "error_body",
           "MAX_BYTES", "MAX_QUERY", "MAX_REVIEW_TURNS", "ROLLOUT_CHUNK", "MOVE_FIELDS",
           "EVAL_FIELDS", "ROLLOUT_FIELDS", "REVIEW_FIELDS"]
