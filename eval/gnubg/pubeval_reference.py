"""Write tests/data/pubeval_reference.jsonl: gnubg's pubeval play for a few thousand positions.

Run from the repository root (needs the PyPI package gnubg-nn, the ``gnubg`` extra):

    python -m gammon.eval.gnubg.pubeval_reference [--seed 7] [--games 400] [--cases 3000]

Random games played by our engine supply (position, roll) pairs with at least two distinct
legal results, sampled by kind: contact, race, and bear-off (all the mover's checkers home,
no contact). For each, ``gnubg_nn.pub_best_move`` gives pubeval's play, which we apply to the
board, and ``gnubg_nn.pub_eval_score`` scores the result. One JSON object per line:

    posid   Position ID of the position, player on roll = the mover
    d1, d2  the roll
    race    whether gnubg classifies the position as a race (pubeval's weight choice)
    result  Position ID of the chosen afterstate, not flipped (the mover still "on roll")
    score   gnubg's pub_eval_score of that afterstate for the side that played

gnubg_nn's boards are two lists of 25 counts, [side not on roll, side on roll], each from its
own side: index 0..23 = points 1..24, 24 = the bar. ``pub_best_move`` returns the play as a
flat list of 0-based (from, to) pairs, to = -1 for a checker borne off.
``pub_eval_score(board)`` scores board[0], the side NOT on roll, so an afterstate is passed
with sides changed (the player who just moved in board[0]).

As a by-product the script checks that gnubg's set of legal results (``gnubg_nn.moves``)
equals our move generator's for every stored case, and stops if not.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a file: make the repository's packages importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from gammon.engine.formats import posid  # noqa: E402
from gammon.engine.board import flip  # noqa: E402
from gammon.engine.game import play, random_policy  # noqa: E402
from gammon.engine.movegen import legal_plays  # noqa: E402
from gammon.eval.bots.gnubg import gnubg_board  # noqa: E402
from gammon.engine.phase import is_race  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "pubeval_reference.jsonl"
# share of cases per kind; bear-offs are a kind of race, counted apart
KIND_SHARE = {"contact": 0.5, "race": 0.3, "bearoff": 0.2}


def import_gnubg():
    """Import gnubg_nn, or exit with a message saying how to install it."""
    try:
        import gnubg_nn
    except ImportError:
        sys.exit("make_pubeval_reference needs the PyPI package gnubg-nn "
                 "(pip install gnubg-nn, or pip install -e '.[gnubg]'); it is not installed.")
    return gnubg_nn


def from_gnubg(gboard) -> np.ndarray:
    """gnubg's [side not on roll, side on roll] as our board from the side on roll: (26,)."""
    opponent, mover = gboard
    board = np.zeros(26, dtype=np.int8)
    for p in range(1, 25):
        board[p] = mover[p - 1] - opponent[24 - p]
    board[25] = mover[24]
    board[0] = -opponent[24]
    return board


def apply_gnubg_play(board: np.ndarray, flat: list[int]) -> np.ndarray:
    """Play gnubg's 0-based (from, to) pairs on our board: (26,) int8 afterstate."""
    after = board.copy()
    for source, target in zip(flat[0::2], flat[1::2]):
        after[source + 1] -= 1  # gnubg's 24 (bar) is our 25
        if target >= 0:
            if after[target + 1] == -1:  # a blot is hit and goes to the opponent's bar
                after[target + 1] = 0
                after[0] -= 1
            after[target + 1] += 1
    return after


def collect_positions(games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Every (position, roll) of random games: boards (M, 26) int8, dice (M, 2)."""
    boards, dice = [], []

    def keep(b: np.ndarray, d: np.ndarray) -> None:
        boards.append(b.copy())
        dice.append(d.copy())

    rng = np.random.default_rng(seed)
    policy = random_policy(rng)
    play((policy, policy), games, rng, on_position=keep)
    return np.concatenate(boards), np.concatenate(dice)


def kind_of(boards: np.ndarray) -> np.ndarray:
    """'contact', 'race' or 'bearoff' (race with every mover checker home): (M,) str."""
    race = is_race(boards)
    home = ~(boards[:, 7:26] > 0).any(axis=1)
    return np.where(race, np.where(home, "bearoff", "race"), "contact")


def sample_cases(boards: np.ndarray, dice: np.ndarray, cases: int,
                 rng: np.random.Generator) -> np.ndarray:
    """Indices of distinct (position, roll) pairs with >= 2 legal results, by kind."""
    counts = legal_plays(boards, dice).counts(len(boards))
    keys = [posid.encode(b) + f"{min(d)}{max(d)}" for b, d in zip(boards, dice)]
    _, first = np.unique(keys, return_index=True)
    usable = np.zeros(len(boards), dtype=bool)
    usable[first] = True
    usable &= counts >= 2
    kinds = kind_of(boards)
    picked = []
    for kind, share in KIND_SHARE.items():
        pool = np.flatnonzero(usable & (kinds == kind))
        want = int(round(cases * share))
        if len(pool) < want:
            print(f"only {len(pool)} {kind} cases available, wanted {want}", file=sys.stderr)
        picked.append(rng.choice(pool, size=min(want, len(pool)), replace=False))
    return np.sort(np.concatenate(picked))


def reference_case(gnubg, board: np.ndarray, d1: int, d2: int) -> dict:
    """gnubg's pubeval play for one position and roll, checked against our legal results."""
    gboard = gnubg_board(board)
    after = apply_gnubg_play(board, list(gnubg.pub_best_move(gboard, d1, d2)))
    ours = {posid.encode(b) for b in legal_plays(board[None], np.array([[d1, d2]])).boards}
    theirs = {posid.encode(from_gnubg(gnubg.board_from_position_key(k)))
              for k in gnubg.moves(gboard, d1, d2)}
    pid = posid.encode(board)
    if ours != theirs:
        sys.exit(f"legal results differ from gnubg's for {pid} {d1}{d2}: "
                 f"only ours {sorted(ours - theirs)}, only gnubg's {sorted(theirs - ours)}")
    result = posid.encode(after)
    if result not in ours:
        sys.exit(f"gnubg's pubeval play for {pid} {d1}{d2} gives {result}, not a legal result")
    return {"posid": pid, "d1": d1, "d2": d2,
            "race": bool(gnubg.classify(gboard) <= gnubg.c_race),
            "result": result,
            "score": float(gnubg.pub_eval_score(gnubg_board(flip(after))))}


def main(argv: list[str] | None = None) -> None:
    """Collect positions, ask gnubg for pubeval's plays and write the JSONL file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7, help="seed of games and sampling")
    parser.add_argument("--games", type=int, default=400, help="random games to draw from")
    parser.add_argument("--cases", type=int, default=3000, help="cases to write")
    parser.add_argument("--out", type=Path, default=OUT, help="output JSONL file")
    args = parser.parse_args(argv)

    gnubg = import_gnubg()
    boards, dice = collect_positions(args.games, args.seed)
    picked = sample_cases(boards, dice, args.cases, np.random.default_rng(args.seed))
    rows = [reference_case(gnubg, boards[i], int(dice[i, 0]), int(dice[i, 1]))
            for i in picked]
    from gammon.engine.files import write_atomic
    write_atomic(args.out, "".join(json.dumps(row, separators=(",", ":")) + "\n"
                                   for row in rows), parents=True)
    kinds = kind_of(boards[picked])
    summary = {k: int((kinds == k).sum()) for k in KIND_SHARE}
    print(f"wrote {len(rows)} cases to {args.out} "
          f"({', '.join(f'{n} {k}' for k, n in summary.items())}) "
          f"from {len(boards)} positions of {args.games} games")


if __name__ == "__main__":
    main()
