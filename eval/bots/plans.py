"""Four bots with a known style: the four game plans of our rules source, each a weight
table over the heuristic bot's contact features (``eval.bots.heuristic``: same features, same
race play), so that each plays its plan and nothing else changes.

Each table starts from the heuristic's ``Weights`` and changes only what the plan says:

| bot        | the plan, as the source puts it | what changes |
|------------|---------------------------------|--------------|
| `runner`   | race home, pass the opponent's checkers safely, hit far-advanced checkers, avoid direct shots | race lead x4, back checkers and blocked checkers cost 4x, shots cost 2x, anchors worth little, primes half |
| `holder`   | stay back on an anchor in the opponent's home, build your 5-, bar- and 4-points, wait for a shot | anchors on the opponent's 4-, 5- and bar points 3x, back checkers no cost, 4-/5-/bar points 1.5x, race lead a quarter |
| `blocker`  | build consecutive closed points up to a six-point prime, break it from the back | primes 5x (and worth as much with nobody behind), builders 3x, the points 4..9 2x, blots (slots) cost half |
| `attacker` | hit in your home board, take the opponent's 5-point, two checkers on the bar, accept blots to attack | a checker on the bar 3x (and more per home point), home points 1.5x, blots and shots cost half |

What each optimises, measured in its own games (``plan_measures``): the runner's race lead,
the holder's anchors held, the blocker's longest prime, the attacker's hits.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from gammon.eval.bots.heuristic import WEIGHTS, HeuristicBot, Weights

PLAN_BOTS = ("runner", "holder", "blocker", "attacker")


def _scaled(points: tuple, factors: dict[int, float]) -> tuple:
    """``points`` (value of point p at p - 1) with the points in ``factors`` scaled."""
    return tuple(v * factors.get(p, 1.0) for p, v in enumerate(points, 1))


def plan_weights(plan: str) -> Weights:
    """The weight table of a plan bot (see the module's table)."""
    w = WEIGHTS
    if plan == "runner":
        return replace(w, pip=4 * w.pip, back=4 * w.back, blocked=4 * w.blocked,
                       shot=2 * w.shot, shot_pips=2 * w.shot_pips,
                       points=_scaled(w.points, {p: 0.3 for p in range(18, 25)}),
                       prime=tuple(v / 2 for v in w.prime))
    if plan == "holder":
        return replace(w, back=0.0, pip=w.pip / 4,
                       points=_scaled(w.points, {18: 3.0, 20: 3.0, 21: 3.0, 4: 1.5, 5: 1.5,
                                                 7: 1.5}))
    if plan == "blocker":
        return replace(w, prime=tuple(5 * v for v in w.prime), prime_free=1.0,
                       builders=3 * w.builders, blot=w.blot / 2,
                       points=_scaled(w.points, {p: 2.0 for p in range(4, 10)}))
    if plan == "attacker":
        return replace(w, opp_bar=3 * w.opp_bar, opp_bar_board=3 * w.opp_bar_board,
                       blot=w.blot / 2, shot=w.shot / 2, shot_pips=w.shot_pips / 2,
                       points=_scaled(w.points, {p: 1.5 for p in range(1, 7)}))
    raise ValueError(f"unknown plan {plan!r}; plans: {', '.join(PLAN_BOTS)}")


def plan_bot(plan: str, checkers: int = 15) -> HeuristicBot:
    """The bot that plays ``plan`` (``runner``, ``holder``, ``blocker``, ``attacker``)."""
    bot = HeuristicBot(plan_weights(plan), checkers)
    bot.name = plan
    bot.score_label = f"{plan} score"
    return bot


def plan_measures(before: np.ndarray, after: np.ndarray) -> dict[str, np.ndarray]:
    """What each plan optimises, for plays (M,): boards before and afterstates (M, 26)
    from the mover's side, each (M,) float:

    runner:   the race lead after the play (opponent's pips minus ours)
    holder:   anchors held on the opponent's bar, 6-, 5- and 4-points (our 18..21)
    blocker:  the longest run of made points
    attacker: opponent checkers sent to the bar by the play (hits)
    """
    from gammon.engine.plan import longest_run
    b = np.asarray(after, dtype=np.int16)
    mine, theirs = np.maximum(b, 0), np.maximum(-b, 0)
    points = np.arange(26)
    lead = theirs @ (25 - points) - mine @ points
    made = mine[:, 1:25] >= 2
    run, _ = longest_run(made)
    hits = theirs[:, 0] - np.maximum(-np.asarray(before, dtype=np.int16)[:, 0], 0)
    return {"runner": lead.astype(float), "holder": made[:, 17:21].sum(axis=1).astype(float),
            "blocker": run.astype(float), "attacker": hits.astype(float)}


__all__ = ["PLAN_BOTS", "plan_weights", "plan_bot", "plan_measures"]
