"""Rollouts of a review's marked decisions (``gammon review --rollout``): each checker play
and cube decision the 0-ply grading marked doubtful, bad or very bad is rolled out again
(``eval.analysis.rollout_decisions``), cubeful at the cube state of the moment, so that the
player sees whether the error stands.

- A checker play: the move filter's candidates and the play made, every one on the same
  dice; the rollout's loss is the best candidate's mean minus the play made's, with the
  standard error of their paired differences.
- A cube decision: the doubler's position rolled out with the cube as it lies (no double)
  and doubled and taken, on the same dice; double/pass is exact. The proper action is
  the one those values give (``model.cube.decide_from``). The doubler's loss is the proper
  action's value less his action's (a double is worth min(double/take, double/pass) to
  him); the taker's is his response's value to the doubler less the better response's.

Values are EMG per 1-cube, as the review's: money rollouts are per cube already; at a
match score the rollout's match winning chances are converted at the score and cube of
the moment (``model.match_cube.to_emg``), on the table the rollouts play by
(``eval.analysis.cube.match_met``, engine.met's). The 0-ply figures (losses, marks, error
rates) stay as they were: the rollout is told beside them, under the decision's
``"rollout"`` key:

    {"loss": EMG, "se": its standard error (None for one trial), "best": the rollout's
     best play or proper cube action, "trials": per candidate}
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from gammon.engine.formats.matchid import CENTRED, MatchState
from gammon.engine.formats.notation import parse_play
from gammon.engine.movegen import legal_plays

from .decisions import GameTurns, Turn


def match_state(turn: Turn) -> MatchState:
    """The ``MatchState`` of a turn before its roll, the player on roll its player."""
    s = turn.state
    return MatchState(cube_value=s.cube, cube_owner=CENTRED if s.owner < 0 else s.owner,
                      on_roll=s.player, turn=s.player, crawford=s.crawford,
                      length=s.length, score=tuple(s.score), jacoby=s.jacoby)


def turn_settings(settings, turn: Turn):
    """The rollout settings with the cube rules of the turn (Jacoby, beavers, efficiency)."""
    s = turn.state
    return replace(settings, cubeful=True, jacoby=s.jacoby, beavers=s.beavers,
                   efficiency=s.efficiency)


def _emg_scale(state: MatchState):
    """(f, offset): EMG = f * value + offset for the mover's rollout values at ``state``
    (money: the values are EMG per cube already)."""
    if not state.length:
        return 1.0, 0.0
    from gammon.model.match_cube import to_emg

    from gammon.eval.analysis.cube import match_met, match_score
    score, met = match_score(state), match_met(state.length)
    zero, one = to_emg(np.array([0.0, 1.0]), score, met)
    return float(one - zero), float(zero)


def roll_out_play(bot, turn: Turn, rules, settings) -> dict:
    """The rollout of the play made at ``turn`` against the filter's candidates."""
    from gammon.eval.analysis.rollout_decisions import rollout_plays
    d1, d2 = turn.roll
    plays = legal_plays(turn.board[None], np.array([[d1, d2]]), rules)
    made = parse_play(turn.play, turn.board, d1, d2, plays, rules)
    state = match_state(turn)
    rows = rollout_plays(bot, turn.board, d1, d2, turn_settings(settings, turn), state,
                         include=[made])
    after = plays.boards[made]
    from gammon.engine.formats import position
    made_id = position.write_many(after[None], rules)[0]
    mine = next(r for r in rows if r["result"] == made_id)
    f, _ = _emg_scale(state)
    if mine["difference"] is None:
        loss, se = 0.0, None
    else:
        loss = -f * mine["difference"]["mean"]
        se = None if mine["difference"]["se"] is None else f * mine["difference"]["se"]
    return {"loss": max(loss, 0.0), "se": se, "best": rows[0]["play"],
            "trials": max(r["trials"] for r in rows)}


def roll_out_cube(bot, turn: Turn, kind: str, settings) -> dict:
    """The rollout of the cube decision ``kind`` ("double": the doubler's, "take": the
    taker's) at ``turn``, from the doubler's side."""
    from gammon.eval.analysis.rollout_decisions import rollout_cube
    state = match_state(turn)
    out = rollout_cube(bot, turn.board, turn_settings(settings, turn), state)
    f, offset = _emg_scale(state)
    values = {k: f * v + offset for k, v in out["cubeful"].items()}  # EMG per cube
    se = out["stderr"]
    nd, dt, dp = values["no_double"], values["double_take"], values["double_pass"]
    double = min(dt, dp)
    pair = se.get("double_take_minus_no_double")
    if kind == "double":
        best = max(nd, double)
        chosen = double if turn.doubled else nd
        loss = best - chosen
        if loss <= 0:
            spread = None
        elif dp < dt:  # double/pass is exact: the error is that of no double alone
            spread = se.get("no_double")
        else:
            spread = pair
        words = out["decision"].lower()
    else:
        chosen = dt if turn.response == "take" else dp
        loss = chosen - double  # the taker's loss: what his answer gives the doubler more
        spread = se.get("double_take") if loss > 0 else None
        words = "take" if dt <= dp else "pass"
    spread = None if spread is None else spread * abs(f)  # the se of a money value is per cube
    return {"loss": max(float(loss), 0.0), "se": spread, "best": words,
            "trials": int(out["trials"])}


def roll_out_marked(report: dict, games: list[GameTurns], bot, rules, settings,
                    progress=None) -> int:
    """Give every marked decision of ``report`` (the games ``games`` it was graded from)
    its ``"rollout"``; the decisions rolled out. ``progress(n)`` after each."""
    done = 0
    for g, walked in zip(report["games"], games):
        turns = {t.move: t for t in walked.turns}
        for d in g["decisions"]:
            if not d["mark"]:
                continue
            turn = turns[d["move"]]
            if d["kind"] == "checker":
                d["rollout"] = roll_out_play(bot, turn, rules, settings)
            elif d["kind"] in ("double", "take"):
                d["rollout"] = roll_out_cube(bot, turn, d["kind"], settings)
            else:
                continue
            done += 1
            if progress is not None:
                progress(1)
    return done


def loss_words(r: dict) -> str:
    """A decision's rollout in words: "loses 0.052 +- 0.014 (95%), best 8/5 6/5, 1,296
    trials"."""
    spread = "" if r.get("se") is None else f" +- {1.96 * r['se']:.3f} (95%)"
    return (f"loses {r['loss']:.3f}{spread}, best {r['best']}, {r['trials']:,} "
            f"trial{'s' * (r['trials'] != 1)}")


def count_marked(report: dict) -> int:
    return sum(bool(d["mark"]) for g in report["games"] for d in g["decisions"]
               if d["kind"] in ("checker", "double", "take"))


__all__ = ["count_marked", "loss_words", "match_state", "roll_out_cube", "roll_out_marked",
           "roll_out_play"]
