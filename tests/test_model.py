"""The value network, encodings, the net player and checkpoints."""

import numpy as np
import pytest
import torch

from gammon.engine.board import flip
from gammon.engine.rules import start_boards
from gammon.engine.movegen import legal_plays
from gammon.engine.sample import from_random_play, synthetic
from gammon.model import checkpoint as ckpt
from gammon.model.encoding import (CLASSIC, CLASSIC_PLUS, CLASSIC_UNITS, ENCODINGS, LAYOUTS,
                            POINT_UNITS, classic, encoder, expert, shared_units, width)
from gammon.model.net import ValueNet, equity, five_outputs, flip_outcomes
from gammon.model.player import load_net_bot
from gammon.model.lookahead import look_ahead
from gammon.model.policy import NetEvaluator, NetPolicy


def test_classic_units_of_the_start_position():
    x = classic(start_boards(1))[0]
    assert x.shape == (198,)
    # point 24 (index 23): two of the mover's checkers -> units 1, 1, 0, 0 for the mover
    assert x[23 * 8:23 * 8 + 8].tolist() == [1, 1, 0, 0, 0, 0, 0, 0]
    # point 6: five of ours -> 1, 1, 1, (5 - 3) / 2
    assert x[5 * 8:5 * 8 + 4].tolist() == [1, 1, 1, 1]
    # point 1: two of the opponent's
    assert x[0:8].tolist() == [0, 0, 0, 0, 1, 1, 0, 0]
    assert x[192:].tolist() == [0, 0, 0, 0, 1, 0]  # bars, borne off, side on roll


def test_bar_and_off_units():
    board = np.zeros(26, np.int8)
    board[25], board[0], board[3] = 2, -1, 1
    x = classic(board[None], checkers=15)[0]
    assert x[192] == 1.0 and x[193] == 0.5
    assert x[194] == pytest.approx(12 / 15) and x[195] == pytest.approx(14 / 15)


def test_expert_adds_features_of_both_sides():
    boards = start_boards(2)
    x = expert(boards)
    assert x.shape == (2, width("expert"))
    assert (x[:, :198] == classic(boards)).all()
    half = (width("expert") - 198) // 2
    np.testing.assert_allclose(x[0, 198:198 + half], x[0, 198 + half:])  # symmetric start
    with pytest.raises(ValueError, match="classic, expert"):
        encoder("onehot")


def test_fast_first_layer_equals_the_plain_forward():
    torch.manual_seed(0)
    net = ValueNet(198, (40, 20), "sigmoid")
    boards = np.concatenate([from_random_play(np.random.default_rng(0), 4)[0],
                             synthetic(np.random.default_rng(1), 200)])
    with torch.no_grad():
        plain = net(torch.from_numpy(classic(boards)))
    np.testing.assert_allclose(net.forward_boards(boards).numpy(), plain.numpy(), atol=1e-5)


@pytest.mark.parametrize("encoding,hidden,activation", [("classic", (40, 20), "sigmoid"),
                                                       ("advanced", (32,), "relu"),
                                                       ("advanced", (24, 8), "tanh")])
def test_fused_probabilities_equal_the_softmax_of_the_plain_forward(encoding, hidden,
                                                                     activation):
    """``probabilities_boards`` (biases in the table, one product for the bar, off and more
    units, the output layer outcome-major) gives the plain forward's softmax within float
    rounding."""
    torch.manual_seed(1)
    net = ValueNet(width(encoding), hidden, activation)
    boards = np.concatenate([from_random_play(np.random.default_rng(2), 4)[0],
                             synthetic(np.random.default_rng(3), 300)])
    extra = _units(net, encoding, boards)
    with torch.no_grad():
        plain = torch.softmax(net(torch.from_numpy(encoder(encoding)(boards))), -1).numpy()
    got = net.probabilities_boards(boards, 15, extra)  # (None: classic, worked out there)
    assert got.shape == (len(boards), 6) and got.dtype == np.float32
    np.testing.assert_allclose(got, plain, atol=2e-6)
    np.testing.assert_allclose(got.sum(axis=1), 1, atol=1e-6)


def _write_weights(net: ValueNet, how: str, x: torch.Tensor) -> None:
    """Change ``net``'s weights one way: a step of an optimizer (torch's Adam, one loop, or
    its fused kernel, which does not count its writes itself; train.step's FlatStep or
    AutogradStep), ``load_state_dict``, or an assignment in place."""
    from gammon.train.step import AutogradStep, FlatStep
    y = torch.softmax(torch.randn(len(x), 6), -1)
    if how in ("adam", "fused adam"):
        opt = torch.optim.Adam(net.parameters(), lr=0.05, fused=how == "fused adam" or None)
        loss = -(y * torch.log_softmax(net(x), -1)).sum()
        loss.backward()
        opt.step()
    elif how in ("flat step", "autograd step"):
        step = (FlatStep if how == "flat step" else AutogradStep)(
            torch.optim.Adam(net.parameters(), lr=0.05), [net])
        step.begin()
        step.step([(0, x, y)], len(x))
        step.end()
    elif how == "load_state_dict":
        torch.manual_seed(9)
        net.load_state_dict(ValueNet(net.inputs, net.hidden, net.activation).state_dict())
    else:
        with torch.no_grad():
            net.layers[0].bias += 0.5
            net.out.weight *= 2


@pytest.mark.parametrize("how", ["adam", "fused adam", "flat step", "autograd step",
                                 "load_state_dict", "in place"])
@pytest.mark.parametrize("encoding,hidden", [("classic", (24, 16)), ("advanced", (20,))])
def test_the_fast_paths_follow_the_weights_however_they_are_written(how, encoding, hidden):
    """The fast paths' tables are derived from the weights and keyed on their version: after
    any write to the weights, with nothing called, ``probabilities_boards`` and
    ``forward_boards`` give the plain forward's values of the new weights."""
    from gammon.train.step import FUSED_ADAM
    if how == "fused adam" and not FUSED_ADAM:
        pytest.skip("this torch has no fused Adam for the CPU")
    torch.manual_seed(2)
    net = ValueNet(width(encoding), hidden)
    boards = np.concatenate([from_random_play(np.random.default_rng(4), 2)[0],
                             synthetic(np.random.default_rng(5), 100)])
    x = torch.from_numpy(encoder(encoding)(boards))
    more = CLASSIC_PLUS[encoding]
    more = None if more is None else more(boards)
    before = net.probabilities_boards(boards, 15, _units(net, encoding, boards))
    net.forward_boards(boards, 15, more)  # both tables built from the old weights
    _write_weights(net, how, x)
    with torch.no_grad():
        logits = net(x)
    plain = torch.softmax(logits, -1).numpy()
    assert np.abs(plain - before).max() > 1e-3  # the weights did change
    got = net.probabilities_boards(boards, 15, _units(net, encoding, boards))
    np.testing.assert_allclose(got, plain, atol=2e-6)
    np.testing.assert_allclose(net.forward_boards(boards, 15, more).numpy(), logits.numpy(),
                               atol=1e-5)


def test_the_encodings_publish_their_layout():
    """Every encoding's inputs are laid out as ``LAYOUTS`` says: its width, the classic
    block's point units (``POINT_UNITS`` by signed count), the side on roll (1, 0), and the
    leading units two encodings share (``shared_units``) equal on the same boards."""
    boards = np.concatenate([from_random_play(np.random.default_rng(6), 2)[0],
                             synthetic(np.random.default_rng(7), 200)])
    x = {name: encoder(name)(boards) for name in ENCODINGS if name != "plakoto"}
    x["plakoto"] = encoder("plakoto")(boards)  # no pins in these boards: plain checkers
    for name, layout in LAYOUTS.items():
        assert x[name].shape == (len(boards), layout.width) == (len(boards), width(name))
        points = x[name][:, layout.points].reshape(len(boards), -1, POINT_UNITS.shape[1])
        np.testing.assert_array_equal(points, POINT_UNITS[boards[:, 1:25] + 15])
        assert (x[name][:, layout.on_roll] == 1).all() and (x[name][:, layout.off_roll] == 0).all()
        assert x[name][:, layout.more].shape[1] == layout.width - CLASSIC_UNITS
    for a in LAYOUTS:
        for b in LAYOUTS:
            k = shared_units(a, b)
            assert k == (LAYOUTS[a].width if a == b else 0 if "plakoto" in (a, b)
                         else CLASSIC_UNITS)
            np.testing.assert_array_equal(x[a][:, :k], x[b][:, :k])
    # the classic block's bar and borne-off columns are the bar_and_off units
    from gammon.model.net import bar_and_off_rows
    np.testing.assert_array_equal(x["advanced"][:, CLASSIC.bar_off],
                                  bar_and_off_rows(boards, 15, 4).T)


@pytest.mark.parametrize("encoding", ["classic", "advanced"])
def test_fused_probabilities_from_feature_major_units_are_the_same_bits(encoding):
    """``probabilities_boards(units=...)``: the bar, off and more units worked out once for
    a whole batch, feature-major (``bar_and_off_rows`` and ``CLASSIC_PLUS_ROWS``), and
    handed over a block of columns at a time, give the same floats as each block's own
    units, worked out apart (a C-contiguous array, or by the pass itself when classic)."""
    torch.manual_seed(4)
    net = ValueNet(width(encoding), (48,))
    boards = np.concatenate([from_random_play(np.random.default_rng(5), 4)[0],
                             synthetic(np.random.default_rng(6), 500)])
    units = _units(net, encoding, boards, whole=True)
    for start, stop in ((0, 64), (64, 192), (192, len(boards))):
        part = boards[start:stop]
        expected = net.probabilities_boards(part, 15, _units(net, encoding, part))
        got = net.probabilities_boards(part, 15, units=units[:, start:stop])
        np.testing.assert_array_equal(got, expected)


def _units(net, encoding, boards, whole=False):
    """The fused pass's units of boards, feature-major (F - 194, N): None for the classic
    encoding alone (the pass works them out), unless ``whole``."""
    from gammon.model.encoding import CLASSIC_PLUS_ROWS
    from gammon.model.net import bar_and_off_rows, unit_rows
    more = CLASSIC_PLUS_ROWS[encoding]
    if more is None and not whole:
        return None
    units = bar_and_off_rows(boards, 15, unit_rows(net.inputs))
    if more is not None:
        more(boards, 15, out=units[4:])
    return units


def test_five_outputs_are_consistent_and_flip_swaps_sides():
    p = torch.softmax(torch.randn(100, 6), -1).numpy()
    five = five_outputs(p)
    assert (five[:, 2] <= five[:, 1] + 1e-7).all() and (five[:, 1] <= five[:, 0] + 1e-7).all()
    assert (five[:, 4] <= five[:, 3] + 1e-7).all()
    eq = equity(p)
    np.testing.assert_allclose(eq, 2 * five[:, 0] - 1 + five[:, 1] - five[:, 3]
                               + five[:, 2] - five[:, 4], atol=1e-6)
    np.testing.assert_allclose(equity(flip_outcomes(p)), -eq, atol=1e-6)


def test_net_policy_takes_the_winning_bear_off():
    board = np.zeros(26, np.int8)
    board[2], board[1], board[20] = 1, 1, -15  # 2-1 bears both off (a gammon) or not
    bot = NetPolicy(NetEvaluator(ValueNet(198, (8,))))
    plays = legal_plays(board[None], np.array([[2, 1]]))
    assert len(plays) == 2
    chosen = bot(plays, board[None], np.array([[2, 1]]))
    assert np.maximum(plays.boards[chosen[0]], 0).sum() == 0  # all borne off


def test_policy_scores_follow_the_perspective_rule():
    torch.manual_seed(1)
    evaluator = NetEvaluator(ValueNet(198, (16,)))
    boards, dice = from_random_play(np.random.default_rng(2), 2)
    plays = legal_plays(boards[:50], dice[:50])
    mover = evaluator.after_play(plays.boards)
    opponent = evaluator(flip(plays.boards))
    np.testing.assert_allclose(mover, opponent[:, ::-1], atol=1e-6)


@pytest.mark.parametrize("plies", [1, 2])
def test_look_ahead_gives_probabilities(plies):
    torch.manual_seed(2)
    evaluator = NetEvaluator(ValueNet(198, (16,)))
    after = start_boards(3)
    p = look_ahead(evaluator, after, plies)
    assert p.shape == (3, 6)
    np.testing.assert_allclose(p.sum(axis=1), 1, atol=1e-5)
    np.testing.assert_allclose(p[0], p[1], atol=1e-6)


# --- checkpoints -------------------------------------------------------------------------

def _saved(tmp_path, encoding="classic", variant="standard", name="model.pt"):
    net = ValueNet(width(encoding), (8,))
    path = tmp_path / name
    ckpt.save(path, ckpt.model_payload(net, encoding, variant))
    return path, net


def test_checkpoint_round_trip_and_net_player(tmp_path):
    path, net = _saved(tmp_path)
    loaded = ckpt.build_net(ckpt.load(path), path)
    for a, b in zip(net.state_dict().values(), loaded.state_dict().values()):
        assert torch.equal(a, b)
    bot = load_net_bot(str(path))
    boards = start_boards(1)
    plays = legal_plays(boards, np.array([[3, 1]]))
    assert 0 <= bot(plays, boards, np.array([[3, 1]]))[0] < len(plays)
    assert not list(tmp_path.glob("*.tmp"))  # written atomically, nothing left behind


def test_truncated_checkpoint_names_the_file(tmp_path):
    path, _ = _saved(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])
    with pytest.raises(ckpt.CheckpointError, match=f"{path}.*truncated or corrupt"):
        ckpt.load(path)


def test_corrupt_and_foreign_files_are_refused(tmp_path):
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint at all")
    with pytest.raises(ckpt.CheckpointError, match="not a torch file"):
        ckpt.load(junk)
    foreign = tmp_path / "foreign.pt"
    torch.save({"weights": torch.zeros(3)}, foreign)
    with pytest.raises(ckpt.CheckpointError, match="not a gammon checkpoint"):
        ckpt.load(foreign)
    with pytest.raises(ckpt.CheckpointError, match="no such checkpoint"):
        ckpt.load(tmp_path / "missing.pt")


class _Evil:
    def __reduce__(self):
        return (print, ("code ran while loading",))


def test_loading_never_runs_pickled_code(tmp_path):
    path = tmp_path / "evil.pt"
    torch.save({"format": "gammon-checkpoint", "version": 1, "x": _Evil()}, path)
    with pytest.raises(ckpt.CheckpointError, match="objects other than weights"):
        ckpt.load(path)


def test_other_encoding_or_variant_is_refused_with_the_reason(tmp_path):
    path, _ = _saved(tmp_path, variant="hypergammon")
    with pytest.raises(ckpt.CheckpointError, match="trained for 'hypergammon'"):
        load_net_bot(str(path), variant="standard")
    path, _ = _saved(tmp_path, encoding="expert", name="expert.pt")
    with pytest.raises(ckpt.CheckpointError, match="'expert' encoding"):
        ckpt.check_compatible(ckpt.load(path), path, encoding="classic")


def test_wrong_shapes_are_refused(tmp_path):
    path, net = _saved(tmp_path)
    payload = ckpt.load(path)
    payload["model"]["hidden"] = [9]
    bad = tmp_path / "bad.pt"
    ckpt.save(bad, {k: v for k, v in payload.items() if k not in ("format", "version")})
    with pytest.raises(ckpt.CheckpointError, match="do not fit"):
        ckpt.build_net(ckpt.load(bad), bad)


def test_inside_batch_independent_a_boards_probabilities_do_not_depend_on_its_batch():
    """Rollouts rely on it (``model.rows``): the shipped evaluator's fused pass gives each
    board the same bits alone, among 100 others, and in a batch of 5,000 cut into pieces."""
    from gammon.model.player import shipped
    from gammon.model.rows import batch_independent
    bot = load_net_bot(shipped())
    boards = np.concatenate([from_random_play(np.random.default_rng(9), 40)[0],
                             synthetic(np.random.default_rng(10), 5000)])[:5000]
    with batch_independent():
        big = bot.evaluator(boards)
        for at in (0, 1, 63, 64, 2047, 2048, 4999):
            assert np.array_equal(bot.evaluator(boards[at:at + 1])[0], big[at]), at
        assert np.array_equal(bot.evaluator(boards[1900:2000]), big[1900:2000])
