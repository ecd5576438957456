"""The one-sided bear-off database (engine.bearoff): its index, the table against a
brute-force computation with a move generator of its own, its cache, and the races it
values."""

from __future__ import annotations

import itertools
from functools import lru_cache
from math import comb

import numpy as np
import pytest

from gammon.engine import bearoff
from gammon.engine.bearoff import LONGEST, SIZE, BearoffDatabase, all_home, index
from gammon.engine.rules import HYPERGAMMON, NUCLEAR, STANDARD, SUDDENDEATH

# --- the index -----------------------------------------------------------------------------


def test_the_index_numbers_every_home_board_once():
    positions = bearoff.all_positions()
    assert SIZE == comb(21, 6) == 54_264
    assert len(positions) == SIZE
    assert (positions.sum(axis=1) <= 15).all() and (positions >= 0).all()
    assert (index(positions) == np.arange(SIZE)).all()
    assert len({tuple(p) for p in positions}) == SIZE


def test_the_index_by_hand():
    # no checkers: every separator at j - 1, C(j - 1, j) = 0
    assert index(np.array([[0, 0, 0, 0, 0, 0]]))[0] == 0
    # one checker on point 1: S = 1 everywhere, sum_j C(j, j) = 6
    assert index(np.array([[1, 0, 0, 0, 0, 0]]))[0] == 6
    # one checker on point 6: only S_6 = 1, C(6, 6) = 1
    assert index(np.array([[0, 0, 0, 0, 0, 1]]))[0] == 1
    # fifteen on point 1: the last index, C(21, 6) - 1
    assert index(np.array([[15, 0, 0, 0, 0, 0]]))[0] == SIZE - 1


# --- brute force, with a bear-off move generator of its own --------------------------------


def _moves(counts: tuple, die: int):
    """Every result of moving one checker of a home board by one die (all checkers home,
    nothing in the way): a checker on point p lands on p - die, or is borne off with an
    exact die, or with a larger die when no checker stands higher."""
    out = set()
    highest = max((p for p in range(6) if counts[p]), default=-1)  # 0-based point index
    for p in range(6):
        if not counts[p]:
            continue
        target = p - die  # 0-based: point p + 1 moves to p + 1 - die
        if target >= 0 or target == -1 or (target < -1 and p == highest):
            c = list(counts)
            c[p] -= 1
            if target >= 0:
                c[target] += 1
            out.add(tuple(c))
    return out


def _plays(counts: tuple, d1: int, d2: int) -> set:
    """The legal results of a roll: as many dice as can be played; the larger die when only
    one of two can be."""
    orders = [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]
    best_used, results = 0, {counts: 0}
    found: dict[tuple, int] = {}
    for order in orders:
        frontier = {counts}
        for used, die in enumerate(order, start=1):
            nxt = set()
            for c in frontier:
                nxt |= _moves(c, die)
            if not nxt:
                break
            for c in nxt:
                found[c] = max(found.get(c, 0), used)
            frontier = nxt
    if not found:
        return {counts}
    best_used = max(found.values())
    results = {c for c, u in found.items() if u == best_used}
    if d1 != d2 and best_used == 1:
        bigger = _moves(counts, max(d1, d2))
        if bigger:
            results = bigger
    return results


def _rolls():
    return [(a, b, (1 if a == b else 2) / 36) for a in range(1, 7) for b in range(1, a + 1)]


def _reference(max_checkers: int):
    """Brute force on every home board of up to ``max_checkers`` checkers: the mean and the
    distribution of rolls to bear all off and to bear the first off, each under the play of
    smallest mean (ties to the lowest database index, as documented)."""

    def idx(c):
        return int(index(np.array([c]))[0])

    @lru_cache(maxsize=None)
    def all_off(c):
        if sum(c) == 0:
            return 0.0, (1.0,) + (0.0,) * (LONGEST - 1)
        mean, dist = 1.0, np.zeros(LONGEST)
        for a, b, w in _rolls():
            options = sorted(_plays(c, a, b), key=lambda r: (all_off(r)[0], idx(r)))
            low = all_off(options[0])[0]
            pick = min((r for r in options if all_off(r)[0] <= low + 1e-9), key=idx)
            m, d = all_off(pick)
            mean += w * m
            dist[1:] += w * np.array(d[:-1])
        return mean, tuple(dist)

    @lru_cache(maxsize=None)
    def first_off(c):
        if sum(c) == 0:
            return 0.0, (1.0,) + (0.0,) * (LONGEST - 1)
        mean, dist = 1.0, np.zeros(LONGEST)
        for a, b, w in _rolls():
            options = _plays(c, a, b)
            done = [r for r in options if sum(r) < sum(c)]
            if done:
                dist[1] += w
                continue
            low = min(first_off(r)[0] for r in options)
            pick = min((r for r in options if first_off(r)[0] <= low + 1e-9), key=idx)
            m, d = first_off(pick)
            mean += w * m
            dist[1:] += w * np.array(d[:-1])
        return mean, tuple(dist)

    boards = [c for c in itertools.product(range(max_checkers + 1), repeat=6)
              if sum(c) <= max_checkers]
    return {c: (all_off(c), first_off(c)) for c in boards}


@pytest.fixture(scope="module")
def table():
    """The database the engine uses (built once per machine and cached: tests/conftest.py
    loads it first), its two arrays as float64."""
    db = bearoff.database()
    return db.rolls.astype(np.float64), db.first.astype(np.float64)


def test_the_table_matches_brute_force_on_every_board_of_up_to_four_checkers(table):
    rolls, first = table
    reference = _reference(4)
    assert len(reference) == comb(10, 6)  # 210 boards
    for counts, ((mean, dist), (_, first_dist)) in reference.items():
        i = int(index(np.array([counts]))[0])
        assert rolls[i] @ np.arange(LONGEST) == pytest.approx(mean, abs=1e-5), counts
        np.testing.assert_allclose(rolls[i], dist, atol=1e-6, err_msg=str(counts))  # float32
        np.testing.assert_allclose(first[i], first_dist, atol=1e-6, err_msg=str(counts))


def test_known_values(table):
    rolls, first = table
    mean = rolls @ np.arange(LONGEST)
    one_on_six = index(np.array([[0, 0, 0, 0, 0, 1]]))[0]
    # a checker on the 6-point stays when the dice add up to less than 6 with no 6 and
    # no double of 2 or more: 1-1, 2-1, 3-1, 4-1, 3-2 = 9 of 36 rolls
    assert rolls[one_on_six, 1] == pytest.approx(27 / 36)
    assert rolls[one_on_six, 2] == pytest.approx(9 / 36)
    # fifteen on the 6-point: 90 pips, the longest of all. The first checker is off at
    # once with a 6 (11 rolls), 5-1 and 4-2 (6/1/off, 6/2/off: 4 rolls), 3-3 and 2-2
    # (6/3/off, 6/4/2/off: 2 rolls): 17 of 36; 4-4 and 5-5 cannot bear off from a lower
    # point while checkers stand on the 6
    fifteen = index(np.array([[0, 0, 0, 0, 0, 15]]))[0]
    assert mean.argmax() == fifteen and 11.5 < mean[fifteen] < 13
    assert first[fifteen, 1] == pytest.approx(17 / 36)
    np.testing.assert_allclose(rolls.sum(axis=1), 1, atol=1e-5)
    np.testing.assert_allclose(first.sum(axis=1), 1, atol=1e-5)
    assert rolls[:, -1].max() < 1e-20  # nothing is lost to the 32-roll cut


# --- the cache -----------------------------------------------------------------------------


def test_the_cache_is_written_read_and_rebuilt_when_damaged(tmp_path, table, capsys,
                                                            monkeypatch):
    rolls, first = (a.astype(np.float32) for a in table)
    built = []
    monkeypatch.setattr(bearoff, "build", lambda progress: built.append(1) or table)
    path = tmp_path / "db.npz"
    bearoff.write(path, rolls, first)
    again = bearoff.read(path)
    assert again is not None and (again[0] == rolls).all() and (again[1] == first).all()
    # a flipped byte in the stored numbers: the checksum tells
    damaged = dict(np.load(path))
    damaged["rolls"] = damaged["rolls"].copy()
    damaged["rolls"][100, 3] += 0.25
    np.savez_compressed(path, **damaged)
    assert bearoff.read(path) is None
    # a truncated file, and none at all
    path.write_bytes(path.read_bytes()[:1000])
    assert bearoff.read(path) is None
    assert bearoff.read(tmp_path / "missing.npz") is None
    # loading a bad file rebuilds it and caches the good one
    db = BearoffDatabase.load(path, progress=False)
    assert "building the bear-off database" in capsys.readouterr().err and built == [1]
    assert (db.rolls == rolls).all()
    assert bearoff.read(path) is not None
    BearoffDatabase.load(path, progress=False)
    assert capsys.readouterr().err == "" and built == [1]  # read, not built again
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_the_cache_directory_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("GAMMON_CACHE", str(tmp_path / "here"))
    assert bearoff.cache_dir() == tmp_path / "here"
    monkeypatch.delenv("GAMMON_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert bearoff.cache_dir() == tmp_path / "xdg" / "gammon"


# --- races ---------------------------------------------------------------------------------


def _race(mine: dict, theirs: dict) -> np.ndarray:
    """A board: the mover's checkers on home points, the opponent's on its own home points
    (its point p is our 25 - p)."""
    b = np.zeros(26, dtype=np.int8)
    for p, n in mine.items():
        b[p] = n
    for p, n in theirs.items():
        b[25 - p] = -n
    return b


@pytest.fixture(scope="module")
def db(table):
    return BearoffDatabase(*(a.astype(np.float32) for a in table))


def test_race_outcomes_by_hand(db):
    boards = np.stack([
        _race({2: 1}, {1: 1}),  # any roll bears our last checker off: a sure single win
        _race({6: 1}, {1: 1}),  # 27 of 36 rolls bear it off; else the opponent wins
        _race({1: 1}, {6: 15}),  # off at once, the opponent has all 15 on: a gammon
        _race({6: 15}, {1: 1}),  # we have all 15 and the opponent is off next roll
    ])
    p = db.race_probabilities(boards)
    np.testing.assert_allclose(p[0], [0, 0, 1, 0, 0, 0], atol=1e-6)
    np.testing.assert_allclose(p[1], [0, 0, 27 / 36, 9 / 36, 0, 0], atol=1e-6)
    np.testing.assert_allclose(p[2], [0, 1, 0, 0, 0, 0], atol=1e-6)
    # our first roll bears one off with 17 of 36 (see test_known_values): else gammoned
    np.testing.assert_allclose(p[3], [0, 0, 0, 17 / 36, 19 / 36, 0], atol=1e-6)
    # sudden death has no gammons; hypergammon's gammon needs all three on the board
    np.testing.assert_allclose(db.race_probabilities(boards[2:3], 15, gammons=False)[0],
                               [0, 0, 1, 0, 0, 0], atol=1e-6)
    np.testing.assert_allclose(db.race_probabilities(boards[2:3], 3)[0],
                               [0, 0, 1, 0, 0, 0], atol=1e-6)


def test_race_win_chance_against_a_plain_sum(db):
    rng = np.random.default_rng(5)
    for _ in range(20):
        mine = {int(p): int(rng.integers(1, 4)) for p in rng.integers(1, 7, 3)}
        theirs = {int(p): int(rng.integers(1, 4)) for p in rng.integers(1, 7, 3)}
        board = _race(mine, theirs)
        a = db.rolls[index(np.maximum(board[None, 1:7], 0))[0]].astype(float)
        mirrored = [theirs.get(p, 0) for p in range(1, 7)]
        o = db.rolls[index(np.array([mirrored]))[0]].astype(float)
        # we win when we finish on roll k before the opponent's k-th roll
        win = sum(a[k] * (1 - o[:k].sum()) for k in range(LONGEST))
        p = db.race_probabilities(board[None])[0]
        assert p[:3].sum() == pytest.approx(win, abs=1e-6)
        assert p.sum() == pytest.approx(1, abs=1e-6) and (p >= 0).all()


def test_which_boards_the_database_settles():
    home = _race({1: 2, 5: 3}, {2: 4})
    contact = _race({1: 2}, {2: 4})
    contact[7] = 1  # a mover's checker outside home
    theirs_out = _race({1: 2}, {2: 4})
    theirs_out[10] = -1
    on_bar = _race({1: 2}, {2: 4})
    on_bar[25] = 1
    finished = _race({}, {2: 4})
    boards = np.stack([home, contact, theirs_out, on_bar, finished])
    assert all_home(boards).tolist() == [True, False, False, False, False]
    assert bearoff.settled(boards, STANDARD).tolist() == [True, False, False, False, False]
    assert bearoff.settled(boards, HYPERGAMMON)[0]
    assert not bearoff.settled(boards, NUCLEAR).any()  # a detonation can still hit
    assert SUDDENDEATH.gammons is False and STANDARD.gammons is True


def test_the_evaluators_take_races_from_the_database(db, monkeypatch):
    """NetEvaluator (torch) and NumpyEvaluator (bot files) answer settled races from the
    table and ask the network only about the rest."""
    torch = pytest.importorskip("torch")
    from gammon.model.net import ValueNet
    from gammon.model.policy import NetEvaluator
    monkeypatch.setattr(bearoff, "database", lambda: db)
    evaluator = NetEvaluator(ValueNet(198, (8,)).eval())
    asked = []
    network = evaluator.network
    monkeypatch.setattr(evaluator, "network", lambda b: asked.append(len(b)) or network(b))
    race = _race({6: 1}, {1: 1})
    start = STANDARD.start_board()
    p = evaluator(np.stack([start, race, start]))
    assert asked == [2]
    np.testing.assert_allclose(p[1], [0, 0, 27 / 36, 9 / 36, 0, 0], atol=1e-6)
    np.testing.assert_allclose(p[0], network(start[None])[0], atol=1e-6)
    del torch


def test_the_mean_rolls_agree_with_gnu_backgammons_table():
    """GNU Backgammon's one-sided table (through gnubg-nn, stored to about 1e-5 per entry)
    has the same mean number of rolls for every home board. (Its distributions differ
    slightly where two plays have the same mean: each table picks its own.)"""
    gnubg_nn = pytest.importorskip("gnubg_nn")
    db = bearoff.database()
    positions = bearoff.all_positions()
    worst = 0.0
    for i in range(1, SIZE):
        theirs = np.array(gnubg_nn.bearoff_probabilities(tuple(int(c) for c in positions[i])))
        mean = (np.arange(1, len(theirs) + 1) * theirs).sum()  # their entry 0 is one roll
        worst = max(worst, abs(mean - db.mean[i]))
    assert worst < 5e-4


@pytest.mark.slow
def test_a_fresh_build_is_the_cached_table(table):
    """build() itself, not the cache (about 15 s): the same numbers as the table in use."""
    rolls, first = bearoff.build()
    np.testing.assert_allclose(rolls, table[0], atol=1e-6)
    np.testing.assert_allclose(first, table[1], atol=1e-6)
