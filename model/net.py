"""The value network: an MLP from encoded positions to six exclusive outcome probabilities.

The six outcomes, from the player on roll: win by backgammon, by gammon, single win,
single loss, loss by gammon, loss by backgammon (``engine.outcomes``). A softmax over them
keeps gnubg's five outputs consistent by construction.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from engine import outcomes
from engine.board import positive
from engine.outcomes import OUTCOME_POINTS  # noqa: F401  (points of the six outcomes)


class ValueNet(nn.Module):
    """MLP: inputs (N, F) -> logits of the six outcomes (N, 6).

    ``forward_boards`` evaluates raw classic-encoded boards without building the input
    array: the first layer's point units become a table of per-(point, count) rows summed
    with ``embedding_bag``, which is several times faster for move selection. Encodings
    that add inputs after the classic units (``advanced``) take the same path.
    """

    def __init__(self, inputs: int, hidden: tuple[int, ...] = (80,), activation: str = "sigmoid"):
        super().__init__()
        self.inputs, self.hidden, self.activation = inputs, tuple(hidden), activation
        sizes = (inputs,) + self.hidden
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.out = nn.Linear(sizes[-1], 6)
        self._act = {"sigmoid": torch.sigmoid, "relu": torch.relu, "tanh": torch.tanh}[activation]
        self._table = None  # cached first-layer table for forward_boards
        self._starts = None  # cached bag offsets for forward_boards
        self._fused = None  # cached weights of probabilities_boards

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = self._act(layer(x))
        return self.out(x)

    def probabilities(self, x: torch.Tensor) -> torch.Tensor:
        """(N, 6) probabilities of the exclusive outcomes."""
        return torch.softmax(self(x), dim=-1)

    # --- fast path for classic-encoded boards --------------------------------------------

    def invalidate(self) -> None:
        """Forget the cached first-layer tables (call after every weight update)."""
        self._table = None
        self._fused = None

    def _first_layer_table(self) -> torch.Tensor:
        """(24 * 31, H): the first layer's response to each (point, signed count)."""
        if self._table is None:
            from .encoding import _POINT_UNITS
            w = self.layers[0].weight.detach()[:, :192]  # (H, 192)
            units = torch.from_numpy(_POINT_UNITS)  # (31, 8)
            table = torch.einsum("vu,hpu->pvh", units, w.reshape(-1, 24, 8))  # (24, 31, H)
            self._table = table.reshape(24 * 31, -1).contiguous()
        return self._table

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
        extra = _bar_and_off(boards, checkers, 4)  # (N, 4)
        w = first.weight.detach()
        # in place, in the order h + extra @ W + (bias + W[:, 196]): the same floats
        h += torch.from_numpy(extra) @ w[:, 192:196].T
        h += first.bias.detach() + w[:, 196]
        if more is not None:
            h += torch.from_numpy(more) @ w[:, 198:].T
        x = self._act(h)
        for i in range(1, len(self.layers)):  # (a slice of a ModuleList builds a new one)
            x = self._act(self.layers[i](x))
        return self.out(x)

    def _fused_weights(self) -> tuple:
        """probabilities_boards' weights: the table with the first layer's bias (and the
        constant unit 196) added to point 1's 31 rows, which every board's bag holds once;
        the bar, off and more units' weights as one (4 + more, H) matrix; the output layer."""
        fused = getattr(self, "_fused", None)  # (nets pickled before it have none)
        if fused is None:
            first = self.layers[0]
            w = first.weight.detach()
            table = self._first_layer_table().clone()
            table[:31] += first.bias.detach() + w[:, 196]
            rest = torch.cat([w[:, 192:196], w[:, 198:]], dim=1).T.contiguous()  # (F-194, H)
            fused = self._fused = (table, rest, self.out.weight.detach().clone(),
                                   self.out.bias.detach()[:, None].clone())
        return fused

    @torch.no_grad()
    def probabilities_boards(self, boards: np.ndarray, checkers: int = 15,
                             units: np.ndarray | None = None) -> np.ndarray:
        """Probabilities (N, 6) float32 (a transposed view) of boards (N, 26) int8, as
        ``softmax(forward_boards(...))`` within float rounding, quicker: the biases ride in
        the table, the bar, off and more units go through one product, and the output
        layer and the softmax run outcome-major, (6, N). ``units``: those units,
        feature-major (F - 194, N) float32 (``bar_and_off_rows`` with the more below it,
        from ``model.encoding.CLASSIC_PLUS_ROWS``; a block of columns of a bigger array
        serves as it is); None under the classic encoding alone (worked out here)."""
        table, rest, w_out, b_out = self._fused_weights()
        h = self._bags(boards, table)
        if units is None:
            units = bar_and_off_rows(boards, checkers, len(rest))
        h.addmm_(torch.from_numpy(units).T, rest)  # (the same floats as from (N, F - 194))
        x = _IN_PLACE[self.activation](h)
        for i in range(1, len(self.layers)):
            x = self._act(self.layers[i](x))
        logits = torch.addmm(b_out, w_out, x.T)  # (6, N)
        return torch.softmax(logits, dim=0).numpy().T


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


_OFFSETS = (np.arange(24, dtype=np.int32) * 31 + 15)[None, :]  # row of (point, count) in the table
_IN_PLACE = {"sigmoid": torch.sigmoid_, "relu": torch.relu_, "tanh": torch.tanh_}


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
