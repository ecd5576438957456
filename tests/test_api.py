"""The public Python API (``from gammon import ...``, docs/library.md, issue 40 point 4):
positions against GNU Backgammon's own Position IDs and plays, the legal plays against the
generator, bots by name, the runners against ``gammon match``, one-line errors for bad
input, a cheap ``import gammon`` that resolves every public name lazily, and the page
docs/library.md run as written."""

from __future__ import annotations

import doctest
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gammon
from gammon import Play, Position
from gammon.engine.movegen import legal_plays
from gammon.engine.rules import VARIANTS

ROOT = Path(__file__).resolve().parent.parent
START = "4HPwATDgc/ABMA"


def _run(code: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True,
                          text=True, timeout=600, stdin=subprocess.DEVNULL)


# --- one cheap import, every name there --------------------------------------------------

def test_import_gammon_loads_neither_torch_nor_numpy():
    done = _run("import sys, gammon\n"
                "print(sorted(m for m in ('torch', 'numpy') if m in sys.modules))\n"
                "from gammon import Position, Play\n"
                "print(Position.start().position_id, 'torch' in sys.modules)\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["[]", f"{START} False"]


def test_every_public_name_resolves_from_its_module():
    assert gammon.__all__ and len(set(gammon.__all__)) == len(gammon.__all__)
    assert set(gammon.__all__) == set(gammon._HOME)
    for name in gammon.__all__:
        value = getattr(gammon, name)
        assert value is getattr(sys.modules[gammon._HOME[name]], name)
        assert name in dir(gammon)
    namespace: dict = {}
    exec("from gammon import *", namespace)
    assert set(gammon.__all__) <= set(namespace)
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        gammon.nonsense  # noqa: B018


def test_the_parts_keep_their_names_beside_the_public_ones():
    import gammon.engine.movegen
    import gammon.train
    assert gammon.train.__name__ == "gammon.train"  # the package, not train_network
    assert callable(gammon.train_network) and gammon.engine.movegen.legal_plays is legal_plays
    assert (ROOT / "gammon" / "py.typed").is_file()


# --- positions -----------------------------------------------------------------------------

def test_the_start_and_its_ids():
    start = Position.start()
    assert start.position_id == START and start.variant == "standard"
    assert start.xgid == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    assert Position.from_id(START) == Position.from_id(start.xgid) == start
    assert Position(start.board.tolist()) == start and hash(Position(start.board)) == hash(start)
    assert not start.board.flags.writeable
    assert start.flipped() == start and repr(start) == f"Position.from_id({START!r})"
    assert "X on roll" in start.diagram()


def test_positions_round_trip_gnubgs_ids_and_plays(corpus):
    """Every case of GNU Backgammon's generator (1,200, several variants): the board its ID
    holds, the ID written back, and the legal plays' results exactly gnubg's."""
    for case in corpus:
        where = Position.from_id(case["posid"], case["variant"])
        assert where.board.tolist() == case["board28"][:26], case["case"]
        assert where.position_id == case["posid"]
        assert Position.from_id(where.xgid, case["variant"]) == where
        plays = where.legal_plays(case["d1"], case["d2"])
        assert sorted(p.after.position_id for p in plays) == case["results"], case["case"]
        assert all(isinstance(p, Play) and p.notation for p in plays)


def test_legal_plays_are_the_generators(corpus_arrays):
    boards, dice = corpus_arrays
    for board, roll in zip(boards[:300], dice[:300]):
        found = legal_plays(board[None], roll[None])
        count = len(found) if found.dice_used[0] else 0
        mine = Position(board).legal_plays(*roll.tolist())
        assert len(mine) == count
        assert {p.after.board.tobytes() for p in mine} == \
            ({b.tobytes() for b in found.boards} if count else set())


def test_a_play_that_ends_the_game_says_its_points():
    board = np.zeros(26, dtype=np.int8)
    board[1], board[3] = 1, -15  # one checker left, the opponent's all in our home board
    (play,) = Position(board).legal_plays(6, 5)
    assert play.points == 3 and play.notation.startswith("1/off")  # a backgammon


def test_every_variant_starts_and_moves():
    for name in VARIANTS:
        start = Position.start(name)
        assert Position.from_id(start.position_id, name) == start
        assert start.legal_plays(6, 5), name


# --- bots, analysis, runners ------------------------------------------------------------------

def test_a_bot_by_name_ranks_as_gammon_hint(capsys):
    from gammon.cli import main
    pubeval = gammon.bot("pubeval")
    assert isinstance(pubeval, gammon.Bot)
    mine = gammon.hint(START, 6, 4, pubeval)
    assert main(["hint", START, "6", "4", "--bot", "pubeval", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["plays"]
    assert [(r.play, r.after.position_id, r.score) for r in mine] == \
        [(r["play"], r["result"], r["score"]) for r in shown]
    assert mine[0].equity is None and mine[0].rank == 1


def test_play_games_plays_gammon_matchs_games(capsys):
    from gammon.cli import main
    result = gammon.play_games("pubeval", "random", games=40, seed=3)
    assert main(["match", "pubeval", "random", "--games", "40", "--seed", "3", "--json",
                 "--no-progress"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (result.ppg, result.ppg_ci95, result.wins) == \
        (shown["ppg_a"], shown["ppg_a_ci95"], shown["wins_a"])
    assert result.interval[0] < result.ppg < result.interval[1] and result.win_rate > 0.8
    assert result.details["gammons_a"] == shown["gammons_a"]


def test_play_matches_and_a_bot_object():
    series = gammon.play_matches(gammon.bot("pubeval"), "random", length=1, matches=4, seed=2)
    assert (series.matches, series.length, series.a) == (4, 1, "pubeval")
    assert 0 <= series.wins <= 4 and series.details["match_to"] == 1
    cubeful = gammon.play_games("random", "random", games=4, seed=5, cube=True)
    assert cubeful.games == 4 and "cube" in cubeful.details


@pytest.mark.parametrize("call, words", [
    (lambda: Position.from_id("4HPwATDgc/ABM"), "14 characters"),
    (lambda: Position.from_id("XGID=nonsense:0"), "XGID"),
    (lambda: Position.from_id(START, "chess"), "unknown variant"),
    (lambda: Position.from_id(12), "a position is text"),
    (lambda: Position([0] * 25), "26 whole numbers"),
    (lambda: Position([0.5] * 26), "26 whole numbers"),
    (lambda: Position([0] * 24 + [16, 0]), "not a standard position"),
    (lambda: Position([0] * 25 + [-1]), "not a standard position"),
    (lambda: Position.start("plakoto").xgid, "an XGID cannot hold plakoto"),
    (lambda: Position.start().legal_plays(0, 3), "a die"),
    (lambda: Position.start().legal_plays(3, True), "a die"),
    (lambda: Position.start().legal_plays("3", 1), "a die"),
    (lambda: gammon.bot("deepblue"), "unknown bot 'deepblue'"),
    (lambda: gammon.bot("pubeval", seed=-1), "a seed"),
    (lambda: gammon.hint(START, 3, 1, "pubeval", cubeful=True), "probabilities"),
    (lambda: gammon.evaluate(START, "random"), "estimates no probabilities"),
    (lambda: gammon.rollout(START, "pubeval", trials=36), "vr off"),
    (lambda: gammon.rollout(START, trials=0), "trials"),
    (lambda: gammon.play_games("pubeval", "random", games=3), "even"),
    (lambda: gammon.play_games("pubeval", "nobody", games=2), "unknown bot"),
    (lambda: gammon.play_matches("pubeval", "random", length=0), "length"),
    (lambda: gammon.train_network("no/such/config.toml"), "not found"),
    (lambda: gammon.train_network(device="tpu"), "device"),
])
def test_bad_input_is_one_line_valueerror(call, words):
    with pytest.raises(ValueError) as caught:
        call()
    message = str(caught.value)
    assert words in message and "\n" not in message and len(message) < 500


def test_a_run_directory_holding_a_run_is_refused(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "checkpoint.pt").write_bytes(b"")
    with pytest.raises(ValueError, match="already holds a run"):
        gammon.train_network(out=out)


# --- the page -----------------------------------------------------------------------------

def _page_session() -> str:
    text = (ROOT / "docs" / "library.md").read_text()
    return "\n".join(re.findall(r"^```pycon\n(.*?)^```", text, flags=re.S | re.M))


def test_the_library_page_runs_as_written(tmp_path):
    """Every ``pycon`` block of docs/library.md, in order, as one doctest session in a
    folder of its own (its training run writes there): the output shown is the output."""
    session = _page_session()
    assert session.count(">>> ") >= 25 and "train_network" in session
    code = ("import doctest, sys\n"
            f"text = {session!r}\n"
            "test = doctest.DocTestParser().get_doctest(text, {}, 'library.md', "
            "'docs/library.md', 0)\n"
            "runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)\n"
            "runner.run(test)\n"
            "sys.exit(1 if runner.failures else 0)\n")
    done = _run(code, tmp_path)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert (tmp_path / "runs" / "tiny" / "model.pt").is_file()


def test_the_page_names_every_public_name():
    text = (ROOT / "docs" / "library.md").read_text()
    for name in gammon.__all__:
        assert f"`{name}" in text, name
    assert doctest.DocTestParser().get_examples(_page_session())
