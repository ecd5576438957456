"""How much a player can win against ``random``: a probe, not a fair bot.

``RandomExploit`` looks one roll ahead *knowing* that the opponent plays uniformly at random
among the distinct legal results (as ``eval.bots.simple.RandomBot`` does): each play is valued by
the mean, over the opponent's 21 rolls weighted by their chances, of the mean over his
legal results of a network's 0-ply value (a result that ends the game by its points). No
fair player knows that much about its opponent, so its score against ``random`` bounds
from above, in practice, what a trained network can reach there.

    python -m gammon.eval.bots.random_probe --variant hypergammon --games 4000 --seed 2026
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from gammon.engine import outcomes
from gammon.engine.board import flip
from gammon.engine.dice import ROLL_WEIGHTS, ROLLS
from gammon.engine.movegen import legal_plays
from gammon.engine.outcomes import equity, flip_outcomes
from gammon.engine.policy import Bot


class RandomExploit(Bot):
    """Plays the result whose value is highest when the opponent replies at random."""

    name = "random-exploit"
    score_label = "equity against random replies"

    def __init__(self, evaluator):
        self.evaluator = evaluator  # a model.policy.NetEvaluator (or NumpyEvaluator)

    def scores(self, plays, boards, dice):
        return equity(self.probabilities(plays.boards))

    def probabilities(self, afterstates: np.ndarray) -> np.ndarray:
        """(K, 6) for the mover of afterstates (K, 26), the opponent replying at random."""
        rules = self.evaluator.rules
        probs = np.zeros((len(afterstates), 6), dtype=np.float64)
        points = rules.end_of_game(afterstates)
        over = points != 0
        probs[over] = outcomes.certain(points[over])
        going = np.flatnonzero(~over)
        k = len(going)
        if k == 0:
            return probs
        boards = np.repeat(flip(afterstates[going]), len(ROLLS), axis=0)  # (k*21, 26)
        plays = legal_plays(boards, np.tile(ROLLS, (k, 1)), rules)
        replies = flip_outcomes(self.evaluator.after_play(plays.boards))  # (P, 6) our view
        per_board = np.zeros((len(boards), 6))
        np.add.at(per_board, plays.root, replies)
        per_board /= np.bincount(plays.root, minlength=len(boards))[:, None]
        probs[going] = np.einsum("krs,r->ks", per_board.reshape(k, len(ROLLS), 6),
                                 ROLL_WEIGHTS)
        return probs


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gammon.eval.bots.random_probe", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", default="hypergammon")
    parser.add_argument("--games", type=int, default=4000, help="paired games (even)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--net", default="", help="checkpoint (default: the variant's shipped)")
    args = parser.parse_args(argv)
    from gammon.model.player import load_net_bot

    from gammon.eval.playing.match import run_match
    try:
        net = load_net_bot(args.net or None, args.variant)
        result = run_match(RandomExploit(net.evaluator), "random", args.games, seed=args.seed,
                           variant=args.variant, progress=sys.stderr.isatty())
    except (ValueError, OSError) as e:
        print(f"python -m gammon.eval.bots.random_probe: {e}", file=sys.stderr)
        return 2
    wins = float((result.points > 0).mean())
    half = 1.96 * np.sqrt(wins * (1 - wins) / len(result.points))
    print(f"{args.variant}: the random-exploit probe against random over {len(result.points)} "
          f"paired games (seed {args.seed}): {wins:.1%} +- {half:.1%} wins, "
          f"{result.points.mean():+.3f} ppg")
    return 0


if __name__ == "__main__":
    sys.exit(main())
