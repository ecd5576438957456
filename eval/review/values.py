"""The equities a review grades by: every value cubeful at the cube state of the moment and
in GNU Backgammon's unit, equivalent money equity per 1-cube (EMG, "normalised").

- Money play: the Janowski cube model of ``model.cube`` (efficiency x, 0.68 by default),
  the cube centred or held by one side; equities are per current cube, so a 4-cube
  position is valued as a 1-cube one: "normalised" as gnubg's mEMG.
- A match: the mover's match winning chance (``model.match_cube``, our live-cube match
  model on ``engine.met``'s table) converted to EMG at the score and cube of the moment:
  EMG = (2 MWC - M(win c) - M(lose c)) / (M(win c) - M(lose c)), so that winning or losing
  the cube's points is +-1 (``model.match_cube.to_emg``; gnubg's conversion).

``TurnState`` is the cube state and score of one turn from the side of the player on roll;
``play_values`` values the plays of a roll after they are made (the opponent then on roll
and free to double as the state allows); ``cube_values`` the mover's cube decision before
the roll (no double, double/take, double/pass and who may double).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from gammon.engine.met import MatchEquityTable
from gammon.eval.analysis.plays import CubeView, cubeful_after
from gammon.model.cube import EFFICIENCY, CubeEquities, cube_equities
from gammon.model.match_cube import (CENTRED, MOVER, OPPONENT, MatchScore, match_cube_equities,
                              may_double, met_for, play_mwc, to_emg)


@dataclass(frozen=True)
class TurnState:
    """The cube and score of one turn, from the side of ``player`` (0 or 1, the file's
    order), who is on roll.

    length:   match length, 0 for money play
    score:    (player 0's points, player 1's points) before the game
    crawford: this game is the Crawford game
    cube:     the cube's value
    owner:    -1 centred, else the player (0 or 1) who holds it
    met:      the match equity table of a match (None: ``model.match_cube.met_for``'s)
    """

    player: int
    length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    cube: int = 1
    owner: int = -1
    jacoby: bool = False
    beavers: bool = False
    efficiency: float = EFFICIENCY
    met: MatchEquityTable | None = None

    @property
    def is_match(self) -> bool:
        return self.length > 0

    def relative_owner(self) -> int:
        """CENTRED (0), MOVER (+1) or OPPONENT (-1) from the player on roll's side."""
        if self.owner < 0:
            return CENTRED
        return MOVER if self.owner == self.player else OPPONENT

    def match_score(self) -> MatchScore:
        """``model.match_cube``'s score from the player on roll's side."""
        me = self.player
        if not self.is_match:
            return MatchScore(0, 0, 0, False, self.cube, self.relative_owner())
        return MatchScore(self.length - self.score[me], self.length - self.score[1 - me],
                          self.length, self.crawford, self.cube, self.relative_owner())

    def other(self) -> "TurnState":
        """The same state with the other player on roll."""
        return replace(self, player=1 - self.player)

    def table(self) -> MatchEquityTable:
        """The match equity table this turn is valued with."""
        return self.met or met_for(self.match_score())

    def may_double(self) -> bool:
        """Whether the player on roll has a cube decision: the cube centred or his, and in
        a match not the Crawford game and not a dead cube (his single win at the cube does
        not already win the match; gnubg analyses no cube there either)."""
        return bool(may_double(self.match_score(), 1)[0])


def play_values(p5: np.ndarray, plays, rules, state: TurnState) -> np.ndarray:
    """(K,) the mover's cubeful EMG per 1-cube after each of the K plays, ``p5`` (K, 5) their
    probabilities for him (``eval.analysis.plays.play_probabilities``)."""
    p5 = np.asarray(p5, dtype=np.float64)
    if not state.is_match:
        view = CubeView(state.efficiency, state.jacoby, state.beavers,
                        state.relative_owner())
        return cubeful_after(p5, plays, rules, view)
    score = state.match_score()
    met = state.table()
    mwc = play_mwc(p5, score, met, efficiency=state.efficiency)  # (K,)
    return to_emg(mwc, score, met)


@dataclass
class CubeValues:
    """The mover's cube decision before the roll, EMG per 1-cube: no double, double/take,
    double/pass (+1), the probabilities (5,) it came from."""

    no_double: float
    double_take: float
    double_pass: float
    probabilities: np.ndarray


def cube_values(p5: np.ndarray, state: TurnState) -> list[CubeValues]:
    """The cube decisions of N positions before the roll at one state, ``p5`` (N, 5) the
    probabilities of the player on roll."""
    p5 = np.asarray(p5, dtype=np.float64).reshape(-1, 5)
    if not state.is_match:
        eq: CubeEquities = cube_equities(p5, state.relative_owner(), state.efficiency,
                                         state.jacoby)
        nd, dt, dp = (np.asarray(v, dtype=np.float64) for v in
                      (eq.no_double, eq.double_take, eq.double_pass))
    else:
        score = state.match_score()
        met = state.table()
        eq = match_cube_equities(p5, score, met, state.efficiency)
        nd, dt, dp = (to_emg(v, score, met, n=len(p5)) for v in
                      (eq.no_double, eq.double_take, eq.double_pass))
    return [CubeValues(float(nd[i]), float(dt[i]), float(dp[i]), p5[i]) for i in range(len(p5))]


__all__ = ["TurnState", "play_values", "CubeValues", "cube_values"]
