"""Cubeful money games: the loop (engine.game), paired matches with the cube, bots' cube
strategies (race rule, never-double baseline, the net's heads) and the registry names."""

from __future__ import annotations

import numpy as np
import pytest

from gammon.engine.board import flip, pip_counts
from gammon.engine.rules import start_boards
from gammon.engine.cube import BEAVER, PASS, TAKE, CubeRules
from gammon.engine.game import play
from gammon.engine.cube_policy import CubeBot, NeverDouble
from gammon.eval.bots.simple import PubevalBot, RandomBot
from gammon.eval.playing.match import run_match
from gammon.eval.bots.race_cube import KeithCube, keith_count
from gammon.eval.bots.registry import make_bot


class Always:
    """A scripted cube strategy: always offers (or never) and always gives one answer."""

    def __init__(self, double: bool, answer: int):
        self.double, self.answer = double, answer
        self.seen = []  # (boards, value, owner) of every question

    def offer_double(self, boards, value, owner):
        self.seen.append(("offer", boards.copy(), value.copy(), owner.copy()))
        return np.full(len(boards), self.double)

    def respond(self, boards, value, owner):
        self.seen.append(("respond", boards.copy(), value.copy(), owner.copy()))
        return np.full(len(boards), self.answer, dtype=np.int8)


def bot(strategy, seed=0):
    return CubeBot(RandomBot(seed), strategy)


def test_a_double_always_passed_ends_every_game_at_once_for_one_point():
    doubler, passer = Always(True, TAKE), Always(False, PASS)
    r = play((bot(doubler), bot(passer, 1)), 200, np.random.default_rng(0), cube=CubeRules())
    assert r.passed.all() and r.points.tolist() == [1] * 200
    assert r.cube.tolist() == [1] * 200
    # seat 0 doubles before its first roll after the opening: ply 1 or ply 2
    assert set(r.plies.tolist()) <= {1, 2} and (r.offers[:, 0] == 1).all()
    assert r.passes[:, 1].sum() == 200 and r.offers[:, 1].sum() == 0


def test_cube_questions_see_the_doublers_position_before_the_roll():
    doubler, passer = Always(True, TAKE), Always(False, PASS)
    play((bot(doubler), bot(passer, 1)), 50, np.random.default_rng(1), cube=CubeRules())
    offers = [s[1:] for s in doubler.seen if s[0] == "offer"]
    answers = [s[1:] for s in passer.seen if s[0] == "respond"]
    assert len(offers) == len(answers) == 2  # ply 1 (seat 1 opened) and ply 2 (seat 0 did)
    for (boards, value, owner), (seen, seen_value, seen_owner) in zip(offers, answers):
        assert np.array_equal(boards, seen)  # the taker is shown the doubler's view
        assert (value == 1).all() and (seen_value == 1).all()
        assert (owner == 0).all() and (seen_owner == 0).all()
    # at ply 1 the doubler, on roll in the board, has not moved yet; his opponent has
    mover, opponent = pip_counts(offers[0][0])
    assert (mover == 167).all() and (opponent < 167).all()
    assert sum(len(o[0]) for o in offers) == 50


def test_a_double_always_taken_by_a_player_who_always_redoubles_climbs_to_the_maximum():
    rules = CubeRules(max_cube=8)
    both = Always(True, TAKE)
    r = play((bot(both), bot(both, 1)), 100, np.random.default_rng(2), cube=rules)
    assert (r.cube == 8).all() and not r.passed.any()
    assert (r.takes.sum(axis=1) == 3).all()  # 1 -> 2 -> 4 -> 8, then no more doubles
    assert (np.abs(r.offers[:, 0] - r.offers[:, 1]) <= 1).all()  # the sides alternate
    assert (np.abs(r.points) % 8 == 0).all() and (r.points != 0).all()


def test_a_beaver_quadruples_the_cube_and_the_beaverer_keeps_it():
    doubler, beaverer = Always(True, TAKE), Always(False, BEAVER)
    pair = (bot(doubler), bot(beaverer, 1))
    r = play(pair, 100, np.random.default_rng(3), cube=CubeRules(beavers=True))
    assert (r.cube == 4).all() and (r.beavers[:, 1] == 1).all()
    assert (r.offers[:, 0] == 1).all()  # the beaverer owns the cube: no second double
    assert (np.abs(r.points) % 4 == 0).all() and (r.points != 0).all()
    # beavers off: the same answer counts as a take
    r = play(pair, 100, np.random.default_rng(3), cube=CubeRules())
    assert (r.cube == 2).all() and (r.takes[:, 1] == 1).all() and r.beavers.sum() == 0


def test_jacoby_counts_an_undoubled_gammon_as_one_point():
    pair = (PubevalBot(), RandomBot(5))  # no cube methods: never double, always take
    plain = play(pair, 300, np.random.default_rng(4), cube=CubeRules())
    pair = (PubevalBot(), RandomBot(5))
    jacoby = play(pair, 300, np.random.default_rng(4), cube=CubeRules(jacoby=True))
    assert (np.abs(plain.points) >= 2).sum() > 50  # pubeval gammons random often
    assert np.array_equal(np.sign(plain.points), np.sign(jacoby.points))
    assert set(np.abs(jacoby.points).tolist()) == {1}


def test_automatic_doubles_on_tied_opening_throws_up_to_the_limit():
    r = run_match("nodouble:pubeval", "nodouble:random", 1200, seed=5, progress=False,
                  cube=CubeRules(auto_doubles=2))
    values = r.cube.values  # 600 pairs: the bounds below are over 3 standard deviations
    assert set(values.tolist()) == {1, 2, 4}
    assert abs((values > 1).mean() - 1 / 6) < 0.05  # one opening in six ties
    assert abs((values == 4).mean() - 1 / 36) < 0.021  # two ties in a row
    assert np.array_equal(values[0::2], values[1::2])  # both games of a pair tie alike
    assert (r.points % values == 0).all() and r.cube.offers.sum() == 0


def test_without_doubles_a_cubeful_match_replays_the_cubeless_one():
    cubeless = run_match("pubeval", "random", 200, seed=6, progress=False)
    cubeful = run_match("nodouble:pubeval", "nodouble:random", 200, seed=6, progress=False,
                        cube=CubeRules())
    assert np.array_equal(cubeless.points, cubeful.points)
    assert np.array_equal(cubeless.plies, cubeful.plies)
    assert cubeful.gammons_a == cubeless.gammons_a


def test_a_cubeful_match_is_reproducible_from_its_seed():
    rules = CubeRules(jacoby=True, beavers=True, auto_doubles=1)
    one = run_match("racer", "pubeval", 300, seed=7, progress=False, cube=rules)
    two = run_match("racer", "pubeval", 300, seed=7, progress=False, cube=rules)
    assert np.array_equal(one.points, two.points)
    assert one.cube.to_dict() == two.cube.to_dict()
    assert one.cube.totals()["offers"] != (0, 0)  # the race rule does double


def test_a_bot_that_doubles_gains_against_one_that_never_does():
    r = run_match("racer", "nodouble:racer", 600, seed=8, progress=False, cube=CubeRules())
    assert r.ppg_a - r.ppg_a_ci95 > 0
    totals = r.cube.totals()
    assert totals["offers"][1] == 0 and totals["passes"] == (0, 0)  # it always takes


def test_cube_statistics_are_from_a_and_b_in_both_seats():
    doubler, passer = Always(True, TAKE), Always(False, PASS)
    r = run_match(bot(doubler), bot(passer, 1), 100, seed=9, progress=False,
                  cube=CubeRules())
    assert (r.points == 1).all() and r.cube.totals()["passes"] == (0, 100)
    d = r.to_dict()["cube"]
    assert d["offers_a"] == 100 and d["passes_b"] == 100 and d["cube_values"] == {"1": 100}


# --- cube strategies and names ----------------------------------------------------------


def race(mover: dict[int, int], opponent: dict[int, int]) -> np.ndarray:
    """A board from point -> count of each side, each from its own view."""
    b = np.zeros(26, dtype=np.int8)
    for point, n in mover.items():
        b[point] += n
    for point, n in opponent.items():
        b[25 - point] -= n
    return b


def test_keith_count_adds_wastage_to_the_pips():
    assert keith_count(race({6: 15}, {6: 15})[None])[0] == 90 + 2  # 4 and 5 empty
    # 3 on the 1-point (+4), 2 on the 2-point (+1), 5 on the 3-point (+2), nothing on 4..6
    assert keith_count(race({1: 3, 2: 2, 3: 5}, {6: 1})[None])[0] == 3 + 4 + 15 + 4 + 1 + 2 + 3


def test_race_rule_doubles_when_ahead_and_passes_when_far_behind():
    keith = KeithCube()
    ahead = race({1: 2, 2: 3, 3: 3, 4: 3, 5: 2, 6: 2}, {6: 5, 5: 5, 4: 5})  # 46 vs 75 pips
    close = race({6: 5, 5: 5, 4: 5}, {6: 5, 5: 5, 4: 5})
    boards = np.stack([ahead, close])
    cube = np.ones(2, dtype=np.int32), np.zeros(2, dtype=np.int8)
    assert keith.offer_double(boards, *cube).tolist() == [True, False]
    assert keith.respond(boards, *cube).tolist() == [PASS, TAKE]
    contact = start_boards(1)  # never doubles in contact, always takes
    assert keith.offer_double(contact, *[c[:1] for c in cube]).tolist() == [False]
    assert keith.respond(flip(contact), *[c[:1] for c in cube]).tolist() == [TAKE]


def test_bots_by_name_with_a_cube_strategy():
    assert not hasattr(make_bot("pubeval"), "offer_double")  # unchanged without a cube
    never = make_bot("pubeval", cube="never")
    assert isinstance(never.cube, NeverDouble) and never.name == "pubeval"
    baseline = make_bot("nodouble:random", seed=1)
    assert isinstance(baseline.cube, NeverDouble) and baseline.name == "nodouble:random"
    assert isinstance(make_bot("racer", cube="auto").cube, KeithCube)
    with pytest.raises(ValueError, match="cube heads need"):
        make_bot("pubeval", cube="heads")
    with pytest.raises(ValueError, match="unknown cube strategy"):
        make_bot("pubeval", cube="sometimes")
    with pytest.raises(ValueError, match="valid:"):
        make_bot("nodouble:nobody")


def test_a_net_doubles_with_its_heads_on_its_probabilities(tmp_path):
    torch = pytest.importorskip("torch")
    from gammon.model.checkpoint import model_payload, save
    from gammon.model.cube import decide
    from gammon.model.cube_player import HeadsCube
    from gammon.model.net import ValueNet
    torch.manual_seed(0)
    torch.set_num_threads(1)  # the machine is shared: two threads can run ten times slower
    save(tmp_path / "net.pt", model_payload(ValueNet(198, (8,)), "classic", "standard"))
    net = make_bot(f"net:{tmp_path / 'net.pt'}", cube="auto",
                   rules=CubeRules(beavers=True, jacoby=True))
    assert isinstance(net.cube, HeadsCube) and net.cube.beavers and net.cube.jacoby
    boards = start_boards(4)
    boards[1:, 6] -= 2  # a few other positions
    boards[1:, 5] += np.array([1, 2, 2], dtype=np.int8)
    boards[3, 4] += 1
    boards[3, 5] -= 1
    owner = np.array([0, 0, 1, 1], dtype=np.int8)
    expected = decide(net.evaluator(boards).astype(np.float64), owner, 0.68, True, True)
    assert np.array_equal(net.offer_double(boards, np.ones(4), owner), expected.double)
    assert np.array_equal(net.respond(boards, np.ones(4), owner), expected.response)
    r = run_match(net, make_bot(f"nodouble:net:{tmp_path / 'net.pt'}"), 6, seed=1,
                  progress=False, cube=CubeRules(beavers=True))
    assert r.games == 6 and r.cube.totals()["offers"][1] == 0
