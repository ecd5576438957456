"""Magriel notation for plays, as GNU Backgammon writes it: format a play, read one back.

A play is written as its parts in decreasing order of the point they leave, ``13/7*/5``,
``8/4(2)``, ``bar/22 6/off``. One checker moving on without hitting is written as one part
(``24/18/12`` becomes ``24/12``); a point where it hits on the way is kept (``13/10*/9``);
``(n)`` counts identical parts. ``format_play`` follows gnubg's ``FormatMove`` exactly, so a
play written here reads the same as in gnubg.

``parse_play`` goes the other way for typed text and names what is wrong when it cannot:
the text is read into parts, each part is split into dice steps in every way the roll allows,
the steps are played in every order on the board with the rules' own single step
(``Rules.step``, which says why a step is illegal), and the afterstates are matched against
the legal results of the roll.

Dice left unused are marked ``Ø``. Our rules source: "'6/1, Ø' means the player played 6/1
but could not use the other number". Our reading: a play that leaves dice unused is written
with ``Ø`` after its moves (``6/1 Ø``; a double of which only three steps play, ``8/5(3) Ø``),
and a roll with no legal play is written ``Ø``. ``format_play`` writes the mark only when it
is given the roll (gnubg never writes it, and the .mat export follows gnubg); ``parse_play``
reads it wherever it reads a play, and reads plays without it as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..movegen import Plays, legal_plays
from ..rules import STANDARD, Rules, variant

BAR = 25
OFF = 0
UNUSED = "\u00d8"  # Ø: dice left unused, or no play at all


# ---------------------------------------------------------------------------------------------
# Writing a play


def format_point(point: int) -> str:
    """The name of a point in a play: 1..24, ``bar`` (25) or ``off`` (0)."""
    if point == BAR:
        return "bar"
    if point == OFF:
        return "off"
    return str(point)


def format_play(steps: np.ndarray, hits: np.ndarray, roll=None) -> str:
    """One play, steps (4, 2) of (from, to) and hits (4,), in gnubg's notation; '' for none.

    With ``roll`` (d1, d2) the dice the play leaves unused show, for people: "'6/1, Ø' means
    the player played 6/1 but could not use the other number", which we read as ``Ø`` after
    the moves of a play using fewer dice than the roll offers (2 for a mixed roll, 4 for a
    double; one ``Ø`` however many are unused: ``6/1 Ø``, ``8/5(3) Ø``) and ``Ø`` alone for
    no play. A play using every die is written the same with or without ``roll``. Each used
    step of ``steps`` is one die (``Plays.steps`` has ``dice_used`` steps per play).
    """
    # plain lists: numpy's per-call cost dominates on arrays of four steps
    steps = np.asarray(steps).reshape(-1, 2).tolist()  # [[from, to], ...]
    hits = np.asarray(hits).reshape(-1).tolist()  # [bool-like, ...]
    text = _format_steps(steps, hits)
    if roll is None:
        return text
    d1, d2 = (int(d) for d in roll)
    offered = 4 if d1 == d2 else 2
    if sum(f >= 0 for f, _ in steps) >= offered:
        return text
    return f"{text} {UNUSED}" if text else UNUSED


def _format_steps(steps: list[list[int]], hits: list) -> str:
    """gnubg's ``FormatMove`` of the used steps (rows with from >= 0); '' for none."""
    moves = [(f, t) for f, t in steps if f >= 0]
    if not moves:
        return ""
    # gnubg asks the board before the play whether a point held an opponent's checker; a
    # legal play lands only on blots, and the first landing on one hits it, so the points
    # hit by any step are exactly those.
    hit_points = {t for (f, t), hit in zip(steps, hits) if f >= 0 and hit}
    parts = _join_chains(sorted(moves, reverse=True), hit_points)
    starred: set[int] = set()  # gnubg stars each hit point once, where it is first written
    return " ".join(_format_part(points, count, hit_points, starred)
                    for points, count in _count_duplicates(parts))


def _join_chains(moves: list[tuple[int, int]], hit_points: set[int]) -> list[list[int]]:
    """Join steps that continue from where an earlier one landed, as gnubg does.

    ``moves`` are sorted by from-point, then to-point, both descending. A joined point is
    kept in the part only when a blot was hit there.
    """
    parts = [[f, t] for f, t in moves]
    alive = [True] * len(parts)
    for i in range(len(parts)):
        for j in range(i + 1, len(parts)):
            if alive[i] and alive[j] and parts[i][-1] == parts[j][0]:
                if parts[i][-1] in hit_points:
                    parts[i].append(parts[j][1])
                else:
                    parts[i][-1] = parts[j][1]
                alive[j] = False
    return [part for part, keep in zip(parts, alive) if keep]


def _count_duplicates(parts: list[list[int]]) -> list[tuple[list[int], int]]:
    """Merge identical parts into (part, count), keeping the first one's place."""
    counted: list[tuple[list[int], int]] = []
    for part in parts:
        for k, (seen, count) in enumerate(counted):
            if seen == part:
                counted[k] = (seen, count + 1)
                break
        else:
            counted.append((part, 1))
    return counted


def _format_part(points: list[int], count: int, hit_points: set[int], starred: set[int]) -> str:
    """One part such as ``13/10*/9*`` or ``8/4(2)``; ``starred`` collects the points starred.

    A point kept inside a part is always a hit. The last point is starred when a blot was
    hit there and no earlier part has starred it already (``8/3* 6/3``).
    """
    text = format_point(points[0])
    for point in points[1:-1]:
        text += f"/{format_point(point)}*"
        starred.add(point)
    last = points[-1]
    text += "/" + format_point(last)
    if last != OFF and last in hit_points and last not in starred:
        text += "*"
        starred.add(last)
    return text + (f"({count})" if count > 1 else "")


# ---------------------------------------------------------------------------------------------
# Reading a play

_POINT = r"(?:bar|off|\d+)"
_PART = re.compile(rf"{_POINT}\*?(?:/{_POINT}\*?)+(?:\(\d+\))?")
_PREFIX = re.compile(r"^\s*([1-6])\s*-?\s*([1-6])\s*:")
_MARKS = "\u00d8\u00f8"  # Ø and ø


@dataclass
class _Part:
    """One written part: the points a checker visits, the starred points and how many."""

    text: str
    points: list[int]
    starred: set[int]
    count: int


def parse_play(text: str, board, d1: int, d2: int, plays: Plays | None = None,
               rules: Rules | str = STANDARD) -> int:
    """The index of the legal result that typed ``text`` plays, for ``board`` and roll d1-d2.

    ``plays`` may be ``legal_plays(board[None], [[d1, d2]])`` computed already; the index is a
    row of it. Raises ValueError saying what is wrong when the text is not a legal play.

    A part that takes several dice (``13/5`` for 6-2) may go either way; the way that hits on
    no point the text leaves unnamed is taken, so ``13/7/5`` or ``13/7*/5`` name a hit on 7.
    When every way hits somewhere unnamed, one such way is taken, and two are an error.

    No play is written '', ``pass`` or ``Ø`` (``ø``), legal only when no play is. A play that
    leaves dice unused may end with ``Ø`` (after a space, a comma as in the rules' "6/1, Ø",
    or nothing: ``6/1 Ø``, ``6/1, Ø``, ``6/1Ø``), or be written without it as gnubg does;
    ``Ø`` after a play that uses every die, or anywhere but at the end, is an error.
    """
    board = np.asarray(board, dtype=np.int8)
    rules = variant(rules)
    if plays is None:
        plays = legal_plays(board[None], np.array([[d1, d2]]), rules)
    elif len(plays) == 0 or (np.asarray(plays.root) != plays.root[0]).any():
        raise ValueError("plays must be the legal plays of this one position and roll")
    roll = f"{max(d1, d2)}-{min(d1, d2)}"
    written = _strip_dice_prefix(text, d1, d2)
    body, marked = _strip_unused_mark(written)
    if body.strip().lower() in ("", "pass"):
        if plays.dice_used[0] == 0:
            return 0
        raise ValueError(f"a play is possible with {roll}: the checkers must move")
    if plays.dice_used[0] == 0:
        raise ValueError(f"no play is possible with {roll}: the only play is to pass")
    parts = _read_parts(body)
    _check_stars(parts, board)
    segments = [(p.points[k], p.points[k + 1])
                for p in parts for _ in range(p.count) for k in range(len(p.points) - 1)]
    mentioned = {point for p in parts for point in p.points}
    k = _match(segments, mentioned, board, d1, d2, plays, written.strip(), rules)
    # "'6/1, Ø' means the player played 6/1 but could not use the other number": Ø marks
    # dice left unused, so it cannot follow a play that uses them all
    if marked and int(plays.dice_used[k]) >= (4 if d1 == d2 else 2):
        raise ValueError(f"{written.strip()}: the play uses all the dice of {roll}; "
                         f"{UNUSED} marks dice left unused, so write the play without it")
    return k


def _strip_unused_mark(body: str) -> tuple[str, bool]:
    """(text without a final ``Ø``, whether there was one); an ``Ø`` elsewhere is an error.

    Our reading of the rules' "'6/1, Ø'": the mark comes once, after the moves.
    """
    end = body.rstrip()
    marked = bool(end) and end[-1] in _MARKS
    if marked:  # the moves end before the spaces and commas in front of the mark
        cut = len(end) - 1
        while cut > 0 and (end[cut - 1].isspace() or end[cut - 1] == ","):
            cut -= 1
        body = end[:cut]
    if any(c in _MARKS for c in body):
        raise ValueError(f"{UNUSED} marks dice left unused: write it once, after the moves "
                         f"(6/1 {UNUSED}), or alone for no play")
    return body, marked


def _strip_dice_prefix(text: str, d1: int, d2: int) -> str:
    """Text without a ``6-2:`` prefix, which must name the roll when it is given."""
    prefix = _PREFIX.match(text)
    if not prefix:
        return text
    written = sorted(int(d) for d in prefix.groups())
    if written != sorted((int(d1), int(d2))):
        raise ValueError(f"the play is written for {written[1]}-{written[0]} "
                         f"but the roll is {max(d1, d2)}-{min(d1, d2)}")
    return text[prefix.end():]


def _read_parts(body: str) -> list[_Part]:
    """Split typed text into parts; spaces around '/', '*' and '(' are allowed."""
    text = body.lower()
    text = re.sub(r"\s*/\s*", "/", text)
    text = re.sub(r"\s*\*", "*", text)
    text = re.sub(r"\s*\(\s*(\d+)\s*\)", r"(\1)", text)
    parts = []
    for word in re.split(r"[\s,]+", text.strip()):
        if not _PART.fullmatch(word):
            raise ValueError(f"cannot read {word!r}: write a move as from/to, e.g. 13/7")
        parts.append(_read_part(word))
    return parts


def _read_part(word: str) -> _Part:
    """One part such as ``bar/21*/19(2)``: its points, starred points and count."""
    count = 1
    if word.endswith(")"):
        word, _, n = word[:-1].partition("(")
        count = int(n)
        if not 1 <= count <= 4:
            raise ValueError(f"cannot move a part {count} times: a roll gives at most 4 steps")
    points, starred = [], set()
    for name in word.split("/"):
        point = _read_point(name.rstrip("*"))
        points.append(point)
        if name.endswith("*"):
            starred.add(point)
    _check_direction(points, word)
    return _Part(word, points, starred, count)


def _read_point(name: str) -> int:
    """A point from its name: 1..24, ``bar`` or 25, ``off`` or 0."""
    if name == "bar":
        return BAR
    if name == "off":
        return OFF
    point = int(name)
    if point > 25:
        raise ValueError(f"point {point} is out of range: use 1-24, bar (25) or off (0)")
    return point


def _check_direction(points: list[int], word: str) -> None:
    """Checkers leave the bar first, bear off last, and move from higher points to lower."""
    if BAR in points[1:]:
        raise ValueError(f"{word}: a checker cannot move to the bar")
    if OFF in points[:-1]:
        raise ValueError(f"{word}: a checker cannot move once it is off")
    for a, b in zip(points, points[1:]):
        if b >= a:
            raise ValueError(f"{word}: checkers move from higher points to lower, "
                             f"not from {format_point(a)} to {format_point(b)}")


def _check_stars(parts: list[_Part], board: np.ndarray) -> None:
    """A '*' must mark a point holding an opponent's blot before the play."""
    for part in parts:
        for point in sorted(part.starred):
            if point in (BAR, OFF) or board[point] != -1:
                raise ValueError(f"{part.text}: there is no blot to hit on {format_point(point)}")


def _match(segments, mentioned, board, d1, d2, plays: Plays, text: str, rules: Rules) -> int:
    """Play the segments in every way the dice allow and pick the one legal result meant."""
    dice = [int(d1)] * 4 if d1 == d2 else [int(d1), int(d2)]
    roll = f"{max(d1, d2)}-{min(d1, d2)}"
    results = {b.tobytes(): k for k, b in enumerate(np.asarray(plays.boards, dtype=np.int8))}
    start = [int(x) for x in board]
    splits = list(_dice_splits(segments, dice))
    if not splits:
        raise ValueError(_no_split_reason(segments, dice, roll, text))
    found: dict[int, list] = {}  # result index -> [(unmentioned hits, steps, hits)]
    deepest, why_not = -1, ""
    short = None  # dice used by a play that is legal step by step but uses too few
    for order in _step_orders(splits):
        end, hits, done, why = _play_steps(start, order, rules)
        if why:
            if done > deepest:
                deepest, why_not = done, why
            continue
        k = results.get(np.array(end, dtype=np.int8).tobytes())
        if k is None:
            short = len(order)
            continue
        moves = [(source, target) for source, target, _ in order]
        unmentioned = {t for (_, t), hit in zip(moves, hits) if hit} - mentioned
        found.setdefault(k, []).append((len(unmentioned), moves, hits))
    if found:
        return _pick(found, text)
    if short is not None:
        raise ValueError(f"{text} is not legal: "
                         + _too_few_dice_reason(short, plays, d1, d2, roll))
    raise ValueError(f"{text} is not legal with {roll}: {why_not}")


def _pick(found: dict[int, list], text: str) -> int:
    """The one result whose play hits fewest blots on points the text does not name."""
    fewest = {k: min(ways, key=lambda w: w[0]) for k, ways in found.items()}
    best = min(w[0] for w in fewest.values())
    chosen = sorted(k for k, w in fewest.items() if w[0] == best)
    if len(chosen) == 1:
        return chosen[0]
    options = " or ".join(_format_moves(fewest[k][1], fewest[k][2]) for k in chosen)
    raise ValueError(f"{text} is ambiguous: it could be {options}; name the point hit")


def _format_moves(moves, hits) -> str:
    """Format a list of (from, to) steps and their hits."""
    steps = np.full((4, 2), -1, dtype=np.int8)
    flags = np.zeros(4, dtype=bool)
    steps[:len(moves)] = moves
    flags[:len(moves)] = hits
    return format_play(steps, flags)


def _die_paths(source: int, target: int, dice: list[int]):
    """Ordered dice that take one checker from ``source`` to ``target`` (0: off)."""
    for die in sorted(set(dice), reverse=True):
        landing = source - die
        rest = list(dice)
        rest.remove(die)
        if landing == target or (target == OFF and landing < OFF):
            yield [die]
        elif landing > target:
            for tail in _die_paths(landing, target, rest):
                yield [die] + tail


def _dice_splits(segments, dice):
    """Every way to give each segment its dice: lists, per segment, of (from, to, die) steps."""
    if not segments:
        yield []
        return
    source, target = segments[0]
    for path in _die_paths(source, target, dice):
        rest = list(dice)
        steps, point = [], source
        for die in path:
            rest.remove(die)
            steps.append((point, max(point - die, OFF), die))
            point -= die
        for tail in _dice_splits(segments[1:], rest):
            yield [steps] + tail


def _step_orders(splits):
    """Every order of playing the steps, each segment's own steps kept in order; no repeats."""
    seen = set()
    for split in splits:
        for order in _interleave([tuple(s) for s in split]):
            if order not in seen:
                seen.add(order)
                yield order


def _interleave(chains: list[tuple]):
    """All merges of sequences that keep each sequence's order."""
    chains = [c for c in chains if c]
    if not chains:
        yield ()
        return
    for i, chain in enumerate(chains):
        rest = chains[:i] + [chain[1:]] + chains[i + 1:]
        for tail in _interleave(rest):
            yield (chain[0],) + tail


def _play_steps(start: list[int], order, rules: Rules):
    """Play (from, to, die) steps in turn with the rules' own single step:
    (end board, hits, steps done, why it stopped)."""
    board = tuple(start)
    hits = []
    for done, (source, _, die) in enumerate(order):
        moved = rules.step(board, source, die)
        if isinstance(moved, str):
            return None, hits, done, moved
        board, hit = moved
        hits.append(hit)
    return list(board), hits, len(order), ""


def _no_split_reason(segments, dice, roll: str, text: str) -> str:
    """Say which written move the dice cannot make, or that together they need more dice."""
    for source, target in segments:
        if not any(True for _ in _die_paths(source, target, dice)):
            move = f"{format_point(source)}/{format_point(target)}"
            pips = source - target
            pips = "bearing off" if target == OFF else f"{pips} pip{'s' if pips > 1 else ''}"
            return f"the dice {roll} cannot move a checker {move} ({pips})"
    return f"the dice {roll} cannot play all of {text}"


def _too_few_dice_reason(used: int, plays: Plays, d1: int, d2: int, roll: str) -> str:
    """Why a play that is legal step by step is not a legal play: too few or smaller dice."""
    most = int(plays.dice_used.max())
    if used < most:
        if d1 != d2:
            return f"must use both dice of {roll}"
        return f"must use {most} dice of {roll}, as many as can be played"
    if d1 != d2:
        return f"must play the larger die ({max(d1, d2)}) when only one die can be used"
    return f"this play is not legal with {roll}"
