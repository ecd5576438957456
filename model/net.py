"""The value network: an MLP from encoded positions to six exclusive outcome probabilities.

The six outcomes, from the player on roll: win by backgammon, by gammon, single win,
single loss, loss by gammon, loss by backgammon (``engine.outcomes``). A softmax over them
keeps gnubg's five outputs consistent by construction.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn
from torch.optim.optimizer import register_optimizer_step_post_hook

from gammon.engine import outcomes
from gammon.engine.board import positive
from gammon.engine.outcomes import OUTCOME_POINTS  # noqa: F401  (points of the six outcomes)

from .activations import in_torch
from .encoding import CLASSIC, CLASSIC_UNITS, POINT_UNITS


class ValueNet(nn.Module):
    """MLP: inputs (N, F) -> logits of the six outcomes (N, 6), any number of hidden layers
    of any widths, one activation after each (``model.activations``).

    ``forward`` is the definition. ``forward_boards`` and ``probabilities_boards`` are its
    fast paths for boards under an encoding of the classic block then more units
    (``model.encoding.CLASSIC_PLUS``): the first layer's point units become a table of
    per-(point, count) rows summed with ``embedding_bag`` (several times faster for move
    selection). Their tables are derived from the weights and rebuilt whenever the weights'
    version (``weights_version``) has moved on, so they never lag the weights.
    """

    def __init__(self, inputs: int, hidden: tuple[int, ...] = (80,), activation: str = "sigmoid"):
        super().__init__()
        self.inputs, self.hidden, self.activation = inputs, tuple(hidden), activation
        sizes = (inputs,) + self.hidden
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.out = nn.Linear(sizes[-1], 6)
        self._act = in_torch(activation).forward
        self._weights = list(self.parameters())  # the same tensors for the net's life
        self._derived = {}  # name -> (weights_version, what the fast paths derived)
        self._starts = None  # cached bag offsets for forward_boards

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits (N, 6) of inputs (N, F)."""
        for layer in self.layers:
            x = self._act(layer(x))
        return self.out(x)

    def probabilities(self, x: torch.Tensor) -> torch.Tensor:
        """(N, 6) probabilities of the exclusive outcomes."""
        return torch.softmax(self(x), dim=-1)

    def description(self) -> dict:
        """What the network is, as bot files and ONNX files record it (with its encoding):
        {"inputs": F, "hidden": [H1, ...], "activation": name}."""
        return {"inputs": self.inputs, "hidden": list(self.hidden),
                "activation": self.activation}

    # --- fast paths for boards of the classic block (then more units) ---------------------

    def weights_version(self) -> tuple:
        """A key that moves on whenever a weight is written: per parameter, torch's count
        of in-place writes to it (optimizer steps: ``_optimizer_stepped``,
        ``load_state_dict``, ``w += ...`` under ``no_grad``) and where its storage lies."""
        weights = getattr(self, "_weights", None)  # (nets pickled before it have none)
        if weights is None:
            weights = self._weights = list(self.parameters())
        return tuple((w._version, w.data_ptr()) for w in weights)

    def _cached(self, name: str, build):
        """``build()``, kept until the weights' version moves on."""
        derived = getattr(self, "_derived", None)
        if derived is None:
            derived = self._derived = {}
        version = self.weights_version()
        kept = derived.get(name)
        if kept is None or kept[0] != version:
            kept = derived[name] = (version, build())
        return kept[1]

    def _first_layer_table(self) -> torch.Tensor:
        """(24 * 31, H): the first layer's response to each (point, signed count)."""
        def build():
            w = self.layers[0].weight.detach()[:, CLASSIC.points]  # (H, 24 * 8)
            units = torch.from_numpy(POINT_UNITS)  # (31, 8)
            table = torch.einsum("vu,hpu->pvh", units, w.reshape(len(w), _POINTS, -1))
            return table.reshape(_POINTS * len(units), -1).contiguous()  # (24 * 31, H)
        return self._cached("table", build)

    def _bag_starts(self, n: int) -> torch.Tensor:
        """(n,) int32: where each board's 24 table rows start in the flat index."""
        starts = getattr(self, "_starts", None)  # (nets pickled before it have none)
        if starts is None or len(starts) < n or starts.dtype != torch.int32:
            starts = self._starts = torch.arange(0, 24 * max(n, 4096), 24, dtype=torch.int32)
        return starts[:n]

    def _bags(self, boards: np.ndarray, table: torch.Tensor) -> torch.Tensor:
        """(N, H): the sum of each board's 24 (point, count) rows of ``table`` (int32
        indices: half the memory of int64 to write and read, the same sums)."""
        index = torch.from_numpy((boards[:, 1:25].astype(np.int32) + _OFFSETS).reshape(-1))
        return nn.functional.embedding_bag(index, table, self._bag_starts(len(boards)),
                                           mode="sum")

    @torch.no_grad()
    def forward_boards(self, boards: np.ndarray, checkers: int = 15,
                       more: np.ndarray | None = None) -> torch.Tensor:
        """Logits (N, 6) of boards (N, 26) int8 under the classic encoding, no gradients;
        under an encoding of the classic units then more (``model.encoding.CLASSIC_PLUS``),
        ``more`` (N, F - 198) float32 holds the more."""
        first = self.layers[0]
        h = self._bags(boards, self._first_layer_table())
        extra = _bar_and_off(boards, checkers, _BAR_OFF)  # (N, 4)
        w = first.weight.detach()
        # in place, in the order h + extra @ W + (bias + W[:, on roll]): the same floats
        h += torch.from_numpy(extra) @ w[:, CLASSIC.bar_off].T
        h += first.bias.detach() + w[:, CLASSIC.on_roll]
        if more is not None:
            h += torch.from_numpy(more) @ w[:, CLASSIC_UNITS:].T
        x = self._act(h)
        for i in range(1, len(self.layers)):  # (a slice of a ModuleList builds a new one)
            x = self._act(self.layers[i](x))
        return self.out(x)

    def _fused_weights(self) -> tuple:
        """probabilities_boards' weights: the table (24 * 31, H) with the first layer's
        bias (and the on-roll unit's weight) added to point 1's 31 rows, which every
        board's bag holds once; the bar, off and more units' weights as one (F - 194, H)
        matrix; the output layer's weight (6, Hn) and bias (6, 1)."""
        def build():
            first = self.layers[0]
            w = first.weight.detach()
            table = self._first_layer_table().clone()
            table[:len(POINT_UNITS)] += first.bias.detach() + w[:, CLASSIC.on_roll]
            rest = torch.cat([w[:, CLASSIC.bar_off], w[:, CLASSIC_UNITS:]], dim=1).T
            return (table, rest.contiguous(), self.out.weight.detach().clone(),
                    self.out.bias.detach()[:, None].clone())
        return self._cached("fused", build)

    @torch.no_grad()
    def probabilities_boards(self, boards: np.ndarray, checkers: int = 15,
                             units: np.ndarray | None = None) -> np.ndarray:
        """Probabilities (N, 6) float32 (a transposed view) of boards (N, 26) int8, as
        ``softmax(forward_boards(...))`` within float rounding, quicker: the biases ride in
        the table, the bar, off and more units go through one product, and the output
        layer and the softmax run outcome-major, (6, N). ``units``: those units,
        feature-major (``unit_rows(F)``, N) float32 (``bar_and_off_rows`` with the more
        below it, from ``model.encoding.CLASSIC_PLUS_ROWS``; a block of columns of a
        bigger array serves as it is); None under the classic encoding alone (worked out
        here)."""
        table, rest, w_out, b_out = self._fused_weights()
        h = self._bags(boards, table)
        if units is None:
            units = bar_and_off_rows(boards, checkers, len(rest))
        h.addmm_(torch.from_numpy(units).T, rest)  # (the same floats as from (N, F - 194))
        x = in_torch(self.activation).in_place(h)
        for i in range(1, len(self.layers)):
            x = self._act(self.layers[i](x))
        logits = torch.addmm(b_out, w_out, x.T)  # (6, N)
        return torch.softmax(logits, dim=0).numpy().T


def _optimizer_stepped(optimizer, args, kwargs) -> None:
    """After any optimizer's step, its parameters count as written: torch's fused Adam
    writes them without moving their version on, which the fast paths' tables go by."""
    for group in optimizer.param_groups:
        for param in group["params"]:
            torch.autograd.graph.increment_version(param)


register_optimizer_step_post_hook(_optimizer_stepped)


def unit_rows(inputs: int) -> int:
    """The rows of ``probabilities_boards``' units for a network of ``inputs`` inputs: the
    4 bar and off units, then the more after the classic block (F - 198)."""
    return _BAR_OFF + inputs - CLASSIC_UNITS


def _bar_and_off(boards: np.ndarray, checkers: int, width: int) -> np.ndarray:
    """(N, width) float32, its first 4 columns the classic bar and borne-off units of
    boards (N, 26) int8, the rest left for the caller to fill."""
    return np.ascontiguousarray(bar_and_off_rows(boards, checkers, width).T)


def bar_and_off_rows(boards: np.ndarray, checkers: int, height: int) -> np.ndarray:
    """(height, N) float32, its first 4 rows the classic bar and borne-off units of boards
    (N, 26) int8 (the mover's bar, the opponent's, then their checkers borne off), the rest
    left for the caller to fill."""
    cells = np.ascontiguousarray(boards.T)  # (26, N): sums across boards run quicker
    mover_on = positive(cells).sum(axis=0, dtype=np.int16)
    opponent_on = mover_on - cells.sum(axis=0, dtype=np.int16)
    units = np.empty((height, len(boards)), dtype=np.float32)
    units[0] = cells[25] / 2
    units[1] = cells[0] / -2
    units[2] = (checkers - mover_on.astype(np.int32)) / checkers
    units[3] = (checkers - opponent_on.astype(np.int32)) / checkers
    return units


_POINTS = (CLASSIC.points.stop - CLASSIC.points.start) // POINT_UNITS.shape[1]  # 24 of 8 units
_BAR_OFF = CLASSIC.bar_off.stop - CLASSIC.bar_off.start  # 4 units
# (1, 24): the table's row of (point p, signed count 0), p * 31 + 15
_OFFSETS = (np.arange(_POINTS, dtype=np.int32) * len(POINT_UNITS)
            + len(POINT_UNITS) // 2)[None, :]


def flip_outcomes(p: torch.Tensor | np.ndarray):
    """The same outcomes seen by the other player: the six reversed (tensors too)."""
    return p.flip(-1) if isinstance(p, torch.Tensor) else outcomes.flip_outcomes(p)


def five_outputs(p: np.ndarray) -> np.ndarray:
    """gnubg's five from the six: P(win), P(wg), P(wbg), P(lg), P(lbg). (..., 6) -> (..., 5)."""
    return outcomes.to_five(p)


def equity(p):
    """Cubeless equity of six-outcome probabilities (..., 6) -> (...): tensors or arrays."""
    if isinstance(p, torch.Tensor):
        return p @ torch.tensor(OUTCOME_POINTS, dtype=p.dtype)
    return outcomes.equity(p)
