"""The racer and heuristic bots: deterministic, sound in hand-made positions, and strong
enough to beat random play in seeded matches."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from gammon.engine.board import borne_off, flip, pip_counts
from gammon.engine.rules import start_boards
from gammon.engine.dice import DiceTable
from gammon.engine.game import play
from gammon.engine.movegen import legal_plays
from gammon.engine.formats.notation import parse_play
from gammon.engine.sample import from_random_play
from gammon.eval.bots.simple import RandomBot
from gammon.eval.bots.heuristic import WEIGHTS, HeuristicBot, opponent_shots
from gammon.eval.bots.racer import RacerBot


def board(cells: dict[int, int]) -> np.ndarray:
    """A (26,) board from {cell: count}: positive for the mover, negative for the opponent."""
    b = np.zeros(26, dtype=np.int8)
    for cell, count in cells.items():
        b[cell] = count
    return b


def choice(bot, b: np.ndarray, d1: int, d2: int):
    """The bot's chosen afterstate and all legal ones for one position and roll."""
    boards, dice = b[None], np.array([[d1, d2]])
    plays = legal_plays(boards, dice)
    row = int(bot(plays, boards, dice)[0])
    return plays.boards[row], plays


def the_play(text: str, b: np.ndarray, d1: int, d2: int) -> np.ndarray:
    """The afterstate of a play written in Magriel notation."""
    plays = legal_plays(b[None], np.array([[d1, d2]]))
    return plays.boards[parse_play(text, b, d1, d2, plays)]


# A race: every opponent checker sits beyond all of ours (in the opponent's home board).
OPP_HOME = {19: -3, 20: -3, 21: -3, 22: -2, 23: -2, 24: -2}


@pytest.fixture(scope="module")
def positions():
    """Positions (with rolls) met in a few games of random play: contact and races."""
    boards, dice = from_random_play(np.random.default_rng(7), 8)
    return boards, dice


@pytest.mark.parametrize("make", [RacerBot, HeuristicBot], ids=["racer", "heuristic"])
def test_bots_are_deterministic(make, positions):
    boards, dice = positions
    plays = legal_plays(boards, dice)
    first = make()(plays, boards, dice)
    again = make()(plays, boards, dice)
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(make().scores(plays, boards, dice),
                                  make().scores(plays, boards, dice))
    # and the choice is a legal result of its own position
    assert (plays.root[first] == np.arange(len(boards))).all()


# ---------------------------------------------------------------------------------------------
# The racer


@pytest.mark.parametrize("roll", [(6, 5), (2, 1), (4, 3)])
def test_racer_bears_off_rather_than_moving(roll):
    b = board({6: 2, 5: 2, 4: 3, 3: 3, 2: 3, 1: 2, **OPP_HOME})
    chosen, plays = choice(RacerBot(), b, *roll)
    off = borne_off(plays.boards, 15)[0]
    assert off.min() < off.max()  # some legal plays move instead of bearing off
    assert borne_off(chosen[None], 15)[0][0] == off.max() == 2


def test_racer_picks_the_lower_pip_result():
    # 5-4 with checkers on 6 and 3: 6/1 3/off leaves 1 pip, 6/2 3/off leaves 2 (a wasted pip)
    b = board({6: 1, 3: 1, **OPP_HOME})
    chosen, plays = choice(RacerBot(), b, 5, 4)
    pips = pip_counts(plays.boards)[0]
    assert sorted(pips.tolist()) == [1, 2]
    assert pip_counts(chosen[None])[0][0] == 1
    np.testing.assert_array_equal(chosen, the_play("6/1 3/off", b, 5, 4))


def test_racer_hits_in_contact():
    # 13/9* sends the opponent's last checker back 9 pips; 13/8/4 and 6/1 5/1 do not hit
    b = board({13: 4, 6: 5, 5: 3, 4: 3, 9: -1, 19: -5, 20: -5, 21: -4})
    chosen, plays = choice(RacerBot(), b, 5, 4)
    assert (plays.boards[:, 0] == 0).any()  # quiet plays exist
    assert chosen[0] == -1


# ---------------------------------------------------------------------------------------------
# The heuristic bot


def test_heuristic_makes_its_5_point_with_3_1_from_the_opening():
    b = start_boards(1)[0]
    chosen, _ = choice(HeuristicBot(), b, 3, 1)
    np.testing.assert_array_equal(chosen, the_play("8/5 6/5", b, 3, 1))


# Two checkers left on the midpoint against an opponent anchor on our 3-point; 6-5 to play.
# 13/7 13/8 leaves two blots 4 and 5 pips in front of the anchor (direct shots);
# 13/2 slips behind the anchor and leaves one blot 10 pips away (3 rolls of 36 hit it).
EXPOSED = board({13: 2, 6: 5, 5: 4, 4: 4, 3: -2, 19: -5, 20: -4, 21: -4})


def test_heuristic_avoids_a_direct_shot():
    safe = the_play("13/2", EXPOSED, 6, 5)
    exposed = the_play("13/7 13/8", EXPOSED, 6, 5)
    chance, _ = opponent_shots(np.stack([safe, exposed]))
    assert chance[0] == pytest.approx(3 / 36)
    assert chance[1] > 0.5
    chosen, _ = choice(HeuristicBot(), EXPOSED, 6, 5)
    np.testing.assert_array_equal(chosen, safe)


def test_the_safe_play_is_chosen_for_its_safety():
    """Without its safety weights the bot would leave the shots: the case tests them."""
    careless = dataclasses.replace(WEIGHTS, shot=0.0, shot_pips=0.0, blot=0.0)
    chosen, _ = choice(HeuristicBot(careless), EXPOSED, 6, 5)
    assert not np.array_equal(chosen, the_play("13/2", EXPOSED, 6, 5))


def test_heuristic_hits_when_safe_and_profitable():
    # the opponent has split a back checker to our 5-point: 3-1 hits it and makes the point
    b = board({24: 2, 13: 5, 8: 3, 6: 5, 1: -1, 5: -1, 12: -5, 17: -3, 19: -5})
    chosen, _ = choice(HeuristicBot(), b, 3, 1)
    np.testing.assert_array_equal(chosen, the_play("8/5* 6/5*", b, 3, 1))
    assert chosen[0] == -1 and chosen[5] == 2


def test_heuristic_plays_a_race_as_the_racer():
    b = board({6: 2, 5: 2, 4: 3, 3: 3, 2: 3, 1: 2, **OPP_HOME})
    for roll in [(6, 5), (2, 1), (4, 4)]:
        heuristic, _ = choice(HeuristicBot(), b, *roll)
        racer, _ = choice(RacerBot(), b, *roll)
        np.testing.assert_array_equal(heuristic, racer)


def test_shot_counting_agrees_with_the_legal_plays(positions):
    """The chance of being hit, by the masks, against every opponent roll played out."""
    boards = np.unique(positions[0], axis=0)[:1500]
    chance, lost = opponent_shots(boards)
    opponent = flip(boards)  # the opponent on roll: our checkers are its targets
    hits = np.zeros(len(boards))
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            plays = legal_plays(opponent, np.tile([d1, d2], (len(boards), 1)))
            hit = plays.boards[:, 0] < opponent[plays.root, 0]  # more of ours on the bar
            hit_any = np.bincount(plays.root[hit], minlength=len(boards)) > 0
            hits += (1 if d1 == d2 else 2) * hit_any
    assert (hits > 0).mean() > 0.2  # the sample holds plenty of exposed blots
    counted = chance * 36
    # the masks never miss a hit; rarely they allow one that the rule "play both dice when
    # you can" forbids (a hit with one die after which the other cannot be played)
    assert (counted >= hits - 1e-9).all()
    assert np.mean(np.abs(counted - hits) < 1e-9) > 0.98
    assert (lost <= 24 * chance + 1e-9).all() and (lost >= chance - 1e-9).all()


# ---------------------------------------------------------------------------------------------
# Matches (seeded, seats swapped on the same dice)


def win_rate(bot, opponent, rows: int, seed: int) -> float:
    """Share of 2 * rows games won by ``bot``: each dice row played from both seats."""
    rng = np.random.default_rng(seed)
    dice = DiceTable(rng, rows)
    first = play((bot, opponent), rows, rng, dice=dice).points
    second = play((opponent, bot), rows, rng, dice=dice).points
    return float(np.mean(np.concatenate([first > 0, second < 0])))


def test_heuristic_beats_random():
    assert win_rate(HeuristicBot(), RandomBot(1), 100, seed=11) >= 0.95


def test_racer_beats_random():
    assert win_rate(RacerBot(), RandomBot(2), 100, seed=12) >= 0.90
