"""Match cube decisions (at the score) checked against GNU Backgammon 1.07 at 2-ply.

    python -m gammon.eval.gnubg.match_cube                          # net: (the shipped net)
    python -m gammon.eval.gnubg.match_cube --bot gnubg --json       # gnubg-nn 0-ply
    python -m gammon.eval.gnubg.match_cube --generate --seed 1      # needs gnubg (not gnubg-nn)

The data (``eval/gnubg/data/gnubg_match_cube.jsonl``, committed) is the money positions of
``eval/gnubg/data/gnubg_cube.jsonl`` (``eval.gnubg.cube_check``) placed at match scores: each
position gets one score (``plan_scores``: seeded; lengths 3, 5, 7, 9, 11), and GNU
Backgammon 1.07 (Debian's ``gnubg``, run as ``gnubg -t -q`` with commands on stdin, an
outside program only) says of it at 2-ply, with its default match equity table
(Kazaross XG2): the proper cube action in words, its three cubeful equities ND, DT, DP
twice, as EMG (equivalent money equity per current cube: DP = +1, gnubg's default
output) and as match winning chances (MWC, ``set output mwc on``), and its 2-ply
cubeless probabilities at that score. The settings are ``eval.gnubg.cube_check``'s
(cube decisions at 2-ply, cubeful, pruning, noiseless) and the match is set with a
Match ID written by ``engine.formats.matchid``: for each entry

    set matchid <ID: length, score, cube value and owner, player 1 on roll, no dice>
    set board <Position ID>
    eval
    set output mwc on
    eval
    set output mwc off

Kinds of score (``KINDS``, the player on roll a-away, his opponent b-away):

    centred     cube 1 in the middle, a, b >= 2 (an eighth set to 2-away/2-away)
    post        post-Crawford, the trailer on roll: a >= 2, b = 1, cube 1 in the middle
                (a third set to 2-away/1-away)
    owned       cube 2 held by the player on roll, a >= 3 (so that he may redouble), b >= 2

The Crawford game has no cube (gnubg prints no cube analysis there), and neither has a
position whose player on roll may not double (the opponent holds the cube, or the cube
already wins him the match, a dead cube: gnubg prints no cube analysis there either):
those are ``model.match_cube``'s unit tests, not this data. gnubg words a few actions
"Optional double, take" (or redouble): its ND and DT are equal there (e.g. a post-
Crawford trailer without gammon chances), so neither decision is judged.

The check judges two decisions per position where gnubg's EMG make them clear-cut
(``--margin``, 0.05 EMG per cube as in the money check): the doubler's (double when
min(DT, DP) > ND) and the taker's (take when DT <= DP). Rows:

    <bot>             the bot's 0-ply cubeless probabilities through ``model.match_cube``
                      (``match_decisions``) with our MET (``engine.met``, live cube,
                      gammon rate 0.26, ``met_from_gammon_rate``) and efficiency 0.68
    match(gnubg-2ply) reference: gnubg's own 2-ply probabilities through the same model,
                      what the cube model (and our MET) alone costs
    money(<bot>)      the bot's money decisions (``model.cube.decide``, the cube owner as at
                      the score), as if the scores did not matter
    money(gnubg-2ply) the same on gnubg's probabilities
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gammon.eval.gnubg import cube_check as gc
from gammon.engine.files import WriteError, write_atomic
from gammon.eval.gnubg.cli import UsageError, first_line, probability_bot
from gammon.eval.gnubg.cube_check import CubeDataError, _aligned, agreement, clear_cut, gnubg_decisions
from gammon.eval.gnubg.driver import (
    MATCHID_LINE,
    POSID_LINE,
    GnubgError,
    evaluate_in_chunks,
    find_gnubg,
    gnubg_version,
    parse_action,
    parse_cube_analysis,
    split_evaluations,
)

DATA_PATH = Path(__file__).resolve().parent / "data" / "gnubg_match_cube.jsonl"
FORMAT = 1
PLIES = gc.PLIES
DEFAULT_SEED = 1
DEFAULT_MARGIN = gc.DEFAULT_MARGIN  # EMG per cube
DEFAULT_BOTS = ("net:",)
LENGTHS = (3, 5, 7, 9, 11)
GAMMON_RATE = 0.26  # of our MET (engine.met, live cube)
KINDS = ("centred", "post", "owned")
SHARES = {"centred": 0.5, "post": 0.25, "owned": 0.25}
CHUNK = 100  # entries per gnubg process
WORST = 10
REFERENCE = "match(gnubg-2ply)"
GENERATE_COMMAND = "python -m gammon.eval.gnubg.match_cube --generate --seed {seed}"
# the money check's settings, less its money session; a match instead (any length: the
# Match ID of each entry sets its own)
GNUBG_SETTINGS = tuple(s for s in gc.GNUBG_SETTINGS
                       if not s.startswith(("new session", "set matchid"))) + ("new match 7",)


# ---------------------------------------------------------------------------- scores

@dataclass(frozen=True)
class Score:
    """A match score from the player on roll's side: he is ``away`` points from winning,
    his opponent ``opp_away``; ``owner`` 'centred' or 'mover'; never the Crawford game."""

    length: int
    away: int
    opp_away: int
    cube: int = 1
    owner: str = "centred"

    @property
    def kind(self) -> str:
        if self.owner == "mover":
            return "owned"
        return "post" if self.opp_away == 1 else "centred"

    @property
    def post_crawford(self) -> bool:
        return self.opp_away == 1 or self.away == 1

    def label(self) -> str:
        """'7pt 2a/2a', '5pt 4a/1a post', '9pt 5a/3a cube 2 (mover)'."""
        tail = {"centred": "", "post": " post", "owned": f" cube {self.cube} (mover)"}
        return f"{self.length}pt {self.away}a/{self.opp_away}a{tail[self.kind]}"

    def match_id(self) -> str:
        """gnubg's Match ID: player 1 on roll (gnubg's 'root', X), no dice, playing."""
        from gammon.engine.formats.matchid import CENTRED, MatchState, encode_match_id
        state = MatchState(cube_value=self.cube, cube_owner=1 if self.owner == "mover" else CENTRED,
                           on_roll=1, turn=1, crawford=False, length=self.length,
                           score=(self.length - self.opp_away, self.length - self.away))
        return encode_match_id(state)


def scores_of_kind(kind: str) -> list[Score]:
    """Every score of a kind over LENGTHS (see the module doc)."""
    out = []
    for n in LENGTHS:
        for a in range(2, n + 1):
            if kind == "centred":
                out += [Score(n, a, b) for b in range(2, n + 1)]
            elif kind == "post":
                out.append(Score(n, a, 1))
            elif a >= 3:
                out += [Score(n, a, b, 2, "mover") for b in range(2, n + 1)]
    return out


def plan_scores(count: int, seed: int) -> list[Score]:
    """``count`` scores, SHARES of each kind, shuffled. Each is drawn uniformly from its
    kind's scores (a length first, then a score at it), except that an eighth of the
    'centred' draws are set to 2a/2a and a third of the 'post' draws to 2a/1a outright
    (seed 1, 600: 42 at 2a/2a, 74 at 2a/1a)."""
    rng = np.random.default_rng(seed)
    want = {k: round(SHARES[k] * count) for k in KINDS}
    want["centred"] += count - sum(want.values())
    out = []
    for kind in KINDS:
        pool = scores_of_kind(kind)
        special = {"centred": (2, 2), "post": (2, 1)}.get(kind)
        share = {"centred": 1 / 8, "post": 1 / 3}.get(kind, 0.0)
        for _ in range(want[kind]):
            if special and rng.random() < share:
                n = int(rng.choice(LENGTHS))
                out.append(Score(n, *special))
                continue
            n = int(rng.choice(LENGTHS))
            here = [s for s in pool if s.length == n]
            out.append(here[int(rng.integers(len(here)))])
    return [out[i] for i in rng.permutation(len(out))]


# ---------------------------------------------------------------------------- the data

@dataclass
class MatchCubeData:
    """N positions at a score each and gnubg's 2-ply view of them.

    posids:        N Position IDs (the player on roll's view)
    scores:        N Score
    emg:           (N, 3) float64  gnubg's ND, DT, DP as EMG per current cube (DP = +1)
    mwc:           (N, 3) float64  the same as match winning chances (0..1)
    probabilities: (N, 5) float64  gnubg's 2-ply cubeless win, wg, wbg, lg, lbg at the score
    actions:       N proper cube actions in gnubg's words
    evaluators:    N gnubg evaluator names
    meta:          how the file was made
    """

    posids: list[str]
    scores: list[Score]
    emg: np.ndarray
    mwc: np.ndarray
    probabilities: np.ndarray
    actions: list[str]
    evaluators: list[str]
    meta: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.posids)


def record_of(e: dict, score: Score) -> dict:
    """One entry as a line of the file."""
    return {"posid": e["posid"], "matchid": e["matchid"], "length": score.length,
            "away": score.away, "opp_away": score.opp_away, "cube": score.cube,
            "owner": score.owner, "kind": score.kind, "action": e["action"],
            "emg": [round(float(x), 3) for x in e["emg"]],
            "mwc": [round(float(x), 4) for x in e["mwc"]],
            "probabilities": [round(float(p), 3) for p in e["probabilities"]],
            "money_equity": e.get("money_equity"), "evaluator": e["evaluator"]}


def save(records: list[dict], meta: dict, path: Path) -> None:
    """Write the data as JSON lines, the meta first, whole or not at all."""
    write_atomic(path, "\n".join(json.dumps(r) for r in [{"meta": meta}, *records]) + "\n",
                 parents=True)


def load(path: Path | str = DATA_PATH) -> MatchCubeData:
    """The data of ``path``, checked; CubeDataError when missing, unreadable or damaged."""
    path = Path(path)
    meta, rows = gc.read_lines(path, "match cube data", FORMAT,
                               f"{path}: no match cube data; make it with: "
                               f"{GENERATE_COMMAND.format(seed=DEFAULT_SEED)} --data {path} "
                               f"(needs GNU Backgammon's gnubg program)")
    try:
        data = MatchCubeData(
            [str(r["posid"]) for r in rows],
            [Score(int(r["length"]), int(r["away"]), int(r["opp_away"]), int(r["cube"]),
                   str(r["owner"])) for r in rows],
            np.array([r["emg"] for r in rows], dtype=np.float64).reshape(-1, 3),
            np.array([r["mwc"] for r in rows], dtype=np.float64).reshape(-1, 3),
            np.array([r["probabilities"] for r in rows], dtype=np.float64).reshape(-1, 5),
            [str(r["action"]) for r in rows], [str(r["evaluator"]) for r in rows], meta)
    except (KeyError, TypeError, ValueError) as e:
        raise CubeDataError(f"{path}: damaged match cube data: a line without "
                            f"{first_line(e) or 'its fields'}") from None
    check(data, path)
    return data


def check(data: MatchCubeData, path: Path | str = "data") -> None:
    """CubeDataError naming the first thing wrong with the data's values."""
    p = data.probabilities
    problems = [
        (len(data) == 0, "no positions"),
        # EMG is not bounded by 3 times the cube in a match (a small swing between
        # winning and losing one cube stretches it): the data holds up to 6.7
        (not np.isfinite(data.emg).all() or (np.abs(data.emg) > 50).any(),
         "an EMG that is not a number in -50..50"),
        ((np.abs(data.emg[:, 2] - 1) > 1e-9).any(), "a double/pass EMG other than +1"),
        (not np.isfinite(data.mwc).all() or (data.mwc < 0).any() or (data.mwc > 1).any(),
         "a match winning chance outside 0..1"),
        (not np.isfinite(p).all() or (p < 0).any() or (p > 1).any(),
         "a probability outside 0..1"),
        (any(parse_action(a) is None for a in data.actions), "an unknown cube action"),
        (any(s.owner not in ("centred", "mover") or not 1 <= s.opp_away <= s.length
             or not s.cube < s.away <= s.length for s in data.scores),
         "a score where the player on roll may not double"),
    ]
    gc.first_problem(problems, data.posids, path, "match cube data")


# ------------------------------------------------------------- gnubg's words and numbers

def parse_evaluation(text: str) -> dict:
    """One ``eval`` piece (from its 'Position ID:' line on): posid, matchid, evaluator,
    plies, unit ('emg' or 'mwc'), cubeless (the cubeless equity or MWC as a fraction),
    money_equity, probabilities (5), no_double, double_take, double_pass (MWC as
    fractions), action, action_percent. GnubgError when a part is missing; the message
    says 'no cube analysis' where gnubg printed none (the Crawford game, a dead cube)."""
    if not (POSID_LINE.search(text) and MATCHID_LINE.search(text)):
        raise GnubgError(f"gnubg's evaluation has no Position ID or Match ID: "
                         f"{first_line(text)!r}")
    return parse_cube_analysis(text)


def gnubg_script(entries: list[tuple[str, str]]) -> str:
    """The commands that make gnubg evaluate each (posid, matchid) twice: EMG, then MWC."""
    lines = list(GNUBG_SETTINGS)
    for posid, mid in entries:
        lines += [f"set matchid {mid}", f"set board {posid}", "eval", "set output mwc on",
                  "eval", "set output mwc off"]
    return "\n".join(lines) + "\n"


def parse_output(output: str, entries: list[tuple[str, str]]) -> tuple[list[dict], list[str]]:
    """gnubg's two evaluations of each (posid, matchid), merged: one dict per entry kept
    (emg and mwc: [ND, DT, DP] each), in order, and notes on the entries left out."""
    pieces = split_evaluations(output)
    if len(pieces) != 2 * len(entries):
        raise GnubgError(f"asked gnubg for {2 * len(entries)} evaluations, read {len(pieces)}")
    found, notes = [], []
    for k, (posid, mid) in enumerate(entries):
        try:
            emg, mwc = (parse_evaluation(p) for p in pieces[2 * k:2 * k + 2])
        except GnubgError as err:
            notes.append(f"{posid} {mid}: {err}")
            continue
        why = next((w for bad, w in (
            ((emg["posid"], mwc["posid"]) != (posid, posid), "another position"),
            ((emg["matchid"], mwc["matchid"]) != (mid, mid), "another Match ID"),
            ((emg["unit"], mwc["unit"]) != ("emg", "mwc"), "the wrong units"),
            ((emg["plies"], mwc["plies"]) != (PLIES, PLIES), f"not {PLIES}-ply"),
            (emg["action"] != mwc["action"], "two different actions"),
            (parse_action(emg["action"]) is None, f"unknown words {emg['action']!r}"))
            if bad), None)
        if why:
            notes.append(f"{posid} {mid}: gnubg answered with {why}")
            continue
        keys = ("no_double", "double_take", "double_pass")
        found.append({**emg, "emg": [emg[k] for k in keys], "mwc": [mwc[k] for k in keys],
                      "cubeless_mwc": mwc["cubeless"]})
    return found, notes


def evaluate_with_gnubg(entries: list[tuple[str, str]], gnubg: str | None = None,
                        chunk: int = CHUNK, log=None) -> tuple[list[dict], list[str]]:
    """gnubg's 2-ply cube analysis of each (posid, matchid), ``chunk`` per process."""
    return evaluate_in_chunks(entries, gnubg_script, parse_output, gnubg, chunk, log,
                              "entries")


def generate(seed: int = DEFAULT_SEED, source: Path | str = gc.DATA_PATH,
             gnubg: str | None = None, log=None) -> tuple[list[dict], dict, list[str]]:
    """Every position of the money data at a score of ``plan_scores``, analysed by gnubg:
    (records, meta, notes on entries left out)."""
    program = gnubg or find_gnubg()
    start = time.perf_counter()
    money = gc.load(source)
    scores = plan_scores(len(money), seed)
    entries = [(p, s.match_id()) for p, s in zip(money.posids, scores)]
    found, notes = evaluate_with_gnubg(entries, program, log=log)
    by_key = {(p, s.match_id()): s for p, s in zip(money.posids, scores)}
    records = [record_of(e, by_key[(e["posid"], e["matchid"])]) for e in found]
    kinds = {k: sum(r["kind"] == k for r in records) for k in KINDS}
    meta = {"format": FORMAT, "seed": seed, "source": Path(source).name,
            "entries": len(entries), "kept": len(records), "kinds": kinds,
            "plies": PLIES, "lengths": list(LENGTHS), "gnubg": gnubg_version(program),
            "gnubg_met": "gnubg's default (Kazaross XG2)",
            "units": {"emg": "equivalent money equity per current cube (DP = +1)",
                      "mwc": "match winning chance, 0..1"},
            "gnubg_settings": list(GNUBG_SETTINGS),
            "per_entry": ["set matchid ID", "set board POSID", "eval", "set output mwc on",
                          "eval", "set output mwc off"],
            "seconds": round(time.perf_counter() - start, 1),
            "command": GENERATE_COMMAND.format(seed=seed)}
    return records, meta, notes


# ------------------------------------------------------------------------ the decisions

@dataclass
class Decisions:
    """Both decisions of N positions, each (N,) bool, and the equities behind them
    (N, 3) ND, DT, DP (in the unit of ``unit``)."""

    double: np.ndarray
    take: np.ndarray
    equities: np.ndarray
    unit: str


def match_score(data: MatchCubeData):
    """model.match_cube's MatchScore of the data, fields (N,)."""
    from gammon.model.match_cube import CENTRED, MOVER, MatchScore
    s = data.scores
    return MatchScore(np.array([x.away for x in s]), np.array([x.opp_away for x in s]),
                      np.array([x.length for x in s]), False, np.array([x.cube for x in s]),
                      np.array([MOVER if x.owner == "mover" else CENTRED for x in s]))


def match_decisions(probs: np.ndarray, data: MatchCubeData, met=None,
                    efficiency: float | None = None) -> Decisions:
    """Our decisions at the data's scores from probabilities (N, 5|6): model.match_cube
    with ``met`` (default: engine.met's live-cube table, gammon rate 0.26) and Janowski's
    efficiency (0.68); the equities as EMG by our table (gnubg's unit)."""
    from gammon.model.cube import EFFICIENCY, decide_from
    from gammon.model.match_cube import DOUBLE, PASS, default_met, match_cube_equities, to_emg
    met = met or default_met(max(LENGTHS), GAMMON_RATE)
    x = EFFICIENCY if efficiency is None else efficiency
    score = match_score(data)
    eq = match_cube_equities(probs, score, met, x)
    d = decide_from(eq, beavers=False)  # every entry's player may double (the data's rule)
    emg = np.stack([to_emg(e, score, met) for e in (eq.no_double, eq.double_take,
                                                     eq.double_pass)], axis=1)
    return Decisions(d.action == DOUBLE, d.response != PASS, emg, "EMG")


def money_decisions(probs: np.ndarray, data: MatchCubeData,
                    efficiency: float | None = None) -> Decisions:
    """model.cube's money decisions on the same positions (the cube owner as at the
    score, Jacoby and beavers off), equities per cube."""
    from gammon.model.cube import DOUBLE, EFFICIENCY, PASS, cube_equities, decide
    x = EFFICIENCY if efficiency is None else efficiency
    owner = np.array([1 if s.owner == "mover" else 0 for s in data.scores])
    eq = cube_equities(probs, owner, x)
    d = decide(probs, owner, x, jacoby=False, beavers=False)
    return Decisions(d.action == DOUBLE, d.response != PASS,
                     np.stack([eq.no_double, eq.double_take, eq.double_pass], axis=1), "money")


def bot_probabilities(name: str, posids: list[str], seed: int | None = None) -> np.ndarray:
    """The bot's 0-ply cubeless probabilities of the positions: (N, 5). UsageError for
    a bot that is unknown or has none."""
    from gammon.engine.formats.posid import decode
    from gammon.engine.outcomes import to_five
    _, evaluate = probability_bot(name, seed)
    boards = np.stack([decode(p) for p in posids])  # (N, 26) int8
    return to_five(np.asarray(evaluate(boards), dtype=np.float64))


def groups(data: MatchCubeData) -> dict[str, np.ndarray]:
    """(N,) bool masks of the rows reported apart: each kind, 2a/2a, 2a/1a (post)."""
    kinds = np.array([s.kind for s in data.scores])
    pair = np.array([(s.away, s.opp_away) for s in data.scores]).reshape(-1, 2)
    out = {k: kinds == k for k in KINDS}
    out["2a/2a"] = (pair[:, 0] == 2) & (pair[:, 1] == 2) & (kinds == "centred")
    out["2a/1a post"] = (pair[:, 0] == 2) & (pair[:, 1] == 1)
    return out


def score_decisions(name: str, ours: Decisions, data: MatchCubeData,
                    margin: float = DEFAULT_MARGIN, worst: int = WORST,
                    probs: np.ndarray | None = None, seconds: float = 0.0) -> dict:
    """One row: agreement with gnubg on its clear-cut doubler and taker decisions (margins
    in EMG), both together, by kind of score, and the worst disagreements."""
    theirs, by_d, by_t = gnubg_decisions(data.emg)
    judged_d, judged_t = clear_cut(by_d, margin), clear_cut(by_t, margin)
    same_d, same_t = ours.double == theirs.double, ours.take == theirs.take

    def both(rows):
        return agreement(np.concatenate([same_d[rows], same_t[rows]]),
                         np.concatenate([judged_d[rows], judged_t[rows]]))
    every = np.ones(len(data), dtype=bool)
    split = {g: {"positions": int(rows.sum()), "doubler": agreement(same_d, judged_d & rows),
                 "taker": agreement(same_t, judged_t & rows), "combined": both(rows)}
             for g, rows in groups(data).items()}
    bad = []
    words = {"doubler": ("no double", "double"), "taker": ("pass", "take")}
    for kind, mine, gnubg, m, judge in (("doubler", ours.double, theirs.double, by_d, judged_d),
                                        ("taker", ours.take, theirs.take, by_t, judged_t)):
        for i in np.flatnonzero(judge & (mine != gnubg)):
            bad.append({"posid": data.posids[i], "score": data.scores[i].label(),
                        "decision": kind, "gnubg": words[kind][int(gnubg[i])],
                        "ours": words[kind][int(mine[i])], "margin": round(float(m[i]), 3),
                        "gnubg_action": data.actions[i],
                        "gnubg_emg": [round(float(x), 3) for x in data.emg[i]],
                        "our_equities": [round(float(x), 3) for x in ours.equities[i]],
                        "our_unit": ours.unit,
                        "gnubg_win": round(float(data.probabilities[i, 0]), 3),
                        "our_win": None if probs is None else round(float(probs[i, 0]), 3)})
    bad.sort(key=lambda d: -d["margin"])
    return {"bot": name, "margin": margin, "positions": len(data),
            "doubler": agreement(same_d, judged_d), "taker": agreement(same_t, judged_t),
            "combined": both(every), "by_score": split, "worst": bad[:worst],
            "seconds": round(seconds, 2)}


def rows_for(names: list[str], data: MatchCubeData, margin: float = DEFAULT_MARGIN,
             seed: int | None = None, worst: int = WORST) -> list[dict]:
    """Each bot's match row and money row, then the two reference rows on gnubg's
    2-ply probabilities (match model, money model)."""
    rows = []
    for name in names:
        start = time.perf_counter()
        probs = bot_probabilities(name, data.posids, seed)
        rows.append(score_decisions(name, match_decisions(probs, data), data, margin, worst,
                                    probs, time.perf_counter() - start))
        rows.append(score_decisions(f"money({name})", money_decisions(probs, data), data,
                                    margin, worst, probs))
    g = data.probabilities
    rows.append(score_decisions(REFERENCE, match_decisions(g, data), data, margin, worst, g))
    rows.append(score_decisions("money(gnubg-2ply)", money_decisions(g, data), data, margin,
                                worst, g))
    return rows


# ------------------------------------------------------------------------------ report

def format_table(rows: list[dict], data: MatchCubeData, source: str) -> str:
    """The rows as text: agreement per row, by kind of score, then the worst cases."""
    margin = rows[0]["margin"] if rows else DEFAULT_MARGIN
    out = [(f"Match cube decisions against GNU Backgammon at {data.meta.get('plies')}-ply: "
            f"{len(data)} positions at match scores from {source}"),
           (f"clear-cut: gnubg's equities put the choice at least {margin:g} EMG (per cube) "
            f"from the boundary; agreement on those only"),
           (f"our match model: model.match_cube, MET engine.met live cube gammon rate "
            f"{GAMMON_RATE:g}, efficiency 0.68; money(..): model.cube ignoring the score"),
           (f"{REFERENCE}: our match model on gnubg's own 2-ply probabilities "
            f"(what the cube model and our MET alone cost)"), ""]
    out += _aligned([["row", "doubler", "taker", "combined"]]
                    + [[r["bot"], gc._share(r["doubler"]), gc._share(r["taker"]),
                        gc._share(r["combined"])] for r in rows])
    out += ["", "Combined agreement by kind of score (positions):"]
    names = list(rows[0]["by_score"]) if rows else []
    out += _aligned([["row", *[f"{g} ({rows[0]['by_score'][g]['positions']})" for g in names]]]
                    + [[r["bot"], *[gc._share(r["by_score"][g]["combined"]) for g in names]]
                       for r in rows])
    for r in rows:
        if r["worst"] and not r["bot"].startswith("money("):
            out += ["", (f"Worst disagreements for {r['bot']} (largest gnubg margin first; "
                         f"ND DT DP: gnubg EMG, ours {r['worst'][0]['our_unit']}; "
                         f"P(win) gnubg/ours):")]
            out += _aligned([["  posid", "score", "decision", "gnubg", "ours", "margin",
                              "gnubg ND DT DP", "ours ND DT DP", "win g/ours"]]
                            + [[f"  {w['posid']}", w["score"], w["decision"], w["gnubg"],
                                w["ours"], f"{w['margin']:.3f}", gc._triple(w["gnubg_emg"]),
                                gc._triple(w["our_equities"]),
                                f"{w['gnubg_win']:.3f}/" + ("-" if w["our_win"] is None
                                                              else f"{w['our_win']:.3f}")]
                               for w in r["worst"]])
    return "\n".join(out)


def report_json(rows: list[dict], data: MatchCubeData, source: str) -> str:
    return json.dumps({"data": source, "positions": len(data), "plies": data.meta.get("plies"),
                       "generated": data.meta, "rows": rows}, indent=2)


# ------------------------------------------------------------------------ command line

def parser() -> argparse.ArgumentParser:
    p = gc.check_options("python -m gammon.eval.gnubg.match_cube",
                         "Cube decisions at match scores (double / no double, take / pass) "
                         "of a bot through model.match_cube against GNU Backgammon 1.07 at "
                         "2-ply, on the clear-cut ones.", "EMG", DATA_PATH, "match cube data",
                         "place the money cube data's positions at match scores and have "
                         "gnubg analyse them into --data (needs gnubg)")
    p.add_argument("--seed", default=None,
                   help=f"with --generate, the seed of the scores (default {DEFAULT_SEED}); "
                        f"else the seed of bots that draw numbers")
    return p


def main(argv: list[str] | None = None) -> int:
    """Check the bots (or --generate the data); 0 on success, 2 on bad input."""
    try:
        args = parser().parse_args(argv)
        seed = gc.whole_number(args.seed, "--seed", 0, 2**32 - 1)
        margin = gc.margin_value(args.margin)
        if args.generate:
            return _generate(args, seed)
        data = load(args.data)
        names = list(dict.fromkeys(args.bot or DEFAULT_BOTS))
        rows = rows_for(names, data, margin, seed)
        print(report_json(rows, data, args.data) if args.json
              else format_table(rows, data, args.data))
        return 0
    except (UsageError, CubeDataError, GnubgError, WriteError) as e:
        print(f"gnubg_match_cube: error: {first_line(e)}", file=sys.stderr)
        return 2


def _generate(args, seed: int | None) -> int:
    gc.check_generate(args)

    def log(message: str) -> None:
        print(message, file=sys.stderr)
    records, meta, notes = generate(DEFAULT_SEED if seed is None else seed, log=log)
    for note in notes:
        log(f"gnubg_match_cube: left out {note}")
    save(records, meta, Path(args.data))
    print(f"{args.data}: {len(records)} positions at match scores analysed by {meta['gnubg']} "
          f"at {meta['plies']}-ply in {meta['seconds']:.0f} s ({meta['kinds']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
