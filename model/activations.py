"""The hidden layers' activations, one entry each: every form of the value network reads its
activation here (``model.net``, ``train.step``, the bot files' ``model.numpy_net``, and the
ONNX export, which traces ``model.net``).

An entry holds the NumPy function and the names of the torch ones (``torch.NAME``, in place
``torch.NAME_``, and ATen's backward kernel from the output), so that this module, which the
bot files' player imports, stays torch-free; ``in_torch`` looks them up. A new activation is
one entry of ``ACTIVATIONS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Callable

import numpy as np


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)), any shape, float32 in and out."""
    with np.errstate(over="ignore"):  # exp(-x) = inf for very negative x gives 0, as it should
        return 1 / (1 + np.exp(-x))


def _relu(x: np.ndarray) -> np.ndarray:
    """max(x, 0), any shape."""
    return np.maximum(x, 0)


@dataclass(frozen=True)
class Activation:
    """One activation: ``numpy`` (N, H) -> (N, H); ``torch``, the name of its torch function
    (and, with "_", its in-place one); ``backward``, the name of ATen's kernel giving the
    gradient at its input from (grad (N, H), its output (N, H), *``backward_args``)."""

    numpy: Callable[[np.ndarray], np.ndarray]
    torch: str
    backward: str
    backward_args: tuple = ()


ACTIVATIONS = {
    "sigmoid": Activation(_sigmoid, "sigmoid", "sigmoid_backward"),
    "relu": Activation(_relu, "relu", "threshold_backward", (0,)),
    "tanh": Activation(np.tanh, "tanh", "tanh_backward"),
}
NAMES = tuple(ACTIVATIONS)  # the activations a network may have, in order


@dataclass(frozen=True)
class TorchActivation:
    """An activation's torch functions: ``forward`` and ``in_place`` (N, H) -> (N, H), and
    ``backward(grad, out)`` -> the gradient (N, H) at its input."""

    forward: Callable
    in_place: Callable
    kernel: Callable
    args: tuple

    def backward(self, grad, out):
        """The gradient at the activation's input from ``grad`` at its output ``out``."""
        return self.kernel(grad, out, *self.args)


@cache
def in_torch(name: str) -> TorchActivation:
    """The torch functions of activation ``name`` (imports torch)."""
    import torch
    entry = ACTIVATIONS[name]
    return TorchActivation(getattr(torch, entry.torch), getattr(torch, entry.torch + "_"),
                           getattr(torch.ops.aten, entry.backward), entry.backward_args)
