"""Running GNU Backgammon (gnubg -t, through eval.gnubg.driver) from tests, and comparing
games move by move."""

from pathlib import Path

import numpy as np

from gammon.engine.board import flip
from gammon.engine.rules import start_boards
from gammon.engine.formats.matfile import PLAY, Game, Match, parse_match
from gammon.engine.movegen import legal_plays
from gammon.engine.formats.notation import parse_play
from gammon.eval.gnubg import driver

GNUBG = driver.find_gnubg()


def run_gnubg(commands: list[str], home: Path, timeout: float = 120) -> str:
    """Run gnubg in text mode on ``commands`` (HOME in ``home``); its output."""
    return driver.run_gnubg(["set sound enable off", *commands], GNUBG, timeout, home=home)


def import_and_export(path: Path, home: Path) -> tuple[Match, str]:
    """gnubg imports the .mat file and exports it again: (the re-export, gnubg's output)."""
    back = home / (path.stem + ".back.mat")
    output = run_gnubg([f"import mat {path}", f"export match mat {back}"], home)
    assert back.exists(), output
    return parse_match(back.read_text()), output


def afterstates(game: Game, variant: str = "standard") -> list[bytes]:
    """The board after every play of a game, so that games written with their steps in
    different orders compare equal."""
    out, board = [], start_boards(1, variant)[0]
    for a in game.actions:
        if a.kind != PLAY:
            continue
        plays = legal_plays(board[None], np.array([a.dice]))
        after = plays.boards[parse_play(a.play, board, a.dice[0], a.dice[1], plays)]
        out.append(after.tobytes())
        board = flip(after)
    return out


def assert_same_games(ours: Match, theirs: Match) -> None:
    """The same games: every play's result, every cube action, every winner and score."""
    assert len(theirs.games) == len(ours.games) and theirs.variant == ours.variant
    for number, (mine, gnubg) in enumerate(zip(ours.games, theirs.games), 1):
        assert afterstates(gnubg, theirs.variant) == afterstates(mine, ours.variant), \
            f"game {number}"
        assert [(a.player, a.kind) for a in gnubg.actions] == \
            [(a.player, a.kind) for a in mine.actions], f"game {number}"
        assert (gnubg.winner, gnubg.points) == (mine.winner, mine.points), f"game {number}"
