"""Score-aware cube decisions: match winning chances and cube actions at a match score.

Everything is for the player on roll (the "mover", who may double), from his five
gnubg-style probabilities p5 = (win, wg, wbg, lg, lbg) (gammons include backgammons; six
exclusive outcomes are accepted too) and a score (``MatchScore``): he is ``a`` points from
winning the match (a-away), his opponent ``b``-away, the cube is worth ``c`` and is
centred or held by one side, and the game may be the Crawford game. A match equity table
(``engine.met.MatchEquityTable``) gives M(a, b), the mover's chance to win the match
from a score *after* this game:

    M(a', b') = 1 if a' <= 0, 0 if b' <= 0; else
                met.pre[a', b']               when neither side was 1-away before this game
                                              (row or column 1: the Crawford game next)
                met.win_probability(a', b', post_crawford=True)
                                              when one side is 1-away already (this game is
                                              the Crawford game or post-Crawford)

Cubeless match winning chance (``match_winning_chances``): each of the six exclusive
outcomes moves the score by 1, 2 or 3 times the cube:

    MWC = P(ws) M(a-c, b) + P(wg only) M(a-2c, b) + P(wbg) M(a-3c, b)
        + P(ls) M(a, b-c) + P(lg only) M(a, b-2c) + P(lbg) M(a, b-3c)

Cube decisions (``match_cube_equities``, ``match_decide``), all in MWC, follow
``model.cube`` (Janowski) with the money lines replaced by match-equity lines. At a cube
level v (the cube's value when somebody holds it, or c centred):

    W_v = the mover's average MWC when he wins at v = (P(ws) M(a-v, b) + P(wg only) M(a-2v, b)
          + P(wbg) M(a-3v, b)) / P(win)   (M(a-v, b) where P(win) = 0); L_v likewise for
          losses; with p = P(win) the dead (cubeless) MWC is  p W_v + (1 - p) L_v.

    Who may double at level v: the mover when v < a, the opponent when v < b, nobody in the
    Crawford game. A side whose single win at v already wins the match (v >= a for the
    mover) has a dead cube: doubling cannot gain it anything, it never doubles (gnubg
    prints no cube analysis there either). Post-Crawford the leader (1-away) never
    doubles for that reason.

    Fully live cube (x = 1): p drifts continuously, doubles come exactly at the taker's
    take point, so each side's MWC is piecewise linear in p through these knots:

      opponent holds v:  (0, L_v) -> (TP(v), M(a, b-v)) -> (1, W_v)
      mover holds v:     (0, L_v) -> (CP(v), M(a-v, b)) -> (1, W_v)
      centred at v:      (0, L_v) -> (TP(v), M(a, b-v)) -> (CP(v), M(a-v, b)) -> (1, W_v)

      a knot whose side may not double at v is left out (the line runs on to the end).
      CP(v): the mover's cash point, the p where the opponent is indifferent between
             passing the mover's double (M(a-v, b)) and taking it and holding 2v:
             f_opp(2v)(CP(v)) = M(a-v, b), f_opp(2v) the first line at level 2v.
      TP(v): the mover's take point of the opponent's double from v to 2v:
             f_own(2v)(TP(v)) = M(a, b-v), f_own(2v) the second line at level 2v.
      Each line at 2v needs the points at 2v, which need the lines at 4v, ..: the recursion
      stops where the cube is dead for the side (v >= a or v >= b): a straight line from
      (0, L_v) to (1, W_v). Where the numbers put TP above CP (never at ordinary scores) the
      centred line uses CP = max(CP, TP).

    Cube life as in the money heads: each equity is the dead value and the live value
    mixed by Janowski's efficiency x (model.cube.EFFICIENCY, 0.68):

      ND = (1 - x) (p W_c + (1-p) L_c)   + x f_state(c)(p)   (centred / own / opponent's line)
      DT = (1 - x) (p W_2c + (1-p) L_2c) + x f_opp(2c)(p)    (the opponent holds 2c)
      DP = M(a-c, b)

    and the same rule as ``model.cube.decide_from`` (no beavers in a match): double when
    min(DT, DP) > ND, too good when ND > DP, take when DT <= DP. Where the mover may not
    double (Crawford game, dead cube, the opponent holds the cube) the action is no double
    and the equity ND; the response is still what the numbers say of a double.

    At 2-away 2-away the cube counts as dead (x = 0: ND and DT are the dead values), as
    GNU Backgammon values positions there: the first double is the last (after it any
    win wins the match), and a live line through the cash at M(1, 2) would give away the
    gammons that win the match outright at a cube of 1.

    Post-Crawford the opponent (1-away) may never redouble, so DT is the dead line at 2c,
    which is never below ND: the trailer doubles at once unless he is too good (the
    leader's take or pass then follows from DT against DP: at 2-away/1-away he passes
    exactly when the trailer wins more than half the games, the free drop).

Money play (``length`` 0) is ``model.cube`` itself: ``match_cube_equities`` returns
``model.cube.cube_equities`` (equity per cube) and ``match_decide`` its decisions.

Equivalent money equity (``to_emg``, gnubg's unit): EMG = (2 MWC - M(a-c, b) - M(a, b-c))
/ (M(a-c, b) - M(a, b-c)), so DP is +1 and winning or losing one cube is +-1.

NumPy only; every function takes (N, 5) probabilities and a score whose fields are
scalars or (N,) arrays, and returns (N,).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from gammon.engine.match import CENTRED, MOVER, OPPONENT, MatchScore, ToldScore
from gammon.engine.met import MatchEquityTable, met_from_gammon_rate
from gammon.model import cube as money
from gammon.model.cube import (
    ACTIONS,
    DOUBLE,
    EFFICIENCY,
    NO_DOUBLE,
    PASS,
    RESPONSES,
    TAKE,
    TOO_GOOD,
    CubeDecision,
    CubeEquities,
    decide_from,
)

GAMMON_RATE = 0.26  # of the default MET
_EPS = 1e-9


@lru_cache(maxsize=4)
def default_met(length: int = 25, gammon_rate: float = GAMMON_RATE) -> MatchEquityTable:
    """engine.met's live-cube table from the gammon rate (cached: about a second at 25)."""
    return met_from_gammon_rate(length, gammon_rate, cube=True)


def is_money(score: MatchScore) -> bool:
    """True for money play (length 0 everywhere); ValueError for a mix of money and match."""
    length = np.asarray(score.length)
    if (length == 0).all():
        return True
    if (length == 0).any():
        raise ValueError("money play (length 0) and match play mixed in one call")
    return False


def _five(probs) -> np.ndarray:
    """(N, 5) float64 of (N, 5) or (N, 6) probabilities (one position: (5,) -> (1, 5))."""
    from gammon.engine.outcomes import to_five
    p = to_five(np.asarray(probs, dtype=np.float64))
    return p.reshape(-1, 5)


class _Game:
    """One batch of positions at their scores: the MET lookups and the live-cube lines."""

    def __init__(self, p5: np.ndarray, score: MatchScore, met: MatchEquityTable):
        n = len(p5)
        self.a, self.b, length, self.crawford, self.c, self.owner = score.arrays(n)
        if (self.a < 1).any() or (self.b < 1).any():
            raise ValueError("a match score needs both players 1-away or more")
        if (np.maximum(self.a, self.b) > met.length).any():
            raise ValueError(f"a score beyond this {met.length}-point table")
        if ((self.a > length) | (self.b > length)).any():
            raise ValueError("a score beyond the match length")
        if (self.crawford & (self.a != 1) & (self.b != 1)).any():
            raise ValueError("the Crawford game needs a player 1-away")
        if (self.c < 1).any() or (self.c & (self.c - 1)).any():
            raise ValueError("the cube's value is a power of two")
        self.post = (self.a == 1) | (self.b == 1)  # Crawford or post-Crawford game
        self.pre_t, self.post_t = _tables(met)
        p, wg, wbg, lg, lbg = (p5[:, i] for i in range(5))
        self.p = p
        # exclusive outcomes: (N,) each
        self.win = (p - wg, wg - wbg, wbg)
        self.lose = (1 - p - lg, lg - lbg, lbg)

    def m(self, a, b) -> np.ndarray:
        """M(a', b') after this game, (N,): see the module doc."""
        a = np.clip(a, 0, None)
        b = np.clip(b, 0, None)
        return np.where(self.post, self.post_t[a, b], self.pre_t[a, b])

    def ends(self, v) -> tuple[np.ndarray, np.ndarray]:
        """(W_v, L_v): the mover's average MWC when he wins, and when he loses, at cube v."""
        a, b = self.a, self.b
        mw = [self.m(a - k * v, b) for k in (1, 2, 3)]
        ml = [self.m(a, b - k * v) for k in (1, 2, 3)]
        w = mw[0] + (self.win[1] * (mw[1] - mw[0]) + self.win[2] * (mw[2] - mw[0])) \
            / np.maximum(self.p, _EPS)
        lose = ml[0] + (self.lose[1] * (ml[1] - ml[0]) + self.lose[2] * (ml[2] - ml[0])) \
            / np.maximum(1 - self.p, _EPS)
        return w, lose

    def dead(self, v) -> np.ndarray:
        """The cubeless MWC at cube v: (N,)."""
        w, lose = self.ends(v)
        return self.p * w + (1 - self.p) * lose

    def mover_can(self, v) -> np.ndarray:
        return (v < self.a) & ~self.crawford

    def opp_can(self, v) -> np.ndarray:
        return (v < self.b) & ~self.crawford

    # the fully live lines: knots (xs, ys), lists of (N,) arrays, xs from 0 to 1
    def opp_holds(self, v):
        w, lose = self.ends(v)
        can = self.opp_can(v)
        tp = self.take_point(v) if can.any() else np.zeros_like(self.p)
        return ([0 * w, np.where(can, tp, 0.0), 0 * w + 1],
                [lose, np.where(can, self.m(self.a, self.b - v), lose), w])

    def mover_holds(self, v):
        w, lose = self.ends(v)
        can = self.mover_can(v)
        cp = self.cash_point(v) if can.any() else np.ones_like(self.p)
        return ([0 * w, np.where(can, cp, 1.0), 0 * w + 1],
                [lose, np.where(can, self.m(self.a - v, self.b), w), w])

    def centred(self, v):
        w, lose = self.ends(v)
        opp, mine = self.opp_can(v), self.mover_can(v)
        tp = np.where(opp, self.take_point(v) if opp.any() else 0.0, 0.0)
        cp = np.where(mine, self.cash_point(v) if mine.any() else 1.0, 1.0)
        cp = np.maximum(cp, tp)
        return ([0 * w, tp, cp, 0 * w + 1],
                [lose, np.where(opp, self.m(self.a, self.b - v), lose),
                 np.where(mine, self.m(self.a - v, self.b), w), w])

    def cash_point(self, v) -> np.ndarray:
        """CP(v): the mover's p where the opponent's take of v -> 2v equals his pass."""
        xs, ys = self.opp_holds(2 * v)
        return _interp(self.m(self.a - v, self.b), ys, xs)

    def take_point(self, v) -> np.ndarray:
        """TP(v): the mover's p where his take of the opponent's v -> 2v equals his pass."""
        xs, ys = self.mover_holds(2 * v)
        return _interp(self.m(self.a, self.b - v), ys, xs)

    def live(self, v, owner) -> np.ndarray:
        """The fully live MWC at cube v held as ``owner`` says: (N,)."""
        out = np.zeros_like(self.p)
        for who, line in ((CENTRED, self.centred), (MOVER, self.mover_holds),
                          (OPPONENT, self.opp_holds)):
            rows = owner == who
            if rows.any():
                out = np.where(rows, _interp(self.p, *line(v)), out)
        return out


def _interp(x: np.ndarray, xs: list, ys: list) -> np.ndarray:
    """Row-wise piecewise-linear interpolation through knots (xs[k], ys[k]) (each (N,),
    xs non-decreasing), constant beyond the ends: (N,). With xs and ys swapped it
    inverts a non-decreasing line."""
    out = ys[0] + 0 * x
    for k in range(len(xs) - 1):
        x0, x1, y0, y1 = xs[k], xs[k + 1], ys[k], ys[k + 1]
        t = np.clip((x - x0) / np.maximum(x1 - x0, _EPS), 0.0, 1.0)
        out = np.where(x >= x0, y0 + t * (y1 - y0), out)
    return out


_TABLES: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _tables(met: MatchEquityTable) -> tuple[np.ndarray, np.ndarray]:
    """(pre, post), each (L+1, L+1): M(i, j) after a game, before or from the Crawford
    game on; row 0 is 1 and column 0 is 0 (a won match)."""
    key = id(met)
    if key in _TABLES and _TABLES[key][0] is met:
        return _TABLES[key][1]
    size = met.length + 1
    pre = np.zeros((size, size))
    post = np.zeros((size, size))
    for i in range(size):
        for j in range(size):
            if i == 0 or j == 0:
                pre[i, j] = post[i, j] = 1.0 if i == 0 else 0.0
                continue
            pre[i, j] = met.win_probability(i, j)
            post[i, j] = (met.win_probability(i, j, post_crawford=True)
                          if 1 in (i, j) else pre[i, j])
    _TABLES[key] = (met, (pre, post))
    return pre, post


def match_winning_chances(p5, score: MatchScore, met: MatchEquityTable | None = None) -> np.ndarray:
    """The mover's cubeless match winning chance after this game: (N, 5|6) -> (N,)."""
    p = _five(p5)
    game = _Game(p, score, met or default_met())
    return game.dead(game.c)


def match_cube_equities(p5, score: MatchScore, met: MatchEquityTable | None = None,
                        efficiency: float = EFFICIENCY) -> CubeEquities:
    """ND, DT and DP of the mover at the score, in MWC (money play: model.cube's equities
    per cube); each (N,)."""
    p = _five(p5)
    if is_money(score):
        return money.cube_equities(p, np.asarray(score.owner), efficiency)
    game = _Game(p, score, met or default_met())
    # 2-away 2-away: the cube counts as dead, as at GNU Backgammon's evaluations (its
    # cubeful formulas are used "unless the score is 2-away, 2-away", where its
    # positions are valued cubeless): the first double there is the last, and the live
    # lines' cash at 70% would throw away gammons that win the match outright
    c, x = game.c, np.where((game.a == 2) & (game.b == 2), 0.0, efficiency)
    nd = (1 - x) * game.dead(c) + x * game.live(c, game.owner)
    dt = (1 - x) * game.dead(2 * c) + x * game.live(2 * c, np.full_like(game.owner, OPPONENT))
    dp = game.m(game.a - c, game.b)
    return CubeEquities(nd, dt, dp)


def may_double(score: MatchScore, n: int) -> np.ndarray:
    """(n,) bool: the mover has access to a live cube (not the Crawford game, the cube
    centred or his, and in a match his single win at the cube does not already win)."""
    a, _, length, crawford, c, owner = score.arrays(n)
    access = owner != OPPONENT
    return access & np.where(length == 0, True, ~crawford & (c < a))


def match_decide(p5, score: MatchScore, met: MatchEquityTable | None = None,
                 efficiency: float = EFFICIENCY) -> CubeDecision:
    """The mover's action and his opponent's response at the score, (N,) each; the
    equity in MWC (money play: exactly model.cube.decide, beavers off)."""
    p = _five(p5)
    eq = match_cube_equities(p, score, met, efficiency)
    decision = decide_from(eq, beavers=False)
    if is_money(score):
        return decision
    can = may_double(score, len(p))
    action = np.where(can, decision.action, NO_DOUBLE)
    equity = np.where(can, decision.equity, eq.no_double)
    return CubeDecision(action, decision.response, equity)


def met_for(score: MatchScore) -> MatchEquityTable:
    """The default table, long enough for the score's match length (25 points at least)."""
    return default_met(max(25, int(np.max(np.asarray(score.length)))))


def play_mwc(probs_after, score: MatchScore, met: MatchEquityTable | None = None,
             efficiency: float = EFFICIENCY) -> np.ndarray:
    """The mover's match winning chance after each of K plays: (K, 6|5) outcome
    probabilities for him (``model.policy.NetPolicy.probabilities``), ``score`` the K
    plays' score from his side before the play (cube owner relative to him) -> (K,).

    After the play his opponent is on roll and may double: the opponent's MWC is his
    equity after his best cube action at the score (``match_decide``, with the cube life
    of the money heads), and the mover's is one minus it. Checker play by this number is
    "by match equity, not money equity": a play that wins more gammons is worth more
    where a gammon wins the match, nothing where a single game does.
    """
    theirs = flip_outcomes_five(_five(probs_after))
    met = met or met_for(score)
    return 1.0 - match_decide(theirs, score.flipped(), met, efficiency).equity


class ScoreAware(ToldScore):
    """For bots that score plays by outcome probabilities (the nets): told the match score
    (``observe_score``, the ``engine.game`` loop's third optional method), they value a
    play by the mover's match winning chance (``play_mwc``) instead of money equity."""

    money_label = "equity"

    @property
    def score_label(self) -> str:
        return "MWC" if self.score is not None else self.money_label

    def values(self, plays, probs) -> np.ndarray:
        """(K,) what the mover maximises over ``plays``: money equity of ``probs`` (K, 6),
        or his MWC at the score."""
        if self.score is None:
            from gammon.engine.outcomes import equity
            return equity(probs)
        return play_mwc(probs, self.score.rows(plays.root))


def flip_outcomes_five(p5: np.ndarray) -> np.ndarray:
    """Five probabilities (win, wg, wbg, lg, lbg) seen by the other player: (N, 5)."""
    p5 = np.asarray(p5, dtype=np.float64).reshape(-1, 5)
    return np.stack([1 - p5[:, 0], p5[:, 3], p5[:, 4], p5[:, 1], p5[:, 2]], axis=1)


def to_emg(mwc, score: MatchScore, met: MatchEquityTable | None = None, n: int | None = None):
    """MWC (N,) as equivalent money equity per current cube (gnubg's unit): (N,)."""
    mwc = np.asarray(mwc, dtype=np.float64).reshape(-1)
    game = _Game(np.full((len(mwc) if n is None else n, 5), 0.5), score, met or default_met())
    win, lose = game.m(game.a - game.c, game.b), game.m(game.a, game.b - game.c)
    return (2 * mwc - win - lose) / np.maximum(win - lose, _EPS)


__all__ = [
    "ACTIONS",
    "CENTRED",
    "DOUBLE",
    "GAMMON_RATE",
    "MOVER",
    "NO_DOUBLE",
    "OPPONENT",
    "PASS",
    "RESPONSES",
    "TAKE",
    "TOO_GOOD",
    "MatchScore",
    "default_met",
    "is_money",
    "match_cube_equities",
    "match_decide",
    "match_winning_chances",
    "may_double",
    "met_for",
    "play_mwc",
    "ScoreAware",
    "flip_outcomes_five",
    "to_emg",
]
