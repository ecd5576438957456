"""The pydantic models of ``gammon serve-http``'s JSON API: the fields of each request
(``/move``, ``/eval``, ``/rollout``) and the answers, so that ``/openapi.json`` and ``/docs``
describe every field.

The answers are declared for the docs: the endpoints return ``gammon.http_api.Api``'s JSON as
it is (``tests/test_http_api.py`` checks real answers against these models, extra keys
forbidden). The board's game API and ``/review`` declare their own (``board.py``,
``review.py``).
"""

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from gammon.eval.analysis.rollouts import MAX_PLIES
from gammon.model.cube import EFFICIENCY

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


__all__ = ["Answer", "CubefulEquities", "ErrorAnswer", "EvalAnswer", "EvalRequest",
           "IndexAnswer", "MoveAnswer", "MoveRequest", "Play", "Probabilities",
           "RolloutAnswer", "RolloutErrors", "RolloutIntervals", "RolloutSettings",
           "rollout_request"]
