"""NetPolicy: a bot that scores every afterstate of every game in one network call.

Perspective rule: a value is for the player on roll in the board given. An afterstate is
flipped (the opponent is now on roll), evaluated, and its six outcomes reversed back: the
mover's probabilities after that play. The play with the best equity for the mover wins.
"""

from __future__ import annotations

import numpy as np
import torch

from engine import outcomes
from engine.board import flip
from engine.dice import ROLL_WEIGHTS, ROLLS
from engine.movegen import Plays, legal_plays
from engine.outcomes import equity, flip_outcomes
from engine.policy import Bot, best_per_root
from engine.rules import Rules, variant as get_variant

from .bomb import BombInput, plain_boards
from .encoding import encoder, fold_bomb
from .net import ValueNet


class NetEvaluator:
    """Six-outcome probabilities of boards (N, 26) from the player on roll, batched."""

    def __init__(self, net: ValueNet, encoding: str = "classic",
                 variant: str | Rules = "standard", device: str | torch.device = "cpu"):
        self.net, self.encoding = net, encoding
        self.rules = get_variant(variant)
        self.checkers = self.rules.checkers
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
        """Probabilities (K, 6) for the player who just moved (``engine.outcomes``); a
        Nuclear net's afterstates carry the bomb folded in (``model.encoding.fold_bomb``)."""
        return outcomes.after_play(self, afterstates, self.rules, plain_boards(self, afterstates))

    def equity_before_roll(self, boards: np.ndarray, bomb: np.ndarray) -> np.ndarray:
        """Cubeless equity (N,) of positions before the roll, for the player on roll, with
        the bomb's owner relative to him (Nuclear)."""
        return equity(self(fold_bomb(boards, bomb)))


class NetPolicy(BombInput, Bot):
    """Plays the afterstate with the highest cubeless equity (0-ply), or 2-ply lookahead."""

    name = "net"
    score_label = "equity"

    def __init__(self, evaluator: NetEvaluator, plies: int = 0):
        self.evaluator, self.plies = evaluator, plies

    def probabilities(self, plays: Plays) -> np.ndarray:
        """(K, 6) outcome probabilities of each play for the player who made it."""
        boards = self.afterstates(plays)
        if self.plies == 0:
            return self.evaluator.after_play(boards)
        return two_ply(self.evaluator, boards)

    def scores(self, plays, boards, dice):
        return equity(self.probabilities(plays))




def two_ply(evaluator: NetEvaluator, afterstates: np.ndarray) -> np.ndarray:
    """Probabilities (K, 6) for the mover of afterstates, looking one roll ahead.

    A play that ends the game is valued by its result. Otherwise, for each of the
    opponent's 21 rolls, the opponent picks its best reply at 0-ply (a reply that ends the
    game is valued by its result, so it is final); the mover's probabilities are the
    roll-weighted mean of the outcomes after those replies.
    """
    rules = evaluator.rules
    probs = np.zeros((len(afterstates), 6), dtype=np.float32)
    points = rules.end_of_game(afterstates)
    over = points != 0
    probs[over] = outcomes.certain(points[over])
    going = np.flatnonzero(~over)
    k = len(going)
    if k == 0:
        return probs
    opponent = flip(afterstates[going])  # (k, 26) the opponent on roll
    boards = np.repeat(opponent, len(ROLLS), axis=0)  # (k*21, 26)
    dice = np.tile(ROLLS, (k, 1))
    plays = legal_plays(boards, dice, rules)
    replier = evaluator.after_play(plays.boards)  # (P, 6) for the opponent who replied
    chosen = best_per_root(equity(replier), plays.root, len(boards))
    per_roll = flip_outcomes(replier[chosen]).reshape(k, len(ROLLS), 6)
    probs[going] = np.einsum("krs,r->ks", per_roll, ROLL_WEIGHTS)
    return probs
