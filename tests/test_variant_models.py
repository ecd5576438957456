"""Networks for every variant: the encodings of Plakoto's pins and Nuclear's bomb, training
with --variant, a network started from another's weights (model.init), and models of one
variant refused for another."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from gammon.engine.rules import VARIANTS
from gammon.engine.rules.plakoto import read_position
from gammon.model.encoding import check_encoding, classic, nuclear, plakoto
from gammon.model.net import ValueNet
from gammon.train.config import Config, ConfigError, load
from gammon.train.trainer import Trainer
from gammon.train.warm_start import start_from

from test_cli import gammon as gammon_process
from test_cli_plakoto import gammon

ROOT = Path(__file__).resolve().parent.parent


def test_plakoto_encoding_sees_pins_and_counts_pinned_checkers_on_the_board():
    board = read_position("plakoto:-14,0,0,0,0,0,1p," + "0," * 16 + "14")
    x = plakoto(board[None])[0]
    assert x.shape == (246,)
    assert x[198 + 6] == 1 and x[222:].sum() == 0  # theirs pinned under ours on 7
    assert x[194] == 0 and x[195] == 0  # nobody has borne off: the pinned one is on the board
    plain = read_position("plakoto:-14,0,0,0,0,0,1," + "0," * 16 + "14")
    assert not np.array_equal(plakoto(plain[None])[0], x)


def test_nuclear_encoding_is_classic_plus_the_bomb_owner():
    board = np.zeros((3, 26), np.int8)
    board[:, 6], board[:, 19] = 15, -15
    x = nuclear(board, 15, np.array([1, -1, 0]))
    assert np.array_equal(x[:, :198], classic(board))
    assert x[:, 198:].tolist() == [[1, 0], [0, 1], [0, 0]]


def test_variants_with_state_need_their_encoding():
    check_encoding("plakoto", "plakoto")
    check_encoding("classic", "caucasian")
    for encoding, variant in (("classic", "plakoto"), ("classic", "nuclear"),
                              ("plakoto", "standard"), ("nuclear", "plakoto")):
        with pytest.raises(ValueError):
            check_encoding(encoding, variant)


def test_every_variant_has_a_config_that_loads():
    for name in VARIANTS:
        if name == "standard":
            continue
        config = load(ROOT / "configs" / f"{name}.toml")
        assert config.train.variant == name
        check_encoding(config.model.encoding, name)


def test_a_nuclear_net_started_from_a_standard_one_plays_alike_with_a_centred_bomb(tmp_path):
    torch.manual_seed(0)
    source = ValueNet(198, (16,))
    from gammon.model import checkpoint as ckpt
    path = tmp_path / "std.pt"
    ckpt.save(path, ckpt.model_payload(source, "classic", "standard"))
    target = ValueNet(200, (16,))
    start_from({"main": (target, "nuclear")}, str(path))
    boards = np.zeros((4, 26), np.int8)
    boards[:, 6], boards[:, 19], boards[:, 25] = 14, -15, np.arange(4) % 2
    with torch.no_grad():
        a = source(torch.from_numpy(classic(boards)))
        b = target(torch.from_numpy(nuclear(boards, 15, np.zeros(4))))
    assert torch.allclose(a, b)
    with pytest.raises(ConfigError, match="hidden"):
        start_from({"main": (ValueNet(200, (8,)), "nuclear")}, str(path))
    with pytest.raises(ConfigError, match="cannot start"):
        start_from({"main": (ValueNet(246, (16,)), "plakoto")}, str(path))


def test_init_from_a_two_network_file_starts_both_networks(tmp_path):
    """model.init takes the race network too (it once started random beside a trained
    main network); a one-network file leaves the race network as the seed made it."""
    from gammon.model import checkpoint as ckpt
    torch.manual_seed(12345)  # not the trainer's seed: its own random weights differ
    main, race = ValueNet(232, (8,)), ValueNet(232, (4,))
    two = tmp_path / "two.pt"
    ckpt.save(two, ckpt.model_payload(main, "advanced", "standard",
                                      {"race": (race, "advanced")}))
    cfg = tmp_path / "c.toml"
    cfg.write_text('[model]\nencoding = "advanced"\nhidden = [8]\nrace_hidden = [4]\n'
                   'race_encoding = "advanced"\ninit = "%s"\n' % two)
    trainer = Trainer(load(cfg), tmp_path / "run", log=lambda *a: None)
    for mine, theirs in ((trainer.net, main), (trainer.phases["race"][0], race)):
        for a, b in zip(mine.parameters(), theirs.parameters()):
            assert torch.equal(a.detach().cpu(), b.detach())
    one = tmp_path / "one.pt"
    ckpt.save(one, ckpt.model_payload(main, "advanced", "standard"))
    cfg.write_text(cfg.read_text().replace(str(two), str(one)))
    trainer = Trainer(load(cfg), tmp_path / "run2", log=lambda *a: None)
    assert torch.equal(trainer.net.layers[0].weight.detach(), main.layers[0].weight.detach())
    assert not torch.equal(trainer.phases["race"][0].layers[0].weight.detach(),
                           race.layers[0].weight.detach())
    cfg.write_text(cfg.read_text().replace("race_hidden = [4]", "race_hidden = [6]")
                   .replace(str(one), str(two)))
    with pytest.raises(ConfigError, match="race network has hidden"):
        Trainer(load(cfg), tmp_path / "run3", log=lambda *a: None)


def test_train_variant_plakoto_writes_a_model_net_plays_and_others_refuse(tmp_path):
    out = tmp_path / "run"
    cfg = tmp_path / "tiny.toml"
    cfg.write_text('[model]\nhidden = [8]\n[train]\ngames = 64\nparallel_games = 32\n'
                   'update_every = 256\n[eval]\nevery_games = 0\n'
                   '[run]\ncheckpoint_every_games = 0\n')
    r = gammon_process("train", "--config", str(cfg), "--variant", "plakoto", "--out",
                       str(out), "--no-progress")
    assert r.returncode == 0, r.stderr
    model = out / "model.pt"
    start = "plakoto:-15," + "0," * 22 + "15"
    r = gammon("choose", "--variant", "plakoto", "--bot", f"net:{model}", start, "6", "5")
    assert r.returncode == 0 and r.stdout.startswith("plakoto:"), r.stderr
    r = gammon("choose", "--bot", f"net:{model}", "4HPwATDgc/ABMA", "6", "5")
    assert r.returncode == 2 and "trained for 'plakoto'" in r.stderr
    r = gammon("export", str(model), str(tmp_path / "b.npz"), "--variant", "nackgammon")
    assert r.returncode == 2 and "trained for 'plakoto'" in r.stderr


def test_net_alone_plays_the_variants_shipped_model():
    from gammon.model.player import shipped
    assert shipped("standard").name == "default.pt"
    assert shipped("plakoto").name == "plakoto.pt"


def test_the_bomb_folds_into_the_board_and_changes_hands_with_it():
    from gammon.engine.board import flip
    from gammon.model.encoding import fold_bomb, unfold_bomb
    boards = np.zeros((3, 26), np.int8)
    boards[:, 25], boards[:, 0], boards[:, 6], boards[:, 19] = 2, -15, 13, 0
    bomb = np.array([1, -1, 0], np.int8)
    folded = fold_bomb(boards, bomb)
    plain, back = unfold_bomb(folded)
    assert np.array_equal(plain, boards) and np.array_equal(back, bomb)
    # the opponent on roll sees the bomb the other way round
    plain, theirs = unfold_bomb(flip(folded))
    assert np.array_equal(plain, flip(boards)) and np.array_equal(theirs, -bomb)
    assert np.array_equal(nuclear(folded), nuclear(boards, 15, bomb))


def _nuclear_net(tmp_path):
    from gammon.model import checkpoint as ckpt
    from gammon.model.player import load_net_bot
    torch.manual_seed(3)
    net = ValueNet(200, (8,))
    path = tmp_path / "nuclear.pt"
    ckpt.save(path, ckpt.model_payload(net, "nuclear", "nuclear"))
    return load_net_bot(str(path), "nuclear")


def test_a_nuclear_net_detonates_when_its_equity_says_so_and_reads_the_bomb(tmp_path):
    from gammon.engine.rules.nuclear import explode
    bot = _nuclear_net(tmp_path)
    boards = np.zeros((2, 26), np.int8)
    boards[:, 24], boards[:, 13], boards[:, 3], boards[:, 20] = 2, 5, 1, -1
    boards[:, 6], boards[:, 1], boards[:, 12] = 7, -14, 0
    bomb = np.array([0, 1], np.int8)
    ev = bot.evaluator
    from gammon.model.bomb import MARGIN
    expected = ev.equity_before_roll(explode(boards), np.array([-1, -1])) > \
        ev.equity_before_roll(boards, bomb) + MARGIN
    assert np.array_equal(bot.detonate(boards, bomb), expected)
    # the bomb the loop tells it changes the network's view of the plays
    from gammon.engine.movegen import legal_plays
    plays = legal_plays(boards, np.array([[3, 1], [3, 1]]))
    plain = bot.scores(plays, boards, None)
    bot.observe_extra({"bomb": np.array([1, 1], np.int8)})
    told = bot.scores(plays, boards, None)
    assert not np.allclose(plain, told)
    assert not hasattr(_plain_net(tmp_path), "detonate")


def _plain_net(tmp_path):
    from gammon.model import checkpoint as ckpt
    from gammon.model.player import load_net_bot
    net = ValueNet(198, (8,))
    path = tmp_path / "standard.pt"
    ckpt.save(path, ckpt.model_payload(net, "classic", "standard"))
    return load_net_bot(str(path), "standard")


def test_nuclear_self_play_detonates_and_resumes_exactly():
    from gammon.train.selfplay import SelfPlay
    from gammon.model.policy import NetEvaluator
    torch.manual_seed(1)
    ev = NetEvaluator(ValueNet(200, (8,)), "nuclear", "nuclear")
    make = lambda: SelfPlay(16, np.random.default_rng(4), "nuclear")

    def before(boards, bomb):  # values opponent checkers on the bar: blots to hit pay
        return -boards[:, 0].astype(float)

    a = make()
    for _ in range(30):
        a.ply(ev.after_play, before)
    assert (a.games.extra["bomb"] != 0).any()  # someone detonated
    assert (a.hist_states[:30, :, 25] >= 64).any() or (a.hist_states[:30, :, 0] <= -64).any()
    b = make()
    b.load_state_dict(a.state_dict())
    for _ in range(10):
        a.ply(ev.after_play, before)
        b.ply(ev.after_play, before)
    assert np.array_equal(a.boards, b.boards)
    assert np.array_equal(a.games.extra["bomb"], b.games.extra["bomb"])


@pytest.mark.parametrize("name", [v for v in VARIANTS if v != "standard"])
def test_training_runs_in_every_variant(name, tmp_path):
    """A short self-play run of every variant learns (its weights move) and writes a model
    that records the variant; Plakoto and Nuclear with their own encodings."""
    from gammon.model.encoding import VARIANT_ENCODINGS
    from gammon.model import checkpoint as ckpt
    config = Config().with_overrides(
        model={"hidden": (8,), "encoding": VARIANT_ENCODINGS.get(name, "classic")},
        train={"games": 40, "parallel_games": 16, "update_every": 64, "batch_size": 32,
               "threads": 1, "seed": 2, "variant": name},
        eval={"every_games": 0}, run={"checkpoint_every_games": 0})
    trainer = Trainer(config, tmp_path, log=lambda *a: None)
    before = [p.detach().clone() for p in trainer.net.parameters()]
    counters = trainer.run()
    assert counters.games >= 40 and counters.updates > 0
    assert any(not torch.equal(a, b) for a, b in zip(before, trainer.net.parameters()))
    assert ckpt.load(tmp_path / "model.pt")["model"]["variant"] == name
