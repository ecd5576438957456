"""Money cube decisions checked against GNU Backgammon 1.07 at 2-ply.

    python -m gammon.eval.gnubg.cube_check                     # net: (the shipped net)
    python -m gammon.eval.gnubg.cube_check --bot gnubg --margin 0.1 --json   # gnubg-nn 0-ply
    python -m gammon.eval.gnubg.cube_check --generate --seed 1 --positions 600   # needs gnubg

The data (``eval/gnubg/data/gnubg_cube.jsonl``, committed) is a set of money positions before
the roll, centred cube, the player on roll free to double, each with what the program GNU
Backgammon 1.07 (Debian's ``gnubg``, run as ``gnubg -t -q`` with commands on stdin; only
ever as an outside program) says of it at 2-ply: its three cubeful equities per current
cube (no double, double/take, double/pass = +1), its proper cube action in words, and its
2-ply cubeless probabilities. gnubg runs with the Jacoby rule off, no beavers, cube
decisions at 2-ply, cubeful, noiseless, with its pruning nets on (its defaults; the
settings are set explicitly, see ``GNUBG_SETTINGS``, and stored in the file).

Two decisions per position are judged, each only where gnubg's numbers make it clear-cut:

    doubler: double when what the taker leaves him, min(DT, DP), beats no double (ND);
             clear-cut when |min(DT, DP) - ND| >= margin ("too good" counts as no double)
    taker:   take when DT <= DP (a hypothetical double where gnubg would not double);
             clear-cut when |DT - DP| >= margin

The bot decides through ``eval.analysis.cube.analyze_cube``, the function ``gammon cube`` uses
(its probabilities at 0-ply, Janowski's heads, efficiency 0.68, Jacoby and beavers off,
as ``gammon cube``'s defaults), all positions in one batch. Reported: agreement on the
doubler's and on the taker's clear-cut decisions, and on both together, with the counts,
split by gnubg's proper action, and the worst disagreements (by gnubg's equity margin).
A reference row, ``heads(gnubg)``, puts gnubg's own 2-ply cubeless probabilities through
the same cube heads: where it disagrees with gnubg the cube model is at fault, not the
network's estimates.

The positions come from games of gnubg-nn's 0-ply player against pubeval (our engine's
game loop and dice, fixed seed; the PyPI package gnubg-nn plays and pre-sorts). Every
distinct position before a roll (both players in play) is a candidate. 70% of the sample
is drawn from those whose gnubg-nn 0-ply cubeless equity for the player on roll lies in
``WINDOW`` (+0.2..+1.2, where doubles, takes and passes are decided), 15% from those below
it (clear no doubles) and 15% from those above (mostly cashes), so that every kind of
decision occurs (``SHARES``). Stored shuffled.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gammon.engine.files import WriteError, write_atomic
from gammon.eval.gnubg.cli import OneLineParser, UsageError, first_line, probability_bot
from gammon.eval.gnubg.driver import (
    GnubgError,
    evaluate_in_chunks,
    find_gnubg,
    gnubg_version,
    parse_action,
    parse_cube_analysis,
    split_evaluations,
)

DATA_PATH = Path(__file__).resolve().parent / "data" / "gnubg_cube.jsonl"
FORMAT = 1  # version of the data file's layout
PLIES = 2  # gnubg's look-ahead for the cube decisions
DEFAULT_POSITIONS = 600  # positions --generate draws unless told otherwise
DEFAULT_SEED = 1
DEFAULT_MARGIN = 0.05  # equity per cube: a decision closer than this is not judged
DEFAULT_BOTS = ("net:",)
WINDOW = (0.2, 1.2)  # gnubg-nn 0-ply cubeless equity where the cube is decided
SHARES = (0.15, 0.7, 0.15)  # of the positions: below the window, in it, above it
GAMES = 300  # games of gnubg-nn against pubeval whose positions are the candidates
CHUNK = 100  # positions per gnubg process
WORST = 10  # disagreements listed
REFERENCE = "heads(gnubg)"  # the reference row: our cube heads on gnubg's probabilities
GENERATE_COMMAND = "python -m gammon.eval.gnubg.cube_check --generate --seed {seed} --positions {n}"
GNUBG_SETTINGS = (
    "set sound enable off",
    "set player 0 human",  # nobody moves or rolls by itself
    "set player 1 human",
    "set automatic roll off",
    "set jacoby off",
    "set beavers 0",
    f"set evaluation cubedecision evaluation plies {PLIES}",
    "set evaluation cubedecision evaluation cubeful on",
    "set evaluation cubedecision evaluation prune on",
    "set evaluation cubedecision evaluation noise 0",
    "set evaluation cubedecision evaluation deterministic on",
    f"set evaluation chequerplay evaluation plies {PLIES}",
    "new session",
    # money (length 0), cube 1 centred, the player on turn on roll, no dice thrown
    "set matchid cAkAAAAAAAAA",
)


class CubeDataError(ValueError):
    """The data file is missing, unreadable or damaged (the message says which and how
    to make a new one)."""


# ---------------------------------------------------------------------------- the data

@dataclass
class CubeData:
    """N positions and gnubg's 2-ply view of each.

    posids:        N Position IDs, the player on roll's view
    equities:      (N, 3) float64  gnubg's cubeful ND, DT, DP per current cube
    probabilities: (N, 5) float64  gnubg's 2-ply cubeless win, wg, wbg, lg, lbg
    actions:       N proper cube actions as gnubg words them ("No double, take", ...)
    evaluators:    N gnubg evaluator names ("Contact", "Race", ...)
    meta:          how the file was made (seed, games, seconds, settings, gnubg version)
    """

    posids: list[str]
    equities: np.ndarray
    probabilities: np.ndarray
    actions: list[str]
    evaluators: list[str]
    meta: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.posids)


def record_of(entry: dict) -> dict:
    """One position of the data as a line of the file (rounded as gnubg prints)."""
    return {"posid": entry["posid"], "no_double": entry["no_double"],
            "double_take": entry["double_take"], "double_pass": entry["double_pass"],
            "action": entry["action"], "probabilities": entry["probabilities"],
            "evaluator": entry["evaluator"]}


def save(data: CubeData, path: Path) -> None:
    """Write the data as JSON lines: the meta first, then one position a line."""
    lines = [json.dumps({"meta": data.meta})]
    for i in range(len(data)):
        nd, dt, dp = (round(float(x), 3) for x in data.equities[i])
        lines.append(json.dumps(record_of({
            "posid": data.posids[i], "no_double": nd, "double_take": dt, "double_pass": dp,
            "action": data.actions[i], "evaluator": data.evaluators[i],
            "probabilities": [round(float(p), 3) for p in data.probabilities[i]]})))
    write_atomic(path, "\n".join(lines) + "\n", parents=True)


def missing_message(path: Path) -> str:
    """What to do when the data file is not there."""
    command = GENERATE_COMMAND.format(seed=DEFAULT_SEED, n=DEFAULT_POSITIONS)
    return (f"{path}: no cube data; make it with: {command} --data {path} "
            f"(needs GNU Backgammon's gnubg program and gnubg-nn; a few minutes)")


def load(path: Path | str = DATA_PATH) -> CubeData:
    """The cube data of ``path``, checked; CubeDataError when it is missing, unreadable
    or damaged."""
    path = Path(path)
    meta, rows = read_lines(path, "cube data", FORMAT, missing_message(path))
    data = _from_rows(rows, meta, path)
    check(data, path)
    return data


def read_lines(path: Path, what: str, fmt: int, missing: str) -> tuple[dict, list[dict]]:
    """The meta line and the rows of a JSON-lines data file of ``what`` (its first line
    {"meta": {..., "format": fmt}}); CubeDataError (``missing`` when there is no file)
    when it is missing, unreadable, of another format or has no meta line first."""
    if not path.is_file():
        raise CubeDataError(missing)
    try:
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise CubeDataError(f"{path}: not readable {what} "
                            f"({type(e).__name__}: {first_line(e)})") from None
    if not rows or not isinstance(rows[0], dict) or not isinstance(rows[0].get("meta"), dict):
        raise CubeDataError(f"{path}: damaged {what}: no meta line first")
    meta = rows[0]["meta"]
    if meta.get("format") != fmt:
        raise CubeDataError(f"{path}: {what} of another format (this code reads "
                            f"format {fmt})")
    return meta, rows[1:]


def _from_rows(rows: list, meta: dict, path: Path) -> CubeData:
    """CubeData of the file's position lines; CubeDataError for a line of the wrong shape."""
    try:
        posids = [str(r["posid"]) for r in rows]
        equities = np.array([[r["no_double"], r["double_take"], r["double_pass"]]
                             for r in rows], dtype=np.float64).reshape(-1, 3)
        probabilities = np.array([r["probabilities"] for r in rows],
                                 dtype=np.float64).reshape(-1, 5)
        actions = [str(r["action"]) for r in rows]
        evaluators = [str(r["evaluator"]) for r in rows]
    except (KeyError, TypeError, ValueError) as e:
        raise CubeDataError(f"{path}: damaged cube data: a position line without "
                            f"{first_line(e) or 'its fields'}") from None
    return CubeData(posids, equities, probabilities, actions, evaluators, meta)


def check(data: CubeData, path: Path | str = "data") -> None:
    """CubeDataError naming the first thing wrong with the data's values."""
    eq, p = data.equities, data.probabilities
    problems = [
        (len(data) == 0, "no positions"),
        (len(set(data.posids)) != len(data), "a position twice"),
        (not np.isfinite(eq).all() or (np.abs(eq) > 6).any(),  # DT is per the doubled cube
         "a cubeful equity that is not a number in -6..6"),
        ((eq[:, 2] != 1).any(), "a double/pass equity other than +1"),
        (not np.isfinite(p).all() or (p < 0).any() or (p > 1).any(),
         "a probability outside 0..1"),
        (any(parse_action(a) is None for a in data.actions), "an unknown cube action"),
    ]
    first_problem(problems, data.posids, path, "cube data")


def first_problem(problems: list[tuple[bool, str]], posids: list[str], path, what: str) -> None:
    """CubeDataError for the first of ``problems`` (bad, why) that is bad, else for the
    first Position ID that does not decode: '{path}: damaged {what}: why'."""
    from gammon.engine.formats.posid import decode
    for bad, why in problems:
        if bad:
            raise CubeDataError(f"{path}: damaged {what}: {why}")
    for posid in posids:
        try:
            decode(posid)
        except ValueError as e:
            raise CubeDataError(f"{path}: damaged {what}: {first_line(e)}") from None


# ------------------------------------------------------------- gnubg's words and numbers

def parse_evaluation(text: str) -> dict:
    """The cube analysis of one ``eval`` piece (``driver.parse_cube_analysis``): posid,
    evaluator, plies, cubeless equity, probabilities (5), no_double, double_take,
    double_pass, action (words), and the percentage gnubg prints after it (or None).
    GnubgError when a part is missing."""
    e = parse_cube_analysis(text)
    keys = ("posid", "plies", "cubeless_equity", "evaluator", "action", "action_percent",
            "probabilities", "no_double", "double_take", "double_pass")
    return {k: e["cubeless"] if k == "cubeless_equity" else e[k] for k in keys}


def parse_output(output: str, posids: list[str]) -> tuple[list[dict], list[str]]:
    """The evaluations of ``posids`` in gnubg's output of one script, in order, and notes
    on positions gnubg did not evaluate (an illegal position makes gnubg repeat the
    previous one, so each piece must name the position asked for)."""
    pieces = split_evaluations(output)
    if len(pieces) != len(posids):
        raise GnubgError(f"asked gnubg about {len(posids)} positions, read "
                         f"{len(pieces)} evaluations")
    found, notes = [], []
    for posid, piece in zip(posids, pieces):
        try:
            e = parse_evaluation(piece)
        except GnubgError as err:
            notes.append(f"{posid}: {err}")
            continue
        if e["posid"] != posid:
            notes.append(f"{posid}: gnubg evaluated {e['posid']} instead")
        elif e["plies"] != PLIES:
            notes.append(f"{posid}: gnubg evaluated at {e['plies']}-ply, not {PLIES}")
        else:
            found.append(e)
    return found, notes


# --------------------------------------------------------------------- running gnubg

def gnubg_script(posids: list[str]) -> str:
    """The commands that make gnubg evaluate each position, player on roll, cube centred."""
    lines = list(GNUBG_SETTINGS)
    for posid in posids:
        lines += [f"set board {posid}", "eval"]
    return "\n".join(lines) + "\n"


def evaluate_with_gnubg(posids: list[str], gnubg: str | None = None, chunk: int = CHUNK,
                        log=None) -> tuple[list[dict], list[str]]:
    """gnubg's 2-ply cube analysis of each position (``chunk`` per gnubg process), and
    notes on positions left out."""
    return evaluate_in_chunks(posids, gnubg_script, parse_output, gnubg, chunk, log,
                              "positions")


# ------------------------------------------------------------------------ the decisions

@dataclass
class Decisions:
    """Both decisions of N positions, each (N,) bool: the doubler doubles, the taker takes."""

    double: np.ndarray
    take: np.ndarray


def gnubg_decisions(equities: np.ndarray) -> tuple[Decisions, np.ndarray, np.ndarray]:
    """gnubg's decisions from its equities (N, 3) of ND, DT, DP, and how clear each is:
    (decisions, doubler margin (N,), taker margin (N,)), margins in equity per cube."""
    nd, dt, dp = equities[:, 0], equities[:, 1], equities[:, 2]
    after = np.minimum(dt, dp)  # the taker's best answer, for the doubler
    return (Decisions(after > nd, dt <= dp),
            np.abs(after - nd), np.abs(dt - dp))


def clear_cut(margins: np.ndarray, margin: float) -> np.ndarray:
    """(N,) bool: decisions at least ``margin`` from the boundary (margins are gnubg's
    three-decimal numbers, so a hair of slack keeps 0.05 = 0.050)."""
    return margins >= margin - 1e-9


def bot_analysis(name: str, posids: list[str], seed: int | None = None) -> list[dict]:
    """``gammon cube``'s analysis of each position by the bot ``name`` (its defaults:
    efficiency 0.68, no Jacoby, no beavers): ``eval.analysis.cube.analyze_cube``'s dicts.
    UsageError for a bot that is unknown or has no probabilities."""
    from gammon.engine.formats.posid import decode
    from gammon.eval.analysis.cube import analyze_cube
    from gammon.model.cube import EFFICIENCY
    bot, evaluate = probability_bot(name, seed)
    boards = np.stack([decode(p) for p in posids])  # (N, 26) int8
    return analyze_cube(evaluate, boards, EFFICIENCY, False, False,
                        plies=getattr(bot, "plies", 0))


def bot_decisions(analysis: list[dict]) -> Decisions:
    """The bot's decisions from its analysis: it doubles only for 'double' (too good and
    no double both play on), and takes unless it passes (a beaver is a take)."""
    return Decisions(np.array([a["action"] == "double" for a in analysis], dtype=bool),
                     np.array([a["response"] != "pass" for a in analysis], dtype=bool))


def agreement(same: np.ndarray, judged: np.ndarray) -> dict:
    """Counts and share of agreement among the judged decisions (share None if none)."""
    n, agree = int(judged.sum()), int((same & judged).sum())
    return {"decisions": n, "agree": agree, "fraction": agree / n if n else None}


def reference_analysis(data: CubeData) -> list[dict]:
    """Our cube heads (``analyze_cube``, ``gammon cube``'s defaults) on gnubg's own 2-ply
    cubeless probabilities: what the cube model alone makes of gnubg's estimates."""
    from gammon.engine.formats.posid import decode
    from gammon.eval.analysis.cube import analyze_cube
    from gammon.model.cube import EFFICIENCY
    boards = np.stack([decode(p) for p in data.posids])  # (N, 26) int8
    return analyze_cube(lambda _: data.probabilities, boards, EFFICIENCY, False, False)


def score(name: str, data: CubeData, margin: float = DEFAULT_MARGIN,
          seed: int | None = None, worst: int = WORST) -> dict:
    """One bot's row: agreement with gnubg on the clear-cut doubler and taker decisions,
    both together, and its worst disagreements."""
    start = time.perf_counter()
    analysis = bot_analysis(name, data.posids, seed)
    return score_analysis(name, analysis, data, margin, worst,
                          seconds=time.perf_counter() - start)


def score_analysis(name: str, analysis: list[dict], data: CubeData,
                   margin: float = DEFAULT_MARGIN, worst: int = WORST,
                   seconds: float = 0.0) -> dict:
    """The row of an analysis of the data's positions (``analyze_cube``'s dicts)."""
    ours = bot_decisions(analysis)
    theirs, double_margin, take_margin = gnubg_decisions(data.equities)
    judged_d, judged_t = clear_cut(double_margin, margin), clear_cut(take_margin, margin)
    same_d, same_t = ours.double == theirs.double, ours.take == theirs.take
    both = agreement(np.concatenate([same_d, same_t]), np.concatenate([judged_d, judged_t]))
    return {"bot": name, "margin": margin, "positions": len(data),
            "doubler": agreement(same_d, judged_d), "taker": agreement(same_t, judged_t),
            "combined": both,
            "by_gnubg_action": by_action(data, ours, theirs, judged_d, judged_t),
            "worst": disagreements(data, analysis, ours, theirs,
                                   (double_margin, take_margin), (judged_d, judged_t))[:worst],
            "seconds": round(seconds, 2)}


def by_action(data: CubeData, ours: Decisions, theirs: Decisions, judged_d: np.ndarray,
              judged_t: np.ndarray) -> dict:
    """Agreement split by gnubg's proper action (its words without the percentage):
    {action: {positions, doubler: agreement, taker: agreement}}."""
    out = {}
    actions = np.array([a.split("(")[0].strip() for a in data.actions])
    for action in sorted(set(actions)):
        rows = actions == action
        out[action] = {"positions": int(rows.sum()),
                       "doubler": agreement(ours.double == theirs.double, judged_d & rows),
                       "taker": agreement(ours.take == theirs.take, judged_t & rows)}
    return out


def disagreements(data: CubeData, analysis: list[dict], ours: Decisions, theirs: Decisions,
                  margins: tuple[np.ndarray, np.ndarray],
                  judged: tuple[np.ndarray, np.ndarray]) -> list[dict]:
    """Every clear-cut decision where the bot differs from gnubg, the largest gnubg
    margin (the equity the bot's choice costs by gnubg's numbers) first."""
    out = []
    words = {"doubler": ("no double", "double"), "taker": ("pass", "take")}
    for kind, mine, gnubg, margin, judge in (
            ("doubler", ours.double, theirs.double, margins[0], judged[0]),
            ("taker", ours.take, theirs.take, margins[1], judged[1])):
        for i in np.flatnonzero(judge & (mine != gnubg)):
            a = analysis[i]
            out.append({"posid": data.posids[i], "decision": kind,
                        "gnubg": words[kind][int(gnubg[i])], "ours": words[kind][int(mine[i])],
                        "margin": round(float(margin[i]), 3),
                        "gnubg_action": data.actions[i],
                        "gnubg_equities": [round(float(x), 3) for x in data.equities[i]],
                        "our_equities": [round(a["cubeful"][k], 3) for k in
                                         ("no_double", "double_take", "double_pass")],
                        "gnubg_win": round(float(data.probabilities[i, 0]), 3),
                        "our_win": round(a["probabilities"][_win_key(a)], 3),
                        "our_decision": a["decision"]})
    return sorted(out, key=lambda d: -d["margin"])


def _win_key(a: dict) -> str:
    """The key of P(win) in analyze_cube's probabilities (its first)."""
    return next(iter(a["probabilities"]))


# ------------------------------------------------------------------------------ report

def _share(a: dict) -> str:
    """An agreement as '97.3% (365/375)', or '-' with nothing judged."""
    if not a["decisions"]:
        return "-"
    return f"{100 * a['fraction']:.1f}% ({a['agree']}/{a['decisions']})"


def format_table(rows: list[dict], data: CubeData, source: str) -> str:
    """The rows as text for people: agreement per bot, then each bot's worst cases."""
    margin = rows[0]["margin"] if rows else DEFAULT_MARGIN
    out = [(f"Money cube decisions against GNU Backgammon at {data.meta.get('plies')}-ply: "
            f"{len(data)} positions from {source}"),
           (f"clear-cut: gnubg's equities put the choice at least {margin:g} (per cube) from "
            f"the boundary; agreement on those only"),
           (f"{REFERENCE}: not a bot but our cube heads (as `gammon cube`) on gnubg's own "
            f"2-ply probabilities: what the cube model alone costs"),
           ""]
    table = [["bot", "doubler", "taker", "combined"]]
    table += [[r["bot"], _share(r["doubler"]), _share(r["taker"]), _share(r["combined"])]
              for r in rows]
    out += _aligned(table)
    for r in rows:
        out += ["", (f"Agreement for {r['bot']} by gnubg's proper action (positions; "
                     f"doubler, taker):")]
        out += _aligned([[f"  {action}", str(v["positions"]), _share(v["doubler"]),
                          _share(v["taker"])] for action, v in r["by_gnubg_action"].items()])
        if r["worst"]:
            out += ["", (f"Worst disagreements for {r['bot']} (largest gnubg margin first; "
                         f"equities ND DT DP per cube; P(win) gnubg/ours):")]
            out += _aligned([["  posid", "decision", "gnubg", "ours", "margin", "gnubg ND DT DP",
                              "ours ND DT DP", "win g/ours"]]
                            + [[f"  {w['posid']}", w["decision"], w["gnubg"], w["ours"],
                                f"{w['margin']:.3f}", _triple(w["gnubg_equities"]),
                                _triple(w["our_equities"]),
                                f"{w['gnubg_win']:.3f}/{w['our_win']:.3f}"]
                               for w in r["worst"]])
    return "\n".join(out)


def _triple(values: list[float]) -> str:
    """Three equities as '+0.123 -0.456 +1.000'."""
    return " ".join(f"{v:+.3f}" for v in values)


def _aligned(table: list[list[str]]) -> list[str]:
    """Rows of cells as lines, the first column left-aligned and the rest right-aligned."""
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                      for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in table]


def report_json(rows: list[dict], data: CubeData, source: str) -> str:
    """The rows as JSON for programs."""
    return json.dumps({"data": source, "positions": len(data), "plies": data.meta.get("plies"),
                       "generated": data.meta, "bots": rows}, indent=2)


# -------------------------------------------------------------------------- generation

def candidate_positions(games: int, seed: int) -> np.ndarray:
    """Every distinct position before a roll (player on roll's view) in ``games`` games of
    gnubg-nn's 0-ply player against pubeval, seeded, both in play: (M, 26) int8 in
    first-seen order."""
    from gammon.engine.board import on_board
    from gammon.engine.game import play

    from gammon.eval.bots.simple import PubevalBot
    from gammon.eval.bots.gnubg import GnubgBot
    seen = []
    play((GnubgBot(), PubevalBot()), games, np.random.default_rng(seed),
         on_position=lambda b, d: seen.append(b.copy()))
    boards = np.concatenate(seen)  # (M', 26)
    _, first = np.unique(boards, axis=0, return_index=True)
    boards = boards[np.sort(first)]
    mover, opponent = on_board(boards)
    return boards[(mover > 0) & (opponent > 0)]


def nn_equities(boards: np.ndarray) -> np.ndarray:
    """gnubg-nn's 0-ply cubeless equity of each position for the player on roll: (M,)."""
    from gammon.engine.outcomes import equity_of_five

    from gammon.eval.bots.cube import _gnubg_probabilities
    from gammon.eval.bots.gnubg import _import_gnubg_nn
    return equity_of_five(_gnubg_probabilities(_import_gnubg_nn())(boards))


def draw(rng: np.random.Generator, equity: np.ndarray, n: int,
         window: tuple[float, float] = WINDOW, shares: tuple = SHARES) -> np.ndarray:
    """Rows to keep, shares[i] of n from each band of equity: below the window, in it,
    above it (fewer from a band that has fewer), shuffled together: (n',) int64."""
    band = np.digitize(equity, [window[0], np.nextafter(window[1], np.inf)])  # 0, 1, 2
    want = np.floor(np.array(shares) * n).astype(np.int64)
    want[1] += n - want.sum()
    parts = [rng.choice(np.flatnonzero(band == i), size=min(int(w), int((band == i).sum())),
                        replace=False) for i, w in enumerate(want)]
    return rng.permutation(np.concatenate(parts))


def generate(n: int = DEFAULT_POSITIONS, seed: int = DEFAULT_SEED, games: int = GAMES,
             gnubg: str | None = None, log=None) -> tuple[CubeData, list[str]]:
    """Draw n positions (see the module doc) and have gnubg analyse each at 2-ply: the
    data and notes on positions gnubg left out."""
    from gammon.engine.formats.posid import encode
    program = gnubg or find_gnubg()
    version = gnubg_version(program)
    start = time.perf_counter()
    boards = candidate_positions(games, seed)
    equity = nn_equities(boards)
    pick = draw(np.random.default_rng(seed), equity, n)
    if log:
        band = np.digitize(equity, [WINDOW[0], np.nextafter(WINDOW[1], np.inf)])
        log(f"{games} games: {len(boards)} distinct positions, below/in/above the window "
            f"{np.bincount(band, minlength=3).tolist()}; drawing {len(pick)}")
    found, notes = evaluate_with_gnubg([encode(b) for b in boards[pick]], program, log=log)
    meta = {"format": FORMAT, "seed": seed, "positions": n, "kept": len(found),
            "plies": PLIES, "games": games, "candidates": len(boards),
            "window": list(WINDOW), "shares": list(SHARES), "gnubg": version,
            "gnubg_settings": list(GNUBG_SETTINGS),
            "seconds": round(time.perf_counter() - start, 1),
            "command": GENERATE_COMMAND.format(seed=seed, n=n)}
    data = CubeData([e["posid"] for e in found],
                    np.array([[e["no_double"], e["double_take"], e["double_pass"]]
                              for e in found], dtype=np.float64).reshape(-1, 3),
                    np.array([e["probabilities"] for e in found], dtype=np.float64).reshape(-1, 5),
                    [e["action"] for e in found], [e["evaluator"] for e in found], meta)
    return data, notes


# ------------------------------------------------------------------------ command line

def check_options(prog: str, description: str, unit: str, data_path: Path, data_name: str,
                  generate: str) -> argparse.ArgumentParser:
    """The options a gnubg cube check shares (this one and ``eval.gnubg.match_cube``):
    --bot, --margin (in ``unit``), --json, --data (``data_name`` at ``data_path`` by
    default), --generate (``generate`` says what it does)."""
    p = OneLineParser(prog=prog, description=description)
    p.add_argument("--bot", action="append", metavar="NAME",
                   help="a bot with probabilities (repeatable; default net:, the shipped "
                        "network; net:PATH, gnubg)")
    p.add_argument("--margin", metavar="E", default=None,
                   help=f"judge decisions at least E {unit} per cube from the boundary "
                        f"(default {DEFAULT_MARGIN})")
    p.add_argument("--json", action="store_true", help="write JSON instead of a table")
    p.add_argument("--data", metavar="PATH", default=str(data_path),
                   help=f"the {data_name} (default: the committed file)")
    p.add_argument("--generate", action="store_true", help=generate)
    return p


def parser() -> argparse.ArgumentParser:
    """The command line's options."""
    p = check_options("python -m gammon.eval.gnubg.cube_check",
                      "Money cube decisions (double / no double, take / pass) of a bot "
                      "against GNU Backgammon 1.07 at 2-ply, on the clear-cut ones.",
                      "equity", DATA_PATH, "cube data", "draw positions and have gnubg "
                      "analyse them into --data (needs gnubg and gnubg-nn)")
    p.add_argument("--positions", metavar="N", default=None,
                   help=f"with --generate, how many positions to draw "
                        f"(default {DEFAULT_POSITIONS})")
    p.add_argument("--seed", default=None,
                   help=f"with --generate, the games' seed (default {DEFAULT_SEED}); "
                        f"else the seed of bots that draw numbers")
    return p


def whole_number(text: str | None, option: str, low: int, high: int) -> int | None:
    """An option's value as an int in low..high (None stays None); UsageError otherwise."""
    if text is None:
        return None
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"{option} takes a whole number, got {text[:40]!r}") from None
    if not low <= value <= high:
        raise UsageError(f"{option} is from {low} to {high}, got {value}")
    return value


def margin_value(text: str | None) -> float:
    """--margin as a number in 0..2 (default DEFAULT_MARGIN); UsageError otherwise."""
    if text is None:
        return DEFAULT_MARGIN
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"--margin takes a number, got {text[:40]!r}") from None
    if not (math.isfinite(value) and 0 <= value <= 2):
        raise UsageError(f"--margin is an equity from 0 to 2, got {text[:40]!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    """Check the bots (or --generate the data); 0 on success, 2 on bad input."""
    try:
        args = parser().parse_args(argv)
        positions = whole_number(args.positions, "--positions", 1, 5000)
        seed = whole_number(args.seed, "--seed", 0, 2**32 - 1)
        margin = margin_value(args.margin)
        if args.generate:
            return _generate(args, positions, seed)
        if args.positions is not None:
            raise UsageError("--positions goes with --generate")
        return _check(args, margin, seed)
    except (UsageError, CubeDataError, GnubgError, WriteError) as e:
        print(f"gnubg_cube_check: error: {first_line(e)}", file=sys.stderr)
        return 2


def _generate(args, positions: int | None, seed: int | None) -> int:
    """--generate: draw the positions, have gnubg analyse them, save; say how long."""
    check_generate(args)
    try:
        import gnubg_nn  # noqa: F401  (plays the games and sorts the positions)
    except ImportError:
        raise UsageError("--generate needs the gnubg-nn package: "
                         "pip install 'gammon[gnubg]'") from None
    def log(message: str) -> None:
        print(message, file=sys.stderr)
    data, notes = generate(positions or DEFAULT_POSITIONS,
                           DEFAULT_SEED if seed is None else seed, log=log)
    for note in notes:
        log(f"gnubg_cube_check: left out {note}")
    save(data, Path(args.data))
    print(f"{args.data}: {len(data)} positions analysed by {data.meta['gnubg']} at "
          f"{data.meta['plies']}-ply in {data.meta['seconds']:.0f} s")
    return 0


def check_generate(args) -> None:
    """What --generate needs: no --bot, and the gnubg program (UsageError otherwise)."""
    if args.bot:
        raise UsageError("--generate makes the data; check bots in a separate run")
    if find_gnubg() is None:
        raise UsageError("--generate needs GNU Backgammon's gnubg program "
                         "(Debian: apt-get install gnubg)")


def _check(args, margin: float, seed: int | None) -> int:
    """Score the bots on the data and print the table (or JSON)."""
    data = load(args.data)
    rows = [score(name, data, margin, seed) for name in dict.fromkeys(args.bot or DEFAULT_BOTS)]
    rows.append(score_analysis(REFERENCE, reference_analysis(data), data, margin))
    print(report_json(rows, data, args.data) if args.json else format_table(rows, data, args.data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
