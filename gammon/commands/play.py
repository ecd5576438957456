"""``gammon play``: play against a bot in the terminal."""

from __future__ import annotations

import argparse
import sys

from engine.rules import VARIANTS
from eval.registry import valid_names

from ..errors import UsageError
from .match import load_bot

HELP = f"""\
Play backgammon against a bot in the terminal: a money session, one game after another.
You are X and see the board from your side, with pip counts; type your plays in the usual
notation (24/18 13/11, 8/5(2), bar/22*, 6/off) and confirm each with Enter, or 'undo' it.
Type 'help' during the game for the commands: hint, auto (let the bot play this turn for
you), board, double/take/pass (with --cube), resign, save FILE, quit.

At the end, the score and an offer to save the session as a .mat file, which GNU
Backgammon reads with 'import mat FILE'.

--manual-dice asks for every roll (yours and the bot's, e.g. '6 2'), to replay a game
played with real dice.

bots: {valid_names()}

examples:
  gammon play --bot pubeval
  gammon play --bot net:strong.npz --cube
  gammon play --manual-dice --bot heuristic
"""


def add_parser(sub) -> None:
    p = sub.add_parser("play", help="play against a bot in the terminal",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bot", default="pubeval", help="the bot to play (default: pubeval)")
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant (default: standard)")
    p.add_argument("--cube", action="store_true", help="play with the doubling cube")
    p.add_argument("--seed", type=int, default=None,
                   help="seed for the dice and the bot (default: a fresh one, printed)")
    p.add_argument("--manual-dice", action="store_true",
                   help="type the dice of both sides (e.g. '6 2') instead of rolling")
    p.add_argument("--name", default="human", help="your name in saved matches (default: human)")
    p.set_defaults(run=run)


def run(args) -> int:
    import numpy as np

    from engine.cube import CubeRules

    from ..console import Console
    from ..session import Session
    if not args.name.strip() or ":" in args.name:
        raise UsageError(f"--name must be non-empty and without ':', got {args.name!r}")
    seed = args.seed
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
        print(f"seed {seed} (replay these dice with --seed {seed})")
    dice_seed, bot_seed = np.random.SeedSequence(seed).spawn(2)
    rules = CubeRules() if args.cube else None
    bot = load_bot(args.bot, int(bot_seed.generate_state(1)[0]), args.variant, rules)
    session = Session(bot, args.bot, Console(sys.stdin, sys.stdout),
                      np.random.default_rng(dice_seed), args.variant, rules,
                      args.manual_dice, args.name.strip())
    return session.run()
