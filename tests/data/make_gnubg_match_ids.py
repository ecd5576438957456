"""Write tests/data/gnubg_match_ids.jsonl: Match IDs written by GNU Backgammon itself.

Usage (from the repository root; needs gnubg, Debian's is /usr/games/gnubg)::

    python tests/data/make_gnubg_match_ids.py [--gnubg PATH] [--out PATH] [--seed N]

Each case starts a new match (lengths 1..25) or a money session, sets a state with gnubg's
own commands (score, Crawford flag, cube value and owner, player on roll, dice), then
sometimes acts on it (double; double and take, beaver or drop; resign; resign and accept;
bear off the last checker), and asks gnubg for the board, whose header carries the Match
ID. Every case runs in one gnubg process (``gnubg -t -q``, HOME in a temporary folder);
``set seed N`` after each case ("Seed set to N.", on the same stream as the board) marks
where its output ends; gnubg's complaints go to stderr and are left out.

The expected state is worked out here from the commands alone, without the decoder under
test, so tests/test_matchid.py can compare field by field. Where gnubg decides something
itself, this script follows what gnubg 1.07 was seen to do:

* the dice are stored larger first, whatever order ``set dice`` gives them;
* ``set turn`` leaves the dice unrolled;
* a double, or a resignation, hands the turn (the decision) to the opponent;
* ``beaver`` (money only) leaves the cube at twice its value with the beaverer, and a
  double (the beaver's redouble) waiting for the original doubler;
* a drop, an accepted resignation or a finished game leaves the final score in the ID;
  after a drop or a resignation the player on roll and the turn stay as they were (the
  resignation stays recorded), after a borne-off last checker both pass to the loser;
* after a game in a match, the Crawford flag says whether the next game is the Crawford
  game: a player has just reached length-1 away, nobody was there before, nobody has won;
* bit 66 is set in every match (no Jacoby rule there) and in money sessions without Jacoby:
  the ``jacoby`` field below.

The cases come from ``random.Random(seed)``: the same seed gives the same file.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
CENTRED = 3
PLAYING, OVER, RESIGNED, DROPPED = 1, 2, 3, 4
RESIGN_WORDS = {1: "normal", 2: "gammon", 3: "backgammon"}
# The mover's last checker on its 1-point, the opponent's on its own 1-point (the mover's
# 24): "set board simple" takes a bar, the mover's points 1..24 (the opponent's checkers
# negative) and the other bar, both bars empty here.
LAST_CHECKERS = "set board simple 0 1 " + "0 " * 22 + "-1 0"
MARK = 900000  # seeds that mark the end of each case's output
KINDS = ["roll", "unrolled", "double", "take", "beaver", "drop", "resign", "accept", "bearoff"]
WEIGHTS = [6, 3, 3, 3, 2, 2, 2, 2, 2]
CUBE_ACTIONS = ("double", "take", "beaver", "drop")


def _state(length, score, crawford, cube, owner, turn, jacoby):
    """The expected fields (names as in engine.formats.matchid.MatchState)."""
    return {"cube_value": cube, "cube_owner": owner, "on_roll": turn, "crawford": crawford,
            "game_state": PLAYING, "turn": turn, "double_offered": False, "resign": 0,
            "dice": [0, 0], "length": length, "score": list(score), "jacoby": jacoby}


def _next_crawford(length, before, after):
    """After a game in a match: is the next game the Crawford game?"""
    return (length > 0 and length - 1 not in before and length - 1 in after
            and max(after) < length)


def make_case(rng: random.Random, length: int) -> tuple[list[str], dict]:
    """gnubg commands that set one state, and that state."""
    money = length == 0
    kind = rng.choices(KINDS, WEIGHTS)[0]
    if kind == "beaver" and not money:
        kind = "double"
    elif kind in ("double", "take") and money and rng.random() < 0.5:
        kind = "beaver"  # money sessions are few: give the beaver its share
    if kind in CUBE_ACTIONS and length == 1:
        kind = "unrolled"  # a 1-point match has no live cube
    turn = rng.randrange(2)  # the player on roll
    jacoby = money and rng.random() < 0.7  # gnubg's rule for money sessions, never in a match
    if money:
        commands = [f"set jacoby {'on' if jacoby else 'off'}", "new session"]
        score = [rng.choice([0, 0, rng.randint(1, 40)]) for _ in range(2)]
    else:
        commands = [f"new match {length}"]
        score = [rng.choice([rng.randrange(length), length - 1]) for _ in range(2)]
        if kind in CUBE_ACTIONS:  # the doubler's cube must be alive: score + cube < length
            score[turn] = rng.randrange(length - 1)
    commands.append(f"set score {score[0]} {score[1]}")
    crawford = not money and length - 1 in score and kind not in CUBE_ACTIONS \
        and rng.random() < 0.6
    if not money and length - 1 in score:  # else gnubg keeps a flag of its own choosing
        commands.append(f"set crawford {'on' if crawford else 'off'}")
    cube, owner = 1, CENTRED
    if not crawford and rng.random() < 0.6:
        room = 11 if money else (length - 1 - score[turn]).bit_length() - 1
        top = room if kind in CUBE_ACTIONS else (12 if money else 6)
        if top >= 1:
            cube = 2 ** rng.randint(1, top)
            owner = rng.choice([turn, turn, CENTRED] if kind in CUBE_ACTIONS else [0, 1, CENTRED])
            commands.append(f"set cube value {cube}")
            commands.append("set cube centre" if owner == CENTRED else f"set cube owner {owner}")
    commands.append(f"set turn {turn}")
    state = _state(length, score, crawford, cube, owner, turn, jacoby)

    if kind == "roll" or (kind == "resign" and rng.random() < 0.5):
        dice = [rng.randint(1, 6), rng.randint(1, 6)]
        commands.append(f"set dice {dice[0]} {dice[1]}")
        state["dice"] = sorted(dice, reverse=True)
    if kind in ("double", "take", "beaver", "drop"):
        commands.append("double")
        state.update(double_offered=True, turn=1 - turn)
    if kind == "take":
        commands.append("take")
        state.update(double_offered=False, turn=turn, cube_value=2 * cube, cube_owner=1 - turn)
    elif kind == "beaver":
        commands.append("beaver")
        state.update(turn=turn, cube_value=2 * cube, cube_owner=1 - turn)
    elif kind == "drop":
        commands.append("drop")
        after = list(score)
        after[turn] += cube
        state.update(game_state=DROPPED, double_offered=False, score=after,
                     crawford=_next_crawford(length, score, after))
    elif kind in ("resign", "accept"):
        value = rng.randint(1, 3)
        commands.append(f"resign {RESIGN_WORDS[value]}")
        state.update(resign=value, turn=1 - turn)
        if kind == "accept":
            commands.append("accept")
            after = list(score)
            after[1 - turn] += cube * value
            state.update(game_state=RESIGNED, score=after,
                         crawford=_next_crawford(length, score, after))
    elif kind == "bearoff":
        commands += [LAST_CHECKERS, "set dice 6 5", "move 1/off"]
        after = list(score)
        after[turn] += cube
        state.update(game_state=OVER, on_roll=1 - turn, turn=1 - turn, score=after,
                     crawford=_next_crawford(length, score, after))
    return commands, {"kind": kind, **state}


def run_gnubg(gnubg: str, cases: list[list[str]]) -> list[tuple[str, str]]:
    """(Position ID, Match ID) that gnubg shows after each case's commands."""
    script = ["set sound enable off", "set confirm new off", "set rng mersenne", "set seed 1",
              "set player 0 human", "set player 1 human", "set automatic roll off",
              "set automatic game off", "set jacoby on", "set beavers 3"]
    for number, commands in enumerate(cases):
        script += [*commands, "show board", f"set seed {MARK + number}"]
    with tempfile.TemporaryDirectory() as home:
        run = subprocess.run([gnubg, "-t", "-q"], input="\n".join(script) + "\n", text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             check=False, timeout=600,
                             env={"HOME": home, "PATH": "/usr/bin:/bin", "LANG": "C"})
    output = run.stdout
    found = []
    for number in range(len(cases)):
        before, marker, output = output.partition(f"Seed set to {MARK + number}.")
        assert marker, f"gnubg's output stops before case {number}"
        pos = re.findall(r"Position ID: (\S{14})", before)
        mid = re.findall(r"Match ID   : (\S{12})", before)
        assert pos and mid, f"no IDs in gnubg's output for case {number}:\n{before[-2000:]}"
        found.append((pos[-1], mid[-1]))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gnubg", default=shutil.which("gnubg") or "/usr/games/gnubg")
    parser.add_argument("--out", type=Path, default=HERE / "gnubg_match_ids.jsonl")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--rounds", type=int, default=6,
                        help="passes over three money sessions and match lengths 1..25")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    lengths = [length for _ in range(args.rounds) for length in [0, 0, 0, *range(1, 26)]]
    cases = [make_case(rng, length) for length in lengths]
    ids = run_gnubg(args.gnubg, [commands for commands, _ in cases])
    with open(args.out, "w") as f:
        for (commands, state), (position_id, match_id) in zip(cases, ids):
            kind = state.pop("kind")
            f.write(json.dumps({"match_id": match_id, "position_id": position_id, "kind": kind,
                                "commands": commands, "state": state}) + "\n")
    print(f"{len(cases)} Match IDs written to {args.out}")


if __name__ == "__main__":
    main()
