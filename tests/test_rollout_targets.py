"""Rollout targets (``train.rollout_targets``): a tiny job rolled out by the shipped net into
a dataset, resumed after a stop and grown with the same rows kept and none twice, the
same targets whatever the chunks, and one-line refusals (exit 2) of other settings, a
foreign file or a bad bot, before any file is made."""

from __future__ import annotations

import numpy as np
import pytest

from gammon.eval.bots.registry import make_bot
from gammon.model.player import shipped
from gammon.train import rollout_data as rd
from gammon.train import rollout_targets as rt
from gammon.train.rollout_positions import phase_of

TINY = ["--trials", "8", "--truncate", "2"]
SETTINGS = rt.TargetSettings(positions=6, trials=8, truncate=2)
NAMES = [name for name, _, _ in rd.COLUMNS]


@pytest.fixture(scope="module")
def net():
    return make_bot("net:")


DRAWN: dict = {}


@pytest.fixture(autouse=True)
def draw_once(monkeypatch):
    """The positions of each settings drawn once for all the tests (the draw is
    deterministic, and tested in test_rollout_positions): (L, 26) int8, (L,) int8."""
    real = rt.sample_positions

    def cached(bot, count, seed, explore, within, opponents, *rest, **named):
        key = (bot.name, count, seed, explore, within,
               tuple(type(o).__name__ for o in opponents), repr(rest), repr(named))
        if key not in DRAWN:
            DRAWN[key] = real(bot, count, seed, explore, within, opponents, *rest, **named)
        return tuple(a.copy() for a in DRAWN[key])
    monkeypatch.setattr(rt, "sample_positions", cached)


def columns(path) -> dict:
    data = rd.open_data(path)
    return {name: getattr(data, name) for name in NAMES}


def test_a_tiny_job_resumes_and_grows(tmp_path, net, capsys):
    path = tmp_path / "stage2" / "t.gdr"  # the folder is made
    assert rt.main(["--data", str(path), "--positions", "6", *TINY]) == 0
    assert "6 positions rolled out" in capsys.readouterr().out
    data = rd.open_data(path)
    assert len(data) == 6 and len(data.done_boards()) == 6
    assert data.meta["settings"] == SETTINGS.fixed()
    assert data.meta["net_sha256"] == rd.file_checksum(shipped())
    assert np.allclose(data.targets.sum(axis=1), 1, atol=1e-4)  # six outcomes, sum 1
    # a standard error for every position, 0 only where every trial came out alike (a
    # decided race such as twEAAF/+FAAAAA, which the draw may reach)
    assert (data.trials == 8).all() and (data.equity_se >= 0).all()
    assert (data.equity_se > 0).sum() >= 4
    assert np.array_equal(data.phase, phase_of(data.boards))
    assert np.array_equal(data.split, rd.validation_split(data.boards, 0.1))
    first = columns(path)

    # again with the same count: nothing to do, the file untouched
    assert rt.generate(path, net, shipped(), SETTINGS) == 0
    # more positions (a list from more games, which need not hold the first six): the
    # first rows kept, the file holds the new count, no board twice
    more = rt.TargetSettings(positions=60, trials=8, truncate=2)
    assert rt.generate(path, net, shipped(), more) == 54
    data = rd.open_data(path)
    assert len(data) == 60 and len(data.done_boards()) == 60
    for name in NAMES:
        assert np.array_equal(getattr(data, name)[:6], first[name]), name


def test_a_stopped_run_resumed_makes_the_same_file(tmp_path, net, monkeypatch):
    """Stopped after its first chunk and run again, in chunks of 2: the file of one run in
    one chunk, row for row (each position's dice are its own, not its chunk's)."""
    whole, resumed = tmp_path / "whole.gdr", tmp_path / "resumed.gdr"
    assert rt.generate(whole, net, shipped(), SETTINGS, chunk=6) == 6
    real = rd.Writer.append

    def stop_after_one(self, *args):
        if len(self):
            raise KeyboardInterrupt  # a kill after the first chunk
        return real(self, *args)
    with monkeypatch.context() as m:
        m.setattr(rd.Writer, "append", stop_after_one)
        with pytest.raises(KeyboardInterrupt):
            rt.generate(resumed, net, shipped(), SETTINGS, chunk=2)
    assert len(rd.open_data(resumed)) == 2
    assert rt.generate(resumed, net, shipped(), SETTINGS, chunk=2) == 4
    a, b = columns(whole), columns(resumed)
    for name in NAMES:
        assert np.array_equal(a[name], b[name]), name


def test_blocks_grow_and_resume_as_one_run(tmp_path, net, monkeypatch):
    """Small blocks: a file grown run by run (5, then 9, then 14 positions) and a run
    stopped in its third block then resumed both equal one run of 14, row for row; the
    resume finds its block by a search, not by drawing every block again."""
    monkeypatch.setattr(rt, "BLOCK", 4)
    settings = lambda n: rt.TargetSettings(positions=n, trials=4, truncate=1)  # noqa: E731
    one, grown, stopped = (tmp_path / f"{n}.gdr" for n in ("one", "grown", "stopped"))
    assert rt.generate(one, net, shipped(), settings(14), chunk=3) == 14
    for n in (5, 9, 14):
        rt.generate(grown, net, shipped(), settings(n), chunk=2)
    real = rd.Writer.append

    def stop_in_block_three(self, *args):
        if len(self) >= 9:
            raise KeyboardInterrupt
        return real(self, *args)
    with monkeypatch.context() as m:
        m.setattr(rd.Writer, "append", stop_in_block_three)
        with pytest.raises(KeyboardInterrupt):
            rt.generate(stopped, net, shipped(), settings(14), chunk=1)
    drawn = []
    real_draw = rt.draw_block
    monkeypatch.setattr(rt, "draw_block", lambda bot, s, block, o=(): (
        drawn.append(block), real_draw(bot, s, block, o))[1])
    assert rt.generate(stopped, net, shipped(), settings(14), chunk=4) == 5
    a = columns(one)
    for other in (grown, stopped):
        b = columns(other)
        for name in NAMES:
            assert np.array_equal(a[name], b[name]), (other, name)
    assert len(set(rd.open_data(one).phase.tolist())) >= 2
    # the search drew a few blocks, then the ones rolled out
    assert drawn[-1] >= 3 and len(drawn) <= 8


def test_refusals_are_one_line_and_exit_2(tmp_path, net, capsys):
    path = tmp_path / "t.gdr"
    assert rt.generate(path, net, shipped(), SETTINGS) == 6
    before = path.read_bytes()
    capsys.readouterr()

    def refused(argv, *words):
        assert rt.main(argv) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and err.startswith("error: "), err
        assert all(w in err for w in words), err

    refused(["--data", str(path), "--positions", "6", "--trials", "16", "--truncate", "2"],
            str(path), "trials 8, not 16")
    refused(["--data", str(path), "--positions", "6", *TINY, "--no-vr"], "vr True, not False")
    assert path.read_bytes() == before
    foreign = tmp_path / "notes.txt"
    foreign.write_text("not a dataset\n")
    refused(["--data", str(foreign), "--positions", "6", *TINY], str(foreign),
            "not a gammon rollout dataset")
    assert foreign.read_text() == "not a dataset\n"
    new = tmp_path / "new.gdr"
    refused(["--data", str(new), "--opponent", "nobody", *TINY], "unknown bot 'nobody'")
    refused(["--data", str(new), "--trials", "1"], "trials are 2 or more")
    refused(["--data", str(new), "--positions", "0"], "positions are 1 or more")
    refused(["--data", str(new), "--explore", "2"], "explore")
    refused(["--data", str(new), "--alternatives", "9"], "alternatives are a whole number 0..8")
    refused(["--data", str(path), "--positions", "6", *TINY, "--alternatives", "1"],
            "alternatives '(none)', not 1")
    refused(["--data", str(new), "--net", str(foreign)], str(foreign))
    refused(["--positions", "6"], "--data")
    assert not new.exists()  # nothing is created before every setting is checked


def test_alternatives_are_kept_in_the_metadata_only_when_set():
    """Files made before the setting existed hold no "alternatives" and resume as before."""
    assert "alternatives" not in rt.TargetSettings().fixed()
    assert rt.TargetSettings(alternatives=1).fixed()["alternatives"] == 1


def test_help(capsys):
    with pytest.raises(SystemExit) as e:
        rt.main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m gammon.train.rollout_targets") and "--positions" in out
