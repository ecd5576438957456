"""Matches against GNU Backgammon through our external-player server (``gammon
serve-external``): gnubg 0-ply (checkers and cube) as player 0, our bot as player 1, N
matches to L points, each exported by gnubg as a .mat file and checked here.

Checks: gnubg says every match was won ("has won the match"), neither side printed an
error, no answer of the server was an ``Error``, every play of every exported game replays
legally (``engine.formats.matfile.replay``) and every match ends with one player at L
points or more. Reports our bot's match wins, the points and games, and the cube actions.

    python -m eval.gnubg.external_matches [--matches 50] [--length 5] [--bot net:]
                                          [--seed 1] [--out DIR] [--json]

Needs Debian's gnubg (``apt-get install gnubg``); the whole run is one gnubg process and
one connection to the server, in this process.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

GNUBG_PATHS = ("gnubg", "/usr/games/gnubg")


def find_gnubg() -> str | None:
    for name in GNUBG_PATHS:
        found = shutil.which(name)
        if found:
            return found
    return None


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
    """Play the matches and check them; the report as a dict (``problems``: what failed)."""
    from engine.cube import CubeRules
    from engine.formats.matfile import DOUBLE, DROP, TAKE, parse_match, replay
    from eval.bots.registry import make_bot
    from gammon.external import ExternalPlayer, listen, serve
    gnubg = find_gnubg()
    if gnubg is None:
        raise RuntimeError("GNU Backgammon is not installed (apt-get install gnubg)")
    bot = make_bot(bot_name, seed, "standard", cube="auto", rules=CubeRules())
    player = ExternalPlayer(bot)
    answers: list[str] = []

    def answer(line: str):
        reply = player.answer(line)
        if reply is not None:
            answers.append(reply)
        return reply

    server = listen("127.0.0.1", 0)
    port = server.getsockname()[1]
    thread = threading.Thread(target=serve, args=(server, answer),
                              kwargs={"connections": 1, "timeout": 600}, daemon=True)
    thread.start()
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    script = "\n".join(gnubg_commands(port, matches, length, seed, out)) + "\n"
    with tempfile.TemporaryDirectory() as home:
        done = subprocess.run([gnubg, "-t", "-q"], input=script, capture_output=True,
                              text=True, timeout=timeout,
                              env={"HOME": home, "PATH": "/usr/bin:/bin"})
    seconds = time.perf_counter() - start
    thread.join(timeout=30)
    server.close()
    output = done.stdout + done.stderr
    problems = []
    won = output.count("has won the match")
    if won != matches:
        problems.append(f"gnubg reported {won} matches won, not {matches}")
    for word in ("Error", "badly formed", "illegal", "Illegal"):
        if word in output:
            problems.append(f"gnubg printed {word!r}")
    bad = [a for a in answers if a.startswith("Error")]
    if bad:
        problems.append(f"{len(bad)} server answers were errors, e.g. {bad[0]!r}")
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
            "crawford_games": crawford, "cube": cube, "server_answers": len(answers),
            "server_errors": len(bad), "seconds": round(seconds, 1), "problems": problems}


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


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m eval.gnubg.external_matches",
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
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.out) if args.out else Path(tmp)
        report = run(args.bot, args.matches, args.length, args.seed, out)
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
