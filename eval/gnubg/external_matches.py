"""Matches against GNU Backgammon through our external-player server (``gammon
serve-external``): gnubg 0-ply (checkers and cube) as player 0, our bot as player 1, N
matches to L points, each exported by gnubg as a .mat file and checked here.

Checks: gnubg says every match was won ("has won the match"), neither side printed an
error, no answer of the server was an ``Error`` (the server's last line counts its
answers and errors), every play of every exported game replays legally
(``engine.formats.matfile.replay``) and every match ends with one player at L points or
more. Reports our bot's match wins, the points and games, and the cube actions.

    python -m gammon.eval.gnubg.external_matches [--matches 50] [--length 5] [--bot net:]
                                          [--seed 1] [--out DIR] [--json]

Needs Debian's gnubg (``apt-get install gnubg``); the whole run is one gnubg process
(``eval.gnubg.driver``) and one connection to the server, the real command
``python -m gammon.cli serve-external --port 0 --connections 1`` run as a child process
of this one (from this source tree), ended with the run whatever happens.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from gammon.eval.gnubg.cli import first_line
from gammon.eval.gnubg.driver import GnubgError, find_gnubg, run_gnubg

ROOT = Path(__file__).resolve().parents[2]  # the source tree the server is run from
SERVER_TIMEOUT = 600  # the server's --timeout: seconds gnubg may take between two lines
SERVER_START = 120  # seconds for the server to load its bot and listen
SERVER_END = 60  # seconds for the server to exit once gnubg has closed its connection
_SERVING = re.compile(r"^serving .* on (\S+):(\d+) ")
_DONE = re.compile(r"^done: (\d+) connection\(s\) served, (\d+) answers, (\d+) errors$")


class ServerError(RuntimeError):
    """The external-player server could not be started, or ended without its count."""


class Server:
    """``gammon serve-external`` for one connection in a child process, its stderr read
    line by line in a thread (``lines``). As a context manager it is started on entering
    (``port`` then known) and killed on leaving if still running, whatever happened."""

    def __init__(self, bot_name: str, seed: int, timeout: float = SERVER_TIMEOUT):
        self.command = [sys.executable, "-m", "gammon.cli", "serve-external", "--port", "0",
                        "--host", "127.0.0.1", "--bot", bot_name, "--seed", str(seed),
                        "--connections", "1", "--timeout", f"{timeout:g}"]
        self.lines: list[str] = []
        self._new: queue.Queue = queue.Queue()
        self.proc: subprocess.Popen | None = None
        self.port: int | None = None

    def __enter__(self) -> "Server":
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH"))
                                            if p)
        try:
            self.proc = subprocess.Popen(self.command, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                         text=True, cwd=ROOT, env=env)
        except OSError as e:
            raise ServerError(f"cannot start serve-external: {first_line(e)}") from None
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        try:
            self.port = self._wait_for_port(SERVER_START)
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _read(self) -> None:
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))
            self._new.put(line)
        self._new.put(None)  # the end of its stderr

    def _wait_for_port(self, seconds: float) -> int:
        """The port from the server's 'serving ... on HOST:PORT ...' line."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                line = self._new.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise ServerError(f"serve-external did not listen within {seconds:g} s") \
                    from None
            if line is None:
                status = self.proc.wait()
                raise ServerError(f"serve-external did not start (exit status {status}): "
                                  f"{self.last_line()}")
            found = _SERVING.match(line)
            if found:
                return int(found.group(2))

    def last_line(self) -> str:
        """The server's last non-empty line on stderr, or 'no output'."""
        said = [line for line in self.lines if line.strip()]
        return said[-1].strip() if said else "no output"

    def wait(self, seconds: float) -> int | None:
        """Its exit status once it has ended and its stderr is read; None if it is still
        running after ``seconds``."""
        try:
            status = self.proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return None
        self._reader.join(timeout=10)
        return status

    def counts(self) -> tuple[int, int] | None:
        """(answers, errors) from its 'done: ...' line, or None without one."""
        for line in reversed(self.lines):
            found = _DONE.match(line)
            if found:
                return int(found.group(2)), int(found.group(3))
        return None

    def close(self) -> None:
        """Kill it if it still runs, and reap it."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._reader.join(timeout=10)
        self.proc.stderr.close()


def gnubg_commands(port: int, matches: int, length: int, seed: int, out: Path) -> list[str]:
    """gnubg's script: players, 0-ply, the cube on, the seed, then each match and its
    export."""
    commands = ["set sound enable off", "set confirm new off", "set player 0 name gnubg",
                "set player 0 gnubg", "set player 0 chequerplay evaluation plies 0",
                "set player 0 cubedecision evaluation plies 0",
                f"set player 1 external 127.0.0.1:{port}", "set player 1 name gammon",
                "set cube use on", "set crawford on", f"set seed {seed}"]
    for m in range(1, matches + 1):
        commands += [f"new match {length}", f"export match mat {out / f'match_{m:03d}.mat'}"]
    return commands


def run(bot_name: str, matches: int, length: int, seed: int, out: Path,
        timeout: float = 3600) -> dict:
    """Play the matches and check them; the report as a dict (``problems``: what failed).
    RuntimeError without gnubg; ServerError when the server does not start (a bad bot
    name: its one-line error); GnubgError when gnubg cannot run or takes over ``timeout``
    seconds."""
    from gammon.engine.formats.matfile import DOUBLE, DROP, TAKE, parse_match, replay
    gnubg = find_gnubg()
    if gnubg is None:
        raise RuntimeError("GNU Backgammon is not installed (apt-get install gnubg)")
    out.mkdir(parents=True, exist_ok=True)
    problems, server_problems = [], []
    with Server(bot_name, seed) as server:
        start = time.perf_counter()
        output = run_gnubg(gnubg_commands(server.port, matches, length, seed, out), gnubg,
                           timeout)
        seconds = time.perf_counter() - start
        status = server.wait(SERVER_END)
        if status is None:
            server_problems.append(f"the server did not stop within {SERVER_END} s of "
                                   f"gnubg's end")
        elif status != 0:
            server_problems.append(f"the server ended with exit status {status}: "
                                   f"{server.last_line()}")
        counts = server.counts()
        if counts is None and status is not None:
            server_problems.append(f"the server did not count its answers: "
                                   f"{server.last_line()}")
    answers, errors = counts or (0, 0)
    won = output.count("has won the match")
    if won != matches:
        problems.append(f"gnubg reported {won} matches won, not {matches}")
    for word in ("Error", "badly formed", "illegal", "Illegal"):
        if word in output:
            problems.append(f"gnubg printed {word!r}")
    if errors:
        problems.append(f"{errors} server answers were errors")
    problems += server_problems
    wins = [0, 0]
    points = [0, 0]
    games = crawford = 0
    cube = {"doubles_gnubg": 0, "doubles_ours": 0, "takes_gnubg": 0, "takes_ours": 0,
            "drops_gnubg": 0, "drops_ours": 0}
    for m in range(1, matches + 1):
        path = out / f"match_{m:03d}.mat"
        if not path.exists():
            problems.append(f"{path.name} was not exported")
            continue
        match = parse_match(path.read_text())
        score = [0, 0]
        for number, game in enumerate(match.games, 1):
            try:
                end = replay(game, number=number)
            except ValueError as e:
                problems.append(f"{path.name} game {number}: {e}")
                continue
            if end.winner != game.winner:
                problems.append(f"{path.name} game {number}: the replay ends otherwise")
            if length - 1 in score and crawford_pending(match, number):
                crawford += 1
            for action in game.actions:
                side = "gnubg" if action.player == 0 else "ours"
                key = {DOUBLE: "doubles", TAKE: "takes", DROP: "drops"}.get(action.kind)
                if key:
                    cube[f"{key}_{side}"] += 1
            if game.winner is not None:
                score[game.winner] += game.points
        games += len(match.games)
        if max(score) < length:
            problems.append(f"{path.name}: ends {score[0]}-{score[1]}, nobody reached {length}")
            continue
        wins[0 if score[0] >= length else 1] += 1
        points[0] += score[0]
        points[1] += score[1]
    return {"bot": bot_name, "opponent": "gnubg 0-ply", "matches": matches, "length": length,
            "seed": seed, "wins_ours": wins[1], "wins_gnubg": wins[0],
            "points_ours": points[1], "points_gnubg": points[0], "games": games,
            "crawford_games": crawford, "cube": cube, "server_answers": answers,
            "server_errors": errors, "seconds": round(seconds, 1), "problems": problems}


def crawford_pending(match, number: int) -> bool:
    """Whether game ``number`` (1-based) of a match is its Crawford game: the first game
    played with a player at length - 1."""
    left = right = 0
    for k, game in enumerate(match.games, 1):
        one_away = match.length - 1 in (left, right)
        if one_away:
            return k == number
        if game.winner == 0:
            left += game.points
        elif game.winner == 1:
            right += game.points
    return False


@contextlib.contextmanager
def _exit_on_sigterm():
    """While inside, SIGTERM raises SystemExit (status 143), so that gnubg and the server
    are ended on the way out as after any error; only from the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m gammon.eval.gnubg.external_matches",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--matches", type=int, default=50, help="matches to play (default 50)")
    p.add_argument("--length", type=int, default=5, help="points per match (default 5)")
    p.add_argument("--bot", default="net:", help="our bot (default net:, the shipped net)")
    p.add_argument("--seed", type=int, default=1, help="gnubg's dice seed (default 1)")
    p.add_argument("--out", default=None, help="folder for the exported .mat files "
                                                "(default: a temporary one)")
    p.add_argument("--json", action="store_true", help="print JSON")
    args = p.parse_args(argv)
    if not 1 <= args.matches <= 10_000 or not 1 <= args.length <= 64:
        p.error("--matches is 1..10000 and --length 1..64")
    if find_gnubg() is None:
        print("error: GNU Backgammon is not installed (apt-get install gnubg)",
              file=sys.stderr)
        return 2
    try:
        with tempfile.TemporaryDirectory() as tmp, _exit_on_sigterm():
            out = Path(args.out) if args.out else Path(tmp)
            report = run(args.bot, args.matches, args.length, args.seed, out)
    except (ServerError, GnubgError) as e:
        print(f"error: {e}", file=sys.stderr)  # one line: its messages are
        return 2
    if args.json:
        print(json.dumps(report))
    else:
        print(f"{report['bot']} against gnubg 0-ply through serve-external: "
              f"{report['matches']} matches to {report['length']}, seed {report['seed']}")
        print(f"matches won: ours {report['wins_ours']}, gnubg {report['wins_gnubg']}; "
              f"points ours {report['points_ours']}, gnubg {report['points_gnubg']}; "
              f"{report['games']} games ({report['crawford_games']} Crawford games)")
        print(f"cube: {report['cube']}")
        print(f"server answers {report['server_answers']}, errors {report['server_errors']}; "
              f"{report['seconds']} s")
        print("problems: " + ("; ".join(report["problems"]) or "none"))
    return 1 if report["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
