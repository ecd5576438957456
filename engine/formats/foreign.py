"""Match files as the programs players use write them: read into one ``MatchFile``, as GNU
Backgammon 1.07 imports them, with a one-line warning for everything read otherwise than the
file states it.

Both formats are told by their content (``sgf.read_match_file``'s rule): GNU Backgammon's
SGF (``engine.formats.sgf``; GNU Gibbon writes it too) and the Jellyfish ``.mat`` layout
(``engine.formats.matfile``) that GNU Backgammon, eXtreme Gammon, Backgammon Galaxy,
Backgammon Studio and others export, each with its habits (``matfile``'s docstring). A .mat
file's header lines say the rules it was played by::

    ; [Variation "Backgammon"]     the variant (gnubg's words; NackGammon, ...)
    ; [Jacoby "On"]                money play: gammons count single with a centred cube
    ; [Beaver "On"]                money play: a taker may redouble at once
    ; [Crawford "On"]              a match with the Crawford rule ("Off": no Crawford game)
    ; [CubeLimit "1024"]           the cube's highest value

GNU Backgammon 1.07 reads only ``Variation`` of them (it assumes Crawford on and takes
Jacoby and beavers from its own settings); we honour ``Variation``, ``Jacoby``, ``Beaver``
and ``Crawford``, and ``CubeLimit`` only as "no limit" (1024 and above, what every program
writes): a lower limit, a Jacoby or Beaver rule in a match (where they do not apply), an
unknown variation or an unreadable value is a one-line warning naming the header.

``read_match_text`` reads a file's text: a ``MatchFileError`` of one line (where and what
was expected) for anything it cannot read; with ``strict`` every action is checked by the
rules here, without it a .mat file's illegal actions are left for the caller to find (the
review's walk, which can skip them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import matfile, sgf
from .matfile import Match
from .sgf import MatchFileError, SgfError

NO_CUBE_LIMIT = 1024  # CubeLimit values from this one on mean no limit (XG, Galaxy, Studio)
_ON, _OFF = ("on", "yes", "true", "1"), ("off", "no", "false", "0")


@dataclass
class MatchFile:
    """A match file read: its format ("mat" or "sgf"), the match, which game is the
    Crawford game, the money rules (Jacoby, beavers), the warnings of reading it (one line
    each) and the program or site that wrote it when the file says (``Site``, ``AP``)."""

    format: str
    match: Match
    crawford: list[bool]
    jacoby: bool = False
    beavers: bool = False
    warnings: list[str] = field(default_factory=list)
    program: str = ""


def _switch(key: str, value: str, warnings: list[str]) -> bool | None:
    word = value.strip().lower()
    if word in _ON:
        return True
    if word in _OFF:
        return False
    warnings.append(f'the header {key} "{value[:20]}" is neither On nor Off: ignored')
    return None


# the money-play headers: what each is, for the warning in a match
_MONEY_ONLY = {"jacoby": "the Jacoby rule is", "beaver": "beavers are"}


def _rules_of(match: Match, warnings: list[str]) -> tuple[bool, bool, bool]:
    """(Jacoby, beavers, Crawford) as a .mat file's headers say, with a warning for each
    header that cannot be honoured."""
    money = {"jacoby": False, "beaver": False}
    crawford = True
    for key, value in match.headers.items():
        name = key.strip().lower()
        if name in _MONEY_ONLY:
            on = _switch(key, value, warnings)
            if on and match.length:
                warnings.append(f'the header {name.capitalize()} "{value}" does not apply to '
                                f'a match ({_MONEY_ONLY[name]} for money play): ignored')
            money[name] = bool(on) and not match.length
        elif name == "crawford":
            on = _switch(key, value, warnings)
            crawford = on is not False
        elif name == "cubelimit":
            limit = value.strip()
            if not limit.isdigit():
                warnings.append(f'the header CubeLimit "{limit[:20]}" is no number: ignored '
                                f'(the cube has no limit)')
            elif int(limit) < NO_CUBE_LIMIT:
                warnings.append(f'the header CubeLimit "{limit}" cannot be honoured: the '
                                f'review values every cube as if it had no limit')
        elif name == "variation" and matfile.variant_of(value) is None:
            warnings.append(f'the header Variation "{value[:30]}" is no variant gammon knows: '
                            f'the games are read as standard backgammon')
    return money["jacoby"], money["beaver"], crawford


def _program(match: Match) -> str:
    for key, value in match.headers.items():
        if key.strip().lower() in ("site", "recorder", "application"):
            return value.strip()
    return ""


def read_mat(text: str, strict: bool = True) -> MatchFile:
    """A .mat file's match, settled as gnubg imports it (``matfile.settle``); MatchFileError
    (one line) when it cannot be read, and with ``strict`` at its first illegal action."""
    try:
        match = matfile.parse_match(text)
    except ValueError as e:
        raise MatchFileError(f".mat file: {e}") from None
    if not match.games:
        raise MatchFileError(".mat file: no game in it (expected 'Game 1' and its moves)")
    warnings: list[str] = []
    jacoby, beavers, crawford_rule = _rules_of(match, warnings)
    warnings += matfile.settle(match, jacoby)
    if strict:
        for number, game in enumerate(match.games, 1):
            try:
                matfile.replay(game, match.variant, number, jacoby)
            except ValueError as e:
                raise MatchFileError(f".mat file: {e}") from None
    crawford = (sgf.crawford_games(match) if crawford_rule
                else [False] * len(match.games))
    return MatchFile("mat", match, crawford, jacoby, beavers, warnings, _program(match))


def read_sgf_text(text: str) -> MatchFile:
    """An SGF file's match (``sgf.read_sgf``); SgfError (one line) when it cannot be read."""
    found = sgf.read_sgf(text)
    return MatchFile("sgf", found.match, found.crawford, found.jacoby, False,
                     list(found.warnings), found.application)


def read_match_text(text: str, strict: bool = True) -> MatchFile:
    """A match file of either format, told by its content: SGF (it starts with ``(``) or a
    .mat file (its first line that is no comment says ``N point match``)."""
    body = str(text).lstrip("\ufeff")
    if body.lstrip().startswith("("):
        return read_sgf_text(body)
    meaningful = [line.strip() for line in body.splitlines()
                  if line.strip() and not line.lstrip().startswith((";", "#"))]
    if not meaningful:
        raise MatchFileError("empty file: neither an SGF file nor a .mat file")
    if not re.match(r"^\s*[0-9]+\s+point\s+match", meaningful[0], re.IGNORECASE):
        raise MatchFileError(f"unknown format: {meaningful[0][:30]!r} begins neither an "
                             f"SGF file ('(;') nor a .mat file ('N point match')")
    return read_mat(body, strict)


__all__ = ["MatchFile", "MatchFileError", "SgfError", "read_mat", "read_sgf_text",
           "read_match_text", "NO_CUBE_LIMIT"]
