"""The checker-play benchmark judged by gnubg at 2-ply (eval.gnubg.benchmark): the committed
data, scoring bots on it, the loader's checks, the command line's errors, and (with
gnubg-nn) what the judge computes and from whose side."""

import json
import subprocess
import sys

import numpy as np
import pytest

from gammon.engine.board import flip
from gammon.engine.dice import ROLL_WEIGHTS, ROLLS
from gammon.engine.movegen import legal_plays
from gammon.engine.policy import Bot
from gammon.eval.gnubg import benchmark as gb
from gammon.eval.bots.simple import PubevalBot, RandomBot


@pytest.fixture(scope="module")
def data():
    return gb.load()


class OracleBot(Bot):
    """Plays the result the stored 2-ply equities rank best, looked up by board (not
    through the benchmark's own row matching)."""

    def __init__(self, data):
        starts = data.offsets
        self.table = {}
        for i in range(len(data)):
            for r in range(starts[i], starts[i + 1]):
                key = (data.boards[i].tobytes(), data.dice[i].tobytes(),
                       data.afterstates[r].tobytes())
                self.table[key] = float(data.equity[r])

    def scores(self, plays, boards, dice):
        return np.array([self.table[(boards[i].tobytes(), dice[i].tobytes(), a.tobytes())]
                         for i, a in zip(plays.root, plays.boards)])


def score(bot, data):
    return gb.losses(data, gb.chosen_rows(bot, data))


# ------------------------------------------------------------ the data, without gnubg-nn

def test_committed_data_is_small_and_covers_every_phase(data):
    assert gb.DATA_PATH.stat().st_size < 2_000_000
    assert 500 <= len(data) <= 1500
    assert min(data.phase_counts().values()) >= 150
    assert (data.counts >= 2).all() and data.meta["plies"] == 2
    keys = np.concatenate([data.boards, data.dice], axis=1)
    assert len(np.unique(keys, axis=0)) == len(data)  # each (position, roll) once


def test_best_by_the_judge_loses_nothing(data):
    loss = score(OracleBot(data), data)
    assert np.abs(loss).max() < 1e-9


def test_pubeval_and_random_score_without_gnubg(data, monkeypatch):
    monkeypatch.setitem(sys.modules, "gnubg_nn", None)  # import gnubg_nn fails
    rows, notes = gb.run(gb.bot_names(["random"]), data, seed=3)
    by_bot = {row["bot"]: row for row in rows}
    assert set(by_bot) == {"random", "pubeval"} and "gnubg" in notes[0]
    assert by_bot["random"]["loss_mp"] > 3 * by_bot["pubeval"]["loss_mp"] > 0
    for row in rows:
        assert sum(p["decisions"] for p in row["phases"].values()) == len(data)
        assert row["ci95_mp"] > 0
    assert (score(PubevalBot(), data) >= 0).all()


def test_scores_follow_the_bot_not_the_order_of_plays(data):
    part = data.head(40)
    once = score(RandomBot(5), part)
    assert np.array_equal(once, score(RandomBot(5), part))
    first = part.offsets[:-1]  # the first stored result of each decision
    assert np.array_equal(gb.losses(part, first), part.best - part.equity[first])


# ------------------------------------------------------------------ damaged data files

def rewritten(data, path, **changes):
    arrays = {k: getattr(data, k) for k in gb.KEYS[:-1]}
    arrays.update(changes)
    damaged = gb.BenchmarkData(**arrays, meta=dict(data.meta))
    gb.save(damaged, path)
    return path


@pytest.mark.parametrize("change, words", [
    (lambda d: {"equity": np.where(np.arange(len(d.equity)) == 7, np.nan,
                                   d.equity).astype(np.float32)}, "equity"),
    (lambda d: {"counts": np.where(np.arange(len(d)) == 0, 1, d.counts).astype(np.int16)},
     "fewer than two"),
    (lambda d: {"counts": (d.counts + 1).astype(np.int16)}, "add up"),
    (lambda d: {"dice": np.where(np.arange(len(d))[:, None] == 3, 7, d.dice).astype(np.int8)},
     "die"),
    (lambda d: {"boards": np.where(np.arange(len(d))[:, None] == 2, 9, d.boards)
                .astype(np.int8)}, "impossible"),
    (lambda d: {"equity": d.equity.astype(np.float64)}, "float64"),
])
def test_the_loader_refuses_damaged_values(data, tmp_path, change, words):
    path = rewritten(data, tmp_path / "bad.npz", **change(data))
    with pytest.raises(gb.BenchmarkDataError, match=words):
        gb.load(path)


def test_the_loader_refuses_broken_files(tmp_path):
    whole = gb.DATA_PATH.read_bytes()
    (tmp_path / "cut.npz").write_bytes(whole[: len(whole) // 2])
    (tmp_path / "text.npz").write_text("not a benchmark\n")
    flipped = bytearray(whole)
    for i in (len(whole) // 3, len(whole) // 2, 2 * len(whole) // 3):
        flipped[i] ^= 0xFF
    (tmp_path / "flipped.npz").write_bytes(bytes(flipped))
    np.savez(tmp_path / "other.npz", boards=np.zeros((2, 26), np.int8))
    for name, words in (("cut", "not readable"), ("text", "not readable"),
                        ("flipped", "benchmark data"), ("other", "no 'dice'")):
        with pytest.raises(gb.BenchmarkDataError, match=words):
            gb.load(tmp_path / f"{name}.npz")
    with pytest.raises(gb.BenchmarkDataError, match="--generate"):
        gb.load(tmp_path / "absent.npz")


def test_results_that_are_not_the_legal_plays_are_refused(data, tmp_path):
    after = data.afterstates.copy()
    after[0] = data.afterstates[data.offsets[1]]  # a result of the second decision
    damaged = gb.load(rewritten(data, tmp_path / "swap.npz", afterstates=after))
    with pytest.raises(gb.BenchmarkDataError, match="do not match the legal plays"):
        gb.chosen_rows(RandomBot(0), damaged)


# ------------------------------------------------------------------------ command line

def run_main(capsys, *argv):
    code = gb.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv, words", [
    (["--bot", "nosuchbot"], "unknown bot"),
    (["--bot", "net:/no/such/file.pt"], "net:/no/such/file.pt"),
    (["--positions", "0"], "at least 1"),
    (["--positions", "-3"], "at least 1"),
    (["--positions", "many"], "whole number"),
    (["--positions", "100000"], "holds"),
    (["--seed", "x"], "whole number"),
    (["--data", "/no/such/benchmark.npz"], "--generate"),
    (["--frobnicate"], "unrecognized"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, words):
    code, out, err = run_main(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("gnubg_benchmark: error:") and words in err


def test_a_damaged_data_file_is_one_line_and_exit_2(capsys, tmp_path):
    (tmp_path / "bad.npz").write_bytes(b"PK\x03\x04 broken")
    code, out, err = run_main(capsys, "--data", str(tmp_path / "bad.npz"))
    assert code == 2 and err.count("\n") == 1 and "not readable" in err


def test_json_has_the_bots_asked_for_and_the_reference_rows(capsys):
    code, out, err = run_main(capsys, "--bot", "random", "--positions", "60", "--json")
    assert code == 0
    report = json.loads(out)
    names = [row["bot"] for row in report["bots"]]
    expected = ["random", "gnubg", "pubeval"] if not report["notes"] else ["random", "pubeval"]
    assert names == expected and report["decisions"] == 60 and report["plies"] == 2
    assert set(report["bots"][0]["phases"]) == {"contact", "crashed", "race"}


def test_table_for_people(capsys):
    code, out, err = run_main(capsys, "--bot", "pubeval", "--positions", "30")
    assert code == 0 and "millipoints" in out and "\npubeval " in out


def test_the_module_runs_and_fails_without_a_traceback(tmp_path):
    run = subprocess.run([sys.executable, "-m", "gammon.eval.gnubg.benchmark", "--data",
                          str(tmp_path / "none.npz")], capture_output=True, text=True)
    assert run.returncode == 2 and "Traceback" not in run.stderr and "--generate" in run.stderr


# -------------------------------------------------------------------- with gnubg-nn

def test_gnubg_zero_ply_loses_little_but_not_less_than_nothing(data):
    pytest.importorskip("gnubg_nn")
    part = data.head(400)
    rows, _ = gb.run(gb.bot_names(["random"]), part, seed=1)
    by_bot = {row["bot"]: row for row in rows}
    assert 0 < by_bot["gnubg"]["loss_mp"] < 10
    assert by_bot["random"]["loss_mp"] > 10 * by_bot["gnubg"]["loss_mp"]
    assert by_bot["random"]["vs_gnubg"]["diff_mp"] > 0


def blot_position():
    """We lead 8 points to nothing with one of theirs on our 1-point; 2-1 to play."""
    board = np.zeros(26, dtype=np.int8)
    board[[3, 4, 5, 6, 8]] = [3, 3, 3, 4, 2]
    board[[1, 19, 20, 21, 22, 23, 24]] = [-1, -3, -3, -3, -2, -2, -1]
    return board


def test_the_judge_sees_the_movers_side():
    pytest.importorskip("gnubg_nn")
    board = blot_position()
    safe, blot = board.copy(), board.copy()
    safe[[4, 5, 6]] += [1, 1, -2]  # 6/4 6/5: no blot
    blot[[6, 7, 8]] += [1, 1, -2]  # 8/7 8/6: a blot on 7, six away from their checker
    plays = legal_plays(board[None], np.array([[2, 1]]))
    found = {a.tobytes() for a in plays.boards}
    assert safe.tobytes() in found and blot.tobytes() in found
    e_safe, e_blot = gb.two_ply_equities(gb.gnubg_nn_module(), np.stack([safe, blot]))
    assert e_safe > 0.2 and e_safe - e_blot > 0.1


def test_one_ply_is_the_opponents_21_rolls_with_gnubgs_replies():
    pytest.importorskip("gnubg_nn")
    from gammon.eval.bots.gnubg import GnubgBot
    g, bot = gb.gnubg_nn_module(), GnubgBot()
    for after in legal_plays(blot_position()[None], np.array([[2, 1]])).boards[:3]:
        theirs = flip(after)
        total = 0.0
        for roll, weight in zip(ROLLS, ROLL_WEIGHTS):
            plays = legal_plays(theirs[None], roll[None])
            reply = plays.boards[bot.choose(plays, theirs[None], roll[None])[0]]
            total -= weight * gb.two_ply_equities(g, reply[None], plies=0)[0]  # theirs
        assert total == pytest.approx(gb.two_ply_equities(g, after[None], plies=1)[0],
                                      abs=1e-5)


def test_stored_equities_are_gnubgs_two_ply(data):
    pytest.importorskip("gnubg_nn")
    g = gb.gnubg_nn_module()
    for phase in range(len(gb.PHASES)):  # the smallest decision of each phase
        i = np.flatnonzero(data.phase == phase)[np.argmin(data.counts[data.phase == phase])]
        rows = slice(data.offsets[i], data.offsets[i + 1])
        again = gb.two_ply_equities(g, data.afterstates[rows])
        assert np.allclose(again, data.equity[rows], atol=1e-6)
        assert gb.phase_of(g, data.boards[i]) == phase


def test_generating_a_small_file_round_trips(tmp_path):
    pytest.importorskip("gnubg_nn")
    made = gb.generate(4, seed=5, batch=4, plies=0)
    gb.save(made, tmp_path / "small.npz")
    back = gb.load(tmp_path / "small.npz")
    assert len(back) == 4 and back.meta["plies"] == 0 and back.meta["seed"] == 5
    assert np.array_equal(back.afterstates, made.afterstates)
    again = gb.generate(4, seed=5, batch=4, plies=0)
    assert np.array_equal(again.boards, made.boards) and np.array_equal(again.dice, made.dice)
    # judged at gnubg's own 0-ply, gnubg 0-ply never loses
    from gammon.eval.bots.gnubg import GnubgBot
    row, loss = gb.score_bot("gnubg", GnubgBot(), back)
    assert np.abs(loss).max() < 1e-6
