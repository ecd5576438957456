"""Decisions by rollout: the candidate plays of a roll, and the cube action before a roll,
each valued by rollouts on the same dice so that their differences carry their own
(paired) intervals.

    rows = rollout_plays(bot, board (26,), 3, 1, Settings(trials=1296, seed=1))
    cube = rollout_cube(bot, board (26,), Settings(trials=1296, seed=1, cubeful=True))

Plays: the move filter's candidates (``model.lookahead.candidates``: the best
``FILTER_PLAYS`` at the bot's 0-ply cubeless equity, within ``FILTER_EQUITY`` of the best)
are each rolled out from the position after the play, the opponent on roll, every
candidate on the same dice stream (one key): trial t of every candidate sees the same
rolls, so the difference of two candidates, trial by trial, loses most of the dice's luck
and its standard error is that of the paired differences. A play that ends the game is
valued by its result (no trials). A bot without probabilities has no 0-ply equity: its
candidates are its ``FILTER_PLAYS`` best by its own score.

Cube: the position is rolled out twice on the same dice, cubeful (the cube played inside
every trial): "no double" (the cube as it lies, the player on roll not doubling before
his first roll) and "double, take" (the cube at twice its value, owned by the opponent);
"double, pass" is exact (the cube's points; at a match score the match winning chance
after winning them). The proper action follows from the three as ``model.cube.decide_from``
says, and the difference double/take - no double carries its paired interval. Values are
for the player on roll per unit of the cube as it lies (money), or match winning chances.
"""

from __future__ import annotations

import sys
from dataclasses import replace

import numpy as np

from gammon.engine.board import flip
from gammon.engine.formats import position
from gammon.engine.formats.notation import format_play
from gammon.engine.movegen import legal_plays
from gammon.engine.outcomes import FIVE, certain, equity_of_five, to_five
from gammon.model.cube import ACTIONS, RESPONSES, CubeEquities, decide_from
from gammon.model.lookahead import FILTER_EQUITY, FILTER_PLAYS, candidates

from .cube import match_met, match_score, no_double_reason
from .plays import play_probabilities
from .rollouts import Result, Settings, interval, rollout, standard_error


def _mover_values(result: Result, cubeful: bool, match: bool) -> np.ndarray:
    """(T,) the value of each trial for the player who made the play (the opponent is on
    roll in the rollout): money equity, or match winning chance at a score."""
    if match:
        return 1.0 - (result.cubeful if cubeful else result.mwc)
    return -(result.cubeful if cubeful else result.equities)


def _estimate(values: np.ndarray) -> dict:
    mean, se = float(values.mean()), standard_error(values)
    return {"mean": mean, "se": _finite(se), "ci95": interval(mean, se)}


def _finite(x):
    return None if x is None or not np.isfinite(x) else float(x)


def filter_candidates(bot, board, dice, plays, rules, most: int = FILTER_PLAYS,
                      within: float = FILTER_EQUITY) -> np.ndarray:
    """(K,) bool: the plays (of one position ``board`` and roll ``dice``) the move filter
    keeps for a rollout."""
    p5 = play_probabilities(_zero_ply(bot), plays, rules)
    if p5 is not None:
        return candidates(equity_of_five(p5), plays.root, 1, most, within)
    scores = np.asarray(bot.scores(plays, board[None], np.array([dice])), dtype=np.float64)
    keep = np.zeros(len(scores), dtype=bool)
    keep[np.argsort(-scores, kind="stable")[:most]] = True
    return keep


def _zero_ply(bot):
    """The bot at 0-ply where it is a net looking ahead (the filter is on 0-ply values)."""
    policy = sys.modules.get("gammon.model.policy")  # loaded when a net is (no torch otherwise)
    if policy is not None and isinstance(bot, policy.NetPolicy) and bot.plies:
        return policy.NetPolicy(bot.evaluator, 0)
    return bot


def rollout_plays(bot, board: np.ndarray, d1: int, d2: int, settings: Settings,
                  state=None, progress=None, runner=None, most: int = FILTER_PLAYS,
                  within: float = FILTER_EQUITY, include=()) -> list[dict]:
    """The move filter's candidate plays of ``d1``-``d2``, rolled out on the same dice,
    best first (by the rollout's mean; cubeful with ``settings.cubeful``): each row has
    ``rank``, ``play``, ``result`` (Position ID after the play, not flipped),
    ``probabilities`` (the five for the mover), ``equity`` (``mean``, ``se``, ``ci95``:
    money equity, or MWC at a match score), ``difference`` (to the best: mean, paired se,
    ci95; None for the best) and ``trials``. Empty when no play is legal.
    ``state``: the position's ``MatchState`` (None: money, centred cube). ``include``: rows
    of ``legal_plays(board, (d1, d2))`` rolled out whether the filter keeps them or not
    (the play a player made, in a review)."""
    rules = settings.rules
    board = np.asarray(board, dtype=np.int8).reshape(26)
    plays = legal_plays(board[None], np.array([[d1, d2]]), rules)
    if plays.dice_used[0] == 0:
        return []
    kept = np.array(filter_candidates(bot, board, (d1, d2), plays, rules, most, within),
                    dtype=bool)  # (K,)
    kept[np.asarray(include, dtype=np.int64)] = True
    keep = np.flatnonzero(kept)
    after = plays.boards[keep]
    points = rules.end_of_game(after)  # (k,) the mover's points where the play ends it
    going = np.flatnonzero(points == 0)
    match = state is not None and state.length > 0
    opponent = None if state is None else replace(state, on_roll=1 - state.on_roll)
    results = rollout(bot, flip(after[going]), settings, states=opponent,
                      keys=np.zeros(len(going), dtype=np.int64), progress=progress,
                      runner=runner) if len(going) else []
    trials = results[0].trials if results else 0
    values, fives = {}, {}
    for j, r in zip(going, results):
        values[j] = _mover_values(r, settings.cubeful, match)
        fives[j] = to_five(r.outcomes[:, ::-1]).mean(axis=0)
    for j in np.flatnonzero(points != 0):
        six = certain(points[j:j + 1])[0]
        fives[j] = to_five(six[None])[0]
        values[j] = np.full(max(trials, 1), _game_over_value(points[j], six, state, settings))
    order = sorted(range(len(keep)), key=lambda j: -values[j].mean())
    best = values[order[0]]
    ids = position.write_many(after, rules)
    rows = []
    for rank, j in enumerate(order, 1):
        k = keep[j]
        diff = None if rank == 1 else _estimate(values[j] - best)
        rows.append({"rank": rank, "play": format_play(plays.steps[k], plays.hits[k],
                                                       (d1, d2)),
                     "result": ids[j],
                     "probabilities": {n: float(v) for n, v in zip(FIVE, fives[j])},
                     "equity": _estimate(values[j]), "difference": diff,
                     "trials": trials if points[j] == 0 else 0})
    return rows


def _game_over_value(points: int, six: np.ndarray, state, settings: Settings) -> float:
    """The mover's value of a play that ends the game: its points (money; cubeful: times
    the cube, single under Jacoby with a centred cube), or his MWC after it."""
    if state is not None and state.length > 0:
        from gammon.model.match_cube import match_winning_chances
        return float(match_winning_chances(six[None], match_score(state),
                                           match_met(state.length))[0])
    if not settings.cubeful:
        return float(points)
    centred = state is None or state.cube_owner not in (0, 1)
    return float(min(points, 1) if settings.jacoby and centred else points)


def rollout_cube(bot, board: np.ndarray, settings: Settings, state=None, progress=None,
                 runner=None) -> dict:
    """The cube action of a position before the roll by cubeful rollouts on one dice
    stream, with the keys of ``analyze_position``'s answer: ``probabilities`` and
    ``cubeless_equity`` (of the no-double trials), ``cubeful`` {no_double, double_take,
    double_pass} (money per unit of the cube as it lies, or MWC at a match score, with
    ``cubeless_mwc``, ``cubeful_emg`` and ``cubeless_emg``), ``action``, ``response``,
    ``decision`` (words) and ``cubeful_equity``; and the rollout's own: ``stderr`` and
    ``ci95`` of each estimate, ``double_take_minus_no_double`` (mean, paired se, ci95)
    and ``trials``. Where the player on roll may not double, only the no-double rollout
    is made, ``cube`` says why, and double/take is missing."""
    settings = replace(settings, cubeful=True, double_at_start=False)
    board = np.asarray(board, dtype=np.int8).reshape(1, 26)
    match = state is not None and state.length > 0
    reason = no_double_reason(state)
    states = [state]
    if reason is None:
        base = state if state is not None else _money_state()
        states.append(replace(base, cube_value=2 * base.cube_value,
                              cube_owner=1 - base.on_roll))
    results = rollout(bot, np.repeat(board, len(states), axis=0), settings, states=states,
                      keys=np.zeros(len(states), dtype=np.int64), progress=progress,
                      runner=runner)
    first = results[0]
    values = {"cubeless_equity": first.equities, "no_double": first.cubeful}
    if match:
        values["cubeless_mwc"] = first.mwc
    if reason is None:
        values["double_take"] = results[1].cubeful * (1.0 if match else 2.0)  # per cube
        values["double_take_minus_no_double"] = values["double_take"] - first.cubeful
    est = {k: _estimate(v) for k, v in values.items()}
    for k, se in zip(FIVE, first.probabilities_se):
        est[k] = {"mean": None, "se": _finite(se),
                  "ci95": interval(first.probabilities[FIVE.index(k)], se)}
    dp = _double_pass(state)
    cubeful = {"no_double": est["no_double"]["mean"]}
    if reason is None:
        cubeful.update(double_take=est["double_take"]["mean"], double_pass=dp)
    out = {"probabilities": {k: float(v) for k, v in zip(FIVE, first.probabilities)},
           "cubeless_equity": first.equity, "cubeful": cubeful}
    if reason is None:
        means = CubeEquities(*(np.array([cubeful[k]]) for k in
                               ("no_double", "double_take", "double_pass")))
        decision = decide_from(means, settings.beavers and not match)
        out.update(action=ACTIONS[int(decision.action[0])],
                   response=RESPONSES[int(decision.response[0])],
                   decision=decision.words()[0], cubeful_equity=float(decision.equity[0]))
    else:
        out.update(action=ACTIONS[0], response=None, decision="No double",
                   cubeful_equity=cubeful["no_double"], cube=reason)
    if match:
        out["cubeless_mwc"] = est["cubeless_mwc"]["mean"]
        out.update(_emg(out, state))
    out["stderr"] = {k: e["se"] for k, e in est.items()}
    out["ci95"] = {k: e["ci95"] for k, e in est.items()}
    if reason is None:
        out["double_take_minus_no_double"] = est["double_take_minus_no_double"]
    out["trials"] = first.trials
    return out


def _emg(out: dict, state) -> dict:
    """The equivalent money equities of a match rollout's MWCs (``model.match_cube``)."""
    from gammon.model.match_cube import to_emg
    score, met = match_score(state), match_met(state.length)

    def emg(x) -> float:
        return float(to_emg(np.array([x]), score, met)[0])
    return {"cubeless_emg": emg(out["cubeless_mwc"]),
            "cubeful_emg": {k: emg(v) for k, v in out["cubeful"].items()},
            "cubeful_equity_emg": emg(out["cubeful_equity"])}


def _money_state():
    from gammon.engine.formats.matchid import MatchState
    return MatchState()


def _double_pass(state) -> float:
    """The doubler's value when his double is passed: +1 per cube (money), or his MWC
    after winning the cube's points."""
    if state is None or state.length == 0:
        return 1.0
    from gammon.model.match_cube import match_winning_chances
    score = match_score(state)
    six = np.zeros((1, 6))
    six[0, 2] = 1.0  # a single win at the cube as it lies
    return float(match_winning_chances(six, score, match_met(state.length))[0])


__all__ = ["filter_candidates", "rollout_cube", "rollout_plays"]
