"""Bad files and values, each refused with its name and the reason: checkpoints, bot files,
the training state inside a run checkpoint, training configs and run directories.

Every bad file is built in tmp_path. Through the command line, each is one line on stderr
and exit code 2, never a traceback, and nothing is written.
"""

import json
import os
import subprocess
import sys
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from gammon.cli import main
from gammon.model import botfile
from gammon.model import checkpoint as ckpt
from gammon.model.encoding import width
from gammon.model.export import export_net
from gammon.model.net import ValueNet
from gammon.model.numpy_net import NumpyNet, load_bot_file
from gammon.model.player import load_net_bot
from gammon.train.config import _ABOVE_LOW, RANGES, Config, ConfigError, from_dict, load
from gammon.train.run_state import resume_payload
from gammon.train.trainer import Trainer

ROOT = Path(__file__).resolve().parent.parent
GAMMON = [sys.executable, "-m", "gammon.cli"]


def refused(capsys, *argv) -> str:
    """Run ``gammon ARGV`` in this process; assert a one-line error, exit code 2."""
    code = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert len(lines[0]) < 400, lines[0]  # bad input is quoted short, never echoed whole
    return lines[0]


def _model_payload(hidden=(8,)):
    return ckpt.model_payload(ValueNet(width("classic"), hidden), "classic", "standard")


def _save_raw(path, payload):
    """torch.save a dict with the checkpoint header, bypassing every check."""
    torch.save({"format": ckpt.FORMAT, "version": ckpt.VERSION, **payload}, path)
    return path


# --- checkpoints -------------------------------------------------------------------------

@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_checkpoint_weights_are_refused(tmp_path, capsys, value):
    payload = _model_payload()
    payload["state_dict"]["layers.0.weight"][3, 5] = value
    path = tmp_path / "nan.pt"
    ckpt.save(path, payload)
    with pytest.raises(ckpt.CheckpointError, match=f"{path}: layers.0.weight holds NaN"):
        ckpt.load(path)
    line = refused(capsys, "match", f"net:{path}", "pubeval", "--games", "2")
    assert str(path) in line and "NaN or infinite" in line


@pytest.mark.parametrize("model, message", [
    ("classic", "its model entry is str"),
    ([198, 8], "its model entry is list"),
    (None, "its model entry is NoneType"),
    ({"encoding": "classic", "hidden": [8], "activation": "sigmoid"}, "has no 'variant'"),
    ({"encoding": ["classic"], "hidden": [8], "activation": "sigmoid",
      "variant": "standard"}, "unknown encoding"),
    ({"encoding": "classic", "hidden": "8", "activation": "sigmoid",
      "variant": "standard"}, "hidden must be a list"),
    ({"encoding": "classic", "hidden": [True], "activation": "sigmoid",
      "variant": "standard"}, "hidden must be a list"),
    ({"encoding": "classic", "hidden": [100_000_000], "activation": "sigmoid",
      "variant": "standard"}, "each 1 to 4096"),
    ({"encoding": "classic", "hidden": [8] * 17, "activation": "sigmoid",
      "variant": "standard"}, "1 to 16 widths"),
    ({"encoding": "classic", "hidden": [4096] * 5, "activation": "sigmoid",
      "variant": "standard"}, "weights, more than"),
    ({"encoding": "classic", "hidden": [8], "activation": 3, "variant": "standard"},
     "unknown activation"),
    ({"encoding": "classic", "hidden": [8], "activation": "sigmoid", "variant": {}},
     "unknown variant"),
])
def test_a_model_entry_of_the_wrong_type_is_refused(tmp_path, capsys, model, message):
    payload = _model_payload()
    payload["model"] = model
    path = _save_raw(tmp_path / "bad.pt", payload)
    with pytest.raises(ckpt.CheckpointError, match=message) as e:
        ckpt.load(path)
    assert str(e.value).startswith(f"{path}: ")
    assert str(path) in refused(capsys, "hint", "--bot", f"net:{path}", "4HPwATDgc/ABMA",
                                "3", "1")


@pytest.mark.parametrize("change, message", [
    (lambda sd: "weights", "its state_dict is str"),
    (lambda sd: {**sd, "layers.0.weight": [[0.0] * 198] * 8}, "is a list, not a tensor"),
    (lambda sd: {k: v for k, v in sd.items() if k != "out.bias"}, "out.bias is missing"),
    (lambda sd: {**sd, "out.bias": torch.zeros(7)}, r"out.bias has shape \(7,\)"),
    (lambda sd: {**sd, "out.bias": torch.zeros(6, dtype=torch.int64)}, "not floating point"),
    (lambda sd: {**sd, "layers.1.weight": torch.zeros(3, 3)}, "unexpected layers.1.weight"),
])
def test_state_dicts_that_do_not_fit_are_refused(tmp_path, change, message):
    payload = _model_payload()
    payload["state_dict"] = change(dict(payload["state_dict"]))
    path = _save_raw(tmp_path / "bad.pt", payload)
    with pytest.raises(ckpt.CheckpointError, match=f"{path}: .*{message}"):
        ckpt.load(path)


def _special_files(tmp_path):
    fifo = tmp_path / "fifo.pt"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.pt"
    with open(huge, "wb") as f:  # sparse: nothing is written to disk
        f.truncate(botfile.MAX_FILE_BYTES + 1)
    huge_bot = tmp_path / "huge.npz"
    os.link(huge, huge_bot)
    files = [(fifo, "not a regular file"), (tmp_path, "a directory"),
             (huge, "larger than a checkpoint file can be"),
             (huge_bot, "larger than a checkpoint file can be")]
    if Path("/dev/zero").exists():
        files.append((Path("/dev/zero"), "not a regular file"))
    return files


def test_devices_pipes_directories_and_huge_files_are_never_read(tmp_path, capsys):
    for path, message in _special_files(tmp_path):
        with pytest.raises(ckpt.CheckpointError, match=message):
            load_net_bot(str(path))
        with pytest.raises(ckpt.CheckpointError, match=message):
            ckpt.load(path)
        with pytest.raises(botfile.BotFileError,
                           match=message.replace("checkpoint file", "bot file")):
            botfile.read(path)
        assert not botfile.is_bot_file(path)
        assert str(path) in refused(capsys, "export", path, tmp_path / "out.npz")
    assert not (tmp_path / "out.npz").exists()


def test_net_dev_zero_is_refused_at_once_in_a_subprocess():
    """It used to read /dev/zero until memory ran out; a subprocess keeps a regression
    from taking this test process with it."""
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero here")
    run = subprocess.run(GAMMON + ["match", "net:/dev/zero", "pubeval", "--games", "2"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "/dev/zero: not a regular file" in run.stderr


# --- bot files ----------------------------------------------------------------------------

def _bot_arrays(hidden=(8,)):
    torch.manual_seed(0)
    from gammon.model.export import net_arrays
    return net_arrays(ValueNet(width("classic"), hidden))


def _meta(**changes):
    meta = {"format": "gammon-bot", "version": 1, "encoding": "classic", "inputs": 198,
            "hidden": [8], "activation": "sigmoid", "variant": "standard",
            "outputs": list(botfile.OUTPUTS), "source": "test"}
    meta.update(changes)
    return meta


def _write_bot(path, meta, arrays, compressed=True):
    """A bot file written with numpy alone, bypassing the writer's checks; ``meta`` may be
    a dict (JSON) or the raw bytes of the entry."""
    raw = meta if isinstance(meta, (bytes, np.ndarray)) else json.dumps(meta).encode()
    entry = raw if isinstance(raw, np.ndarray) else np.frombuffer(raw, np.uint8)
    (np.savez_compressed if compressed else np.savez)(path, meta=entry, **arrays)
    return path


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_non_finite_bot_file_weights_are_refused(tmp_path, capsys, value):
    arrays = _bot_arrays()
    arrays["out.weight"][2, 1] = value
    path = _write_bot(tmp_path / "nan.npz", _meta(), arrays)
    with pytest.raises(botfile.BotFileError, match=f"{path}: out.weight holds NaN"):
        botfile.read(path)
    line = refused(capsys, "match", f"net:{path}", "pubeval", "--games", "2")
    assert str(path) in line and "NaN or infinite" in line


@pytest.mark.parametrize("raw, message", [
    (b"\xff\xfe{\"format\": \"gammon-bot\"}", "not UTF-8 text"),
    (b"\x80abc", "not UTF-8 text"),
    (b"{\"format\": ", "not JSON"),
    (b"", "not JSON"),
    (b"[" * 200_000 + b"]" * 200_000, "nested too deeply"),
    (b"{\"a\": " * 100_000 + b"1" + b"}" * 100_000, "nested too deeply"),
    (b"[1, 2, 3]", "a JSON list, not an object"),
    (b"\"gammon-bot\"", "a JSON str, not an object"),
    (b"null", "a JSON NoneType, not an object"),
    (np.zeros(4, np.float64), "not UTF-8 JSON bytes"),
    (np.zeros((2, 2), np.uint8), "not UTF-8 JSON bytes"),
])
def test_bot_file_metadata_that_is_not_a_json_object_is_refused(tmp_path, capsys, raw,
                                                                  message):
    path = _write_bot(tmp_path / "meta.npz", raw, _bot_arrays())
    with pytest.raises(botfile.BotFileError, match=message) as e:
        botfile.read(path)
    assert str(e.value).startswith(f"{path}: ") and len(str(e.value)) < 300
    assert str(path) in refused(capsys, "match", f"net:{path}", "pubeval", "--games", "2")


@pytest.mark.parametrize("changes, message", [
    ({"hidden": [True]}, "hidden must be a list"),
    ({"hidden": "8"}, "hidden must be a list"),
    ({"hidden": []}, "hidden must be a list"),
    ({"hidden": [8.0]}, "hidden must be a list"),
    ({"encoding": ["classic"]}, "unknown encoding"),
    ({"activation": None}, "unknown activation"),
    ({"variant": 15}, "unknown variant"),
    ({"variant": "x" * 10_000}, "unknown variant"),
    ({"inputs": 222}, "does not match the classic encoding"),
    ({"outputs": ["win", "lose"]}, "are not the six outcomes"),
    ({"version": [1]}, r"version \[1\]"),
])
def test_bot_file_metadata_of_the_wrong_type_is_refused(tmp_path, changes, message):
    path = _write_bot(tmp_path / "bad.npz", _meta(**changes), _bot_arrays())
    with pytest.raises(botfile.BotFileError, match=message) as e:
        botfile.read(path)
    assert str(e.value).startswith(f"{path}: ") and len(str(e.value)) < 300


def test_a_small_file_declaring_a_huge_network_is_refused_before_expanding(tmp_path,
                                                                           capsys):
    """17 KB on disk, 20,000 hidden units: its arrays (and the NumPy player's pair table of
    12 * 31 * 31 rows per unit) would take gigabytes. Refused before any array is read."""
    hidden = 20_000
    arrays = {"layer0.weight": np.zeros((hidden, 198), np.float32),
              "layer0.bias": np.zeros(hidden, np.float32),
              "out.weight": np.zeros((6, hidden), np.float32),
              "out.bias": np.zeros(6, np.float32)}
    path = _write_bot(tmp_path / "bomb.npz", _meta(hidden=[hidden]), arrays)
    del arrays
    assert path.stat().st_size < 100_000
    tracemalloc.start()
    try:
        with pytest.raises(botfile.BotFileError, match="each 1 to 4096, got \\[20000\\]"):
            load_bot_file(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000
    assert str(path) in refused(capsys, "match", f"net:{path}", "pubeval", "--games", "2")


@pytest.mark.parametrize("name, shape", [
    ("layer0.weight", (8, 100_000)),  # 3 MB of zeros, a few KB compressed
    ("layer0.weight", (100_000, 198)),
    ("out.bias", (6_000_000,)),
    ("layer0.bias", (8, 1)),
])
def test_array_shapes_are_checked_from_their_headers_before_reading(tmp_path, monkeypatch,
                                                                    name, shape):
    arrays = _bot_arrays()
    arrays[name] = np.zeros(shape, np.float32)
    path = _write_bot(tmp_path / "shape.npz", _meta(), arrays)
    read = []
    original = botfile._npy_data
    monkeypatch.setattr(botfile, "_npy_data",
                        lambda z, info: read.append(info.filename) or original(z, info))
    with pytest.raises(botfile.BotFileError, match=f"{name} has shape"):
        botfile.read(path)
    assert read == ["meta.npy"]  # no weight array was expanded


@pytest.mark.parametrize("arrays, message", [
    (lambda a: {**a, "extra": np.zeros(3, np.float32)}, "unexpected arrays extra"),
    (lambda a: {k: v for k, v in a.items() if k != "layer0.bias"}, "no 'layer0.bias' array"),
    (lambda a: {**a, "out.bias": np.zeros(6, np.int32)}, "not floating point"),
    (lambda a: {**a, "out.bias": np.array(["a"] * 6)}, "not floating point"),
])
def test_missing_extra_and_non_float_arrays_are_refused(tmp_path, arrays, message):
    path = _write_bot(tmp_path / "arrays.npz", _meta(), arrays(_bot_arrays()))
    with pytest.raises(botfile.BotFileError, match=message):
        botfile.read(path)


def test_foreign_entries_and_direct_construction_are_refused(tmp_path):
    good = tmp_path / "good.npz"
    export_net(ValueNet(198, (8,)), "classic", "standard", good)
    foreign = tmp_path / "foreign.npz"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(foreign, "w") as dst:
        for name in src.namelist():
            dst.writestr(name, src.read(name))
        dst.writestr("run.sh", "echo hello")
    with pytest.raises(botfile.BotFileError, match="entry 'run.sh' is not an .npy array"):
        botfile.read(foreign)
    meta, arrays = botfile.read(good)
    arrays["layer0.weight"] = np.zeros((9, 198), np.float32)
    with pytest.raises(botfile.BotFileError, match="layer0.weight has shape"):
        NumpyNet(meta, arrays)
    with pytest.raises(botfile.BotFileError, match="each 1 to 4096"):
        NumpyNet({**meta, "hidden": [5000]}, arrays)


# --- damaged training state in a run checkpoint (gammon train --resume) -------------------

@pytest.fixture(scope="module")
def run_checkpoint(tmp_path_factory):
    """The payload of a real run checkpoint after 40 games (tiny net)."""
    out = tmp_path_factory.mktemp("run")
    config = Config().with_overrides(
        model={"hidden": (8,)},
        train={"games": 40, "parallel_games": 16, "update_every": 256, "batch_size": 64,
               "threads": 1, "seed": 3},
        eval={"every_games": 0}, run={"checkpoint_every_games": 0})
    Trainer(config, out, log=lambda *_: None).run()
    return torch.load(out / "checkpoint.pt", weights_only=True)


def _damaged(payload, part, value):
    payload = {k: (dict(v) if isinstance(v, dict) else v) for k, v in payload.items()}
    keys = part.split(".")
    target = payload
    for key in keys[:-1]:
        target = target[key]
    if callable(value):
        value = value(target[keys[-1]])
    target[keys[-1]] = value
    return payload


def _counters(**changes):
    return lambda text: json.dumps({**json.loads(text), **changes})


def _optimizer_moment(optimizer):
    state = {k: dict(v) for k, v in optimizer["state"].items()}
    state[0]["exp_avg"] = torch.zeros(3, 3)
    return {**optimizer, "state": state}


DAMAGE = [  # (the part replaced, its new value or a function of the old one, the reason)
    ("selfplay", {}, "selfplay lacks boards, seat"),
    ("selfplay", "games", "selfplay is a str"),
    ("selfplay.boards", lambda b: b[:3], "selfplay .*boards has shape"),
    ("selfplay.boards", lambda b: b.float(), "selfplay.boards is torch.float32"),
    ("selfplay.boards", lambda b: b * 0 + 100, "values no position has"),
    ("selfplay.hist_states", lambda h: h[:, :, :20], "hist_states has shape"),
    ("selfplay.hist_values", lambda h: h * float("nan"), "hist_values holds NaN"),
    ("selfplay.now", "12", "selfplay.now is '12', not a count"),
    ("selfplay.now", -1, "selfplay.now is -1"),
    ("selfplay.start", lambda s: s + 10**9, "selfplay.start holds plies outside"),
    ("selfplay.rng", 5, "selfplay.rng is a int"),
    ("selfplay.rng", "{}", "damaged training state: selfplay"),
    ("selfplay.fresh", [True] * 16, "selfplay.fresh is a list"),
    ("counters", _counters(bogus=1), "counters has unknown keys \\['bogus'\\]"),
    ("counters", lambda t: json.dumps({k: v for k, v in json.loads(t).items()
                                       if k != "games"}), "counters lacks games"),
    ("counters", _counters(games="many"), "counters.games is 'many'"),
    ("counters", _counters(games=-5), "counters.games is -5"),
    ("counters", _counters(seconds=float("nan")), "counters.seconds"),
    ("counters", _counters(history=[{"games_trained": 1}]), "counters.history\\[0\\]"),
    ("counters", _counters(history="none"), "counters.history is"),
    ("counters", "{not json", "counters is not JSON"),
    ("counters", "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ("counters", {"games": 1}, "counters is a dict, not JSON text"),
    ("counters", "[1, 2]", "counters is a JSON list"),
    ("rng", "{}", "rng is not a generator state"),
    ("rng", json.dumps({"bit_generator": "MT19937", "state": {}}),
     "rng is not a generator state"),
    ("rng", 42, "rng is a int"),
    ("optimizer", "adam", "optimizer is not an optimizer's state"),
    ("optimizer", {"state": {}, "param_groups": []}, "damaged training state: optimizer"),
    ("optimizer", _optimizer_moment, "exp_avg does not match its parameter's shape"),
    ("optimizer.param_groups", lambda g: [{**g[0], "betas": "x"}],
     "optimizer \\(betas are 'x'\\)"),
    ("optimizer.param_groups", lambda g: [{**g[0], "eps": float("nan")}], "eps is nan"),
    ("pending_states", lambda s: s[:, :20], "pending_states is torch.int8 of shape"),
    ("pending_targets", lambda t: torch.zeros(len(t) + 3, 6), "differ in length"),
    ("pending_targets", "none", "pending_targets is a str"),
    ("config", "classic", "its config is a str"),
    ("config", lambda c: {**c, "train": {**c["train"], "threads": 1_000_000}},
     "its config: train.threads: must be within 1..256"),
    ("config", lambda c: {**c, "model": {**c["model"], "hidden": [9]}},
     "its network is .*, its config asks for"),
    ("config", lambda c: {**c, "extra": {}}, "unknown section \\[extra\\]"),
]


@pytest.mark.parametrize("part, value, message", DAMAGE, ids=[d[0] for d in DAMAGE])
def test_damaged_training_state_is_refused_with_the_file_and_the_part(
        tmp_path, capsys, run_checkpoint, part, value, message):
    path = tmp_path / "run" / "checkpoint.pt"
    path.parent.mkdir()
    payload = _damaged(run_checkpoint, part, value)
    torch.save(payload, path)
    line = refused(capsys, "train", "--resume", path, "--no-progress")
    assert f"{path}: damaged training state: " in line
    import re
    assert re.search(message, line), line
    assert sorted(p.name for p in path.parent.iterdir()) == ["checkpoint.pt"]  # no writes


def test_an_intact_checkpoint_of_the_fixture_resumes(tmp_path, run_checkpoint):
    path = tmp_path / "checkpoint.pt"
    torch.save(run_checkpoint, path)
    config, payload = resume_payload(path)
    trainer = Trainer(config.with_overrides(train={"games": 60}), tmp_path, resume=payload,
                      log=lambda *_: None)
    assert trainer.run().games >= 60


def test_the_cli_error_has_no_traceback_in_a_subprocess(tmp_path, run_checkpoint):
    path = tmp_path / "checkpoint.pt"
    torch.save(_damaged(run_checkpoint, "selfplay", {}), path)
    run = subprocess.run(GAMMON + ["train", "--resume", str(path), "--no-progress"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.strip() == (f"gammon train: error: {path}: damaged training state: "
                                  "selfplay lacks boards, seat, fresh, start, hist_states, "
                                  "hist_values, now, rng")


# --- training configs and paths ----------------------------------------------------------

def _toml(tmp_path, text: str | bytes, name="config.toml") -> Path:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


@pytest.mark.parametrize("content, message", [
    (b"[train]\ngames = 100\n# caf\xe9\n", "not UTF-8 text: byte 25"),
    (b"\xff\xfe[\x00t\x00r\x00", "not UTF-8 text: byte 0"),
    (b"\x00\x01\x02\x03binary", "binary content"),
    (b"[train\ngames = 1\n", "not valid TOML"),
    (b"a = " + b"[" * 100_000, "not valid TOML"),
    (b"[train]\nlearning_rate = inf\n", "train.learning_rate: must be a finite number"),
    (b"[train]\nlr_min = nan\n", "train.lr_min: must be a finite number"),
    (b"[model]\nhidden = [100000000]\n", "model.hidden"),
    (b"[train]\nparallel_games = 100000000\n", "train.parallel_games: must be within"),
    (b"[train]\nthreads = 1000000\n", "train.threads: must be within 1..256"),
    (b"[train]\ngames = \"" + b"x" * 5000 + b"\"\n", "train.games: expected a whole number"),
])
def test_bad_config_files_are_refused_naming_the_file_and_key(tmp_path, capsys, content,
                                                             message):
    path = _toml(tmp_path, content)
    with pytest.raises(ConfigError, match=message) as e:
        load(path)
    assert str(e.value).startswith(f"{path}: ") and len(str(e.value)) < 300
    out = tmp_path / "run"
    line = refused(capsys, "train", "--config", path, "--out", out, "--no-progress")
    assert str(path) in line and message.split(":")[0] in line
    assert not out.exists()


def test_a_config_that_is_not_a_file_is_refused(tmp_path, capsys):
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    cases = [(tmp_path, "a directory, not a TOML config file"),
             (fifo, "not a regular file"), (tmp_path / "missing.toml", "not found")]
    if Path("/dev/zero").exists():
        cases.append((Path("/dev/zero"), "not a regular file"))
    big = _toml(tmp_path, b"# " + b"x" * 2_000_000 + b"\n", "big.toml")
    cases.append((big, "too large for a TOML config file"))
    for path, message in cases:
        with pytest.raises(ConfigError, match=message):
            load(path)
        assert message in refused(capsys, "train", "--config", path, "--out",
                                  tmp_path / "run")
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("key", sorted(RANGES))
def test_every_numeric_key_has_a_range_named_in_the_message(key):
    section, name = key.split(".")
    low, high = RANGES[key]
    step = 1 if isinstance(low, int) else 1e-9
    below = low if key in _ABOVE_LOW else low - step
    for value in (below, high + step * (1 if isinstance(high, int) else 1e3)):
        with pytest.raises(ConfigError, match=f"^{key}: must be") as e:
            from_dict({section: {name: value}})
        assert "within" in str(e.value) or "above" in str(e.value)
    for value in (low if key not in _ABOVE_LOW else high, high):
        from_dict({section: {name: value}})  # both ends are valid
    if isinstance(low, float):
        for value in (float("nan"), float("inf"), float("-inf")):
            with pytest.raises(ConfigError, match=f"^{key}: must be a finite number"):
                from_dict({section: {name: value}})


@pytest.mark.parametrize("argv, message", [
    (["--seed", "-1"], "--seed must be within 0..2**63-1"),
    (["--seed", str(2**63)], "--seed must be within 0..2**63-1"),
    (["--games", "0"], "train.games: 0 only for a second stage from a given net"),
    (["--games", "-1"], "--games must be within 0..10**12-1"),
    (["--games", str(10**12)], "--games must be within"),
])
def test_seed_and_games_flags_have_ranges(tmp_path, capsys, argv, message):
    line = refused(capsys, "train", *argv, "--out", tmp_path / "run", "--no-progress")
    assert message in line
    assert not (tmp_path / "run").exists()


def test_out_that_cannot_be_a_run_directory_is_refused(tmp_path, capsys):
    config = _toml(tmp_path, "[model]\nhidden = [8]\n[train]\ngames = 10\n")
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine")
    line = refused(capsys, "train", "--config", config, "--out", a_file)
    assert f"{a_file}: exists and is not a directory" in line
    line = refused(capsys, "train", "--config", config, "--out", a_file / "sub" / "run")
    assert "cannot create the run directory" in line and str(a_file) in line
    assert a_file.read_text() == "mine"
    if Path("/proc/self").is_dir():  # not writable, not even by root
        line = refused(capsys, "train", "--config", config, "--out", "/proc/gammon-run")
        assert "/proc/gammon-run" in line
    line = refused(capsys, "train", "--config", config, "--out", "")
    assert "run.out" in line
