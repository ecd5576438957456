"""Sanity of net outputs (``engine.sanity``): where the position makes an outcome
impossible its probability is exactly 0, for every net and bot file, on hand positions."""

import numpy as np
import pytest

from gammon.engine.bearoff import exact_races
from gammon.engine.board import flip
from gammon.engine.formats.notation import format_play
from gammon.engine.formats.posid import decode
from gammon.engine.movegen import legal_plays
from gammon.engine.outcomes import equity, to_five
from gammon.engine.rules import VARIANTS, variant
from gammon.engine.rules.plakoto import PIN
from gammon.engine.sample import from_random_play, synthetic
from gammon.engine.sanity import impossible, net_outcomes, sane
from gammon.model.encoding import fold_bomb
from gammon.model.lookahead import look_ahead
from gammon.model.player import DEFAULT, load_net_bot

STANDARD = variant("standard")
WBG, WG, LG, LBG = 0, 1, 4, 5  # the six outcomes' gammon and backgammon columns
ISSUE = "wLa7AwBQAAAAAA"  # the issue's position: our 6 and 5 points, their 15 on 13..18


def board(mover: dict, opponent: dict) -> np.ndarray:
    """A board from the mover's view: {cell: checkers} for each side, in the mover's cell
    numbers (opponent's bar = 0, mover's bar = 25)."""
    b = np.zeros(26, dtype=np.int8)
    for cell, n in mover.items():
        b[cell] += n
    for cell, n in opponent.items():
        b[cell] -= n
    return b


# a race: our 13 checkers home (2 borne off), their 15 on our 13..18 (none borne off)
RACE = board({1: 3, 2: 3, 3: 3, 4: 2, 5: 2}, {13: 3, 14: 3, 15: 3, 16: 2, 17: 2, 18: 2})


def rules_out(b, name="standard"):
    return impossible(np.asarray(b)[None], variant(name))[0]


def test_no_gammon_once_the_loser_has_borne_off():
    # contact (their 2 checkers on our 20-point, ours on 24); they bore off one (14 left)
    b = board({24: 2, 13: 5, 8: 3, 6: 5}, {20: 2, 12: 5, 17: 3, 19: 4})
    assert (b < 0).sum() and -b[b < 0].sum() == 14
    out = rules_out(b)
    assert out[WG] and out[WBG]  # we cannot win a gammon (nor a backgammon)
    assert not out[LG] and not out[LBG]  # we have all 15: they still can
    # the same seen by them (flipped): they cannot lose one, we still can
    theirs = rules_out(flip(b))
    assert theirs[LG] and theirs[LBG] and not theirs[WG] and not theirs[WBG]


def test_no_backgammon_in_a_race_without_the_loser_in_the_winners_home():
    out = rules_out(RACE)
    assert out[WBG] and not out[WG]  # they have borne off none: a gammon, not a backgammon
    assert out[LG] and out[LBG]  # we have borne off two
    # the issue's position: the same rule
    assert rules_out(decode(ISSUE))[WBG] and not rules_out(decode(ISSUE))[WG]


def test_backgammon_possible_again_with_contact_or_a_checker_back():
    # contact: one of ours on our 20-point, above their rearmost (13): he may still be hit
    contact = board({20: 1, 1: 3, 2: 3, 3: 3, 4: 2, 5: 1},
                    {13: 3, 14: 3, 15: 3, 16: 2, 17: 2, 18: 2})
    assert not rules_out(contact)[WBG] and not rules_out(contact)[WG]
    # a race, but one of theirs still in our home board (our 6-point, above ours)
    home = board({1: 3, 2: 3, 3: 3, 4: 2, 5: 2}, {6: 1, 13: 2, 14: 3, 15: 3, 16: 2, 17: 2, 18: 2})
    assert not rules_out(home)[WBG]
    # one of theirs on the bar (contact, and back)
    bar = board({1: 3, 2: 3, 3: 3, 4: 2, 5: 2}, {0: 1, 13: 2, 14: 3, 15: 3, 16: 2, 17: 2, 18: 2})
    assert not rules_out(bar)[WBG]
    for b in (home, bar):
        assert not rules_out(b)[WBG] and not rules_out(b)[WG]
    # our side, mirrored: a race with one of ours still in their home board (our 19-point,
    # their 6-point), all of theirs past it
    their_home = {20: 3, 21: 3, 22: 3, 23: 3, 24: 3}
    ours = board({19: 1, 18: 14}, their_home)
    assert not rules_out(ours)[LBG] and not rules_out(flip(ours))[WBG]
    past = board({18: 1, 17: 14}, their_home)  # out of their home: no longer
    assert rules_out(past)[LBG] and not rules_out(past)[LG] and rules_out(flip(past))[WBG]


def test_variants_follow_their_own_scoring():
    b = decode(ISSUE)
    # sudden death: "no gammons or backgammons" anywhere
    start = VARIANTS["suddendeath"].start_board()
    assert rules_out(start, "suddendeath")[[WBG, WG, LG, LBG]].all()
    assert not rules_out(start, "standard").any()
    # plakoto: no backgammons ever, gammons as counted with the pinned checkers
    plakoto = VARIANTS["plakoto"].start_board()
    out = rules_out(plakoto, "plakoto")
    assert out[WBG] and out[LBG] and not out[WG] and not out[LG]
    pinned = plakoto.copy()  # one of theirs pinned under one of ours on our 10-point
    pinned[24] -= 1
    pinned[1] += 1
    pinned[10] = 1 + PIN
    assert not rules_out(pinned, "plakoto")[WG]  # their pinned checker is still in play
    # nuclear: a detonation sends blots back even in a race, so only the gammon rule
    out = rules_out(b, "nuclear")
    assert not out[WBG] and not out[WG] and out[LG] and out[LBG]
    # hypergammon: three checkers a side
    hyper = board({1: 2}, {20: 3})  # we bore one off, they none, a race
    out = rules_out(hyper, "hypergammon")
    assert out[LG] and out[LBG] and out[WBG] and not out[WG]
    assert rules_out(board({1: 2}, {20: 2}), "hypergammon")[WG]


def test_sane_moves_impossible_outcomes_down_and_keeps_the_rest_bit_for_bit():
    rng = np.random.default_rng(0)
    boards = np.concatenate([synthetic(rng, 3000), from_random_play(rng, 20)[0]])
    probs = rng.dirichlet(np.ones(6), len(boards)).astype(np.float32)
    out = sane(probs, boards, STANDARD)
    mask = impossible(boards, STANDARD)
    assert mask.any(axis=1).mean() > 0.2 and (~mask.any(axis=1)).mean() > 0.2
    assert (out[mask] == 0).all()
    untouched = ~mask.any(axis=1)
    assert np.array_equal(out[untouched], probs[untouched])
    # P(win) and P(loss) stay; consistency per side; applying it again changes nothing
    np.testing.assert_allclose(out[:, :3].sum(1), probs[:, :3].sum(1), atol=1e-6)
    np.testing.assert_allclose(out[:, 3:].sum(1), probs[:, 3:].sum(1), atol=1e-6)
    p5 = to_five(out)
    assert (p5[:, 2] <= p5[:, 1]).all() and (p5[:, 1] <= p5[:, 0]).all()
    assert (p5[:, 4] <= p5[:, 3]).all() and (p5[:, 0] <= 1 + 1e-6).all()
    assert np.array_equal(sane(out, boards, STANDARD), out)
    # a gammon impossible implies its backgammon impossible too
    assert (mask[:, WBG] >= mask[:, WG]).all() and (mask[:, LBG] >= mask[:, LG]).all()


def test_sane_five_outputs_clip_and_zero():
    boards = np.stack([RACE, STANDARD.start_board()])
    wild = np.array([[1.2, 0.9, 0.95, 0.3, 0.1], [0.6, 0.7, 0.8, 0.5, 0.6]])
    out = sane(wild, boards, STANDARD)
    # the race: a win is 1 at most, no backgammon for us (their checkers are all past),
    # no gammon against us (we bore off two)
    assert out[0].tolist() == [1.0, 0.9, 0.0, 0.0, 0.0]
    # the start: nothing impossible, only clipped: gammons <= wins, backgammons <= gammons
    np.testing.assert_allclose(out[1], [0.6, 0.6, 0.6, 0.4, 0.4])


def test_the_bear_off_database_is_sane_but_for_rounding():
    rng = np.random.default_rng(3)
    boards = np.zeros((2000, 26), dtype=np.int8)  # both sides home, some with all 15
    for b in boards:
        for side, points in ((1, range(1, 7)), (-1, range(19, 25))):
            count = 15 if rng.random() < 0.3 else rng.integers(1, 16)
            np.add.at(b, rng.choice(list(points), count), side)
    rows, exact = exact_races(boards, STANDARD)
    assert len(rows) == len(boards) and impossible(boards, STANDARD).any(axis=1).all()
    assert (exact[:, WG] > 0).any() and (exact[:, LG] > 0).any()
    # its zeros are exact; only its rounding below 0 (a few 1e-8) is clipped
    assert np.array_equal(sane(exact, boards[rows], STANDARD), np.maximum(exact, 0))
    assert exact.min() > -1e-6


@pytest.fixture(scope="module")
def shipped():
    return load_net_bot().evaluator


@pytest.fixture(scope="module")
def bot_file(tmp_path_factory):
    from gammon.model.export import export_checkpoint
    path = tmp_path_factory.mktemp("bot") / "default.npz"
    export_checkpoint(DEFAULT, path, check_games=2)
    from gammon.model.numpy_net import load_bot_file
    return load_bot_file(path).evaluator


HAND = np.stack([
    RACE,  # no win backgammon, no loss gammon
    decode(ISSUE),  # no win backgammon, no loss gammon (we bore off 13)
    board({24: 2, 13: 5, 8: 3, 6: 5}, {20: 2, 12: 5, 17: 3, 19: 4}),  # they bore off one
    board({22: 1, 13: 5, 8: 3, 6: 4, 5: 2}, {1: 2, 12: 5, 17: 3, 19: 5}),  # nothing ruled out
])


@pytest.mark.parametrize("which", ["torch", "bot file"])
def test_shipped_net_gives_exact_zeros(which, shipped, bot_file):
    evaluator = shipped if which == "torch" else bot_file
    mask = impossible(HAND, STANDARD)
    assert mask[:3].any(axis=1).all() and not mask[3].any()
    for boards in (HAND, flip(HAND)):  # both views
        mask = impossible(boards, STANDARD)
        probs = evaluator(boards)
        assert (probs[mask] == 0).all()
        raw = evaluator.network(boards) if which == "torch" else evaluator.net.probabilities(boards)
        assert (raw[mask] > 0).all()  # the network alone does not know it
        np.testing.assert_allclose(probs.sum(axis=1), 1, atol=1e-5)
    # after a play, and looked ahead one roll: the mover's view, still exact zeros
    after = evaluator.after_play(flip(HAND))
    assert (after[impossible(HAND, STANDARD)[:, ::-1]] == 0).all()
    if which == "torch":
        ahead = look_ahead(evaluator, flip(HAND[:2]), 1)
        assert (ahead[:, LBG] == 0).all() and (ahead[:, WG] == 0).all()


def test_torch_and_bot_file_agree_after_sanity(shipped, bot_file):
    rng = np.random.default_rng(5)
    boards = from_random_play(rng, 4)[0]
    np.testing.assert_allclose(shipped(boards), bot_file(boards), atol=1e-5)


def test_issue_position_bears_off_both_first(shipped):
    b = decode(ISSUE)
    plays = legal_plays(b[None], np.array([[6, 5]]), STANDARD)
    probs = shipped.after_play(plays.boards)
    eq = equity(probs)
    names = [format_play(plays.steps[i], plays.hits[i]) for i in range(len(plays))]
    best = names[int(np.argmax(eq))]
    assert best == "6/off 5/off", dict(zip(names, eq))
    # 6/1 5/off: no backgammon possible (no checker of theirs can be caught), so below +2
    other = names.index("6/1 5/off")
    assert probs[other, WBG] == 0 and eq[other] < 2


def test_nuclear_net_reads_the_plain_board_under_a_folded_bomb():
    evaluator = load_net_bot(variant="nuclear").evaluator
    assert evaluator.encoding == "nuclear"
    boards = np.stack([RACE, board({24: 2, 13: 5, 8: 3, 6: 5}, {20: 2, 12: 5, 17: 3, 19: 4})])
    for bomb in (1, 0, -1):
        folded = fold_bomb(boards, np.full(2, bomb))
        probs = evaluator(folded)
        # the gammon rule holds (a checker borne off stays off); backgammons in a race stay
        # possible: a detonation sends blots back
        assert probs[0, LG] == probs[0, LBG] == 0 and probs[1, WG] == probs[1, WBG] == 0
        assert probs[0, WBG] > 0


def test_every_variant_net_is_sane_on_its_own_positions():
    rng = np.random.default_rng(11)
    for name in VARIANTS:
        evaluator = load_net_bot(variant=name).evaluator
        boards = from_random_play(rng, 3, name)[0]
        probs = evaluator(boards)
        assert (probs[impossible(boards, evaluator.rules)] == 0).all(), name
        if not evaluator.rules.gammons:
            assert (probs[:, [WBG, WG, LG, LBG]] == 0).all()
        if not evaluator.rules.backgammons:
            assert (probs[:, [WBG, LBG]] == 0).all()


def test_net_outcomes_is_the_evaluator(shipped):
    boards = from_random_play(np.random.default_rng(2), 3)[0]
    assert np.array_equal(shipped(boards), net_outcomes(shipped.network, boards, STANDARD))
