"""Expert iteration's data (issue 37): look-ahead labels of positions
(``model.lookahead.position_values``, checked against a plain loop over the 21 rolls),
disagreement mining (``train.mining``: what it keeps is what the student and the teacher
choose, each labelled by the teacher), resumes that end as one run, one-line refusals, and
the recipe's generations with acceptance."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from gammon.engine.bearoff import all_home
from gammon.engine.board import flip
from gammon.engine.dice import ROLL_WEIGHTS, ROLLS
from gammon.engine.movegen import legal_plays
from gammon.engine.outcomes import equity, flip_outcomes
from gammon.eval.bots.registry import make_bot
from gammon.model import checkpoint as ckpt
from gammon.model.lookahead import look_ahead, position_values
from gammon.model.net import ValueNet
from gammon.model.policy import NetPolicy
from gammon.train import mining
from gammon.train import rollout_data as rd
from gammon.train.config import ConfigError, from_dict

GAMMON = [sys.executable, "-m", "gammon.cli"]
ROOT = Path(__file__).resolve().parents[1]
FAST = dict(plies=1, games=2, opponent="", crashed_share=0.5)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A small random net's checkpoint and its bot: quick, and it errs often."""
    torch.manual_seed(11)
    path = tmp_path_factory.mktemp("net") / "tiny.pt"
    ckpt.save(path, ckpt.model_payload(ValueNet(198, (8,)), "classic", "standard"))
    return path, make_bot(f"net:{path}")


@pytest.fixture(scope="module")
def shipped():
    return make_bot("net:")


def some_positions(n: int, seed: int = 2) -> tuple[np.ndarray, np.ndarray]:
    from gammon.engine.sample import from_random_play
    boards, dice = from_random_play(np.random.default_rng(seed), 4)
    rows = np.random.default_rng(seed).choice(len(boards), n, replace=False)
    return boards[rows], dice[rows]


def one_ply_by_hand(ev, board: np.ndarray) -> np.ndarray:
    """The 1-ply value of one position before the roll, as a plain loop: each of the 21
    rolls, its best play by 0-ply equity, weighted by the roll's chance."""
    total = np.zeros(6)
    for roll, weight in zip(ROLLS, ROLL_WEIGHTS):
        plays = legal_plays(board[None], np.asarray(roll)[None], ev.rules)
        probs = ev.after_play(plays.boards)
        total += weight * probs[int(np.argmax(equity(probs)))]
    return total


def test_position_values_are_the_roll_by_roll_look_ahead(shipped):
    ev = shipped.evaluator
    boards, _ = some_positions(5)
    one = position_values(ev, boards, 1)
    for board, got in zip(boards, one):
        assert np.allclose(got, one_ply_by_hand(ev, board), atol=2e-6)
    assert np.allclose(one.sum(axis=1), 1, atol=1e-5)
    # 2-ply: the same as the look-ahead of the play that led here, seen from the other side
    two = position_values(ev, boards[:2], 2)
    assert np.allclose(two, flip_outcomes(look_ahead(ev, flip(boards[:2]), 2)), atol=1e-6)
    assert np.allclose(position_values(ev, boards, 0), ev(boards))
    assert not np.allclose(two, one[:2], atol=1e-3)  # looking further changes the value


def test_the_judge_keeps_what_student_and_teacher_choose(shipped):
    """With the second filter open (every play the 0-ply filter keeps is looked at deep)
    and threshold 0, the disagreement rows are exactly the student's (NetPolicy at 0-ply)
    and the teacher's (NetPolicy at 1-ply) results wherever they differ, each labelled by
    the teacher's probabilities of it."""
    ev = shipped.evaluator
    boards, dice = some_positions(60, seed=5)
    settings = mining.MiningSettings(plies=1, threshold=0.0, prefilter=2.0,
                                     prefilter_plays=8, ordinary=0.0, cube_window=0.0)
    judge = mining.Judge(ev, settings, np.random.default_rng(0), set())
    plays = legal_plays(boards, dice, ev.rules)
    student = judge.choose(plays, boards, dice)
    kept, targets, kinds = judge.take()
    assert (kinds == 0).all()
    assert np.array_equal(student, NetPolicy(ev, 0).choose(plays, boards, dice))
    teacher = NetPolicy(ev, 1).choose(plays, boards, dice)
    parted = student != teacher
    assert parted.sum() >= 3  # the shipped net and its 1-ply part on some of these
    want = {flip(plays.boards[r]).tobytes() for r in np.concatenate(
        [student[parted], teacher[parted]])}
    ended = ev.rules.end_of_game(plays.boards) != 0
    assert not ended[student[parted]].any()
    assert {b.tobytes() for b in kept} == want
    assert judge.tally.disagreement == parted.sum()
    assert np.allclose(targets, position_values(ev, kept, 1), atol=2e-6)
    # the same decisions again: judged once
    judge.choose(plays, boards, dice)
    assert len(judge.take()[0]) == 0
    # an equity threshold above every loss keeps none
    strict = mining.Judge(ev, mining.MiningSettings(plies=1, threshold=2.0, ordinary=0.0,
                                                    cube_window=0.0),
                          np.random.default_rng(0), set())
    strict.choose(plays, boards, dice)
    assert len(strict.take()[0]) == 0 and strict.tally.decisions > 50


def test_keep_deep_keeps_every_play_the_teacher_valued(shipped):
    """``keep_deep``: of every decision with a real choice at depth, the result of each play
    looked at deep (here, with the second filter open, every play the 0-ply filter keeps),
    each labelled by its own deep value; the disagreements are still counted as such."""
    from gammon.model.lookahead import candidates
    ev = shipped.evaluator
    boards, dice = some_positions(60, seed=5)
    settings = mining.MiningSettings(plies=1, threshold=0.0, prefilter=2.0,
                                     prefilter_plays=8, ordinary=0.0, cube_window=0.0,
                                     keep_deep=True)
    judge = mining.Judge(ev, settings, np.random.default_rng(0), set())
    plays = legal_plays(boards, dice, ev.rules)
    judge.choose(plays, boards, dice)
    kept, targets, kinds = judge.take()
    e0 = equity(ev.after_play(plays.boards))
    n = len(boards)
    cand = candidates(e0, plays.root, n)
    contested = np.bincount(plays.root[cand], minlength=n) > 1
    rows = np.flatnonzero(cand & contested[plays.root])
    rows = rows[ev.rules.end_of_game(plays.boards[rows]) == 0]
    want = flip(plays.boards[rows])
    want = want[~all_home(want)]
    assert {b.tobytes() for b in kept} == {b.tobytes() for b in want}
    assert len(kept) > 3 * contested.sum() / 2  # more than the two sides of each decision
    assert set(np.unique(kinds)) == {0, 3}
    assert judge.tally.disagreement > 0 and judge.tally.deep_rows == (kinds == 3).sum()
    assert np.allclose(targets, position_values(ev, kept, 1), atol=2e-6)
    # the default settings' metadata are as before the setting existed (old files resume)
    assert "keep_deep" not in mining.MiningSettings().fixed()
    assert mining.MiningSettings(keep_deep=True).fixed()["keep_deep"] is True


def test_a_block_keeps_all_three_kinds_labelled_by_the_teacher(shipped):
    bot = shipped
    settings = mining.MiningSettings(ordinary=0.2, cube_window=0.5, **FAST)
    boards, targets, kinds, tally = mining.mine_block(bot.evaluator, bot, settings, 0)
    assert set(np.unique(kinds)) <= {0, 1, 2} and {0, 1} <= set(np.unique(kinds))
    assert tally.decisions > 0 and tally.loss > 0 and tally.seconds > 0
    assert np.allclose(targets, position_values(bot.evaluator, boards, 1), atol=2e-6)
    assert (bot.evaluator.rules.end_of_game(boards) == 0).all()
    assert np.allclose(targets.sum(axis=1), 1, atol=1e-5)
    again = mining.mine_block(bot.evaluator, bot, settings, 0)
    assert np.array_equal(again[0], boards) and np.array_equal(again[1], targets)


def net_positions(bot, games: int) -> tuple[np.ndarray, np.ndarray]:
    """Every position the net faces, with its roll, in ``games`` games of self-play."""
    from gammon.engine.game import play
    seen = []
    play((bot, bot), games, np.random.default_rng(8),
         on_position=lambda b, d: seen.append((b.copy(), np.asarray(d).copy())))
    return np.concatenate([b for b, _ in seen]), np.concatenate([d for _, d in seen])


def test_cube_decisions_the_teacher_sees_otherwise_are_kept(shipped):
    """Kind 2: the student's results whose cube decision (the opponent's, centred cube) is
    within the window of a boundary at 0-ply and is another at the teacher's depth."""
    from gammon.model.cube import cube_equities, decide
    ev = shipped.evaluator
    boards, dice = net_positions(shipped, 6)
    settings = mining.MiningSettings(plies=1, threshold=2.0, ordinary=0.0, cube_window=0.3)
    judge = mining.Judge(ev, settings, np.random.default_rng(0), set())
    plays = legal_plays(boards, dice, ev.rules)
    student = judge.choose(plays, boards, dice)
    kept, targets, kinds = judge.take()
    assert (kinds == 2).all() and len(kept) >= 2
    many = np.bincount(plays.root, minlength=len(boards)) > 1
    want = set()
    for r in np.unique(student[many]):
        after = plays.boards[r]
        if ev.rules.end_of_game(after[None])[0] or all_home(flip(after[None]))[0]:
            continue
        p0 = flip_outcomes(ev.after_play(after[None]).astype(np.float64))
        eq = cube_equities(p0)
        nd, dt, dp = eq.no_double[0], eq.double_take[0], eq.double_pass[0]
        if min(abs(min(dt, dp) - nd), abs(dt - dp), abs(nd - dp)) >= 0.3:
            continue
        a = decide(p0)
        b = decide(position_values(ev, flip(after[None]), 1).astype(np.float64))
        if a.action[0] != b.action[0] or a.response[0] != b.response[0]:
            want.add(flip(after[None])[0].tobytes())
    assert {b.tobytes() for b in kept} == want
    assert judge.tally.cube == len(want)


def test_games_from_crashed_positions():
    from gammon.engine.phase import is_crashed
    rng = np.random.default_rng(3)
    starts = mining.crashed_starts(make_bot("pubeval"), 4, rng, "standard")
    assert starts.shape == (4, 26) and is_crashed(starts).all()


def columns(path) -> dict:
    data = rd.open_data(path)
    return {name: getattr(data, name) for name, _, _ in rd.COLUMNS}


def test_a_mined_file_grows_and_resumes_as_one_run(tmp_path, tiny):
    net, bot = tiny
    one = tmp_path / "one.gdr"
    settings = mining.MiningSettings(positions=60, **FAST)
    mining.generate(one, bot, net, settings)
    two = tmp_path / "two.gdr"
    mining.generate(two, bot, net, mining.MiningSettings(positions=20, **FAST))
    # a kill -9 after a chunk but before its progress line: that block is judged again
    progress = mining.read_progress(two)
    last = max(progress["blocks"], key=int)
    del progress["blocks"][last]
    mining.progress_path(two).write_text(json.dumps(progress))
    mining.generate(two, bot, net, settings)
    a, b = columns(one), columns(two)
    assert len(a["boards"]) >= 60
    for name in a:
        assert np.array_equal(a[name], b[name]), name
    meta = rd.open_data(one).meta
    assert meta["kind"] == "look-ahead labels" and meta["settings"]["plies"] == 1
    assert (a["trials"] == 1).all() and (a["equity_se"] == 0).all()
    assert set(np.unique(a["split"])) <= {0, 1}
    # other settings on the same file: refused in one line
    with pytest.raises(rd.DatasetError, match="threshold"):
        mining.generate(one, bot, net, mining.MiningSettings(positions=90, threshold=0.5,
                                                             **FAST))


def test_refusals_are_one_line_and_exit_2(tmp_path):
    junk = tmp_path / "junk.gdr"
    junk.write_bytes(b"not a dataset")
    for args, words in ((["--plies", "3"], "plies"), (["--positions", "0"], "positions"),
                        (["--threshold", "-1"], "threshold"), ([], "not a gammon")):
        done = subprocess.run([sys.executable, "-m", "gammon.train.mining", "--data", str(junk),
                               *args], capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and words in lines[0] and "Traceback" not in done.stderr
    assert junk.read_bytes() == b"not a dataset"
    with pytest.raises(ValueError, match="add up"):
        mining.MiningSettings(opponent_share=0.6, crashed_share=0.6).check()


def test_look_ahead_labels_in_the_rollout_stage(tmp_path, tiny):
    from gammon.train import rollout_targets as rt
    net, bot = tiny
    path = tmp_path / "labels.gdr"
    settings = rt.TargetSettings(positions=8, plies=1, opponent="")
    rt.generate(path, bot, net, settings)
    data = rd.open_data(path)
    assert data.meta["kind"] == "look-ahead labels"
    assert data.settings["plies"] == 1 and "trials" not in data.settings
    assert np.allclose(data.targets, position_values(bot.evaluator, data.boards, 1),
                       atol=2e-6)
    assert "plies" not in rt.TargetSettings().fixed()  # old rollout files resume as before


def test_the_recipe_keys():
    with pytest.raises(ConfigError, match="stage2.mine"):
        from_dict({"stage2": {"mine": True}})
    with pytest.raises(ConfigError, match="stage2.plies"):
        from_dict({"stage2": {"plies": 3}})
    with pytest.raises(ConfigError, match="stage2.threshold"):
        from_dict({"stage2": {"threshold": -0.1}})
    with pytest.raises(ConfigError, match="stage2.keep_deep"):
        from_dict({"stage2": {"keep_deep": 1}})
    from gammon.train.stage2 import mining_settings
    deep = from_dict({"stage2": {"mine": True, "plies": 2, "keep_deep": True}})
    assert mining_settings(deep, 0).keep_deep
    assert not mining_settings(from_dict({"stage2": {"mine": True, "plies": 2}}), 0).keep_deep
    from gammon.train.config import load
    config = load(ROOT / "configs" / "expert.toml")
    assert config.stage2.mine and config.stage2.plies == 2
    assert config.stage2.accept_games >= 20_000


def test_mined_generations_with_acceptance_then_resumed(tmp_path, tiny):
    net, _ = tiny
    toml = tmp_path / "expert.toml"
    toml.write_text(f"""
[model]
encoding = "classic"
hidden = [8]
race_hidden = []
init = "{net}"
[train]
games = 0
seed = 5
[eval]
every_games = 0
[run]
out = "{tmp_path / 'run'}"
checkpoint_every_games = 0
[stage2]
generations = 2
positions = 30
plies = 1
mine = true
opponent = ""
crashed_share = 0.5
epochs = 3
batch_size = 8
patience = 2
crashed = false
accept_games = 40
""")
    done = subprocess.run(GAMMON + ["train", "--config", str(toml), "--no-progress"],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    run = tmp_path / "run" / "stage2"
    # a stage from a given net starts from that file whole
    assert (tmp_path / "run" / "stage1.pt").read_bytes() == Path(net).read_bytes()
    verdicts = [json.loads((run / f"gen{g}" / "acceptance.json").read_text())
                for g in (1, 2)]
    for v in verdicts:
        assert v["games"] == 40 and set(v["benchmark_mp"]) == {"candidate", "incumbent"}
        assert v["accepted"] == (v["ppg"] - v["ppg_ci95"] > 0 or (
            v["benchmark_mp"]["candidate"] <= 0.95 * v["benchmark_mp"]["incumbent"]
            and v["ppg"] + v["ppg_ci95"] >= 0))
    # generation 2 was mined by the net generation 1 left in charge
    teacher = run / "gen1" / "model.pt" if verdicts[0]["accepted"] \
        else tmp_path / "run" / "stage1.pt"
    assert rd.open_data(run / "gen2.gdr").meta["net_sha256"] == rd.file_checksum(teacher)
    assert verdicts[1]["incumbent"] == str(teacher)
    final = run / "gen2" / "model.pt" if verdicts[1]["accepted"] else teacher
    assert (tmp_path / "run" / "model.pt").read_bytes() == final.read_bytes()
    again = subprocess.run(GAMMON + ["train", "--resume", str(tmp_path / "run" /
                                                                "checkpoint.pt"),
                                     "--no-progress"],
                           capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "acceptance:" not in again.stderr  # the verdicts are kept
