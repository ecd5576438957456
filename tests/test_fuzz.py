"""Bad input never gives a traceback: thousands of generated inputs for every command, and
never a 500 from the HTTP API (``gammon serve-http``).

Each command (moves, show, hint, choose, match, analyze, cube, met, play) is run in-process
through ``gammon.cli.main`` (stdin, stdout and stderr replaced) with bad values in every
argument: Unicode digits, huge numbers, empty strings, 1 MB strings, NUL bytes, broken
Position IDs, negative and huge seeds, unknown bots and variants, files that do not exist,
directories in place of files. Every run must end with exit code 0 or 2, with no
"Traceback" on stderr and, for exit code 2, one line on stderr quoting at most a little of
the input. The ``--batch`` streams must answer every input line with exactly one line. A
handful of subprocess runs feed raw bytes (invalid UTF-8, NUL) to the stdin streams.

The HTTP API (FastAPI on uvicorn, skipped without the web extra) gets the BAD values in
every field of every endpoint, as query parameters and in JSON bodies, JSON of every wrong
type, and raw bytes that are not HTTP: every answer is JSON with a status of 200 or a 4xx
(503 past its limits), an error quoting at most a little of the input, and the server goes
on answering.

``COUNT`` adds up the inputs tried; the last test prints the total (and checks it).
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from inprocess import gammon

START = "4HPwATDgc/ABMA"
RACE = "eO85AAD4vg8AAA"
ROOT = Path(__file__).resolve().parent.parent
MEGA = "x" * 1_000_000
COUNT = {"inputs": 0}
# the whole file on one worker of pytest-xdist (--dist loadgroup), in its order: COUNT
# is the total of this process, which the last test reports
pytestmark = pytest.mark.xdist_group("test_fuzz")

# bad values of every kind, tried in every slot
BAD = [
    "", " ", "\t", "²", "٣", "３", "¹²", "1" * 5000, "9" * 30, "-1", "-0", "+3", str(2**63),
    str(2**70), "-" + "9" * 5000, "1e3", "0x10", "1_0", "nan", "inf", "-inf", "1.5", "0.٥",
    "\x00", "a\x00b", "3\x001", MEGA, "a\nb", "\r", "\u2028", "\ud800", "💥", "ｘ",
    "4HPwATDgc/ABM", "4HPwATDgc/AB*A", "/////////////w", "4HPwATDgc/ABMA=",
    "4HPwATDgc/ABMAA", "AAAAAAAAAAAAAA", "٣HPwATDgc/ABMA", "////////////8A",
    "/nonexistent/dir/file.mat", "/", "/tmp", "/dev/null", ".", "-", "--", "-x",
    "0", "7", "66", "3 1", "31", "3-1", "3,1", "3/1", "1 2 3", "77", "0 0",
    "net:", "net:/nonexistent.pt", "net:/tmp", "net:/dev/null", "net:" + "a" * 5000,
    "net:\x00", "nodouble:" * 2000 + "pubeval", "nodouble:", "gnubg2", "random", "NET:",
    "standard", "hypergammon", "nackgammon", "longgammon", "Standard",
]


@pytest.fixture(autouse=True)
def _in_a_scratch_directory(tmp_path, monkeypatch):
    """Files the inputs name (--save 31, 'save 3-1' typed in play) land in a scratch
    directory, never in the working tree."""
    monkeypatch.chdir(tmp_path)


def cli(args: list[str], stdin: str = "") -> tuple[int, str, str]:
    """Run ``gammon ARGS`` in-process: (exit code, stdout, stderr)."""
    COUNT["inputs"] += 1
    r = gammon(*args, stdin=stdin)
    return r.returncode, r.stdout, r.stderr


def check(args: list[str], stdin: str = "") -> tuple[int, str, str]:
    """``cli`` and the rules every run must keep."""
    code, out, err = cli(args, stdin)
    shown = [a[:60] for a in args]
    assert "Traceback" not in err, (shown, err[-2000:])
    assert code in (0, 2), (shown, code, err[-500:])
    if code == 2:
        assert len(err.strip().splitlines()) == 1, (shown, err[:500])
        assert len(err) < 700, (shown, err[:700])
    return code, out, err


def slots(template: list[str], values: list[str] = BAD) -> list[list[str]]:
    """Every one of ``values`` (the BAD ones) in the slot marked None of ``template``."""
    i = template.index(None)
    return [template[:i] + [value] + template[i + 1:] for value in values]


# every other BAD value, for the commands whose inputs cost a network call each (the
# suite's ten minutes); the whole list still goes through the cheaper commands
HALF = BAD[::2]


def run_all(templates: list[list[str]], values: list[str] = BAD) -> int:
    n = 0
    for template in templates:
        for args in slots(template, values):
            check(args)
            n += 1
    return n


# --- one command line each -------------------------------------------------------------------


def test_moves_and_show():
    n = run_all([
        ["moves", None, "3", "1"], ["moves", START, None, "1"], ["moves", START, "3", None],
        ["moves", START, None], ["moves", None], ["moves", START, "3", "1", "--variant", None],
        ["moves", "--batch", None], ["show", None], ["show", START, "--variant", None],
        [None, START, "3", "1"],
    ])
    assert n == 10 * len(BAD)


def test_hint_and_choose():
    n = run_all([
        ["hint", None, "3", "1", "--bot", "pubeval"], ["hint", START, None, "--bot", "pubeval"],
        ["hint", START, "3", None, "--bot", "pubeval"], ["hint", START, "31", "--bot", None],
        ["hint", START, "31", "--bot", "random", "--seed", None],
        ["hint", START, "31", "--plies", None], ["hint", START, "31", "--cubeful",
                                                "--efficiency", None],
        ["hint", RACE, "31", "--json", "--variant", None],
        ["choose", None, "3", "1", "--bot", "pubeval"],
        ["choose", START, None, "--bot", "pubeval"], ["choose", START, "31", "--bot", None],
        ["choose", START, "31", "--bot", "random", "--seed", None],
    ])
    assert n == 12 * len(BAD)


def test_match():
    base = ["match", "pubeval", "random", "--games", "2", "--no-progress"]
    n = run_all([
        ["match", "pubeval", "random", "--no-progress", "--games", None],
        ["match", None, "random", "--games", "2", "--no-progress"],
        ["match", "pubeval", None, "--games", "2", "--no-progress"],
        base + ["--seed", None], base + ["--variant", None],
        base + ["--cube", "--max-cube", None], base + ["--cube", "--auto-doubles", None],
        base + ["--save", None], base + ["--cube", "--beavers", "--save", None],
    ], HALF)
    assert n == 9 * len(HALF)
    matches = ["match", "pubeval", "random", "--match-to", "1", "--matches", "2",
               "--no-progress"]
    n = run_all([
        ["match", "pubeval", "random", "--matches", "2", "--no-progress", "--match-to", None],
        ["match", "pubeval", "random", "--match-to", "1", "--no-progress", "--matches", None],
        matches + ["--save", None], matches + ["--seed", None],
    ], HALF)
    assert n == 4 * len(HALF)


def test_analyze_and_cube():
    n = run_all([
        ["analyze", None], ["analyze", START, "--dice", None],
        ["analyze", START, "--dice", None, "1"], ["analyze", START, "--dice", "3", None],
        ["analyze", "--dice", None, START], ["analyze", START, "--bot", None],
        ["analyze", START, "--efficiency", None], ["analyze", START, "--seed", None],
        ["analyze", START, "--dice", "31", "--cubeful", "--plies", None],
        ["cube", None], ["cube", START, "--bot", None], ["cube", START, "--efficiency", None],
        ["cube", "--batch", None], ["cube", RACE, "--variant", None],
    ])
    assert n == 14 * len(BAD)


def test_analyze_and_cube_at_a_match_score():
    n = run_all([
        ["analyze", START, "--score", None, "--length", "7"], ["analyze", START, "--length", None],
        ["analyze", START, "--score", "2-3", "--length", "5", "--crawford", "--cube-value", None],
        ["analyze", START, "--cube-owner", None, "--cube-value", "2"],
        ["analyze", START, "--score", "1-1", "--length", None, "--dice", "31"],
        ["cube", START, "--score", None, "--length", "7"],
        ["cube", START, "--score", "6-2", "--length", None, "--crawford"],
        ["cube", START, "--cube-value", None, "--cube-owner", "opponent"],
        ["cube", "--batch", "--score", None, "--length", "5"],
        ["cube", "--batch", "--length", None, "--cube-owner", "mover"],
    ], HALF)
    for v in HALF:  # the Match ID of POSID:MATCHID, and the Position ID before one
        for args in (["analyze", f"{START}:{v}"], ["cube", f"{START}:{v}"],
                     ["cube", f"{v}:cAkAAAAAAAAA"], ["analyze", f"{START}:{v}", "--json",
                                                     "--length", "7"]):
            check(args)
            n += 1
    assert n == 14 * len(HALF)


def test_met_and_show_match_ids():
    n = run_all([
        ["met", "--length", None], ["met", "--length", "3", "--gammon-rate", None],
        ["met", "--length", None, "--cubeless", "--json"], ["met", "--file", None],
        ["met", "--file", None, "--length", "2"], ["show", None, "--json"],
        ["show", "--batch", None], ["show", START, "--json", "--variant", None],
    ], HALF)
    for v in HALF:  # the Match ID of POSID:MATCHID, and the Position ID before one
        for args in (["show", f"{START}:{v}"], ["show", f"{START}:{v}", "--json"],
                     ["show", f"{v}:cAkAAAAAAAAA"]):
            check(args)
            n += 1
    assert n == 11 * len(HALF)


def test_tournament():
    base = ["tournament", "random", "pubeval", "--games", "2", "--workers", "1", "--no-progress"]
    n = run_all([
        ["tournament", None, "pubeval", "--games", "2", "--workers", "1", "--no-progress"],
        base + ["--games", None], base + ["--seed", None], base + ["--workers", None],
        base + ["--variant", None],
    ], HALF)
    assert n == 5 * len(HALF)


def test_play_arguments():
    n = run_all([
        ["play", "--bot", "pubeval", "--seed", None], ["play", "--bot", None, "--seed", "1"],
        ["play", "--bot", "pubeval", "--name", None], ["play", "--variant", None],
        ["play", "--bot", "pubeval", "--cube", "--jacoby", "--seed", None],
        ["play", "--bot", "pubeval", "--seed", "1", "--match", None],
    ])
    assert n == 6 * len(BAD)


# --- stdin: the batch streams, line for line, and play sessions ------------------------------


def bad_lines() -> list[str]:
    """Request lines: every BAD value alone and in each place of 'POSID D1 D2', without
    line breaks inside (a line is what a newline ends)."""
    flat = [v.replace("\n", " ") for v in BAD]
    lines = list(flat)
    for v in flat:
        lines += [f"{v} 3 1", f"{START} {v} 1", f"{START} 3 {v}", f"{START} {v}",
                  f"{START} 3 1 {v}"]
    return lines


def _answers(out: str, lines: list[str]) -> list[str]:
    answers = out.split("\n")
    assert answers[-1] == ""
    answers = answers[:-1]
    assert len(answers) == len(lines)
    return answers


@pytest.mark.parametrize("command, bad", [
    (["moves", "--batch"], "error:"),
    (["choose", "--batch", "--bot", "pubeval"], "error:"),
    (["choose", "--batch"], "error:"),  # the shipped net
])
def test_batch_streams_answer_every_line(command, bad):
    good = [f"{START} 3 1", f"{START} 31", f"{START} 6-5", f"{RACE} 2 1"]
    lines = []
    for i, line in enumerate(bad_lines()):
        lines += [line, good[i % len(good)]]
    code, out, err = check(command, "\n".join(lines) + "\n")
    COUNT["inputs"] += len(lines) - 1
    assert code == 0
    answers = _answers(out, lines)
    for line, answer in zip(lines[1::2], answers[1::2]):
        assert answer and not answer.startswith("error"), (line, answer)
    assert all(len(a) < 700 for a in answers if a.startswith(bad))
    errors = sum(a.startswith(bad) for a in answers[0::2])
    assert errors > len(lines) // 2 - 40  # nearly every bad line is an error


def test_cube_batch_answers_every_line():
    lines = []
    for v in BAD:
        v = v.replace("\n", " ")
        lines += [v, START, f"{START} {v}"]
    code, out, _ = check(["cube", "--batch"], "\n".join(lines) + "\n")
    COUNT["inputs"] += len(lines) - 1
    assert code == 0
    answers = _answers(out, lines)
    assert all(a.startswith("{") and a.endswith("}") for a in answers)
    assert all(a == answers[1] for a in answers[1::3])
    assert all(len(a) < 700 for a in answers)


def test_cube_batch_answers_every_match_id_line():
    match = f"{START}:cAlgAAAAAAAE"  # a 3-point match, 0-0, gnubg's player 1 on roll
    lines = []
    for v in BAD:
        v = v.replace("\n", " ")
        lines += [f"{START}:{v}", match, f"{v}:cAkAAAAAAAAA", f"{match} {v}", f"{v}:{v}"]
    for options in ([], ["--score", "1-2", "--length", "3"], ["--cube-owner", "opponent"]):
        code, out, _ = check(["cube", "--batch", *options], "\n".join(lines) + "\n")
        COUNT["inputs"] += len(lines) - 1
        assert code == 0
        answers = _answers(out, lines)
        assert all(a.startswith("{") and a.endswith("}") for a in answers)
        assert all(a == answers[1] for a in answers[1::5])
        assert ('"error"' in answers[1]) == bool(options)  # the options clash with an ID
        assert all(len(a) < 700 for a in answers)
        assert sum('"error"' in a for a in answers[0::5]) >= len(BAD) - 2


def test_show_batch_answers_every_line():
    match = f"{START}:cAkAAAAAAAAA"
    lines = []
    for v in BAD:
        v = v.replace("\n", " ")
        lines += [v, match, f"{START}:{v}", f"{v}:cAkAAAAAAAAA"]
    code, out, _ = check(["show", "--batch"], "\n".join(lines) + "\n")
    COUNT["inputs"] += len(lines) - 1
    assert code == 0
    answers = _answers(out, lines)
    assert all(a.startswith("{") and a.endswith("}") for a in answers)
    assert all(a == answers[1] for a in answers[1::4])
    assert all(len(a) < 700 for a in answers)
    assert sum('"error"' in a for a in answers[2::4]) >= len(BAD) - 2


PLAY_WORDS = ["board", "resign", "y", "n", "1", "2", "3", "hint", "hint 99999999999999999",
              "hint ²", "undo", "double", "take", "pass", "save", "save /",
              "save /nonexistent/dir/x.mat", "save a\x00b", "help", "13/7 8/7", "24/18 13/11",
              "٢٤/١٨ ١٣/١١", "24/" + "9" * 5000, "8/5(" + "9" * 5000 + ")", "bar/22*",
              "6/off", "6-2: 24/18", "24/23/22/21/20/19/18/17/16/15", "6 2", "62", "6-2",
              "0 0", "7 7", "6", "²", "resign", "2", "resign", "3"]


def play_script() -> list[str]:
    """Garbage at every prompt, each word followed by what moves the game on ('auto' at a
    play, Enter to confirm or roll, dice when they are typed, 'y' for another game): games
    get played, resigned, doubled and saved while the garbage keeps coming."""
    words = PLAY_WORDS + [v for v in BAD if "\n" not in v and "\r" not in v]
    script = []
    for word in words:
        script += [word, "auto", "", "5 2", "y"]
    return script


@pytest.mark.parametrize("options", [
    ["--bot", "pubeval", "--seed", "5"],
    ["--bot", "pubeval", "--seed", "6", "--cube"],
    ["--bot", "heuristic", "--seed", "7", "--manual-dice"],
    ["--bot", "net:", "--seed", "8", "--cube", "--jacoby", "--manual-dice"],
    ["--bot", "random", "--seed", "9", "--variant", "hypergammon"],
])
def test_play_sessions_with_garbage_typed(options):
    """Sessions fed BAD values and commands at every prompt, until the input ends."""
    script = play_script()
    code, out, _ = check(["play", *options], "\n".join(script) + "\n")
    assert code == 0
    COUNT["inputs"] += len(script) - 1
    assert "Final score" in out
    assert "Not a legal play" in out or "type two dice" in out


def test_help_of_every_command():
    for command in ("moves", "show", "hint", "choose", "match", "analyze", "cube", "met",
                    "play"):
        code, out, _ = check([command, "--help"])
        assert code == 0 and "usage:" in out


# --- subprocesses: raw bytes on stdin and in argv ---------------------------------------------


GAMMON = [sys.executable, "-m", "gammon.cli"]
ENV = dict(os.environ, PYTHONPATH=str(ROOT))  # run from the scratch directory
RAW = [b"\xff\xfe 3 1", b"4HPwATDgc/ABMA \xff 1", b"\x00\x00\x00", b"4HPwATDgc/ABMA 3\x00 1",
       b"\xc3\x28" * 1000, b"y" * 1_000_000, b"4HPwATDgc/ABMA \xc2\xb2 1", b"",
       b"4HPwATDgc/ABMA\xff", b"\xef\xbb\xbf4HPwATDgc/ABMA 3 1",
       b"4HPwATDgc/ABMA:cAlg\xffAAAAAE", b"4HPwATDgc/ABMA:\x00" * 3]


def _stream(command: list[str], lines: list[bytes]) -> list[bytes]:
    COUNT["inputs"] += len(lines)
    run = subprocess.run(GAMMON + command, input=b"\n".join(lines) + b"\n",
                         capture_output=True, timeout=120, env=ENV)
    assert run.returncode == 0 and b"Traceback" not in run.stderr, run.stderr[-2000:]
    answers = run.stdout.split(b"\n")[:-1]
    assert len(answers) == len(lines)
    return answers


@pytest.mark.parametrize("command", [["moves", "--batch"],
                                     ["choose", "--batch", "--bot", "pubeval"],
                                     ["cube", "--batch"], ["show", "--batch"]])
def test_batch_streams_take_raw_bytes(command):
    good = b"4HPwATDgc/ABMA" if command[0] in ("cube", "show") else b"4HPwATDgc/ABMA 3 1"
    answers = _stream(command, RAW + [good])
    assert len(answers[-1]) > 5 and not answers[-1].startswith((b"error", b'{"error'))
    assert all(len(a) < 700 for a in answers[:-1])


def test_play_takes_raw_bytes_and_argv_takes_invalid_utf8():
    script = b"\n".join([b"\xff\xfe", b"board", b"resign", b"\x00", b"y" * 100_000, b"\xc3",
                         b"13/7 8/7", b"quit"]) + b"\n"
    COUNT["inputs"] += 8
    run = subprocess.run(GAMMON + ["play", "--bot", "pubeval", "--seed", "3"], input=script,
                         capture_output=True, timeout=120, env=ENV)
    assert run.returncode == 0 and b"Traceback" not in run.stderr
    for args in ([b"moves", b"4HPwATDgc/ABM\xff", b"3", b"1"], [b"show", b"\xff" * 14],
                 [b"moves", START.encode(), b"\xc2\xb2", b"1"], [b"hint", START.encode(), b"\xff"],
                 [b"match", b"\xff", b"random", b"--games", b"2"], [b"show", b"z" * 100_000],
                 [b"show", START.encode() + b":\xff" * 12], [b"met", b"--file", b"\xff"],
                 [b"cube", START.encode() + b":\xff" * 12],
                 [b"analyze", START.encode(), b"--score", b"\xd9\xa3-1", b"--length", b"3"],
                 [b"met", b"--length", b"\xd9\xa3"]):
        COUNT["inputs"] += 1
        run = subprocess.run([a.encode() for a in GAMMON] + args, capture_output=True,
                             timeout=120, env=ENV)
        assert run.returncode == 2 and b"Traceback" not in run.stderr, run.stderr[-2000:]
        assert len(run.stderr.strip().splitlines()) == 1 and len(run.stderr) < 700


# --- the HTTP API ------------------------------------------------------------------------------

HTTP_OK = {200, 404, 405, 413, 414, 422, 431, 503}
HTTP_TEMPLATES = {  # each endpoint's good fields; rollouts small, quick and without vr
    "/move": {"posid": START, "dice": "3,1"},
    "/eval": {"posid": START},
    "/rollout": {"posid": START, "trials": "2", "seed": "1", "vr": "false", "quasi": "true"},
}


@pytest.fixture(scope="module")
def http_port():
    for module in ("fastapi", "uvicorn", "fastapi_offline"):
        pytest.importorskip(module)
    from gammon.eval.bots.registry import make_bot
    from gammon.http_api import Api
    from gammon.web.server import WebServer
    server = WebServer(Api(make_bot("pubeval"), "pubeval", max_trials=20), "127.0.0.1", 0,
                       timeout=10).start()
    yield server.port
    server.stop(grace=1.0)


def _ask(conn, method: str, target: str, body: bytes | None = None,
         headers: dict | None = None) -> tuple[int, dict]:
    COUNT["inputs"] += 1
    conn.request(method, target, body=body, headers=headers or {})
    reply = conn.getresponse()
    data = reply.read()
    assert reply.status in HTTP_OK, (method, target[:100], reply.status, data[:300])
    assert reply.getheader("Content-Type") == "application/json", (target[:100], data[:200])
    answer = json.loads(data)
    if reply.status != 200:
        assert set(answer) <= {"error", "field"} and len(answer["error"]) < 300, answer
    if reply.getheader("Connection", "").lower() == "close":
        conn.close()
    return reply.status, answer


def test_http_fields_never_answer_500(http_port):
    from urllib.parse import urlencode
    conn = http.client.HTTPConnection("127.0.0.1", http_port, timeout=30)
    statuses = Counter()
    for path, good in HTTP_TEMPLATES.items():
        assert _ask(conn, "GET", f"{path}?{urlencode(good)}")[0] == (422 if path == "/eval"
                                                                     else 200)
        values = BAD if path == "/move" else HALF
        for field in good:
            for value in values:
                fields = {**good, field: value}
                query = urlencode(fields, errors="surrogatepass")  # invalid UTF-8 too
                statuses[_ask(conn, "GET", f"{path}?{query}")[0]] += 1
                body = json.dumps({**{k: _typed(k, v) for k, v in good.items()},
                                   field: value}).encode()
                statuses[_ask(conn, "POST", path, body,
                              {"Content-Type": "application/json"})[0]] += 1
        for wrong in (None, 3, -1, 2**70, 1.5, True, [], [1, 2], {}, {"a": 1}, "", MEGA[:70_000]):
            for field in good:
                body = json.dumps({**{k: _typed(k, v) for k, v in good.items()},
                                   field: wrong}).encode()
                statuses[_ask(conn, "POST", path, body,
                              {"Content-Type": "application/json"})[0]] += 1
        for body in (b"", b"null", b"[]", b"3", b'"x"', b"{", b"\xff\xfe", b"{}" * 1000,
                     b'{"posid": "' + b"A" * 60_000 + b'"}', json.dumps(good).encode() * 2):
            statuses[_ask(conn, "POST", path, body, {"Content-Type": "application/json"})[0]] += 1
    assert _ask(conn, "GET", f"/move?posid={START}&dice=3,1")[0] == 200  # still serving
    assert statuses[200] >= 5 and statuses[422] > 500, statuses
    print(f"\nserve-http fields: {dict(sorted(statuses.items()))}")


def _typed(name: str, value: str):
    """A template field as JSON has it: numbers and booleans as such."""
    if name in ("trials", "seed", "truncate"):
        return int(value)
    if name in ("vr", "quasi"):
        return value == "true"
    return value


RAW_HTTP = [b"\xff\xfe\r\n\r\n", b"GET /move?posid=\xff&dice=3,1 HTTP/1.0\r\n\r\n",
            b"GET /\x00 HTTP/1.0\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n",
            b"GET / HTTP/1.0\r\n\x00\r\n\r\n",
            b"GET /move?" + b"%" * 1500 + b" HTTP/1.0\r\n\r\n", b"\r\n" * 1000,
            b"GET / HTTP/1.0\r\nContent-Length: -1\r\n\r\n",
            b"GET / HTTP/1.0\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
            b"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
            b"POST /move HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            b"GET /move?posid=4HPwATDgc/ABMA&dice=%E2%80%A8,%00 HTTP/1.0\r\n\r\n",
            b"GET /rollout?posid=4HPwATDgc/ABMA&trials=%D9%A3&vr=false HTTP/1.0\r\n\r\n",
            b"GET /docs/%2e%2e/%2e%2e/etc/passwd HTTP/1.0\r\n\r\n",
            b"CONNECT x:1 HTTP/1.1\r\nHost: x\r\n\r\n", b"GET * HTTP/1.0\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"]


def test_http_raw_bytes_never_answer_500(http_port, capfd):
    import socket
    for raw in RAW_HTTP:
        COUNT["inputs"] += 1
        with socket.create_connection(("127.0.0.1", http_port), timeout=15) as conn:
            conn.sendall(raw)
            conn.shutdown(socket.SHUT_WR)
            data = b""
            while chunk := conn.recv(65536):
                data += chunk
        if not data:  # hung up on: allowed for what is not HTTP at all, never a 500
            continue
        status = int(data.split(b" ", 2)[1])
        assert status in HTTP_OK | {400, 408, 411, 501}, (raw[:80], data[:300])
        body = data.partition(b"\r\n\r\n")[2]
        if status != 200 and body:
            assert "error" in json.loads(body), (raw[:80], data[:300])
    conn = http.client.HTTPConnection("127.0.0.1", http_port, timeout=30)
    assert _ask(conn, "GET", f"/move?posid={START}&dice=3,1")[0] == 200
    assert "Traceback" not in capfd.readouterr().err


def test_zz_report_the_number_of_inputs(record_property):
    """The total of inputs tried by this file (when run whole), printed at the end of the
    run (conftest.py)."""
    record_property("total", f"test_fuzz: {COUNT['inputs']:,} generated inputs tried")
    assert COUNT["inputs"] >= 1000 or COUNT["inputs"] < 100  # whole file, or a -k selection
