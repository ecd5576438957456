"""Sanity of outcome probabilities (NumPy only): an outcome the position rules out is
exactly 0, as GNU Backgammon's SanityCheck makes its nets' outputs.

A network only estimates; the rules decide some outcomes outright. This module is the one
definition of those rules, and ``net_outcomes`` the one place every network's and bot
file's probabilities pass through (``model.policy.NetEvaluator`` and
``model.numpy_net.NumpyEvaluator`` call it), so play at every look-ahead, analysis, cube
decisions and the trainer's targets (self-play values, TD bootstrapping, 1-ply targets,
all taken from a ``NetEvaluator``) see sane probabilities alike.

The rules, for each side as the loser (the position seen by the player on roll, whose
six outcomes ``engine.outcomes`` lays out):

- no gammon once the loser has borne off a checker (a gammon needs "the opponent has not
  borne off any checkers"; a checker borne off never comes back);
- no backgammon once the loser has no checker on the bar or in the winner's home board
  and none can get there: a loser's checker only gets back there by being hit, so once
  there is no contact left (``engine.phase.is_race``: no checker of one side can meet one
  of the other again) none can;
- wins in [0, 1], gammons <= wins, backgammons <= gammons, per side.

Per variant (its rules object): a variant without gammons (``Rules.gammons``: Sudden
death) has no gammon and no backgammon ever; one without backgammons
(``Rules.backgammons``: Plakoto) none ever; the no-contact rule holds only where a race
stays one (``Rules.race_is_final``: not in Nuclear, whose bomb sends blots to the bar in
any position). Checkers in play are counted by the rules (``Rules.in_play``: Plakoto's
pinned checkers), borne-off ones are ``Rules.checkers`` minus those.

An outcome made impossible gives its probability to the next smaller win (or loss) of the
same side: a backgammon's to the gammon, a gammon's to the single game, so P(win) stays.
"""

from __future__ import annotations

import numpy as np

from .bearoff import with_exact_races
from .phase import race_of_cells

# columns of ``impossible`` (the six outcomes of ``engine.outcomes``; 2 and 3, the single
# win and loss, are never impossible)
WIN_BACKGAMMON, WIN_GAMMON, LOSE_GAMMON, LOSE_BACKGAMMON = 0, 1, 4, 5


def impossible(boards: np.ndarray, rules) -> np.ndarray:
    """Which of the six outcomes each position rules out, for the player on roll:
    boards (N, 26) int8 from his view -> (N, 6) bool (True: impossible)."""
    return _mask(_ruled_out(np.asarray(boards), rules), len(boards))


def _mask(flags, n: int) -> np.ndarray:
    """The (n, 6) bool mask of ``_ruled_out``'s flags (None: nothing ruled out)."""
    out = np.zeros((n, 6), dtype=bool)
    if flags is not None:
        no_win_gammon, no_win_bg, no_lose_gammon, no_lose_bg = flags
        out[:, WIN_GAMMON] = no_win_gammon
        out[:, WIN_BACKGAMMON] = no_win_gammon | no_win_bg
        out[:, LOSE_GAMMON] = no_lose_gammon
        out[:, LOSE_BACKGAMMON] = no_lose_gammon | no_lose_bg
    return out


def _ruled_out(b: np.ndarray, rules):
    """What the positions rule out, as four (N,) bool flags: (no win by gammon, no win by
    backgammon beyond that, no loss by gammon, no loss by backgammon beyond that); None
    when nothing is (the common case in play: contact, nobody borne off). Found with a few
    whole-batch reductions, the boards taken cell-major once."""
    if len(b) == 0:
        return None
    if not rules.gammons:  # "no gammons or backgammons"
        every = np.ones(len(b), dtype=bool)
        return every, every, every, every
    cells = np.ascontiguousarray(b.T)  # (26, N): reductions over cells run faster
    mover, opponent = rules.in_play(b, cells)
    # "no gammon once the loser has borne off a checker" (and so no backgammon either)
    no_win_gammon = opponent < rules.checkers
    no_lose_gammon = mover < rules.checkers
    if not rules.backgammons:
        no_win_bg = no_lose_bg = np.ones(len(b), dtype=bool)
    elif rules.race_is_final:
        # "no backgammon once the loser has no checker on the bar or in the winner's home
        # board and none can get there": without contact no checker is hit again
        race = race_of_cells(cells)
        if not race.any():
            if not (no_win_gammon.any() or no_lose_gammon.any()):
                return None
            no_win_bg = no_lose_bg = race
        else:
            opponent_back = (cells[0:7] < 0).any(axis=0)  # his bar (0) or our home (1..6)
            mover_back = (cells[19:26] > 0).any(axis=0)  # his home (19..24) or our bar (25)
            no_win_bg = race & ~opponent_back
            no_lose_bg = race & ~mover_back
    else:
        if not (no_win_gammon.any() or no_lose_gammon.any()):
            return None
        no_win_bg = no_lose_bg = np.zeros(len(b), dtype=bool)
    return no_win_gammon, no_win_bg, no_lose_gammon, no_lose_bg


def sane(probs: np.ndarray, boards: np.ndarray, rules) -> np.ndarray:
    """Probabilities for the player on roll made sane: six outcomes (N, 6), or gnubg's five
    outputs (N, 5) (``engine.outcomes.to_five``), of boards (N, 26) from his view.

    Six outcomes: a negative probability becomes 0 (then wins and gammons, sums of
    non-negative exclusive parts, hold their order by themselves; a softmax sums to 1) and
    each impossible outcome gives its probability to the next smaller result of its side.
    Rows no rule touches are returned bit for bit; when none is touched, the array itself.
    Five outputs: wins clipped to [0, 1], gammons to [0, wins], backgammons to [0, gammons]
    per side, and impossible ones set to 0."""
    p = np.asarray(probs)
    flags = _ruled_out(np.asarray(boards), rules)
    if p.shape[-1] == 5:
        return _sane_five(p, _mask(flags, len(p)))
    negative = (p < 0).any()
    if flags is None:
        return np.maximum(p, 0) if negative else p
    no_win_gammon, no_win_bg, no_lose_gammon, no_lose_bg = flags
    win_bg_gone, lose_bg_gone = no_win_gammon | no_win_bg, no_lose_gammon | no_lose_bg
    rows = np.flatnonzero(win_bg_gone | lose_bg_gone)  # (a gammon gone takes its bg too)
    if len(rows) == 0 and not negative:
        return p
    p = np.maximum(p, 0) if negative else p.copy()
    q = p[rows]
    for big, small, gone in ((WIN_BACKGAMMON, WIN_GAMMON, win_bg_gone),
                             (WIN_GAMMON, 2, no_win_gammon),
                             (LOSE_BACKGAMMON, LOSE_GAMMON, lose_bg_gone),
                             (LOSE_GAMMON, 3, no_lose_gammon)):
        # an impossible outcome's probability goes to the next smaller one of its side
        gone = gone[rows]
        q[gone, small] += q[gone, big]
        q[gone, big] = 0
    p[rows] = q
    return p


def _sane_five(p5: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """gnubg's five outputs (N, 5): win, win gammon, win backgammon, lose gammon, lose
    backgammon, clipped and with impossible outcomes set to 0."""
    p = np.array(p5, copy=True)
    # wins in [0, 1], gammons <= wins, backgammons <= gammons, per side
    p[:, 0] = np.clip(p[:, 0], 0, 1)
    p[:, 1] = np.clip(p[:, 1], 0, p[:, 0])
    p[:, 2] = np.clip(p[:, 2], 0, p[:, 1])
    p[:, 3] = np.clip(p[:, 3], 0, 1 - p[:, 0])
    p[:, 4] = np.clip(p[:, 4], 0, p[:, 3])
    for column, outcome in ((1, WIN_GAMMON), (2, WIN_BACKGAMMON), (3, LOSE_GAMMON),
                            (4, LOSE_BACKGAMMON)):
        p[:, column] = np.where(mask[:, outcome], 0, p[:, column])
    return p


def net_outcomes(evaluate, boards: np.ndarray, rules, plain: np.ndarray | None = None
                 ) -> np.ndarray:
    """Six outcomes (N, 6) float32 of boards (N, 26) for the player on roll, as every
    network evaluator gives them: the races the bear-off database settles from it, the rest
    from ``evaluate(boards) -> (M, 6)`` (``engine.bearoff.with_exact_races``), all made
    sane (``sane``; the database's values already are). ``plain``: the boards as the rules
    read them, when the evaluator's carry more (a Nuclear network's folded bomb)."""
    probs = with_exact_races(evaluate, boards, rules)
    return sane(probs, boards if plain is None else plain, rules)


__all__ = ["WIN_BACKGAMMON", "WIN_GAMMON", "LOSE_GAMMON", "LOSE_BACKGAMMON", "impossible",
           "sane", "net_outcomes"]
