"""The text of the terminal session (``gammon.session``), without the game's flow: what the
person may type (the help, the resignation level asked, a play's text checked before it is
parsed, a line split into its command and the rest), the text the session writes from what
it is given (the board from the person's side, the hint table), and the match saved as a
.mat file or GNU Backgammon's SGF (``save_match``, with the line that says what it did).
"""

from __future__ import annotations

import datetime
import os
import re

from gammon.engine.files import WriteError, write_atomic
from gammon.engine.formats.diagram import diagram
from gammon.engine.formats.sgf import format_match_file, is_sgf_name, sgf_problem

from .errors import quote
from .table import RESULTS
from .tables import ply_cells, probability_cells, probability_header

RESIGN_WORDS = {"1": 1, "s": 1, "single": 1, "2": 2, "g": 2, "gammon": 2,
                "3": 3, "b": 3, "bg": 3, "backgammon": 3}
MAX_PLAY_TEXT = 100  # characters of a typed play; longer is no play

HELP = """\
Type your play as the steps of your checkers: 24/18 13/11, 8/5(2), bar/22*, 6/off (the
star for a hit is optional; a '6-2:' in front is allowed). The result is shown: press Enter
to confirm it or type 'undo' to take it back.

  hint [N]    the bot's N best plays for your roll (default 5)
  auto        let the bot choose your play this turn (you still confirm it)
  board       show the board again
  double      offer the cube before you roll (with --cube)
  bomb        Nuclear: detonate the bomb before you roll (when it is centred or yours):
              every blot of both sides goes to the bar, the bomb passes to the bot
  take, pass  answer the bot's double (with --cube)
  resign      offer to give up this game: a single game, or a gammon (backgammon) while
              you have borne off no checker (and still have one in the bot's home board
              or on the bar), times the cube; the bot accepts or declines by its own
              evaluation, and a declined resignation plays on
  save FILE   write the match so far as a .mat file (GNU Backgammon: import mat FILE),
              or as an SGF file when FILE ends in .sgf (GNU Backgammon: load match FILE)
  quit        leave now (the game in progress is not scored)
  help        this text"""


def board_text(variant, board, note: str, bomb: int | None = None) -> str:
    """The diagram of ``board`` (from the person's side) in ``variant`` (its rules object),
    its 'X on roll' line replaced by ``note``; ``bomb``: Nuclear's bomb relative to the
    person."""
    pins = variant.position_format == "plakoto"
    text = diagram(board, variant.checkers, pins=pins, bomb=bomb).replace("X on roll", note)
    return "\n".join(line.rstrip() for line in text.splitlines())


def hint_lines(rows: list[dict], bot, bot_name: str, score: tuple[int, int],
               length: int) -> list[str]:
    """The hint table of ranked plays ``rows`` (``eval.analysis.ranked``, at least one): the
    title, the probability header (bots with probabilities) and a line a play. ``score``
    is the match score (the person's first), ``length`` the match length (0: money)."""
    width = max(len(r["play"]) for r in rows)
    probs = "probabilities" in rows[0]
    label = "cubeless equity" if probs else getattr(bot, "score_label", "score")
    if getattr(bot, "score_label", "") == "MWC":
        label = f"your match winning chance at {score[0]}-{score[1]} to {length}"
    ply_header, ply_cell = ply_cells(rows)
    lines = [f"{bot_name}'s best plays for your roll ({label}):"]
    if probs:  # the chances for you after each play
        lines.append(f"  {'':>2}  {'':<{width}}  {ply_header}{'':>7}  {probability_header()}")
    for r in rows:
        lines.append(f"  {r['rank']:>2}  {r['play']:<{width}}  {ply_cell(r)}{r['score']:+.4f}"
                     + (f"  {probability_cells(r)}" if probs else ""))
    return lines


def ask_resign_level(console, most: int, cube: int, bot_name: str) -> int | None:
    """The level the person offers (1 .. ``most``) to ``bot_name``, the cube at ``cube``, as
    ``console`` (``gammon.console.Console``) reads it; None to play on."""
    def offer(level: int) -> str:
        points = level * cube
        return f"{RESULTS[level]} ({points} point{'s' * (points != 1)})"
    if most == 1:
        text = console.ask(f"Resign {offer(1)} to {bot_name}? [y/N]> ")
        return 1 if text.lower() in ("y", "yes", "1", "s", "single") else None
    choices = ", ".join(f"{level} {offer(level)}" for level in range(1, most + 1))
    while True:
        text = console.ask(f"Resign {choices}? [1-{most}, y: {RESULTS[most]}, "
                           f"Enter: play on]> ").lower()
        if text in ("", "n", "no"):
            return None
        if text in ("y", "yes"):
            return most
        level = RESIGN_WORDS.get(text)
        if level is not None and level <= most:
            return level
        console.say(f"Type a number from 1 to {most} ({choices}), or press Enter to play on.")


def save_match(match, path: str, variant: str, jacoby: bool) -> tuple[bool, str]:
    """Write ``match`` so far (the game in progress unfinished) to ``path``: a .mat file,
    or SGF when the name ends in .sgf (``engine.formats.sgf``); (whether it was written,
    the line saying so or why not)."""
    comments = {"Site": "gammon play",
                "EventDate": datetime.date.today().strftime("%Y.%m.%d")}
    sgf = is_sgf_name(path)
    why = sgf_problem(variant) if sgf else None
    if why:
        return False, f"Cannot save to {quote(path)}: {why}"
    try:  # whole or not at all: a full disk leaves the previous file as it was
        write_atomic(os.path.expanduser(path), format_match_file(path, match, comments, jacoby))
    except WriteError as e:
        return False, f"Cannot save to {quote(path)}: {e.reason}"
    games = len(match.games)
    how = "load match" if sgf else "import mat"
    return True, (f"Saved {games} game{'s' if games != 1 else ''} to {path} "
                  f"(GNU Backgammon: {how} {path}).")


def play_text_problem(text: str) -> str | None:
    """Why typed text cannot be a play before it is parsed, or None: too long, not ASCII
    (but for the notation's Ø, dice left unused), or a number too large for a point (the
    notation reader takes any Unicode digit)."""
    if len(text) > MAX_PLAY_TEXT:
        return f"{quote(text)} is too long for a play"
    if not text.replace("\u00d8", "").replace("\u00f8", "").isascii():
        return f"{quote(text)}: type the points with the digits 0-9"
    if re.search(r"[0-9]{3,}", text):
        return f"{quote(text)}: points are 1-24, bar (25) or off (0)"
    return None


def split_words(text: str) -> tuple[str, str]:
    """(first word lower-cased, the rest) of a typed line."""
    parts = text.strip().split(None, 1)
    if not parts:
        return "", ""
    return parts[0].lower(), parts[1].strip() if len(parts) > 1 else ""


__all__ = ["HELP", "MAX_PLAY_TEXT", "RESIGN_WORDS", "ask_resign_level", "board_text",
           "hint_lines",
           "play_text_problem", "save_match", "split_words"]
