"""Bots by name: ``make_bot("pubeval")``, for the command line and for matches.

Names: ``random``, ``pubeval``, ``racer``, ``heuristic``, the four game-plan bots
``runner``, ``holder``, ``blocker``, ``attacker`` (``eval.bots.plans``), ``gnubg`` (needs the PyPI package
gnubg-nn: ``pip install 'gammon[gnubg]'``), and ``net:PATH`` for a trained network
(``net:`` alone for the default one), loaded by ``model.player.load_net_bot``, with
``@N`` after it to look N plies ahead as GNU Backgammon counts them (``net:@1``,
``net:PATH@2``: 0-ply = the network alone, 1-ply = the opponent's 21 rolls); any of them
as ``nodouble:NAME`` for NAME that never doubles and always takes. For a variant with a
bomb (Nuclear) every bot also decides when to detonate (``eval.bots.nuclear.with_bomb``:
``random`` at a coin's toss, the others by the heuristic's pip rule unless they bring their
own ``detonate``). ``DEFAULT_BOT`` (``net:``,
the shipped network) is the bot every command plays when none is named. Modules
behind a name are imported only when that name is asked for, so ``random`` and ``pubeval``
work without torch, gnubg-nn or the bots still being written.
"""

from __future__ import annotations

from gammon.eval.bots.simple import Bot, PubevalBot, RandomBot

NAMES = ("random", "pubeval", "racer", "heuristic", "runner", "holder", "blocker", "attacker",
         "gnubg")
NET_PREFIX = "net:"
PLIES_MARK = "@"  # net:PATH@N: the net looking N plies ahead
VALID = NAMES + ("net:PATH", "net:PATH@PLIES", "nodouble:NAME")
DEFAULT_BOT = "net:"  # the shipped network: the default of every command that names a bot


class BotUnavailable(RuntimeError):
    """A known bot whose package is not installed (gnubg-nn, the model package)."""


def valid_names() -> str:
    """The accepted bot names as one comma-separated string, for error messages."""
    return ", ".join(VALID)


def make_bot(name: str, seed: int | None = None, variant: str = "standard",
             cube: str | None = None, rules=None) -> Bot:
    """A new bot by name, seeded (where it draws random numbers) and fitted to the variant.

    ``cube`` gives it a cube strategy (``eval.bots.cube``: ``auto``, ``heads``, ``race``,
    ``never``) for cubeful play under ``rules`` (an ``engine.cube.CubeRules``); a name
    ``nodouble:NAME`` is NAME with the ``never`` strategy. Without either the bot is
    returned as it always was. Raises ValueError for an unknown name (listing the valid
    ones) and BotUnavailable when the bot's package cannot be imported.
    """
    from gammon.eval.bots.cube import NEVER_PREFIX
    if not isinstance(name, str):
        raise ValueError(f"a bot name is a string, got {type(name).__name__}")
    if name.startswith(NEVER_PREFIX + NEVER_PREFIX):
        raise ValueError(f"{NEVER_PREFIX} is given once: {NEVER_PREFIX}NAME, NAME not itself "
                         f"{NEVER_PREFIX}...; valid: {valid_names()}")
    if name.startswith(NEVER_PREFIX) or cube is not None:
        from gammon.engine.cube import CubeRules
        from gammon.eval.bots.cube import with_cube
        inner = name[len(NEVER_PREFIX):] if name.startswith(NEVER_PREFIX) else name
        kind = "never" if name.startswith(NEVER_PREFIX) else cube
        bot = with_cube(make_bot(inner, seed, variant), kind, rules or CubeRules())
        bot.name = name
        return bot
    from gammon.engine.rules import variant as get_variant
    rules = get_variant(variant)  # also checks the variant name
    bot = _checker_bot(name, seed, variant, rules.checkers)
    if "bomb" in rules.extra_state:
        from gammon.eval.bots.nuclear import with_bomb
        bot = with_bomb(bot)
    return bot


def draws_numbers(name: str) -> bool:
    """Whether the bot ``name`` draws random numbers (and so depends on its seed): the
    ``random`` bot, with or without the ``nodouble:`` prefix."""
    from gammon.eval.bots.cube import NEVER_PREFIX
    return name.removeprefix(NEVER_PREFIX) == "random"


def _checker_bot(name: str, seed: int | None, variant: str, checkers: int) -> Bot:
    """The bot ``name`` that plays the checkers (``make_bot`` without the extras)."""
    if name.startswith(NET_PREFIX):
        path, plies = net_spec(name[len(NET_PREFIX):])
        return _net_bot(path, variant, plies)
    if name == "random":
        return RandomBot(seed)
    if name == "pubeval":
        if variant == "plakoto":  # pinned checkers: pubeval sees the checkers on top
            from gammon.eval.bots.simple import PlakotoPubevalBot
            return PlakotoPubevalBot(checkers)
        return PubevalBot(checkers)
    if name == "racer":
        return _lazy("racer", "RacerBot")()
    if name == "heuristic":
        return _lazy("variant_heuristics", "heuristic_bot")(variant)  # the variant's own
    if name in ("runner", "holder", "blocker", "attacker"):
        if variant in ("suddendeath", "plakoto"):
            raise ValueError(f"the {name} bot plays the plans of standard backgammon; "
                             f"{variant} has its own heuristic bot")
        return _lazy("plans", "plan_bot")(name, checkers)
    if name == "gnubg":
        if variant == "plakoto":
            raise ValueError("the gnubg bot plays backgammon's moves; Plakoto's pinned "
                             "checkers are not gnubg's")
        return _gnubg_bot(checkers)
    raise ValueError(f"unknown bot {name!r}; valid: {valid_names()}")


def _lazy(module: str, cls: str) -> type:
    """The class ``cls`` of ``eval.<module>``, imported now; BotUnavailable if it is missing."""
    import importlib
    try:
        return getattr(importlib.import_module(f"{__package__}.{module}"), cls)
    except ModuleNotFoundError as e:
        if e.name != f"{__package__}.{module}":
            raise
        raise BotUnavailable(f"the {module} bot is not available: {e}") from None


def _gnubg_bot(checkers: int) -> Bot:
    """GNU Backgammon at 0 ply, when gnubg-nn is installed; only 15-checker variants."""
    if checkers != 15:
        raise ValueError("the gnubg bot plays only 15-checker variants (gnubg's nets)")
    from gammon.eval.bots.gnubg import GnubgBot
    try:
        return GnubgBot()
    except ImportError as e:
        raise BotUnavailable(str(e)) from None


def net_spec(spec: str) -> tuple[str | None, int]:
    """The checkpoint (None: the shipped one) and the plies of what follows ``net:``:
    ``PATH``, ``PATH@N``, ``@N`` or nothing. A PATH that names an existing file is taken
    whole, '@' and all. ValueError when what follows the last '@' is no whole number."""
    from pathlib import Path
    path, mark, plies = spec.rpartition(PLIES_MARK)
    if not mark or _is_file(Path(spec)):
        return spec or None, 0
    if not (plies.isascii() and plies.isdigit() and len(plies) < 4):
        shown = plies if len(plies) <= 20 else plies[:20] + "..."
        raise ValueError(f"{NET_PREFIX}PATH@N looks N plies ahead, N 0, 1 or 2 (0-ply = the "
                         f"network alone, 1-ply = the opponent's 21 rolls), got "
                         f"{(PLIES_MARK + shown)!r}")
    return path or None, int(plies)


def _is_file(path) -> bool:
    """Whether ``path`` names an existing file (False for names the system refuses)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _net_bot(path: str | None, variant: str, plies: int = 0) -> Bot:
    """A trained network's bot from ``model.player.load_net_bot`` (default net for None),
    looking ``plies`` ahead."""
    try:
        from gammon.model.player import load_net_bot
    except ImportError as e:
        raise BotUnavailable(
            f"net players need the model package (model.player.load_net_bot): {e}"
        ) from None
    return load_net_bot(path, variant, plies)


def bot_plies(name: str) -> int:
    """The look-ahead a bot name says (net:PATH@N), 0 for others."""
    if name.startswith(NET_PREFIX):
        try:
            return net_spec(name[len(NET_PREFIX):])[1]
        except ValueError:
            return 0
    return 0
