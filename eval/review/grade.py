"""Grading the decisions of one turn: the checker play and the cube actions, each as the
report's decision object (``eval.review.report`` documents its keys).

Checker play: the loss is the best play's cubeful EMG (per 1-cube, at the cube state of
the moment) minus the play made's, >= 0. A play is forced when the roll has one legal
result or none ("forced plays are not counted": no loss, no mark).

Cube decisions (the doubler's ND, DT, DP per 1-cube, ``eval.review.values.cube_values``):
the taker passes when DT > DP and else takes (beavers, where on, when DT < 0: he then
holds the cube at twice the value and the doubler gets 2 DT); the doubler's equity of
doubling is D = min(DP, DT or 2 DT). The proper action is double when D > ND, too good
(play on) when ND > DP, else no double; its equity E = max(ND, D) when not too good, ND
when too good. The loss of no double is E - ND, of a double E - D; the taker's loss is his
best of -DT, -DP (and -2 DT beavering) minus what he chose.

Which cube decisions count ("close or actual", as GNU Backgammon counts them for its cube
error rate): every double and every take or pass; and a decision not to double when it was
close, that is when doubling would have cost less than 0.16 (D > ND - 0.16; a missed
double is always close). The others are "total" cube decisions only.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.formats import position, xgid
from gammon.engine.formats.matchid import CENTRED, MatchState
from gammon.engine.formats.notation import format_play, parse_play
from gammon.engine.movegen import legal_plays
from gammon.engine.outcomes import equity_of_five

from .decisions import Turn
from .luck import roll_luck
from .marks import Thresholds
from .rolls import TurnRolls
from .values import CubeValues, TurnState

# equities equal to this many decimals are a tie (float noise of the same value by two
# paths); ties go to the better cubeless money equity, as gnubg breaks them
TIE_DIGITS = 7

CLOSE = 0.16  # a cube decision is close when doubling costs less than this
OPTIONS = 5  # options listed per decision


def _sign(player: int) -> float:
    return 1.0 if player == 0 else -1.0


def _ids(board: np.ndarray, state: TurnState, rules, dice=None, doubled: bool = False
         ) -> tuple[str, str]:
    """(Position ID, XGID) of a board from the player on roll's side."""
    posid = position.write(board, rules)
    try:
        owner = CENTRED if state.owner < 0 else state.owner
        ms = MatchState(cube_value=state.cube, cube_owner=owner, on_roll=state.player,
                        crawford=state.crawford, turn=state.player,
                        double_offered=doubled, dice=tuple(dice) if dice else (0, 0),
                        length=state.length, score=tuple(state.score),
                        jacoby=state.jacoby)
        xg = xgid.encode(board, ms)
    except ValueError:
        xg = ""
    return posid, xg


def _base(turn: Turn, kind: str, player: int, board, state: TurnState, rules, dice=None,
          doubled=False) -> dict:
    posid, xg = _ids(board, state, rules, dice, doubled)
    return {"move": turn.move, "player": player, "kind": kind,
            "board": [int(x) for x in board], "posid": posid, "xgid": xg,
            "dice": [int(dice[0]), int(dice[1])] if dice else None,
            "cube": {"value": int(state.cube), "owner": int(state.owner)}}


def checker_decision(turn: Turn, rolls: TurnRolls, rules, thresholds: Thresholds) -> dict:
    """The checker play of a turn graded."""
    table = rolls.own
    d1, d2 = turn.roll
    r = table.index(turn.roll)
    rows = list(table.rows(r))
    values = table.values[rows]  # (k,)
    single = legal_plays(turn.board[None], np.array([[d1, d2]]), rules)
    after = single.boards[parse_play(turn.play, turn.board, d1, d2, single, rules)]
    chosen = rows[int(np.flatnonzero((table.boards[rows] == after).all(axis=1))[0])]
    no_play = int(table.dice_used[rows[0]]) == 0
    forced = len(rows) <= 1 or no_play
    best = float(values.max())
    # best first; plays of the same cubeful equity (a lost game or match is -1 whatever
    # is played) by their cubeless money equity, as gnubg breaks such ties
    cubeless = equity_of_five(table.p5[rows])  # (k,)
    tie = {k: float(c) for k, c in zip(rows, cubeless)}
    order = sorted(rows, key=lambda k: (-round(float(table.values[k]), TIE_DIGITS), -tie[k]))

    def words(k: int) -> str:
        if table.dice_used[k] == 0:
            return "no play"
        return format_play(table.steps[k], table.hits[k], (d1, d2))

    loss = 0.0 if forced else max(0.0, best - float(table.values[chosen]))
    luck = roll_luck(rolls, turn.roll)
    state = turn.after_cube()
    out = _base(turn, "checker", turn.player, turn.board, state, rules, (d1, d2))
    out.update({
        "action": words(chosen), "best": words(order[0]), "loss": loss, "forced": forced,
        "mark": None if forced else thresholds.mark(loss),
        "luck": luck, "luck_mark": thresholds.luck_mark(luck),
        "equity": _sign(turn.player) * best,
        "options": [{"action": words(k), "equity": float(table.values[k]),
                     "loss": best - float(table.values[k]),
                     "probabilities": [float(v) for v in table.p5[k]]}
                    for k in order[:OPTIONS]],
        "rank": order.index(chosen) + 1, "plays": len(rows),
        "equity_played": float(table.values[chosen]),
    })
    if chosen not in order[:OPTIONS]:
        out["options_played"] = {"action": words(chosen),
                                 "equity": float(table.values[chosen]), "loss": loss,
                                 "probabilities": [float(v) for v in table.p5[chosen]]}
    return out


def proper_cube(v: CubeValues, beavers: bool) -> dict:
    """The proper cube play of the doubler's values: the taker's response (take, pass,
    beaver) and its value to the doubler D, the best action and its equity E."""
    passes = v.double_take > v.double_pass
    beaver = beavers and not passes and v.double_take < 0
    taken = 2 * v.double_take if beaver else v.double_take
    doubled = min(taken, v.double_pass)
    if v.no_double > v.double_pass:
        action, best = "too good", v.no_double
    elif doubled > v.no_double:
        action, best = "double", doubled
    else:
        action, best = "no double", v.no_double
    response = "pass" if passes else "beaver" if beaver else "take"
    return {"response": response, "double": doubled, "action": action, "equity": best}


def cube_decisions(turn: Turn, values: CubeValues | None, rules, thresholds: Thresholds
                   ) -> list[dict]:
    """The turn's cube decisions graded: the doubler's (where he had one) and, after a
    double, the taker's."""
    if values is None:
        return []
    s = turn.state
    p = proper_cube(values, s.beavers and not s.is_match)
    probs = [float(x) for x in values.probabilities]
    nd, d = values.no_double, p["double"]
    actual = d if turn.doubled else nd
    loss = max(0.0, p["equity"] - actual)
    close = turn.doubled or d > nd - CLOSE
    options = sorted([{"action": "no double", "equity": nd, "loss": p["equity"] - nd,
                       "probabilities": probs},
                      {"action": "double", "equity": d, "loss": p["equity"] - d,
                       "probabilities": probs}], key=lambda o: -o["equity"])
    best_words = {"too good": f"too good, {p['response']}",
                  "double": f"double, {p['response']}",
                  "no double": f"no double, {p['response']}"}[p["action"]]
    doubler = _base(turn, "double", s.player, turn.board, s, rules)
    doubler.update({
        "action": "double" if turn.doubled else "no double", "best": best_words,
        "loss": loss, "forced": False, "mark": thresholds.mark(loss) if close else None,
        "luck": None, "luck_mark": None, "equity": _sign(s.player) * p["equity"],
        "options": options, "close": bool(close),
        "no_double": nd, "double_take": values.double_take,
        "double_pass": values.double_pass})
    out = [doubler]
    if not turn.doubled or turn.response is None:
        return out
    taker = 1 - s.player
    choices = {"take": -values.double_take, "pass": -values.double_pass}
    if s.beavers and not s.is_match:
        choices["beaver"] = -2 * values.double_take
    best_choice = max(choices, key=lambda k: choices[k])
    chosen = "take" if turn.response == "take" else "pass"
    t_loss = max(0.0, choices[best_choice] - choices[chosen])
    from gammon.engine.board import flip
    answer = _base(turn, "take", taker, flip(turn.board), s.other(), rules)
    answer.update({
        "action": chosen, "best": best_choice, "loss": t_loss, "forced": False,
        "mark": thresholds.mark(t_loss), "luck": None, "luck_mark": None,
        "equity": _sign(taker) * choices[best_choice],
        "options": sorted([{"action": k, "equity": v, "loss": choices[best_choice] - v,
                            "probabilities": None} for k, v in choices.items()],
                          key=lambda o: -o["equity"]),
        "close": True})
    return [doubler, answer]


__all__ = ["CLOSE", "checker_decision", "cube_decisions", "proper_cube"]
