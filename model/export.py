"""Export a checkpoint as a standalone bot file that plays with NumPy alone.

The torch side of ``model.botfile``: read a checkpoint (a training ``checkpoint.pt`` or a
``model.pt``), take the network's weights as float32 arrays, write them with the metadata,
then load the file back with ``model.numpy_net`` and compare it with the torch network on
sample positions, so an export that would play differently is never left behind unnoticed.
With ``format="onnx"`` the networks go into one ONNX model instead (``model.onnx_export``),
loaded back and compared through onnxruntime (``model.onnx_net``) the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gammon.engine.rules import start_boards
from gammon.engine.movegen import legal_plays
from gammon.engine.sample import from_random_play

from . import botfile
from .checkpoint import CheckpointError, build_net, build_phases, load
from .net import ValueNet
from .numpy_net import load_bot_file
from .onnx_net import is_onnx_file
from .policy import NetEvaluator


@dataclass
class ExportReport:
    """What an export wrote and how closely the bot file reproduces the torch network."""

    path: Path
    bytes: int
    meta: dict
    positions: int  # afterstates compared
    max_abs_diff: float  # largest |probability difference| over those afterstates

    def to_dict(self) -> dict:
        return {"path": str(self.path), "bytes": self.bytes, "meta": self.meta,
                "positions_checked": self.positions, "max_abs_diff": self.max_abs_diff}


def net_arrays(net: ValueNet) -> dict[str, np.ndarray]:
    """The network's weights as bot-file arrays: layer0.weight, ..., out.bias (float32)."""
    arrays = {}
    for name, layer in zip(botfile.layer_names(net.hidden), list(net.layers) + [net.out]):
        arrays[f"{name}.weight"] = layer.weight.detach().cpu().numpy().astype(np.float32)
        arrays[f"{name}.bias"] = layer.bias.detach().cpu().numpy().astype(np.float32)
    return arrays


def export_net(net: ValueNet, encoding: str, variant: str, out: str | Path,
               source: str = "", phases: dict[str, tuple[ValueNet, str]] | None = None) -> int:
    """Write ``net`` (and the networks of other ``phases``: name -> (network, encoding)) as
    a bot file; returns its size in bytes."""
    meta = {"encoding": encoding, **net.description(), "variant": variant, "source": source}
    arrays = net_arrays(net)
    if phases:
        meta["phases"] = {name: {"encoding": enc, **n.description()}
                          for name, (n, enc) in phases.items()}
        for name, (n, _) in phases.items():
            arrays.update({f"{name}.{k}": a for k, a in net_arrays(n).items()})
    return botfile.write(out, meta, arrays)


FORMATS = ("npz", "onnx")  # bot file formats: NumPy's archive, an ONNX model


def export_checkpoint(checkpoint: str | Path, out: str | Path, check_games: int = 8,
                      seed: int = 0, format: str = "npz") -> ExportReport:
    """Export a checkpoint file to ``out`` and check the bot file against the torch net.

    ``format``: "npz" (``model.botfile``, played with NumPy alone) or "onnx"
    (``model.onnx_net``, played through onnxruntime). The check plays ``check_games``
    random games, takes every afterstate of their positions and compares the six
    probabilities. CheckpointError / BotFileError say what is wrong (``onnx_net``'s
    OnnxUnavailable, a BotFileError, when the ONNX packages are missing).
    """
    if format not in FORMATS:
        raise ValueError(f"unknown bot file format {format!r}; valid: {', '.join(FORMATS)}")
    if botfile.is_bot_file(checkpoint) or is_onnx_file(checkpoint):
        raise CheckpointError(f"{checkpoint}: already a bot file (exported); it plays as "
                              f"net:{checkpoint}, nothing to export")
    if format == "onnx":
        from .onnx_export import onnx_module
        onnx_module()  # the packages first: nothing read or written without them
    payload = load(checkpoint)
    out_path = Path(out)
    if out_path.is_dir():
        raise botfile.BotFileError(f"{out}: a directory; give the bot file to write")
    if format == "onnx" and not is_onnx_file(out):
        raise botfile.BotFileError(f"{out}: an ONNX bot file's name ends in .onnx (net:PATH "
                                   "tells one by it); give OUT.onnx")
    if out_path.exists() and out_path.resolve() == Path(checkpoint).resolve():
        raise botfile.BotFileError(f"{out}: the checkpoint being exported; writing the bot "
                                   "file there would replace it")
    net, phases = build_net(payload, checkpoint), build_phases(payload, checkpoint)
    spec = payload["model"]
    if format == "onnx":
        from .onnx_export import export_onnx
        from .onnx_net import load_onnx_bot
        size = export_onnx(net, spec["encoding"], spec["variant"], out,
                           Path(checkpoint).name, phases)
        bot = load_onnx_bot(out)
    else:
        size = export_net(net, spec["encoding"], spec["variant"], out,
                          Path(checkpoint).name, phases)
        bot = load_bot_file(out)
    boards = sample_afterstates(check_games, seed, spec["variant"])
    torch_probs = NetEvaluator(net, spec["encoding"], spec["variant"], phases=phases)(boards)
    numpy_probs = bot.evaluator(boards)
    diff = float(np.abs(torch_probs - numpy_probs).max()) if len(boards) else 0.0
    return ExportReport(Path(out), size, bot.evaluator.net.meta, len(boards), diff)


def sample_afterstates(games: int, seed: int, variant: str = "standard") -> np.ndarray:
    """Every afterstate of the positions of a few random games, plus the start: (K, 26)."""
    rng = np.random.default_rng(seed)
    boards, dice = start_boards(1, variant), np.array([[3, 1]], dtype=np.int8)
    if games > 0:  # no games (--check-games 0): the start's afterstates alone
        more, more_dice = from_random_play(rng, games, variant)
        boards = np.concatenate([boards, more])
        dice = np.concatenate([dice, more_dice]).astype(np.int8)
    return legal_plays(boards, dice, variant).boards


__all__ = ["FORMATS", "ExportReport", "net_arrays", "export_net", "export_checkpoint",
           "sample_afterstates"]
