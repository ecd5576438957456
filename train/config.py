"""Training configuration: frozen dataclasses, read from TOML presets with strict checks.

The defaults are those of ``configs/default.toml`` (a test keeps them equal), so an
installed copy without the configs folder trains the same way.

Unknown keys, values of the wrong type and values outside their range (``RANGES``, also in
each field's description) are errors that name the key. Command-line flags override a
preset through ``Config.with_overrides``, checked the same way.
"""

from __future__ import annotations

import dataclasses
import math
import os
import stat
import tomllib
import typing
from dataclasses import dataclass, field
from pathlib import Path

# the limits every network file is checked against (torch-free: NumPy only)
from gammon.model.activations import NAMES as _ACTIVATIONS
from gammon.model.botfile import MAX_LAYERS, MAX_PARAMETERS, MAX_WIDTH, WIDTHS as _INPUTS


class ConfigError(ValueError):
    """A bad configuration file or value; the message names the key."""


@dataclass(frozen=True)
class ModelConfig:
    encoding: str = "classic"
    """Input encoding: "classic" (TD-Gammon's 198 units), "expert" (plus 24 features),
    "advanced" (plus 34 expert inputs, ``model.features``), "plakoto" (Plakoto's pins) or
    "nuclear" (the bomb)."""
    hidden: tuple[int, ...] = (80,)
    """Hidden layer sizes: 1 to 16 layers, each 1..4096 units, at most 2**26 weights."""
    activation: str = "sigmoid"
    """Hidden activation: sigmoid, relu or tanh."""
    race_hidden: tuple[int, ...] = ()
    """Hidden layer sizes of a second network for races (positions without contact, see
    engine.phase; the bear-off database values those with every checker home): empty for
    one network valuing every position. Not for plakoto or nuclear."""
    race_encoding: str = "classic"
    """Input encoding of the race network (when race_hidden is given)."""
    init: str = ""
    """A model file (model.pt or checkpoint.pt, relative paths from the working directory)
    whose weights start the networks instead of random ones (the race network too, from
    the file's race network; random if the file has none): same hidden sizes and
    activation, any variant; input units the two encodings share are copied, the others
    start at zero (e.g. the bomb units of a Nuclear net started from a standard one).
    Empty: random weights."""


@dataclass(frozen=True)
class TrainConfig:
    games: int = 80_000
    """Self-play games to play in this run (in total, counting a resumed run's games):
    1 .. 10**12 - 1; 0 only for a run whose second stage starts from ``model.init``."""
    parallel_games: int = 512
    """Games advanced in lock-step (G): one network call per ply scores all of them;
    1..100,000 (each holds a 1,024-ply history: about 51 KB)."""
    lam: float = 0.7
    """TD(lambda) trace decay for the lambda-returns: 0..1."""
    learning_rate: float = 0.001
    """Adam step size at the start: finite, above 0, at most 1."""
    lr_halving_games: int = 0
    """Halve the step size every this many games (0: keep it constant); 0 .. 10**12 - 1."""
    lr_min: float = 0.0
    """The step size never goes below this: finite, 0..1."""
    batch_size: int = 128
    """Positions per gradient step: 1..1,000,000."""
    update_every: int = 8192
    """Positions gathered from finished games before a round of gradient steps:
    1..1,000,000."""
    epochs: int = 1
    """Passes over each round's positions: 1..1,000."""
    epsilon: float = 0.0
    """Share of plays chosen at random during self-play (exploration): 0..1."""
    one_ply_share: float = 0.0
    """Share of the self-play positions whose training target is their 1-ply value
    instead of the lambda-return: the mean over the 21 rolls of the best play's value by
    the current networks (exact where a play ends the game or reaches a race the bear-off
    database settles). Each costs about 20 self-play positions; 0..1 (0: TD(lambda) only)."""
    variant: str = "standard"
    """Variant played: standard, nackgammon, hypergammon, longgammon, caucasian,
    suddendeath, nuclear or plakoto (Plakoto and Nuclear need their own encoding)."""
    seed: int = 1
    """Seed of everything random in the run: 0 .. 2**63 - 1."""
    device: str = "auto"
    """auto (CUDA when available), cpu or cuda."""
    threads: int = 1
    """CPU threads for torch, 1..256 (one is fastest for these small networks; more than
    the free cores is much slower)."""
    step: str = "fused"
    """The minibatch step (``train.step``): "fused" (FlatStep: the backward pass and Adam
    written out, several times quicker) or "autograd" (AutogradStep: autograd and
    torch.optim.Adam, the readable one); the same weights (tested bit for bit on the CPU)."""


@dataclass(frozen=True)
class EvalConfig:
    every_games: int = 20_000
    """Evaluate against pubeval after every this many self-play games (0: never);
    0 .. 10**12 - 1."""
    games: int = 1_000
    """Paired games per evaluation against pubeval: 1..1,000,000 (an odd number is played
    as the next even one)."""


@dataclass(frozen=True)
class RunConfig:
    out: str = "runs/default"
    """Run directory: checkpoints, TensorBoard logs, results (not empty)."""
    checkpoint_every_games: int = 20_000
    """Write a checkpoint after every this many games (and at the end); 0 .. 10**12 - 1
    (0: only at the end)."""


@dataclass(frozen=True)
class Stage2Config:
    """The second stage (``train.stage2``): after the TD games, ``generations`` rounds of
    "net k rolls out positions of its own games, net k + 1 learns the results"."""
    generations: int = 0
    """Rounds of rollouts then supervised learning after the TD stage: 0..100 (0: TD only)."""
    positions: int = 20_000
    """Positions rolled out per generation: 1 .. 10**9."""
    data: str = ""
    """Datasets (paths or globs, relative to the working directory, separated by commas)
    that stand for the first generation's: used as they are, nothing made for it. Empty:
    make it."""
    plies: int = 0
    """How a generation's positions are labelled: 0 by rollouts (``trials``, ``truncate``,
    ``vr``), 1 or 2 by the net's own look-ahead at that depth (``model.lookahead``)."""
    mine: bool = False
    """The positions come from disagreement mining (``train.mining``): the net at 0-ply
    plays, the net at ``plies`` (1 or 2) judges, the decisions where they part are kept."""
    threshold: float = 0.012
    """Mining: the equity by which the teacher's play must beat the student's: 0..2."""
    keep_deep: bool = False
    """Mining: also keep the result of every other play the teacher valued at ``plies`` in a
    decision with a real choice at that depth, each with its own value (not only both
    sides of a disagreement): several times the rows for the same judging."""
    ordinary: float = 0.05
    """Mining: the share of the other decisions whose result is kept too: 0..1."""
    crashed_share: float = 0.25
    """Mining: the share of games started from crashed positions: 0..1."""
    accept_games: int = 0
    """Paired 0-ply games of each new net against the net it would replace (0: every new
    net replaces the last). It replaces it when it beats it (the 95% interval above 0), or
    when it loses at least 5% less on the checker-play benchmark (``eval.gnubg.benchmark``,
    the committed decisions) without losing head to head (the interval reaching 0)."""
    trials: int = 36
    """Trials per position: 1..1,000,000."""
    truncate: int = 7
    """Plies per trial before the net values the position reached: 0..10,000, or -1 to
    play every trial to the end."""
    vr: bool = True
    """Lookahead variance reduction in the rollouts."""
    explore: float = 0.1
    """Share of the net's plays, in the games the positions come from, chosen at random
    among those within ``within`` of its best: 0..1."""
    within: float = 0.1
    """Equity of the exploring plays' window: 0..2."""
    opponent: str = "pubeval"
    """The other bot some of those games are played against (empty: none)."""
    opponent_share: float = 0.2
    """Share of those games against ``opponent``: 0..1."""
    alternatives: int = 0
    """Also roll out the results of each position's ``alternatives`` + 1 best plays (within
    ``within``): the positions the net chose against. 0..8 (0: only the positions reached)."""
    validation: float = 0.1
    """Share of positions held out for the validation loss: 0..0.5."""
    epochs: int = 100
    """Passes over the training rows at most: 1..100,000."""
    batch_size: int = 256
    """Rows per gradient step: 1..1,000,000."""
    learning_rate: float = 0.0003
    """Adam's step size: above 0, at most 1."""
    patience: int = 8
    """Early stopping: epochs without a better validation loss: 1..100,000."""
    crashed: bool = True
    """A network of its own for crashed positions (gnubg's class), started from the main one."""


@dataclass(frozen=True)
class Config:
    model: ModelConfig = field(default_factory=ModelConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    run: RunConfig = field(default_factory=RunConfig)
    stage2: Stage2Config = field(default_factory=Stage2Config)

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

MAX_CONFIG_BYTES = 2**20

RANGES: dict[str, tuple[float, float]] = {
    # valid values of every numeric key, both ends included (train.learning_rate: above 0)
    "train.games": (0, 10**12 - 1),
    "train.parallel_games": (1, 100_000),
    "train.lam": (0.0, 1.0),
    "train.learning_rate": (0.0, 1.0),
    "train.lr_halving_games": (0, 10**12 - 1),
    "train.lr_min": (0.0, 1.0),
    "train.batch_size": (1, 1_000_000),
    "train.update_every": (1, 1_000_000),
    "train.epochs": (1, 1000),
    "train.epsilon": (0.0, 1.0),
    "train.one_ply_share": (0.0, 1.0),
    "train.seed": (0, 2**63 - 1),
    "train.threads": (1, 256),
    "eval.every_games": (0, 10**12 - 1),
    "eval.games": (1, 1_000_000),
    "run.checkpoint_every_games": (0, 10**12 - 1),
    "stage2.generations": (0, 100),
    "stage2.positions": (1, 10**9),
    "stage2.trials": (1, 1_000_000),
    "stage2.truncate": (-1, 10_000),
    "stage2.explore": (0.0, 1.0),
    "stage2.within": (0.0, 2.0),
    "stage2.opponent_share": (0.0, 1.0),
    "stage2.alternatives": (0, 8),
    "stage2.plies": (0, 2),
    "stage2.threshold": (0.0, 2.0),
    "stage2.ordinary": (0.0, 1.0),
    "stage2.crashed_share": (0.0, 1.0),
    "stage2.accept_games": (0, 10**7),
    "stage2.validation": (0.0, 0.5),
    "stage2.epochs": (1, 100_000),
    "stage2.batch_size": (1, 1_000_000),
    "stage2.learning_rate": (0.0, 1.0),
    "stage2.patience": (1, 100_000),
}
_ABOVE_LOW = {"train.learning_rate", "stage2.learning_rate"}  # the low end itself is not valid


def _fmt(x) -> str:
    if isinstance(x, float):
        return f"{x:g}"
    if x == 2**63 - 1:
        return f"2**63-1 ({x})"
    if x >= 10**6 and x + 1 == 10 ** len(str(x)):
        return f"10**{len(str(x))}-1"
    return f"{x:,}"


def describe_range(key: str) -> str:
    """The valid values of a numeric key in words: "within 1..256", "above 0, at most 1"."""
    low, high = RANGES[key]
    if key in _ABOVE_LOW:
        return f"above {_fmt(low)} and at most {_fmt(high)}"
    return f"within {_fmt(low)}..{_fmt(high)}"


def check_range(key: str, value) -> None:
    """ConfigError naming ``key`` when ``value`` is outside its range (or not finite)."""
    low, high = RANGES[key]
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{key}: must be a finite number {describe_range(key)}, "
                          f"got {value}")
    if not (low < value if key in _ABOVE_LOW else low <= value) or value > high:
        raise ConfigError(f"{key}: must be {describe_range(key)}, got {_short(value)}")


def _short(value, limit: int = 80) -> str:
    """repr(value), cut to about ``limit`` characters: bad input is quoted, not echoed."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _cut(text, limit: int = 40) -> str:
    text = str(text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _check_type(key: str, value, kind):
    """The value converted to the field's type, or ConfigError naming the key."""
    origin = typing.get_origin(kind)
    if origin is tuple:
        if not isinstance(value, (list, tuple)) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in value):
            raise ConfigError(f"{key}: expected a list of whole numbers, got {_short(value)}")
        if not value and key == "model.race_hidden":
            return ()  # no race network
        if not value or min(value) < 1:
            raise ConfigError(f"{key}: expected positive sizes, got {_short(value)}")
        if len(value) > MAX_LAYERS or max(value) > MAX_WIDTH:
            raise ConfigError(f"{key}: expected 1 to {MAX_LAYERS} sizes, each 1..{MAX_WIDTH}, "
                              f"got {_short(value)}")
        return tuple(value)
    if kind is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{key}: expected true or false, got {_short(value)}")
        return value
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{key}: expected a number, got {_short(value)}")
        try:
            return float(value)
        except OverflowError:  # an int beyond float's range
            raise ConfigError(f"{key}: must be a finite number, got {_short(value)}") from None
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{key}: expected a whole number, got {_short(value)}")
        return value
    if kind is str:
        if not isinstance(value, str):
            raise ConfigError(f"{key}: expected text, got {_short(value)}")
        return value
    raise ConfigError(f"{key}: unsupported type {kind}")


def _section(cls, values: dict, prefix: str):
    fields = {f.name: f for f in dataclasses.fields(cls)}
    hints = typing.get_type_hints(cls)
    for key in values:
        if key not in fields:
            raise ConfigError(f"unknown key {prefix}.{_cut(key)}; "
                              f"valid: {', '.join(fields)}")
    checked = {k: _check_type(f"{prefix}.{k}", v, hints[k]) for k, v in values.items()}
    return _validate(prefix, cls(**checked))


_CHOICES = {
    "model.encoding": ("classic", "expert", "advanced", "plakoto", "nuclear"),
    "model.activation": _ACTIVATIONS,
    "train.variant": ("standard", "nackgammon", "hypergammon", "longgammon", "caucasian",
                      "suddendeath", "nuclear", "plakoto"),
    "train.device": ("auto", "cpu", "cuda"),
    "train.step": ("fused", "autograd"),
}


# a race network takes the encodings of the variants without state of their own
_CHOICES["model.race_encoding"] = tuple(e for e in _CHOICES["model.encoding"]
                                        if e not in ("plakoto", "nuclear"))


def _validate(prefix: str, section):
    for f in dataclasses.fields(section):
        key, value = f"{prefix}.{f.name}", getattr(section, f.name)
        if key in _CHOICES and value not in _CHOICES[key]:
            raise ConfigError(f"{key}: {_short(value)} is not one of "
                              f"{', '.join(_CHOICES[key])}")
        if key in RANGES:
            check_range(key, value)
    if prefix == "model":
        for key, encoding, hidden in (("hidden", section.encoding, section.hidden),
                                      ("race_hidden", section.race_encoding,
                                       section.race_hidden)):
            sizes = [_INPUTS[encoding], *hidden, 6]
            weights = sum((a + 1) * b for a, b in zip(sizes[:-1], sizes[1:]))
            if weights > MAX_PARAMETERS:
                raise ConfigError(f"model.{key}: {list(hidden)} makes {weights:,} "
                                  f"weights, more than {MAX_PARAMETERS:,}")
    if prefix == "stage2" and section.mine and section.plies == 0:
        raise ConfigError("stage2.mine: the teacher is the net looking ahead: set "
                          "stage2.plies to 1 or 2")
    if prefix == "run" and not section.out.strip():
        raise ConfigError("run.out: the run directory must not be empty")
    if prefix == "run" and "\0" in section.out:
        raise ConfigError("run.out: the run directory's name holds a NUL character")
    return section


def check_variant(config: Config) -> None:
    """ConfigError when the networks' encodings cannot describe the variant's positions
    (``model.encoding.check_encoding``), or a race network is asked of a variant whose
    races are not the standard ones (Plakoto's pins, Nuclear's bomb)."""
    from gammon.model.encoding import VARIANT_ENCODINGS, check_encoding
    variant, m = config.train.variant, config.model
    try:
        check_encoding(m.encoding, variant)
    except ValueError as e:
        raise ConfigError(f"model.encoding: {e}") from None
    if m.race_hidden:
        if variant in VARIANT_ENCODINGS:
            raise ConfigError(f"model.race_hidden: {variant} has no race network (its races "
                              "are not decided by the dice alone); leave it empty")
        try:
            check_encoding(m.race_encoding, variant)
        except ValueError as e:
            raise ConfigError(f"model.race_encoding: {e}") from None


def check_stages(config: Config) -> None:
    """ConfigError for a run with no TD games that has nothing else to do: ``train.games``
    0 needs a second stage (``stage2.generations``) and a net to start it (``model.init``)."""
    if config.train.games == 0 and not (config.stage2.generations and config.model.init):
        raise ConfigError("train.games: 0 only for a second stage from a given net "
                          "(stage2.generations > 0 and model.init); otherwise 1 or more")


def from_dict(data: dict) -> Config:
    """A Config from nested dicts (as TOML gives them); ConfigError names any bad key."""
    sections = {}
    for name, values in data.items():
        if name not in _SECTIONS:
            raise ConfigError(f"unknown section [{_cut(name)}]; "
                              f"valid: {', '.join(_SECTIONS)}")
        if not isinstance(values, dict):
            raise ConfigError(f"[{name}] must be a table of keys")
        sections[name] = _section(_SECTIONS[name], values, name)
    return Config(**sections)


def load(path: str | Path) -> Config:
    """Read a TOML preset: a regular file of at most 1 MB of UTF-8 text."""
    path = Path(path)
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise ConfigError(f"config file {path} not found") from None
    except (OSError, ValueError) as e:
        raise ConfigError(f"{path}: cannot read the config file "
                          f"({getattr(e, 'strerror', None) or e})") from None
    if stat.S_ISDIR(st.st_mode):
        raise ConfigError(f"{path}: a directory, not a TOML config file")
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"{path}: not a regular file (a device, pipe or socket), not a "
                          "TOML config file")
    if st.st_size > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: {st.st_size:,} bytes, too large for a TOML config file "
                          f"(at most {MAX_CONFIG_BYTES:,})")
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the config file ({e.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not a TOML config file (not UTF-8 text: byte {e.start} "
                          f"is {data[e.start:e.start + 1]!r})") from None
    if "\0" in text:
        raise ConfigError(f"{path}: not a TOML config file (binary content: a NUL byte at "
                          f"byte {data.index(0)})")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {str(e)[:120]}") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML: nested too deeply") from None
    try:
        return from_dict(data)
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from None
