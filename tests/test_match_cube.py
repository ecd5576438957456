"""Score-aware cube decisions (model.match_cube): match winning chances of certain
outcomes, symmetry, money play as model.cube, the Crawford game, post-Crawford doubles,
monotony in the winning chances, dead cubes, and the arrays' shapes."""

import numpy as np
import pytest

from gammon.engine.formats.matchid import decode_match_id
from gammon.engine.met import met_from_gammon_rate
from gammon.model import cube as money
from gammon.model import match_cube as mc
from gammon.model.match_cube import MOVER, OPPONENT, MatchScore


@pytest.fixture(scope="module")
def met():
    return met_from_gammon_rate(11, 0.26, cube=True)


def after(met, a, b, post=False):
    """M(a, b) after a game, straight from the table."""
    return met.win_probability(a, b, post_crawford=post)


def gammon_family(p, gammons=0.25, backgammons=0.02):
    """Five probabilities (N, 5) for winning chances p (N,) with fixed gammon shares."""
    p = np.asarray(p, dtype=np.float64)
    return np.stack([p, gammons * p, backgammons * p, gammons * (1 - p),
                     backgammons * (1 - p)], axis=1)


RNG = np.random.default_rng(7)


def random_five(n=300):
    """Sound five probabilities (N, 5): gammons inside wins, backgammons inside gammons."""
    p = RNG.uniform(0, 1, n)
    wg = p * RNG.uniform(0, 0.6, n)
    lg = (1 - p) * RNG.uniform(0, 0.6, n)
    return np.stack([p, wg, wg * RNG.uniform(0, 0.2, n), lg, lg * RNG.uniform(0, 0.2, n)], 1)


# ---------------------------------------------------------- cubeless match winning chances

CERTAIN = {"single win": ([1, 0, 0, 0, 0], 1, 0), "gammon win": ([1, 1, 0, 0, 0], 2, 0),
           "backgammon win": ([1, 1, 1, 0, 0], 3, 0), "single loss": ([0, 0, 0, 0, 0], 0, 1),
           "gammon loss": ([0, 0, 0, 1, 0], 0, 2), "backgammon loss": ([0, 0, 0, 1, 1], 0, 3)}


@pytest.mark.parametrize("outcome", CERTAIN)
@pytest.mark.parametrize("a, b, cube", [(7, 7, 1), (5, 3, 1), (6, 9, 2), (4, 2, 1), (11, 5, 4)])
def test_certain_outcomes_move_the_score_by_the_cube(met, outcome, a, b, cube):
    p5, won, lost = CERTAIN[outcome]
    got = mc.match_winning_chances(np.array([p5]), MatchScore(a, b, 11, cube=cube), met)
    want = after(met, a - won * cube, b - lost * cube)
    assert got.shape == (1,) and got[0] == pytest.approx(want, abs=1e-12)


def test_certain_outcomes_post_crawford_and_at_the_end(met):
    # post-Crawford 4-away/1-away: a loss of any size ends the match, a win moves the trailer
    score = MatchScore(4, 1, 7)
    p5 = np.array([v[0] for v in CERTAIN.values()], dtype=float)
    got = mc.match_winning_chances(p5, score, met)
    assert got.tolist() == pytest.approx([after(met, 3, 1, True), after(met, 2, 1, True),
                                          after(met, 1, 1, True), 0.0, 0.0, 0.0])
    # 2-away, cube 2: any win wins the match
    got = mc.match_winning_chances(p5[:3], MatchScore(2, 5, 7, cube=2, owner=MOVER), met)
    assert got.tolist() == [1.0, 1.0, 1.0]
    # a game that reaches 1-away for the first time makes the next one the Crawford game
    one = mc.match_winning_chances(np.array([[1.0, 0, 0, 0, 0]]), MatchScore(2, 5, 7), met)
    assert one[0] == pytest.approx(met.pre[1, 5])


def test_mixed_outcomes_weigh_each_score(met):
    p5 = np.array([[0.6, 0.2, 0.05, 0.1, 0.01]])
    got = mc.match_winning_chances(p5, MatchScore(7, 5, 9), met)[0]
    want = (0.4 * after(met, 6, 5) + 0.15 * after(met, 5, 5) + 0.05 * after(met, 4, 5)
            + 0.3 * after(met, 7, 4) + 0.09 * after(met, 7, 3) + 0.01 * after(met, 7, 2))
    assert got == pytest.approx(want, abs=1e-12)


def flip_five(p5):
    """The same game from the other side."""
    return np.stack([1 - p5[:, 0], p5[:, 3], p5[:, 4], p5[:, 1], p5[:, 2]], axis=1)


@pytest.mark.parametrize("a, b", [(7, 7), (5, 3), (2, 9), (4, 1), (1, 6)])
def test_match_winning_chances_are_symmetric(met, a, b):
    p5 = random_five(50)
    mine = mc.match_winning_chances(p5, MatchScore(a, b, 11), met)
    theirs = mc.match_winning_chances(flip_five(p5), MatchScore(b, a, 11), met)
    assert np.allclose(mine + theirs, 1.0, atol=1e-9)


def test_dead_cube_equities_are_symmetric_at_efficiency_zero(met):
    # with x = 0 ND is the cubeless MWC for either side, whoever holds the cube
    p5 = random_five(40)
    a = mc.match_cube_equities(p5, MatchScore(6, 4, 9, cube=2, owner=MOVER), met, 0.0)
    b = mc.match_cube_equities(flip_five(p5), MatchScore(4, 6, 9, cube=2, owner=OPPONENT),
                               met, 0.0)
    assert np.allclose(a.no_double + b.no_double, 1.0)


# ---------------------------------------------------------------------------- money play

@pytest.mark.parametrize("owner", [0, 1, -1])
@pytest.mark.parametrize("efficiency", [0.0, 0.68, 1.0])
def test_money_play_is_model_cube(owner, efficiency):
    p5 = random_five()
    score = MatchScore(owner=owner)  # length 0
    ours = mc.match_decide(p5, score, efficiency=efficiency)
    theirs = money.decide(p5, owner, efficiency, jacoby=False, beavers=False)
    assert np.array_equal(ours.action, theirs.action)
    assert np.array_equal(ours.response, theirs.response)
    assert np.array_equal(ours.equity, theirs.equity)
    eq, want = (mc.match_cube_equities(p5, score, efficiency=efficiency),
                money.cube_equities(p5, owner, efficiency))
    assert np.array_equal(eq.no_double, want.no_double)
    assert np.array_equal(eq.double_take, want.double_take)


def test_money_and_match_do_not_mix():
    with pytest.raises(ValueError, match="mixed"):
        mc.match_decide(random_five(2), MatchScore(np.array([5, 0]), np.array([5, 0]),
                                                   np.array([7, 0])))


def test_a_long_match_at_an_even_score_decides_almost_as_money(met):
    # 11-away/11-away is far from the end: the decisions agree with money play's
    # nearly everywhere (gammons are worth a little less there)
    p5 = random_five(400)
    ours = mc.match_decide(p5, MatchScore(11, 11, 11), met)
    theirs = money.decide(p5, 0, beavers=False)
    assert (ours.action == theirs.action).mean() > 0.85
    assert (ours.response == theirs.response).mean() > 0.85


# --------------------------------------------------------------- Crawford, post-Crawford

def test_the_crawford_game_has_no_double(met):
    p5 = gammon_family(np.linspace(0.01, 0.99, 99))
    for a, b in ((1, 5), (4, 1), (2, 1), (1, 2)):
        score = MatchScore(a, b, 7, crawford=True)
        d = mc.match_decide(p5, score, met)
        assert (d.action == mc.NO_DOUBLE).all()
        # no cube in this game: the no-double equity is the cubeless MWC
        assert np.allclose(d.equity, mc.match_winning_chances(p5, score, met))


@pytest.mark.parametrize("a", [2, 3, 4, 5, 7, 10])
def test_post_crawford_the_trailer_doubles_at_once(met, a):
    # every game from hopeless to a fair favourite, few gammons: double, never "no double"
    p5 = gammon_family(np.linspace(0.02, 0.6, 59), gammons=0.1, backgammons=0.0)
    d = mc.match_decide(p5, MatchScore(a, 1, 11), met)
    assert (d.action == mc.DOUBLE).all()
    # and doubling is never worse than waiting, whatever the position
    eq = mc.match_cube_equities(random_five(), MatchScore(a, 1, 11), met)
    assert (eq.double_take >= eq.no_double - 1e-12).all()


def test_post_crawford_the_leader_never_doubles(met):
    d = mc.match_decide(gammon_family(np.linspace(0.01, 0.99, 99)), MatchScore(1, 4, 7), met)
    assert (d.action == mc.NO_DOUBLE).all()


def test_free_drop_at_two_away_one_away(met):
    # the trailer 2-away: a taken double is played for the match; a pass leaves 1-away/
    # 1-away (half). The leader takes exactly when the trailer wins half the games or less
    p = np.array([0.3, 0.45, 0.5, 0.55, 0.7])
    d = mc.match_decide(gammon_family(p, 0.0, 0.0), MatchScore(2, 1, 5), met)
    assert [mc.RESPONSES[r] for r in d.response] == ["take", "take", "take", "pass", "pass"]
    eq = mc.match_cube_equities(gammon_family(p, 0.0, 0.0), MatchScore(2, 1, 5), met)
    assert np.allclose(eq.double_take, p) and np.allclose(eq.double_pass, 0.5)


def test_two_away_two_away_takes_at_the_dead_cube_take_point(met):
    # a double at 2-away/2-away kills the cube (a single win then ends the match): the
    # taker takes as long as his chances beat his pass, 1-away/2-away in the Crawford game
    pass_value = met.pre[1, 2]
    p = np.array([pass_value - 0.01, pass_value + 0.01])
    eq = mc.match_cube_equities(gammon_family(p, 0.0, 0.0), MatchScore(2, 2, 7), met)
    assert np.allclose(eq.double_take, p)
    assert eq.double_pass[0] == pytest.approx(pass_value)
    d = mc.match_decide(gammon_family(p, 0.0, 0.0), MatchScore(2, 2, 7), met)
    assert [mc.RESPONSES[r] for r in d.response] == ["take", "pass"]


def test_two_away_two_away_values_positions_cubeless_as_gnubg_does():
    """At 2-away 2-away no live-cube line: ND and DT are the dead (cubeless) values. The
    numbers are GNU Backgammon 1.07's own, 0-ply cubeful analysis with Kazaross XG2
    (tests/data/real/gibbon/7point.sgf, game 8 at 5-5 of 7, move 26, `export match text`):
    the cube decision before the roll, then three plays of 4-2 valued with the opponent
    on roll (a live line there gave 8/4 5/3* +0.53 instead of +0.26)."""
    from gammon.engine.met import named_met
    xg2 = named_met("kazaross-xg2")
    score = MatchScore(2, 2, 7)
    eq = mc.match_cube_equities(np.array([[0.574842, 0.126323, 0.002960, 0.097336,
                                           0.002412]]), score, xg2)
    emg = [float(mc.to_emg(v, score, xg2)[0])
           for v in (eq.no_double, eq.double_take, eq.double_pass)]
    assert emg == pytest.approx([0.202415, 0.421978, 1.0], abs=2e-6)
    assert np.allclose(eq.no_double, mc.match_winning_chances(
        np.array([[0.574842, 0.126323, 0.002960, 0.097336, 0.002412]]), score, xg2))
    after_plays = np.array([[0.616593, 0.141845, 0.004737, 0.125108, 0.005026],  # 8/4 5/3*
                            [0.495538, 0.099480, 0.002513, 0.076872, 0.000658],  # 10/4
                            [0.405198, 0.090225, 0.004845, 0.281743, 0.010746]])  # 22/18 6/4
    mwc = mc.play_mwc(after_plays, MatchScore(np.full(3, 2), np.full(3, 2), 7), xg2)
    assert mc.to_emg(mwc, score, xg2, n=3) == pytest.approx([0.263632, -0.025156, -0.538],
                                                             abs=2e-6)
    # one point away from it the live lines are back
    live = mc.match_cube_equities(np.array([[0.574842, 0.126323, 0.002960, 0.097336,
                                             0.002412]]), MatchScore(3, 2, 7), xg2)
    dead = mc.match_winning_chances(np.array([[0.574842, 0.126323, 0.002960, 0.097336,
                                               0.002412]]), MatchScore(3, 2, 7), xg2)
    assert abs(live.no_double[0] - dead[0]) > 0.005


# ------------------------------------------------------------------------------ monotony

@pytest.mark.parametrize("a, b, cube, owner", [(7, 7, 1, 0), (5, 3, 1, 0), (3, 5, 1, 0),
                                               (6, 4, 2, MOVER), (5, 5, 2, OPPONENT),
                                               (4, 1, 1, 0), (2, 2, 1, 0), (9, 2, 1, 0)])
def test_equities_rise_with_the_winning_chances(met, a, b, cube, owner):
    p = np.linspace(0.0, 1.0, 201)
    score = MatchScore(a, b, 11, cube=cube, owner=owner)
    p5 = gammon_family(p)
    eq = mc.match_cube_equities(p5, score, met)
    for values in (eq.no_double, eq.double_take, mc.match_winning_chances(p5, score, met)):
        assert (np.diff(values) >= -1e-12).all()
    d = mc.match_decide(p5, score, met)
    # the taker passes from some point on and takes below it
    passes = d.response == mc.PASS
    assert not (passes[:-1] & ~passes[1:]).any()
    # no double for the weakest games, and the MWC stays within the match's bounds
    assert d.action[0] == mc.NO_DOUBLE
    assert ((eq.no_double >= 0) & (eq.no_double <= 1)).all()


def test_more_efficiency_keeps_the_ends(met):
    # the live and dead lines meet at p = 0 and p = 1
    p5 = gammon_family(np.array([0.0, 1.0]))
    score = MatchScore(5, 4, 7)
    for x in (0.0, 0.5, 1.0):
        eq = mc.match_cube_equities(p5, score, met, x)
        assert np.allclose(eq.no_double, mc.match_winning_chances(p5, score, met))


# ---------------------------------------------------------------------------- dead cubes

def test_a_cube_that_already_wins_the_match_is_not_doubled(met):
    p5 = gammon_family(np.linspace(0.01, 0.99, 99))
    for score in (MatchScore(2, 5, 7, cube=2, owner=MOVER), MatchScore(4, 6, 7, cube=4, owner=MOVER),
                  MatchScore(1, 1, 5), MatchScore(5, 3, 7, cube=2, owner=OPPONENT)):
        d = mc.match_decide(p5, score, met)
        assert (d.action == mc.NO_DOUBLE).all()
        assert not mc.may_double(score, 1)[0]
    assert mc.may_double(MatchScore(3, 5, 7, cube=2, owner=MOVER), 1)[0]


def test_gammons_that_cannot_count_change_nothing(met):
    base = np.array([[0.4, 0.1, 0.0, 0.0, 0.0]])
    heavy = np.array([[0.4, 0.1, 0.0, 0.45, 0.2]])  # the opponent's gammons
    # post-Crawford, the leader 1-away: any loss ends the match
    for score in (MatchScore(4, 1, 7), MatchScore(3, 1, 5)):
        assert mc.match_winning_chances(base, score, met) == \
            pytest.approx(mc.match_winning_chances(heavy, score, met))
        e1, e2 = (mc.match_cube_equities(p, score, met) for p in (base, heavy))
        assert e1.no_double == pytest.approx(e2.no_double)
        assert e1.double_take == pytest.approx(e2.double_take)
    # the opponent 2-away: once doubled, his single win ends the match
    e1, e2 = (mc.match_cube_equities(p, MatchScore(5, 2, 7), met) for p in (base, heavy))
    assert e1.double_take == pytest.approx(e2.double_take)
    assert e1.no_double != pytest.approx(e2.no_double)  # not before the double
    # the mover 2-away: his gammon already ends the match, backgammons add nothing
    g, bg = np.array([[0.6, 0.3, 0.0, 0.1, 0.0]]), np.array([[0.6, 0.3, 0.3, 0.1, 0.0]])
    assert mc.match_winning_chances(g, MatchScore(2, 4, 7), met) == \
        pytest.approx(mc.match_winning_chances(bg, MatchScore(2, 4, 7), met))


def test_no_gammons_at_all_make_money_take_points_at_an_even_long_score(met):
    # sanity: the fully live take point at a long even score sits near money's 20%,
    # the dead one (x = 0) near 25%
    score = MatchScore(11, 11, 11)
    p = np.linspace(0.6, 0.95, 351)
    for x, want in ((1.0, 0.80), (0.0, 0.75)):
        d = mc.match_decide(gammon_family(p, 0.0, 0.0), score, met, x)
        first_pass = p[np.argmax(d.response == mc.PASS)]
        assert first_pass == pytest.approx(want, abs=0.03)


# ------------------------------------------------------------------- shapes and inputs

def test_scores_per_row_equal_scores_one_at_a_time(met):
    p5 = random_five(6)
    rows = [(7, 7, 1, 0), (2, 1, 1, 0), (5, 3, 2, MOVER), (3, 4, 2, OPPONENT),
            (2, 2, 1, 0), (1, 3, 1, 0)]
    a, b, c, o = (np.array(col) for col in zip(*rows))
    together = mc.match_cube_equities(p5, MatchScore(a, b, 9, False, c, o), met)
    for i, (ai, bi, ci, oi) in enumerate(rows):
        alone = mc.match_cube_equities(p5[i:i + 1], MatchScore(ai, bi, 9, False, ci, oi), met)
        assert together.no_double[i] == pytest.approx(alone.no_double[0])
        assert together.double_take[i] == pytest.approx(alone.double_take[0])
        assert together.double_pass[i] == pytest.approx(alone.double_pass[0])
    assert together.no_double.shape == (6,)


def test_six_outcomes_are_accepted(met):
    from gammon.engine.outcomes import to_five
    six = RNG.dirichlet(np.ones(6), 20)
    score = MatchScore(5, 4, 7)
    assert np.allclose(mc.match_winning_chances(six, score, met),
                       mc.match_winning_chances(to_five(six), score, met))


def test_emg_units(met):
    score = MatchScore(5, 3, 7)
    win, lose = after(met, 4, 3), after(met, 5, 2)
    assert mc.to_emg([win, lose, (win + lose) / 2], score, met, 3).tolist() == \
        pytest.approx([1.0, -1.0, 0.0])


def test_scores_from_a_match_id():
    state = decode_match_id("UQngADAAEAAE")  # 7 points, 2-4 (player 1 on roll), cube 2 his
    s = MatchScore.from_match_state(state)
    assert (s.away, s.opp_away, s.length, s.cube, s.owner, s.crawford) == (5, 4, 7, 2, MOVER, False)
    other = MatchScore.from_match_state(state, player=0)
    assert (other.away, other.opp_away, other.owner) == (4, 5, OPPONENT)
    crawford = MatchScore.from_match_state(decode_match_id("8AngAGAAIAAE"))
    assert (crawford.away, crawford.opp_away, crawford.crawford) == (3, 1, True)


@pytest.mark.parametrize("score, words", [
    (MatchScore(0, 3, 7), "1-away or more"), (MatchScore(12, 3, 12), "beyond this"),
    (MatchScore(5, 3, 4), "match length"), (MatchScore(5, 3, 7, crawford=True), "Crawford"),
    (MatchScore(5, 3, 7, cube=3), "power of two")])
def test_impossible_scores_are_refused(met, score, words):
    with pytest.raises(ValueError, match=words):
        mc.match_decide(random_five(1), score, met)


@pytest.mark.parametrize("a, b", [(7, 7), (5, 3), (3, 5), (4, 4), (9, 6)])
def test_the_doubling_window_at_a_score(met, a, b):
    """As the mover's chances rise (no gammons), his action goes no double -> double/take
    -> double/pass and never back: one window of doubles, and within it the taker's
    answer turns from take to pass once, where double/take meets double/pass; the window
    opens below the point where the taker passes (a double is never first right as a
    pass). Without gammons nothing is too good."""
    p = np.linspace(0.5, 0.99, 491)  # (at certainty, 1.0, doubling and not are equal)
    five = gammon_family(p, 0.0, 0.0)
    score = MatchScore(a, b, 11)
    d = mc.match_decide(five, score, met)
    eq = mc.match_cube_equities(five, score, met)
    double = d.action == mc.DOUBLE
    assert not (d.action == mc.TOO_GOOD).any()
    opens = np.flatnonzero(double)
    assert len(opens) and (np.diff(opens) == 1).all() and double[-1]  # one window, to the end
    passes = d.response == mc.PASS
    flips = np.flatnonzero(np.diff(passes.astype(int)))
    assert len(flips) == 1 and passes[-1] and not passes[0]  # take, then pass, once
    take_point = p[flips[0] + 1]
    assert p[opens[0]] < take_point  # there is a double/take window
    assert eq.double_take[flips[0]] <= eq.double_pass[flips[0]] + 1e-12
    assert eq.double_take[flips[0] + 1] > eq.double_pass[flips[0] + 1]
