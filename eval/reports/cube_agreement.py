"""How often a bot's money cube decisions agree with GNU Backgammon's 0-ply probabilities
put through the same cube heads, on positions from games of the bot against pubeval.

This isolates what the network contributes (its probabilities): both sides use the same
Janowski heads (model.cube, efficiency 0.68, centred cube). "Clear-cut" positions are those
where, by gnubg's numbers, the chosen action and response each beat the alternative by at
least ``--margin`` (equity per cube). Needs the PyPI package gnubg-nn.

    python -m gammon.eval.reports.cube_agreement [--bot net:] [--games 200] [--margin 0.05] [--seed 1]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from gammon.engine.game import play
from gammon.model.cube import cube_equities, decide_from

from gammon.eval.bots.simple import PubevalBot
from gammon.eval.bots.cube import _gnubg_probabilities, probability_source
from gammon.eval.bots.registry import make_bot


def positions(bot, games: int, seed: int) -> np.ndarray:
    """Positions before the roll met by either side in ``games`` games: (N, 26) int8."""
    seen = []
    rng = np.random.default_rng(seed)
    play((bot, PubevalBot()), games, rng, on_position=lambda b, d: seen.append(b.copy()))
    return np.concatenate(seen)


def margins(eq) -> tuple[np.ndarray, np.ndarray]:
    """How far each decision is from its boundary: (action margin, response margin)."""
    nd, dt, dp = (np.asarray(x, dtype=np.float64) for x in
                  (eq.no_double, eq.double_take, eq.double_pass))
    after = np.minimum(dt, dp)
    return np.abs(after - nd), np.abs(dt - dp)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", default="net:", help="a bot with probabilities (net:PATH)")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--margin", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        import gnubg_nn
    except ImportError:
        print("needs gnubg-nn: pip install 'gammon[gnubg]'", file=sys.stderr)
        return 2
    bot = make_bot(args.bot)
    ours = probability_source(bot)
    boards = positions(bot, args.games, args.seed)
    mine = decide_from(cube_equities(ours(boards)))
    theirs_eq = cube_equities(_gnubg_probabilities(gnubg_nn)(boards))
    theirs = decide_from(theirs_eq)
    action_margin, response_margin = margins(theirs_eq)
    clear = (action_margin >= args.margin) & (response_margin >= args.margin)
    same = (mine.action == theirs.action) & (mine.response == theirs.response)
    doubles = theirs.action != 0
    print(f"{len(boards)} positions from {args.games} games of {args.bot} v pubeval")
    print(f"  all positions:        {same.mean():.1%} same action and response")
    print(f"  clear-cut ({clear.sum()}):      {same[clear].mean():.1%}")
    print(f"  gnubg doubles ({doubles.sum()}): {same[doubles].mean():.1%}")
    print(f"  clear-cut doubles ({(clear & doubles).sum()}): {same[clear & doubles].mean():.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
