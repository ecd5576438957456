"""GNU Backgammon's external player protocol: a bot answering ``board:...`` lines on a socket.

gnubg (``set player 1 external HOST:PORT``) connects and, whenever that player must act,
sends one FIBS board line (``engine.formats.fibs``; gnubg ends it with a newline and a NUL byte).
The answer is one line:

- a play, when the dice are rolled: its steps from the mover's side in gnubg's plain
  notation (``8/5 6/5``, ``25/22*``, ``6/0``), or an empty line when no play is possible;
- ``roll`` or ``double``, when asked before the roll (dice 0 0; gnubg asks only when
  doubling is possible);
- ``take``, ``drop`` or ``beaver``, when a double waits for an answer;
- ``accept`` or ``reject``, when the board is followed by ``resignation N``: the side on
  turn resigns, offering a single game (N=1), a gammon (2) or a backgammon (3) per cube,
  and we are the other side (as for a double, the line shows the offering side on turn).
  This is the extension of the FIBS board that gnubg's own external interface reads (its
  ``external`` command, gnubg 1.07 checked: same syntax, same answers, same orientation).
  gnubg playing against an external player never sends it: it answers the resignations
  offered to that player itself (it accepts a backgammon, declines the others);
- ``Error: ...`` for a line that cannot be read (gnubg prints it and stops that turn).

``ExternalPlayer.answer`` turns one line into one answer; ``serve`` accepts connections on a
listening socket and answers the lines of each in its own thread, until stopped. No client
can block the others: a line must be complete within ``timeout`` seconds of the previous
answer (or of connecting), a line longer than ``max_line`` bytes is answered with an error
and skipped, and past ``max_clients`` connections a newcomer is told so and closed.
``stop_on_signals`` makes SIGINT and SIGTERM stop a server (both commands use it).
"""

from __future__ import annotations

import contextlib
import signal
import socket
import sys
import threading
import time
from typing import Callable

import numpy as np

from gammon.engine.board import flip
from gammon.engine.rules import variant as get_variant
from gammon.engine.cube import BEAVER, PASS, flip_owner
from gammon.engine.cube_policy import tell_score
from gammon.engine.formats.fibs import FibsBoard, parse_board
from gammon.engine.formats.matfile import play_text
from gammon.engine.movegen import legal_plays

MAX_LINE = 65536  # bytes in one line, newline excluded
TIMEOUT = 30.0  # seconds for a client to complete a line
MAX_CLIENTS = 256  # connections served at once
GRACE = 2.0  # seconds answers in flight may take when the server stops
QUOTE = 80  # characters of a client's input quoted back in an error

# Options gnubg's external interface reads after a board (``board:... resignation 2``):
# the resignation is answered; the session rules are read and ignored (the bot's cube
# strategy, the board's score and its own Crawford flag decide).
_SESSION_OPTIONS = ("jacobyrule", "crawfordrule", "beavers")
_BOOLEANS = {"on": True, "off": False, "yes": True, "no": False, "true": True,
             "false": False, "1": True, "0": False}


def quote(text: str, limit: int = QUOTE) -> str:
    """``text`` as a repr of at most ``limit`` characters, saying how long it was when cut."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


def clip(message: str, limit: int = 2 * QUOTE) -> str:
    """A message cut to about ``limit`` characters (it may quote a client's input)."""
    if len(message) <= limit:
        return message
    return f"{message[:limit]}... ({len(message)} characters)"


def split_options(text: str) -> tuple[str, dict]:
    """A board line without the options after its last field, and the options read:
    ``{"resignation": 0..3}`` (0: none offered). ValueError says what is wrong."""
    head, colon, tail = text.rpartition(":")
    words = tail.split()
    if len(words) <= 1:
        return text, {"resignation": 0}
    options, rest = {"resignation": 0}, words[1:]
    i = 0
    while i < len(rest):
        key = rest[i].lower()
        value = rest[i + 1] if i + 1 < len(rest) else None
        if key == "resignation":
            if value is None or not value.isdigit() or int(value) > 3:
                raise ValueError(f"'resignation' takes 0, 1, 2 or 3 (points per cube offered), "
                                 f"got {quote(value or '')}")
            options["resignation"] = int(value)
        elif key in _SESSION_OPTIONS:
            if value is None or value.lower() not in _BOOLEANS:
                raise ValueError(f"{key!r} takes on or off, got {quote(value or '')}")
        else:
            raise ValueError(f"unknown option {quote(rest[i])} after the board; known: "
                             f"resignation, {', '.join(_SESSION_OPTIONS)}")
        i += 2
    return head + colon + words[0], options


class ExternalPlayer:
    """Answers FIBS board lines for ``bot`` (its ``offer_double``/``respond`` when it has
    them: without, it never doubles and always takes). ``answer`` may be called from
    several threads: the bot is asked by one at a time.

    In a match (the board's match length > 0) the bot is told the score first
    (``engine.cube_policy.tell_score``: ``match_score``), so that a score-aware bot plays
    and decides the cube for the match; it is told money play (None) after each answer."""

    def __init__(self, bot, variant: str = "standard"):
        self.bot, self.rules = bot, get_variant(variant)
        self.checkers = self.rules.checkers
        self._lock = threading.Lock()  # bots need not be thread-safe (gnubg_nn, RNGs)

    def answer(self, line: str) -> str | None:
        """The answer to one line (no newline); None for a blank line (nothing to answer)."""
        text = line.replace("\x00", "").strip()
        if not text:
            return None
        if not text.startswith("board:"):
            return f"Error: expected a FIBS board line ('board:...'), got {quote(text)}"
        try:
            board_text, options = split_options(text)
        except ValueError as e:
            return f"Error: {e}"
        try:
            state = parse_board(board_text, self.checkers)
            # a double is judged from the doubler's side (he is on roll), all else from ours
            score = match_score(state, doubler=state.doubled)
        except ValueError as e:
            return f"Error: badly formed board ({clip(str(e))})"
        with self._lock:
            try:
                if state.doubled:
                    tell_score(self.bot, score)
                    return self.respond(state)
                if options["resignation"]:
                    return self.resignation(state, options["resignation"])
                tell_score(self.bot, score)
                if state.dice == (0, 0):
                    return self.cube_action(state)
                return self.play(state)
            finally:
                tell_score(self.bot, None)

    def play(self, state: FibsBoard) -> str:
        """The bot's play for the roll in gnubg's plain notation; '' when it cannot move."""
        boards = state.board[None]  # (1, 26)
        dice = np.array([state.dice])  # (1, 2)
        plays = legal_plays(boards, dice, self.rules)
        if plays.dice_used[0] == 0:
            return ""
        row = int(self.bot.choose(plays, boards, dice)[0])
        return play_text(plays.steps[row], plays.hits[row])

    def cube_action(self, state: FibsBoard) -> str:
        """``double`` or ``roll`` before the roll."""
        if not state.may_double[0] or state.crawford:
            return "roll"
        offer = getattr(self.bot, "offer_double", None)
        if offer is None:
            return "roll"
        doubles = offer(state.board[None], np.array([state.cube]),
                        np.array([state.cube_owner], dtype=np.int8))
        return "double" if bool(np.asarray(doubles)[0]) else "roll"

    def respond(self, state: FibsBoard) -> str:
        """``take``, ``drop`` or ``beaver`` to a double, judged from the doubler's side."""
        respond = getattr(self.bot, "respond", None)
        if respond is None:
            return "take"
        # the doubler is on roll: his board, and the cube owner seen from him
        owner = flip_owner(np.array([state.cube_owner], dtype=np.int8))
        answer = int(np.asarray(respond(flip(state.board)[None], np.array([state.cube]),
                                        owner))[0])
        return {PASS: "drop", BEAVER: "beaver"}.get(answer, "take")

    def resignation(self, state: FibsBoard, points: int) -> str:
        """``accept`` or ``reject`` to the side on turn resigning ``points`` (1, 2, 3) per
        cube, by ``eval.bots.resign.accepts_resignation``: ``state`` is read from the resigner,
        on roll (as gnubg's external interface reads it); we answer for the other side."""
        from gammon.eval.bots.resign import accepts_resignation
        accepts = accepts_resignation(self.bot, state.board, points, False, self.rules)
        return "accept" if accepts else "reject"


def match_score(state: FibsBoard, doubler: bool = False):
    """The ``engine.match.MatchScore`` of a board in a match, from the side that acts (or,
    with ``doubler``, from the other side: the one that doubled and is on roll); None for
    money play. gnubg's board says the length, both scores and whether this game is the
    Crawford game; the cube's owner comes from who may double. A score the board cannot
    have (at or past the length) is a ValueError."""
    from gammon.engine.match import MatchScore
    n = state.match_length
    if n <= 0:
        return None
    ours, theirs = state.score
    if not (0 <= ours < n and 0 <= theirs < n):
        raise ValueError(f"score {ours}-{theirs} in a {n}-point match: the match is over")
    owner = state.cube_owner
    if doubler:  # his view: our score is his opponent's; the cube's owner seen from him
        ours, theirs, owner = theirs, ours, -owner
    return MatchScore(np.array([n - ours]), np.array([n - theirs]), n,
                      np.array([state.crawford]), np.array([state.cube]), np.array([owner]))


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (port 0: any free port)."""
    # SO_REUSEADDR on POSIX: quick restarts; a deep backlog: a burst of clients is queued
    return socket.create_server((host, port), backlog=1024)


class LineReader:
    """The lines of a socket, read in linear time and bounded memory: each received chunk
    is scanned once for a newline, and a line longer than ``limit`` bytes is not kept (it
    is reported once as ``TOO_LONG``, and the rest of it up to its newline is skipped)."""

    TOO_LONG = object()

    def __init__(self, conn: socket.socket, limit: int = MAX_LINE):
        self.conn, self.limit = conn, limit
        self.buffer = bytearray()
        self.scanned = 0  # bytes of the buffer known to hold no newline
        self.skipping = False  # dropping the rest of an over-long line
        self.peak = 0  # the most bytes ever buffered (for tests)

    def readline(self, deadline: float):
        """The next line (bytes, without its newline), ``TOO_LONG``, or None at the end of
        the stream. TimeoutError when no whole line came before ``deadline`` (monotonic)."""
        while True:
            end = self.buffer.find(b"\n", self.scanned)
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[:end + 1]
                self.scanned = 0
                if self.skipping:
                    self.skipping = False
                    continue
                return self.TOO_LONG if len(line) > self.limit else line
            self.scanned = len(self.buffer)
            if self.scanned > self.limit:  # no newline in sight: drop it, say so once
                del self.buffer[:]
                self.scanned = 0
                if not self.skipping:
                    self.skipping = True
                    return self.TOO_LONG
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no whole line in time")
            self.conn.settimeout(remaining)
            data = self.conn.recv(65536)  # socket.timeout is TimeoutError
            if not data:
                return None
            self.buffer += data
            self.peak = max(self.peak, len(self.buffer))


class Tally:
    """Counts of the answers a server sent, over all its connections: ``answers``, and
    ``errors`` among them (those starting 'Error'). Safe to add to from several threads."""

    def __init__(self):
        self.answers = self.errors = 0
        self._lock = threading.Lock()

    def add(self, reply: str) -> None:
        with self._lock:
            self.answers += 1
            self.errors += int(reply.startswith("Error"))


def serve(server: socket.socket, answer: Callable[[str], str | None],
          log: Callable[[str], None] = lambda text: None, connections: int = 0,
          stop: threading.Event | None = None, *, timeout: float = TIMEOUT,
          max_clients: int = MAX_CLIENTS, max_line: int = MAX_LINE,
          grace: float = GRACE, tally: Tally | None = None) -> int:
    """Accept connections and answer each line of each, one thread per connection; returns
    how many connections were served. ``answer`` is called from those threads.

    Stops accepting after ``connections`` (0: never; then waits for them to end) or when
    ``stop`` is set (checked four times a second): then closes ``server``, ends the
    connections that wait for a line, and lets answers in flight finish for up to
    ``grace`` seconds. A line must be complete within ``timeout`` seconds of the previous
    answer (or of connecting), else the connection is closed; a line longer than
    ``max_line`` bytes is answered ``Error: line longer than ... bytes`` and skipped; past
    ``max_clients`` open connections a new one is told so and closed. An answer that
    raises is sent as ``Error: ...`` and serving goes on. ``tally`` (if given) counts
    every answer sent on the connections, and the errors among them.
    """
    stop = stop if stop is not None else threading.Event()
    active: dict[socket.socket, threading.Thread] = {}
    lock = threading.Lock()
    served = 0

    def run(conn: socket.socket, number: int) -> None:
        try:
            with conn:
                lines, how = _handle(conn, answer, timeout, max_line, tally)
            log(f"connection {number} {how} after {lines} line(s)")
        finally:
            with lock:
                active.pop(conn, None)

    server.settimeout(0.25)
    try:
        while not connections or served < connections:
            if stop.is_set():
                break
            try:
                conn, peer = server.accept()
            except socket.timeout:
                continue
            except OSError:  # the listening socket was closed under us
                break
            with lock:
                full = len(active) >= max_clients
            if full:
                _refuse(conn, f"Error: too many connections ({max_clients}); try again later")
                log(f"refused {peer[0]}:{peer[1]}: {max_clients} connections open")
                continue
            served += 1
            log(f"connection {served} from {peer[0]}:{peer[1]}")
            thread = threading.Thread(target=run, args=(conn, served), daemon=True,
                                      name=f"external-{served}")
            with lock:
                active[conn] = thread
            thread.start()
        server.close()  # accept no more: newcomers are refused at once, not queued
        while not stop.is_set():  # served the connections asked for: wait for their end
            with lock:
                threads = list(active.values())
            if not threads:
                break
            threads[0].join(0.25)
    finally:
        server.close()
        finish_connections(active, lock, grace)
    return served


def finish_connections(active: dict, lock: threading.Lock, grace: float) -> None:
    """Wake the connections that wait for a line (their reads end: shut for reading) and
    give those answering up to ``grace`` seconds to send their answers."""
    with lock:
        items = list(active.items())
    for conn, _ in items:
        with contextlib.suppress(OSError):
            conn.shutdown(socket.SHUT_RD)
    deadline = time.monotonic() + grace
    for _, thread in items:
        thread.join(max(0.0, deadline - time.monotonic()))


def _refuse(conn: socket.socket, reply: str) -> None:
    with conn, contextlib.suppress(OSError):
        conn.settimeout(1.0)
        conn.sendall(reply.encode() + b"\n")


def _handle(conn: socket.socket, answer, timeout: float,
            max_line: int = MAX_LINE, tally: Tally | None = None) -> tuple[int, str]:
    """Answer the lines of one connection until it closes or times out; returns the lines
    answered and how it ended. Each answer is counted in ``tally`` (if given)."""
    reader, count = LineReader(conn, max_line), 0
    while True:
        try:
            raw = reader.readline(time.monotonic() + timeout)
        except TimeoutError:
            _send(conn, f"Error: no whole line within {timeout:g} s; closing", timeout)
            return count, "timed out"
        except OSError:
            return count, "reset"
        if raw is None:
            return count, "closed"
        if raw is LineReader.TOO_LONG:
            reply = f"Error: line longer than {max_line} bytes"
        else:
            try:
                reply = answer(raw.decode("utf-8", errors="replace"))
            except Exception as e:  # a bug must not end the session: say so and go on
                reply = f"Error: {type(e).__name__}: {clip(str(e))}"
        if reply is None:
            continue
        count += 1
        if tally is not None:
            tally.add(reply)
        if not _send(conn, reply, timeout):
            return count, "reset"


def _send(conn: socket.socket, reply: str, timeout: float) -> bool:
    try:
        conn.settimeout(timeout)
        conn.sendall(reply.encode() + b"\n")
        return True
    except OSError:
        return False


@contextlib.contextmanager
def stop_on_signals(stop: threading.Event):
    """While inside, SIGINT and SIGTERM set ``stop`` (a second one raises
    KeyboardInterrupt: stop at once); the previous handlers come back on leaving. Yields
    the list of signals received. Installed whatever the inherited dispositions (a job
    started in the background ignores SIGINT); only from the main thread (elsewhere this
    does nothing). The main thread must poll ``stop.is_set()``, not wait on ``stop``: a
    handler setting an Event the same thread waits on could deadlock."""
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def handler(signum, frame):
        if stop.is_set():
            raise KeyboardInterrupt
        received.append(signum)
        stop.set()

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield received
    finally:
        for s, h in previous.items():
            signal.signal(s, h if h is not None else signal.SIG_DFL)


def one_torch_thread() -> None:
    """Servers ask the bot about one position (or a small batch) at a time from many
    threads; torch's own thread pool only contends with them (200 concurrent /move requests
    to the shipped net: p99 0.68-0.78 s with one torch thread, 0.77-1.13 s with two, on
    this 2-core machine with the other core busy). Nothing to do when torch is not loaded."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def signal_name(signum: int) -> str:
    return signal.Signals(signum).name


__all__ = ["ExternalPlayer", "LineReader", "Tally", "listen", "serve", "stop_on_signals",
           "quote", "clip", "split_options", "MAX_LINE", "TIMEOUT", "MAX_CLIENTS"]
