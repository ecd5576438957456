"""The public API's training: ``train_network(config, ...)`` runs what ``gammon train``
runs, from a TOML preset (``configs/*.toml``, checked key by key by
``gammon.train.config``), and answers where the network is.

It is the command itself (``gammon.commands.train``), handed the same options: the run
directory's lock and checks (a directory holding another run is refused unless
``overwrite`` or ``resume``), checkpoints, the evaluations against pubeval, TensorBoard
logs, the second stage of a config that has one, the log lines on stderr. Named
``train_network`` because ``gammon.train`` is the training package.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .api_checks import count, rules_of, seed as checked_seed
from .errors import UsageError

DEVICES = ("auto", "cpu", "cuda")


@dataclass(frozen=True)
class TrainingRun:
    """A finished (or stopped) run: its directory ``out``, the network ``model``
    (``model.pt``: play it as the bot ``bot_name``), the ``checkpoint`` to resume from,
    ``evaluations`` (one dict per evaluation against pubeval: games_trained, win_rate,
    ppg, ppg_ci95, ...) and ``stopped`` (by Ctrl-C or SIGTERM, a checkpoint saved)."""

    out: Path
    model: Path
    checkpoint: Path
    evaluations: list[dict[str, Any]]
    stopped: bool = False

    @property
    def bot_name(self) -> str:
        """The run's network as a bot name: ``net:OUT/model.pt``."""
        return f"net:{self.model}"


def _argv(config, games, out, seed, device, variant, resume, overwrite, progress) -> list[str]:
    """``gammon train``'s arguments for these options, each checked first."""
    argv = ["train"]
    for flag, value in (("--config", config), ("--out", out), ("--resume", resume)):
        if value is not None:
            if not isinstance(value, (str, Path)) or not str(value):
                raise UsageError(f"{flag[2:]} is a path, got {value!r}")
            argv.append(f"{flag}={value}")  # "=": a path may start with "-"
    if games is not None:
        argv += ["--games", str(count(games, "games", 0, 10**12 - 1))]
    if seed is not None:
        argv += ["--seed", str(checked_seed(seed))]
    if device is not None:
        if device not in DEVICES:
            raise UsageError(f"device is one of {', '.join(DEVICES)}, got {device!r}")
        argv += ["--device", device]
    if variant is not None:
        argv += ["--variant", rules_of(variant).name]
    if overwrite:
        argv.append("--overwrite")
    if not progress:
        argv.append("--no-progress")
    return argv


def _out(args) -> Path:
    """The run directory the command trains in (its rule: --out, else the resumed run's
    folder, else the config's ``run.out``)."""
    from gammon.train.config import Config, ConfigError, load

    from .commands.train import DEFAULT_CONFIG
    if args.out:
        return Path(args.out)
    if args.resume:
        return Path(args.resume).parent
    if args.config is None and not DEFAULT_CONFIG.is_file():
        return Path(Config().run.out)
    try:
        return Path(load(args.config or DEFAULT_CONFIG).run.out)
    except ConfigError as e:
        raise UsageError(str(e)) from None


def train_network(config: str | Path | None = None, *, games: int | None = None,
                  out: str | Path | None = None, seed: int | None = None,
                  device: str | None = None, variant: str | None = None,
                  resume: str | Path | None = None, overwrite: bool = False,
                  progress: bool = False) -> TrainingRun:
    """Train a network by self-play TD(lambda) as ``gammon train`` does: ``config`` a TOML
    preset (None: ``configs/default.toml``), ``games``, ``out``, ``seed``, ``device``
    (auto, cpu, cuda) and ``variant`` overriding it; ``resume`` continues a run from its
    ``checkpoint.pt``; ``overwrite`` deletes the run already in ``out`` first; ``progress``
    shows the bar on stderr. A one-line ValueError for a bad config or option, or a run
    directory that holds another run; an OSError (``gammon.engine.files.WriteError``) when
    the run directory cannot be written."""
    from .commands import train as command
    argv = _argv(config, games, out, seed, device, variant, resume, overwrite, progress)
    parser = argparse.ArgumentParser(prog="gammon")
    command.add_parser(parser.add_subparsers())
    args = parser.parse_args(argv)
    args.argv = argv  # the command line the run's lock names
    folder = _out(args)
    code = command.run(args)
    lines = (folder / "evaluations.jsonl").read_text().splitlines() \
        if (folder / "evaluations.jsonl").is_file() else []
    return TrainingRun(folder, folder / "model.pt", folder / "checkpoint.pt",
                       [json.loads(line) for line in lines if line.strip()], code != 0)


__all__ = ["DEVICES", "TrainingRun", "train_network"]
