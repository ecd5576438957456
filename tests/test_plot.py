"""``gammon plot``: a run's learning curve as a PNG; one-line errors for a missing, empty or
corrupt evaluations.jsonl and for a missing matplotlib (an optional extra)."""

import json
import sys

import pytest

from gammon.cli import main

LINES = [
    {"games": 20, "win_rate": 0.1, "ppg": -1.2, "ppg_ci95": 0.3, "games_trained": 1001},
    {"games": 20, "win_rate": 0.4, "ppg": -0.2, "ppg_ci95": 0.3, "games_trained": 2001},
    {"games": 20, "win_rate": 0.45, "ppg": -0.1, "ppg_ci95": 0.3, "games_trained": 2001},
    {"games": 20, "win_rate": 0.6, "ppg": 0.3, "ppg_ci95": 0.25, "games_trained": 3000},
]


def _run_dir(tmp_path, lines=LINES, text=None):
    run = tmp_path / "run"
    run.mkdir(exist_ok=True)
    body = text if text is not None else "".join(json.dumps(x) + "\n" for x in lines)
    (run / "evaluations.jsonl").write_bytes(body if isinstance(body, bytes) else body.encode())
    return run


def plot(capsys, *argv):
    code = main(["plot", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_draws_the_learning_curve_to_a_png(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    run = _run_dir(tmp_path)
    code, out, err = plot(capsys, run)
    assert code == 0, err
    png = run / "learning_curve.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert "3 evaluations, 1,001 to 3,000 games trained" in out  # one per point, the last
    custom = tmp_path / "curve.png"
    code, out, err = plot(capsys, run / "evaluations.jsonl", "--out", custom)
    assert code == 0, err
    assert custom.read_bytes()[:4] == b"\x89PNG"
    assert not list(tmp_path.rglob("*.tmp"))


def test_without_matplotlib_it_says_what_to_install(tmp_path, capsys, monkeypatch):
    run = _run_dir(tmp_path)
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib: ImportError
    code, out, err = plot(capsys, run)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "matplotlib" in err and "pip install 'gammon[plot]'" in err
    assert not (run / "learning_curve.png").exists()


@pytest.mark.parametrize("text, message", [
    (None, "no such file"),
    ("", "empty"),
    ("\n\n", "empty"),
    ("{\"games_trained\": 1001, \"ppg\"", "line 1 is not JSON"),
    (json.dumps(LINES[0]) + "\n[1, 2]\n", "line 2 is not a JSON object"),
    (json.dumps({**LINES[0], "ppg": None}) + "\n", "line 1: ppg is 'null'"),
    (json.dumps({**LINES[0], "ppg": float("nan")}) + "\n", "line 1: ppg is 'NaN'"),
    (json.dumps({**LINES[0], "win_rate": "most"}) + "\n", "line 1: win_rate is"),
    (json.dumps({k: v for k, v in LINES[0].items() if k != "games_trained"}) + "\n",
     "line 1: games_trained is 'null'"),
    (json.dumps({**LINES[0], "games_trained": -1}) + "\n", "not a finite number >= 0"),
    (b"\xff\xfe\x00binary", "not UTF-8 text"),
    ("x" * 10_000 + "\n", "line 1 is not JSON"),
    ("[" * 100_000 + "\n", "line 1 is not JSON"),
])
def test_missing_empty_or_corrupt_evaluations_are_one_line_errors(tmp_path, capsys, text,
                                                                   message):
    if text is None:
        run = tmp_path / "run"
        run.mkdir()
    else:
        run = _run_dir(tmp_path, text=text)
    code, out, err = plot(capsys, run)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert message in err and str(run / "evaluations.jsonl") in err
    assert len(err) < 300 and "Traceback" not in err
    assert not (run / "learning_curve.png").exists()


def test_bad_out_is_refused(tmp_path, capsys):
    run = _run_dir(tmp_path)
    code, _, err = plot(capsys, run, "--out", tmp_path)
    assert code == 2 and "a directory" in err
    code, _, err = plot(capsys, run, "--out", tmp_path / "missing" / "x.png")
    assert code == 2 and "no such directory" in err
    code, _, err = plot(capsys, tmp_path / "nowhere")
    assert code == 2 and "no such file" in err
