"""``gammon review --bot gnubg`` checked against GNU Backgammon 1.07's own analysis.

    python -m gammon.eval.gnubg.review_check --games 20 --matches 5 --seed 1
    python -m gammon.eval.gnubg.review_check --files a.mat b.sgf     # files already played

Our bots play money games (``gammon match A B --games N --cube --save``) and matches
(``--match-to L --matches M --save``); each file is reviewed by ``gammon review --bot gnubg
--met kazaross-xg2 --json`` (gnubg's nets through gnubg-nn at 0-ply, and the match equity
table gnubg uses) and by the program GNU Backgammon 1.07
(``gnubg -t``: ``import mat``, ``analyse match`` with checker play, cube decisions and luck
at 0-ply, cubeful, no pruning nets; money games without the Jacoby rule and without
beavers, as ours were played), whose per-move analysis is read from ``export match text``
(one text file per game) and whose statistics from ``show statistics match``.

Printed (and with --json one object):

- checker: of the unforced checker decisions, the share with the same best play
  (``same_best``: our best play is one gnubg values best, that is equal to the play it
  lists first at the 6 decimals gnubg is told to print, so that a tie - a game lost or won
  whatever is played - is the same best play whichever of the tied plays each lists
  first); ``first_listed`` counts only gnubg's first-listed play, ``within_0.0005`` also
  counts a play gnubg values within 0.0005 of its best; and the share whose loss agrees
  within 0.01 (``loss_within``);
- cube: of the cube decisions both analysed, the share with the same verdict (the doubler's
  action: double or not, "too good" counted as not; and the taker's take or pass), and
  the same over the close or actual ones;
- per player and file, gnubg's checker, cube and overall error rates (mEMG) beside ours,
  and the share within 10% (or 0.5 mEMG, for rates near 0).

The turns of both analyses are matched game by game in order; a turn whose Position ID or
roll differs (it never should) is counted apart (``unmatched``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from gammon.engine.formats import posid as posid_format
from gammon.engine.formats.notation import parse_play
from gammon.engine.movegen import legal_plays
from gammon.eval.gnubg.cli import OneLineParser, UsageError, first_line
from gammon.eval.gnubg.driver import GnubgError, find_gnubg, parse_action, run_gnubg

SETTINGS = ["set sound enable off", "set output digits 6", "set export moves number 50",
            "set jacoby off", "set beavers 0",
            "set automatic doubles 0",
            "set analysis chequerplay evaluation plies 0",
            "set analysis chequerplay evaluation cubeful on",
            "set analysis chequerplay evaluation prune off",
            "set analysis cubedecision evaluation plies 0",
            "set analysis cubedecision evaluation cubeful on",
            "set analysis cubedecision evaluation prune off",
            "set analysis luckanalysis plies 0",
            "set analysis luckanalysis prune off"]
LOSS = 0.01  # per-decision loss agreement
RATE = 0.10  # relative error-rate agreement
RATE_FLOOR = 0.5  # mEMG: rates this close agree whatever their ratio
TIE = 1.5e-6  # equal at gnubg's 6 printed decimals (rounding of both)
NEAR = 0.0005


# ----------------------------------------------------------------- gnubg's text export

_RECORD = re.compile(r"^Move number (\d+):\s+(.*?)\s*$", re.MULTILINE)
_POSID = re.compile(r"Position ID: (\S+)")
_MATCHID = re.compile(r"Match ID\s*: (\S+)")
_ROLLED = re.compile(r"^Rolled (\d)(\d) \(([-+]?\d+\.\d+)\):", re.MULTILINE)
_MOVE_LINE = re.compile(r"^(\*?)\s+(\d+\.|\?\?)\s+Cubeful \d-ply\s+(.+?)\s+Eq\.:\s+([-+]?\d+\.\d+)"
                        r"(?:\s+\(([-+]?\d+\.\d+)\))?\s*$", re.MULTILINE)
_CUBE_EQ = re.compile(r"^\d\.\s+(No double|No redouble|Double, take|Redouble, take|"
                      r"Double, pass|Redouble, pass|Double, beaver|Redouble, beaver)\s+"
                      r"([-+]?\d+\.\d+)", re.MULTILINE)
_PROPER = re.compile(r"^Proper cube action:\s*(.+?)\s*(?:\([-\d.]+%\))?\s*$", re.MULTILINE)


def read_export(text: str) -> list[dict]:
    """The records of one game's text export: kind ("roll", "double", "take"), posid,
    and for a roll the dice, luck, the listed plays (rank, play, equity, loss, played),
    for a cube analysis its proper action and equities."""
    out = []
    heads = list(_RECORD.finditer(text))
    for k, m in enumerate(heads):
        body = text[m.end():heads[k + 1].start() if k + 1 < len(heads) else len(text)]
        head = m.group(2)
        rec = {"number": int(m.group(1)), "head": head,
               "posid": (_POSID.search(body) or [None, ""])[1],
               "matchid": (_MATCHID.search(body) or [None, ""])[1]}
        if " to play " in head:
            rec["kind"] = "roll"
        elif head.endswith("cube decision?"):
            rec["kind"] = "double"
        elif " doubles to " in head or " redoubles to " in head:
            rec["kind"] = "take"
        else:
            rec["kind"] = "other"
        if "\nCube analysis" in body:
            proper = _PROPER.search(body)
            rec["cube"] = {"proper": proper.group(1) if proper else "",
                           "equities": {a.replace("Redouble", "Double").replace(
                               "No redouble", "No double"): float(v)
                               for a, v in _CUBE_EQ.findall(body)}}
        rolled = _ROLLED.search(body)
        if rolled:
            rec["dice"] = (int(rolled.group(1)), int(rolled.group(2)))
            rec["luck"] = float(rolled.group(3))
            rest = body[rolled.end():]
            rec["cannot_move"] = rest.lstrip().startswith("*    Cannot move") or \
                "Cannot move" in rest.split("\n\n")[0]
            rec["plays"] = [{"played": bool(a), "rank": int(r[:-1]) if r != "??" else 0,
                             "play": p.strip(),
                             "equity": float(e), "loss": -float(d) if d else 0.0}
                            for a, r, p, e, d in _MOVE_LINE.findall(rest)]
        out.append(rec)
    return out


_STAT = re.compile(r"^(Unforced moves|Close or actual cube decisions|Total cube decisions|"
                   r"Error total EMG \(MWC\)|Error rate mEMG \(MWC\)|Error total EMG \(EMG\)|"
                   r"Error rate mEMG \(EMG\)|Error total \S+|Error rate \S+|Luck total \S+)"
                   r"\s+(.*)$", re.MULTILINE)
_NUM = re.compile(r"[-+]?\d+\.\d+|[-+]?\d+")


def read_statistics(text: str) -> dict:
    """gnubg's match statistics (``show statistics match``): per player (two lists) the
    unforced moves, close or actual cube decisions, and the checker, cube and overall
    error totals (EMG) and rates (mEMG, as positive numbers)."""
    start = text.find("Chequerplay statistics")
    if start < 0:
        raise GnubgError("gnubg printed no match statistics")
    text = text[start:]
    sections = {"checker": text.find("Chequerplay statistics"),
                "luck": text.find("Luck statistics"),
                "cube": text.find("Cube statistics"),
                "overall": text.find("Overall statistics")}
    out = {}
    for name, at in sections.items():
        ends = sorted(v for v in sections.values() if v > at) + [len(text)]
        part = text[at:ends[0]]
        for m in _STAT.finditer(part):
            label, rest = m.group(1), m.group(2)
            nums = _NUM.findall(rest)
            if label.startswith(("Error total", "Error rate", "Luck total")):
                # two players, each "value (percent%)"
                values = [float(x) for x in re.findall(r"([-+]?\d+\.\d+)\s+\(", rest)]
                key = ("total" if "total" in label else "rate")
                if label.startswith("Luck"):
                    key = "luck"
                out[f"{name}_{key}"] = [abs(v) if key != "luck" else v for v in values[:2]]
            else:
                out[label] = [int(float(x)) for x in nums[:2]]
    return out


def gnubg_review(path: Path, folder: Path, gnubg: str | None = None) -> tuple[list, dict]:
    """gnubg's analysis of a .mat file: ([records of each game], statistics)."""
    base = folder / (path.stem + "_gnubg.txt")
    script = SETTINGS + [f"import mat {path}", "analyse match", "show statistics match",
                         f"export match text {base}"]
    home = folder / "home"
    home.mkdir(parents=True, exist_ok=True)
    output = run_gnubg(script, gnubg, home=home)
    stats = read_statistics(output)
    files = [base] + sorted(folder.glob(base.stem + "_[0-9][0-9][0-9].txt"))
    games = [read_export(f.read_text(errors="replace")) for f in files if f.exists()]
    return games, stats


# ------------------------------------------------------------------------- comparing

def _board(posid: str) -> np.ndarray:
    return posid_format.decode(posid)


def _row(board, dice, text) -> int | None:
    try:
        plays = legal_plays(board[None], np.array([dice]), "standard")
        return parse_play(text, board, dice[0], dice[1], plays)
    except ValueError:
        return None


def _verdict_ours(d: dict) -> tuple[bool, bool]:
    best = d["best"]
    return best.startswith("double"), not best.endswith("pass")


def compare_file(report: dict, gnubg_games: list[list[dict]], stats: dict) -> dict:
    """The agreement counts of one file."""
    c = {"checker": 0, "first_listed": 0, "same_best": 0, "near_best": 0, "loss_within": 0,
         "cube": 0, "cube_same": 0, "cube_close": 0, "cube_close_same": 0,
         "unmatched": 0, "luck": 0, "luck_within": 0, "worst": [], "cube_diff": []}
    for g, theirs in zip(report["games"], gnubg_games):
        ours_checker = [d for d in g["decisions"] if d["kind"] == "checker"]
        ours_cube = [d for d in g["decisions"] if d["kind"] in ("double", "take")]
        rolls = [r for r in theirs if r["kind"] == "roll" and "dice" in r]
        for d, r in zip(ours_checker, rolls):
            dice = tuple(sorted(d["dice"], reverse=True))
            if r["posid"] != d["posid"] or tuple(sorted(r["dice"], reverse=True)) != dice:
                c["unmatched"] += 1
                continue
            c["luck"] += 1
            c["luck_within"] += abs(d["luck"] - r["luck"]) <= LOSS
            if d["forced"] or not r["plays"]:
                continue
            board = np.array(d["board"])
            c["checker"] += 1
            best_theirs = _row(board, dice, r["plays"][0]["play"])
            best_ours = _row(board, dice, d["best"])
            first = best_theirs is not None and best_theirs == best_ours
            mine = next((p for p in r["plays"] if _row(board, dice, p["play"]) == best_ours),
                        None)
            gap = r["plays"][0]["equity"] - mine["equity"] if mine else None
            c["first_listed"] += first
            c["same_best"] += first or (gap is not None and gap <= TIE)
            c["near_best"] += first or (gap is not None and gap <= NEAR)
            played = next((p for p in r["plays"] if p["played"]), None)
            loss_theirs = played["loss"] if played else None
            if loss_theirs is not None:
                diff = abs(d["loss"] - loss_theirs)
                c["loss_within"] += diff <= LOSS
                c["worst"].append((diff, g["number"], d["move"], d["posid"], dice,
                                   d["action"], d["loss"], loss_theirs))
            else:
                c["unmatched"] += 1
        cube_theirs = [r for r in theirs if "cube" in r and r["kind"] in ("roll", "double",
                                                                          "take")]
        # gnubg analyses the cube of a roll record only where the mover had a decision
        by_pos = {}
        for r in cube_theirs:
            by_pos.setdefault((r["posid"], r["kind"] == "take"), []).append(r)
        for d in ours_cube:
            key = (d["posid"] if d["kind"] == "double" else _flip_id(d), d["kind"] == "take")
            found = by_pos.get(key)
            if not found:
                c["unmatched"] += 1
                continue
            r = found.pop(0)
            verdict = parse_action(r["cube"]["proper"])
            if verdict is None:
                c["unmatched"] += 1
                continue
            mine = _verdict_ours(d) if d["kind"] == "double" else (True, d["best"] != "pass")
            same = mine == verdict if d["kind"] == "double" else mine[1] == verdict[1]
            c["cube"] += 1
            c["cube_same"] += same
            if d.get("close", True):
                c["cube_close"] += 1
                c["cube_close_same"] += same
            if not same:
                c["cube_diff"].append((g["number"], d["move"], d["kind"], d["posid"],
                                       d["best"], r["cube"]["proper"]))
    c["worst"].sort(reverse=True)
    c["worst"] = c["worst"][:5]
    c["players"] = []
    for p, mine in enumerate(report["players"]):
        row = {"name": mine["name"]}
        for key, theirs in (("checker_error_rate", "checker_rate"),
                            ("cube_error_rate", "cube_rate"), ("error_rate", "overall_rate")):
            value = stats.get(theirs, [None, None])[p]
            row[key] = (mine[key], value)
        row["unforced"] = (mine["unforced"], stats.get("Unforced moves", [None, None])[p])
        row["cube_decisions"] = (mine["cube_decisions"],
                                 stats.get("Close or actual cube decisions", [None, None])[p])
        row["luck"] = (mine["luck"], stats.get("luck_luck", [None, None])[p])
        c["players"].append(row)
    return c


def _flip_id(d: dict) -> str:
    """The Position ID of a take decision as gnubg lists it: the doubler's position."""
    from gammon.engine.board import flip
    return posid_format.encode(flip(np.array(d["board"])))


def rates_agree(ours: float, theirs: float | None) -> bool | None:
    if theirs is None:
        return None
    return abs(ours - theirs) <= max(RATE * abs(theirs), RATE_FLOOR)


# ------------------------------------------------------------------------- playing

def play_files(folder: Path, games: int, matches: int, length: int, seed: int,
               bots: tuple[str, str], log) -> list[Path]:
    """Money games and matches played by our bots, saved as .mat files."""
    out = []
    if games:
        money = folder / "money.mat"
        _gammon(["match", *bots, "--games", str(games + games % 2), "--cube", "--seed",
                 str(seed), "--save", str(money), "--no-progress"], log)
        out.append(money)
    if matches:
        _gammon(["match", *bots, "--match-to", str(length), "--matches",
                 str(matches + matches % 2), "--seed", str(seed + 1), "--save",
                 str(folder / "match.mat"), "--no-progress"], log)
        out += sorted(folder.glob("match_*.mat"))[:matches]
    return out


def _gammon(argv: list[str], log) -> str:
    log("gammon " + " ".join(argv))
    run = subprocess.run([sys.executable, "-m", "gammon.cli", *argv], capture_output=True,
                         text=True, check=False)
    if run.returncode:
        raise UsageError(f"gammon {argv[0]} failed: {first_line(run.stderr)}")
    return run.stdout


def review_file(path: Path, log) -> dict:
    return json.loads(_gammon(["review", str(path), "--bot", "gnubg", "--met", "kazaross-xg2",
                               "--json", "--no-progress"], log))


# ------------------------------------------------------------------------- summary

def summarise(results: list[tuple[Path, dict]]) -> dict:
    total = {k: sum(r[k] for _, r in results) for k in
             ("checker", "first_listed", "same_best", "near_best", "loss_within", "cube",
              "cube_same",
              "cube_close", "cube_close_same", "unmatched", "luck", "luck_within")}

    def share(a, b):
        return total[a] / total[b] if total[b] else None
    players = []
    agree = {"checker_error_rate": [0, 0], "cube_error_rate": [0, 0], "error_rate": [0, 0]}
    for path, r in results:
        for row in r["players"]:
            players.append({"file": path.name, **row})
            for key in agree:
                ok = rates_agree(*row[key])
                if ok is not None:
                    agree[key][0] += ok
                    agree[key][1] += 1
    return {"counts": total,
            "same_best": share("same_best", "checker"),
            "first_listed": share("first_listed", "checker"),
            "within_0.0005": share("near_best", "checker"),
            "loss_within_0.01": share("loss_within", "checker"),
            "cube_same_verdict": share("cube_same", "cube"),
            "cube_close_same_verdict": share("cube_close_same", "cube_close"),
            "luck_within_0.01": share("luck_within", "luck"),
            "error_rates_within_10%": {k: (v[0], v[1]) for k, v in agree.items()},
            "players": players,
            "worst_losses": sorted((w for _, r in results for w in r["worst"]),
                                   reverse=True)[:8],
            "cube_differences": [d for _, r in results for d in r["cube_diff"]][:12]}


def print_summary(s: dict) -> None:
    c = s["counts"]

    def pct(x):
        return "n/a" if x is None else f"{100 * x:.1f}%"
    print(f"checker decisions (unforced, both analyses): {c['checker']}")
    print(f"  same best play:                 {pct(s['same_best'])}  (target >= 97%; gnubg's "
          f"first-listed play {pct(s['first_listed'])}, within {NEAR} of its best "
          f"{pct(s['within_0.0005'])})")
    print(f"  loss within {LOSS}:               {pct(s['loss_within_0.01'])}  (target >= 95%)")
    print(f"  luck within {LOSS} ({c['luck']} rolls): {pct(s['luck_within_0.01'])}")
    print(f"cube decisions (both analysed): {c['cube']}, close or actual {c['cube_close']}")
    print(f"  same verdict:                   {pct(s['cube_same_verdict'])}  (close or "
          f"actual: {pct(s['cube_close_same_verdict'])}; target >= 95%)")
    print(f"unmatched records: {c['unmatched']}")
    print("error rates (mEMG, ours / gnubg's), per player and file:")
    for p in s["players"]:
        cells = []
        for key, label in (("checker_error_rate", "checker"), ("cube_error_rate", "cube"),
                           ("error_rate", "overall")):
            ours, theirs = p[key]
            mark = {True: "", False: " !", None: " ?"}[rates_agree(ours, theirs)]
            cells.append(f"{label} {ours:.1f}/{'-' if theirs is None else f'{theirs:.1f}'}"
                         f"{mark}")
        u, q, luck = p["unforced"], p["cube_decisions"], p["luck"]
        theirs = "-" if luck[1] is None else f"{luck[1]:+.3f}"
        print(f"  {p['file']:<16} {p['name']:<10} " + "  ".join(cells)
              + f"  unforced {u[0]}/{u[1]}  cube {q[0]}/{q[1]}  luck {luck[0]:+.3f}/"
                f"{theirs}")
    for key, (ok, n) in s["error_rates_within_10%"].items():
        print(f"  {key} within 10% (or {RATE_FLOOR} mEMG): {ok}/{n}")
    if s["worst_losses"]:
        print("largest loss differences (diff, game, move, posid, roll, play, ours, gnubg's):")
        for w in s["worst_losses"]:
            print(f"  {w[0]:.3f}  game {w[1]} move {w[2]} {w[3]} {w[4][0]}{w[4][1]} "
                  f"{w[5]}: {w[6]:.3f} / {w[7]:.3f}")
    if s["cube_differences"]:
        print("cube verdicts that differ (game, move, kind, posid, ours, gnubg's):")
        for d in s["cube_differences"]:
            print(f"  game {d[0]} move {d[1]} {d[2]} {d[3]}: {d[4]} / {d[5]}")


def main(argv=None) -> int:
    p = OneLineParser(prog="python -m gammon.eval.gnubg.review_check",
                      description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=20, help="money games to play (default 20)")
    p.add_argument("--matches", type=int, default=5, help="matches to play (default 5)")
    p.add_argument("--length", type=int, default=5, help="match length (default 5)")
    p.add_argument("--seed", type=int, default=1, help="seed of the games (default 1)")
    p.add_argument("--bots", nargs=2, default=("net:", "pubeval"), metavar=("A", "B"),
                   help="the bots that play (default: net: pubeval)")
    p.add_argument("--files", nargs="*", default=None, help="review these .mat files instead")
    p.add_argument("--keep", default=None, help="keep the files in this folder")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    try:
        args = p.parse_args(argv)
        if find_gnubg() is None:
            raise UsageError("GNU Backgammon's gnubg program is not installed")

        def log(msg):
            print(msg, file=sys.stderr)
        with tempfile.TemporaryDirectory(prefix="review-check-") as tmp:
            folder = Path(args.keep or tmp)
            folder.mkdir(parents=True, exist_ok=True)
            files = ([Path(f).resolve() for f in args.files] if args.files else
                     play_files(folder, args.games, args.matches, args.length, args.seed,
                                tuple(args.bots), log))
            results = []
            for path in files:
                report = review_file(path, log)
                sub = folder / f"gnubg_{path.stem}"
                sub.mkdir(exist_ok=True)
                games, stats = gnubg_review(path, sub)
                results.append((path, compare_file(report, games, stats)))
            summary = summarise(results)
    except (UsageError, GnubgError) as e:
        print(f"review_check: error: {first_line(e)}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary, default=str))
    else:
        print_summary(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
