"""Matches: paired dice, the statistics, reproducibility; the bot registry; the gnubg bot."""

from __future__ import annotations

import json
import math
import sys
import types

import numpy as np
import pytest

from gammon.engine.board import flip
from gammon.engine.movegen import legal_plays
from gammon.engine.sample import from_random_play
from gammon.eval.bots.simple import Bot, PubevalBot, RandomBot
from gammon.eval.playing.match import Z95, MatchResult, ci95, run_match
from gammon.eval.bots.registry import NAMES, BotUnavailable, make_bot


class Recorder(Bot):
    """Plays like ``inner`` and logs (tag, roll) at every call: one game at a time, one
    call per ply when the loop plays a single game."""

    def __init__(self, inner: Bot, tag: str, log: list):
        self.inner, self.tag, self.log = inner, tag, log

    def choose(self, plays, boards, dice):
        assert len(boards) == 1
        self.log.append((self.tag, tuple(int(d) for d in dice[0])))
        return self.inner.choose(plays, boards, dice)


def logged_games(games: int, **kwargs) -> tuple[list[list], MatchResult]:
    """A match of recorded random (A) and pubeval (B), one pair per chunk (one game when
    unpaired), so that the loop plays game 2i (A in seat 0) to its end, then game 2i + 1
    (B in seat 0). Returns each game's log of (tag, roll) per ply, and the result."""
    log: list = []
    a, b = Recorder(RandomBot(1), "A", log), Recorder(PubevalBot(), "B", log)
    chunk = 2 if kwargs.get("paired", True) else 1
    result = run_match(a, b, games, chunk=chunk, progress=False, **kwargs)
    ends = np.concatenate([[0], np.cumsum(result.plies)])
    return [log[s:e] for s, e in zip(ends[:-1], ends[1:])], result


def test_the_games_of_a_pair_see_the_same_dice():
    """Seat 0 is A in the first game and B in the second, and rolls the same dice."""
    games, result = logged_games(20, seed=3)
    assert len(games) == 20 and not (result.plies[0::2] == result.plies[1::2]).all()
    for first, second in zip(games[0::2], games[1::2]):
        seat0_first = [roll for tag, roll in first if tag == "A"]
        seat0_second = [roll for tag, roll in second if tag == "B"]
        common = min(len(seat0_first), len(seat0_second))
        assert common > 10 and seat0_first[:common] == seat0_second[:common]
        # and so does seat 1 (B, then A)
        seat1_first = [roll for tag, roll in first if tag == "B"]
        seat1_second = [roll for tag, roll in second if tag == "A"]
        common = min(len(seat1_first), len(seat1_second))
        assert seat1_first[:common] == seat1_second[:common]
    # different pairs get different dice
    assert len({tuple(roll for _, roll in g[:6]) for g in games[0::2]}) == 10


def test_unpaired_games_do_not_share_dice():
    games, _ = logged_games(10, seed=3, paired=False)
    assert [roll for _, roll in games[0][:10]] != [roll for _, roll in games[1][:10]]


def test_the_same_deterministic_bot_mirrors_each_pair():
    """pubeval against pubeval: a pair is one game played twice, seats swapped."""
    result = run_match("pubeval", "pubeval", 200, seed=11, progress=False)
    assert (result.points[0::2] == -result.points[1::2]).all()
    assert (result.plies[0::2] == result.plies[1::2]).all()
    assert result.ppg_a == 0 and result.ppg_a_ci95 == 0 and result.ci95_unpaired > 0.1


def test_statistics_of_a_hand_made_paired_result():
    points = np.array([2, -1, 1, 1, -3, 3, 1, -2, 0, -1], dtype=np.int8)  # 5 pairs
    plies = np.array([50, 60, 40, 44, 70, 66, 30, 52, 10000, 48], dtype=np.int32)
    r = MatchResult(points, plies, paired=True, seconds=2.0)
    assert r.games == 10 and r.wins_a == 5 and r.wins_b == 4 and r.unfinished == 1
    assert r.ppg_a == pytest.approx(0.1)
    pair_means = [0.5, 1.0, 0.0, -0.5, -0.5]
    mean = sum(pair_means) / 5
    sd = math.sqrt(sum((m - mean) ** 2 for m in pair_means) / 4)
    assert r.ppg_a_ci95 == pytest.approx(1.959964 * sd / math.sqrt(5))
    sd_games = math.sqrt(sum((int(p) - 0.1) ** 2 for p in points) / 9)
    assert r.ci95_unpaired == pytest.approx(1.959964 * sd_games / math.sqrt(10))
    assert (r.gammons_a, r.gammons_b, r.backgammons_a, r.backgammons_b) == (2, 2, 1, 1)
    d = r.to_dict()
    assert d["gammon_rate_a"] == 0.2 and d["backgammon_rate_b"] == 0.1
    assert d["win_rate_a"] == 0.5
    assert r.plies_per_game == pytest.approx(10460 / 10) and r.games_per_s == 5.0


def test_unpaired_ci_uses_every_game():
    points = np.array([1, -1, 2, 1, -1, 1], dtype=np.int8)
    r = MatchResult(points, np.full(6, 50, dtype=np.int32), paired=False)
    assert r.ppg_a_ci95 == r.ci95_unpaired == pytest.approx(ci95(points))
    assert ci95(points) == pytest.approx(Z95 * np.std(points, ddof=1) / math.sqrt(6))


def test_too_few_units_give_no_interval_not_a_crash():
    r = MatchResult(np.array([1, -2], dtype=np.int8), np.array([40, 40]), paired=True)
    assert math.isnan(r.ppg_a_ci95)
    d = r.to_dict()
    assert d["ppg_a_ci95"] is None and d["games_per_s"] is None
    json.dumps(d, allow_nan=False)


def test_reproducible_bit_for_bit_from_the_seed():
    """Bots made by name draw their seeds from the match seed: random vs random repeats."""
    first = run_match("random", "random", 60, seed=42, chunk=20, progress=False)
    again = run_match("random", "random", 60, seed=42, chunk=20, progress=False)
    other = run_match("random", "random", 60, seed=43, chunk=20, progress=False)
    assert first.points.tobytes() == again.points.tobytes()
    assert first.plies.tobytes() == again.plies.tobytes()
    assert first.plies.tobytes() != other.plies.tobytes()
    assert first.seed == 42


def test_a_match_without_a_seed_reports_the_one_it_drew():
    first = run_match("random", "pubeval", 10, progress=False)
    again = run_match("random", "pubeval", 10, seed=first.seed, progress=False)
    assert first.points.tobytes() == again.points.tobytes()


def test_paired_matches_need_an_even_number_of_games():
    with pytest.raises(ValueError, match="even"):
        run_match("random", "pubeval", 11, seed=1)
    assert run_match("random", "pubeval", 11, seed=1, paired=False, progress=False).games == 11


def test_pubeval_beats_random():
    r = run_match("pubeval", "random", 400, seed=7, progress=False)
    assert r.wins_a / r.games >= 0.95
    assert r.ppg_a - r.ppg_a_ci95 > 1.5  # mostly gammons
    assert 30 < r.plies_per_game < 120


def test_json_fields():
    r = run_match(PubevalBot(), RandomBot(0), 40, seed=1, progress=False)
    d = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    for key in ("games", "wins_a", "ppg_a", "ppg_a_ci95", "gammons_a", "gammons_b",
                "backgammons_a", "backgammons_b", "plies_per_game", "games_per_s",
                "paired", "seed", "ci95_unpaired", "gammon_rate_a", "backgammon_rate_b"):
        assert key in d, key
    assert d["games"] == 40 and d["paired"] is True and d["a"] == "pubeval"
    assert d["wins_a"] + d["wins_b"] + d["unfinished"] == 40


@pytest.mark.parametrize("variant", ["nackgammon", "hypergammon", "longgammon"])
def test_variants_play_to_the_end(variant):
    r = run_match("pubeval", "random", 20, seed=2, variant=variant, progress=False)
    assert r.unfinished == 0 and r.variant == variant


# --- the registry ----------------------------------------------------------------------


def test_unknown_bot_lists_the_valid_names():
    with pytest.raises(ValueError) as e:
        make_bot("gnubg2")
    for name in NAMES + ("net:PATH",):
        assert name in str(e.value)


@pytest.mark.parametrize("name", ["random", "pubeval", "racer", "heuristic"])
def test_every_builtin_name_makes_a_bot_that_plays(name):
    try:
        bot = make_bot(name, seed=1)
    except BotUnavailable:
        pytest.skip(f"eval/{name}.py is not there yet")
    assert isinstance(bot, Bot)
    r = run_match(bot, "random", 20, seed=1, progress=False)
    assert r.games == 20 and r.unfinished == 0


def test_random_bot_seed_is_used():
    boards, dice = from_random_play(np.random.default_rng(0), 2)
    plays = legal_plays(boards, dice)
    a, b, c = (make_bot("random", s).choose(plays, boards, dice) for s in (5, 5, 6))
    assert (a == b).all() and (a != c).any()


def test_net_names_go_to_the_model_package(monkeypatch):
    calls = []
    fake = types.ModuleType("gammon.model.player")
    fake.load_net_bot = lambda path, variant, plies: (calls.append((path, variant, plies))
                                                      or RandomBot(0))
    monkeypatch.setitem(sys.modules, "gammon.model.player", fake)
    make_bot("net:runs/x.pt", variant="nackgammon")
    make_bot("net:")
    make_bot("net:@1")
    make_bot("nodouble:net:runs/x.pt@2")
    assert calls == [("runs/x.pt", "nackgammon", 0), (None, "standard", 0),
                     (None, "standard", 1), ("runs/x.pt", "standard", 2)]


def test_net_names_without_the_model_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "gammon.model.player", None)  # import now fails
    with pytest.raises(BotUnavailable, match="net players need the model package"):
        make_bot("net:x.pt")


def test_gnubg_is_for_fifteen_checkers():
    with pytest.raises(ValueError, match="15-checker"):
        make_bot("gnubg", variant="hypergammon")


def test_gnubg_without_gnubg_nn_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "gnubg_nn", None)
    with pytest.raises(BotUnavailable, match=r"gammon\[gnubg\]"):
        make_bot("gnubg")


# --- the gnubg bot (needs gnubg-nn) -------------------------------------------------------


@pytest.fixture(scope="module")
def gnubg_nn():
    return pytest.importorskip("gnubg_nn")


def test_gnubg_bot_plays_gnubgs_own_choice(gnubg_nn):
    from gammon.eval.bots.gnubg import cubeless_equity, gnubg_board
    bot = make_bot("gnubg")
    boards, dice = from_random_play(np.random.default_rng(5), 3)
    boards, dice = boards[:150], dice[:150]
    plays = legal_plays(boards, dice)
    rows = bot.choose(plays, boards, dice)
    for i, row in enumerate(rows):
        best = gnubg_nn.best_move(gnubg_board(boards[i]), int(dice[i, 0]), int(dice[i, 1]),
                                  n=0, b=1)
        if plays.counts(len(boards))[i] > 1:
            assert gnubg_nn.key_of_board(gnubg_board(flip(plays.boards[row]))) == best[1]
    # the scores are 0-ply equities of the opponent's turn, negated, for every row
    scores = bot.scores(plays, boards, dice)
    some = np.arange(0, len(plays), 7)
    ours = [-cubeless_equity(gnubg_nn.probabilities(gnubg_board(flip(plays.boards[k])), 0))
            for k in some]
    np.testing.assert_allclose(scores[some], ours, atol=1e-6)
    best = np.array([scores[plays.root == i].max() for i in range(len(boards))])
    assert (scores[rows] == best).all()  # an exact tie may go to another best row


def test_gnubg_beats_pubeval_a_little(gnubg_nn):
    r = run_match("gnubg", "pubeval", 60, seed=1, progress=False)
    assert r.unfinished == 0 and r.ppg_a > -0.3
