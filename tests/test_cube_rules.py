"""The doubling cube's rules (engine.cube), one readable case per rule."""

from __future__ import annotations

import numpy as np
import pytest

from gammon.engine.cube import (BEAVER, PASS, TAKE, Cube, CubeRules, accept, flip_owner, game_points,
                         legal_responses, may_beaver, may_double, opening_ties, pass_points,
                         start_cubes)

MONEY = CubeRules()


def cubes(values, owners) -> Cube:
    return Cube(np.array(values, dtype=np.int32), np.array(owners, dtype=np.int8))


def test_a_new_cube_is_centred_at_one():
    c = Cube.centred(3)
    assert c.value.tolist() == [1, 1, 1] and c.owner.tolist() == [0, 0, 0]


def test_the_player_on_roll_may_double_a_centred_cube_or_his_own_but_not_the_opponents():
    c = cubes([1, 2, 2], [0, +1, -1])
    assert may_double(c, MONEY).tolist() == [True, True, False]


def test_no_double_beyond_the_maximum_cube():
    c = cubes([16, 32, 64], [0, +1, +1])
    assert may_double(c, MONEY).tolist() == [True, True, False]
    assert may_double(cubes([4], [0]), CubeRules(max_cube=4)).tolist() == [False]


def test_a_take_doubles_the_cube_and_hands_it_to_the_taker():
    before = cubes([1, 2], [0, +1])  # seen from the doubler, who is on roll
    after = accept(before, np.array([TAKE, TAKE], dtype=np.int8))
    assert after.value.tolist() == [2, 4]
    assert after.owner.tolist() == [-1, -1]  # the opponent (the taker) owns it
    # after the doubler's play the sides change: the taker is on roll and owns the cube
    assert flip_owner(after.owner).tolist() == [1, 1]


def test_changing_sides_negates_the_owner_and_keeps_a_centred_cube_centred():
    assert flip_owner(np.array([1, 0, -1], dtype=np.int8)).tolist() == [-1, 0, 1]


def test_a_pass_gives_the_doubler_the_value_before_the_double():
    before = cubes([1, 4], [0, +1])
    assert pass_points(before).tolist() == [1, 4]
    after = accept(before, np.array([PASS, PASS], dtype=np.int8))
    assert after.value.tolist() == [1, 4] and after.owner.tolist() == [0, 1]  # untouched


def test_a_beaver_quadruples_the_cube_and_the_beaverer_keeps_it():
    rules = CubeRules(beavers=True)
    before = cubes([1, 2], [0, +1])
    answer = legal_responses(np.array([BEAVER, BEAVER]), before, rules)
    assert answer.tolist() == [BEAVER, BEAVER]
    after = accept(before, answer)
    assert after.value.tolist() == [4, 8] and after.owner.tolist() == [-1, -1]


def test_a_beaver_the_rules_do_not_allow_is_a_take():
    before = cubes([1, 16, 32], [0, 1, 1])
    assert legal_responses(np.array([BEAVER] * 3), before, MONEY).tolist() == [TAKE] * 3
    # beavers on, but 4 x 32 would pass the maximum of 64
    rules = CubeRules(beavers=True)
    assert may_beaver(before, rules).tolist() == [True, True, False]
    assert legal_responses(np.array([BEAVER] * 3), before, rules).tolist() == \
        [BEAVER, BEAVER, TAKE]


def test_a_response_must_be_pass_take_or_beaver():
    with pytest.raises(ValueError, match="0 pass, 1 take or 2 beaver"):
        legal_responses(np.array([3]), cubes([1], [0]), MONEY)
    with pytest.raises(ValueError, match="expected 2 responses"):
        legal_responses(np.array([1]), cubes([1, 1], [0, 0]), MONEY)


def test_a_game_is_worth_the_cube_times_single_gammon_or_backgammon():
    c = cubes([1, 2, 4, 8], [0, 1, -1, 1])
    assert game_points(c, np.array([1, 2, 3, 2]), MONEY).tolist() == [1, 4, 12, 16]


def test_jacoby_gammons_count_single_while_the_cube_was_never_turned():
    jacoby = CubeRules(jacoby=True)
    centred = cubes([1, 1, 2], [0, 0, 0])  # the last one after an automatic double
    assert game_points(centred, np.array([2, 3, 2]), jacoby).tolist() == [1, 1, 2]
    turned = cubes([2, 4], [1, -1])
    assert game_points(turned, np.array([2, 3]), jacoby).tolist() == [4, 12]
    assert game_points(centred, np.array([2, 3, 2]), MONEY).tolist() == [2, 3, 4]


def test_automatic_doubles_on_tied_opening_throws_up_to_the_limit():
    ties = np.array([0, 1, 2, 5])
    assert start_cubes(ties, CubeRules()).value.tolist() == [1, 1, 1, 1]  # off
    two = start_cubes(ties, CubeRules(auto_doubles=2))
    assert two.value.tolist() == [1, 2, 4, 4]
    assert two.owner.tolist() == [0, 0, 0, 0]  # the cube stays in the middle
    capped = start_cubes(ties, CubeRules(auto_doubles=9, max_cube=8))
    assert capped.value.tolist() == [1, 2, 4, 8]


def test_opening_throws_tie_one_time_in_six():
    ties = opening_ties(np.random.default_rng(0), 200_000)
    assert ties.min() == 0
    assert abs((ties > 0).mean() - 1 / 6) < 0.005  # at least one tie
    assert abs(ties.mean() - 0.2) < 0.01  # (1/6) / (5/6) ties on average


@pytest.mark.parametrize("kwargs, message", [
    ({"auto_doubles": -1}, "auto_doubles"), ({"max_cube": 48}, "power of two"),
    ({"max_cube": 0}, "power of two")])
def test_bad_rules_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        CubeRules(**kwargs)
