"""One backgammon position as an inline SVG drawing, laid out the way GNU Backgammon shows
its board, for HTML pages (the review report) and anything else that wants a picture.

The seats never change with the player on roll, as in GNU Backgammon's board window and
its ``show board``: **player 0 sits at the top** (dark red checkers), **player 1 at the
bottom** (ivory checkers). Both home boards are on the right, both borne-off trays on
the right edge (player 0's above, player 1's below), the bar in the middle. Player 1
moves from the top left round to the bottom right; player 0 the other way, from the
bottom left to the top right. The point numbers are those of the player on roll (gnubg's
dynamic numbering), so that a play written in his notation (``8/5 6/5``) reads off the
picture directly.

What is drawn, and what a test or a script can read back from the SVG:

- 24 points as triangles (``polygon.point``, ``data-cell`` the engine's cell of the
  board as given, 1..24 from the player on roll);
- checkers (``circle.checker``): at most ``STACK`` per point and per bar; a taller stack
  shows its count on the last checker drawn, as GNU Backgammon's board does.
  Every checker circle has ``data-player`` (0 or 1), ``data-cell`` (the engine's cell: 1..24 a
  point, 25 the bar of the player on roll, 0 the other bar) and ``data-count``, the
  checkers it stands for (1, or the rest of a tall stack), so that the ``data-count`` of
  one cell add up to the checkers on it;
- borne-off checkers as thin slabs in the trays (``rect.off``, ``data-player``);
- the dice of the player on roll (``g.die``, ``data-value``), in his half of the board (in
  the right half for player 1 and the left half for player 0, as gnubg places them);
- the doubling cube (``g.cube``, ``data-value``, ``data-owner``): in the middle of the
  left edge when centred (showing 64 on a 1-cube, as boards do), at the top for player
  0's cube, at the bottom for player 1's;
- the pip counts (``text.pips``) and a marker of the player on roll (``.on-roll``).

Boards are the engine's 26 cells from the side of the player on roll (``engine.board``):
index 0 the opponent's bar (<= 0), 1..24 the points (positive: the mover's checkers), 25 the
mover's bar. Plakoto's pinned checkers (cells past 15) are not drawn: ``board_svg`` takes
the board layouts of the variants with a bar.
"""

from __future__ import annotations

from html import escape

import numpy as np

from gammon.engine.board import BAR, OPP_BAR, borne_off, check_board, pip_counts

STACK = 5  # checkers drawn per point or bar; the last one drawn shows a taller stack's count

# geometry, in SVG user units
D = 24  # checker diameter
R = D / 2 - 0.8  # checker radius, a little gap between checkers
POINT_W = 26  # width of a point
CUBE_COL = 44  # the column left of the frame that holds the cube
FRAME = 8  # frame width
BAR_W = 32
TRAY_W = 38
LABEL_H = 16  # the rows of point numbers above and below the frame
HALF_H = STACK * D + 28  # height of one half (top or bottom row of points)
MID_H = 44  # the gap between the two rows, where the dice lie

X_FRAME = CUBE_COL
X_LEFT = X_FRAME + FRAME  # left edge of the outer (left) quarter boards
X_BAR = X_LEFT + 6 * POINT_W
X_RIGHT = X_BAR + BAR_W  # left edge of the home (right) quarter boards
X_TRAY = X_RIGHT + 6 * POINT_W + FRAME
WIDTH = X_TRAY + TRAY_W + FRAME
Y_TOP = LABEL_H + FRAME  # top edge of the playing field
Y_MID = Y_TOP + HALF_H + MID_H / 2
Y_BOTTOM = Y_TOP + 2 * HALF_H + MID_H
HEIGHT = Y_BOTTOM + FRAME + LABEL_H

COLOURS = {
    "frame": "#6b4226", "felt": "#2f6b45", "tray": "#24543a",
    "point_light": "#e6d3a3", "point_dark": "#8f3b2b",
    "checker": ("#a51c1c", "#f4eedc"),  # player 0, player 1
    "edge": ("#4a0a0a", "#6d6656"),
    "text_on": ("#ffffff", "#222222"),  # count text on a checker of each player
    "cube": "#fbfaf5",
}


def board_svg(board, player: int, dice=None, cube=None, checkers: int = 15,
              names=None, title: str | None = None, width: int | None = None,
              on_roll: int | None = None) -> str:
    """The position as one ``<svg class="board">`` element (a string, no XML prolog).

    board: 26 ints from the side of ``player`` (0 or 1), the player on roll.
    dice: (d1, d2) or None (before the roll: no dice drawn).
    cube: None (no cube drawn), or ``{"value": V, "owner": O}`` / ``(V, O)`` with O = -1
    centred, else the owning player 0 or 1.
    checkers: each side's checkers in the variant (for the borne-off counts).
    names: the two players' names (player 0's first), for the title that screen readers
    and tooltips show; title: that title's text in full instead.
    width: the drawing's width in CSS pixels (default its natural size).
    on_roll: the player the arrow beside the trays points at (default ``player``; a
    board seen by the player answering a double has the doubler on roll).
    Raises ValueError for a board the engine would refuse (``check_board``), a player
    other than 0/1, dice outside 1..6 or a cube whose value is not a power of two."""
    cells = np.asarray(board)
    if cells.shape != (26,):
        raise ValueError(f"a board has 26 cells, got shape {cells.shape}")
    cells = cells.astype(np.int64)
    if np.abs(cells).max(initial=0) > checkers:
        raise ValueError(f"a cell holds more than {checkers} checkers")
    check_board(cells.astype(np.int8), checkers)
    if player not in (0, 1):
        raise ValueError(f"the player on roll is 0 or 1, got {player!r}")
    on_roll = player if on_roll is None else on_roll
    if on_roll not in (0, 1):
        raise ValueError(f"the player on roll is 0 or 1, got {on_roll!r}")
    dice = _dice(dice)
    cube = _cube(cube)
    off = [int(x[0]) for x in borne_off(cells[None], checkers)]  # (mover, opponent)
    pips = [int(x[0]) for x in pip_counts(cells[None])]
    seat_off = {player: off[0], 1 - player: off[1]}
    seat_pips = {player: pips[0], 1 - player: pips[1]}

    if title is None:
        who = names[on_roll] if names else f"player {on_roll}"
        title = f"{who} on roll" + (f", rolled {dice[0]}-{dice[1]}" if dice else "")
    size = ("" if width is None else
            f' width="{int(width)}" height="{round(width * HEIGHT / WIDTH)}"')
    parts = [f'<svg class="board" xmlns="http://www.w3.org/2000/svg" role="img" '
             f'viewBox="0 0 {WIDTH:g} {HEIGHT:g}"{size} data-player="{player}">',
             f"<title>{escape(title)}</title>",
             _frame()]
    for q in range(1, 25):
        parts.append(_point(q, player))
    for cell in range(1, 25):
        n = int(cells[cell])
        if n:
            owner = player if n > 0 else 1 - player
            parts.append(_stack(_seat_point(cell, player), cell, owner, abs(n)))
    if cells[BAR]:
        parts.append(_bar_stack(BAR, player, int(cells[BAR])))
    if cells[OPP_BAR]:
        parts.append(_bar_stack(OPP_BAR, 1 - player, -int(cells[OPP_BAR])))
    for seat in (0, 1):
        parts.append(_tray(seat, seat_off[seat], checkers))
        parts.append(_pips(seat, seat_pips[seat]))
    parts.append(_on_roll(on_roll))
    if dice:
        parts.append(_dice_svg(dice, on_roll))
    if cube:
        parts.append(_cube_svg(*cube))
    parts.append("</svg>")
    return "".join(parts)


# --- reading the arguments -----------------------------------------------------------------

def _dice(dice):
    if dice is None:
        return None
    d = [int(x) for x in dice]
    if len(d) != 2 or not all(1 <= x <= 6 for x in d):
        raise ValueError(f"dice are two numbers 1..6, got {dice!r}")
    return d


def _cube(cube):
    if cube is None:
        return None
    if isinstance(cube, dict):
        value, owner = cube.get("value"), cube.get("owner")
    else:
        value, owner = cube
    value, owner = int(value), int(owner)
    if value < 1 or value & (value - 1):
        raise ValueError(f"a cube's value is a power of two, got {value}")
    if owner not in (-1, 0, 1):
        raise ValueError(f"a cube's owner is -1 (centred), 0 or 1, got {owner}")
    return value, owner


# --- where things go ---------------------------------------------------------------------

def _seat_point(cell: int, player: int) -> int:
    """The point (1..24) counted from player 1's side, the bottom seat, of the mover's cell.
    Player 0's point p is player 1's point 25 - p (the same point seen from the other
    side)."""
    return cell if player == 1 else 25 - cell


def _point_x(q: int) -> float:
    """Left edge of player 1's point q: his 1..6 bottom right (1 at the tray), 7..12 bottom
    left, 13..18 top left, 19..24 top right (24 at the tray)."""
    if q <= 6:
        return X_RIGHT + (6 - q) * POINT_W
    if q <= 12:
        return X_LEFT + (12 - q) * POINT_W
    if q <= 18:
        return X_LEFT + (q - 13) * POINT_W
    return X_RIGHT + (q - 19) * POINT_W


def _top(q: int) -> bool:
    return q >= 13


def _checker(x: float, y: float, owner: int, cell, count: int, label: str | None) -> str:
    text = ""
    if label is not None:
        text = (f'<text class="stack-count" x="{x:g}" y="{y + 4.5:g}" text-anchor="middle" '
                f'font-size="13" font-weight="bold" font-family="sans-serif" '
                f'fill="{COLOURS["text_on"][owner]}">{label}</text>')
    return (f'<circle class="checker" data-player="{owner}" data-cell="{cell}" '
            f'data-count="{count}" cx="{x:g}" cy="{y:g}" r="{R:g}" '
            f'fill="{COLOURS["checker"][owner]}" stroke="{COLOURS["edge"][owner]}" '
            f'stroke-width="1.2"/>{text}')


# --- the pieces ----------------------------------------------------------------------------

def _frame() -> str:
    x1, y0 = X_FRAME, Y_TOP - FRAME
    w, h = WIDTH - X_FRAME, Y_BOTTOM + FRAME - y0
    return (f'<rect class="frame" x="{x1:g}" y="{y0:g}" width="{w:g}" height="{h:g}" '
            f'rx="4" fill="{COLOURS["frame"]}"/>'
            f'<rect class="field" x="{X_LEFT:g}" y="{Y_TOP:g}" width="{6 * POINT_W:g}" '
            f'height="{Y_BOTTOM - Y_TOP:g}" fill="{COLOURS["felt"]}"/>'
            f'<rect class="field" x="{X_RIGHT:g}" y="{Y_TOP:g}" width="{6 * POINT_W:g}" '
            f'height="{Y_BOTTOM - Y_TOP:g}" fill="{COLOURS["felt"]}"/>'
            f'<rect class="tray" x="{X_TRAY:g}" y="{Y_TOP:g}" width="{TRAY_W:g}" '
            f'height="{HALF_H:g}" fill="{COLOURS["tray"]}"/>'
            f'<rect class="tray" x="{X_TRAY:g}" y="{Y_BOTTOM - HALF_H:g}" width="{TRAY_W:g}" '
            f'height="{HALF_H:g}" fill="{COLOURS["tray"]}"/>')


def _point(q: int, player: int) -> str:
    """Point q of the bottom seat's numbering; its label is the mover's number for it."""
    x = _point_x(q)
    tip = STACK * D - 4
    if _top(q):
        y_base, y_tip, y_label = Y_TOP, Y_TOP + tip, Y_TOP - FRAME - 4
    else:
        y_base, y_tip, y_label = Y_BOTTOM, Y_BOTTOM - tip, Y_BOTTOM + FRAME + 12
    colour = COLOURS["point_dark"] if q % 2 else COLOURS["point_light"]
    cell = _seat_point(q, player)  # the same map both ways
    return (f'<polygon class="point" data-cell="{cell}" '
            f'points="{x + 1:g},{y_base:g} {x + POINT_W - 1:g},{y_base:g} '
            f'{x + POINT_W / 2:g},{y_tip:g}" fill="{colour}"/>'
            f'<text class="point-number" x="{x + POINT_W / 2:g}" y="{y_label:g}" '
            f'text-anchor="middle" font-size="10" font-family="sans-serif" '
            f'fill="#333">{cell}</text>')


def _stack(q: int, cell: int, owner: int, n: int) -> str:
    """n checkers of ``owner`` on the bottom seat's point q, from the edge inwards."""
    x = _point_x(q) + POINT_W / 2
    out = []
    shown = min(n, STACK)
    for i in range(shown):
        offset = D / 2 + i * D
        y = Y_TOP + offset if _top(q) else Y_BOTTOM - offset
        last_of_tall = n > STACK and i == shown - 1
        count = n - (STACK - 1) if last_of_tall else 1
        out.append(_checker(x, y, owner, cell, count, str(n) if last_of_tall else None))
    return "".join(out)


def _bar_stack(cell: int, owner: int, n: int) -> str:
    """The checkers on the bar: player 0's in the upper half, player 1's in the lower,
    from the middle outwards."""
    x = X_BAR + BAR_W / 2
    out = []
    shown = min(n, STACK)
    for i in range(shown):
        offset = MID_H / 2 + D / 2 + i * D
        y = Y_MID - offset if owner == 0 else Y_MID + offset
        last_of_tall = n > STACK and i == shown - 1
        count = n - (STACK - 1) if last_of_tall else 1
        out.append(_checker(x, y, owner, cell, count, str(n) if last_of_tall else None))
    return "".join(out)


def _tray(seat: int, n: int, checkers: int) -> str:
    """Player ``seat``'s borne-off checkers: slabs from the tray's outer edge inwards."""
    slab = min(8.0, (HALF_H - 8) / max(checkers, 1))
    out = []
    for i in range(n):
        y = Y_TOP + 4 + i * slab if seat == 0 else Y_BOTTOM - 4 - (i + 1) * slab
        out.append(f'<rect class="off" data-player="{seat}" x="{X_TRAY + 4:g}" y="{y:g}" '
                   f'width="{TRAY_W - 8:g}" height="{slab - 1:g}" rx="1.5" '
                   f'fill="{COLOURS["checker"][seat]}" stroke="{COLOURS["edge"][seat]}" '
                   f'stroke-width="0.6"/>')
    if n:
        y = Y_TOP + HALF_H - 6 if seat == 0 else Y_BOTTOM - HALF_H + 14
        out.append(f'<text class="off-count" data-player="{seat}" x="{X_TRAY + TRAY_W / 2:g}" '
                   f'y="{y:g}" text-anchor="middle" font-size="11" font-family="sans-serif" '
                   f'fill="#fff">{n}</text>')
    return "".join(out)


def _pips(seat: int, pips: int) -> str:
    y = Y_TOP + 10 if seat == 0 else Y_BOTTOM - 2
    return (f'<text class="pips" data-player="{seat}" x="{CUBE_COL / 2:g}" y="{y:g}" '
            f'text-anchor="middle" font-size="10" font-family="sans-serif" '
            f'fill="#333">{pips}</text>')


def _on_roll(player: int) -> str:
    """A small arrow beside the tray of the player on roll."""
    x = X_TRAY + TRAY_W / 2
    y = Y_MID - 8 if player == 0 else Y_MID + 8
    tip = y - 8 if player == 0 else y + 8
    return (f'<polygon class="on-roll" data-player="{player}" '
            f'points="{x - 7:g},{y:g} {x + 7:g},{y:g} {x:g},{tip:g}" '
            f'fill="{COLOURS["checker"][player]}" stroke="{COLOURS["edge"][player]}"/>')


PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
        5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def _dice_svg(dice, player: int) -> str:
    """The two dice in the middle of the mover's half: player 0's on the left (his outer
    board's side as the top seat sees the board), player 1's on the right."""
    size = 26
    x0 = (X_LEFT if player == 0 else X_RIGHT) + 3 * POINT_W - size - 5
    y = Y_MID - size / 2
    out = []
    for k, value in enumerate(dice):
        x = x0 + k * (size + 10)
        pips = "".join(f'<circle class="pip" cx="{x + size / 2 + dx * 7:g}" '
                       f'cy="{y + size / 2 + dy * 7:g}" r="2.6" '
                       f'fill="{COLOURS["text_on"][player]}"/>' for dx, dy in PIPS[value])
        out.append(f'<g class="die" data-value="{value}"><rect x="{x:g}" y="{y:g}" '
                   f'width="{size}" height="{size}" rx="4" fill="{COLOURS["checker"][player]}" '
                   f'stroke="{COLOURS["edge"][player]}" stroke-width="1.2"/>{pips}</g>')
    return "".join(out)


def _cube_svg(value: int, owner: int) -> str:
    size = 30
    x = (CUBE_COL - size) / 2
    if owner == -1:
        y = Y_MID - size / 2
    elif owner == 0:
        y = Y_TOP + 20
    else:
        y = Y_BOTTOM - 20 - size
    face = 64 if (owner == -1 and value == 1) else value
    return (f'<g class="cube" data-value="{value}" data-owner="{owner}">'
            f'<rect x="{x:g}" y="{y:g}" width="{size}" height="{size}" rx="4" '
            f'fill="{COLOURS["cube"]}" stroke="#333" stroke-width="1.2"/>'
            f'<text x="{x + size / 2:g}" y="{y + size / 2 + 5:g}" text-anchor="middle" '
            f'font-size="{15 if face < 1000 else 10}" font-weight="bold" '
            f'font-family="sans-serif" fill="#111">{face}</text></g>')


__all__ = ["board_svg", "STACK", "WIDTH", "HEIGHT"]
