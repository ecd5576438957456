"""The match file a review reads: its format, told by its content (SGF starts with ``(``,
a .mat file with its ``N point match`` line), the ``Match`` it holds, which game is the
Crawford game, whether money games used the Jacoby rule and beavers, and the warnings of
reading it, as ``engine.formats.foreign`` reads the files other programs write.

A .mat file is read and settled as GNU Backgammon imports it (``foreign.read_mat``, not
strict) and its actions are checked by the review's own walk (``eval.review.decisions``),
which can stop at an illegal action or skip the rest of its game. An SGF file is played
through the rules as it is read (``engine.formats.sgf``); with ``skip`` a game with an
illegal move is read again up to the node before it, and the warning says so. Every
failure is a ``ReviewInputError`` of one line: an empty file, an unknown format, a
truncated or damaged file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gammon.engine.formats import foreign, sgf
from gammon.engine.formats.matfile import Match
from gammon.engine.formats.sgf import SgfError


class ReviewInputError(ValueError):
    """A file that cannot be reviewed: one line."""


@dataclass
class Source:
    """A match file read for review."""

    format: str  # "mat" or "sgf"
    match: Match
    crawford: list[bool]
    jacoby: bool = False
    warnings: list[str] = field(default_factory=list)
    cut_games: set[int] = field(default_factory=set)  # games (1-based) read only in part
    beavers: bool = False


_MOVE = re.compile(r"^game (\d+), move (\d+) ")


def read_source(text: str, skip: bool = False) -> Source:
    """The match of a .mat or SGF text; ReviewInputError (one line) when it cannot be read.
    Illegal moves of a .mat file are found later, by the walk; those of an SGF file here
    (stop: the error; ``skip``: the game up to the move before, and a warning)."""
    body = str(text).lstrip("\ufeff")
    if body.lstrip().startswith("("):
        return _read_sgf(body, skip)
    try:
        found = foreign.read_match_text(body, strict=False)
    except ValueError as e:
        raise ReviewInputError(_one(f"{e}")) from None
    return Source("mat", found.match, found.crawford, found.jacoby, found.warnings,
                  beavers=found.beavers)


def _read_sgf(body: str, skip: bool) -> Source:
    try:
        found = sgf.read_sgf(body)
        return Source("sgf", found.match, found.crawford, found.jacoby, list(found.warnings))
    except SgfError as e:
        if not skip or not _MOVE.match(str(e)):
            raise ReviewInputError(_one(f"SGF file: {e}")) from None
        first = str(e)
    return _read_sgf_skipping(body, first)


def _read_sgf_skipping(body: str, first: str) -> Source:
    """An SGF file whose games may hold illegal moves: each such game up to the move before
    its first illegal one (gnubg's own reader, ``engine.formats.sgf``, on the game tree cut
    there), a warning for each."""
    try:
        trees = sgf._trees(body)
    except SgfError as e:
        raise ReviewInputError(_one(f"SGF file: {e}")) from None
    match, crawford, jacoby, warnings, cut = None, [], False, [], set()
    for number, nodes in enumerate(trees, 1):
        try:
            info = sgf._info(nodes[0], number)
        except SgfError as e:
            raise ReviewInputError(_one(f"SGF file: {e}")) from None
        if match is None:
            match = Match((info["white"], info["black"]), info["length"], [],
                          info["variant"], (info["ws"], info["bs"]))
            jacoby = info["jacoby"]
        try:
            game = sgf._read_game(nodes, number, info, warnings)
        except SgfError as e:
            found = _MOVE.match(str(e))
            if not found:
                raise ReviewInputError(_one(f"SGF file: {e}")) from None
            game = _prefix_game(nodes, number, info, int(found.group(2)))
            warnings.append(_one(f"{e}; the rest of game {number} is not reviewed"))
            cut.add(number)
        match.games.append(game)
        crawford.append(info["crawford"])
    return Source("sgf", match, crawford, jacoby, warnings, cut)


def _prefix_game(nodes, number: int, info: dict, bad_move: int):
    """The game of the nodes before its ``bad_move``-th move, unfinished."""
    keep, moves = [], 0
    for node in nodes:
        if any(ident in node.props for ident in ("W", "B")):
            moves += 1
            if moves >= bad_move:
                break
        keep.append(node)
    game = sgf._read_game(keep, number, {**info, "result": ""})
    game.winner, game.points = None, 0
    return game


def _one(message: str) -> str:
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)


__all__ = ["ReviewInputError", "Source", "read_source"]
