"""GNU Backgammon's external player protocol: a bot answering ``board:...`` lines on a socket.

gnubg (``set player 1 external HOST:PORT``) connects and, whenever that player must act,
sends one FIBS board line (``engine.formats.fibs``; gnubg ends it with a newline and a NUL byte).
The answer is one line:

- a play, when the dice are rolled: its steps from the mover's side in gnubg's plain
  notation (``8/5 6/5``, ``25/22*``, ``6/0``), or an empty line when no play is possible;
- ``roll`` or ``double``, when asked before the roll (dice 0 0; gnubg asks only when
  doubling is possible);
- ``take``, ``drop`` or ``beaver``, when a double waits for an answer;
- ``Error: ...`` for a line that cannot be read (gnubg prints it and stops that turn).

``ExternalPlayer.answer`` turns one line into one answer; ``serve`` accepts connections one
after another on a listening socket and answers every line, until stopped.
"""

from __future__ import annotations

import socket
import threading
from typing import Callable

import numpy as np

from engine.board import flip
from engine.rules import variant as get_variant
from engine.cube import BEAVER, PASS, flip_owner
from engine.formats.fibs import FibsBoard, parse_board
from engine.formats.matfile import play_text
from engine.movegen import legal_plays


class ExternalPlayer:
    """Answers FIBS board lines for ``bot`` (its ``offer_double``/``respond`` when it has
    them: without, it never doubles and always takes)."""

    def __init__(self, bot, variant: str = "standard"):
        self.bot, self.rules = bot, get_variant(variant)
        self.checkers = self.rules.checkers

    def answer(self, line: str) -> str | None:
        """The answer to one line (no newline); None for a blank line (nothing to answer)."""
        text = line.replace("\x00", "").strip()
        if not text:
            return None
        if not text.startswith("board:"):
            return f"Error: expected a FIBS board line ('board:...'), got {text[:40]!r}"
        try:
            state = parse_board(text, self.checkers)
        except ValueError as e:
            return f"Error: badly formed board ({e})"
        if state.doubled:
            return self.respond(state)
        if state.dice == (0, 0):
            return self.cube_action(state)
        return self.play(state)

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


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (port 0: any free port)."""
    return socket.create_server((host, port))  # SO_REUSEADDR on POSIX: quick restarts


def serve(server: socket.socket, answer: Callable[[str], str | None],
          log: Callable[[str], None] = lambda text: None, connections: int = 0,
          stop: threading.Event | None = None) -> int:
    """Accept connections one after another and answer each line; returns how many were
    served. Stops after ``connections`` (0: never) or when ``stop`` is set (checked twice a
    second). An answer that raises is sent as ``Error: ...`` and serving goes on."""
    served = 0
    server.settimeout(0.5)
    while not connections or served < connections:
        if stop is not None and stop.is_set():
            break
        try:
            conn, peer = server.accept()
        except socket.timeout:
            continue
        served += 1
        log(f"connection {served} from {peer[0]}:{peer[1]}")
        with conn:
            lines = _handle(conn, answer, stop)
        log(f"connection {served} closed after {lines} line(s)")
    return served


def _handle(conn: socket.socket, answer, stop: threading.Event | None) -> int:
    """Answer the lines of one connection until it closes; returns the lines answered."""
    conn.settimeout(0.5)
    buffer, count = b"", 0
    while True:
        if stop is not None and stop.is_set():
            return count
        try:
            data = conn.recv(4096)
        except socket.timeout:
            continue
        except OSError:
            return count
        if not data:
            return count
        buffer += data
        while b"\n" in buffer:
            raw, buffer = buffer.split(b"\n", 1)
            line = raw.decode("utf-8", errors="replace")
            try:
                reply = answer(line)
            except Exception as e:  # a bug must not end the session: say so and go on
                reply = f"Error: {type(e).__name__}: {e}"
            if reply is None:
                continue
            count += 1
            try:
                conn.sendall(reply.encode() + b"\n")
            except OSError:
                return count


__all__ = ["ExternalPlayer", "listen", "serve"]
