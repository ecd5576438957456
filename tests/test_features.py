"""The expert inputs (model.features, engine.shots) and the advanced encoding: each feature
on hand positions worked out by hand, ranges over positions of play, shots against the
engine's legal plays, escapes against a plain count, flip symmetry, and a network of the
advanced encoding that trains, saves, exports and plays."""

import numpy as np
import pytest

from gammon.engine.board import flip
from gammon.engine.movegen import legal_plays
from gammon.engine.rules import start_boards
from gammon.engine.sample import from_random_play, synthetic
from gammon.engine.shots import opponent_shots, shot_masks, shot_rolls
from gammon.model import features as F
from gammon.model.encoding import (CLASSIC_PLUS, ENCODINGS, WIDTHS, advanced, both_sides,
                            check_encoding, classic, encoder, width)

ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


def board(cells: dict[int, int]) -> np.ndarray:
    """A (1, 26) board from {cell: count}: positive for the mover, negative for the
    opponent (cell 0 its bar, cell 25 the mover's)."""
    b = np.zeros((1, 26), dtype=np.int8)
    for cell, count in cells.items():
        b[0, cell] = count
    return b


def feature(name: str, b: np.ndarray, checkers: int = 15) -> float:
    """One feature of the mover of a single board."""
    return float(F.side_features(b, checkers)[0, F.NAMES.index(name)])


@pytest.fixture(scope="module")
def positions():
    """Positions of random games (contact, races, checkers on the bar) and synthetic boards
    (many bar checkers, bear-offs), each board once."""
    played, _ = from_random_play(np.random.default_rng(11), 12)
    made = synthetic(np.random.default_rng(12), 1500)
    return np.unique(np.concatenate([played, made]), axis=0)


START = start_boards(1)


# --- hand positions -------------------------------------------------------------------------

def test_the_start_position():
    # pips: 2 * 24 + 5 * 13 + 3 * 8 + 5 * 6 = 167; nothing off
    assert feature("pips", START) == pytest.approx(167 / 200)
    assert [feature(f"checkers_off{i}", START) for i in range(3)] == [0, 0, 0]
    # the opponent's rearmost checker stands on cell 1: 2 * 23 + 5 * 12 + 3 * 7 + 5 * 5 = 152
    assert feature("break_contact", START) == pytest.approx(152 / 200)
    assert feature("back_checker", START) == pytest.approx(24 / 25)
    assert feature("back_anchor", START) == pytest.approx(24 / 24)
    assert feature("forward_anchor", START) == pytest.approx(1 / 6)  # the 24-point
    assert feature("hit_one", START) == feature("pip_loss", START) == 0  # no blot
    # timing: 5 on the midpoint 7 pips from the 6-point, 3 on the 8-point 2 pips; the two on
    # the 24-point hold the anchor: 35 + 6 = 41
    assert feature("timing", START) == pytest.approx(41 / 150)
    # backbone: points 6, 8, 13, 24; 8 has 6 two pips ahead, 13 has 8 five pips ahead;
    # 24 (11 from 13) and 6 have none: 2 of 4
    assert feature("backbone", START) == pytest.approx(0.5)
    # entering: the opponent holds one point (its 6-point, our cell 19) of its home board
    assert feature("entering", START) == pytest.approx(1 - (1 / 6) ** 2)


def test_back_escapes_from_the_start():
    """The back checker on 24 against points on 19 and 17 (5 and 7 pips ahead; the
    midpoint on 12 is 12 away, past the 11 the blockade looks at): it escapes landing on 16
    or lower. 6-5 6-4 6-3 6-2 over 18 (8 rolls), 5-4 5-3 over 20 and 21 (4), 4-4 3-3 2-2
    (3); not 6-1 5-2 4-3 (they reach 17 at best), 5-1, 6-6 (12 is closed), 5-5, 1-1, ...:
    15 of 36."""
    assert feature("back_escapes", START) == pytest.approx(15 / 36)


def test_checkers_off_fill_in_thirds():
    # 8 checkers left: 7 off, the first five fill the first unit, two of the next five
    b = board({1: 8, 24: -15})
    assert [feature(f"checkers_off{i}", b) for i in range(3)] == pytest.approx([1, 0.4, 0])
    # hypergammon: 3 checkers a side, thirds of one; 1 left: 2 off
    h = board({1: 1, 24: -3})
    assert [feature(f"checkers_off{i}", h, checkers=3) for i in range(3)] == [1, 1, 0]


def test_break_contact_counts_the_pips_past_the_rearmost_opponent():
    # the opponent's rearmost on cell 5: two checkers on 8 need 3 pips each, the one on 3
    # is past it already
    b = board({8: 2, 3: 1, 1: 12, 5: -1, 20: -14})
    assert feature("break_contact", b) == pytest.approx(6 / 200)
    # no contact: every checker of ours below every checker of theirs
    race = board({6: 5, 3: 10, 7: -15})
    assert feature("break_contact", race) == 0
    # an opponent checker on the bar counts as cell 0: pips to bear off
    bar = board({6: 2, 5: 1, 0: -1, 20: -14})
    assert feature("break_contact", bar) == pytest.approx(17 / 200)


def test_anchors_and_back_checker():
    b = board({20: 2, 24: 3, 13: 10, 1: -15})
    assert feature("forward_anchor", b) == pytest.approx(5 / 6)  # cell 20 is 5 from the end
    assert feature("back_anchor", b) == pytest.approx(1)
    assert feature("back_checker", b) == pytest.approx(24 / 25)
    on_bar = board({25: 1, 13: 2, 6: 12, 1: -15})
    assert feature("back_checker", on_bar) == 1
    assert feature("back_anchor", on_bar) == pytest.approx(13 / 24)
    assert feature("forward_anchor", on_bar) == 0


# One opponent checker on cell 7, three pips behind our blot on 10 (the opponent moves up);
# the rest out of the way: ours on cell 1, theirs on 24.
ONE_SHOT = {10: 1, 1: 14, 7: -1, 24: -14}


def test_a_blot_three_pips_in_front_of_one_checker():
    # direct: every roll with a 3, 11; indirect: 1-2 and 2-1 (through 8 or 9), 1-1 (8, 9):
    # 14 of 36; each hit costs 25 - 10 = 15 pips
    b = board(ONE_SHOT)
    assert feature("hit_one", b) == pytest.approx(14 / 36)
    assert feature("pip_loss", b) == pytest.approx(14 * 15 / (36 * 24))
    assert feature("hit_two", b) == 0


def test_blocked_intermediate_points_stop_indirect_shots():
    # our point on 8: 1-1 cannot pass it, 1-2 still goes through 9: 11 + 2 = 13
    assert feature("hit_one", board({**ONE_SHOT, 1: 12, 8: 2})) == pytest.approx(13 / 36)
    # points on 8 and 9: only the direct 3s, 11
    assert feature("hit_one", board({**ONE_SHOT, 1: 10, 8: 2, 9: 2})) == pytest.approx(11 / 36)


def test_two_blots_and_the_lone_checker():
    # blots on 10 and 12, 3 and 5 pips ahead of a lone checker on 7: it hits both only by
    # hitting on 10 and going on 2 more, 3-2 and 2-3; with 3-5 it hits one, not both
    lone = board({10: 1, 12: 1, 1: 13, 7: -1, 24: -14})
    assert feature("hit_two", lone) == pytest.approx(2 / 36)
    # two checkers on 7: 3-5 and 5-3 hit both as well
    pair = board({10: 1, 12: 1, 1: 13, 7: -2, 24: -13})
    assert feature("hit_two", pair) == pytest.approx(4 / 36)


def test_checkers_on_the_bar_enter_first():
    # two opponent checkers on the bar, our blots on 3 (an entry point) and 9: a mixed roll
    # only enters, so only the 3s hit (11); 1-1 enters on 1 and walks 2 -> 3 with the two
    # steps left (1); 3-3 enters hitting on 3 and walks 6 -> 9, hitting both (so one roll
    # hits two); every hit on 3 costs 22 pips, the one nearest our home
    b = board({3: 1, 9: 1, 12: 13, 0: -2, 24: -13})  # our others on 12, out of the way
    assert feature("hit_one", b) == pytest.approx(12 / 36)
    assert feature("hit_two", b) == pytest.approx(1 / 36)
    assert feature("pip_loss", b) == pytest.approx(12 * 22 / (36 * 24))


def test_entering_against_a_five_point_board():
    # the opponent holds cells 19..23 of its home board; only 24 is open: a checker of ours
    # on the bar enters with 11 rolls of 36 (any roll with a 1)
    b = board({25: 1, 6: 14, 19: -3, 20: -3, 21: -3, 22: -3, 23: -3})
    assert feature("entering", b) == pytest.approx(11 / 36)
    assert feature("entering", board({25: 1, 6: 14, 1: -15})) == 1


def test_containment():
    # our points on 2..7: an opponent checker on its bar or on cell 1 cannot move at all
    prime = board({2: 2, 3: 2, 4: 2, 5: 2, 6: 3, 7: 2, 25: 2, 1: -2, 20: -13})
    assert feature("containment", prime) == 1
    # our midpoint alone: a checker on cell 2, 11 pips behind it, passes it only with
    # 3-3 (5 8 11 14), 4-4 (6 10 14), 5-5 (7 12 17), 6-6 (8 14); from any other cell of
    # 0..10 more rolls pass (or it is out of the 11 cells in front): 1 - 4 / 36
    assert feature("containment", board({13: 15, 1: -15})) == pytest.approx(1 - 4 / 36)
    assert feature("containment", board({c: 1 for c in range(1, 16)} | {20: -15})) == 0


def test_mobility_without_a_blockade():
    # a race: nothing in front of our two checkers on 10, 4 pips from home each, all 36 rolls
    # free: 2 * 4 * 36 / 3600
    race = board({10: 2, 1: 13, 20: -15})
    assert feature("mobility", race) == pytest.approx(2 * 4 * 36 / 3600)
    assert feature("back_escapes", race) == 1
    # behind a full prime (the opponent's points on cells 19..14 from 20's view: 6 in a row)
    # the checker on 20 cannot escape at all
    trapped = board({20: 1, 1: 14, 19: -2, 18: -2, 17: -2, 16: -2, 15: -2, 14: -2, 24: -3})
    assert feature("back_escapes", trapped) == 0


# --- shots against the legal plays ----------------------------------------------------------

def _hits_by_legal_plays(boards: np.ndarray):
    """For each board, over the opponent's 36 rolls played out by the engine: rolls after
    which some play has hit one blot of ours, two, and the most pips we lose (the nearest
    to our home of the blots hit) summed over the rolls."""
    opponent = flip(boards)  # the opponent on roll: our checkers are its targets
    one, two, lost = (np.zeros(len(boards)) for _ in range(3))
    for d1, d2 in ROLLS:
        weight = 1 if d1 == d2 else 2
        plays = legal_plays(opponent, np.tile([d1, d2], (len(boards), 1)))
        sent = opponent[plays.root, 0].astype(int) - plays.boards[:, 0]  # ours sent to the bar
        # our checkers are negative in the opponent's view; a cell that lost one of ours
        before, after = opponent[plays.root, 1:25], plays.boards[:, 1:25]
        hit_cells = (before == -1) & (after >= 0)  # (P, 24), opponent's points 1..24
        # its cell q is our cell 25 - q: we lose 25 - (25 - q) = q pips; the worst one
        worst = np.where(hit_cells, np.arange(1, 25), 0).max(axis=1)
        for out, values in ((one, sent >= 1), (two, sent >= 2)):
            out += weight * (np.bincount(plays.root[values], minlength=len(boards)) > 0)
        most = np.zeros(len(boards))
        np.maximum.at(most, plays.root, worst)
        lost += weight * most
    return one, two, lost


def test_shots_agree_with_the_legal_plays(positions):
    boards = positions
    one, lost, two = shot_rolls(shot_masks(boards), two=True)
    played_one, played_two, played_lost = _hits_by_legal_plays(boards)
    assert (played_one > 0).mean() > 0.5 and (played_two > 0).mean() > 0.3
    assert (boards[:, 0] == -1).sum() > 100 and (boards[:, 0] <= -2).sum() > 20  # the bar
    # two hits: exact; one hit: never missed, rarely a hit counted that "play both dice"
    # forbids (a hit with one die after which the other cannot be played), which may also
    # be a nearer blot than the legal plays reach: more pips lost
    np.testing.assert_array_equal(two, played_two)
    assert (one >= played_one).all() and np.mean(one == played_one) > 0.98
    assert (lost >= played_lost).all() and np.mean(lost == played_lost) > 0.98


def test_heuristic_shots_are_the_same_counts(positions):
    chance, lost = opponent_shots(positions[:500])
    one, lost_rolls = shot_rolls(shot_masks(positions[:500]))
    np.testing.assert_allclose(chance * 36, one)
    np.testing.assert_allclose(lost * 36, lost_rolls)


# --- escapes against a plain count ----------------------------------------------------------

def _escapes(travel: int, closed: set[int]) -> int:
    """Escaping rolls of a checker ``travel`` pips from its bar, the other side's points at
    the travels in ``closed``, counted roll by roll as the module docstring says."""
    blockade = [t for t in closed if travel < t <= min(travel + 11, 18)]
    if not blockade:
        return 36
    farthest = max(blockade)

    def open_(t):
        return t <= 24 and t not in closed

    count = 0
    for a, b in ROLLS:
        if a != b:
            ways = [(a, open_(travel + a)), (b, open_(travel + b)),
                    (a + b, open_(travel + a + b) and (open_(travel + a) or open_(travel + b)))]
            count += 2 * any(ok and travel + pips > farthest for pips, ok in ways)
        else:
            t = travel
            for _ in range(4):
                t += a
                if not open_(t):
                    break
                if t > farthest:
                    count += 1
                    break
    return count


def test_escape_tables_agree_with_a_plain_count(positions):
    side = F.Side(positions[:300])
    for i, row in enumerate(side.boards):
        theirs = {25 - c for c in range(1, 25) if row[c] <= -2}  # by our travel
        ours = {c for c in range(1, 25) if row[c] >= 2}  # by the opponent's travel
        for cell in range(26):
            assert F.escapes_down(side.their_made[i:i + 1], cell)[0] == _escapes(25 - cell,
                                                                                 theirs)
            assert F.escapes_up(side.made[i:i + 1], cell)[0] == _escapes(cell, ours)
    rearmost = side.rearmost
    assert (F.escapes_down(side.their_made, rearmost)
            == [F.escapes_down(side.their_made[i:i + 1], int(c))[0]
                for i, c in enumerate(rearmost)]).all()


# --- ranges, symmetry, the encoding ---------------------------------------------------------

RANGES = {"pips": 1.875, "break_contact": 1.875, "mobility": 2.85, "timing": 1.9}


def test_every_feature_stays_in_its_range_and_varies(positions):
    values = F.side_features(positions)
    assert values.shape == (len(positions), F.WIDTH) and values.dtype == np.float32
    for column, name in enumerate(F.NAMES):
        high = RANGES.get(name, 1.0)
        assert values[:, column].min() >= 0, name
        assert values[:, column].max() <= high + 1e-6, name
        assert np.unique(values[:, column]).size > 2, name  # not stuck on one value


def test_the_opponents_features_are_those_of_the_flipped_board(positions):
    x = advanced(positions)
    n = F.WIDTH
    np.testing.assert_array_equal(x[:, 198:198 + n], F.side_features(positions))
    np.testing.assert_array_equal(x[:, 198 + n:], F.side_features(flip(positions)))
    np.testing.assert_array_equal(both_sides(flip(positions)),
                                  np.concatenate([x[:, 198 + n:], x[:, 198:198 + n]], axis=1))


def test_the_advanced_encoding_is_classic_plus_both_sides(positions):
    x = encoder("advanced")(positions)
    assert x.shape == (len(positions), width("advanced")) == (len(positions), 232)
    assert WIDTHS["advanced"] == 198 + 2 * F.WIDTH and "advanced" in ENCODINGS
    np.testing.assert_array_equal(x[:, :198], classic(positions))
    assert CLASSIC_PLUS["advanced"] is both_sides
    check_encoding("advanced", "standard")
    check_encoding("advanced", "hypergammon")
    with pytest.raises(ValueError, match="plakoto"):
        check_encoding("advanced", "plakoto")


def test_feature_rows_write_where_they_are_told(positions):
    """``feature_rows(out=...)`` and ``both_sides_rows`` (the evaluator's feature-major path,
    written into a block of rows of a bigger array) give the same floats as the plain
    calls; an out of the wrong shape or not contiguous is refused."""
    from gammon.model.encoding import both_sides_rows
    n, width = len(positions), F.WIDTH
    rows = F.feature_rows(positions)
    halves = np.full((width, 2, n // 2), np.nan, dtype=np.float32)
    F.feature_rows(positions[:2 * (n // 2)], out=halves)
    np.testing.assert_array_equal(halves.reshape(width, -1), rows[:, :2 * (n // 2)])
    units = np.full((4 + 2 * width, n), np.nan, dtype=np.float32)
    assert both_sides_rows(positions, out=units[4:]) is not None
    assert np.isnan(units[:4]).all()  # the rows above are left alone
    np.testing.assert_array_equal(units[4:].T, both_sides(positions))
    np.testing.assert_array_equal(both_sides_rows(positions), both_sides(positions).T)
    with pytest.raises(ValueError, match="C-contiguous"):
        both_sides_rows(positions, out=units[4:, :n - 1])
    with pytest.raises(ValueError, match="C-contiguous"):
        both_sides_rows(positions, out=np.empty((n, 2 * width), dtype=np.float32).T)


def test_counts_agree_with_the_engine(positions):
    from gammon.engine.board import borne_off, pip_counts
    np.testing.assert_allclose(F.pips(positions) * 200, pip_counts(positions)[0], atol=1e-3)
    off = borne_off(positions, 15)[0]
    np.testing.assert_allclose(F.checkers_off(positions).sum(axis=1) * 5, off, atol=1e-5)


def test_the_feature_functions_take_boards_or_a_side(positions):
    side = F.Side(positions)
    for name, function, units in F.FEATURES:
        np.testing.assert_array_equal(function(positions), function(side), err_msg=name)


def test_races_alone_take_the_quick_path_to_the_same_floats(positions):
    """A batch of races only (what the race network gets) skips the contact loops (break
    contact, mobility's escapes) and the shots; each board's features are the same bits as
    in a batch with contact, where every loop runs."""
    from gammon.engine.phase import is_race
    race = is_race(positions)
    assert race.any() and (~race).any()
    mixed = F.feature_rows(positions)  # (F, N): contact in the batch, every loop runs
    alone = F.feature_rows(positions[race])
    assert not F.Side(positions[race]).contact and F.Side(positions).contact
    assert mixed.dtype == alone.dtype == np.float32
    np.testing.assert_array_equal(mixed[:, race].view(np.uint32), alone.view(np.uint32))
    np.testing.assert_array_equal(mixed[:, ~race].view(np.uint32),
                                  F.feature_rows(positions[~race]).view(np.uint32))
    assert (alone[F.NAMES.index("break_contact")] == 0).all()


# --- a network of the advanced encoding -----------------------------------------------------

def test_an_advanced_network_trains_saves_exports_and_plays(tmp_path):
    import torch

    from gammon.eval.bots.simple import RandomBot
    from gammon.engine.game import play
    from gammon.model.export import export_checkpoint
    from gammon.model.net import ValueNet
    from gammon.model.player import load_net_bot
    from gammon.model.policy import NetEvaluator
    from gammon.train.config import Config
    from gammon.train.trainer import Trainer

    config = Config().with_overrides(
        model={"hidden": (8,), "encoding": "advanced"},
        train={"games": 40, "parallel_games": 16, "update_every": 256, "batch_size": 64,
               "threads": 1, "seed": 3},
        eval={"every_games": 0}, run={"checkpoint_every_games": 0})
    trainer = Trainer(config, tmp_path)
    assert trainer.run().games >= 40
    report = export_checkpoint(tmp_path / "model.pt", tmp_path / "bot.npz", check_games=2)
    assert report.max_abs_diff < 1e-5 and report.meta["encoding"] == "advanced"
    numpy_bot = load_net_bot(str(tmp_path / "bot.npz"))
    torch_bot = load_net_bot(str(tmp_path / "model.pt"))
    boards, dice = from_random_play(np.random.default_rng(1), 2)
    plays = legal_plays(boards, dice)
    np.testing.assert_allclose(numpy_bot.scores(plays, boards, dice),
                               torch_bot.scores(plays, boards, dice), atol=1e-5)
    # the table path (classic units from a table, the features added) is the plain one
    net = ValueNet(width("advanced"), (8,))
    plain = NetEvaluator(net, "advanced", device="cpu")
    x = torch.from_numpy(advanced(boards))
    with torch.no_grad():
        expected = torch.softmax(net(x), dim=-1).numpy()
    np.testing.assert_allclose(plain.network(boards), expected, atol=1e-6)
    result = play((numpy_bot, RandomBot(4)), 4, np.random.default_rng(5))
    assert len(result.points) == 4
