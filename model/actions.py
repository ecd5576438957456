"""A variant's actions before the roll (``engine.rules.base.Rules.before_roll_actions``:
Nuclear's bomb), decided by a network's equity.

    act_by_equity(equity_before_roll, rules, action, boards, state, margin) -> (N,) bool

``equity_before_roll(boards, *state) -> (N,)`` values positions before the roll for the
player on roll, given the variant's state (the arrays of ``rules.extra_state``, relative to
him, in order): a network that reads the state (``model.encoding.read_boards``) or any
function of it (the self-play tests value bar checkers).
"""

from __future__ import annotations

import numpy as np

MARGIN = 0.1  # equity an action must gain: an untrained net does not act at random


def act_by_equity(equity_before_roll, rules, action: str, boards: np.ndarray, state: tuple,
                  margin: float = MARGIN) -> np.ndarray:
    """Take ``action`` where the position after it (``rules.act``: still on roll) is worth
    more to the player on roll than the position as it stands, by ``margin`` at least:
    boards (N, 26), ``state`` the games' arrays of ``rules.extra_state`` -> (N,) bool. The
    margin keeps an untrained network, whose equities differ at random, from acting turn
    after turn in self-play (games that never end teach nothing); a trained one acts where
    the action clearly pays."""
    boards = np.asarray(boards, dtype=np.int8)
    state = tuple(np.asarray(values) for values in state)
    now = equity_before_roll(boards, *state)
    extra = dict(zip(rules.extra_state, state))
    after_boards, changed = rules.act(action, boards, extra)
    after = equity_before_roll(after_boards, *(changed.get(name, extra[name])
                                               for name in rules.extra_state))
    return after > now + margin


__all__ = ["MARGIN", "act_by_equity"]
