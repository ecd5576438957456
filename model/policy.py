"""NetPolicy: a bot that scores every afterstate of every game in one network call.

Perspective rule: a value is for the player on roll in the board given. An afterstate is
flipped (the opponent is now on roll), evaluated, and its six outcomes reversed back: the
mover's probabilities after that play. The play with the best equity for the mover wins.
"""

from __future__ import annotations

import numpy as np
import torch

from gammon.engine import outcomes
from gammon.engine.movegen import Plays
from gammon.engine.outcomes import equity
from gammon.engine.phase import PHASES, classify
from gammon.engine.policy import Bot, best_per_root
from gammon.engine.rules import Rules, variant as get_variant
from gammon.engine.sanity import net_outcomes

from .bomb import BombInput, plain_boards
from .encoding import CLASSIC_PLUS_ROWS, encoder, fold_bomb
from .lookahead import check_plies, evaluate_plays
from .match_cube import ScoreAware
from .net import ValueNet, bar_and_off_rows, unit_rows
from .rows import padded, row_slices


class NetEvaluator:
    """Six-outcome probabilities of boards (N, 26) from the player on roll, batched.

    ``net`` values every position unless ``phases`` (phase name -> (network, encoding),
    "race" and "crashed") gives its phase (``engine.phase.classify``) a network of its own;
    races with every checker home come from the bear-off database."""

    def __init__(self, net: ValueNet, encoding: str = "classic",
                 variant: str | Rules = "standard", device: str | torch.device = "cpu",
                 phases: dict[str, tuple[ValueNet, str]] | None = None):
        self.net, self.encoding = net, encoding
        self.rules = get_variant(variant)
        self.checkers = self.rules.checkers
        self.device = torch.device(device)
        self.phases = dict(phases or {})

    def __call__(self, boards: np.ndarray) -> np.ndarray:
        """(N, 26) int8 -> (N, 6) float32 probabilities for the player on roll; races with
        every checker home come from the bear-off database (``engine.bearoff``), and what
        the position rules out is exactly 0 (``engine.sanity``)."""
        if len(boards) == 0:
            return np.zeros((0, 6), dtype=np.float32)
        # every net's probabilities pass through engine.sanity: "where the position makes
        # an outcome impossible, its probability is exactly 0"
        return net_outcomes(self.network, boards, self.rules, plain_boards(self, boards))

    def network(self, boards: np.ndarray) -> np.ndarray:
        """The networks alone, each on its phase's boards: (N, 26) int8 -> (N, 6) float32
        for the player on roll."""
        if not self.phases:
            return self._probabilities(self.net, self.encoding, boards)
        phase = classify(boards, crashed="crashed" in self.phases)
        out = np.empty((len(boards), 6), dtype=np.float32)
        main = np.ones(len(boards), dtype=bool)
        for name, (net, encoding) in self.phases.items():
            rows = phase == PHASES.index(name)
            main &= ~rows
            if rows.any():
                out[rows] = self._probabilities(net, encoding, boards[rows])
        if main.any():
            out[main] = self._probabilities(self.net, self.encoding, boards[main])
        return out

    @torch.no_grad()
    def _probabilities(self, net: ValueNet, encoding: str, boards: np.ndarray) -> np.ndarray:
        """One network on boards (N, 26) int8 -> (N, 6) float32.

        Inside ``model.rows.batch_independent`` (rollouts) the batch is padded to a
        multiple of ``model.rows.ROW_BLOCK`` rows: a board's probabilities are then the
        same bit for bit whatever else is in its batch."""
        return self._padded_probabilities(net, encoding, padded(boards))[:len(boards)]

    def _padded_probabilities(self, net: ValueNet, encoding: str,
                              boards: np.ndarray) -> np.ndarray:
        """The inputs of the whole batch at once, the network on its pieces
        (``model.rows.row_slices``: one, outside ``batch_independent``)."""
        if encoding in CLASSIC_PLUS_ROWS and self.device.type == "cpu":
            # the bar, off and more units of the whole batch, feature-major (F - 194, N)
            units = bar_and_off_rows(boards, self.checkers, unit_rows(net.inputs))
            more = CLASSIC_PLUS_ROWS[encoding]
            if more is not None:
                more(boards, self.checkers, out=units[4:])

            def probabilities(rows: slice) -> np.ndarray:
                return net.probabilities_boards(boards[rows], self.checkers,
                                                units=units[:, rows])
        else:
            x = torch.from_numpy(encoder(encoding)(boards, self.checkers)).to(self.device)

            def probabilities(rows: slice) -> np.ndarray:
                return torch.softmax(net(x[rows]), dim=-1).float().cpu().numpy()
        out = np.empty((len(boards), 6), dtype=np.float32)
        for rows in row_slices(len(boards)):
            out[rows] = probabilities(rows)
        return out

    def after_play(self, afterstates: np.ndarray) -> np.ndarray:
        """Probabilities (K, 6) for the player who just moved (``engine.outcomes``); a
        Nuclear net's afterstates carry the bomb folded in (``model.encoding.fold_bomb``)."""
        return outcomes.after_play(self, afterstates, self.rules, plain_boards(self, afterstates))

    def equity_before_roll(self, boards: np.ndarray, bomb: np.ndarray) -> np.ndarray:
        """Cubeless equity (N,) of positions before the roll, for the player on roll, with
        the bomb's owner relative to him (Nuclear)."""
        return equity(self(fold_bomb(boards, bomb)))


class NetPolicy(ScoreAware, BombInput, Bot):
    """Plays the afterstate with the highest cubeless equity, looking ``plies`` ahead as
    GNU Backgammon counts them (``model.lookahead``): 0-ply = the network alone, 1-ply =
    the opponent's 21 rolls, 2-ply = our 21 rolls after each of his replies too.

    With look-ahead only the plays the move filter keeps are looked ahead; the others keep
    their 0-ply value (``depths`` tells which) and are never chosen. One evaluation of a
    batch of plays serves ``scores``, ``probabilities``, ``depths`` and ``choose`` alike.

    In match play (told the score by ``observe_score``: ``engine.match.MatchScore`` of the
    positions, from the mover's side) the plays are scored and chosen by the mover's
    match winning chance after them (``model.match_cube.ScoreAware``), not by money
    equity; ``score_label`` then says "MWC"."""

    name = "net"

    def __init__(self, evaluator: NetEvaluator, plies: int = 0):
        self.evaluator, self.plies = evaluator, check_plies(plies)
        self._last = None  # (plays, plies, probabilities, depths) of the last evaluation

    def evaluate(self, plays: Plays) -> tuple[np.ndarray, np.ndarray]:
        """(K, 6) outcome probabilities of each play for the player who made it, and
        (K,) int8 the plies each was valued at; the last batch's are kept for its calls
        (not when the game loop has told a new bomb since: Nuclear's afterstates change)."""
        last = self._last
        told = getattr(self, "_bomb", None) is not None
        if last is not None and last[0] is plays and last[1] == self.plies and not told:
            return last[2], last[3]
        probs, depths = evaluate_plays(self.evaluator, self.afterstates(plays), plays.root,
                                       _positions(plays), self.plies)
        self._last = (plays, self.plies, probs, depths)
        return probs, depths

    def probabilities(self, plays: Plays) -> np.ndarray:
        """(K, 6) outcome probabilities of each play for the player who made it."""
        return self.evaluate(plays)[0]

    def depths(self, plays: Plays) -> np.ndarray:
        """(K,) int8: the plies each play was valued at (0 for plays the filter left)."""
        return self.evaluate(plays)[1]

    def scores(self, plays, boards, dice):
        return self.values(plays, self.probabilities(plays))

    def choose(self, plays, boards, dice):
        """(N,) the best play of each position among those looked ahead."""
        probs, depths = self.evaluate(plays)
        looked = np.where(depths == self.plies, self.values(plays, probs), -np.inf)
        return best_per_root(looked, plays.root, len(boards))


def _positions(plays: Plays) -> int:
    """How many positions the plays come from (every one has a row)."""
    return int(plays.root[-1]) + 1 if len(plays) else 0
