"""Matches to N points: the Crawford rule, the score told to the bots, score-aware play and
cube, series of matches with their statistics, the command and its .mat files."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from gammon.engine.cube import CubeRules
from gammon.engine.dice import DiceTable
from gammon.engine.game import play
from gammon.engine.match import MatchContext, Matches, MatchScore, crawford_game
from gammon.engine.policy import best_per_root
from gammon.eval.playing.matchplay import matches_of, run_matches
from gammon.eval.bots.pubeval import pubeval_policy
from gammon.eval.bots.race_cube import KeithCube
from inprocess import gammon
from gnubg_helpers import GNUBG, assert_same_games, import_and_export

ROOT = Path(__file__).resolve().parent.parent
GAMMON = [sys.executable, "-m", "gammon.cli"]


def crawford_by_hand(points: list[int], length: int) -> list[bool]:
    """Which games of a match were Crawford games, from A's points per game (negative:
    B's), by the rule read plainly: the game right after the first time a player reaches
    N-1 points."""
    score, seen, out = [0, 0], False, []
    for p in points:
        crawford = not seen and length - 1 in score
        seen |= crawford
        out.append(crawford)
        score[0 if p > 0 else 1] += abs(p)
    return out


def test_the_crawford_game_is_the_one_after_a_player_first_reaches_n_minus_1():
    m = Matches.start(4, 7)
    rows = np.arange(4)
    # match 0: 5-0, A wins 1 -> 6-0: Crawford; B wins 2 -> 6-2: post-Crawford
    # match 1: A wins a gammon from 4 to 6: Crawford next
    # match 2: the trailer reaches 6 in the Crawford game: 6-6 is post-Crawford, not a
    #          second Crawford game
    # match 3: nobody near: no Crawford game
    m.score[:] = [[5, 0], [4, 1], [6, 4], [2, 2]]
    assert list(m.crawford(rows)) == [False, False, True, False]
    m.record(rows, np.array([1, 2, -2, 1]))  # 6-0, 6-1, 6-6, 3-2
    assert list(m.crawford(rows)) == [True, True, False, False]
    assert list(m.crawford_games) == [0, 0, 1, 0] and list(m.had_crawford) == [0, 0, 1, 0]
    m.record(rows, np.array([-2, -1, -1, 1]))  # 6-2, 6-2, 6-7 (B wins), 4-2
    assert list(m.crawford(rows)) == [False, False, False, False]
    assert list(m.crawford_games) == [1, 1, 1, 0]
    assert list(m.over) == [False, False, True, False] and list(m.winner) == [-1, -1, 1, -1]
    # the same rule on any score array
    assert list(crawford_game(np.array([[6, 0], [0, 6], [5, 5]]), 7,
                              np.array([False, True, False]))) == [True, False, False]


def test_match_score_views_flip_and_pick_rows():
    ctx = MatchContext(np.array([7, 7]), np.array([[3, 5], [6, 0]]), np.array([False, True]))
    seen = ctx.view(np.array([0, 1]), np.array([0, 1]), np.array([2, 1]), np.array([1, 0]))
    assert list(seen.away) == [4, 7] and list(seen.opp_away) == [2, 1]  # seat 1 has 0
    assert list(seen.crawford) == [False, True]
    other = seen.flipped()
    assert list(other.away) == [2, 1] and list(other.owner) == [-1, 0]
    one = seen.rows(np.array([1, 1]))
    assert list(one.away) == [7, 7] and list(one.cube) == [1, 1]


class AlwaysDoubles:
    """Plays like pubeval, doubles whenever asked, always takes; remembers the scores it
    was told before each question."""

    def __init__(self):
        self.inner = pubeval_policy()
        self.told = []
        self.score = None

    def observe_score(self, score):
        self.score = score
        self.told.append(score)

    def __call__(self, plays, boards, dice):
        return self.inner(plays, boards, dice)

    def offer_double(self, boards, value, owner):
        assert self.score is not None and len(np.asarray(self.score.away)) == len(boards)
        self.offered_at = getattr(self, "offered_at", []) + list(self.score.away)
        return np.ones(len(boards), dtype=bool)

    def respond(self, boards, value, owner):
        return np.ones(len(boards), dtype=np.int8)


def test_no_double_in_the_crawford_game_and_every_decision_knows_the_score():
    games = 40
    rng = np.random.default_rng(3)
    crawford = np.arange(games) % 2 == 0
    score = np.where(crawford[:, None], [[6, 3]], [[2, 4]])
    ctx = MatchContext(np.full(games, 7), score, crawford)
    bots = (AlwaysDoubles(), AlwaysDoubles())
    r = play(bots, games, rng, cube=CubeRules(), match=ctx)
    offers = r.offers.sum(axis=1)
    assert (offers[crawford] == 0).all() and (offers[~crawford] > 0).all()
    # seat 0 is 5-away, seat 1 3-away in the other games: each doubler saw its own side
    assert set(bots[0].offered_at) == {5} and set(bots[1].offered_at) == {3}
    assert bots[0].told[-1] is None  # told money play again once the games were over
    with pytest.raises(ValueError, match="Jacoby"):
        play(bots, 2, rng, cube=CubeRules(jacoby=True), match=MatchContext(
            np.full(2, 7), np.zeros((2, 2), int), np.zeros(2, bool)))


def test_the_keith_cube_follows_the_plain_match_rules():
    keith = KeithCube()
    board = np.zeros((3, 26), dtype=np.int8)  # a contact position: never doubles for money
    board[:, 24], board[:, 13], board[:, 1] = 2, 13, -2
    board[:, 12] = -13
    assert not keith.offer_double(board, np.ones(3), np.zeros(3)).any()
    # post-Crawford trailer (3-away vs 1-away): doubles at once; the leader takes
    keith.observe_score(MatchScore(np.array([3, 1, 2]), np.array([1, 3, 5]), 7,
                                   np.array([False, False, False]), np.array([1, 1, 2])))
    assert list(keith.offer_double(board, np.array([1, 1, 2]), np.zeros(3))) == \
        [True, False, False]
    assert keith.respond(board, np.ones(3), np.zeros(3))[0] == 1
    keith.observe_score(None)
    assert not keith.offer_double(board, np.ones(3), np.zeros(3)).any()


def test_the_net_plays_for_the_match_at_double_match_point():
    """At double match point (both 1-away, post-Crawford) a gammon counts for nothing and the
    cube is dead: the net's match winning chance of a play is its chance to win the game,
    and it picks the play that wins most often -- not the money play where they differ."""
    from gammon.model.player import load_net_bot
    from gammon.engine.movegen import legal_plays
    bot = load_net_bot()
    rng = np.random.default_rng(11)
    table = DiceTable(rng, 1)
    boards, dice = [], []
    r = play((pubeval_policy(), pubeval_policy()), 64, rng,
             on_position=lambda b, d: (boards.append(b.copy()), dice.append(d.copy())))
    boards, dice = np.concatenate(boards)[::7], np.concatenate(dice)[::7]
    plays = legal_plays(boards, dice)
    n = len(boards)
    money = bot.choose(plays, boards, dice)
    probs = bot.probabilities(plays)
    dmp = MatchScore(np.ones(n, int), np.ones(n, int), 7, np.zeros(n, bool), 1, 0)
    bot.observe_score(dmp)
    assert bot.score_label == "MWC"
    np.testing.assert_allclose(bot.scores(plays, boards, dice),
                               probs[:, :3].sum(axis=1), atol=1e-6)
    match = bot.choose(plays, boards, dice)
    win = probs[:, :3].sum(axis=1).astype(np.float64)
    best = win[best_per_root(win, plays.root, n)]
    np.testing.assert_allclose(win[match], best, atol=1e-6)  # the most wins, to rounding
    assert (match != money).any()  # somewhere the gammons changed the money choice
    bot.observe_score(None)
    assert (bot.choose(plays, boards, dice) == money).all() and bot.score_label == "equity"
    assert len(r.points) == 64 and table is not None


def test_a_series_between_equal_bots_splits_every_pair_and_adds_up():
    r = run_matches("pubeval", "pubeval", 24, 5, seed=2, progress=False)
    assert r.wins_a == r.wins_b == 12 and r.win_rate_a_ci95 == 0.0  # the dice decide
    assert r.finished == 24
    for m in range(24):
        points = [int(p) for p in r.game_points[m, :r.games[m]]]
        assert sum(p for p in points if p > 0) == r.score[m, 0]
        assert -sum(p for p in points if p < 0) == r.score[m, 1]
        assert max(r.score[m]) >= 5 and (r.score[m] >= 5).sum() == 1
        assert (r.score[m, 0] >= 5) == (r.winner[m] == 0)
        # before the last game nobody had 5 points
        before = np.array([sum(p for p in points[:-1] if p > 0),
                           -sum(p for p in points[:-1] if p < 0)])
        assert before.max() < 5
        assert r.crawford_games[m] == sum(crawford_by_hand(points, 5))
    assert r.crawford_games.sum() > 0 and r.offers.sum() > 0
    again = run_matches("pubeval", "pubeval", 24, 5, seed=2, progress=False)
    assert (again.game_points == r.game_points).all()


def test_the_net_wins_most_matches_against_pubeval():
    r = run_matches("net:", "pubeval", 20, 3, seed=4, progress=False)
    assert r.win_rate_a > 0.6 and r.finished == 20
    d = r.to_dict()
    assert d["match_to"] == 3 and d["matches"] == 20 and d["games_per_match"] >= 2


def test_recorded_matches_replay_and_never_double_in_the_crawford_game():
    from gammon.engine.formats.matfile import DOUBLE, replay
    from gammon.engine.formats.record import PlayRecorder
    recorder = PlayRecorder()
    r = run_matches("net:", "pubeval", 8, 5, seed=6, progress=False, recorder=recorder)
    for m, match in enumerate(matches_of(recorder, r)):
        assert match.length == 5 and len(match.games) == r.games[m]
        assert match.total() == tuple(r.score[m])
        points = [g.points if g.winner == 0 else -g.points for g in match.games]
        for number, (game, crawford) in enumerate(zip(match.games,
                                                      crawford_by_hand(points, 5)), 1):
            assert replay(game, number=number).winner == game.winner
            if crawford:
                assert not any(a.kind == DOUBLE for a in game.actions)


def run(*args):
    """``gammon ARGS`` in this process (``tests/inprocess.py``): returncode, stdout, stderr."""
    return gammon(*args)


@pytest.mark.parametrize("args, words", [
    (["--match-to", "0"], "--match-to"),
    (["--match-to", "65"], "--match-to"),
    (["--match-to", "7", "--matches", "3"], "even"),
    (["--match-to", "7", "--games", "10"], "--matches"),
    (["--match-to", "7", "--jacoby"], "Jacoby"),
    (["--match-to", "7", "--actors", "2"], "--actors"),
    (["--matches", "10"], "--match-to"),
    (["--match-to", "x"], "--match-to"),
])
def test_bad_match_options_are_one_line_errors(args, words):
    out = run("match", "pubeval", "random", *args)
    assert out.returncode == 2, out.stderr
    assert words in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) <= 2  # usage line and the error


def test_the_command_reports_matches_and_saves_one_file_each(tmp_path):
    out = run("match", "pubeval", "heuristic", "--match-to", "3", "--matches", "4", "--seed", "1",
              "--json", "--save", str(tmp_path / "m.mat"))
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["matches"] == 4 and d["match_to"] == 3 and d["wins_a"] + d["wins_b"] == 4
    assert 0 <= d["match_win_rate_a"] <= 1 and d["games"] >= 8
    files = sorted(tmp_path.glob("m_*.mat"))
    assert [f.name for f in files] == [f"m_000{i}.mat" for i in range(1, 5)]
    assert " 3 point match" in files[0].read_text()
    text = run("match", "pubeval", "heuristic", "--match-to", "3", "--matches", "4", "--seed", "1")
    assert "match winning rate" in text.stdout and "Crawford games" in text.stdout


@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")
def test_gnubg_imports_our_matches_with_their_scores(tmp_path):
    from gammon.engine.formats.matfile import format_match
    from gammon.engine.formats.record import PlayRecorder
    from gnubg_helpers import run_gnubg
    recorder = PlayRecorder()
    r = run_matches("net:", "pubeval", 2, 5, seed=8, progress=False, recorder=recorder)
    for m, match in enumerate(matches_of(recorder, r, ("net", "pubeval"))):
        path = tmp_path / f"match{m}.mat"
        path.write_text(format_match(match))
        theirs, output = import_and_export(path, tmp_path)
        assert theirs.length == 5
        assert_same_games(match, theirs)
        said = run_gnubg([f"import mat {path}", "show score"], tmp_path)
        a, b = (int(x) for x in r.score[m])
        assert f"net {a}, pubeval {b} (match to 5 points" in said, said[-600:]


def test_analyze_ranks_plays_by_match_winning_chance_at_the_score():
    """At double match point the MWC of a play is its chance to win the game: analyze's
    ranking at --score 6-6 --length 7 is by that chance, and it says so."""
    out = run("analyze", "4HPwATDgc/ABMA", "--score", "6-6", "--length", "7", "--dice", "64",
              "--json")
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["play_equity"] == "mwc"
    wins = [r["probabilities"]["win"] for r in d["plays"]]
    assert [r["equity"] for r in d["plays"]] == pytest.approx(wins, abs=1e-6)
    assert wins == sorted(wins, reverse=True)
    text = run("analyze", "4HPwATDgc/ABMA", "--score", "6-6", "--length", "7", "--dice", "64")
    assert "match winning chance after the play" in text.stdout
