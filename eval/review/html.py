"""The review report as one self-contained HTML page (``gammon review FILE --html OUT``).

``render_report(report)`` turns the report object (the one ``--json`` prints: see
docs/analysis.md) into a page; ``write_report(report, path)`` writes it whole or not at all
(``engine.files.write_atomic``: a failing write is one ``WriteError`` line and leaves no
half-written file).

The page needs no network and runs no script: the style sheet is inline, the boards and
the equity graph are inline SVG drawn here (``eval.review.svg_board``), and there are no
fonts, images or links to anything outside the page. Every string that came from the
reviewed file (player names, plays, the file's name) is HTML-escaped.

What it holds, top to bottom:

- the file, variant, match length, bot and plies, and the thresholds of the marks;
- a summary table of the two players (decisions, losses, error rates, PR, luck, points,
  the luck-adjusted result, the marks);
- the equity graph of the match: player 0's equity before each decision, one point per
  decision (``circle.equity-point``), a dashed line where each game starts;
- one ``section.game`` per game: its score and result, every decision in a collapsible
  table, and for every marked decision (a mark or a luck mark) a ``div.decision`` with its
  board (``svg.board``), the roll, the play or cube action made, the best options with
  their equities and losses.
"""

from __future__ import annotations

from html import escape

from gammon.engine.files import write_atomic
from gammon.engine.rules import variant as rules_of

from .svg_board import board_svg

OPTIONS_SHOWN = 5  # best options listed under a marked decision (the one played is added)
BOARD_WIDTH = 440  # CSS pixels
MARK_COLOURS = {"doubtful": "#d9a400", "bad": "#d35400", "very bad": "#c0392b"}
LUCK_COLOURS = {"very lucky": "#1e8449", "lucky": "#52be80", "unlucky": "#af7ac5",
                "very unlucky": "#6c3483"}
PROBABILITIES = ("win", "win g", "win bg", "lose g", "lose bg")  # gnubg's five

STYLE = """
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1100px; color: #222;
       padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { margin-top: 2em; border-bottom: 2px solid #6b4226; }
table { border-collapse: collapse; margin: 0.5em 0; }
td, th { padding: 2px 8px; border-bottom: 1px solid #ddd; text-align: right; }
th { background: #f3ede0; } td.text, th.text { text-align: left; }
.meta { color: #555; } .meta span { margin-right: 1.5em; }
.mark { display: inline-block; padding: 0 6px; border-radius: 3px; color: #fff;
        font-size: 0.9em; margin-left: 4px; }
.decision { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start;
            margin: 1em 0; padding: 0.5em; border: 1px solid #ddd; border-radius: 4px; }
.decision > div { flex: 0 0 auto; } .decision > div.facts { flex: 1 1 360px; }
table.options { font-size: 0.85em; } table.options td, table.options th { padding: 1px 5px; }
.decision h3 { margin: 0 0 0.3em 0; font-size: 1.05em; }
.decision .ids { font-family: monospace; font-size: 0.85em; color: #555; }
tr.played td { font-weight: bold; } tr.best td:first-child::after { content: " *"; }
svg.graph { width: 100%; height: auto; background: #fcfbf7; border: 1px solid #ddd; }
.warning { color: #a04000; }
details summary { cursor: pointer; color: #444; }
"""


def write_report(report: dict, path) -> None:
    """The page of ``report`` written to ``path``, atomically (WriteError on failure)."""
    write_atomic(path, render_report(report))


def render_report(report: dict) -> str:
    """The page of ``report`` (the review's report object) as HTML text."""
    names = [str(p.get("name", f"player {i}")) for i, p in enumerate(report["players"])]
    checkers = _checkers(report.get("variant", "standard"))
    title = f"Review of {report.get('file', '')}"
    body = [f"<h1>{_e(title)}</h1>", _meta(report), _summary(report["players"]),
            "<h2>Equity through the match</h2>", equity_graph(report, names),
            _game_links(report["games"])]
    for game in report["games"]:
        body.append(_game(game, names, report, checkers))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{_e(title)}</title><style>{STYLE}</style></head>\n<body>\n"
            + "\n".join(body) + "\n</body></html>\n")


# --- small helpers ---------------------------------------------------------------------------

def _e(value) -> str:
    """Any value as HTML text, escaped (quotes too, so it may stand in an attribute)."""
    return escape("" if value is None else str(value), quote=True)


def _num(value, spec: str) -> str:
    """A number in ``spec`` (``"+.3f"``), or a dash for a missing one."""
    if value is None:
        return "&ndash;"
    try:
        return format(float(value), spec) if "f" in spec else format(int(value), spec)
    except (TypeError, ValueError):
        return _e(value)


def _checkers(name) -> int:
    try:
        return rules_of(name).checkers
    except ValueError:  # a variant this engine does not know: the standard count
        return 15


def _badge(text: str, colour: str) -> str:
    return f'<span class="mark" style="background:{colour}">{_e(text)}</span>'


def _roll(decision) -> str:
    dice = decision.get("dice")
    return f"{int(dice[0])}-{int(dice[1])}" if dice else ""


# --- the head of the page ---------------------------------------------------------------------

def _meta(report) -> str:
    length = int(report.get("match_length") or 0)
    items = [("format", report.get("format")), ("variant", report.get("variant")),
             ("play", f"match to {length}" if length else "money game"),
             ("bot", report.get("bot")), ("plies", report.get("plies"))]
    line = "".join(f"<span>{_e(k)}: <b>{_e(v)}</b></span>" for k, v in items)
    thresholds = report.get("thresholds") or {}
    marks = ", ".join(
        f"{_e(k.replace('_', ' '))} past {_num(v, '+.3f' if 'luck' in k else '.3f')}"
        for k, v in thresholds.items())
    unit = report.get("equity_unit") or "money-equivalent units"
    warnings = "".join(f'<p class="warning">warning: {_e(w)}</p>'
                       for w in report.get("warnings") or [])
    return (f'<p class="meta">{line}</p>'
            f'<p class="meta">Marks (equity lost, or the luck of a roll, in {_e(unit)}): '
            f'{marks}</p>{warnings}')


SUMMARY_ROWS = [  # (label, key, format)
    ("unforced checker decisions", "unforced", "d"),
    ("cube decisions", "cube_decisions", "d"),
    ("checker play: equity lost", "checker_loss", ".3f"),
    ("cube: equity lost", "cube_loss", ".3f"),
    ("checker error rate (mEMG per decision)", "checker_error_rate", ".1f"),
    ("cube error rate (mEMG per decision)", "cube_error_rate", ".1f"),
    ("error rate (mEMG per decision)", "error_rate", ".1f"),
    ("performance rating (PR)", "pr", ".1f"),
    ("luck (EMG)", "luck", "+.3f"),
    ("points won", "points", "d"),
    ("luck-adjusted result", "luck_adjusted", "+.3f"),
]


def _summary(players) -> str:
    head = "".join(f'<th class="player">{_e(p.get("name"))}</th>' for p in players)
    rows = []
    for label, key, spec in SUMMARY_ROWS:
        cells = "".join(f"<td>{_num(p.get(key), spec)}</td>" for p in players)
        rows.append(f'<tr><td class="text">{_e(label)}</td>{cells}</tr>')
    # "marks" counts the checker plays; "cube_marks", where the review gives it, the cube
    with_cube = any("cube_marks" in p for p in players)
    for key, what in (("marks", "checker plays" if with_cube else "decisions"),
                      ("cube_marks", "cube decisions")):
        if not any(key in p for p in players):
            continue
        cells = "".join(
            "<td>" + " / ".join(_num((p.get(key) or {}).get(m), "d")
                                for m in ("doubtful", "bad", "very_bad")) + "</td>"
            for p in players)
        rows.append(f'<tr><td class="text">{_e(what)} doubtful / bad / very bad</td>'
                    f"{cells}</tr>")
    if any("lucky_rolls" in p for p in players):
        cells = "".join(f"<td>{_num(p.get('lucky_rolls'), 'd')} / "
                        f"{_num(p.get('unlucky_rolls'), 'd')}</td>" for p in players)
        rows.append(f'<tr><td class="text">lucky / unlucky rolls</td>{cells}</tr>')
    return (f'<h2>Summary</h2><table class="summary"><tr><th class="text"></th>{head}</tr>'
            + "".join(rows) + "</table>")


def _game_links(games) -> str:
    links = " ".join(f'<a href="#game-{int(g["number"])}">game {int(g["number"])}</a>'
                     for g in games)
    return f'<p class="games">{links}</p>' if games else "<p>No games in the file.</p>"


# --- the equity graph ------------------------------------------------------------------------

GRAPH_W, GRAPH_H = 900, 240
MARGIN = {"left": 52, "right": 12, "top": 22, "bottom": 26}


def equity_graph(report: dict, names) -> str:
    """Player 0's equity before each decision of the match as an inline SVG: one
    ``circle.equity-point`` per decision in match order (``data-game``, ``data-index`` its
    place in the game's list), a line through each game's points, a dashed
    ``line.game-boundary`` where each game after the first starts."""
    points = [(g, i, d) for g in report["games"] for i, d in enumerate(g["decisions"])]
    n = len(points)
    parts = [f'<svg class="graph" xmlns="http://www.w3.org/2000/svg" role="img" '
             f'viewBox="0 0 {GRAPH_W} {GRAPH_H}" data-points="{n}">'
             f"<title>{_e(names[0])}&#39;s equity before each decision</title>"]
    if n == 0:
        parts.append(f'<text x="{GRAPH_W / 2}" y="{GRAPH_H / 2}" text-anchor="middle" '
                     f'font-family="sans-serif" font-size="14">no decisions</text></svg>')
        return "".join(parts)
    values = [float(d["equity"]) for _, _, d in points]
    lo, hi = min(-1.0, min(values)), max(1.0, max(values))
    pad = 0.05 * (hi - lo)
    lo, hi = lo - pad, hi + pad
    left, top = MARGIN["left"], MARGIN["top"]
    width = GRAPH_W - left - MARGIN["right"]
    height = GRAPH_H - top - MARGIN["bottom"]

    def x(k: float) -> float:
        return left + (k + 0.5) * width / n

    def y(v: float) -> float:
        return top + (hi - v) / (hi - lo) * height

    for level in sorted({-1.0, 0.0, 1.0} | {float(round(lo)), float(round(hi))}):
        if lo <= level <= hi:
            parts.append(f'<line x1="{left}" x2="{left + width}" y1="{y(level):.1f}" '
                         f'y2="{y(level):.1f}" stroke="{"#888" if level == 0 else "#ddd"}" '
                         f'stroke-width="1"/><text x="{left - 6}" y="{y(level) + 4:.1f}" '
                         f'text-anchor="end" font-family="sans-serif" font-size="11" '
                         f'fill="#555">{"0" if level == 0 else f"{level:+.0f}"}</text>')
    start = 0
    for game in report["games"]:
        count = len(game["decisions"])
        number = int(game["number"])
        bx = left + start * width / n
        if start > 0:
            parts.append(f'<line class="game-boundary" data-game="{number}" x1="{bx:.1f}" '
                         f'x2="{bx:.1f}" y1="{top}" y2="{top + height}" stroke="#6b4226" '
                         f'stroke-dasharray="4 3" stroke-width="1"/>')
        parts.append(f'<text x="{bx + 3:.1f}" y="{top - 7}" font-family="sans-serif" '
                     f'font-size="11" fill="#6b4226">game {number}</text>')
        if count > 1:
            line = " ".join(f"{x(start + i):.1f},{y(float(d['equity'])):.1f}"
                            for i, d in enumerate(game["decisions"]))
            parts.append(f'<polyline class="equity-line" points="{line}" fill="none" '
                         f'stroke="#2f6b45" stroke-width="1.5"/>')
        start += count
    for k, (game, i, d) in enumerate(points):
        mark = d.get("mark")
        colour = MARK_COLOURS.get(mark, "#2f6b45")
        radius = 4 if mark else 2.5
        who = names[int(d["player"])] if int(d["player"]) < len(names) else d["player"]
        tip = (f"game {game['number']}, move {d.get('move')}: {who} "
               f"{_roll(d) or d.get('kind')} {d.get('action')} "
               f"({float(d['equity']):+.3f}{', ' + mark if mark else ''})")
        parts.append(f'<circle class="equity-point" data-game="{int(game["number"])}" '
                     f'data-index="{i}" cx="{x(k):.1f}" cy="{y(float(d["equity"])):.1f}" '
                     f'r="{radius}" fill="{colour}"><title>{_e(tip)}</title></circle>')
    parts.append(f'<text x="{left + width / 2:.1f}" y="{GRAPH_H - 6}" text-anchor="middle" '
                 f'font-family="sans-serif" font-size="11" fill="#555">decisions in match '
                 f'order; equity of {_e(names[0])} before each</text></svg>')
    return "".join(parts)


# --- one game --------------------------------------------------------------------------------

def _game(game, names, report, checkers) -> str:
    number = int(game["number"])
    score = game.get("score") or [0, 0]
    head = f"Game {number}"
    facts = [f"score before it: {_e(names[0])} {_num(score[0], 'd')}, "
             f"{_e(names[1])} {_num(score[1], 'd')}"]
    if game.get("crawford"):
        facts.append("the Crawford game")
    winner = game.get("winner")
    if winner is None:
        facts.append("not finished")
    else:
        facts.append(f"won by {_e(names[int(winner)])}, {_num(game.get('points'), 'd')} "
                     f"point(s)")
    if game.get("warning"):
        facts.append(f'<span class="warning">warning: {_e(game["warning"])}</span>')
    decisions = game["decisions"]
    marked = [(i, d) for i, d in enumerate(decisions) if d.get("mark") or d.get("luck_mark")]
    parts = [f'<section class="game" id="game-{number}" data-game="{number}">',
             f"<h2>{head}</h2>", f'<p class="meta">{"; ".join(facts)}</p>',
             _decision_table(decisions, names)]
    if marked:
        parts.append(f"<p>{len(marked)} marked decision(s) and roll(s):</p>")
    else:
        parts.append("<p>No marked decisions or rolls in this game.</p>")
    for i, d in marked:
        parts.append(_marked(number, i, d, names, checkers))
    parts.append("</section>")
    return "\n".join(parts)


def _decision_table(decisions, names) -> str:
    rows = []
    for i, d in enumerate(decisions):
        mark = d.get("mark")
        luck_mark = d.get("luck_mark")
        badges = (_badge(mark, MARK_COLOURS.get(mark, "#777")) if mark else "") + (
            _badge(luck_mark, LUCK_COLOURS.get(luck_mark, "#777")) if luck_mark else "")
        forced = " (forced)" if d.get("forced") else ""
        rows.append(
            f'<tr data-index="{i}"><td>{_num(d.get("move"), "d")}</td>'
            f'<td class="text">{_e(names[int(d["player"])])}</td>'
            f'<td class="text">{_e(_roll(d) or d.get("kind"))}</td>'
            f'<td class="text">{_e(d.get("action"))}{forced}</td>'
            f'<td class="text">{_e(d.get("best"))}</td>'
            f'<td>{_num(d.get("loss"), ".3f")}</td><td>{_num(d.get("luck"), "+.3f")}</td>'
            f'<td>{_num(d.get("equity"), "+.3f")}</td><td class="text">{badges}</td></tr>')
    head = ("<tr><th>move</th><th class=\"text\">player</th><th class=\"text\">roll</th>"
            "<th class=\"text\">played</th><th class=\"text\">best</th><th>loss</th>"
            "<th>luck</th><th>equity (player 0)</th><th class=\"text\">marks</th></tr>")
    return (f"<details><summary>All {len(decisions)} decisions</summary>"
            f'<table class="decisions">{head}{"".join(rows)}</table></details>')


KIND_WORDS = {"checker": "to play", "double": "to double or not", "take": "to take or pass"}


def _marked(number: int, index: int, d, names, checkers) -> str:
    """One marked decision: its board, what was played, the best options."""
    player = int(d["player"])
    mark, luck_mark = d.get("mark"), d.get("luck_mark")
    roll = _roll(d)
    what = f"{_e(names[player])} {KIND_WORDS.get(d.get('kind'), _e(d.get('kind')))}"
    if roll:
        what += f" {roll}"
    badges = ""
    if mark:
        badges += _badge(f"{mark}: -{float(d.get('loss') or 0):.3f}",
                         MARK_COLOURS.get(mark, "#777"))
    if luck_mark:
        badges += _badge(f"{luck_mark}: {float(d.get('luck') or 0):+.3f}",
                         LUCK_COLOURS.get(luck_mark, "#777"))
    # a take is answered by the player the board is seen from; the doubler is on roll
    on_roll = 1 - player if d.get("kind") == "take" else player
    board = board_svg(d["board"], player, dice=d.get("dice"), cube=d.get("cube"),
                      checkers=checkers, names=names, width=BOARD_WIDTH, on_roll=on_roll,
                      title=f"game {number}, move {d.get('move')}: {names[player]} "
                            f"{KIND_WORDS.get(d.get('kind'), d.get('kind'))} {roll}".strip())
    forced = " (forced)" if d.get("forced") else ""
    facts = (f"<p>played: <b>{_e(d.get('action'))}</b>{forced}<br>best: "
             f"<b>{_e(d.get('best'))}</b><br>equity lost: {_num(d.get('loss'), '.3f')}"
             + (f"<br>luck of the roll: {_num(d.get('luck'), '+.3f')}"
                if d.get("luck") is not None else "")
             + _rollout_line(d)
             + f"<br>equity of {_e(names[0])} before it: {_num(d.get('equity'), '+.3f')}</p>")
    ids = f'<p class="ids">{_e(d.get("posid"))}<br>{_e(d.get("xgid"))}</p>'
    return (f'<div class="decision" data-game="{number}" data-index="{index}" '
            f'data-kind="{_e(d.get("kind"))}">'
            f'<div>{board}</div><div class="facts"><h3>'
            f"Move {_num(d.get('move'), 'd')}: {what}{badges}</h3>"
            f"{facts}{_options(d)}{ids}</div></div>")


def _rollout_line(d) -> str:
    """The rollout of a marked decision (``review --rollout``), or nothing."""
    r = d.get("rollout")
    if not isinstance(r, dict):
        return ""
    from .rollout import loss_words
    return f"<br>by rollout: {_e(loss_words(r))}"


def _options(d) -> str:
    options = list(d.get("options") or [])
    if not options:
        return ""
    shown = list(enumerate(options[:OPTIONS_SHOWN]))
    played = next((k for k, o in enumerate(options) if o.get("action") == d.get("action")),
                  None)
    if played is not None and played >= OPTIONS_SHOWN:
        shown.append((played, options[played]))
    with_probabilities = any(o.get("probabilities") for _, o in shown)
    head = ('<tr><th>#</th><th class="text">option</th><th>equity</th><th>loss</th>'
            + ("".join(f"<th>{p}</th>" for p in PROBABILITIES) if with_probabilities else "")
            + "</tr>")
    rows = []
    for k, o in shown:
        classes = " ".join(c for c, on in (("played", k == played),
                                           ("best", o.get("action") == d.get("best"))) if on)
        chances = ""
        if with_probabilities:
            probabilities = o.get("probabilities") or [None] * len(PROBABILITIES)
            chances = "".join(f"<td>{_percent(p)}</td>" for p in probabilities)
        rows.append(f'<tr class="{classes}"><td>{k + 1}</td>'
                    f'<td class="text">{_e(o.get("action"))}</td>'
                    f'<td>{_num(o.get("equity"), "+.3f")}</td>'
                    f'<td>{_num(o.get("loss"), ".3f")}</td>{chances}</tr>')
    return f'<table class="options">{head}{"".join(rows)}</table>'


def _percent(p) -> str:
    return "&ndash;" if p is None else f"{100 * float(p):.1f}%"


__all__ = ["render_report", "write_report", "equity_graph"]
