"""Recording the games of a batch as they are played, for match files.

``PlayRecorder`` is an ``on_play`` callback for ``engine.game.play``: each ply it is given the
games that moved, their seats, the boards before, the rolls and the afterstates. It finds
the play behind each afterstate among the legal plays (every result is reached by one
representative play, ``Plays.steps``) and keeps it as a ``matfile.Action``, so a finished
batch can be written as a ``.mat`` file with ``matfile.format_match``.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from ..cube import PASS, TAKE
from .matfile import DOUBLE, DROP, PLAY, TAKE as TAKES, Action, Game, Match, play_text
from ..movegen import Plays, legal_plays
from ..rules import Rules, variant as variant_rules


def chosen_rows(plays: Plays, after: np.ndarray) -> np.ndarray:
    """The row of ``plays`` whose result is ``after[i]`` for each input position i: (M,).

    ``plays`` are the legal plays of M positions, ``after`` (M, 26) one legal result of each.
    ValueError when an afterstate is not among its position's legal results.
    """
    same = (plays.boards == after[plays.root]).all(axis=1)  # (K,)
    rows = np.flatnonzero(same)
    if len(rows) != len(after) or (plays.root[rows] != np.arange(len(after))).any():
        raise ValueError("an afterstate is not a legal result of its position and roll")
    return rows


def action_of(plays: Plays, row: int, player: int, dice) -> Action:
    """The .mat action of one play: ``row`` of ``plays``, by ``player`` with ``dice``."""
    d1, d2 = sorted((int(dice[0]), int(dice[1])), reverse=True)
    text = play_text(plays.steps[row], plays.hits[row]) if plays.dice_used[row] else ""
    return Action(int(player), PLAY, (d1, d2), text)


class PlayRecorder:
    """Collects every play of a batch of games, by game index: an ``on_play`` callback.

    Called as ``recorder(games, players, boards, roll, after)`` with games (M,) int, the
    player of each (0 or 1: the left and right column of the match file), boards (M, 26)
    before the play, roll (M, 2) and afterstates (M, 26).
    """

    def __init__(self, variant: str | Rules = "standard"):
        self.actions: dict[int, list[Action]] = defaultdict(list)
        self.rules = variant_rules(variant)

    def __call__(self, games, players, boards, roll, after) -> None:
        plays = legal_plays(np.asarray(boards), np.asarray(roll), self.rules)
        rows = chosen_rows(plays, np.asarray(after))
        for m, row in enumerate(rows):
            self.actions[int(games[m])].append(action_of(plays, row, players[m], roll[m]))

    def cube(self, games, players, values, answers) -> None:
        """An ``on_cube`` callback: each double offered by ``players[m]`` in ``games[m]``
        at ``values[m]``, and the taker's answer (engine.cube PASS or TAKE; a beaver has
        no .mat form and is refused)."""
        for game, player, value, answer in zip(games, players, values, answers):
            if answer not in (PASS, TAKE):
                raise ValueError("a beaver cannot be written to a .mat file")
            actions = self.actions[int(game)]
            actions.append(Action(int(player), DOUBLE, cube=int(value)))
            actions.append(Action(1 - int(player), TAKES if answer == TAKE else DROP))

    def match(self, names: tuple[str, str], points: np.ndarray, variant: str = "standard"
              ) -> Match:
        """The recorded games as a money-session Match; ``points`` (G,) are player 0's
        points per game (negative when player 1 won, 0 when unfinished)."""
        games = []
        for g, p in enumerate(np.asarray(points)):
            winner = None if p == 0 else (0 if p > 0 else 1)
            games.append(Game(list(self.actions.get(g, [])), winner, int(abs(p))))
        return Match(names, 0, games, variant)


def renumbered(callback, step: int, first: int, swap: bool):
    """A recording callback for one call of a game loop inside a larger match: the loop's
    game i is the match's game ``step * i + first``, and its seats become the players
    A = 0, B = 1 (``swap`` when B sat in seat 0). None stays None."""
    if callback is None:
        return None
    return lambda games, seats, *rest: callback(step * np.asarray(games) + first,
                                                np.asarray(seats) ^ int(swap), *rest)


__all__ = ["chosen_rows", "action_of", "PlayRecorder", "renumbered"]
