"""Match play: matches to N points, game after game, with the Crawford rule.

The rules enforced here (our reading of the usual tournament rules, as GNU Backgammon plays
them; the cube's own rules are ``engine.cube``'s):

- A match is played to ``length`` points: the first player to reach ``length`` points wins
  it. A game scores what it scores in money play (the cube's value times 1, 2 or 3), so
  "gammons count in matches", and the Jacoby rule never applies; points beyond what a
  player needs are not carried anywhere (the match is over).
- The Crawford rule: "the game after a player first reaches N-1 (is 1-away) has no
  doubling" -- the Crawford game. The games after it are post-Crawford: the cube is back
  in play. A match has at most one Crawford game; when a game takes the trailer to 1-away
  as well, the next game is post-Crawford (double match point), not a second Crawford game.
- No automatic doubles and no beavers in a match.

Two pieces of state:

``MatchScore`` -- one side's view of the score of N games (the player on roll, the
"mover"): how far each side is from winning (``away``, ``opp_away``), the length (0 for
money play), whether this is the Crawford game, and the cube (value, owner relative to
him). The game loop hands it to bots (``observe_score``), and the score-aware decisions
(``model.match_cube``) read it.

``Matches`` -- M matches in progress, by player (A = 0, B = 1): the score (M, 2), whether
each has had its Crawford game, how many games each has played; ``game_context`` gives the
next game's ``MatchContext`` (per seat, for ``engine.game.play``), ``record`` the points of
a game just played.

NumPy only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

CENTRED, MOVER, OPPONENT = 0, 1, -1  # cube owner relative to the mover (engine.cube's)


@dataclass(frozen=True)
class MatchScore:
    """The score and cube from the player on roll's side; each field a scalar or (N,).

    away:     points the mover needs to win the match (a-away), >= 1 in a match
    opp_away: points his opponent needs (b-away), >= 1
    length:   the match length; 0 for money play (away and opp_away are then ignored)
    crawford: this game is the Crawford game (someone is 1-away, no doubling)
    cube:     the cube's value, 1, 2, 4, ..
    owner:    CENTRED (0), MOVER (+1) or OPPONENT (-1)
    """

    away: object = 0
    opp_away: object = 0
    length: object = 0
    crawford: object = False
    cube: object = 1
    owner: object = CENTRED

    @classmethod
    def from_match_state(cls, state, player: int | None = None) -> "MatchScore":
        """The score of a gnubg Match ID (``engine.formats.matchid.MatchState``) from the
        side of ``player`` (default: the player on roll)."""
        me = state.on_roll if player is None else player
        n = state.length
        owner = (CENTRED if state.cube_owner not in (0, 1)
                 else MOVER if state.cube_owner == me else OPPONENT)
        if n == 0:
            return cls(0, 0, 0, False, state.cube_value, owner)
        return cls(n - state.score[me], n - state.score[1 - me], n, bool(state.crawford),
                   state.cube_value, owner)

    def arrays(self, n: int) -> tuple:
        """(a, b, length, crawford, cube, owner), each (n,)."""
        def col(v, dtype):
            return np.broadcast_to(np.asarray(v, dtype=dtype), (n,))
        return (col(self.away, np.int64), col(self.opp_away, np.int64),
                col(self.length, np.int64), col(self.crawford, bool),
                col(self.cube, np.int64), col(self.owner, np.int64))

    def rows(self, rows: np.ndarray) -> "MatchScore":
        """The score of some of the N games: every (N,) field indexed by ``rows``."""
        def pick(v):
            v = np.asarray(v)
            return v[rows] if v.ndim else v
        return MatchScore(*(pick(getattr(self, f)) for f in
                            ("away", "opp_away", "length", "crawford", "cube", "owner")))

    def flipped(self) -> "MatchScore":
        """The same score seen by the other player (after the mover's play he is on roll)."""
        return MatchScore(self.opp_away, self.away, self.length, self.crawford, self.cube,
                          -np.asarray(self.owner))


def is_match(score: MatchScore | None) -> bool:
    """True when ``score`` is a match score (length > 0 somewhere), False for money play
    or None."""
    return score is not None and bool((np.asarray(score.length) > 0).any())


class ToldScore:
    """For players that decide at the score: ``observe_score`` (the game loop's optional
    method, ``engine.cube_policy.tell_score``) keeps the match score of the positions it
    is about to be asked about in ``self.score``; None for money play (None, or length 0)."""

    score = None

    def observe_score(self, score) -> None:
        self.score = score if is_match(score) else None


@dataclass
class MatchContext:
    """The match of each of G games, by seat (engine.game's seats 0 and 1).

    length   (G,) int   the match length
    score    (G, 2) int the score of seat 0 and seat 1 before the game
    crawford (G,) bool  this game is the Crawford game (no doubling)
    """

    length: np.ndarray
    score: np.ndarray
    crawford: np.ndarray

    def view(self, rows: np.ndarray, seat: np.ndarray, cube_value: np.ndarray,
             cube_owner: np.ndarray) -> MatchScore:
        """``MatchScore`` of the games ``rows`` from the side of ``seat`` (G,) with their
        cube (owner relative to that side)."""
        seat = np.asarray(seat).astype(np.intp)
        mine = self.score[rows, seat]
        theirs = self.score[rows, 1 - seat]
        length = self.length[rows]
        return MatchScore(length - mine, length - theirs, length, self.crawford[rows],
                          np.asarray(cube_value), np.asarray(cube_owner))


def crawford_game(score: np.ndarray, length, had_crawford: np.ndarray) -> np.ndarray:
    """Whether the next game is the Crawford game: someone is 1-away and the match has not
    had its Crawford game yet (``had_crawford`` (M,) bool); score (M, 2) -> (M,) bool.

    A match "has had" its Crawford game from the game after the first time someone reached
    1-away, whoever won it (``Matches.record`` keeps that flag)."""
    length = np.asarray(length)
    one_away = (np.asarray(score) == (length[..., None] if length.ndim else length) - 1)
    return one_away.any(axis=-1) & ~np.asarray(had_crawford)


@dataclass
class Matches:
    """M matches to ``length`` points between players A (0) and B (1), in progress.

    score    (M, 2) int32  A's and B's points
    had_crawford (M,) bool the Crawford game was played (or is being played: set when a
                           game is recorded that was the Crawford game)
    games    (M,) int32    games played
    crawford_games (M,) int32  of them, Crawford games (0 or 1)
    """

    length: int
    score: np.ndarray = field(default=None)
    had_crawford: np.ndarray = field(default=None)
    games: np.ndarray = field(default=None)
    crawford_games: np.ndarray = field(default=None)

    @classmethod
    def start(cls, matches: int, length: int) -> "Matches":
        if length < 1:
            raise ValueError(f"a match is played to 1 point or more, got {length}")
        return cls(length, np.zeros((matches, 2), dtype=np.int32),
                   np.zeros(matches, dtype=bool), np.zeros(matches, dtype=np.int32),
                   np.zeros(matches, dtype=np.int32))

    def __len__(self) -> int:
        return len(self.score)

    @property
    def over(self) -> np.ndarray:
        """(M,) bool: someone has reached the length."""
        return self.score.max(axis=1) >= self.length

    @property
    def winner(self) -> np.ndarray:
        """(M,) int8: 0 A won, 1 B won, -1 still in play."""
        return np.where(self.over, np.where(self.score[:, 0] >= self.length, 0, 1),
                        -1).astype(np.int8)

    def crawford(self, rows: np.ndarray) -> np.ndarray:
        """Whether the next game of the matches ``rows`` is the Crawford game: (len,) bool."""
        return crawford_game(self.score[rows], self.length, self.had_crawford[rows])

    def game_context(self, rows: np.ndarray, a_seat: int) -> MatchContext:
        """The next game of the matches ``rows`` as the game loop sees it, with player A in
        seat ``a_seat`` (0 or 1) of every one of them."""
        rows = np.asarray(rows)
        score = self.score[rows] if a_seat == 0 else self.score[rows][:, ::-1]
        return MatchContext(np.full(len(rows), self.length, dtype=np.int64),
                            score.astype(np.int64), self.crawford(rows))

    def record(self, rows: np.ndarray, points_a: np.ndarray) -> None:
        """A game of each match ``rows`` was played: A won ``points_a`` (negative: B won
        that many; 0: the game did not finish and scores nothing)."""
        rows = np.asarray(rows)
        points_a = np.asarray(points_a)
        was_crawford = self.crawford(rows)
        self.had_crawford[rows] |= was_crawford
        self.crawford_games[rows] += was_crawford
        self.games[rows] += 1
        self.score[rows, 0] += np.maximum(points_a, 0).astype(np.int32)
        self.score[rows, 1] += np.maximum(-points_a, 0).astype(np.int32)


__all__ = ["CENTRED", "MOVER", "OPPONENT", "MatchScore", "MatchContext", "Matches",
           "ToldScore", "crawford_game", "is_match"]
