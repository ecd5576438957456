"""Cube-decision heads: money-game cubeful equities and decisions from outcome probabilities.

From the cubeless outcome probabilities of a position before the roll, for the player on
roll (the six exclusive outcomes of ``model.net`` or gnubg's five), Janowski's cube-efficiency
model gives the cubeful equity for each cube state, in units of the current cube value:

    p = P(win)   W = average value of a win   L = average value of a loss
    E_dead = p W - (1 - p) L                         the dead cube: cubeless equity
    E_live = piecewise linear through the fully live cube's points (x = 1)
             take point  TP = (L - 1/2) / (W + L + 1/2)
             cash point  CP = (L + 1)   / (W + L + 1/2)
             centred:  (0, -L) -> (TP, -1) -> (CP, +1) -> (1, W)
             own cube: (0, -L) -> (CP, +1) -> (1, W)
             opponent's cube: (0, -L) -> (TP, -1) -> (1, W)
    E(x) = (1 - x) E_dead + x E_live                 x = cube efficiency, 0.68 by default

Under the Jacoby rule a centred cube's gammons do not count: the dead part is 2p - 1 and the
live part is -1 below TP and +1 above CP (a player that good doubles them out).

The three equities of a cube decision (the player on roll may double; per current cube):

    no double    ND = E(x, cube as it is)
    double/take  DT = 2 E(x, opponent owns the cube)
    double/pass  DP = +1

The taker takes when DT <= DP, beavers (where allowed) when DT < 0 (the position is worth
more than nothing to him at twice the cube), and then the doubler gets 2 DT; the doubler
doubles when what the taker leaves him, min(DP, DT or 2 DT), beats ND. "Too good" is ND > DP:
playing on for the gammon beats cashing. The taker's take point, in his own winning chances,
is TP(x) = (L' - 1/2) / (W' + L' + x/2) with W', L' his average win and loss (the doubler's L
and W): 25% for a dead cube without gammons, 21.4% at x = 0.68, 20% for a live cube.

Every formula is written once against an array namespace and runs on NumPy arrays and on
torch tensors alike (batched, (N, 6) or (N, 5) -> (N,); differentiable in torch). Torch is
never imported here: NumPy callers (a NumPy bot file's net) stay torch-free.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

EFFICIENCY = 0.68  # Janowski's cube efficiency x of a typical contact position
_EPS = 1e-7

# Cube actions (the doubler's) and their words
NO_DOUBLE, DOUBLE, TOO_GOOD = 0, 1, 2
ACTIONS = ("no_double", "double", "too_good")
PASS, TAKE, BEAVER = 0, 1, 2  # as engine.cube
RESPONSES = ("pass", "take", "beaver")


class _Ops:
    """The few array functions the formulas need, for NumPy or torch."""

    def __init__(self, like):
        torch = sys.modules.get("torch")  # a tensor means torch is already imported
        self.torch = torch if torch is not None and isinstance(like, torch.Tensor) else None

    def where(self, cond, a, b):
        return self.torch.where(cond, a, b) if self.torch else np.where(cond, a, b)

    def clip_low(self, a, low):
        return a.clamp(min=low) if self.torch else np.maximum(a, low)

    def minimum(self, a, b):
        return self.torch.minimum(a, b) if self.torch else np.minimum(a, b)

    def asarray(self, v, like):
        if self.torch:
            return self.torch.as_tensor(v, device=like.device)
        return np.asarray(v)


def win_and_values(probs):
    """(p, W, L): P(win), the average value of a win and of a loss, each (...,).

    probs (..., 6) six exclusive outcomes (win bg, wg, single, lose single, lg, lbg) or
    (..., 5) gnubg's five (win, wg, wbg, lg, lbg; gammons include backgammons).
    W = 1 + (P(wg) + P(wbg)) / P(win), L likewise; a side that cannot win (or lose)
    gets the value 1, which the formulas then never weigh.
    """
    if probs.shape[-1] == 6:
        p = probs[..., 0] + probs[..., 1] + probs[..., 2]
        wg, wbg = probs[..., 0] + probs[..., 1], probs[..., 0]
        lg, lbg = probs[..., 4] + probs[..., 5], probs[..., 5]
    elif probs.shape[-1] == 5:
        p, wg, wbg, lg, lbg = (probs[..., i] for i in range(5))
    else:
        raise ValueError(f"probabilities have 6 (exclusive) or 5 (gnubg) outputs, "
                         f"got shape {tuple(probs.shape)}")
    ops = _Ops(probs)
    w = 1 + (wg + wbg) / ops.clip_low(p, _EPS)
    lose = 1 - p
    l_ = 1 + (lg + lbg) / ops.clip_low(lose, _EPS)
    return p, w, l_


def cubeful_equity(probs, owner=0, efficiency: float = EFFICIENCY, jacoby: bool = False):
    """Janowski's cubeful money equity for the player on roll, per current cube: (...,).

    owner: +1 he owns the cube, 0 centred, -1 the opponent owns it (scalar or (...,)).
    Jacoby applies only to a centred cube.
    """
    ops = _Ops(probs)
    p, w, l_ = win_and_values(probs)
    owner = ops.asarray(owner, p)
    tp = (l_ - 0.5) / (w + l_ + 0.5)  # fully live cube
    cp = (l_ + 1.0) / (w + l_ + 0.5)
    rise_to_tp = -l_ + (l_ - 1.0) * p / tp  # (0, -L) -> (TP, -1)
    rise_to_cp = -l_ + (l_ + 1.0) * p / cp  # (0, -L) -> (CP, +1)
    past_cp = 1.0 + (w - 1.0) * (p - cp) / (1.0 - cp)  # (CP, +1) -> (1, W)
    middle = -1.0 + 2.0 * (p - tp) / (cp - tp)  # (TP, -1) -> (CP, +1)
    past_tp = -1.0 + (w + 1.0) * (p - tp) / (1.0 - tp)  # (TP, -1) -> (1, W)
    centred_jacoby = jacoby & (owner == 0)
    low = ops.where(centred_jacoby, -1.0 + 0 * p, rise_to_tp)
    high = ops.where(centred_jacoby, 1.0 + 0 * p, past_cp)
    centred = ops.where(p < tp, low, ops.where(p < cp, middle, high))
    own = ops.where(p < cp, rise_to_cp, past_cp)
    theirs = ops.where(p < tp, rise_to_tp, past_tp)
    live = ops.where(owner > 0, own, ops.where(owner < 0, theirs, centred))
    dead = ops.where(centred_jacoby, 2.0 * p - 1.0, p * w - (1.0 - p) * l_)
    return (1.0 - efficiency) * dead + efficiency * live


@dataclass
class CubeEquities:
    """The equities of a cube decision for the doubler (the player on roll), per current
    cube, each (N,): no double, double/take, double/pass (+1)."""

    no_double: object
    double_take: object
    double_pass: object


def cube_equities(probs, owner=0, efficiency: float = EFFICIENCY,
                  jacoby: bool = False) -> CubeEquities:
    """ND, DT and DP of the player on roll (probabilities (N, 6|5) before his roll)."""
    nd = cubeful_equity(probs, owner, efficiency, jacoby)
    dt = 2.0 * cubeful_equity(probs, -1, efficiency, jacoby)
    return CubeEquities(nd, dt, 1.0 + 0.0 * nd)


@dataclass
class CubeDecision:
    """What both sides do, each (N,): the doubler's action (NO_DOUBLE, DOUBLE, TOO_GOOD),
    the taker's response (PASS, TAKE, BEAVER) were he doubled, and the doubler's equity
    after proper cube play on both sides (per current cube)."""

    action: np.ndarray
    response: np.ndarray
    equity: np.ndarray

    @property
    def double(self) -> np.ndarray:
        """(N,) bool: the doubler should double now."""
        return self.action == DOUBLE

    def words(self) -> list[str]:
        """Each decision as analysts write it, e.g. 'Double, take', 'Too good, pass'."""
        first = {NO_DOUBLE: "No double", DOUBLE: "Double", TOO_GOOD: "Too good"}
        return [f"{first[int(a)]}, {RESPONSES[int(r)]}"
                for a, r in zip(np.asarray(self.action), np.asarray(self.response))]


def decide_from(eq: CubeEquities, beavers: bool = False) -> CubeDecision:
    """The proper actions from the three equities (NumPy or torch): see the module doc."""
    ops = _Ops(eq.no_double)
    nd, dt, dp = eq.no_double, eq.double_take, eq.double_pass
    passes = dt > dp  # taking costs the taker more than passing (a tie takes)
    beaver = ~passes & (dt < 0) & beavers  # the taker is the favourite at twice the cube
    taken = ops.where(beaver, 2.0 * dt, dt)  # the doubler's equity if the double is kept
    after_double = ops.minimum(taken, dp)  # the taker picks what is worst for the doubler
    too_good = nd > dp  # then also nd > after_double: playing on beats any double
    doubles = after_double > nd
    action = ops.where(too_good, TOO_GOOD, ops.where(doubles, DOUBLE, NO_DOUBLE))
    response = ops.where(passes, PASS, ops.where(beaver, BEAVER, TAKE))
    equity = ops.where(doubles, after_double, nd)
    return CubeDecision(action, response, equity)


def decide(probs, owner=0, efficiency: float = EFFICIENCY, jacoby: bool = False,
           beavers: bool = False) -> CubeDecision:
    """Cube decisions of the player on roll and his opponent, probabilities (N, 6|5)."""
    return decide_from(cube_equities(probs, owner, efficiency, jacoby), beavers)


def take_point(probs, efficiency: float = EFFICIENCY):
    """The winning chances the taker needs to take a double: (N,).

    probs are the doubler's (the player on roll); the taker's average win is the doubler's
    L and his average loss the doubler's W: TP = (W - 1/2) / (W + L + x/2). The taker takes
    exactly when 1 - P(win) >= TP.
    """
    _, w, l_ = win_and_values(probs)
    return (w - 0.5) / (w + l_ + 0.5 * efficiency)


__all__ = ["EFFICIENCY", "NO_DOUBLE", "DOUBLE", "TOO_GOOD", "ACTIONS", "PASS", "TAKE",
           "BEAVER", "RESPONSES", "win_and_values", "cubeful_equity", "CubeEquities",
           "cube_equities", "CubeDecision", "decide_from", "decide", "take_point"]
