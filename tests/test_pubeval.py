"""pubeval against gnubg's: same scores bit for bit, same play on every stored case.

The reference cases (tests/data/pubeval_reference.jsonl) were written by
eval/gnubg/pubeval_reference.py from gnubg_nn's pub_best_move and pub_eval_score; these tests
read them and need no gnubg_nn. One extra test compares live when gnubg_nn is installed.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gammon.engine.formats import posid
from gammon.engine.rules import start_boards
from gammon.engine.game import play, random_policy
from gammon.engine.movegen import legal_plays
from gammon.engine.policy import best_per_root
from gammon.eval.bots.pubeval import (CONTACT_WEIGHTS, RACE_WEIGHTS, gnubg_move_order,
                          is_race, pubeval_policy, pubeval_scores)

DATA = Path(__file__).parent / "data" / "pubeval_reference.jsonl"


@pytest.fixture(scope="module")
def cases():
    """The stored cases as arrays: positions, dice, results, scores, race flags, ids."""
    rows = [json.loads(line) for line in DATA.read_text().splitlines()]
    return {
        "boards": np.array([posid.decode(r["posid"]) for r in rows]),  # (M, 26)
        "dice": np.array([[r["d1"], r["d2"]] for r in rows]),  # (M, 2)
        "results": np.array([posid.decode(r["result"]) for r in rows]),  # (M, 26)
        "result_ids": [r["result"] for r in rows],
        "scores": np.array([r["score"] for r in rows]),  # (M,)
        "race": np.array([r["race"] for r in rows]),  # (M,)
    }


@pytest.fixture(scope="module")
def chosen(cases):
    """Our pubeval's plays for the stored cases: (legal plays, chosen rows)."""
    plays = legal_plays(cases["boards"], cases["dice"])
    return plays, pubeval_policy()(plays, cases["boards"], cases["dice"])


def tesauro_pubeval(board: np.ndarray, race: bool) -> float:
    """Tesauro's pubeval as published (setx, then a dot product), in float64, one board."""
    pos = [int(v) for v in board] + [0, 0]  # pos[0..25] as our cells, then off counts
    pos[26] = 15 - sum(v for v in pos[1:26] if v > 0)
    if pos[26] == 15:
        return float(np.float32(99999999.0))  # C returns it as a float: 1e8
    x = np.zeros(122)
    for j in range(1, 25):
        n = pos[25 - j]
        i = 5 * (j - 1)
        x[i] = n == -1
        x[i + 1] = n == 1
        x[i + 2] = n >= 2
        x[i + 3] = n == 3
        x[i + 4] = (n - 3) / 2 if n >= 4 else 0.0
    x[120] = -pos[0] / 2
    x[121] = pos[26] / 15
    return float((RACE_WEIGHTS if race else CONTACT_WEIGHTS) @ x)


def test_reference_covers_contact_race_and_bearoff(cases):
    """The stored cases are a few thousand, of every kind, each with a real choice."""
    boards = cases["boards"]
    home = ~(boards[:, 7:26] > 0).any(axis=1)
    assert len(boards) >= 2500
    assert (~cases["race"]).sum() >= 1000
    assert (cases["race"] & ~home).sum() >= 500
    assert (cases["race"] & home).sum() >= 300
    assert (legal_plays(boards, cases["dice"]).counts(len(boards)) >= 2).all()


def test_published_weights():
    """122 weights per vector; spot values of Tesauro's published tables."""
    assert CONTACT_WEIGHTS.shape == RACE_WEIGHTS.shape == (122,)
    assert (CONTACT_WEIGHTS[[0, 4, 119, 120, 121]] ==
            [0.25696, -2.53398, -4.11520, 5.62596, -2.75800]).all()
    assert (RACE_WEIGHTS[[1, 94, 119, 120, 121]] ==
            [-0.17160, 5.35000, -12.32252, 0.0, 3.42040]).all()
    assert (RACE_WEIGHTS[0:120:5] == 0).all()  # an opponent blot never matters in a race


def test_scores_equal_gnubg_bit_for_bit(cases):
    """Our score of each chosen result is exactly gnubg's pub_eval_score of it.

    pub_eval_score classifies the board it is given, as pubeval_scores does by default.
    Exact, not approximate: we repeat gnubg's float32 operations in its order.
    """
    np.testing.assert_array_equal(pubeval_scores(cases["results"]), cases["scores"])


def test_scores_follow_tesauros_formula(cases):
    """Within float32 rounding, the scores are the published linear function of setx."""
    boards = np.concatenate([cases["boards"], cases["results"]])
    for race in (False, True):
        ours = pubeval_scores(boards, race=np.full(len(boards), race))
        slow = np.array([tesauro_pubeval(b, race) for b in boards])
        np.testing.assert_allclose(ours, slow, rtol=0, atol=1e-4)


def test_choices_match_gnubg_on_every_case(chosen, cases):
    """pubeval's play is gnubg's pub_best_move on 100% of the stored cases."""
    plays, rows = chosen
    ours = [posid.encode(b) for b in plays.boards[rows]]
    wrong = [i for i, (a, b) in enumerate(zip(ours, cases["result_ids"])) if a != b]
    assert wrong == [], f"{len(wrong)} of {len(ours)} differ, first {wrong[:5]}"


def test_exact_ties_are_broken_in_gnubg_move_order(chosen, cases):
    """Where two plays score exactly the same, gnubg takes the first in its move list.

    The stored data hold one such true tie (a race, 1-1: 21/20 19/18(2) 13/12 against
    20/19 19/18(3), both -23.04673 as the decimal weights sum to the same value). Our rows
    come in a different order, so the tie must be broken by gnubg's generation order.
    """
    plays, rows = chosen
    n = len(cases["boards"])
    race = cases["race"][plays.root]
    scores = pubeval_scores(plays.boards, race=race)
    best = scores[rows]
    tied_counts = np.bincount(plays.root[scores == best[plays.root]], minlength=n)
    tied = np.flatnonzero(tied_counts > 1)
    assert len(tied) >= 1
    offsets = plays.offsets(n)
    for i in tied:
        candidates = [b.tobytes() for b in plays.boards[offsets[i]:offsets[i + 1]]
                      if pubeval_scores(b[None], race=[race[offsets[i]]])[0] == best[i]]
        assert len(candidates) >= 2  # a true tie, exactly equal scores
        d1, d2 = (int(d) for d in cases["dice"][i])
        first = next(k for k in gnubg_move_order(cases["boards"][i], d1, d2)
                     if k in candidates)
        assert first == cases["results"][i].tobytes()


def test_race_flag_matches_gnubg_classification(cases):
    """is_race agrees with gnubg's ClassifyPosition <= CLASS_RACE on the stored positions."""
    np.testing.assert_array_equal(is_race(cases["boards"]), cases["race"])


def test_race_is_decided_on_the_position_before_the_play(cases):
    """Some stored plays break contact; scoring each afterstate by its own class would
    then pick differently from gnubg on some of them, and the policy does not."""
    assert (is_race(cases["boards"]) != is_race(cases["results"])).any()
    plays = legal_plays(cases["boards"], cases["dice"])
    per_afterstate = best_per_root(pubeval_scores(plays.boards), plays.root,
                                 len(cases["boards"]))
    differ = [posid.encode(b) != r
              for b, r in zip(plays.boards[per_afterstate], cases["result_ids"])]
    assert sum(differ) >= 1


def test_hand_made_race_and_contact():
    """A pure race uses the race weights and a contact position the contact weights."""
    race = np.zeros(26, dtype=np.int8)
    race[[6, 5, 4, 8]] = [5, 4, 4, 2]  # mover: all below the opponent
    race[[20, 22, 24]] = [-5, -5, -5]
    contact = start_boards(1)[0]
    on_bar = race.copy()
    on_bar[8] -= 1
    on_bar[25] = 1  # a mover checker on the bar is behind everything: contact
    assert is_race(np.stack([race, contact, on_bar])).tolist() == [True, False, False]

    scores = pubeval_scores(np.stack([race, contact]))
    assert scores[0] == pytest.approx(tesauro_pubeval(race, True), abs=1e-5)
    assert scores[0] != pytest.approx(tesauro_pubeval(race, False), abs=1e-2)
    assert scores[1] == pytest.approx(tesauro_pubeval(contact, False), abs=1e-5)
    assert pubeval_scores(race[None], race=[False])[0] == pytest.approx(
        tesauro_pubeval(race, False), abs=1e-5)


def test_all_borne_off_scores_99999999():
    """A board with every mover checker off is pubeval's best possible result."""
    won = np.zeros(26, dtype=np.int8)
    won[[19, 24]] = [-10, -5]
    assert pubeval_scores(won[None])[0] == np.float32(99999999.0)


def test_policy_beats_random_in_the_game_loop():
    """Played through engine.game, pubeval beats the random policy almost always."""
    rng = np.random.default_rng(3)
    results = play((pubeval_policy(), random_policy(rng)), 40, rng)
    assert (results.points > 0).sum() >= 36


def test_matches_gnubg_live_on_fresh_positions():
    """With gnubg_nn installed: new random positions, same plays, scores and move order."""
    gnubg = pytest.importorskip("gnubg_nn")
    from gammon.eval.bots.gnubg import gnubg_board as to_gnubg
    from gammon.eval.gnubg.pubeval_reference import apply_gnubg_play, collect_positions, from_gnubg

    boards, dice = collect_positions(10, seed=2024)
    plays = legal_plays(boards, dice)
    rows = pubeval_policy()(plays, boards, dice)
    for i in np.flatnonzero(plays.counts(len(boards)) >= 2):
        d1, d2 = int(dice[i, 0]), int(dice[i, 1])
        gboard = to_gnubg(boards[i])
        theirs = apply_gnubg_play(boards[i], list(gnubg.pub_best_move(gboard, d1, d2)))
        np.testing.assert_array_equal(plays.boards[rows[i]], theirs)
        flipped = to_gnubg(-theirs[::-1])
        assert pubeval_scores(theirs[None])[0] == gnubg.pub_eval_score(flipped)
        order = dict.fromkeys(from_gnubg(gnubg.board_from_position_key(k)).tobytes()
                              for k in gnubg.moves(gboard, d1, d2))
        assert gnubg_move_order(boards[i], d1, d2) == list(order)
