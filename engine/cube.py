"""The doubling cube's rules for a batch of money games: value, owner, actions and scoring.

The cube of G games is two arrays beside the boards (DESIGN §2):

    value (G,) int32  1, 2, 4, ... up to ``CubeRules.max_cube``
    owner (G,) int8   relative to the player on roll: +1 the mover owns it, 0 centred,
                      -1 the opponent owns it; changing sides negates it (``flip_owner``)

The rules enforced here, as the money game plays them:

- A double is offered only before the roll, by the player on roll, when the cube is
  centred or his own (owner >= 0), and only while the doubled value stays within the
  maximum.
- The opponent takes (the cube passes to him at twice the value: value x 2, owner -1 seen
  from the doubler who is still on roll) or passes (the game ends, the doubler wins the
  value the cube had before the offer).
- Beavers (``beavers=True``): instead of a plain take the taker may at once redouble and
  keep the cube: value x 4, owner the beaverer (still -1 from the doubler's view). Allowed
  only while the quadrupled value stays within the maximum.
- Jacoby rule (``jacoby=True``): a gammon or backgammon counts as a single game when the cube
  was never turned. A turned cube always has an owner and never comes back to the middle, so
  "never turned" is exactly "still centred" (automatic doubles keep the cube centred, so they
  do not switch gammons on).
- Automatic doubles (``auto_doubles=N``, 0 = off): each time the opening throw is tied (both
  players throw the same number and throw again), the centred cube doubles, at most N times.
- A game ends with ``value x 1/2/3`` points to the winner for a single, gammon, backgammon.

NumPy only; the cubeful game loop lives in ``engine.game``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Responses to a double, as bots return them: (N,) int8
PASS, TAKE, BEAVER = 0, 1, 2
RESPONSES = ("pass", "take", "beaver")

# Cube owner relative to the player on roll
MOVER, CENTRED, OPPONENT = 1, 0, -1


@dataclass(frozen=True)
class CubeRules:
    """The cube options of a money session."""

    jacoby: bool = False
    """Gammons and backgammons count single while the cube has not been turned."""
    beavers: bool = False
    """A taker may redouble at once and keep the cube (value x 4)."""
    auto_doubles: int = 0
    """At most this many automatic doubles on tied opening throws (0: none)."""
    max_cube: int = 64
    """The highest value the cube may reach (a power of two)."""

    def __post_init__(self):
        if self.auto_doubles < 0:
            raise ValueError(f"auto_doubles is a limit >= 0, got {self.auto_doubles}")
        if self.max_cube < 1 or self.max_cube & (self.max_cube - 1):
            raise ValueError(f"max_cube is a power of two >= 1, got {self.max_cube}")

    def describe(self) -> str:
        """The options in words, for reports."""
        return (f"Jacoby {'on' if self.jacoby else 'off'}, "
                f"beavers {'on' if self.beavers else 'off'}, "
                f"automatic doubles {self.auto_doubles or 'off'}, max cube {self.max_cube}")


@dataclass
class Cube:
    """The cube of G games: value (G,) int32 and owner (G,) int8 from the player on roll."""

    value: np.ndarray
    owner: np.ndarray

    @classmethod
    def centred(cls, games: int) -> "Cube":
        """G fresh cubes: value 1, in the middle."""
        return cls(np.ones(games, dtype=np.int32), np.zeros(games, dtype=np.int8))

    def __len__(self) -> int:
        return len(self.value)


def flip_owner(owner: np.ndarray) -> np.ndarray:
    """The owner seen by the other player: +1 <-> -1, 0 stays. (G,) int8."""
    return (-np.asarray(owner)).astype(np.int8)


def opening_ties(rng: np.random.Generator, games: int) -> np.ndarray:
    """How many times each game's opening throw was tied before it was decided: (G,) int32.

    A throw ties with chance 1/6, independently of the deciding throw that follows, so the
    count is drawn apart from the opening dice themselves (``engine.game.opening_roll``
    rethrows ties without counting them): the joint law is the same.
    """
    return (rng.geometric(5 / 6, size=games) - 1).astype(np.int32)


def start_cubes(ties: np.ndarray, rules: CubeRules) -> Cube:
    """Cubes at the start of play: centred, doubled once per tied opening throw up to the
    automatic-doubles limit and the maximum. ties (G,) int -> Cube of G games."""
    ties = np.asarray(ties)
    doubles = np.minimum(ties, rules.auto_doubles)
    value = np.minimum(2 ** doubles.astype(np.int64), rules.max_cube).astype(np.int32)
    return Cube(value, np.zeros(len(ties), dtype=np.int8))


def may_double(cube: Cube, rules: CubeRules) -> np.ndarray:
    """Whether the player on roll may offer a double now: (G,) bool.

    Centred or his own cube, and the doubled value within the maximum.
    """
    return (cube.owner >= CENTRED) & (cube.value.astype(np.int64) * 2 <= rules.max_cube)


def may_beaver(cube: Cube, rules: CubeRules) -> np.ndarray:
    """Whether the taker of a double offered now may beaver it: (G,) bool.

    Call with the cube as it stands before the offer (value v): a beaver makes it 4 v.
    """
    return rules.beavers & (cube.value.astype(np.int64) * 4 <= rules.max_cube)


def legal_responses(responses: np.ndarray, cube: Cube, rules: CubeRules) -> np.ndarray:
    """Responses as the rules allow them: a beaver that is not allowed counts as a take.

    responses (N,) int in {PASS, TAKE, BEAVER}; cube: the N offered cubes before the offer.
    Anything else is a ValueError (a bot bug, not a move).
    """
    responses = np.asarray(responses).astype(np.int8)
    if responses.shape != (len(cube),):
        raise ValueError(f"expected {len(cube)} responses, got shape {responses.shape}")
    bad = (responses < PASS) | (responses > BEAVER)
    if bad.any():
        raise ValueError(f"a response is 0 pass, 1 take or 2 beaver; got {responses[bad][0]}")
    return np.where((responses == BEAVER) & ~may_beaver(cube, rules), TAKE,
                    responses).astype(np.int8)


def accept(cube: Cube, responses: np.ndarray) -> Cube:
    """The cubes after a double was taken (x 2) or beavered (x 4), seen from the doubler,
    who is still on roll: the taker (or beaverer) owns it, owner -1. Passes are left as
    they were (those games are over). responses (N,) int8, already legal."""
    factor = np.where(responses == BEAVER, 4, np.where(responses == TAKE, 2, 1))
    value = (cube.value * factor).astype(np.int32)
    owner = np.where(responses == PASS, cube.owner, OPPONENT).astype(np.int8)
    return Cube(value, owner)


def pass_points(cube: Cube) -> np.ndarray:
    """Points the doubler wins when the double is passed: the value before the offer. (N,)"""
    return cube.value.astype(np.int32)


def game_points(cube: Cube, results: np.ndarray, rules: CubeRules) -> np.ndarray:
    """Points won for finished games: value x 1/2/3, or value x 1 under Jacoby while the
    cube is centred. results (N,) int 1 single, 2 gammon, 3 backgammon -> (N,) int32."""
    results = np.asarray(results).astype(np.int32)
    if rules.jacoby:
        results = np.where(cube.owner == CENTRED, 1, results)
    return cube.value.astype(np.int32) * results


__all__ = ["PASS", "TAKE", "BEAVER", "RESPONSES", "MOVER", "CENTRED", "OPPONENT", "CubeRules",
           "Cube", "flip_owner", "opening_ties", "start_cubes", "may_double", "may_beaver",
           "legal_responses", "accept", "pass_points", "game_points"]
