"""The command line's shared options: the bot (its name, seed and look-ahead, loaded
with one-line errors) and the cube model (efficiency, Jacoby, beavers)."""

from __future__ import annotations

import numpy as np

from gammon.engine.board import on_board
from gammon.eval.bots.registry import (DEFAULT_BOT, NAMES, NET_PREFIX, BotUnavailable,
                                valid_names)
from gammon.model.lookahead import FILTER_EQUITY, FILTER_PLAYS, MAX_PLIES

from .errors import UsageError, quote
from .positions import SEED_MAX, SEED_RANGE, fraction_type, seed_type, whole_type


PLIES_HELP = ("look-ahead of a net bot, in plies as GNU Backgammon counts them: 0-ply = the "
              "network alone (default), 1-ply = looks at the opponent's 21 rolls (his best "
              "reply to each), 2-ply = also at our 21 rolls after each of his replies (some "
              f"20 times the work of 1-ply); only the best {FILTER_PLAYS} plays within "
              f"{FILTER_EQUITY} equity of the best at 0-ply are looked ahead. The same as the "
              "bot name net:PATH@N")


def add_plies_option(p) -> None:
    """``--plies N`` (``PLIES_HELP``): None unless given, so a bot name's @N stands."""
    p.add_argument("--plies", type=whole_type("--plies", 0, MAX_PLIES), default=None,
                   metavar="N", help=PLIES_HELP)


def with_plies(name: str, plies: int | None) -> str:
    """The bot name looking ``plies`` ahead: ``net:PATH`` -> ``net:PATH@N`` (also behind
    ``nodouble:``). None (no --plies) leaves the name as it is, and so does 0 for a bot
    that is no network; a usage error for such a bot asked to look ahead, or a net whose
    name already says other plies."""
    from gammon.eval.bots.cube import NEVER_PREFIX
    from gammon.eval.bots.registry import PLIES_MARK, net_spec
    if plies is None:
        return name
    inner = name[len(NEVER_PREFIX):] if name.startswith(NEVER_PREFIX) else name
    if not inner.startswith(NET_PREFIX):
        if plies == 0:
            return name
        raise UsageError(f"--plies {plies} needs a network checkpoint bot (net:PATH.pt or "
                         f"net:), not {quote(name)}")
    try:
        _, said = net_spec(inner[len(NET_PREFIX):])
    except ValueError as e:
        raise UsageError(str(e)) from None
    if said and said != plies:
        raise UsageError(f"--plies {plies} and the bot {quote(name)} say different plies: "
                         f"give them once")
    return name if said or not plies else f"{name}{PLIES_MARK}{plies}"


def check_bot_name(name: str) -> None:
    """A usage error for a name that is no bot (the name quoted, 80 characters at most)."""
    from gammon.eval.bots.cube import NEVER_PREFIX
    inner = name[len(NEVER_PREFIX):] if name.startswith(NEVER_PREFIX) else name
    if inner not in NAMES and not inner.startswith(NET_PREFIX):
        raise UsageError(f"unknown bot {quote(name)}; valid: {valid_names()}")


def load_bot(name: str, seed: int | None = None, variant: str = "standard", rules=None):
    """``eval.bots.registry.make_bot``, its errors turned into one-line usage errors; with cube
    ``rules``, the bot with its ``auto`` cube strategy."""
    from gammon.eval.bots.registry import make_bot
    check_bot_name(name)
    if seed is not None and not 0 <= seed <= SEED_MAX:
        raise UsageError(f"a seed is a whole number from {SEED_RANGE}, got "
                         f"{quote(seed) if abs(seed) < 10**100 else 'a larger number'}")
    try:
        if rules is not None:
            return make_bot(name, seed, variant, cube="auto", rules=rules)
        return make_bot(name, seed, variant)
    except (ValueError, BotUnavailable, OSError) as e:
        raise UsageError(str(e)) from None


def add_cube_model_options(p) -> None:
    """The cube model's options (``analyze``, ``cube``, ``hint``): efficiency, Jacoby,
    beavers. Jacoby and beavers are off by default, as in ``match --cube`` and ``play``."""
    p.add_argument("--efficiency", type=fraction_type("--efficiency"), default=None,
                   metavar="X",
                   help="Janowski's cube efficiency, 0 (dead cube) to 1 (default: 0.68)")
    p.add_argument("--jacoby", action="store_true",
                   help="Jacoby rule: gammons count single while the cube is centred "
                        "(default: off)")
    p.add_argument("--beavers", action="store_true",
                   help="the taker may beaver: redouble at once and keep the cube "
                        "(default: off)")
    p.add_argument("--no-beavers", action="store_true",
                   help="no beavers (the default; kept for older scripts)")


def add_cube_options(p) -> None:
    """The options ``analyze`` and ``cube`` share: the bot and the cube model."""
    p.add_argument("--bot", default=DEFAULT_BOT,
                   help=f"the bot that estimates (default: {DEFAULT_BOT}, the shipped network)")
    add_cube_model_options(p)
    p.add_argument("--seed", type=seed_type, default=None,
                   help=f"seed for bots that draw numbers, {SEED_RANGE}")


def cube_settings(args) -> tuple[float, bool, bool]:
    """(efficiency, jacoby, beavers) of the cube model options."""
    from gammon.model.cube import EFFICIENCY
    if args.beavers and args.no_beavers:
        raise UsageError("--beavers and --no-beavers contradict each other: give one")
    efficiency = EFFICIENCY if args.efficiency is None else args.efficiency
    if not 0 <= efficiency <= 1:
        raise UsageError(f"--efficiency is between 0 and 1, got {efficiency}")
    return efficiency, bool(args.jacoby), bool(args.beavers)


def cube_model(args):
    """(bot, evaluate, efficiency) of the chosen bot; a usage error when it has no
    probabilities."""
    from gammon.eval.analysis import NoProbabilities, evaluator
    efficiency, _, _ = cube_settings(args)
    bot = load_bot(bot_name(args), args.seed, args.variant)
    try:
        return bot, evaluator(bot), efficiency
    except NoProbabilities:
        raise UsageError(f"the bot {quote(args.bot)} estimates no probabilities; "
                         f"use net:PATH (net: for the shipped network) or gnubg") from None


def bot_name(args) -> str:
    """The --bot name with --plies folded in (``net:PATH@N``; commands without --plies:
    the name as given)."""
    return with_plies(args.bot, getattr(args, "plies", None))


def check_in_play(board: np.ndarray) -> None:
    """A usage error for a finished game: both sides need a checker in play."""
    mover, opponent = on_board(board[None])
    if mover[0] == 0 or opponent[0] == 0:
        raise UsageError("the game is over in this position: nothing to analyse")
