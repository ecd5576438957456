"""The review of a match file as one object, the report every front door prints or sends
(``gammon review`` as text, ``--json``, ``--html``; serve-http's ``/review``).

The object (keys beyond these may be added, none dropped or renamed)::

    {"format": "mat" | "sgf", "file": str, "variant": str, "match_length": int (0: money),
     "bot": str, "plies": int, "thresholds": {doubtful, bad, very_bad, lucky, very_lucky,
     unlucky, very_unlucky},
     "players": [per player, the file's order: see eval.review.stats],
     "games": [{"number", "score" (before the game), "crawford", "winner" (0, 1 or None),
                "points", "decisions": [see eval.review.grade], "warning" (or None)}],
     "warnings": [str], "equity_unit": "EMG per 1-cube", "met": str}

Each decision: move (the turn in its game, from 1), player, kind ("checker", "double",
"take"), board (26 ints from the player's side), posid, xgid, dice, cube {value, owner
(-1 centred)}, action, best, loss (>= 0), forced, mark, luck, luck_mark, equity (player
0's cubeful EMG before the decision), options (up to 5, best first: action, equity from
the decider's side, loss, probabilities).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from gammon.eval.analysis import evaluator

from .decisions import IllegalAction, walk_match
from .grade import checker_decision, cube_decisions
from .marks import Thresholds
from .rolls import evaluate_game
from .source import ReviewInputError, read_source
from .stats import player_stats
from .values import cube_values

MAX_DECISIONS = 20_000  # turns a review takes on at most by default (serve-http: less)


class TooMuchWork(ValueError):
    """A file with more turns than the review is allowed to grade (one line)."""


def count_turns(games) -> int:
    return sum(len(g.turns) for g in games)


def prepare(text: str, skip: bool = False, variant: str | None = None,
            jacoby: bool | None = None, beavers: bool | None = None,
            efficiency: float | None = None, met=None):
    """(source, walked games, variant) of a file's text; ReviewInputError (one line) for
    a file that cannot be read or, without ``skip``, holds an illegal action. ``met``: the
    match equity table a match is valued with (an ``engine.met.MatchEquityTable``; None:
    ``model.match_cube.met_for``'s). ``jacoby``, ``beavers``: None takes the file's word."""
    from gammon.engine.rules import variant as get_variant
    source = read_source(text, skip)
    chosen = variant or source.match.variant
    try:
        rules = get_variant(chosen)
    except ValueError as e:
        raise ReviewInputError(str(e)) from None
    if rules.extra_state:
        raise ReviewInputError(f"{rules.name}: a review replays positions from the board "
                               f"alone, which this variant's state is more than")
    source.match.variant = rules.name
    jacoby = source.jacoby if jacoby is None else jacoby
    beavers = source.beavers if beavers is None else beavers
    try:
        games = walk_match(source.match, source.crawford, skip, jacoby, beavers, efficiency)
    except IllegalAction as e:
        raise ReviewInputError(f"illegal action: {e}") from None
    for g in games:
        if g.number in source.cut_games:
            g.winner, g.points = None, 0
    if met is not None and source.match.length:
        if source.match.length > met.length:
            raise ReviewInputError(f"the match is to {source.match.length} points and the "
                                   f"table {met.name or 'given'} (--met) stops at "
                                   f"{met.length}")
        for g in games:
            for t in g.turns:
                t.state = replace(t.state, met=met)
    return source, games, rules


def review(text: str, bot, bot_name: str, plies: int = 0, file: str = "",
           thresholds: Thresholds = Thresholds(), skip: bool = False,
           variant: str | None = None, jacoby: bool | None = None,
           beavers: bool | None = None,
           efficiency: float | None = None, max_turns: int = MAX_DECISIONS,
           progress=None, prepared=None, met=None) -> dict:
    """The report object of a match file's text, graded by ``bot`` (one that estimates
    probabilities). ReviewInputError for a file that cannot be reviewed, TooMuchWork past
    ``max_turns`` turns. ``progress(n)`` is called as turns are graded; ``prepared`` is
    what ``prepare`` gave (so a caller can count the turns first)."""
    from gammon.model.match_cube import met_for
    source, games, rules = prepared or prepare(text, skip, variant, jacoby, beavers,
                                               efficiency, met)
    turns = count_turns(games)
    if turns > max_turns:
        raise TooMuchWork(f"the file has {turns:,} turns to grade, more than the "
                          f"{max_turns:,} allowed")
    evaluate = evaluator(bot)
    match = source.match
    out_games, warnings = [], list(source.warnings)
    for g in games:
        cube_rows = [i for i, t in enumerate(g.turns) if not t.first and t.state.may_double()]
        probs = {}
        if cube_rows:
            pre = np.asarray(evaluate(np.stack([g.turns[i].board for i in cube_rows])),
                             dtype=np.float64)
            from gammon.engine.outcomes import to_five
            pre = to_five(pre)
            probs = {i: pre[k] for k, i in enumerate(cube_rows)}
        rolls = evaluate_game(bot, g.turns, rules, progress)
        decisions = []
        for i, t in enumerate(g.turns):
            values = cube_values(probs[i][None], t.state)[0] if i in probs else None
            decisions += cube_decisions(t, values, rules, thresholds)
            if rolls[i] is not None:
                decisions.append(checker_decision(t, rolls[i], rules, thresholds))
        if g.warning:
            warnings.append(g.warning)
        out_games.append({"number": g.number, "score": list(g.score),
                          "crawford": bool(g.crawford), "winner": g.winner,
                          "points": int(g.points) if g.winner is not None else 0,
                          "decisions": decisions, "warning": g.warning})
    table = ""
    if match.length:
        first = next((t.state for g in games for t in g.turns), None)
        if first is not None and first.met is not None:
            table = f"{first.met.name or 'a table file'}, {first.met.length} points"
        else:
            from gammon.model.match_cube import GAMMON_RATE
            table = (f"engine.met live cube, gammon rate {GAMMON_RATE:g}, "
                     f"{met_for(_score(match.length)).length} points")
    return {"format": source.format, "file": file, "variant": match.variant,
            "match_length": int(match.length), "bot": bot_name, "plies": int(plies),
            "thresholds": thresholds.to_dict(),
            "players": player_stats(match.names, out_games), "games": out_games,
            "warnings": warnings, "names": list(match.names),
            "equity_unit": "EMG per 1-cube", "met": table,
            "jacoby": bool(games[0].turns[0].state.jacoby) if games and games[0].turns
            else False}


def _score(length: int):
    from gammon.model.match_cube import MatchScore
    return MatchScore(length, length, length)


__all__ = ["MAX_DECISIONS", "TooMuchWork", "ReviewInputError", "count_turns", "prepare",
           "review"]
