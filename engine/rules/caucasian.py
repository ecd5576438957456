"""The Caucasian rule: standard backgammon, but a checker that hits in the home board may
not hide in the same turn.

Our rules source: "in your home board you may not hit an opponent's checker and hide: a
checker that has hit may not move on in the same turn so that it stands on another checker
and is doubled... You may hit and cover the hit checker with another. You may hit and move
on to a free point, but not hide. Hit and bear off (if there is no other move) -- you can."

Our reading: take the legal plays under the standard rules; remove every play in which a
checker that hit a blot on one of the mover's home points (1..6) later in the same play
lands on a point already holding one or more of the mover's checkers, or is borne off. If
that removes every play, keep them all. A result board is legal when at least one legal play
reaches it. "Lands" counts every stop of the hitter, including the stops on the way of a
double. Checkers on one point are interchangeable: with 1-1, ``6/5* 6/5/4`` is legal
(another checker from the 6-point passes the one that hit), so the hitter is tracked as one
checker, and a step from its point may be the hitter's or another checker's.

The generator follows a play state (``track``): bits 1..6 mark the points where a checker
that hit in the home board stands, bit 7 that one of them hid.
"""

from __future__ import annotations

import numpy as np

from ..plays import Plays
from .standard import STANDARD, StandardRules

HID = 1 << 7  # a hitter landed on its own checkers or was borne off
_HOME_BITS = 0b1111110  # bits 1..6: a hitter on that home point


class CaucasianRules(StandardRules):
    """Standard movement and end; plays whose home-board hitter hides are removed."""

    def track(self, boards, parent, code, state):
        """Follow the hitters along each step; a step from a hitter's point with other
        checkers of ours on it goes two ways (the hitter moves, or another checker)."""
        source = (code >> 6).astype(np.int64)
        target = ((code >> 1) & 31).astype(np.int64)
        hit = (code & 1).astype(bool)
        before = state[parent]
        hitter_moves = ((before & _HOME_BITS) >> np.minimum(source, 7)) & 1 == 1
        hitter_moves &= source <= 6
        company = boards[parent, source] > 1  # another checker of ours shares the point
        other = np.flatnonzero(hitter_moves & company)  # ...and it may move instead
        branch = np.concatenate([np.arange(len(parent)), other])
        moving = np.concatenate([hitter_moves, np.zeros(len(other), dtype=bool)])
        s = before[branch]
        src, tgt, hits = source[branch], target[branch], hit[branch]
        landed_on_own = boards[parent[branch], tgt] > 0  # before the step (tgt 0: their bar)
        home_hit = hits & (tgt >= 1) & (tgt <= 6)
        # the hitter moves on: it leaves its point; hiding (own checkers, or off) is marked
        hides = moving & ((tgt == 0) | (landed_on_own & ~hits))
        s = np.where(moving, s & ~(1 << src), s)
        s = np.where(hides, s | HID, s)
        # a hitter that stays on the board is still the hitter; a new hit makes one
        s = np.where((moving & ~hides & (tgt >= 1)) | home_hit, s | (1 << tgt), s)
        return branch, s

    def filter_plays(self, plays: Plays, boards, dice) -> Plays:
        """Keep, per position, the results some non-hiding play reaches (all of them when
        none does), each board once."""
        touched = plays.state != 0  # a hit in the home board somewhere in the play
        if not touched.any():
            return plays  # no hitter: the standard plays, each board once already
        n = len(boards)
        mixed = np.zeros(n, dtype=bool)  # positions where some play hit in the home board
        mixed[plays.root[touched]] = True
        clean = (plays.state & HID) == 0
        has_clean = np.zeros(n, dtype=bool)
        has_clean[plays.root[clean]] = True
        inside = mixed[plays.root]
        keep = ~inside | clean | ~has_clean[plays.root]
        # a board reached in several states appears once (the first kept row)
        rows = np.flatnonzero(keep & inside)
        b = plays.boards[rows].astype(np.int64) + 15  # 0..30 per cell
        words = [np.zeros(len(rows), np.int64) for _ in range(3)]
        for c in range(26):
            words[c // 9] = words[c // 9] * 31 + b[:, c]
        root = plays.root[rows]
        order = np.lexsort((words[2], words[1], words[0], root))
        same = np.zeros(len(order), dtype=bool)
        same[1:] = (root[order][1:] == root[order][:-1])
        for w in words:
            same[1:] &= w[order][1:] == w[order][:-1]
        keep[rows[order[same]]] = False
        return plays.subset(np.flatnonzero(keep))


CAUCASIAN = CaucasianRules("caucasian", 15, STANDARD.layout)
