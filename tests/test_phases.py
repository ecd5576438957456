"""Networks by game phase: the classifier, a race network trained beside the main one,
saved, resumed, loaded, exported and played, and one-network files still read."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gammon.engine.phase import CONTACT, CRASHED, RACE, classify, is_crashed
from gammon.engine.rules import STANDARD
from gammon.engine.sanity import sane
from gammon.model import botfile
from gammon.model.checkpoint import CheckpointError, build_phases, load, model_payload, save
from gammon.model.export import export_checkpoint
from gammon.model.net import ValueNet
from gammon.model.player import load_net_bot
from gammon.model.policy import NetEvaluator
from gammon.train.config import ConfigError, check_variant, from_dict
from gammon.train.run_state import resume_payload
from gammon.train.trainer import Trainer

from test_train import small


def _board(cells: dict[int, int]) -> np.ndarray:
    b = np.zeros(26, dtype=np.int8)
    for cell, n in cells.items():
        b[cell] = n
    return b


RACE_BOARD = _board({8: 5, 3: 10, 20: -15})  # every mover checker below the opponent's
CONTACT_BOARD = STANDARD.start_board()


def test_the_classifier():
    # the opponent's checkers on our 5-point still have our 8-point checkers to pass
    blocked = _board({8: 5, 3: 10, 5: -15})
    on_bar = _board({25: 1, 3: 14, 20: -15})
    assert classify(np.stack([RACE_BOARD, CONTACT_BOARD, blocked, on_bar])).tolist() == [
        RACE, CONTACT, CONTACT, CONTACT]


def race_config(games, **train):
    config = small(games, **train)
    return config.with_overrides(model={"race_hidden": (8,), "race_encoding": "classic"})


def test_a_race_network_learns_beside_the_main_one_and_values_the_races(tmp_path):
    trainer = Trainer(race_config(200), tmp_path)
    race_net = trainer.phases["race"][0]
    before = {k: v.clone() for k, v in race_net.state_dict().items()}
    main_before = {k: v.clone() for k, v in trainer.net.state_dict().items()}
    trainer.run()
    assert any(not torch.equal(before[k], v) for k, v in race_net.state_dict().items())
    assert any(not torch.equal(main_before[k], v) for k, v in trainer.net.state_dict().items())
    # the model file holds both; the bot built from it asks each network about its phase
    payload = load(tmp_path / "model.pt")
    assert payload["version"] == 2 and set(payload["phases"]) == {"race"}
    bot = load_net_bot(str(tmp_path / "model.pt"))
    boards = np.stack([RACE_BOARD, CONTACT_BOARD])
    probs = bot.evaluator(boards)
    # each network's own probabilities, made sane (engine.sanity: in RACE_BOARD neither
    # side can be backgammoned)
    race_alone = sane(torch.softmax(race_net.forward_boards(boards[:1]), -1).numpy(),
                      boards[:1], STANDARD)
    main_alone = sane(torch.softmax(trainer.net.forward_boards(boards[1:]), -1).numpy(),
                      boards[1:], STANDARD)
    assert probs[0, 0] == probs[0, 5] == 0
    np.testing.assert_allclose(probs[0], race_alone[0], atol=1e-6)
    np.testing.assert_allclose(probs[1], main_alone[0], atol=1e-6)


def test_resuming_a_two_network_run_is_exact(tmp_path):
    straight = Trainer(race_config(240), tmp_path / "a")
    straight.run()
    first = Trainer(race_config(120), tmp_path / "b")
    first.run()
    config, payload = resume_payload(tmp_path / "b" / "checkpoint.pt")
    assert config.model.race_hidden == (8,)
    resumed = Trainer(config.with_overrides(train={"games": 240}), tmp_path / "b",
                      resume=payload)
    resumed.run()
    for a, b in ((straight.net, resumed.net),
                 (straight.phases["race"][0], resumed.phases["race"][0])):
        for x, y in zip(a.state_dict().values(), b.state_dict().values()):
            assert torch.equal(x, y)


def test_the_bot_file_holds_both_networks_and_plays_like_torch(tmp_path):
    torch.manual_seed(1)
    main, race = ValueNet(198, (8,)), ValueNet(198, (4,))
    save(tmp_path / "two.pt", model_payload(main, "classic", "standard",
                                            {"race": (race, "classic")}))
    report = export_checkpoint(tmp_path / "two.pt", tmp_path / "two.npz")
    assert report.max_abs_diff < 1e-5
    meta, arrays = botfile.read(tmp_path / "two.npz")
    assert meta["version"] == 2 and meta["phases"]["race"]["hidden"] == [4]
    assert arrays["race.layer0.weight"].shape == (4, 198)
    bot = load_net_bot(str(tmp_path / "two.npz"))
    torch_evaluator = NetEvaluator(main.eval(), phases={"race": (race.eval(), "classic")})
    boards = np.stack([RACE_BOARD, CONTACT_BOARD])
    np.testing.assert_allclose(bot.evaluator(boards), torch_evaluator(boards), atol=1e-5)
    # a race network that does not fit its metadata is refused with the reason
    arrays["race.layer0.weight"] = arrays["race.layer0.weight"][:, :100]
    meta.pop("format"), meta.pop("version"), meta.pop("outputs")
    with pytest.raises(botfile.BotFileError, match="race.layer0.weight"):
        botfile.write(tmp_path / "bad.npz", meta, arrays)


# a contact position where the mover has five checkers left in play: crashed (gnubg's N = 6)
CRASHED_BOARD = _board({24: 2, 3: 3, 1: -1, 10: -14})


def test_a_crashed_network_values_the_crashed_positions_only(tmp_path):
    assert is_crashed(CRASHED_BOARD[None])[0] and not is_crashed(CONTACT_BOARD[None])[0]
    boards = np.stack([RACE_BOARD, CONTACT_BOARD, CRASHED_BOARD])
    assert classify(boards).tolist() == [RACE, CONTACT, CONTACT]
    assert classify(boards, crashed=True).tolist() == [RACE, CONTACT, CRASHED]
    torch.manual_seed(3)
    main, race, crashed = ValueNet(198, (8,)), ValueNet(198, (4,)), ValueNet(198, (6,))
    phases = {"race": (race.eval(), "classic"), "crashed": (crashed.eval(), "classic")}
    three = NetEvaluator(main.eval(), phases=phases)
    alone = {name: NetEvaluator(net.eval()) for name, net in
             (("main", main), ("race", race), ("crashed", crashed))}
    # each board valued by its phase's network, exactly as that network alone values it
    got = three.network(boards)
    for row, name in enumerate(("race", "main", "crashed")):
        np.testing.assert_array_equal(got[row], alone[name].network(boards[row:row + 1])[0])
    # the checkpoint and the bot file hold all three; the bot file plays like torch
    save(tmp_path / "three.pt", model_payload(main, "classic", "standard", phases))
    payload = load(tmp_path / "three.pt")
    assert sorted(build_phases(payload)) == ["crashed", "race"]
    report = export_checkpoint(tmp_path / "three.pt", tmp_path / "three.npz")
    assert report.max_abs_diff < 1e-5
    meta, arrays = botfile.read(tmp_path / "three.npz")
    assert meta["phases"]["crashed"]["hidden"] == [6]
    bot = load_net_bot(str(tmp_path / "three.npz"))
    np.testing.assert_allclose(bot.evaluator(boards), three(boards), atol=1e-5)


def test_one_network_files_of_version_one_still_load(tmp_path):
    torch.manual_seed(2)
    payload = model_payload(ValueNet(198, (8,)), "classic", "standard")
    torch.save({"format": "gammon-checkpoint", "version": 1, **payload}, tmp_path / "old.pt")
    old = load(tmp_path / "old.pt")
    assert build_phases(old) == {}
    assert load_net_bot(str(tmp_path / "old.pt")).evaluator.phases == {}


def test_bad_phase_entries_are_refused(tmp_path):
    payload = model_payload(ValueNet(198, (8,)), "classic", "standard",
                            {"race": (ValueNet(198, (4,)), "classic")})
    payload["phases"]["opening"] = payload["phases"].pop("race")
    save(tmp_path / "bad.pt", payload)
    with pytest.raises(CheckpointError, match="unknown phase 'opening'"):
        load(tmp_path / "bad.pt")


def test_race_network_config_is_checked():
    with pytest.raises(ConfigError, match="model.race_hidden"):
        check_variant(from_dict({"model": {"encoding": "plakoto", "race_hidden": [8]},
                                 "train": {"variant": "plakoto"}}))
    with pytest.raises(ConfigError, match="model.race_encoding"):
        from_dict({"model": {"race_encoding": "nuclear"}})
    with pytest.raises(ConfigError, match="model.race_hidden"):
        from_dict({"model": {"race_hidden": [0]}})
    assert from_dict({"model": {"race_hidden": []}}).model.race_hidden == ()
