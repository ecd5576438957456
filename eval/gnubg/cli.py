"""The command-line plumbing the GNU Backgammon judges share: one-line usage errors, an
argparse whose errors are such a line, and the bot with probabilities the cube checks
judge (``--bot``), its bad names and files turned into one line."""

from __future__ import annotations

import argparse

QUOTE = 80  # characters of a bot name an error message quotes at most


class UsageError(ValueError):
    """Bad input on the command line: one line on stderr, exit code 2."""


class OneLineParser(argparse.ArgumentParser):
    """argparse whose errors are one line (UsageError) instead of usage and exit."""

    def error(self, message):
        raise UsageError(message)


def first_line(e) -> str:
    """An exception's (or a text's) message cut to its first line, 200 characters at most."""
    text = str(e).strip().splitlines()
    return text[0][:200] if text else ""


def quote(text, limit: int = QUOTE) -> str:
    """``text`` as its repr, cut after ``limit`` characters with its length said."""
    text = str(text)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"


def probability_bot(name: str, seed: int | None = None):
    """The bot ``name`` (standard variant, no cube strategy) and its evaluator of positions
    before the roll, boards (N, 26) -> (N, 6|5) for the player on roll. UsageError
    ``bot NAME: why`` for a name that is no bot, a bot that cannot be made here (a
    missing or bad checkpoint, gnubg without gnubg-nn) and a bot without probabilities.
    ``net:PATH@N`` looks N plies ahead (the bot's ``plies``)."""
    from gammon.eval.bots.cube import NEVER_PREFIX, probability_source
    from gammon.eval.bots.registry import NAMES, NET_PREFIX, BotUnavailable, make_bot, valid_names
    inner = name[len(NEVER_PREFIX):] if name.startswith(NEVER_PREFIX) else name
    if inner not in NAMES and not inner.startswith(NET_PREFIX):
        why = f"unknown bot {quote(name)}; valid: {valid_names()}"
        raise UsageError(f"bot {name!r}: {first_line(why)}")
    try:
        bot = make_bot(name, seed, "standard")
    except (ValueError, BotUnavailable, OSError) as e:  # bad checkpoints, no gnubg-nn
        raise UsageError(f"bot {name!r}: {first_line(e)}") from None
    evaluate = probability_source(bot)
    if evaluate is None:
        why = (f"the bot {quote(name)} estimates no probabilities; use net:PATH (net: for "
               f"the shipped network) or gnubg")
        raise UsageError(f"bot {name!r}: {first_line(why)}")
    return bot, evaluate
