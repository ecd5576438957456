"""Reading what a user types: Position IDs, dice, whole numbers and seeds, request lines;
answering with legal plays.

Numbers are ASCII digits only (``str.isdigit`` and ``int`` would take '²' or '٣'), checked
against their range before they are converted (a 5,000-digit die is out of range, not a
crash); every message quotes the input through ``errors.quote`` (80 characters at most).
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Callable, Iterator, Sequence

import numpy as np

from gammon.engine.formats import position, xgid
from gammon.engine.rules import variant as get_variant
from gammon.engine.movegen import legal_plays
from gammon.engine.formats.notation import format_play

from .errors import UsageError, one_line, quote

SEED_MAX = 2**63 - 1
SEED_RANGE = "0 .. 2**63-1"
_BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_WHOLE = re.compile(r"[-+]?[0-9]+")  # [0-9]: ASCII digits only
_DECIMAL = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]{1,3})?")
DICE_SPELLINGS = "like 3 1, 31 or 3-1"


def read_xgid(text: str, variant: str = "standard") -> xgid.Xgid:
    """An XGID (eXtreme Gammon's position ID, ``engine.formats.xgid``) checked against the
    variant: its board from the player on roll, its match state, beavers and max cube. A
    UsageError says what is wrong (Plakoto's pins have no XGID)."""
    rules = get_variant(variant)
    if rules.position_format != "posid":
        raise UsageError(f"an XGID cannot hold {rules.name} positions; write them as "
                         f"{rules.position_format}: text")
    try:
        return xgid.decode(str(text), rules.checkers)
    except ValueError as e:
        raise UsageError(str(e)) from None


def read_position(text: str, variant: str = "standard") -> np.ndarray:
    """The board of a position, checked against the variant: (26,) int8. A gnubg Position
    ID, an XGID (its board alone: the player on roll's, the doubler's while a double waits;
    ``read_xgid`` has the rest), or for Plakoto the ``plakoto:`` text
    (``engine.formats.position``)."""
    rules = get_variant(variant)
    word = str(text).strip()
    if xgid.looks_like_xgid(word):
        return read_xgid(word, variant).board
    if rules.position_format == "posid" and not word.startswith("plakoto:"):
        if len(word) != 14:
            raise UsageError(f"a Position ID has 14 characters, {quote(word)} has {len(word)}")
        bad = sorted(set(word) - _BASE64)
        if bad:
            raise UsageError(f"Position ID {quote(word)} has characters outside base64: "
                             f"{quote(''.join(bad))}")
    try:
        return position.read(word, rules)
    except ValueError as e:
        raise UsageError(f"bad Plakoto position: {e}" if rules.position_format != "posid"
                         else str(e)) from None


def read_whole(text: str, what: str, low: int, high: int, high_text: str | None = None) -> int:
    """A whole number of ASCII digits from ``low`` to ``high``; a UsageError saying the
    range otherwise (``what`` names it: 'a die', '--games', ...)."""
    word = str(text).strip()
    span = f"from {low:,} to {high_text or format(high, ',')}"
    if not _WHOLE.fullmatch(word):
        raise UsageError(f"{what} is a whole number {span}, got {quote(text)}")
    if len(word) > 40 or not low <= int(word) <= high:  # 40: far below int()'s limit
        raise UsageError(f"{what} is a whole number {span}, got {quote(text)}")
    return int(word)


def read_fraction(text: str, what: str, low: float = 0.0, high: float = 1.0) -> float:
    """A decimal number of ASCII digits from ``low`` to ``high``."""
    word = str(text).strip()
    if not _DECIMAL.fullmatch(word) or not low <= float(word) <= high:
        raise UsageError(f"{what} is a number between {low:g} and {high:g}, got {quote(text)}")
    return float(word)


def read_seed(text) -> int:
    """A seed: a whole number from 0 to 2**63-1."""
    return read_whole(str(text), "a seed", 0, SEED_MAX, "2**63-1")


def read_die(text: str) -> int:
    """One die: a whole number from 1 to 6."""
    return read_whole(text, "a die", 1, 6)


def read_roll(words: Sequence[str]) -> tuple[int, int]:
    """Two dice, as one or two words: ``3 1``, ``31``, ``3-1`` (also ``3,1``, ``3/1``)."""
    text = " ".join(str(w) for w in words).strip()
    parts = text.split()
    if len(parts) == 3 and parts[1] in ("-", ",", "/"):
        parts = [parts[0], parts[2]]
    elif len(parts) == 1:
        word = parts[0]
        split = re.fullmatch(r"([^-,/]+)[-,/]([^-,/]+)", word)
        if split:
            parts = list(split.groups())
        elif len(word) == 2 and re.fullmatch(r"[0-9]{2}", word):
            parts = [word[0], word[1]]
        elif re.fullmatch(r"[0-9]", word):
            raise UsageError(f"give two dice, POSID D1 D2 ({DICE_SPELLINGS}): "
                             f"got only {quote(word)}")
    if len(parts) != 2:
        raise UsageError(f"the dice are two whole numbers from 1 to 6 ({DICE_SPELLINGS}), "
                         f"got {quote(text)}")
    return read_die(parts[0]), read_die(parts[1])


def dice_words(args) -> list[str]:
    """The dice arguments of a command line: D1 D2, or one word holding both (31, 3-1)."""
    return [d for d in (args.d1, args.d2) if d is not None]


def read_request(line: str, variant: str = "standard") -> tuple[np.ndarray, int, int]:
    """A ``POSID D1 D2`` line (the dice in any spelling of ``read_roll``): (board, d1, d2)."""
    words = line.split()
    if not 2 <= len(words) <= 4:
        raise UsageError(f"expected 'POSID D1 D2', got {quote(line.strip())}")
    board = read_position(words[0], variant)
    return (board, *read_roll(words[1:]))


def whole_type(what: str, low: int, high: int, high_text: str | None = None):
    """An argparse ``type`` reading a whole number in a range (``read_whole``)."""
    def convert(text: str) -> int:
        try:
            return read_whole(text, what, low, high, high_text)
        except UsageError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    convert.__name__ = "whole number"
    return convert


def seed_type(text: str) -> int:
    """The argparse ``type`` of ``--seed``: 0 .. 2**63-1."""
    try:
        return read_seed(text)
    except UsageError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def fraction_type(what: str, low: float = 0.0, high: float = 1.0):
    """An argparse ``type`` reading a decimal number in a range (``read_fraction``)."""
    def convert(text: str) -> float:
        try:
            return read_fraction(text, what, low, high)
        except UsageError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    convert.__name__ = "number"
    return convert


def results(board: np.ndarray, d1: int, d2: int, notation: bool = True,
            variant: str = "standard") -> list[tuple[str, str, int]]:
    """Each legal play as (notation, resulting position not flipped, points): the result
    written as the input is (Position ID, or ``plakoto:`` text), and the points the play
    wins when it ends the game (0 when the game goes on); sorted by the result's text.

    Empty when no play is legal. With ``notation=False`` the notation is left empty.
    """
    rules = get_variant(variant)
    plays = legal_plays(board[None], np.array([[d1, d2]]), rules)
    if plays.dice_used[0] == 0:
        return []
    texts = position.write_many(plays.boards, rules)
    won = rules.end_of_game(plays.boards).tolist()
    if not notation:
        return sorted(("", t, w) for t, w in zip(texts, won))
    steps, hits = plays.steps, plays.hits
    plays_text = [format_play(steps[k], hits[k], (d1, d2)) for k in range(len(plays))]
    return sorted(zip(plays_text, texts, won), key=lambda row: row[1])


def tolerant_input(stream=None):
    """``stream`` (stdin) reading bytes that are not UTF-8 as U+FFFD instead of raising a
    decoding error in the middle of a session or a stream."""
    stream = sys.stdin if stream is None else stream
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors="replace")
        except (ValueError, OSError):  # not a text stream we may reconfigure
            pass
    return stream


def input_lines(stream=None) -> Iterator[str]:
    """The lines of ``stream`` (stdin), read by ``tolerant_input``."""
    yield from tolerant_input(stream)


def answer_lines(answer: Callable[[str], str], error: Callable[[str], str]) -> int:
    """Answer each line of stdin with exactly one line, flushed at once: ``answer(line)``,
    or ``error(message)`` when the line is bad (a UsageError or ValueError); the stream
    always goes on."""
    out = sys.stdout
    for line in input_lines():
        try:
            text = answer(line)
        except ValueError as e:  # UsageError among them
            text = error(one_line(e))
        out.write(text.replace("\n", " ") + "\n")
        out.flush()
    return 0


def answer_requests(answer: Callable[[np.ndarray, int, int], str], variant: str) -> int:
    """Answer each ``POSID D1 D2`` line of stdin with one line, flushed at once.

    ``answer(board, d1, d2)`` gives the line; a bad request is answered ``error: ...``
    and the stream goes on.
    """
    return answer_lines(lambda line: answer(*read_request(line, variant)),
                        lambda message: f"error: {message}")
