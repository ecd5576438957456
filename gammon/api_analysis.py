"""The public API's bots and analysis: ``bot``, ``hint``, ``evaluate``, ``rollout``.

Bots are made by name (``gammon.eval.bots.registry``: ``random``, ``pubeval``,
``heuristic``, ``gnubg``, ``net:`` the shipped network, ``net:@1`` it looking a roll
ahead, ``net:PATH`` a trained one); wherever a bot is asked for, a name or a bot object
will do. The answers come from the analysis library (``gammon.eval.analysis``), as
``gammon hint``, ``gammon analyze`` and ``gammon rollout`` give them; these functions
only check their arguments and put the answers in typed results. Money play, a centred
cube; every equity is for the player on roll (``hint``: the player who moved).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

from gammon.eval.bots.registry import DEFAULT_BOT

from .api_checks import count, die, rules_of, seed as checked_seed
from .api_position import Position, as_position
from .errors import UsageError, quote
from .options import check_in_play, load_bot

if TYPE_CHECKING:
    from gammon.engine.policy import Bot

BotLike = Union[str, "Bot"]  # a bot's name, or a bot object (``bot(name)``)


def bot(name: str = DEFAULT_BOT, variant: str = "standard", seed: int | None = None) -> Bot:
    """The bot called ``name``, fitted to ``variant``, seeded where it draws numbers
    (``random``). A one-line ValueError for an unknown name or a bot whose package is
    missing (``gnubg`` needs gnubg-nn)."""
    if not isinstance(name, str):
        raise UsageError(f"a bot is named by a string, got {type(name).__name__}")
    return load_bot(name, checked_seed(seed), rules_of(variant).name)


def _bot(player: BotLike, variant: str, seed: int | None = None) -> Bot:
    return bot(player, variant, seed) if isinstance(player, str) else player


@dataclass(frozen=True)
class RankedPlay:
    """One legal play as a bot ranks it (``gammon hint``): ``rank`` (1 the bot's choice),
    ``play`` in Magriel notation, ``after`` the afterstate (from the mover's side), ``score``
    the bot's own score (higher is better for the mover). Bots with probabilities (nets,
    gnubg) also give ``probabilities`` (win, win_gammon, win_backgammon, lose_gammon,
    lose_backgammon, for the mover, gammons including backgammons), ``equity`` (cubeless
    money equity) and, ranked ``cubeful``, ``cubeful_equity``; nets ``plies``, the depth
    the play was valued at. None where the bot gives no such number."""

    rank: int
    play: str
    after: Position
    score: float
    equity: float | None = None
    probabilities: dict[str, float] | None = None
    cubeful_equity: float | None = None
    plies: int | None = None


def hint(position: Position | str, d1: int, d2: int, bot: BotLike = DEFAULT_BOT, *,
         cubeful: bool = False, seed: int | None = None) -> list[RankedPlay]:
    """Every legal play of the roll ``d1``-``d2`` ranked by ``bot``, best first (``gammon
    hint``); empty when the roll cannot be played. ``cubeful`` ranks by cubeful money
    equity (Janowski's cube model, efficiency 0.68; bots with probabilities only).
    ``seed`` seeds a bot given by name that draws numbers."""
    from gammon.eval.analysis import CubeView, equity_type, ranked
    from gammon.model.cube import EFFICIENCY
    where = as_position(position)
    roll = (die(d1), die(d2))
    player = _bot(bot, where.variant, seed)
    cube = CubeView(EFFICIENCY) if cubeful else None
    if cube is not None and equity_type(player, cube) is None:
        raise UsageError("cubeful ranking needs a bot that estimates probabilities (net:, "
                         "net:PATH or gnubg)")
    rows = ranked(player, where.board, *roll, where.variant, cube)
    return [RankedPlay(r["rank"], r["play"], Position.from_id(r["result"], where.variant),
                       r["score"], r.get("cubeless_equity"), r.get("probabilities"),
                       r.get("cubeful_equity"), r.get("plies")) for r in rows]


@dataclass(frozen=True)
class Evaluation:
    """A position before the roll as a bot values it (``gammon analyze``), for the player
    on roll: ``probabilities`` (win, win_gammon, win_backgammon, lose_gammon,
    lose_backgammon), ``equity`` (cubeless money equity), ``cubeful_equity`` (money, a
    centred cube, after proper cube play), ``action`` (``no double``, ``double``, ...) and
    ``response`` (``take``, ``pass``, ...) of the proper cube action."""

    probabilities: dict[str, float]
    equity: float
    cubeful_equity: float
    action: str
    response: str


def evaluate(position: Position | str, bot: BotLike = DEFAULT_BOT) -> Evaluation:
    """The value of ``position`` before the roll, and its cube action, by a bot with
    probabilities (a net, ``gnubg``); a net looking ahead (``net:@1``) values it, and the
    cube, that many plies deep. ValueError for a bot without probabilities or a game that is
    over."""
    from gammon.eval.analysis import NoProbabilities, analyze_position, evaluator
    from gammon.model.cube import EFFICIENCY
    where = as_position(position)
    check_in_play(where.board)
    player = _bot(bot, where.variant)
    try:
        source = evaluator(player)
    except NoProbabilities:
        name = bot if isinstance(bot, str) else type(bot).__name__
        raise UsageError(f"the bot {quote(name)} estimates no probabilities; use net:, "
                         f"net:PATH or gnubg") from None
    found = analyze_position(source, where.board, None, EFFICIENCY,
                             plies=getattr(player, "plies", 0))
    return Evaluation(found["probabilities"], found["cubeless_equity"],
                      found["cubeful_equity"], found["action"], found["response"])


@dataclass(frozen=True)
class RolloutValue:
    """A rollout of a position before the roll, for the player on roll: ``equity`` (the
    cubeless money equity: mean over the trials), its standard error ``equity_se`` and 95%
    interval ``equity_ci95`` (low, high); ``probabilities`` and their ``probabilities_se``
    (the five, by name); with ``cubeful``, ``cubeful_equity`` and ``cubeful_se``;
    ``trials`` played, ``seed`` of the dice (the same seed replays the same numbers)."""

    equity: float
    equity_se: float
    equity_ci95: tuple[float, float] | None
    probabilities: dict[str, float]
    probabilities_se: dict[str, float | None]
    trials: int
    seed: int
    cubeful_equity: float | None = None
    cubeful_se: float | None = None


def rollout(position: Position | str, bot: BotLike = DEFAULT_BOT, *, trials: int = 1296,
            seed: int | None = None, truncate: int | None = None, cubeful: bool = False,
            vr: bool = True) -> RolloutValue:
    """Roll ``position`` out before the roll (``gammon rollout``): ``trials`` games played
    out by ``bot`` on both sides (or stopped after ``truncate`` plies and valued by the
    net), with variance reduction (``vr``, bots with probabilities only), the first two
    rolls stratified; ``cubeful`` plays the cube in every trial. ``seed`` None draws a
    fresh one (kept in the result)."""
    from gammon.eval.analysis import RolloutSettings, rollout as roll_out
    from gammon.eval.analysis.rollouts import MAX_PLIES, MAX_TRIALS
    from gammon.eval.playing.match import new_seed
    where = as_position(position)
    check_in_play(where.board)
    trials = count(trials, "trials", 1, MAX_TRIALS)
    if truncate is not None:
        truncate = count(truncate, "truncate (plies)", 0, MAX_PLIES)
    dice_seed = checked_seed(seed)
    dice_seed = new_seed() if dice_seed is None else dice_seed
    settings = RolloutSettings(trials=trials, seed=dice_seed, truncate=truncate, vr=bool(vr),
                               cubeful=bool(cubeful), variant=where.variant)
    result = roll_out(_bot(bot, where.variant), where.board[None], settings)[0]
    out = result.to_dict()
    five = list(out["probabilities"])
    ci = out["ci95"]["equity"]
    return RolloutValue(out["equity"], out["stderr"]["equity"],
                        None if ci is None else (ci[0], ci[1]), out["probabilities"],
                        {k: out["stderr"][k] for k in five}, out["trials"], dice_seed,
                        out.get("cubeful_equity"), out["stderr"].get("cubeful_equity"))


__all__ = ["BotLike", "Evaluation", "RankedPlay", "RolloutValue", "bot", "evaluate", "hint",
           "rollout"]
