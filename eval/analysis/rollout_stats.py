"""A rollout's results and their statistics: ``Result`` holds one position's per-trial
values, and from them the means, their standard errors and 95% intervals.

Each trial gives one value of each quantity; the estimate is the mean over the trials, its
sample standard error ``std(ddof=1) / sqrt(trials)`` and its 95% interval mean +- 1.96 SE.
Stratified dice (``eval.analysis.rollout_dice``) make that SE conservative (the trials are
less alike than independent ones). Two rollouts on the same dice (the same seed, dice
stream and trials: e.g. the candidate plays of one roll) are paired trial by trial:
``paired_difference`` gives their difference with its own, smaller, standard error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gammon.engine.outcomes import FIVE, OUTCOME_POINTS, to_five

from .rollout_settings import Settings

Z95 = 1.959963984540054


@dataclass
class Result:
    """One position's rollout: per trial values (each (trials, ...) float64, in trial order)
    and their statistics, all for the player on roll at the start.

    outcomes  (T, 6)  the six exclusive outcomes (variance reduction applied: a trial's
                      values may lie outside [0, 1]; their means are the estimates)
    cubeful   (T,)    cubeful rollouts: money equity per unit of the position's cube, or
                      at a match score the match winning chance; else None
    mwc       (T,)    at a match score: the cubeless match winning chance of each trial's
                      outcomes at the position's cube (money: None)
    plies     (T,)    plies played in each trial
    """

    outcomes: np.ndarray
    cubeful: np.ndarray | None
    mwc: np.ndarray | None
    plies: np.ndarray
    settings: Settings
    match: bool = False
    seconds: float = math.nan
    extra: dict = field(default_factory=dict)

    @property
    def trials(self) -> int:
        return len(self.outcomes)

    @property
    def five(self) -> np.ndarray:
        """(T, 5): gnubg's five per trial (win, win gammon, win backgammon, lose gammon,
        lose backgammon; gammons include backgammons)."""
        return to_five(self.outcomes)

    @property
    def equities(self) -> np.ndarray:
        """(T,): cubeless money equity per trial."""
        return self.outcomes @ OUTCOME_POINTS

    @property
    def probabilities(self) -> np.ndarray:
        return self.five.mean(axis=0)

    @property
    def probabilities_se(self) -> np.ndarray:
        return np.array([standard_error(c) for c in self.five.T])

    @property
    def equity(self) -> float:
        return float(self.equities.mean())

    @property
    def equity_se(self) -> float:
        return standard_error(self.equities)

    @property
    def cubeful_equity(self) -> float | None:
        return None if self.cubeful is None else float(self.cubeful.mean())

    @property
    def cubeful_se(self) -> float | None:
        return None if self.cubeful is None else standard_error(self.cubeful)

    def main(self) -> np.ndarray:
        """The per-trial values of the headline equity: cubeful when rolled out cubeful,
        else the cubeless money equity (what ``until_se`` watches)."""
        return self.cubeful if self.cubeful is not None else self.equities

    def to_dict(self) -> dict:
        """Every estimate with its standard error and 95% interval, as JSON values."""
        p, se = self.probabilities, self.probabilities_se
        out = {"probabilities": {k: float(v) for k, v in zip(FIVE, p)},
               "equity": self.equity,
               "stderr": {**{k: _json(v) for k, v in zip(FIVE, se)},
                          "equity": _json(self.equity_se)},
               "ci95": {**{k: interval(v, s) for k, v, s in zip(FIVE, p, se)},
                        "equity": interval(self.equity, self.equity_se)}}
        if self.cubeful is not None:
            key = "cubeful_mwc" if self.match else "cubeful_equity"
            out[key] = self.cubeful_equity
            out["stderr"][key] = _json(self.cubeful_se)
            out["ci95"][key] = interval(self.cubeful_equity, self.cubeful_se)
        if self.mwc is not None:
            m, s = float(self.mwc.mean()), standard_error(self.mwc)
            out["cubeless_mwc"] = m
            out["stderr"]["cubeless_mwc"] = _json(s)
            out["ci95"]["cubeless_mwc"] = interval(m, s)
        out["trials"] = self.trials
        out["mean_plies"] = float(self.plies.mean())
        out["settings"] = self.settings.to_dict(self.match)
        out.update(self.extra)
        return out


def standard_error(values: np.ndarray) -> float:
    """The sample standard error of the mean of per-trial values (NaN for one trial)."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) < 2:
        return math.nan
    return float(values.std(ddof=1) / math.sqrt(len(values)))


def interval(mean: float, se: float) -> list | None:
    """The 95% interval [mean - 1.96 SE, mean + 1.96 SE] (None without an SE)."""
    if se is None or not math.isfinite(se):
        return None
    return [float(mean - Z95 * se), float(mean + Z95 * se)]


def _json(x):
    return None if x is None or not math.isfinite(x) else float(x)


def paired_difference(a: Result, b: Result, which: str = "equity") -> tuple[float, float]:
    """Mean and standard error of ``a`` minus ``b`` trial by trial, for two rollouts on the
    same dice (the same seed, key and trials): ``which`` is "equity" (cubeless) or
    "cubeful". The pairing takes the dice's luck out of the difference."""
    if a.trials != b.trials:
        raise ValueError(f"paired rollouts need the same trials, got {a.trials} and {b.trials}")
    pick = (lambda r: r.equities) if which == "equity" else (lambda r: r.cubeful)
    d = pick(a) - pick(b)
    return float(d.mean()), standard_error(d)


__all__ = ["Z95", "Result", "interval", "paired_difference", "standard_error"]
