"""The heuristic bot of each variant (``make_bot("heuristic", variant=V)``): the right bot
for every variant, legal and deterministic; the sudden-death bot takes the winning hit and
otherwise leaves the fewest shots; the Plakoto bot pins the mother, guards its own and keeps
its blots out of reach; and each beats random play clearly over 1000 paired games.

Plakoto positions are written {point: field} as in tests/test_plakoto.py (points 1..24 from
the mover's view, + ours, - theirs; we move 24 -> 1, the opponent from our 1 up to our 24).
"""

from __future__ import annotations

import numpy as np
import pytest

from gammon.engine.movegen import legal_plays
from gammon.engine.rules import PLAKOTO, SUDDENDEATH, VARIANTS, variant
from gammon.engine.rules.plakoto import read_position, write_position
from gammon.engine.sample import from_random_play
from gammon.eval.bots.heuristic import HeuristicBot, opponent_shots
from gammon.eval.playing.match import run_match
from gammon.eval.bots.registry import make_bot
from gammon.eval.bots.variant_heuristics import (PlakotoHeuristicBot, SuddenDeathHeuristicBot,
                                     plakoto_features)


def board(cells: dict[int, int]) -> np.ndarray:
    """A standard (26,) board from {cell: count}: + ours, - theirs."""
    b = np.zeros(26, dtype=np.int8)
    for cell, count in cells.items():
        b[cell] = count
    return b


def plakoto(points: dict) -> np.ndarray:
    """The Plakoto board of {point: field} (fields like 3, -2 or "1p")."""
    text = "plakoto:" + ",".join(str(points.get(p, 0)) for p in range(1, 25))
    return read_position(text)


def choose(bot, b: np.ndarray, roll, rules):
    """The bot's chosen afterstate, and all the legal ones, for one position and roll."""
    boards, dice = b[None], np.array([roll])
    plays = legal_plays(boards, dice, rules)
    return plays.boards[int(bot(plays, boards, dice)[0])], plays


def inner(bot):
    """The checker player of a bot (Nuclear's bomb wrapper holds it as ``bot``)."""
    return getattr(bot, "bot", bot)


# --- every variant ----------------------------------------------------------------------------

EXPECTED = {"suddendeath": SuddenDeathHeuristicBot, "plakoto": PlakotoHeuristicBot}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_make_bot_gives_each_variant_its_heuristic(name):
    bot = make_bot("heuristic", variant=name)
    assert bot.name == "heuristic"
    player = inner(bot)
    assert type(player) is EXPECTED.get(name, HeuristicBot)
    if type(player) is HeuristicBot:
        assert player.checkers == variant(name).checkers


@pytest.mark.parametrize("name", list(VARIANTS))
def test_choices_are_legal_and_deterministic(name):
    """Positions of random play of the variant: one chosen row per position, among its own
    legal plays (Caucasian's generator has removed the illegal ones), the same twice."""
    rules = variant(name)
    boards, dice = from_random_play(np.random.default_rng(1), 4, name)
    plays = legal_plays(boards, dice, rules)
    bot = make_bot("heuristic", variant=name)
    rows = bot(plays, boards, dice)
    assert rows.shape == (len(boards),)
    assert (plays.root[rows] == np.arange(len(boards))).all()
    assert (bot(plays, boards, dice) == rows).all()
    assert np.isfinite(bot.scores(plays, boards, dice)).all()


# --- sudden death -----------------------------------------------------------------------------

# The opponent's blots on our 2 and 7. With 4-2 the standard heuristic makes our 4-point
# (8/4 6/4, no shot left); in sudden death 6/2* or 13/7* wins at once.
BLOTS_TO_HIT = board({24: 2, 13: 5, 8: 3, 6: 5, 2: -1, 7: -1, 12: -5, 17: -3, 19: -5})
# The opening-like position: with 6-5 the lover's leap 24/13 leaves the blot on 24 to 22
# rolls; 13/2 leaves one on 2 to the 11 rolls with a 1, the fewest any 6-5 leaves.
SIX_FIVE = board({24: 2, 13: 5, 8: 3, 6: 5, 1: -2, 12: -5, 17: -3, 19: -5})


def test_suddendeath_takes_the_winning_hit():
    chosen, plays = choose(SuddenDeathHeuristicBot(), BLOTS_TO_HIT, (4, 2), SUDDENDEATH)
    won = SUDDENDEATH.end_of_game(plays.boards)
    assert (won == 0).any()  # quiet plays exist (8/4 6/4 makes a point and is safe)
    assert SUDDENDEATH.end_of_game(chosen[None])[0] == 1
    assert chosen[0] == -1  # a checker of theirs hit


def test_suddendeath_leaves_the_fewest_shots():
    chosen, plays = choose(SuddenDeathHeuristicBot(), SIX_FIVE, (6, 5), SUDDENDEATH)
    shots = np.rint(opponent_shots(plays.boards)[0] * 36)
    lovers_leap = SIX_FIVE.copy()
    lovers_leap[24], lovers_leap[13] = 1, 6
    assert np.rint(opponent_shots(lovers_leap[None])[0][0] * 36) == 22
    assert np.rint(opponent_shots(chosen[None])[0][0] * 36) == shots.min() == 11
    assert chosen[2] == 1 and chosen[13] == 4  # 13/2


def test_suddendeath_rules_in_positions_of_play():
    """Wherever a play wins, the bot wins; elsewhere it leaves the fewest shots."""
    boards, dice = from_random_play(np.random.default_rng(5), 150, "suddendeath")
    plays = legal_plays(boards, dice, SUDDENDEATH)
    rows = SuddenDeathHeuristicBot()(plays, boards, dice)
    won = SUDDENDEATH.end_of_game(plays.boards)
    can_win = np.zeros(len(boards), dtype=np.int8)
    np.maximum.at(can_win, plays.root, won)
    assert 50 < can_win.sum() < len(boards)  # both kinds are met
    assert (won[rows] == can_win).all()
    shots = np.rint(opponent_shots(plays.boards)[0] * 36)
    fewest = np.full(len(boards), 99.0)
    np.minimum.at(fewest, plays.root, shots)
    quiet = can_win == 0
    assert (shots[rows][quiet] == fewest[quiet]).all()


# --- plakoto ----------------------------------------------------------------------------------

# Their mother alone on our 1 and a blot of theirs on our 10: with 6-3, 7/1* pins the mother
# (the game, 2 points); 13/10* would only pin the blot.
MOTHER_TO_PIN = {7: 2, 13: 3, 24: 10, 1: -1, 10: -1, 20: -13}
# Our two last checkers on our 24 and two of theirs on our 18, six pips below it: with 6-5,
# 24/13 leaves our mother alone to their 6s; 10/4 10/5 keeps it covered.
MOTHER_TO_GUARD = {24: 2, 10: 13, 18: -2, 1: -13}
# All of theirs on our 1 and our 4: 13/7 13/9 puts blots three to six pips in front of them.
BLOTS = {24: 2, 13: 13, 1: -13, 4: -2}


def direct_shots(b: np.ndarray) -> int:
    """Our blots (cell 1) with a free checker of theirs 1..6 pips below them."""
    v = b[1:25]
    return sum(1 for p in range(1, 25) if v[p - 1] == 1
               and any(v[q - 1] < 0 for q in range(max(1, p - 6), p)))


def test_plakoto_pins_the_mother():
    chosen, plays = choose(PlakotoHeuristicBot(), plakoto(MOTHER_TO_PIN), (6, 3), PLAKOTO)
    assert PLAKOTO.end_of_game(chosen[None])[0] == 2
    assert write_position(chosen).startswith("plakoto:1p,")
    pins_the_blot = [b for b in plays.boards if b[10] == 17 and b[0] == 0]
    assert pins_the_blot  # the other pin was there to take


def test_plakoto_guards_its_mother():
    start = plakoto(MOTHER_TO_GUARD)
    chosen, plays = choose(PlakotoHeuristicBot(), start, (6, 5), PLAKOTO)
    exposed = plakoto_features(plays.boards)["mother_shot"] > 0
    assert exposed.any()  # 24/13 was legal
    assert chosen[24] == 2 and plakoto_features(chosen[None])["mother_shot"][0] == 0


def test_plakoto_moves_its_mother_with_company():
    """All of theirs still at home (our 1), out of reach: the two back checkers run
    together (24/18 24/19), the mother is not left alone behind."""
    chosen, _ = choose(PlakotoHeuristicBot(), plakoto({24: 2, 12: 13, 1: -15}), (6, 5),
                       PLAKOTO)
    assert chosen[24] != 1


def test_plakoto_keeps_blots_out_of_direct_range():
    chosen, plays = choose(PlakotoHeuristicBot(), plakoto(BLOTS), (6, 4), PLAKOTO)
    assert max(direct_shots(b) for b in plays.boards) == 2  # 13/7 13/9
    assert direct_shots(chosen) == 0


def test_plakoto_bears_off_in_a_race():
    chosen, _ = choose(PlakotoHeuristicBot(), plakoto({6: 3, 5: 3, 3: 2, 20: -15}), (6, 5),
                       PLAKOTO)
    assert write_position(chosen) == write_position(plakoto({6: 2, 5: 2, 3: 2, 20: -15}))


def test_plakoto_always_takes_the_most_points():
    """In positions of random play, a play that pins the mother (or wins the race) is
    always taken: the chosen play wins as many points as the best legal play."""
    boards, dice = from_random_play(np.random.default_rng(3), 40, "plakoto")
    plays = legal_plays(boards, dice, PLAKOTO)
    rows = PlakotoHeuristicBot()(plays, boards, dice)
    won = PLAKOTO.end_of_game(plays.boards)
    best = np.zeros(len(boards), dtype=np.int8)
    np.maximum.at(best, plays.root, won)
    assert (best == 2).sum() > 20  # mother pins were met
    assert (won[rows] == best).all()


# --- strength ---------------------------------------------------------------------------------

# measured over 2000 paired games (seed 2024): win rates 0.997 (standard), 1.000 (nackgammon),
# 0.85 (hypergammon: 3 checkers, much luck), 1.000 (longgammon), 0.999 (caucasian), 0.974
# (suddendeath), 1.000 (nuclear), 0.998 (plakoto); the thresholds leave a margin
MIN_WIN_RATE = {"hypergammon": 0.75, "suddendeath": 0.93}
DEFAULT_MIN_WIN_RATE = 0.95


@pytest.mark.parametrize("name", list(VARIANTS))
def test_heuristic_beats_random(name):
    r = run_match("heuristic", "random", 1000, seed=17, variant=name, progress=False)
    assert r.unfinished == 0
    assert r.rate(r.wins_a) > MIN_WIN_RATE.get(name, DEFAULT_MIN_WIN_RATE), r.to_dict()
    assert r.ppg_a - r.ppg_a_ci95 > 0.5


@pytest.mark.parametrize("name, games, min_rate", [("suddendeath", 1000, 0.6),
                                                   ("plakoto", 400, 0.85)])
def test_the_adapted_heuristic_beats_the_standard_one(name, games, min_rate):
    """Measured over 2000 paired games: 0.69 (suddendeath) and 0.97 (plakoto)."""
    r = run_match(make_bot("heuristic", variant=name), HeuristicBot(), games, seed=19,
                  variant=name, progress=False)
    assert r.rate(r.wins_a) > min_rate, r.to_dict()
    assert r.ppg_a - r.ppg_a_ci95 > 0


@pytest.mark.slow
def test_strength_table():
    """The report's numbers: 2000 paired games of each (run with -m slow -s)."""
    lines = []
    for name in VARIANTS:
        r = run_match("heuristic", "random", 2000, seed=2024, variant=name, progress=False)
        lines.append((name, "random", r))
        assert r.rate(r.wins_a) > MIN_WIN_RATE.get(name, DEFAULT_MIN_WIN_RATE)
    for name in ("suddendeath", "plakoto"):
        r = run_match(make_bot("heuristic", variant=name), HeuristicBot(), 2000, seed=2024,
                      variant=name, progress=False)
        lines.append((name, "standard heuristic", r))
        assert r.ppg_a - r.ppg_a_ci95 > 0
    for name, against, r in lines:
        print(f"{name:12s} vs {against:18s} win {r.rate(r.wins_a):.3f}  "
              f"ppg {r.ppg_a:+.3f} ± {r.ppg_a_ci95:.3f}")
