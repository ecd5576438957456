"""Write tests/data/gnubg_show_pairs.jsonl: gnubg's POSID:MATCHID pairs for ``gammon show``.

Usage (from the repository root; needs gnubg, Debian's is /usr/games/gnubg)::

    python tests/data/make_gnubg_show_pairs.py [--gnubg PATH] [--out PATH]

Each case below runs in its own gnubg process (``gnubg -t -q``, HOME in a temporary folder,
both players human so that gnubg plays no move itself): the commands set up a match or money
state, then ``show board``. The record keeps gnubg's Position ID, Match ID and the board
gnubg drew (its 13 lines), so that tests/test_met_cli.py can check, without gnubg, both the
fields ``gammon show --json`` reads from the Match ID and that the Position ID is read from
the side of the player on roll (the board gnubg drew, numbered from that player's side,
must be the board the Position ID gives).

``expect`` is written here by hand from the commands, from the side of the player on roll
(the mover; while a double waits for an answer the doubler stays the mover). In gnubg's
board player 0 is O and player 1 is X.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
MONEY = {"length": 0, "score": [0, 0], "crawford": False, "cube_value": 1,
         "cube_owner": "centred", "turn": "mover", "double_offered": False, "dice": None}

CASES = [
    ("player 0 on roll, dice rolled",
     ["new match 7", "set score 3 5", "set turn 0", "set dice 3 1"],
     {"on_roll": 0, "length": 7, "score": [3, 5], "dice": [3, 1]}),
    ("player 1 on roll after player 0's play, dice not rolled",
     ["new match 7", "set score 3 5", "set turn 0", "set dice 3 1", "move 8/5 6/5"],
     {"on_roll": 1, "length": 7, "score": [5, 3]}),
    ("player 1 on roll, dice rolled",
     ["new match 7", "set score 3 5", "set turn 0", "set dice 3 1", "move 8/5 6/5",
      "set dice 6 4"],
     {"on_roll": 1, "length": 7, "score": [5, 3], "dice": [6, 4]}),
    ("player 0 doubled, player 1 to answer",
     ["new match 7", "set score 3 5", "set turn 0", "set dice 3 1", "move 8/5 6/5",
      "set dice 6 4", "move 24/14", "double"],
     {"on_roll": 0, "length": 7, "score": [3, 5], "turn": "opponent",
      "double_offered": True}),
    ("player 1 took player 0's double",
     ["new match 7", "set score 3 5", "set turn 0", "set dice 3 1", "move 8/5 6/5",
      "set dice 6 4", "move 24/14", "double", "take", "set dice 5 3"],
     {"on_roll": 0, "length": 7, "score": [3, 5], "cube_value": 2, "dice": [5, 3],
      "cube_owner": "opponent"}),
    ("player 1 doubled, player 0 to answer",
     ["new match 9", "set score 2 6", "set turn 1", "double"],
     {"on_roll": 1, "length": 9, "score": [6, 2], "turn": "opponent",
      "double_offered": True}),
    ("Crawford game, player 1 trails and is on roll",
     ["new match 5", "set score 4 2", "set crawford on", "set turn 1", "set dice 5 2"],
     {"on_roll": 1, "length": 5, "score": [2, 4], "crawford": True, "dice": [5, 2]}),
    ("post-Crawford, player 0 trails and is on roll",
     ["new match 5", "set score 1 4", "set crawford off", "set postcrawford on",
      "set turn 0", "set dice 6 6"],
     {"on_roll": 0, "length": 5, "score": [1, 4], "dice": [6, 6]}),
    ("money, player 0 owns a 4-cube, player 1 on roll",
     ["set jacoby off", "new session", "set score 2 5", "set cube value 4",
      "set cube owner 0", "set turn 1", "set dice 2 1"],
     {"on_roll": 1, "score": [5, 2], "cube_value": 4, "cube_owner": "opponent",
      "dice": [2, 1]}),
    ("money, a checker of each side on the bar, player 1 on roll",
     ["set jacoby off", "new session", "set turn 1",
      "set board simple 1 2 2 2 2 2 2 2 0 0 0 0 0 0 0 0 0 0 0 -3 -3 -3 -3 -2 0 1",
      "set dice 4 2"],
     {"on_roll": 1, "dice": [4, 2]}),
    ("player 0 on roll, owns the cube at 2 in a 3-point match",
     ["new match 3", "set score 0 1", "set cube value 2", "set cube owner 0",
      "set turn 0"],
     {"on_roll": 0, "length": 3, "score": [0, 1], "cube_value": 2,
      "cube_owner": "mover"}),
]


def run_case(gnubg: str, commands: list[str]) -> dict:
    """gnubg's last board after ``commands``: Position ID, Match ID and the 13 board lines."""
    script = ["set sound enable off", "set player 0 human", "set player 1 human",
              *commands, "show board"]
    with tempfile.TemporaryDirectory() as home:
        out = subprocess.run([gnubg, "-t", "-q"], input="\n".join(script) + "\n",
                             capture_output=True, text=True, timeout=120,
                             env={"HOME": home, "PATH": "/usr/bin:/bin"}).stdout
    lines = out.splitlines()
    start = max(i for i, line in enumerate(lines) if "Position ID:" in line)
    posid = re.search(r"Position ID: (\S+)", lines[start]).group(1)
    matchid = re.search(r"Match ID\s*: (\S+)", lines[start + 1]).group(1)
    board = [line[:44] for line in lines[start + 2:start + 15]]
    return {"position_id": posid, "match_id": matchid, "board": board}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gnubg", default=shutil.which("gnubg") or "/usr/games/gnubg")
    parser.add_argument("--out", default=str(HERE / "gnubg_show_pairs.jsonl"))
    args = parser.parse_args()
    records = []
    for name, commands, expect in CASES:
        record = {"name": name, "commands": commands, **run_case(args.gnubg, commands),
                  "expect": MONEY | expect}
        records.append(json.dumps(record))
        print(record["position_id"], record["match_id"], name)
    Path(args.out).write_text("\n".join(records) + "\n")


if __name__ == "__main__":
    main()
