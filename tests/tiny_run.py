"""The config of a tiny training run (a network of 8 hidden units, a few dozen games), for
the tests that start, stop, lock and resume runs."""

from __future__ import annotations


def tiny_config(games: int = 64, seed: int = 11, every: int = 64, checkpoint: int = 64,
                eval_games: int = 4) -> str:
    """The TOML text of a tiny run: ``games`` games of self-play, an evaluation of
    ``eval_games`` games every ``every`` games, a checkpoint every ``checkpoint``."""
    return f"""\
[model]
hidden = [8]
[train]
games = {games}
parallel_games = 32
update_every = 512
batch_size = 64
threads = 1
seed = {seed}
[eval]
every_games = {every}
games = {eval_games}
[run]
checkpoint_every_games = {checkpoint}
"""
