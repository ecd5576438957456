"""Every roll of every turn valued: the plays of the 21 distinct rolls of a turn's position
(and, for a game's opening roll, of the 15 rolls the opponent could have opened with),
each play's probabilities and its cubeful EMG at the turn's cube state (``values``).

One game's turns are evaluated in one batch: the legal plays of all their rolls at once
(``engine.movegen.legal_plays``), the bot asked once for all their probabilities
(``eval.analysis.plays.play_probabilities``); then each turn's values at its own state.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gammon.engine.movegen import legal_plays
from gammon.eval.analysis.plays import play_probabilities

from .decisions import Turn
from .values import play_values

ROLLS = np.array([(a, b) for a in range(6, 0, -1) for b in range(a, 0, -1)])  # (21, 2)
WEIGHTS = np.where(ROLLS[:, 0] == ROLLS[:, 1], 1.0, 2.0) / 36.0  # (21,) chance of each
NON_DOUBLES = ROLLS[ROLLS[:, 0] != ROLLS[:, 1]]  # (15, 2): the opening rolls


class _Rows:
    """The afterstates of some plays, as ``values.play_values`` reads them."""

    def __init__(self, boards: np.ndarray):
        self.boards = boards


@dataclass
class RollTable:
    """The plays of one position for several rolls, valued for the player on roll.

    rolls  (R, 2)   the rolls, larger die first
    start  (R + 1,) the rows of each roll's plays in the arrays below
    boards (K, 26)  afterstates; steps (K, 4, 2), hits (K, 4), dice_used (K,)
    p5     (K, 5)   probabilities of each play for the mover
    values (K,)     cubeful EMG per 1-cube of each play for the mover
    """

    rolls: np.ndarray
    start: np.ndarray
    boards: np.ndarray
    steps: np.ndarray
    hits: np.ndarray
    dice_used: np.ndarray
    p5: np.ndarray
    values: np.ndarray

    def rows(self, r: int) -> range:
        return range(int(self.start[r]), int(self.start[r + 1]))

    def best(self) -> np.ndarray:
        """(R,) the value of each roll: its best play's."""
        return np.array([self.values[list(self.rows(r))].max() for r in range(len(self.rolls))])

    def index(self, roll) -> int:
        d1, d2 = sorted(roll, reverse=True)
        return int(np.flatnonzero((self.rolls[:, 0] == d1) & (self.rolls[:, 1] == d2))[0])


@dataclass
class TurnRolls:
    """A turn's rolls: ``own`` the 21 rolls of the mover at the state of the roll; for the
    opening roll ``other``, the 15 non-doubles played by the opponent instead (the same
    start position, from his side)."""

    own: RollTable
    other: RollTable | None = None


def evaluate_game(bot, turns: list[Turn], rules, progress=None) -> list[TurnRolls | None]:
    """The TurnRolls of each turn that has a roll (None for a turn without one)."""
    jobs = []  # (turn index, which, board (26,), rolls (R, 2), state)
    for i, t in enumerate(turns):
        if t.roll is None:
            continue
        state = t.after_cube()
        jobs.append((i, "own", t.board, ROLLS, state))
        if t.first:
            jobs.append((i, "other", rules.start_board(), NON_DOUBLES, state.other()))
    out: list[TurnRolls | None] = [None] * len(turns)
    if not jobs:
        return out
    boards = np.concatenate([np.repeat(b[None], len(r), axis=0) for _, _, b, r, _ in jobs])
    dice = np.concatenate([r for *_, r, _ in jobs])
    plays = legal_plays(boards, dice, rules)  # all positions' plays, K rows
    p5 = play_probabilities(bot, plays, rules)  # (K, 5)
    if p5 is None:
        raise ValueError("a review needs a bot that estimates probabilities")
    offsets = np.searchsorted(plays.root, np.arange(len(boards) + 1))  # (B + 1,)
    spans, at = [], 0  # (lo, hi, first position) of each job's rows
    for *_, rolls, _ in jobs:
        spans.append((offsets[at], offsets[at + len(rolls)], at))
        at += len(rolls)
    values = np.zeros(len(plays))  # (K,) valued once per distinct state, all its rows
    by_state: dict = {}
    for (lo, hi, _), job in zip(spans, jobs):
        by_state.setdefault(job[4], []).append(np.arange(lo, hi))
    for state, parts in by_state.items():
        rows = np.concatenate(parts)
        values[rows] = play_values(p5[rows], _Rows(plays.boards[rows]), rules, state)
    tables: dict[tuple[int, str], RollTable] = {}
    for (lo, hi, first), (i, which, _, rolls, _) in zip(spans, jobs):
        rows = slice(lo, hi)
        tables[(i, which)] = RollTable(rolls, offsets[first:first + len(rolls) + 1] - lo,
                                       plays.boards[rows], plays.steps[rows],
                                       plays.hits[rows], plays.dice_used[rows], p5[rows],
                                       values[rows])
        if progress is not None and which == "own":
            progress(1)
    for i, t in enumerate(turns):
        if (i, "own") in tables:
            out[i] = TurnRolls(tables[(i, "own")], tables.get((i, "other")))
    return out


__all__ = ["ROLLS", "WEIGHTS", "NON_DOUBLES", "RollTable", "TurnRolls", "evaluate_game"]
