"""``gammon play``: play against a bot in the terminal."""

from __future__ import annotations

import argparse
import sys

from gammon.engine.rules import VARIANTS
from gammon.eval.bots.registry import DEFAULT_BOT, valid_names

from ..errors import UsageError, quote
from ..positions import SEED_RANGE, seed_type, whole_type
from ..options import add_plies_option, load_bot, with_plies

HELP = f"""\
Play backgammon against a bot in the terminal: a money session, one game after another.
You are X and see the board from your side, with pip counts; type your plays in the usual
notation (24/18 13/11, 8/5(2), bar/22*, 6/off) and confirm each with Enter, or 'undo' it.
Type 'help' during the game for the commands: hint, auto (let the bot play this turn for
you), board, double/take/pass (with --cube), resign, save FILE, quit. 'resign' offers a
single game, a gammon or a backgammon (those still possible); the bot accepts or declines
by its own evaluation, and a declined resignation plays on.

The bot is the shipped network (net:) unless --bot names another. With --cube the games
are money games with the doubling cube; the Jacoby rule is off unless --jacoby (as in
`gammon analyze`, `gammon cube` and `gammon match --cube`), and there are no beavers (a
.mat file cannot record them).

With --match N you play a match to N points instead: the cube is always in play (no
Jacoby rule, no beavers), the game after a player first reaches N-1 points is the
Crawford game (no doubling), and games follow one another until one of you has N points.
The bot plays and decides the cube for the match: a network chooses its plays by its
match winning chance and its cube actions from the match equity table at the score.

At the end, the score and an offer to save the session as a .mat file, which GNU
Backgammon reads with 'import mat FILE' (a match with its length and score lines), or,
when the file name ends in .sgf, as GNU Backgammon's SGF ('load match FILE': one game tree
per game, the Crawford game, the Jacoby rule and resignations marked); 'save FILE' during
the game does the same.

--manual-dice asks for every roll (yours and the bot's, e.g. '6 2'), to replay a game
played with real dice.

bots: {valid_names()}

examples:
  gammon play
  gammon play --bot pubeval
  gammon play --bot net:strong.npz --cube --jacoby
  gammon play --manual-dice --bot heuristic
  gammon play --match 7
"""


def add_parser(sub) -> None:
    p = sub.add_parser("play", help="play against a bot in the terminal",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bot", default=DEFAULT_BOT,
                   help=f"the bot to play (default: {DEFAULT_BOT}, the shipped network)")
    p.add_argument("--variant", default="standard", choices=list(VARIANTS),
                   help="variant (default: standard)")
    p.add_argument("--cube", action="store_true", help="play with the doubling cube")
    p.add_argument("--match", type=whole_type("--match", 1, 64), default=0, metavar="N",
                   help="play a match to N points (1..64; the cube and the Crawford rule) "
                        "instead of a money session")
    p.add_argument("--jacoby", action="store_true",
                   help="with --cube: gammons count single while the cube is centred "
                        "(default: off)")
    p.add_argument("--seed", type=seed_type, default=None,
                   help=f"seed for the dice and the bot, {SEED_RANGE} "
                        f"(default: a fresh one, printed)")
    p.add_argument("--manual-dice", action="store_true",
                   help="type the dice of both sides (e.g. '6 2') instead of rolling")
    p.add_argument("--name", default="human", help="your name in saved matches (default: human)")
    add_plies_option(p)
    p.set_defaults(run=run)


def run(args) -> int:
    import numpy as np

    from gammon.engine.cube import CubeRules

    from ..console import Console
    from ..positions import tolerant_input
    from ..session import Session
    name = args.name.strip()
    if not name or ":" in name or len(name) > 40 or not name.isprintable():
        raise UsageError(f"--name must be 1 to 40 printable characters without ':', "
                         f"got {quote(args.name)}")
    if args.jacoby and args.match:
        raise UsageError("--jacoby is a money-game rule; a match has no Jacoby rule")
    if args.jacoby and not args.cube:
        raise UsageError("--jacoby needs --cube")
    bot_name = with_plies(args.bot, args.plies)
    seed = args.seed
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
        print(f"seed {seed} (replay these dice with --seed {seed})")
    dice_seed, bot_seed = np.random.SeedSequence(seed).spawn(2)
    rules = CubeRules(jacoby=args.jacoby) if args.cube or args.match else None
    bot = load_bot(bot_name, int(bot_seed.generate_state(1)[0]), args.variant, rules)
    session = Session(bot, bot_name, Console(tolerant_input(), sys.stdout),
                      np.random.default_rng(dice_seed), args.variant, rules,
                      args.manual_dice, name, args.match)
    return session.run()
