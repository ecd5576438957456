"""Write a checkpoint's networks as one ONNX model (``model.onnx_net`` describes the file).

The torch side of ONNX bot files: every network (the main one, and those of other phases)
becomes one input and one output of a single graph, traced from ``ValueNet.forward`` (the
one definition: any hidden layers, its activation) by torch's TorchScript-based exporter
(``dynamo=False``: it needs the ``onnx`` package alone, no onnxscript), then the metadata
(``ValueNet.description``) is written into the model's ``metadata_props`` and the file is
written atomically.
Needs the ``onnx`` package (``pip install 'gammon[onnx]'``).
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import torch
from torch import nn

from gammon.engine.files import write_atomic

from .numpy_net import MAIN
from .onnx_net import INSTALL, OnnxUnavailable, metadata_props
from .net import ValueNet

OPSET = 17


class _Networks(nn.Module):
    """The networks side by side: one encoded batch each in, six probabilities each out."""

    def __init__(self, nets: dict[str, ValueNet]):
        super().__init__()
        self.names = list(nets)
        self.nets = nn.ModuleList(nets.values())

    def forward(self, *inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return tuple(net.probabilities(x) for net, x in zip(self.nets, inputs))


def onnx_module():
    """The onnx package; OnnxUnavailable saying what to install when it (or onnxruntime,
    which checks the file written) is missing."""
    try:
        import onnx
        import onnxruntime  # noqa: F401  (the written file is loaded back with it)
    except ImportError:
        raise OnnxUnavailable(f"gammon export --format onnx needs onnx and onnxruntime: "
                              f"{INSTALL}") from None
    return onnx


def onnx_bytes(net: ValueNet, encoding: str, variant: str, source: str = "",
               phases: dict[str, tuple[ValueNet, str]] | None = None) -> bytes:
    """The serialised ONNX model of ``net`` and the networks of other ``phases``
    (name -> (network, encoding)), with its metadata."""
    onnx = onnx_module()
    nets = {MAIN: (net, encoding), **(phases or {})}
    names = list(nets)
    module = _Networks({name: n for name, (n, _) in nets.items()}).eval()
    examples = tuple(torch.zeros(2, n.inputs) for n, _ in nets.values())
    inputs = [f"{name}_inputs" for name in names]
    outputs = [f"{name}_probabilities" for name in names]
    axes = {f"{name}_{kind}": {0: f"{name}_rows"} for name in names
            for kind in ("inputs", "probabilities")}
    buffer = io.BytesIO()
    with warnings.catch_warnings():  # the TorchScript exporter is deprecated, still served
        warnings.simplefilter("ignore")
        torch.onnx.export(module, examples, buffer, input_names=inputs, output_names=outputs,
                          dynamic_axes=axes, opset_version=OPSET, dynamo=False)
    model = onnx.load_from_string(buffer.getvalue())
    props = metadata_props({name: {"encoding": enc, **n.description()}
                            for name, (n, enc) in nets.items()}, variant, source)
    del model.metadata_props[:]
    for key, value in props.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    model.producer_name = "gammon"
    model.doc_string = (f"gammon value networks ({', '.join(names)}) for {variant}: "
                        "encoded boards in, six outcome probabilities out; see "
                        "metadata_props")
    onnx.checker.check_model(model)
    return model.SerializeToString()


def export_onnx(net: ValueNet, encoding: str, variant: str, out: str | Path,
                source: str = "", phases: dict[str, tuple[ValueNet, str]] | None = None
                ) -> int:
    """Write ``net`` (and the networks of other ``phases``) as an ONNX bot file,
    atomically (``engine.files.write_atomic``); returns its size in bytes."""
    data = onnx_bytes(net, encoding, variant, source, phases)
    return write_atomic(Path(out), data, mode=0o644, parents=True)


__all__ = ["OPSET", "export_onnx", "onnx_bytes", "onnx_module"]
