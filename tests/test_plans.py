"""Game plans: the classifier on hand-made positions, the four plan bots (they beat random
and play their plans), and the round-robin tournament."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from gammon.engine.board import flip
from gammon.engine.plan import PLANS, plan_names, plans
from gammon.engine.rules import start_boards
from gammon.eval.playing.match import run_match
from gammon.eval.bots.plans import PLAN_BOTS, plan_bot
from gammon.eval.reports.plans import style_table
from gammon.eval.playing.tournament import bradley_terry, run_tournament

from inprocess import gammon

ROOT = Path(__file__).resolve().parent.parent


def board(mine: dict, theirs: dict) -> np.ndarray:
    """A board from the player on roll: ``mine`` point -> checkers (25 his bar),
    ``theirs`` point -> checkers, points counted from his side (0 the opponent's bar)."""
    b = np.zeros(26, dtype=np.int8)
    for p, n in mine.items():
        b[p] = n
    for p, n in theirs.items():
        b[p] = -n
    return b


def plan(b) -> str:
    return plan_names(np.asarray(b)[None])[0]


def test_race_no_contact():
    assert plan(board({6: 5, 5: 5, 4: 5}, {20: 5, 21: 5, 22: 5})) == "race"


def test_back_game_two_deep_anchors_far_behind():
    # "deep anchors": ours on his 1- and 3-points, and 116 pips behind his borne-in army
    b = board({24: 2, 22: 2, 13: 5, 8: 3, 6: 3}, {19: 3, 20: 3, 21: 3, 23: 2, 17: 2, 16: 2})
    assert plan(b) == "back game"
    # the same anchors when not behind: holding no game of their own
    assert plan(board({24: 2, 22: 2, 6: 5}, {19: 3, 20: 3, 21: 3, 23: 2, 12: 2, 10: 2})) \
        != "back game"


def test_blocking_a_prime_with_a_checker_behind_it():
    # "build consecutive closed points up to a six-point prime": 4..9 made, his checker on 2
    b = board({4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 9: 2, 13: 3}, {2: 1, 24: 2, 19: 5, 17: 7})
    assert plan(b) == "blocking"
    # the same points with nobody behind them block nothing
    assert plan(board({4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 9: 2, 13: 3},
                      {14: 1, 24: 2, 19: 5, 17: 7})) != "blocking"


def test_attacking_hits_in_our_home_board():
    # "hit in your home board ... two checkers on the bar": two of his on the bar, we hold
    # our 6- and 4-points with a blot on our 5-point
    b = board({6: 3, 4: 2, 5: 1, 8: 3, 13: 4, 24: 2}, {0: 2, 19: 4, 17: 4, 12: 5})
    assert plan(b) == "attacking"


def test_holding_an_anchor_on_his_five_point():
    # "stay back on an anchor in the opponent's home ... wait for a shot"
    b = board({20: 2, 13: 4, 8: 3, 6: 4, 5: 2}, {19: 3, 18: 3, 17: 2, 12: 4, 8: 3})
    assert plan(b) == "holding"


def test_running_otherwise_and_the_opening():
    # "race home, pass the opponent's checkers safely": no anchor, no prime, no target
    b = board({14: 1, 13: 4, 9: 2, 8: 3, 6: 5}, {24: 1, 19: 4, 17: 4, 12: 4, 15: 2})
    assert plan(b) == "running"
    start = start_boards(1)
    assert plan(start[0]) == plan(flip(start)[0]) == "running"


def test_plans_of_a_batch_and_both_sides():
    rng = np.random.default_rng(0)
    from gammon.engine.game import play, random_policy
    seen = []
    play((random_policy(rng), random_policy(rng)), 20, rng,
         on_position=lambda b, d: seen.append(b.copy()))
    boards = np.concatenate(seen)
    labels = plans(boards)
    assert labels.shape == (len(boards),) and set(np.unique(labels)) <= set(range(len(PLANS)))
    # one call for a batch is the same as one board at a time
    assert all(plans(boards[i:i + 1])[0] == labels[i] for i in range(0, len(boards), 37))


@pytest.mark.parametrize("name", PLAN_BOTS)
def test_each_plan_bot_beats_random(name):
    r = run_match(plan_bot(name), "random", 200, seed=3, progress=False)
    assert r.wins_a / r.games >= 0.95


def test_each_plan_bot_plays_its_plan_more_than_pubeval():
    """The measure each plan optimises is higher per play of the plan bot than per play
    of pubeval, in the same paired games."""
    for row in style_table(200, seed=5):
        assert row["bot_mean"] > row["pubeval_mean"], row


def test_ratings_follow_the_share_of_games_won():
    games = np.array([[0, 1000], [1000, 0]])
    won = np.array([[0, 640], [360, 0]])
    elo = bradley_terry(won, games)
    assert elo.mean() == pytest.approx(1500)
    assert elo[0] - elo[1] == pytest.approx(400 * math.log10(640.5 / 360.5), abs=0.5)
    three = bradley_terry(np.array([[0, 600, 900], [400, 0, 800], [100, 200, 0]]),
                          np.array([[0, 1000, 1000], [1000, 0, 1000], [1000, 1000, 0]]))
    assert three[0] > three[1] > three[2]


def test_a_tournament_is_the_same_on_one_or_two_workers():
    one = run_tournament(["random", "pubeval", "runner"], 20, seed=9, workers=1)
    two = run_tournament(["random", "pubeval", "runner"], 20, seed=9, workers=2)
    assert np.array_equal(one.ppg, two.ppg, equal_nan=True)
    assert (one.ppg == -one.ppg.T)[~np.eye(3, dtype=bool)].all()
    assert one.ratings.argmin() == 0  # random is last
    d = one.to_dict()
    assert set(d["table"]["random"]) == {"pubeval", "runner"} and len(d["ratings"]) == 3


def run(*args):
    """``gammon ARGS`` in this process (``tests/inprocess.py``): returncode, stdout, stderr."""
    return gammon(*args)


@pytest.mark.parametrize("args, words", [
    (["pubeval"], "two or more"), ([], "two or more"), (["pubeval", "pubeval"], "twice"),
    (["pubeval", "nobot"], "unknown bot"), (["pubeval", "random", "--games", "3"], "even"),
    (["pubeval", "random", "--workers", "0"], "--workers"),
])
def test_bad_tournaments_are_one_line_errors(args, words):
    out = run("tournament", *args)
    assert out.returncode == 2 and words in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) <= 2


def test_the_command_prints_a_cross_table_and_json():
    out = run("tournament", "random", "holder", "--games", "20", "--seed", "1",
              "--no-progress", "--workers", "1")
    assert out.returncode == 0, out.stderr
    assert "rating" in out.stdout and "holder" in out.stdout and "±" in out.stdout
    out = run("tournament", "random", "holder", "--games", "20", "--seed", "1", "--json",
              "--workers", "1")
    d = json.loads(out.stdout)
    assert d["games_per_pair"] == 20 and d["ratings"]["holder"] > d["ratings"]["random"]


def test_analyze_shows_the_plan_of_each_side():
    out = run("analyze", "4HPwATDgc/ABMA", "--bot", "net:", "--json")
    d = json.loads(out.stdout)
    assert d["plans"] == {"on_roll": "running", "opponent": "running"}
