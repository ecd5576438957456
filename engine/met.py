"""Match equity tables (METs): the chance of winning a match from each score.

A score is written "away": a player who needs ``i`` more points is ``i``-away. The table
``met[i, j]`` is the probability that the player who is ``i``-away wins the match against
an opponent ``j``-away, before the Crawford game (the first time a player reaches 1-away,
the next game is the Crawford game: no doubling in it; the games after it are
post-Crawford). Row 0 is 1.0 (the match is won), column 0 is 0.0 and ``met[0, 0]`` is NaN.
``met[1, j]`` is the leader's chance in the Crawford game itself. ``post[n]`` is the chance
of the trailer, ``n``-away, once the Crawford game is over and the leader is 1-away.

Building one (``met_from_gammon_rate``), in the spirit of Zadeh (1977), Woolsey-Heinrich
and Rockwell-Kazaross, from one number: the gammon rate ``G``, the share of won games that
are won with a gammon (backgammons count as gammons), the same for both players at every
score. Every game is an even game: each player wins a single with chance ``(1 - G) / 2``
and a gammon with chance ``G / 2``. A player at or below 0-away has won: the tables
read 1 for him there (post[k] = 1 for k <= 0).

1. Post-Crawford. The trailer doubles at once in every game (any game he loses ends the
   match, doubled or not), so each game is worth 2 points to the trailer and 4 with a
   gammon:  post[1] = 1/2 (double match point) and, for n >= 2,

       post[n] = min(take, drop) - free_drop[n]
       take    = G/2 * post[n - 4] + (1 - G)/2 * post[n - 2],     drop = post[n - 1]

   (the leader answers the double as suits him). At 2-away, and less so at 4-away, the
   leader's drop costs him nothing (post[1] = take at 2-away), so he may drop a double the
   trailer gives when the game has gone well for the trailer and play on otherwise; the
   model knows nothing of the game's course, so this "free drop" is a fixed deduction,
   ``free_drops`` (by default Zadeh's estimates, 1.5% at 2-away and 0.4% at 4-away).

2. The Crawford game (no cube), trailer ``n``-away: it wins a gammon (to n-2, post-
   Crawford), a single (to n-1, post-Crawford), or loses the match:

       crawford[n] = G/2 * post[n - 2] + (1 - G)/2 * post[n - 1];  met[n, 1] = crawford[n]

3. Before it (i, j >= 2), one game at a time, by increasing i then j.
   Cubeless (``cube=False``): the game is played for 1 point, 2 with a gammon:

       met[i, j] = G/2 met[i-2, j] + (1-G)/2 met[i-1, j] + (1-G)/2 met[i, j-1] + G/2 met[i, j-2]

   With a live cube (``cube=True``): the game's winning chance ``p`` for the player i-away
   drifts like a random walk (no jumps: a double is never too late) from 1/2 until it
   ends at 0 or 1, and an ended game is a gammon with chance ``G``. The value of the game
   is then worked out on a grid of ``p`` (step ``1 / grid``) for every cube value and
   owner reachable from a centred 1-cube: at each ``p`` the player with access to the
   cube may double; the taker answers with whichever of take (he then owns the cube at
   twice the value) and drop (the doubler scores the cube's value) is better for him;
   a player whose single win already ends the match never doubles. Each player doubles,
   or plays on, so as to do best: an optimal-stopping game solved exactly on the grid,
   whose value at p = 1/2 with the cube centred is met[i, j]. The doubling points this
   finds are the opponents' take points (the market is never lost), and a player who is
   too good to double plays on for the gammon.

Published tables come from a small text format (``parse_met``, ``load_met``; written by
``dump_met``):

    # lines that start with '#' are comments; they and blank lines are skipped
    name: A name for the table                  (optional)
    source: where it comes from                 (optional)
    length: 11                                  (the largest away, 1..64)
    unit: percent                               (or probability, the default)
    pre-crawford
    <``length`` rows of ``length`` numbers, spaces or commas between them: row i is the
     player i-away, column j the opponent j-away; row 1 is the Crawford game>
    post-crawford
    <``length`` numbers: the trailer 1-away, 2-away, .. against the leader 1-away>

GNU Backgammon's own tables (its ``met/*.xml`` files: a ``pre-crawford-table`` and a
``post-crawford-table`` of ``type="explicit"``, rows of ``<me>`` numbers) are read by
``parse_gnubg_met``; ``read_met`` takes either format. One published table ships with
gammon, by name (``named_met``): ``kazaross-xg2``, Neil Kazaross's XG2 table, the one
GNU Backgammon 1.07 uses by default (``engine/mets/``, its numbers as gnubg ships them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

MAX_LENGTH = 64
FREE_DROPS = {2: 0.015, 4: 0.004}  # Zadeh's estimates of the trailer's loss to free drops


@dataclass(eq=False)
class MatchEquityTable:
    """A MET up to ``length``-away; ``met[i, j]`` indexes ``pre``.

    pre:  (length + 1, length + 1) float: P(the player i-away wins | the opponent is j-away),
          before the Crawford game (row 1: in it); pre[0, 1:] = 1, pre[1:, 0] = 0, pre[0, 0] NaN
    post: (length + 1,) float: P(the trailer n-away wins | the leader 1-away, post-Crawford);
          post[0] = 1
    """

    pre: np.ndarray
    post: np.ndarray
    name: str = ""
    source: str = ""
    length: int = field(init=False)

    def __post_init__(self):
        self.length = len(self.post) - 1

    def __getitem__(self, key):
        return self.pre[key]

    def win_probability(self, away: int, opp_away: int, post_crawford: bool = False) -> float:
        """The chance of the player ``away`` points from winning against ``opp_away``; after
        the Crawford game pass ``post_crawford`` (one of them must then be 1-away)."""
        if away <= 0 or opp_away <= 0:
            return 1.0 if away <= 0 else 0.0
        if max(away, opp_away) > self.length:
            raise ValueError(f"{away}-away/{opp_away}-away is beyond this "
                             f"{self.length}-point table")
        if not post_crawford:
            return float(self.pre[away, opp_away])
        if away == 1:
            return 1.0 - float(self.post[opp_away]) if opp_away > 1 else 0.5
        if opp_away == 1:
            return float(self.post[away])
        raise ValueError(f"post-Crawford at {away}-away/{opp_away}-away: nobody is 1-away")


def _table(length: int) -> np.ndarray:
    """An empty pre-Crawford table with its row and column 0 filled."""
    pre = np.full((length + 1, length + 1), np.nan)
    pre[0, 1:], pre[1:, 0] = 1.0, 0.0
    return pre


def met_from_gammon_rate(length: int, gammon_rate: float = 0.26, cube: bool = False,
                         free_drops: dict[int, float] | None = None,
                         grid: int = 200) -> MatchEquityTable:
    """A MET up to ``length``-away built from the gammon rate, as the module docstring says.

    gammon_rate: share of won games won with a gammon, 0 <= G < 1
    cube:        False, cubeless games before the Crawford game; True, the live-cube model
    free_drops:  {n: deduction from post[n]}, FREE_DROPS when None
    grid:        steps of the winning-chance grid of the cube model (even)
    """
    if not 1 <= length <= MAX_LENGTH:
        raise ValueError(f"length {length} outside 1..{MAX_LENGTH}")
    if not 0 <= gammon_rate < 1:
        raise ValueError(f"gammon rate {gammon_rate} outside [0, 1)")
    if grid < 2 or grid % 2:
        raise ValueError(f"grid {grid} must be an even number of steps")
    drops = FREE_DROPS if free_drops is None else free_drops
    gammon, single = gammon_rate / 2, (1 - gammon_rate) / 2

    post = np.ones(length + 1)  # post[n], trailer n-away

    def at(n: int) -> float:  # post[n], 1 once the trailer has won
        return post[n] if n > 0 else 1.0

    for n in range(1, length + 1):
        if n == 1:
            post[1] = 0.5
            continue
        take = gammon * at(n - 4) + single * at(n - 2)
        post[n] = min(take, post[n - 1]) - drops.get(n, 0.0)

    pre = _table(length)
    pre[1, 1] = 0.5
    for n in range(2, length + 1):
        pre[n, 1] = gammon * at(n - 2) + single * at(n - 1)
        pre[1, n] = 1.0 - pre[n, 1]
    for i in range(2, length + 1):
        for j in range(2, length + 1):
            if cube:
                pre[i, j] = _LiveCubeGame(pre, i, j, gammon_rate, grid).value()
            else:
                pre[i, j] = (gammon * pre[max(i - 2, 0), j] + single * pre[i - 1, j]
                             + single * pre[i, j - 1] + gammon * pre[i, max(j - 2, 0)])
    model = "live cube" if cube else "cubeless"
    return MatchEquityTable(pre, post, name=f"gammon rate {gammon_rate:g}, {model}",
                            source=f"met_from_gammon_rate({length}, {gammon_rate:g}, "
                                   f"cube={cube})")


class _LiveCubeGame:
    """One pre-Crawford game at i-away (player A) vs j-away (B) in the live-cube model.

    Values are A's match-winning chances on the grid p = 0, 1/grid, .. 1 of A's chance to
    win the game: (grid + 1,) arrays.
    """

    def __init__(self, pre: np.ndarray, i: int, j: int, gammon_rate: float, grid: int):
        self.pre, self.i, self.j, self.g = pre, i, j, gammon_rate
        self.steps = grid

    def met(self, a: int, b: int) -> float:
        return 1.0 if a <= 0 else 0.0 if b <= 0 else float(self.pre[a, b])

    def ends(self, c: int) -> tuple[float, float]:
        """A's chances when A loses, when A wins, a game played for cube ``c``."""
        i, j, g = self.i, self.j, self.g
        lose = g * self.met(i, j - 2 * c) + (1 - g) * self.met(i, j - c)
        win = g * self.met(i - 2 * c, j) + (1 - g) * self.met(i - c, j)
        return lose, win

    def owned(self, c: int, owner: str) -> np.ndarray:
        """The cube at ``c``, held by ``owner`` ('A' or 'B'): only the owner may double."""
        lose, win = self.ends(c)
        none = np.full(self.steps + 1, np.nan)
        if owner == "A" and self.i > c:  # A doubles: B drops (A scores c) or takes
            double = np.minimum(self.met(self.i - c, self.j), self.owned(2 * c, "B"))
            return _stopping_game(double, none, lose, win)
        if owner == "B" and self.j > c:
            double = np.maximum(self.met(self.i, self.j - c), self.owned(2 * c, "A"))
            return _stopping_game(none, double, lose, win)
        return np.linspace(lose, win, self.steps + 1)  # a dead cube: the game just ends

    def value(self) -> float:
        """met[i, j]: the centred 1-cube at p = 1/2 (both players may double: i, j >= 2)."""
        lose, win = self.ends(1)
        a_doubles = np.minimum(self.met(self.i - 1, self.j), self.owned(2, "B"))
        b_doubles = np.maximum(self.met(self.i, self.j - 1), self.owned(2, "A"))
        return float(_stopping_game(a_doubles, b_doubles, lose, win)[self.steps // 2])


def _stopping_game(a_stop: np.ndarray, b_stop: np.ndarray, left: float, right: float,
                   tol: float = 1e-12) -> np.ndarray:
    """The value of a fair random walk on k = 0..K, ended at 0 (worth ``left``) and at K
    (``right``), where A (maximising) may stop it at k for a_stop[k] and B (minimising) for
    b_stop[k]; NaN: that player may not stop there. Returns (K + 1,); it satisfies
    V = clip(mean of V's neighbours, a_stop, b_stop) inside.

    With one player only, the value is the least concave function above A's payoffs (the
    greatest convex one below B's). With both, policy iteration from there: given where each
    player stops, the value is linear in between (the walk is fair); each player then stops
    exactly where that beats walking on one more step, until nothing changes.
    """
    size = a_stop.size
    k = np.arange(size)
    lo = np.where(np.isnan(a_stop), -np.inf, a_stop)
    hi = np.where(np.isnan(b_stop), np.inf, b_stop)
    lo[[0, -1]], hi[[0, -1]] = -np.inf, np.inf  # the walk's ends are no choice
    a_alone = _concave_majorant(lo, left, right)
    b_alone = -_concave_majorant(-hi, -left, -right)
    if np.isnan(b_stop).all():
        return a_alone
    if np.isnan(a_stop).all():
        return b_alone
    a = lo >= a_alone - tol  # where A stops
    b = (hi <= b_alone + tol) & ~a  # where B stops
    for _ in range(size):
        fixed = a | b
        fixed[[0, -1]] = True
        at = np.where(a, lo, hi)
        at[0], at[-1] = left, right
        value = np.interp(k, k[fixed], at[fixed])
        walk = value.copy()
        walk[1:-1] = 0.5 * (value[:-2] + value[2:])  # walking on one more step
        new_a = np.where(a, lo >= walk - tol, lo > walk + tol)  # ties: keep the policy
        new_b = np.where(b, hi <= walk + tol, hi < walk - tol) & ~new_a
        if np.array_equal(new_a, a) and np.array_equal(new_b, b):
            return value
        a, b = new_a, new_b
    raise RuntimeError("the cube model's stopping game did not settle")


def _concave_majorant(y: np.ndarray, left: float, right: float) -> np.ndarray:
    """The least concave function on k = 0..K through (0, left) and (K, right) and at or
    above y[k] inside (-inf: no bound there): the upper hull, by a monotone chain."""
    inside = np.flatnonzero(np.isfinite(y[1:-1])) + 1
    xs = [0, *inside.tolist(), y.size - 1]
    ys = [left, *y[inside].tolist(), right]
    hx, hy = [], []
    for x, v in zip(xs, ys):
        while len(hx) >= 2 and (hy[-1] - hy[-2]) * (x - hx[-2]) <= (v - hy[-2]) * (hx[-1] - hx[-2]):
            hx.pop()
            hy.pop()
        hx.append(x)
        hy.append(v)
    return np.interp(np.arange(y.size), hx, hy)


def format_met(met: MatchEquityTable, length: int | None = None) -> str:
    """The table up to ``length``-away as text, in percent: the pre-Crawford table (row: the
    player i-away, column: the opponent j-away) and the post-Crawford line for the trailer."""
    length = met.length if length is None else length
    if not 1 <= length <= met.length:
        raise ValueError(f"length {length} outside 1..{met.length} (this table's length)")
    head = " " * 8 + "".join(f"{f'{j}-away':>8}" for j in range(1, length + 1))
    lines = [f"Match equity table: {met.name}" if met.name else "Match equity table",
             "Chance (%) that the player i-away (row) wins against j-away (column),",
             "before the Crawford game (row or column 1: the Crawford game)", "", head]
    for i in range(1, length + 1):
        cells = "".join(f"{100 * met.pre[i, j]:8.1f}" for j in range(1, length + 1))
        lines.append(f"{f'{i}-away':>8}{cells}")
    lines += ["", "Post-Crawford: the trailer's chance (%) against the leader 1-away", head,
              " " * 8 + "".join(f"{100 * met.post[n]:8.1f}" for n in range(1, length + 1))]
    return "\n".join(lines)


def dump_met(met: MatchEquityTable) -> str:
    """The table in the text format ``parse_met`` reads (probabilities, 6 decimals)."""
    lines = [f"name: {met.name}"] if met.name else []
    lines += [f"source: {met.source}"] if met.source else []
    lines += [f"length: {met.length}", "unit: probability", "pre-crawford"]
    for i in range(1, met.length + 1):
        lines.append(" ".join(f"{x:.6f}" for x in met.pre[i, 1:]))
    lines += ["post-crawford", " ".join(f"{x:.6f}" for x in met.post[1:])]
    return "\n".join(lines) + "\n"


def save_met(met: MatchEquityTable, path: str | Path) -> None:
    """Write the table in the text format, whole or not at all (``engine.files``)."""
    from .files import write_atomic
    write_atomic(path, dump_met(met))


def load_met(path: str | Path, tolerance: float = 0.01) -> MatchEquityTable:
    """A table from a file in the text format (see ``parse_met``)."""
    path = Path(path)
    return parse_met(path.read_text(), origin=str(path), tolerance=tolerance)


def parse_met(text: str, origin: str = "<met>", tolerance: float = 0.01) -> MatchEquityTable:
    """A table from the text format in the module docstring.

    Raises ValueError, naming ``origin`` and the line, for a malformed file; for a number
    outside [0, 1] (in the file's unit); for a pre-Crawford entry whose mirror
    (met[i, j] + met[j, i]) misses 1 by more than ``tolerance``; and for a post-Crawford
    1-away entry that misses 1/2 by more (published tables are rounded).
    """
    header: dict[str, tuple[int, str]] = {}
    rows: dict[str, list[tuple[int, list[float]]]] = {}
    section = None
    scale = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        where = f"{origin}, line {number}"
        if not line or line.startswith("#"):
            continue
        if line.lower() in ("pre-crawford", "post-crawford"):
            if line.lower() in rows:
                raise ValueError(f"{where}: a second {line.lower()} section")
            section = line.lower()
            rows[section] = []
            continue
        key, colon, value = line.partition(":")
        if colon and section is None:
            key = key.strip().lower()
            if key not in ("name", "source", "length", "unit"):
                raise ValueError(f"{where}: unknown header {key!r} "
                                 "(name, source, length, unit)")
            header[key] = (number, value.strip())
            continue
        if section is None:
            raise ValueError(f"{where}: numbers before a 'pre-crawford' or 'post-crawford' line")
        if scale is None:
            scale = _unit(header, origin)
        try:
            numbers = [float(x) / scale for x in re.split(r"[\s,]+", line)]
        except ValueError:
            raise ValueError(f"{where}: not a row of numbers: {line[:40]!r}") from None
        if not all(0 <= x <= 1 for x in numbers):
            raise ValueError(f"{where}: a number outside 0..{'100' if scale == 100 else '1'}")
        rows[section].append((number, numbers))
    length = _length(header, origin)
    for section, count in (("pre-crawford", length), ("post-crawford", 1)):
        if section not in rows:
            raise ValueError(f"{origin}: no {section} section")
        if len(rows[section]) != count:
            raise ValueError(f"{origin}: the {section} section has {len(rows[section])} rows, "
                             f"not {count}")
        for number, numbers in rows[section]:
            if len(numbers) != length:
                raise ValueError(f"{origin}, line {number}: {len(numbers)} numbers, "
                                 f"not {length}")
    pre = _table(length)
    pre[1:, 1:] = [numbers for _, numbers in rows["pre-crawford"]]
    post = np.ones(length + 1)
    post[1:] = rows["post-crawford"][0][1]
    for i in range(1, length + 1):
        for j in range(i, length + 1):
            if abs(pre[i, j] + pre[j, i] - 1) > tolerance:
                raise ValueError(
                    f"{origin}: {i}-away/{j}-away is {pre[i, j]:.4f} and {j}-away/{i}-away "
                    f"{pre[j, i]:.4f}; the two should add up to 1")
    if abs(post[1] - 0.5) > tolerance:
        raise ValueError(f"{origin}: post-Crawford 1-away is {post[1]:.4f}, not 0.5")
    name = header.get("name", (0, ""))[1]
    source = header.get("source", (0, ""))[1]
    return MatchEquityTable(pre, post, name=name, source=source)


def parse_gnubg_met(text: str, origin: str = "<met>", tolerance: float = 0.01
                    ) -> MatchEquityTable:
    """A table from GNU Backgammon's XML format (its ``met/*.xml``): the ``<met>`` element's
    ``<info>`` (``<name>``, ``<length>``), a ``<pre-crawford-table type="explicit">`` of
    ``length`` ``<row>`` elements, each ``length`` ``<me>`` numbers (row i: the player
    i-away against j-away), and a ``<post-crawford-table type="explicit">`` whose first row
    is the trailer 1..length-away against the leader 1-away. Only explicit tables are read
    (gnubg can also describe a table by a formula: "Zadeh" parameters); anything else is a
    ValueError naming ``origin``. The numbers are checked as ``parse_met`` checks them.
    """
    import xml.etree.ElementTree as ET

    try:
        root = ET.fromstring(text)  # the DOCTYPE's DTD is named, never fetched
    except ET.ParseError as e:
        raise ValueError(f"{origin}: not a GNU Backgammon MET (XML): {e}") from None
    if root.tag != "met":
        raise ValueError(f"{origin}: the XML's root is <{root.tag[:40]}>, not <met>")

    def rows(tag: str) -> list[list[float]]:
        table = root.find(tag)
        if table is None:
            raise ValueError(f"{origin}: no <{tag}>")
        if table.get("type", "explicit") != "explicit":
            raise ValueError(f"{origin}: <{tag}> is of type {table.get('type')[:40]!r}; only "
                             "explicit tables are read")
        out = []
        for k, row in enumerate(table.findall("row"), 1):
            try:
                out.append([float(me.text or "") for me in row.findall("me")])
            except ValueError:
                raise ValueError(f"{origin}: <{tag}> row {k} holds a value that is not a "
                                 "number") from None
        return out

    pre_rows, post_rows = rows("pre-crawford-table"), rows("post-crawford-table")
    length = len(pre_rows)
    if not 1 <= length <= MAX_LENGTH:
        raise ValueError(f"{origin}: {length} pre-Crawford rows; a table has 1..{MAX_LENGTH}")
    info = root.find("info")
    name = (info.findtext("name") or "").strip() if info is not None else ""
    stated = info.findtext("length") if info is not None else None
    if stated is not None and stated.strip() != str(length):
        raise ValueError(f"{origin}: <length> says {stated.strip()[:20]} but the table has "
                         f"{length} rows")
    lines = [f"length: {length}", "pre-crawford"]
    for k, row in enumerate(pre_rows, 1):
        if len(row) != length:
            raise ValueError(f"{origin}: pre-Crawford row {k} has {len(row)} numbers, "
                             f"not {length}")
        lines.append(" ".join(repr(x) for x in row))
    if not post_rows or len(post_rows[0]) < length:
        raise ValueError(f"{origin}: the post-Crawford table needs {length} numbers")
    lines += ["post-crawford", " ".join(repr(x) for x in post_rows[0][:length])]
    met = parse_met("\n".join(lines), origin=origin, tolerance=tolerance)
    met.name = name
    met.source = "GNU Backgammon MET file"
    return met


def read_met(text: str, origin: str = "<met>") -> MatchEquityTable:
    """A table from either format: gnubg's XML (text that starts with '<') or ours."""
    if text.lstrip().startswith("<"):
        return parse_gnubg_met(text, origin)
    return parse_met(text, origin)


NAMED = {"kazaross-xg2": "kazaross-xg2.met"}  # the tables that ship, in engine/mets/


def named_met(name: str) -> MatchEquityTable:
    """A table that ships with gammon, by name (``NAMED``); KeyError for another name."""
    path = Path(__file__).with_name("mets") / NAMED[name]
    return parse_met(path.read_text(), origin=str(path))


def _unit(header: dict, origin: str) -> float:
    number, unit = header.get("unit", (0, "probability"))
    if unit.lower() not in ("percent", "probability"):
        raise ValueError(f"{origin}, line {number}: unit {unit[:40]!r} is not percent "
                         "or probability")
    return 100.0 if unit.lower() == "percent" else 1.0


def _length(header: dict, origin: str) -> int:
    if "length" not in header:
        raise ValueError(f"{origin}: no 'length:' header")
    number, value = header["length"]
    if not (value.isdigit() and 1 <= int(value) <= MAX_LENGTH):
        raise ValueError(f"{origin}, line {number}: length {value[:40]!r} is not a whole "
                         f"number in 1..{MAX_LENGTH}")
    return int(value)
