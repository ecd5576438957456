"""Training configuration: frozen dataclasses, read from TOML presets with strict checks.

The defaults are those of ``configs/default.toml`` (a test keeps them equal), so an
installed copy without the configs folder trains the same way.

Unknown keys and values of the wrong type are errors that name the key. Command-line flags
override a preset through ``Config.with_overrides``.
"""

from __future__ import annotations

import dataclasses
import tomllib
import typing
from dataclasses import dataclass, field
from pathlib import Path


class ConfigError(ValueError):
    """A bad configuration file or value; the message names the key."""


@dataclass(frozen=True)
class ModelConfig:
    encoding: str = "classic"
    """Input encoding: "classic" (TD-Gammon's 198 units) or "expert" (plus 24 features)."""
    hidden: tuple[int, ...] = (80,)
    """Hidden layer sizes."""
    activation: str = "sigmoid"
    """Hidden activation: sigmoid, relu or tanh."""


@dataclass(frozen=True)
class TrainConfig:
    games: int = 80_000
    """Self-play games to play in this run (in total, counting a resumed run's games)."""
    parallel_games: int = 512
    """Games advanced in lock-step (G): one network call per ply scores all of them."""
    lam: float = 0.7
    """TD(lambda) trace decay for the lambda-returns."""
    learning_rate: float = 0.001
    """Adam step size at the start."""
    lr_halving_games: int = 0
    """Halve the step size every this many games (0: keep it constant)."""
    lr_min: float = 0.0
    """The step size never goes below this."""
    batch_size: int = 128
    """Positions per gradient step."""
    update_every: int = 8192
    """Positions gathered from finished games before a round of gradient steps."""
    epochs: int = 1
    """Passes over each round's positions."""
    epsilon: float = 0.0
    """Share of plays chosen at random during self-play (exploration)."""
    variant: str = "standard"
    """Variant played: standard, nackgammon, hypergammon or longgammon."""
    seed: int = 1
    """Seed of everything random in the run."""
    device: str = "auto"
    """auto (CUDA when available), cpu or cuda."""
    threads: int = 1
    """CPU threads for torch (one is fastest for these small networks; more than the free
    cores is much slower)."""


@dataclass(frozen=True)
class EvalConfig:
    every_games: int = 20_000
    """Evaluate against pubeval after every this many self-play games (0: never)."""
    games: int = 1_000
    """Paired games per evaluation against pubeval."""


@dataclass(frozen=True)
class RunConfig:
    out: str = "runs/default"
    """Run directory: checkpoints, TensorBoard logs, results."""
    checkpoint_every_games: int = 20_000
    """Write a checkpoint after every this many games (and at the end)."""


@dataclass(frozen=True)
class Config:
    model: ModelConfig = field(default_factory=ModelConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    run: RunConfig = field(default_factory=RunConfig)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def with_overrides(self, **sections: dict) -> "Config":
        """A copy with some values replaced: with_overrides(train={"games": 10}).

        None values are ignored, so optional command-line flags can be passed as they are.
        """
        updated = {}
        for name, values in sections.items():
            current = getattr(self, name)
            values = {k: v for k, v in values.items() if v is not None}
            updated[name] = _section(type(current), {**dataclasses.asdict(current), **values},
                                     name)
        return dataclasses.replace(self, **updated)


_SECTIONS = typing.get_type_hints(Config)


def _check_type(key: str, value, kind):
    """The value converted to the field's type, or ConfigError naming the key."""
    origin = typing.get_origin(kind)
    if origin is tuple:
        if not isinstance(value, (list, tuple)) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in value):
            raise ConfigError(f"{key}: expected a list of whole numbers, got {value!r}")
        if not value or min(value) < 1:
            raise ConfigError(f"{key}: expected positive sizes, got {value!r}")
        return tuple(value)
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{key}: expected a number, got {value!r}")
        return float(value)
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{key}: expected a whole number, got {value!r}")
        return value
    if kind is str:
        if not isinstance(value, str):
            raise ConfigError(f"{key}: expected text, got {value!r}")
        return value
    raise ConfigError(f"{key}: unsupported type {kind}")


def _section(cls, values: dict, prefix: str):
    fields = {f.name: f for f in dataclasses.fields(cls)}
    hints = typing.get_type_hints(cls)
    for key in values:
        if key not in fields:
            raise ConfigError(f"unknown key {prefix}.{key}; valid: {', '.join(fields)}")
    checked = {k: _check_type(f"{prefix}.{k}", v, hints[k]) for k, v in values.items()}
    return _validate(prefix, cls(**checked))


_CHOICES = {
    "model.encoding": ("classic", "expert"),
    "model.activation": ("sigmoid", "relu", "tanh"),
    "train.variant": ("standard", "nackgammon", "hypergammon", "longgammon"),
    "train.device": ("auto", "cpu", "cuda"),
}


def _validate(prefix: str, section):
    for f in dataclasses.fields(section):
        key, value = f"{prefix}.{f.name}", getattr(section, f.name)
        if key in _CHOICES and value not in _CHOICES[key]:
            raise ConfigError(f"{key}: {value!r} is not one of {', '.join(_CHOICES[key])}")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
            raise ConfigError(f"{key}: must not be negative, got {value!r}")
    if prefix == "train":
        if not 0 <= section.lam <= 1:
            raise ConfigError(f"train.lam: must be within 0..1, got {section.lam}")
        if not 0 <= section.epsilon <= 1:
            raise ConfigError(f"train.epsilon: must be within 0..1, got {section.epsilon}")
        for name in ("parallel_games", "batch_size", "update_every", "epochs", "threads"):
            if getattr(section, name) < 1:
                raise ConfigError(f"train.{name}: must be at least 1")
    return section


def from_dict(data: dict) -> Config:
    """A Config from nested dicts (as TOML gives them); ConfigError names any bad key."""
    sections = {}
    for name, values in data.items():
        if name not in _SECTIONS:
            raise ConfigError(f"unknown section [{name}]; valid: {', '.join(_SECTIONS)}")
        if not isinstance(values, dict):
            raise ConfigError(f"[{name}] must be a table of keys")
        sections[name] = _section(_SECTIONS[name], values, name)
    return Config(**sections)


def load(path: str | Path) -> Config:
    """Read a TOML preset."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"config file {path} not found") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    try:
        return from_dict(data)
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from None
