"""Legal plays: the vectorised generator against GNU Backgammon's and the scalar reference."""

import numpy as np
import pytest

from gammon.engine import movegen, reference
from gammon.engine.formats import posid
from gammon.engine.rules import STANDARD
from gammon.engine.board import flip, on_board
from gammon.engine.movegen import legal_plays
from gammon.engine.sample import ALL_ROLLS, from_random_play, synthetic


def results_of(plays, i, offsets):
    """The result boards of input i."""
    return plays.boards[offsets[i]:offsets[i + 1]]


def test_every_corpus_case_matches_gnubg(corpus, corpus_arrays):
    boards, dice = corpus_arrays
    plays = legal_plays(boards, dice)
    offsets = plays.offsets(len(boards))
    assert (np.diff(plays.root) >= 0).all()
    for i, case in enumerate(corpus):
        mine = results_of(plays, i, offsets)
        used = plays.dice_used[offsets[i]:offsets[i + 1]]
        if not case["results"]:  # no legal play: the position itself, once
            assert len(mine) == 1 and (mine[0] == boards[i]).all(), case["case"]
            assert used.tolist() == [0]
        else:
            assert sorted(posid.encode(b) for b in mine) == case["results"], case["case"]
            assert (used == case["dice_used"]).all(), case["case"]


def test_corpus_one_position_at_a_time(corpus, corpus_arrays):
    """The batch-of-one path gives the same results as the batched one."""
    boards, dice = corpus_arrays
    batched = legal_plays(boards, dice)
    offsets = batched.offsets(len(boards))
    for i in range(len(boards)):
        single = legal_plays(boards[i:i + 1], dice[i:i + 1])
        assert (single.root == 0).all()
        expected = results_of(batched, i, offsets)
        assert sorted(map(bytes, single.boards)) == sorted(map(bytes, expected)), i


def test_total_plays_over_the_corpus_is_pinned(corpus_arrays, corpus):
    plays = legal_plays(*corpus_arrays)
    # gnubg's result count, plus one "no play" row per blocked case
    expected = sum(len(c["results"]) for c in corpus) + sum(not c["results"] for c in corpus)
    assert len(plays) == expected == 28458


def _check_against_reference(boards, dice):
    plays = legal_plays(boards, dice)
    offsets = plays.offsets(len(boards))
    for i in range(len(boards)):
        expected = reference.legal_boards(boards[i], int(dice[i, 0]), int(dice[i, 1]))
        mine = results_of(plays, i, offsets)
        assert sorted(map(bytes, mine)) == sorted(map(bytes, expected)), (
            f"position {boards[i].tolist()} roll {dice[i].tolist()}")


def _positions(seed, n):
    """n positions: half from random play of every variant, half synthetic."""
    rng = np.random.default_rng(seed)
    games = max(6, n // 300)
    parts = [from_random_play(rng, games, v)[0] for v in
             ("standard", "nackgammon", "hypergammon", "longgammon")]
    played = np.concatenate(parts)
    played = played[rng.choice(len(played), n // 2, replace=False)]
    return np.concatenate([played, synthetic(rng, n - n // 2)])


def test_vectorised_equals_scalar_reference_on_800_positions_and_21_rolls():
    """(The 20,000-position run is ``-m slow``.)"""
    boards = _positions(seed=7, n=800)
    all_boards = np.repeat(boards, len(ALL_ROLLS), axis=0)
    all_dice = np.tile(ALL_ROLLS, (len(boards), 1))
    # dice in either order mean the same roll
    swap = np.random.default_rng(1).random(len(all_dice)) < 0.5
    all_dice[swap] = all_dice[swap][:, ::-1]
    _check_against_reference(all_boards, all_dice)


@pytest.mark.slow
def test_vectorised_equals_scalar_reference_on_20000_positions():
    boards = _positions(seed=11, n=20000)
    all_boards = np.repeat(boards, len(ALL_ROLLS), axis=0)
    all_dice = np.tile(ALL_ROLLS, (len(boards), 1))
    for start in range(0, len(all_boards), 8192):
        _check_against_reference(all_boards[start:start + 8192], all_dice[start:start + 8192])


def test_recorded_play_reaches_each_result(corpus_arrays):
    """The steps kept with each result replay, by the scalar rules, to that very board."""
    boards, dice = corpus_arrays
    plays = legal_plays(boards, dice)
    steps, hits = plays.steps, plays.hits
    for k in range(len(plays)):
        root = plays.root[k]
        b = tuple(int(x) for x in boards[root])
        used = []
        for (source, target), hit in zip(steps[k], hits[k]):
            if source < 0:
                break
            die = source - target
            if target == 0:  # bearing off may use a larger die
                die = next(d for d in sorted(set(dice[root].tolist())) if d >= source)
            b, did_hit = STANDARD.step(b, int(source), int(die))
            assert did_hit == hit
            used.append(die)
        assert len(used) == plays.dice_used[k]
        assert b == tuple(int(x) for x in plays.boards[k])


def test_hash_collisions_fall_back_to_exact_merging(monkeypatch, corpus_arrays):
    """With a 1-bit hash nearly every merge collides; results must not change."""
    boards, dice = corpus_arrays
    honest = legal_plays(boards, dice)
    calls = []
    exact = movegen._unique_rows_exact

    def spy(*args):
        calls.append(1)
        return exact(*args)

    monkeypatch.setattr(movegen, "HASH_BITS", 1)
    monkeypatch.setattr(movegen, "_unique_rows_exact", spy)
    crushed = legal_plays(boards, dice)
    assert calls, "the exact path was never taken"
    assert (crushed.root == honest.root).all()
    for i in range(len(boards)):
        a = crushed.boards[crushed.root == i]
        b = honest.boards[honest.root == i]
        assert sorted(map(bytes, a)) == sorted(map(bytes, b))


def test_no_duplicates_and_checkers_conserved():
    boards = _positions(seed=3, n=400)
    rng = np.random.default_rng(2)
    dice = ALL_ROLLS[rng.integers(0, 21, len(boards))]
    plays = legal_plays(boards, dice)
    keys = np.column_stack([plays.root, plays.boards.astype(np.int64)])
    assert len(np.unique(keys, axis=0)) == len(plays)
    mover_before, opp_before = on_board(boards)
    mover_after, opp_after = on_board(plays.boards)
    borne = mover_before[plays.root] - mover_after
    assert (borne >= 0).all() and (borne <= 4).all()
    assert (opp_after == opp_before[plays.root]).all()  # hit checkers go to the bar
    assert set(plays.root.tolist()) == set(range(len(boards)))


def test_batch_limit_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(movegen, "MAX_BATCH", 2)
    with pytest.raises(ValueError, match="at most 2 positions"):
        legal_plays(np.zeros((3, 26), np.int8), np.ones((3, 2), int))


def test_flip_is_its_own_inverse():
    boards = _positions(seed=5, n=200)
    assert (flip(flip(boards)) == boards).all()
    assert (flip(boards)[:, 0] <= 0).all() and (flip(boards)[:, 25] >= 0).all()


def test_an_empty_batch_has_no_plays():
    plays = legal_plays(np.zeros((0, 26), np.int8), np.zeros((0, 2), int))
    assert len(plays) == 0 and plays.steps.shape == (0, 4, 2) and plays.counts(0).shape == (0,)
