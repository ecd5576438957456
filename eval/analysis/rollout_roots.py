"""The positions a rollout starts from, its "roots": one row each, from the side of the
player on roll (the root player, seat 0), with the cube as it lies, the match score, the
dice stream and the variant's state (Nuclear's bomb).

    roots = make_roots(boards (P, 26), states, keys, extra, rules)
    check_positions(roots, rules)   # RolloutError for a finished game or mixed money/match
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gammon.engine.match import MatchScore

from .rollout_settings import RolloutError


@dataclass
class Roots:
    """The positions rolled out, one row each, from the player on roll's side."""

    boards: np.ndarray  # (P, 26) int8
    keys: np.ndarray  # (P,) int64 dice streams
    extra: dict  # name -> (P,) int8: the variant's state (``Rules.extra_state``), relative
    # to the player on roll (Nuclear: "bomb")
    cube: np.ndarray  # (P,) int32 the cube's value
    owner: np.ndarray  # (P,) int8 the cube's owner relative to him (+1, 0, -1)
    length: np.ndarray  # (P,) int64 match length, 0 money
    away: np.ndarray  # (P, 2) int64 points he and his opponent need (match)
    crawford: np.ndarray  # (P,) bool

    @property
    def match(self) -> bool:
        return bool((self.length > 0).any())

    def rows(self, rows) -> "Roots":
        return Roots(self.boards[rows], self.keys[rows],
                     {name: v[rows] for name, v in self.extra.items()},
                     *(getattr(self, f)[rows] for f in
                       ("cube", "owner", "length", "away", "crawford")))

    def score(self, rows, cube=None, owner=None) -> MatchScore:
        """model.match_cube's score of the positions ``rows`` from the root player's side
        (the cube as given, else the position's)."""
        return MatchScore(self.away[rows, 0], self.away[rows, 1], self.length[rows],
                          self.crawford[rows], self.cube[rows] if cube is None else cube,
                          self.owner[rows] if owner is None else owner)


def make_roots(boards, states=None, keys=None, extra=None, rules=None) -> Roots:
    """The positions of a rollout: boards (P, 26) from the player on roll; ``states`` an
    ``engine.formats.matchid.MatchState`` for all, one per position, or None (money play,
    centred 1-cube); ``keys`` (P,) their dice streams (default: one each, 0..P-1);
    ``extra`` the variant's state, name -> (P,) relative to the player on roll (Nuclear:
    {"bomb": ...}; each of ``rules.extra_state`` not given starts at 0: the bomb centred)."""
    boards = np.asarray(boards, dtype=np.int8).reshape(-1, 26)
    n = len(boards)
    if states is None or not isinstance(states, (list, tuple)):
        states = [states] * n
    if len(states) != n:
        raise RolloutError(f"{len(states)} states for {n} positions")
    keys = np.arange(n, dtype=np.int64) if keys is None else np.asarray(keys, dtype=np.int64)
    if keys.shape != (n,) or (keys < 0).any():
        raise RolloutError("one dice stream (a whole number >= 0) per position")
    given = extra or {}
    names = tuple(getattr(rules, "extra_state", ())) if rules is not None else tuple(given)
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise RolloutError(f"the {getattr(rules, 'name', 'variant')} rules have no state "
                           f"{', '.join(map(repr, unknown))}")
    extra = {name: np.zeros(n, dtype=np.int8) if given.get(name) is None
             else np.broadcast_to(np.asarray(given[name], dtype=np.int8), (n,)).copy()
             for name in names}
    cube = np.ones(n, dtype=np.int32)
    owner = np.zeros(n, dtype=np.int8)
    length = np.zeros(n, dtype=np.int64)
    away = np.zeros((n, 2), dtype=np.int64)
    crawford = np.zeros(n, dtype=bool)
    for i, state in enumerate(states):
        if state is None:
            continue
        s = MatchScore.from_match_state(state)
        cube[i], owner[i] = int(s.cube), int(s.owner)
        if state.length:
            length[i], away[i], crawford[i] = s.length, (s.away, s.opp_away), bool(s.crawford)
    return Roots(boards, keys, extra, cube, owner, length, away, crawford)


def check_positions(roots: Roots, rules) -> None:
    """RolloutError for a position whose game is over (a side with no checker in play)."""
    mover, opponent = rules.in_play(roots.boards)
    over = np.flatnonzero((mover == 0) | (opponent == 0))
    if len(over):
        raise RolloutError(f"the game is over in position {int(over[0]) + 1}: nothing to "
                           f"roll out")
    if roots.match and not (roots.length > 0).all():
        raise RolloutError("money positions and match positions are rolled out apart")


__all__ = ["Roots", "check_positions", "make_roots"]
