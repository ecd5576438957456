"""`serve-external` and `serve-http` under load and abuse: clients served at once, idle and
half-line clients timed out without blocking anyone, lines and requests capped at 64 KB,
every HTTP failure answered in JSON (serve-http: FastAPI on uvicorn, ``gammon.web``, whose
tests are skipped without the web extra), a client hanging up mid-reply kept out of the log,
SIGTERM (and SIGINT, even when inherited ignored) stopping a server cleanly; and
serve-external answering resignation offers by the bot's evaluation.

Loopback only, bounded loops; each test takes well under 10 s."""

import contextlib
import http.client
import json
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from gammon.engine.cube import CubeRules
from gammon.engine.formats.fibs import format_board, parse_board
from gammon.eval.bots.registry import make_bot
from gammon.eval.bots.resign import accepts_resignation
from gammon.external import ExternalPlayer, LineReader, listen, serve, split_options
from gammon.http_api import Api
from gnubg_helpers import GNUBG

ROOT = Path(__file__).resolve().parent.parent
START = "4HPwATDgc/ABMA"
PLUS_POSID = "otfBATDQ6+ABMA"  # a Position ID with a '+'
START_31 = ("board:gnubg:root:5:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
            "1:3:1:3:1:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
HALF_LINE = b"board:gnubg:root:5:0:0:0:-2:0:0"


@pytest.fixture(scope="module")
def player():
    return ExternalPlayer(make_bot("pubeval", 1, "standard", cube="auto", rules=CubeRules()))


@contextlib.contextmanager
def external_server(answer, **options):
    """serve() on a free loopback port in a thread; stopped on leaving."""
    server = listen("127.0.0.1", 0)
    port = server.getsockname()[1]
    stop = threading.Event()
    thread = threading.Thread(target=serve, args=(server, answer), daemon=True,
                              kwargs={"stop": stop, **options})
    thread.start()
    try:
        yield port
    finally:
        stop.set()
        thread.join(timeout=5)
        server.close()
    assert not thread.is_alive()


def _web_extra() -> bool:
    import importlib.util
    return all(importlib.util.find_spec(m) for m in ("fastapi", "uvicorn", "fastapi_offline"))


needs_web = pytest.mark.skipif(not _web_extra(), reason="the web extra is not installed "
                                                        "(pip install 'gammon[web]')")


@contextlib.contextmanager
def http_server(api, **options):
    from gammon.web.server import WebServer
    server = WebServer(api, "127.0.0.1", 0, **options).start()
    try:
        yield server, server.port
    finally:
        server.stop(grace=1.0)
    assert not server.running()


def _ask_external(port: int, line: str) -> tuple[str, float]:
    """One connection, one line (as gnubg sends it), one answer: (answer, seconds)."""
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(line.encode() + b"\n\x00")
        answer = conn.makefile("r").readline().rstrip("\n")
    return answer, time.monotonic() - start


def _http(port: int, request: bytes, shut: bool = False) -> tuple[int, dict, dict, float]:
    """A raw request; (status, headers by lower-case name, JSON body, seconds), read to the
    end of stream."""
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(request)
        if shut:
            conn.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    seconds = time.monotonic() - start
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {name.lower(): value for name, value in (line.split(": ", 1) for line in lines[1:])}
    return status, headers, json.loads(body), seconds


def _get(target: str) -> bytes:
    return f"GET {target} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".encode()


def _concurrently(count: int, task) -> list:
    """``task(i)`` in ``count`` threads started together; their results in order."""
    barrier = threading.Barrier(count)

    def run(i):
        barrier.wait(timeout=10)
        return task(i)

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(run, range(count)))


def _stalled_clients(port: int) -> list[socket.socket]:
    """One client connected and silent, one that sent half a line and waits."""
    idle = socket.create_connection(("127.0.0.1", port), timeout=5)
    half = socket.create_connection(("127.0.0.1", port), timeout=5)
    half.sendall(HALF_LINE)
    return [idle, half]


# ----------------------------------------------------------------------------------------
# serve-external


@pytest.mark.exclusive  # a wall-clock bound (conftest.py)
def test_external_serves_100_clients_while_an_idle_and_a_half_line_client_wait(player):
    with external_server(player.answer, timeout=30) as port:
        stalled = _stalled_clients(port)
        try:
            start = time.monotonic()
            results = _concurrently(100, lambda i: _ask_external(port, START_31))
            total = time.monotonic() - start
        finally:
            for conn in stalled:
                conn.close()
    assert [a for a, _ in results] == ["8/5 6/5"] * 100
    slowest = max(s for _, s in results)
    print(f"\nserve-external: 100 concurrent lines in {total:.2f} s, slowest {slowest:.2f} s")
    assert slowest < 2.0


def test_external_idle_and_half_line_clients_are_timed_out(player):
    with external_server(player.answer, timeout=0.3) as port:
        idle, half = _stalled_clients(port)
        start = time.monotonic()
        for conn in (idle, half):
            with conn:
                reply = conn.makefile("rb").read()  # to the end: the server closes it
                assert reply == b"Error: no whole line within 0.3 s; closing\n"
        assert time.monotonic() - start < 3
        assert _ask_external(port, START_31)[0] == "8/5 6/5"  # serving goes on


def test_external_over_long_line_gets_an_error_and_serving_goes_on(player):
    with external_server(player.answer) as port:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
            reader = conn.makefile("r")
            conn.sendall(b"board:" + b"1" * 1_000_000 + b"\n\x00" + START_31.encode() + b"\n")
            assert reader.readline() == "Error: line longer than 65536 bytes\n"
            assert reader.readline() == "8/5 6/5\n"
            conn.sendall(b"x" * 65536 + b"\n" + b"y" * 65537 + b"\n")  # at the cap, over it
            assert reader.readline().startswith("Error: expected a FIBS board line")
            assert reader.readline() == "Error: line longer than 65536 bytes\n"


class _Chunks:
    """A socket stand-in that hands out prepared chunks."""

    def __init__(self, chunks):
        self.chunks = iter(chunks)

    def settimeout(self, seconds):
        pass

    def recv(self, size):
        return next(self.chunks, b"")


@pytest.mark.exclusive  # a wall-clock bound (conftest.py)
def test_line_reading_is_linear_and_bounded():
    """16 MB without a newline: reported once, never buffered past the cap and a chunk,
    and read in time proportional to its length (the old reader copied and rescanned the
    whole buffer for every chunk)."""
    chunk = b"z" * 65536
    reader = LineReader(_Chunks([chunk] * 256 + [b"tail\nnext line\n", b"half"]), 65536)
    start = time.monotonic()
    assert reader.readline(time.monotonic() + 10) is LineReader.TOO_LONG
    assert reader.readline(time.monotonic() + 10) == b"next line"
    assert reader.readline(time.monotonic() + 10) is None
    assert time.monotonic() - start < 2
    assert reader.peak <= 2 * 65536 + 16


def test_errors_quote_80_characters_at_most(player):
    reply = player.answer("x" * 1_000_000)
    assert reply.startswith("Error: ") and len(reply) < 200 and "1000000 characters" in reply
    huge_field = START_31.replace(":-2:", ":" + "9" * 100_000 + "x:", 1)
    reply = player.answer(huge_field)
    assert reply.startswith("Error: badly formed board") and len(reply) < 300


def test_answers_in_flight_finish_when_the_server_stops():
    asked = threading.Event()

    def slow(line):
        asked.set()
        time.sleep(0.5)
        return "done"

    server = listen("127.0.0.1", 0)
    port = server.getsockname()[1]
    stop = threading.Event()
    thread = threading.Thread(target=serve, args=(server, slow), kwargs={"stop": stop})
    thread.start()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(b"anything\n")
        assert asked.wait(5)
        stop.set()  # while the answer is being computed
        assert conn.makefile("r").readline() == "done\n"
    thread.join(timeout=5)
    assert not thread.is_alive()
    with pytest.raises(OSError):  # no longer listening
        socket.create_connection(("127.0.0.1", port), timeout=1)


def test_external_refuses_connections_past_its_cap(player):
    with external_server(player.answer, max_clients=1) as port:
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            time.sleep(0.1)  # the first one is being served
            answer, _ = _ask_external(port, START_31)
            assert answer == "Error: too many connections (1); try again later"
        deadline = time.monotonic() + 5
        while _ask_external(port, START_31)[0] != "8/5 6/5":  # its slot is free again
            assert time.monotonic() < deadline
            time.sleep(0.05)


# ----------------------------------------------------------------------------------------
# resignations


def _resigner_loses_a_gammon():
    """The resigner, on turn, is far from home and has borne off nothing; we bear off our
    last 2 checkers next: a gammon for us, never a backgammon (none of his checkers is in
    our home board)."""
    board = np.zeros(26, np.int8)  # the resigner's side: his checkers > 0
    board[13:18] = 3
    board[24] = -2
    return board


def _resigner_wins_a_gammon():
    """The resigner, on turn, bears off his last 2 checkers with any roll."""
    board = np.zeros(26, np.int8)
    board[1] = 2
    board[13:18] = -3
    return board


def test_resignation_options_are_read_after_the_board():
    line = format_board(_resigner_loses_a_gammon())
    assert split_options(line) == (line, {"resignation": 0})
    assert split_options(line + " resignation 2") == (line, {"resignation": 2})
    assert split_options(line + " jacobyrule off resignation 3 beavers on") == \
        (line, {"resignation": 3})
    for bad, reason in [(" resignation 4", "0, 1, 2 or 3"), (" resignation", "0, 1, 2 or 3"),
                        (" resign 1", "unknown option"), (" beavers maybe", "on or off")]:
        with pytest.raises(ValueError, match=reason):
            split_options(line + bad)


@pytest.mark.parametrize("name", ["pubeval", "net:"])
def test_resignations_are_answered_by_the_bots_evaluation(name):
    """The side on turn resigns; the bot answers for the other side."""
    bot = make_bot(name, 1, "standard", cube="auto", rules=CubeRules())
    player = ExternalPlayer(bot)
    loses, wins = format_board(_resigner_loses_a_gammon()), format_board(_resigner_wins_a_gammon())
    # a single game is not enough when a gammon is sure; a gammon or more is
    assert [player.answer(f"{loses} resignation {n}") for n in (1, 2, 3)] == \
        ["reject", "accept", "accept"]
    assert [player.answer(f"{wins} resignation {n}") for n in (1, 2, 3)] == ["accept"] * 3
    for line, points in [(loses, 1), (loses, 2), (wins, 1)]:  # exactly eval.bots.resign's answer
        expected = accepts_resignation(bot, parse_board(line).board, points, False)
        assert player.answer(f"{line} resignation {points}") == \
            ("accept" if expected else "reject")
    assert player.answer(f"{loses} resignation 0") == "roll"  # no offer: the usual answer
    doubled = format_board(_resigner_loses_a_gammon(), doubled=True)
    assert player.answer(f"{doubled} resignation 1") in ("take", "drop")  # the double first
    assert player.answer(f"{loses} resignation 9").startswith("Error: 'resignation' takes")


def test_resignation_over_the_socket(player):
    with external_server(player.answer) as port:
        line = format_board(_resigner_loses_a_gammon())
        assert _ask_external(port, f"{line} resignation 1")[0] == "reject"
        assert _ask_external(port, f"{line} resignation 2")[0] == "accept"


@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed")
def test_resignation_lines_read_as_gnubgs_own_external_interface_reads_them(tmp_path):
    """gnubg's ``external`` command (gnubg the server) reads the same lines and gives the
    same answers where its evaluation is not in doubt (gammons counted: no Jacoby rule)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    gnubg = subprocess.Popen([GNUBG, "-t", "-q"], stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
                             env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    try:
        gnubg.stdin.write(f"set sound enable off\nexternal 127.0.0.1:{port}\n")
        gnubg.stdin.flush()
        deadline = time.monotonic() + 8
        while True:
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=8)
                break
            except OSError:
                assert time.monotonic() < deadline, "gnubg did not listen"
                time.sleep(0.1)
        ours = ExternalPlayer(make_bot("pubeval", 1, "standard", cube="auto", rules=CubeRules()))
        with conn:
            reader = conn.makefile("r")
            for board in (_resigner_loses_a_gammon(), _resigner_wins_a_gammon()):
                for n in (1, 2, 3):
                    line = f"{format_board(board)} resignation {n} jacobyrule off"
                    conn.sendall(line.encode() + b"\n")
                    assert reader.readline().strip() == ours.answer(line), line
    finally:
        gnubg.stdin.close()
        gnubg.kill()
        gnubg.wait()


# ----------------------------------------------------------------------------------------
# serve-http


@pytest.fixture(scope="module")
def api():
    return Api(make_bot("pubeval"), "pubeval")


@needs_web
@pytest.mark.exclusive  # a wall-clock bound (conftest.py)
def test_http_serves_100_requests_while_an_idle_and_a_half_line_client_wait(api):
    with http_server(api, timeout=30) as (server, port):
        stalled = _stalled_clients(port)
        try:
            start = time.monotonic()
            results = _concurrently(
                100, lambda i: _http(port, _get(f"/move?posid={START}&dice=3,1")))
            total = time.monotonic() - start
        finally:
            for conn in stalled:
                conn.close()
    assert all(status == 200 and body["plays"][0]["play"] == "8/5 6/5"
               for status, _, body, _ in results)
    slowest = max(r[3] for r in results)
    print(f"\nserve-http: 100 concurrent requests in {total:.2f} s, slowest {slowest:.2f} s")
    assert slowest < 2.0


# 200 clients, each a thread of another process (clients are other programs: sharing the
# server's interpreter lock would time the clients too): connect together, send one GET,
# read the whole answer; prints one JSON line [[status, seconds], ...].
LOAD = """
import json, socket, sys, threading, time
port, count, posid = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
barrier, out = threading.Barrier(count), [None] * count
def client(i):
    request = (f"GET /move?posid={posid}&dice={i % 6 + 1},1 HTTP/1.0\\r\\n"
               f"Host: 127.0.0.1\\r\\n\\r\\n").encode()
    barrier.wait(timeout=20)
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(request)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    out[i] = [int(data.split(b" ", 2)[1]), time.monotonic() - start]
threads = [threading.Thread(target=client, args=(i,)) for i in range(count)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps(out))
"""


@needs_web
@pytest.mark.exclusive  # a wall-clock bound (conftest.py)
def test_http_200_concurrent_requests_p99_under_a_second(api):
    with http_server(api) as (server, port):
        load = subprocess.run([sys.executable, "-c", LOAD, str(port), "200", START],
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert load.returncode == 0, load.stderr
    results = json.loads(load.stdout)
    assert all(status == 200 for status, _ in results)
    latencies = sorted(seconds for _, seconds in results)
    p99 = latencies[int(0.99 * len(latencies)) - 1]
    print(f"\nserve-http: 200 concurrent requests, p50 {latencies[99]:.3f} s, "
          f"p99 {p99:.3f} s, max {latencies[-1]:.3f} s")
    assert p99 < 1.0


@needs_web
def test_http_idle_and_half_line_clients_get_408(api):
    with http_server(api, timeout=0.3) as (server, port):
        idle, half = _stalled_clients(port)
        slow = socket.create_connection(("127.0.0.1", port), timeout=5)  # a byte at a time
        start = time.monotonic()
        for byte in _get("/api")[:10]:  # 0.2 s of bytes: the deadline counts from connecting
            slow.sendall(bytes([byte]))
            time.sleep(0.02)
        for conn in (idle, half, slow):
            with conn:
                data = conn.makefile("rb").read()
            assert data.startswith(b"HTTP/1.1 408 ")
            assert json.loads(data.partition(b"\r\n\r\n")[2]) == \
                {"error": "request not complete within 0.3 s"}
        assert time.monotonic() - start < 3
        assert _http(port, _get("/api"))[0] == 200


def _chunked(size: int) -> bytes:
    """A POST whose body comes in chunks of 16 KB, ``size`` bytes in all."""
    chunk = b"%x\r\n" % 0x4000 + b" " * 0x4000 + b"\r\n"
    return (b"POST /move HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
            b"Content-Type: application/json\r\n\r\n" + chunk * (size // 0x4000)
            + b"0\r\n\r\n")


FAILURES = {  # what a client sends: the status and words of the JSON error
    "POST-not-JSON": (b"POST /move HTTP/1.0\r\nContent-Length: 3\r\n\r\nabc", 422,
                      "request body"),
    "POST-bad-JSON": (b"POST /move HTTP/1.0\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 5\r\n\r\n{abc}", 422, "JSON decode error"),
    "DELETE": (b"DELETE / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 405,
               "method 'DELETE' not allowed"),
    "PUT": (b"PUT /move HTTP/1.0\r\nContent-Length: 2\r\n\r\n{}", 405,
            "method 'PUT' not allowed; /move answers GET, POST"),
    "unknown-path": (_get("/nothing"), 404, "no such endpoint '/nothing'"),
    "long-request-line": (_get("/" + "x" * 70_000), 414, "longer than"),
    "long-target": (_get("/move?" + "x" * 3000), 414, "longer than 2048 characters"),
    "long-header": (b"GET / HTTP/1.0\r\nX-Big: " + b"y" * 70_000 + b"\r\n\r\n", 431,
                    "headers longer than 65536 bytes"),
    "long-headers": (b"GET / HTTP/1.0\r\n" + b"X-Big: " + b"y" * 60_000 + b"\r\n"
                     + b"X-Bigger: " + b"z" * 10_000 + b"\r\n\r\n", 431,
                     "headers longer than 65536 bytes"),
    "many-headers": (b"GET / HTTP/1.0\r\n" + b"X: 1\r\n" * 500 + b"\r\n", 431,
                     "more than 100 header lines"),
    "long-body": (b"GET / HTTP/1.0\r\nContent-Length: 1000000\r\n\r\n", 413,
                  "body longer than 65536"),
    "long-chunked-body": (_chunked(0x4000 * 5), 413, "body longer than 65536"),
    "bad-syntax": (b"NONSENSE " + b"q" * 5000 + b" HTTP/1.0 extra\r\n\r\n", 400,
                   "bad request"),
    "bad-bytes": (b"GET /move?posid=\xff\xfe HTTP/1.0\r\n\r\n", 400, "bad request"),
    "bad-dice": (_get(f"/move?posid={START}&dice=9,1"), 422, "1 to 6"),
    "long-posid": (_get("/move?posid=" + "A" * 1500 + "&dice=3,1"), 422, "14 characters"),
    "too-many-trials": (_get(f"/rollout?posid={START}&trials=1297"), 422,
                        "parameter 'trials': Input should be less than or equal to 1296"),
}


@needs_web
@pytest.mark.parametrize("case", list(FAILURES))
def test_http_failures_are_answered_in_json(api, case):
    request_bytes, status, message = FAILURES[case]
    with http_server(api) as (server, port):
        got, headers, body, _ = _http(port, request_bytes)
    assert got == status and message in body["error"], body
    assert headers["content-type"] == "application/json"
    assert len(body["error"]) < 300  # the input is quoted, never echoed whole
    if status == 405:
        assert headers["allow"] in ("GET", "GET, POST")


@needs_web
def test_a_plus_sent_as_a_space_is_read_as_a_plus(api):
    with http_server(api) as (server, port):
        plain = _http(port, _get(f"/move?posid={PLUS_POSID}&dice=3,1"))  # '+' -> ' '
        encoded = _http(port, _get(f"/move?posid={PLUS_POSID.replace('+', '%2B')}&dice=3,1"))
        short = _http(port, _get("/move?posid=otfBATDQ6+ABM&dice=3,1"))  # one too short
    assert plain[0] == encoded[0] == 200 and plain[2] == encoded[2]
    assert plain[2]["posid"] == PLUS_POSID
    assert short[0] == 422 and "%2B" in short[2]["error"] and short[2]["field"] == "posid"


class _SlowBigApi(Api):
    """Answers late and long, so the reply meets a client that has hung up."""

    def index(self):
        time.sleep(0.05)
        return {"filler": "x" * 2_000_000}


@needs_web
def test_a_client_hanging_up_mid_reply_is_no_traceback(capfd):
    with http_server(_SlowBigApi(None, "slow")) as (server, port):
        for _ in range(10):
            conn = socket.create_connection(("127.0.0.1", port), timeout=5)
            conn.sendall(_get("/api"))
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()  # a reset, before the reply
        deadline = time.monotonic() + 5
        while server.open_connections():
            assert time.monotonic() < deadline
            time.sleep(0.02)
        status, _, body, _ = _http(port, _get("/api"))
        assert status == 200 and len(body["filler"]) == 2_000_000
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Error" not in err, err


def _post_head(length: int) -> bytes:
    return (b"POST /move HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % length)


def _big_body_then_gone(port: int) -> None:
    """A 2 MB body: the server answers 413 before it has read it; the client reads the
    answer and hangs up."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        try:
            conn.sendall(_post_head(2_000_000) + b"x" * 2_000_000)
        except OSError:  # the server may shut its side while the body is still going
            pass
        assert conn.recv(64).startswith(b"HTTP/1.1 413")


def _cut_short(port: int) -> None:
    """A body announced at 1,000 bytes, 10 sent, then a hang-up."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(_post_head(1000) + b'{"posid": ')


def _reset_mid_body(port: int) -> None:
    """A big body cut by a reset (no FIN): the client is gone before any answer."""
    conn = socket.create_connection(("127.0.0.1", port), timeout=5)
    conn.sendall(_post_head(2_000_000) + b"x" * 100_000)
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()


@needs_web
def test_big_bodies_and_clients_gone_leave_no_traceback():
    """``gammon serve-http`` as a user runs it (its own logging): the 2 MB POST body, a
    body cut short and a client reset mid-body are each answered or dropped with no
    traceback and no error logged, and the server serves on."""
    proc, port = _start("serve-http", False)
    try:
        for _ in range(5):
            _big_body_then_gone(port)
            _cut_short(port)
            _reset_mid_body(port)
        time.sleep(0.5)
        status, _, body, _ = _http(port, _get(f"/move?posid={START}&dice=3,1"))
        assert status == 200 and body["plays"]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
        err = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
    assert "Traceback" not in err and "Error" not in err, err
    assert len(err.splitlines()) <= 2, err  # at most the stop's line


@needs_web
def test_http_refuses_connections_past_its_cap(api):
    with http_server(api, max_clients=1) as (server, port):
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            deadline = time.monotonic() + 5
            while server.open_connections() < 1:
                assert time.monotonic() < deadline
                time.sleep(0.01)
            status, _, body, _ = _http(port, _get("/api"))
            assert status == 503 and "too many connections (1)" in body["error"]
        deadline = time.monotonic() + 5
        while _http(port, _get("/api"))[0] != 200:  # its slot is free again
            assert time.monotonic() < deadline
            time.sleep(0.05)


@needs_web
def test_http_client_library_sees_json_errors_and_keeps_the_connection(api):
    with http_server(api) as (server, port):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("PUT", "/move", body=b"{}")
        reply = conn.getresponse()
        assert reply.status == 405 and reply.getheader("Allow") == "GET, POST"
        assert "error" in json.loads(reply.read())
        conn.request("POST", "/move", body=b"{}", headers={"Content-Type": "application/json"})
        reply = conn.getresponse()  # the same connection, kept alive
        assert reply.status == 422 and json.loads(reply.read())["field"] == "posid"
        conn.request("GET", f"/move?posid={START}&dice=3,1")
        reply = conn.getresponse()
        assert reply.status == 200 and json.loads(reply.read())["plays"]
        conn.close()


@needs_web
@pytest.mark.exclusive  # a wall-clock bound (conftest.py)
def test_http_keeps_connections_alive_without_delays(api):
    """20 requests on one kept-alive connection: no 40 ms delayed-ACK wait between an
    answer's headers and its body (the server's sockets are TCP_NODELAY)."""
    with http_server(api) as (server, port):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        start = time.monotonic()
        for _ in range(20):
            conn.request("GET", "/move?posid=x&dice=3,1")
            reply = conn.getresponse()
            assert reply.status == 422 and json.loads(reply.read())["field"] == "posid"
        seconds = time.monotonic() - start
        conn.close()
    assert seconds < 0.7, seconds


@needs_web
def test_http_stopping_ends_a_rollout_in_flight(api):
    with http_server(api) as (server, port):
        answer = []
        thread = threading.Thread(target=lambda: answer.append(_http(
            port, _get(f"/rollout?posid={START}&trials=1296&vr=false&seed=1"))))
        thread.start()
        time.sleep(0.3)  # the rollout has begun
        start = time.monotonic()
        server.stop(grace=2.0)
        assert time.monotonic() - start < 4
        thread.join(timeout=10)
    status, _, body, _ = answer[0]
    assert (status, body) == (503, {"error": "the server is stopping"})


# ----------------------------------------------------------------------------------------
# stopping the commands


def _start(command: str, ignore_sigint: bool):
    """The command on a free port with pubeval; (process, port)."""
    preexec = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ignore_sigint else None
    args = [sys.executable, "-m", "gammon.cli", command, "--port", "0", "--bot", "pubeval"]
    proc = subprocess.Popen(args, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            preexec_fn=preexec)
    line = proc.stderr.readline()
    found = re.search(r"127\.0\.0\.1:(\d+)", line)
    assert found, line
    return proc, int(found.group(1))


@pytest.mark.parametrize("command", ["serve-external",
                                     pytest.param("serve-http", marks=needs_web)])
@pytest.mark.parametrize("signum, ignored", [(signal.SIGTERM, False), (signal.SIGINT, True)],
                         ids=["SIGTERM", "SIGINT-inherited-ignored"])
def test_a_signal_stops_the_server_cleanly(command, signum, ignored):
    proc, port = _start(command, ignored)
    try:
        if command == "serve-external":
            assert _ask_external(port, START_31)[0] == "8/5 6/5"
        else:
            assert _http(port, _get(f"/move?posid={START}&dice=3,1"))[0] == 200
        idle = socket.create_connection(("127.0.0.1", port), timeout=5)  # does not hold it
        start = time.monotonic()
        proc.send_signal(signum)
        assert proc.wait(timeout=10) == 0
        assert time.monotonic() - start < 3
        idle.close()
        rest = proc.stderr.read()
        assert f"stopped ({signal.Signals(signum).name})" in rest and "Traceback" not in rest
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


def test_servers_ask_torch_for_one_thread():
    import torch
    from gammon.external import one_torch_thread
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        one_torch_thread()
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
