"""Look-ahead at play time, counted in plies as GNU Backgammon counts them.

- 0-ply: the network alone on the position after the play (``NetEvaluator.after_play``).
- N-ply: for each of the opponent's 21 rolls, his best reply chosen by 0-ply equity, that
  reply valued at (N-1)-ply; the mover's probabilities are the mean over the rolls, each
  weighted by its chance (1/36, or 2/36 for a non-double). So 1-ply looks at the
  opponent's 21 rolls and 2-ply also at our 21 rolls after each of his replies.

A play or a reply that ends the game is valued by its result at every depth, never
estimated. The opponent's reply is always chosen at 0-ply (as GNU Backgammon does), so only
the root needs a move filter: of each position's plays, the best few at 0-ply
(``FILTER_PLAYS``, ``FILTER_EQUITY``) are looked ahead; the others keep their 0-ply value
and are never chosen over a looked-ahead one. Below the root the choice at 0-ply already
keeps one reply per roll, which is the narrowest filter there is.

Nuclear: a network of the nuclear encoding reads afterstates with the bomb folded in
(``model.encoding.fold_bomb``). The look-ahead keeps the bomb where it is: nobody detonates
it in the plies looked at (the opponent's choice to detonate before his roll is not
weighed), which the 0-ply value of each position already prices in as the network learnt.

NumPy around the evaluator; no torch here.
"""

from __future__ import annotations

import numpy as np

from gammon.engine.board import flip
from gammon.engine.dice import ROLL_WEIGHTS, ROLLS
from gammon.engine.movegen import legal_plays
from gammon.engine.outcomes import certain, equity, flip_outcomes
from gammon.engine.policy import best_per_root

from .bomb import plain_boards
from .encoding import fold_bomb, unfold_bomb

MAX_PLIES = 2  # the deepest look-ahead offered: 2-ply costs about 21 times 1-ply
# GNU Backgammon's move filter is of this kind (its default keeps up to 8 plays within
# 0.16 equity of the best at 0-ply before a deeper look): of each position's plays, at
# most FILTER_PLAYS, and only those within FILTER_EQUITY of the best 0-ply equity, are
# looked ahead
FILTER_PLAYS = 8
FILTER_EQUITY = 0.16
# positions handed to the move generator at once (memory stays near a few hundred MB)
GENERATOR_BATCH = 8192


def check_plies(plies) -> int:
    """``plies`` as an int when it is a look-ahead we offer (0..MAX_PLIES); ValueError
    naming the range otherwise."""
    if isinstance(plies, bool) or not isinstance(plies, (int, np.integer)) \
            or not 0 <= plies <= MAX_PLIES:
        raise ValueError(f"plies are 0 to {MAX_PLIES} (0-ply = the network alone, 1-ply = "
                         f"looks at the opponent's 21 rolls), got {plies!r}")
    return int(plies)


def look_ahead(evaluator, afterstates: np.ndarray, plies: int) -> np.ndarray:
    """Probabilities (K, 6) for the mover of afterstates (K, 26) int8, at ``plies``.

    ``evaluator`` is a ``model.policy.NetEvaluator`` (its ``after_play``, ``rules`` and
    ``encoding``); Nuclear afterstates carry the bomb folded in.
    """
    if plies == 0:
        return evaluator.after_play(afterstates)
    probs = np.zeros((len(afterstates), 6), dtype=np.float32)
    points = evaluator.rules.end_of_game(plain_boards(evaluator, afterstates))  # (K,)
    over = points != 0
    probs[over] = certain(points[over])
    going = np.flatnonzero(~over)
    step = max(1, GENERATOR_BATCH // len(ROLLS) ** plies)  # afterstates per batch
    for start in range(0, len(going), step):
        rows = going[start:start + step]
        probs[rows] = _after_the_rolls(evaluator, afterstates[rows], plies)
    return probs


def position_values(evaluator, boards: np.ndarray, plies: int) -> np.ndarray:
    """Probabilities (N, 6) for the player on roll of positions before the roll (N, 26)
    int8, ``plies`` ahead as GNU Backgammon counts them for a position: 1-ply is the mean
    over his 21 rolls of his best 0-ply play (about 400 network evaluations a position),
    2-ply values each of those plays one ply further (the opponent's 21 best 0-ply replies,
    each valued at 0-ply: about 9,000). The same value the look-ahead gives the play that
    led here, seen by the player now on roll: the position is the afterstate of the
    opponent's last play, flipped."""
    if plies == 0:
        return np.asarray(evaluator(boards), dtype=np.float32)
    return np.ascontiguousarray(flip_outcomes(look_ahead(evaluator, flip(boards), plies)))


def _after_the_rolls(evaluator, afterstates: np.ndarray, plies: int) -> np.ndarray:
    """(k, 6) for the mover of afterstates (k, 26) that do not end the game: the
    roll-weighted mean over the opponent's 21 rolls of his best 0-ply reply, valued at
    ``plies - 1``."""
    replies, at_zero = best_replies(evaluator, afterstates)  # (k*21, 26), (k*21, 6)
    valued = at_zero if plies == 1 else look_ahead(evaluator, replies, plies - 1)
    per_roll = flip_outcomes(valued).reshape(len(afterstates), len(ROLLS), 6)
    return np.einsum("krs,r->ks", per_roll, ROLL_WEIGHTS).astype(np.float32)


def best_replies(evaluator, afterstates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The opponent's best reply by 0-ply equity to each of his 21 rolls after each of
    ``afterstates`` (k, 26): the replies' afterstates (k*21, 26) from his view (the bomb
    folded in for Nuclear), and their 0-ply probabilities (k*21, 6) for him. A roll he
    cannot play leaves the position as it is."""
    on_roll = flip(afterstates)  # (k, 26): he is on roll, a folded bomb mirrored too
    boards, bomb = _unfolded(evaluator, on_roll)
    boards = np.repeat(boards, len(ROLLS), axis=0)  # (k*21, 26)
    dice = np.tile(ROLLS, (len(afterstates), 1))  # (k*21, 2)
    plays = legal_plays(boards, dice, evaluator.rules)
    replies = plays.boards
    if bomb is not None:
        replies = fold_bomb(replies, np.repeat(bomb, len(ROLLS))[plays.root])
    probs = evaluator.after_play(replies)  # (P, 6) for him
    chosen = best_per_root(equity(probs), plays.root, len(boards))
    return replies[chosen], probs[chosen]


def _unfolded(evaluator, boards: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Boards (k, 26) as the rules read them, and the bomb (k,) folded into them (None
    for a network without one)."""
    if evaluator.encoding != "nuclear":
        return boards, None
    return unfold_bomb(boards)


def candidates(equities: np.ndarray, root: np.ndarray, n: int,
               most: int = FILTER_PLAYS, within: float = FILTER_EQUITY) -> np.ndarray:
    """The move filter: (K,) bool, True for the plays of each position looked ahead.

    equities (K,) 0-ply, root (K,) sorted with every position 0..n-1 present. Per
    position: the ``most`` best, and of those only the ones within ``within`` of the best
    (on a tie, the earlier row first). The best play of each position is always kept.
    """
    order = np.lexsort((-equities, root))  # (K,) by position, best first
    starts = np.concatenate([[0], np.cumsum(np.bincount(root, minlength=n))[:-1]])
    place = np.arange(len(order)) - starts[root[order]]  # 0 for each position's best
    best = equities[order][place == 0][root[order]]
    keep = np.zeros(len(equities), dtype=bool)
    keep[order] = (place < most) & (equities[order] >= best - within)
    return keep


def evaluate_plays(evaluator, afterstates: np.ndarray, root: np.ndarray, n: int,
                   plies: int) -> tuple[np.ndarray, np.ndarray]:
    """Each play's probabilities (K, 6) for the mover, and the plies (K,) int8 it was
    valued at: ``plies`` for the plays the filter keeps (``candidates``) and for plays
    that end the game (their result is exact at any depth), 0 for the rest.

    afterstates (K, 26) of the plays of n positions, root (K,) their position.
    """
    probs = evaluator.after_play(afterstates)  # (K, 6) at 0-ply
    depth = np.zeros(len(afterstates), dtype=np.int8)
    if plies == 0:
        return probs, depth
    finished = evaluator.rules.end_of_game(plain_boards(evaluator, afterstates)) != 0
    deeper = np.flatnonzero(candidates(equity(probs), root, n) & ~finished)
    probs[deeper] = look_ahead(evaluator, afterstates[deeper], plies)
    depth[deeper] = plies
    depth[finished] = plies
    return probs, depth


__all__ = ["MAX_PLIES", "FILTER_PLAYS", "FILTER_EQUITY", "check_plies", "look_ahead",
           "position_values",
           "best_replies", "candidates", "evaluate_plays"]
