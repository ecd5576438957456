"""`gammon review --bot gnubg` against GNU Backgammon 1.07's own analysis of the same
files (``eval.gnubg.review_check``): a money game and a 3-point match played by our bots,
analysed by gnubg -t (import, analyse match at 0-ply, export match text, show statistics
match) and by our review with gnubg's nets at 0-ply; the same best plays, losses, cube
verdicts, decision counts and error rates. Skipped without gnubg or gnubg-nn."""

from pathlib import Path

import pytest

from gammon.eval.gnubg import review_check
from gammon.eval.gnubg.driver import find_gnubg
from gammon.engine.met import named_met
from gammon.eval.review.report import review

DATA = Path(__file__).parent / "data" / "review"

pytestmark = pytest.mark.skipif(find_gnubg() is None, reason="GNU Backgammon not installed")


@pytest.fixture(scope="module")
def gnubg_bot():
    pytest.importorskip("gnubg_nn")
    from gammon.options import load_bot
    return load_bot("gnubg")


@pytest.mark.parametrize("name", ["money.mat", "match3.mat"])
def test_review_agrees_with_gnubg_analyse_match(name, gnubg_bot, tmp_path):
    path = DATA / name
    # the match valued with gnubg's own table, Kazaross XG2 (review --met kazaross-xg2)
    ours = review(path.read_text(), gnubg_bot, "gnubg", met=named_met("kazaross-xg2"))
    games, stats = review_check.gnubg_review(path, tmp_path)
    assert len(games) == len(ours["games"])
    c = review_check.compare_file(ours, games, stats)
    assert c["unmatched"] == 0 and c["checker"] > 15 and c["cube"] > 10
    assert c["same_best"] / c["checker"] >= 0.97
    assert c["loss_within"] / c["checker"] >= 0.95
    assert c["cube_same"] / c["cube"] >= 0.95
    assert c["luck_within"] / c["luck"] >= 0.9
    for row in c["players"]:
        assert row["unforced"][0] == row["unforced"][1]
        assert row["cube_decisions"][0] == row["cube_decisions"][1]
        for key in ("checker_error_rate", "cube_error_rate", "error_rate"):
            assert review_check.rates_agree(*row[key]), (row["name"], key, row[key])


def test_the_export_reader_reads_every_part():
    text = (DATA / "gnubg_export.txt").read_text()
    records = review_check.read_export(text)
    kinds = [r["kind"] for r in records]
    assert {"roll", "double", "take"} <= set(kinds)
    roll = next(r for r in records if r["kind"] == "roll" and r.get("plays"))
    assert roll["posid"] and len(roll["dice"]) == 2 and roll["plays"][0]["loss"] == 0
    assert sum(p["played"] for p in roll["plays"]) == 1
    assert any(p["rank"] == 0 and p["played"] for r in records for p in r.get("plays", []))
    take = next(r for r in records if r["kind"] == "take")
    assert review_check.parse_action(take["cube"]["proper"]) is not None
