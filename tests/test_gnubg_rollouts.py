"""GNU Backgammon's rollouts (``eval.gnubg.rollouts``): gnubg run on a pseudo-terminal and
its rollout table read, the committed set of its rollouts, the comparison with ours, and
bad data files."""

from __future__ import annotations

import json

import numpy as np
import pytest

import gammon.eval.gnubg.rollouts as gr
from gammon.eval.bots.registry import make_bot
from gammon.eval.gnubg.driver import find_gnubg

OPENING = "4HPwATDgc/ABMA"


@pytest.mark.skipif(find_gnubg() is None, reason="GNU Backgammon (gnubg) is not installed")
def test_gnubg_rollout_read_from_its_terminal_output():
    plain, vr = (gr.gnubg_rollouts([OPENING, "nN3AAHDbbSMQAA"], 36, v, 7) for v in (False, True))
    for found in (plain, vr):
        assert [r["trials"] for r in found] == [36, 36]
        opening, strong = found
        assert 0.4 < opening["probabilities"]["win"] < 0.6 and strong["equity"] > 1.5
        p = opening["probabilities"]
        assert p["win_gammon"] >= p["win_backgammon"] and opening["stderr"]["equity"] > 0
        # gnubg's equity is its five's: 2w - 1 + wg - lg + wbg - lbg (to its 3 decimals)
        eq = 2 * p["win"] - 1 + p["win_gammon"] - p["lose_gammon"] + p["win_backgammon"] \
            - p["lose_backgammon"]
        assert eq == pytest.approx(opening["equity"], abs=0.005)
    # variance reduction cuts gnubg's own standard error too
    assert vr[0]["stderr"]["equity"] < plain[0]["stderr"]["equity"]


def test_the_committed_set_and_the_comparison():
    meta, rows = gr.load()
    assert meta["trials"] == 1296 and "set rollout varredn on" in meta["gnubg_settings"]
    assert {r["phase"] for r in rows} == set(gr.PHASES) and len(rows) == 24
    assert len({r["posid"] for r in rows}) == len(rows)
    picked = [next(r for r in rows if r["phase"] == p) for p in gr.PHASES]
    report = gr.compare(picked, make_bot("net:"), 16, 1)
    assert set(report["by_phase"]) == {*gr.PHASES, "all"}
    for p in report["positions"]:
        assert np.isfinite(p["rollout"]) and np.isfinite(p["zero_ply"])
    assert gr.speed_positions(rows, 3) == picked


def test_bad_data_files_are_one_line(tmp_path, capsys):
    missing = tmp_path / "none.jsonl"
    assert gr.main(["--data", str(missing)]) == 2
    err = capsys.readouterr().err.strip()
    assert "no gnubg rollout data" in err and "--generate" in err and "\n" not in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"meta": {"format": gr.FORMAT}}) + "\n{\"posid\": \"zz\"}\n")
    assert gr.main(["--data", str(bad)]) == 2
    assert "damaged" in capsys.readouterr().err
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"meta": {"format": 99}}) + "\n")
    assert gr.main(["--data", str(other)]) == 2
    assert "another format" in capsys.readouterr().err
