"""Write tests/data/sgf/*.sgf and *.mat: matches and money sessions GNU Backgammon played
against itself, saved by gnubg 1.07 as SGF (``save match``) and exported as .mat (``export
match mat``) from the same session.

Usage (from the repository root; needs gnubg, Debian's is /usr/games/gnubg)::

    python tests/data/sgf/make_gnubg_sgf.py [--gnubg PATH] [--out DIR]

Both players are gnubg at 0-ply with the Mersenne Twister dice seeded, so each file comes
back the same (but for the date gnubg writes in it). Every file but ``analysed.sgf`` is
saved after ``analyse clear``, which drops the candidate plays gnubg keeps with each of its
moves (some 4 KB a move); ``analysed.sgf`` keeps them, so that the reader is tested on
gnubg's analysis properties too. What each file holds (tests/test_sgf.py checks it):

* ``match3``: a 3-point match: a double dropped, a roll that cannot be played, a double and
  a redouble taken, a resignation;
* ``match5_crawford``: a 5-point match of four games, the third the Crawford game;
* ``money_cube``: a money game under the Jacoby rule: a double and a redouble taken, then
  a resignation of a gammon at the 4-cube;
* ``money_session``: a money session of two games, the first ended by a dropped double;
* ``nackgammon``: a money game of Nackgammon;
* ``analysed``: a money game ended by a dropped double, saved with gnubg's analysis of
  every move and cube decision.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from gammon.eval.gnubg.driver import find_gnubg, run_gnubg  # noqa: E402

PLAYERS = [f"set player {p} {what}" for p in (0, 1)
           for what in ("gnubg", "chequerplay evaluation plies 0",
                        "cubedecision evaluation plies 0")]
SETUP = [*PLAYERS, "set display off", "set rng mersenne"]

FILES = {
    "match3": (["set seed 7", "new match 3"], True),
    "match5_crawford": (["set seed 5", "new match 5"], True),
    "money_cube": (["set automatic game off", "set jacoby on", "set seed 4",
                    "new session"], True),
    "money_session": (["set automatic game off", "set jacoby on", "set seed 1",
                       "new session", "new game"], True),
    "nackgammon": (["set automatic game off", "set jacoby off",
                    "set variation nackgammon", "set seed 3", "new session"], True),
    "analysed": (["set automatic game off", "set jacoby on", "set seed 1", "new session"],
                 False),
}


def make(name: str, commands: list[str], clear: bool, out: Path, gnubg: str) -> None:
    sgf, mat = out / f"{name}.sgf", out / f"{name}.mat"
    script = [*SETUP, *commands]
    if clear:
        script.append("analyse clear match")
    script += [f"save match {sgf}", f"export match mat {mat}"]
    with tempfile.TemporaryDirectory(prefix="gnubg-home-") as home:
        output = run_gnubg(script, gnubg, home=home)
    if not sgf.exists() or not mat.exists():
        raise SystemExit(f"{name}: gnubg wrote no file:\n{output[-2000:]}")
    print(f"{name}: {sgf.stat().st_size:,} bytes of SGF, {mat.stat().st_size:,} of .mat")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gnubg", default=None, help="gnubg program (default: found)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent)
    args = parser.parse_args(argv)
    gnubg = args.gnubg or find_gnubg()
    if gnubg is None:
        raise SystemExit("GNU Backgammon is not installed (apt-get install gnubg)")
    for name, (commands, clear) in FILES.items():
        make(name, commands, clear, args.out, gnubg)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
