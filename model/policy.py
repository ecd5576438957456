"""NetPolicy: a bot that scores every afterstate of every game in one network call.

Perspective rule: a value is for the player on roll in the board given. An afterstate is
flipped (the opponent is now on roll), evaluated, and its six outcomes reversed back: the
mover's probabilities after that play. The play with the best equity for the mover wins.
"""

from __future__ import annotations

import numpy as np
import torch

from engine.board import flip
from engine.game import finished, result_points
from engine.movegen import Plays, legal_plays
from engine.policy import Bot, best_per_root

from .encoding import encoder
from .net import ValueNet, equity, flip_outcomes


class NetEvaluator:
    """Six-outcome probabilities of boards (N, 26) from the player on roll, batched."""

    def __init__(self, net: ValueNet, encoding: str = "classic", checkers: int = 15,
                 device: str | torch.device = "cpu"):
        self.net, self.encoding, self.checkers = net, encoding, checkers
        self.device = torch.device(device)
        self._encode = encoder(encoding)

    @torch.no_grad()
    def __call__(self, boards: np.ndarray) -> np.ndarray:
        """(N, 26) int8 -> (N, 6) float32 probabilities for the player on roll."""
        if len(boards) == 0:
            return np.zeros((0, 6), dtype=np.float32)
        if self.encoding == "classic" and self.device.type == "cpu":
            logits = self.net.forward_boards(boards, self.checkers)
        else:
            x = torch.from_numpy(self._encode(boards, self.checkers)).to(self.device)
            logits = self.net(x)
        return torch.softmax(logits, dim=-1).float().cpu().numpy()

    def after_play(self, afterstates: np.ndarray) -> np.ndarray:
        """Probabilities (K, 6) for the player who just moved, of afterstates (K, 26).

        A play that bears off the last checker has won: its outcome is certain, not
        estimated (the network never sees finished games).
        """
        probs = np.ascontiguousarray(flip_outcomes(self(flip(afterstates))))
        won = finished(afterstates)
        if won.any():
            points = result_points(afterstates[won], self.checkers)
            probs[won] = np.eye(6, dtype=np.float32)[3 - points]  # 3 -> win bg, 1 -> single
        return probs


class NetPolicy(Bot):
    """Plays the afterstate with the highest cubeless equity (0-ply), or 2-ply lookahead."""

    name = "net"
    score_label = "equity"

    def __init__(self, evaluator: NetEvaluator, plies: int = 0):
        self.evaluator, self.plies = evaluator, plies

    def probabilities(self, plays: Plays) -> np.ndarray:
        """(K, 6) outcome probabilities of each play for the player who made it."""
        if self.plies == 0:
            return self.evaluator.after_play(plays.boards)
        return two_ply(self.evaluator, plays.boards)

    def scores(self, plays, boards, dice):
        return equity(self.probabilities(plays))


_ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, a + 1)], dtype=np.int8)
_WEIGHTS = np.array([1 if a == b else 2 for a, b in _ROLLS], dtype=np.float64) / 36


def two_ply(evaluator: NetEvaluator, afterstates: np.ndarray) -> np.ndarray:
    """Probabilities (K, 6) for the mover of afterstates, looking one roll ahead.

    For each of the opponent's 21 rolls, the opponent picks its best reply at 0-ply; the
    mover's probabilities are the roll-weighted mean of the resulting positions' values.
    """
    k = len(afterstates)
    opponent = flip(afterstates)  # (K, 26) the opponent on roll
    boards = np.repeat(opponent, len(_ROLLS), axis=0)  # (K*21, 26)
    dice = np.tile(_ROLLS, (k, 1))
    plays = legal_plays(boards, dice)
    mine = evaluator(flip(plays.boards))  # (P, 6): mover on roll after the reply
    reply_equity = -equity(mine)  # the replier's equity
    chosen = best_per_root(reply_equity, plays.root, len(boards))
    per_roll = mine[chosen].reshape(k, len(_ROLLS), 6)
    return np.einsum("krs,r->ks", per_roll, _WEIGHTS).astype(np.float32)
