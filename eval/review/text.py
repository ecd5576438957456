"""The review report as text for the terminal: a summary table of both players, then each
marked decision (and each very lucky or very unlucky roll is counted in the table) with
its board diagram, the roll, the play or cube action made, the best options and the loss."""

from __future__ import annotations

import numpy as np

from gammon.engine.formats.diagram import diagram

ROWS = (("unforced checker decisions", "unforced", "d"),
        ("checker loss (EMG)", "checker_loss", ".3f"),
        ("checker error rate (mEMG)", "checker_error_rate", ".1f"),
        ("close or actual cube decisions", "cube_decisions", "d"),
        ("cube loss (EMG)", "cube_loss", ".3f"),
        ("cube error rate (mEMG)", "cube_error_rate", ".1f"),
        ("overall error rate (mEMG)", "error_rate", ".1f"),
        ("performance rating (PR)", "pr", ".1f"),
        ("doubtful / bad / very bad plays", None, ""),
        ("cube errors doubtful / bad / very bad", None, ""),
        ("luck (EMG)", "luck", "+.3f"),
        ("lucky / unlucky rolls", None, ""),
        ("points won", "points", "d"),
        ("luck-adjusted result (points)", "luck_adjusted", "+.2f"))


def _cell(player: dict, key: str | None, spec: str, label: str) -> str:
    if key is not None:
        return format(player[key], spec)
    if label.startswith("doubtful"):
        m = player["marks"]
        return f"{m['doubtful']} / {m['bad']} / {m['very_bad']}"
    if label.startswith("cube errors"):
        m = player["cube_marks"]
        return f"{m['doubtful']} / {m['bad']} / {m['very_bad']}"
    return f"{player['lucky_rolls']} / {player['unlucky_rolls']}"


def summary(report: dict) -> str:
    """The heading and the table of both players' figures."""
    kind = (f"{report['match_length']}-point match" if report["match_length"]
            else "money session")
    games = len(report["games"])
    lines = [f"{report['file'] or 'review'}: {kind}, {games} game{'s' * (games != 1)}, "
             f"{report['variant']}; graded by {report['bot']} at {report['plies']}-ply, "
             f"cubeful, EMG per 1-cube"]
    players = report["players"]
    width = max(len(label) for label, _, _ in ROWS)
    cols = [max(12, len(p["name"])) for p in players]
    lines.append(f"{'':<{width}}  " + "  ".join(f"{p['name']:>{c}}"
                                                for p, c in zip(players, cols)))
    for label, key, spec in ROWS:
        lines.append(f"{label:<{width}}  " + "  ".join(
            f"{_cell(p, key, spec, label):>{c}}" for p, c in zip(players, cols)))
    t = report["thresholds"]
    lines.append(f"marks: doubtful > {t['doubtful']:g}, bad > {t['bad']:g}, very bad > "
                 f"{t['very_bad']:g}; rolls lucky > {t['lucky']:+g}, very lucky > "
                 f"{t['very_lucky']:+g}, unlucky < {t['unlucky']:+g}, very unlucky < "
                 f"{t['very_unlucky']:+g}")
    return "\n".join(lines)


def _decision(report: dict, game: dict, d: dict) -> str:
    name = report["players"][d["player"]]["name"]
    cube = d["cube"]
    owner = ("centred" if cube["owner"] < 0
             else f"{report['players'][cube['owner']]['name']}'s")
    head = (f"game {game['number']}, move {d['move']}: {name}, {d['kind']}; "
            f"cube {cube['value']} {owner}; {d['mark']} (loses {d['loss']:.3f})")
    lines = [head, diagram(np.array(d["board"])),
             f"Position ID {d['posid']}" + (f"  {d['xgid']}" if d["xgid"] else "")]
    if d["dice"]:
        lines.append(f"rolled {d['dice'][0]}{d['dice'][1]}" +
                     (f" (luck {d['luck']:+.3f}"
                      + (f", {d['luck_mark']})" if d["luck_mark"] else ")")
                      if d["luck"] is not None else ""))
    lines.append(f"played: {d['action']}    best: {d['best']}")
    for k, o in enumerate(d["options"], 1):
        mine = "*" if o["action"] == d["action"] else " "
        lines.append(f" {mine}{k}. {o['action']:<28} {o['equity']:+.3f}"
                     + (f"  ({-o['loss']:+.3f})" if k > 1 else ""))
    if "options_played" in d:
        o = d["options_played"]
        lines.append(f" *{d['rank']}. {o['action']:<28} {o['equity']:+.3f}  "
                     f"({-o['loss']:+.3f})")
    if isinstance(d.get("rollout"), dict):
        from .rollout import loss_words
        lines.append(f"by rollout: {loss_words(d['rollout'])}")
    return "\n".join(lines)


def text_report(report: dict) -> str:
    """The whole terminal report."""
    parts = [summary(report)]
    if isinstance(report.get("rollout"), dict):
        r = report["rollout"]
        parts.append(f"marked decisions rolled out: {r['trials']:,} trials each, cubeful, "
                     f"seed {r['seed']}" + (f", truncated after {r['truncate']} plies"
                                            if r.get("truncate") is not None else "")
                     + ("" if r.get("vr", True) else ", no variance reduction"))
    for w in report.get("warnings", []):
        parts.append(f"warning: {w}")
    marked = [(g, d) for g in report["games"] for d in g["decisions"] if d["mark"]]
    if not marked:
        parts.append("no decision marked")
    for g, d in marked:
        parts.append(_decision(report, g, d))
    return "\n\n".join(parts)


__all__ = ["summary", "text_report"]
