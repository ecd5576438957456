"""The value network in NumPy: plays an exported bot file without torch.

``NumpyNet`` computes what ``model.net.ValueNet`` computes, in float32, from the arrays of a
bot file (``model.botfile``). For the classic encoding it takes a fast path like
``ValueNet.forward_boards``: the first layer's response to each (point, signed count) is a
table, and a board's first layer is the sum of its 24 rows plus the bar and borne-off units,
so the 198 inputs are never built. Here the table holds two neighbouring points per row
(31 x 31 count pairs, 12 pairs: 1.5 MB per 32 hidden units), which halves the gathers.

``NumpyEvaluator`` and ``NumpyNetBot`` mirror ``model.policy.NetEvaluator`` and
``NetPolicy`` (0-ply): same perspective rule, same treatment of a play that wins, same
choice.

This module and everything it imports are torch-free (tested in a subprocess).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gammon.engine import outcomes
from gammon.engine.outcomes import equity
from gammon.engine.phase import PHASES, classify
from gammon.engine.policy import Bot
from gammon.engine.rules import variant as get_variant
from gammon.engine.sanity import net_outcomes

from . import botfile
from .activations import ACTIVATIONS
from .bomb import BombInput, plain_boards
from .encoding import CLASSIC, POINT_UNITS, encoder, fold_bomb
from .match_cube import ScoreAware
from .rows import padded

_COUNTS = len(POINT_UNITS)  # 31 signed counts a point may hold, -15..15
_POINTS = (CLASSIC.points.stop - CLASSIC.points.start) // POINT_UNITS.shape[1]  # 24
_PAIR_OFFSETS = (np.arange(_POINTS // 2) * _COUNTS * _COUNTS)[None, :]  # each pair's first row


MAIN = "main"  # the network that values every board no other phase's network claims


def by_phase(boards: np.ndarray, phases, networks) -> np.ndarray:
    """(N, 26) -> (N, 6) float32: each board valued by its phase's network
    (``engine.phase.classify``), the main network for the boards no phase in ``phases``
    (names: "race", "crashed") claims. ``networks({name: boards (n, 26)})`` values each
    group by its network ("main" for the main one; only the names with boards are
    asked) and returns ``{name: (n, 6)}``. Shared by ``NumpyNet`` and the ONNX bot files'
    player (``model.onnx_net``), so both route every board alike."""
    if not phases:
        return networks({MAIN: boards})[MAIN]
    phase = classify(boards, crashed="crashed" in phases)
    rows = {}
    main = np.ones(len(boards), dtype=bool)
    for name in phases:
        mine = phase == PHASES.index(name)
        main &= ~mine
        if mine.any():
            rows[name] = mine
    if main.any():
        rows[MAIN] = main
    values = networks({name: boards[mine] for name, mine in rows.items()})
    out = np.empty((len(boards), 6), dtype=np.float32)
    for name, mine in rows.items():
        out[mine] = values[name]
    return out


class NumpyNet:
    """MLP logits (N, 6) of boards (N, 26) int8, from a bot file's metadata and arrays."""

    def __init__(self, meta: dict, arrays: dict[str, np.ndarray], source="bot file"):
        # shapes, sizes (hidden widths at most botfile.MAX_WIDTH: the pair table below holds
        # 12 * 31 * 31 rows of H1 floats) and finite weights, before any table is built
        botfile.check(meta, arrays, source)
        self.meta = meta
        # the networks of other phases (``engine.phase``), each a NumpyNet of its own
        self.phases = {name: NumpyNet(botfile.phase_meta(meta, name),
                                      botfile.phase_arrays(arrays, name), source)
                       for name in botfile.phase_names(meta, source)}
        self.encoding, self.activation = meta["encoding"], meta["activation"]
        self.hidden = tuple(meta["hidden"])
        self.rules = get_variant(meta["variant"])
        self.checkers = self.rules.checkers
        names = botfile.layer_names(self.hidden)
        # (fan_in, fan_out) transposed once, so every layer is x @ w + b
        self.layers = [(np.ascontiguousarray(arrays[f"{n}.weight"].T, dtype=np.float32),
                        np.asarray(arrays[f"{n}.bias"], dtype=np.float32)) for n in names]
        self._act = ACTIVATIONS[self.activation].numpy
        self._encode = encoder(self.encoding)
        if self.encoding == "classic":
            w = self.layers[0][0]  # (198, H1)
            # (24, 31, H1): point p, signed count c + 15 -> the first layer's response
            table = np.einsum("vu,puh->pvh", POINT_UNITS,
                              w[CLASSIC.points].reshape(_POINTS, POINT_UNITS.shape[1], -1))
            table = table.astype(np.float32)
            # points 2k+1 and 2k+2 together: (12 * 31 * 31, H1), half the rows to gather
            pairs = table[0::2, :, None, :] + table[1::2, None, :, :]
            self._pairs = np.ascontiguousarray(pairs.reshape(-1, pairs.shape[-1]))
            self._extra = np.ascontiguousarray(w[CLASSIC.bar_off])  # (4, H1) bars, borne off
            # the side on roll's unit is always 1: its weights join the bias (H1,)
            self._bias0 = (self.layers[0][1] + w[CLASSIC.on_roll]).astype(np.float32)

    def logits(self, boards: np.ndarray) -> np.ndarray:
        """(N, 26) int8 -> (N, 6) float32 logits of the six outcomes, player on roll."""
        boards = np.asarray(boards, dtype=np.int8)
        if self.encoding == "classic":
            x = self._act(self._first_layer(boards))
        else:
            w, b = self.layers[0]
            x = self._act(self._encode(boards, self.checkers) @ w + b)
        for w, b in self.layers[1:-1]:
            x = self._act(x @ w + b)
        w, b = self.layers[-1]
        return x @ w + b

    def _first_layer(self, boards: np.ndarray) -> np.ndarray:
        """The first layer's pre-activation (N, H1) of classic-encoded boards, by table."""
        counts = boards[:, 1:25].astype(np.intp) + 15  # (N, 24) signed count + 15
        index = _PAIR_OFFSETS + counts[:, 0::2] * _COUNTS + counts[:, 1::2]  # (N, 12) rows
        h = self._pairs[index[:, 0]]  # (N, H1); pair by pair: no (N, 12, H1) temporary
        for k in range(1, _POINTS // 2):
            h += self._pairs[index[:, k]]
        mover_on = np.maximum(boards, 0).sum(axis=1, dtype=np.int32)
        opponent_on = mover_on - boards.sum(axis=1, dtype=np.int32)
        extra = np.empty((len(boards), 4), dtype=np.float32)
        extra[:, 0] = boards[:, 25] / 2
        extra[:, 1] = boards[:, 0] / -2
        extra[:, 2] = (self.checkers - mover_on) / self.checkers
        extra[:, 3] = (self.checkers - opponent_on) / self.checkers
        return h + extra @ self._extra + self._bias0

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """(N, 26) -> (N, 6) float32 softmax probabilities for the player on roll, each
        board from its phase's network."""
        return by_phase(boards, self.phases, lambda groups: {
            name: (self if name == MAIN else self.phases[name])._softmax(rows)
            for name, rows in groups.items()})

    def _softmax(self, boards: np.ndarray) -> np.ndarray:
        """This network alone: (N, 26) -> (N, 6) float32 (padded inside
        ``model.rows.batch_independent``, as ``model.policy.NetEvaluator``'s)."""
        z = self.logits(padded(boards))[:len(boards)]
        z = np.exp(z - z.max(axis=1, keepdims=True))
        return (z / z.sum(axis=1, keepdims=True)).astype(np.float32)


class NumpyEvaluator:
    """Six-outcome probabilities of boards (N, 26) from the player on roll (as NetEvaluator)."""

    def __init__(self, net: NumpyNet):
        self.net, self.encoding, self.checkers = net, net.encoding, net.checkers
        self.rules = net.rules

    def __call__(self, boards: np.ndarray) -> np.ndarray:
        """(N, 26) int8 -> (N, 6) float32 probabilities for the player on roll, as
        NetEvaluator: the bear-off database's races, the rest made sane (``engine.sanity``)."""
        if len(boards) == 0:
            return np.zeros((0, 6), dtype=np.float32)
        # "where the position makes an outcome impossible, its probability is exactly 0"
        return net_outcomes(self.net.probabilities, boards, self.rules,
                            plain_boards(self, boards))

    def after_play(self, afterstates: np.ndarray) -> np.ndarray:
        """Probabilities (K, 6) for the player who just moved (``engine.outcomes``)."""
        return outcomes.after_play(self, afterstates, self.rules, plain_boards(self, afterstates))

    def equity_before_roll(self, boards: np.ndarray, bomb: np.ndarray) -> np.ndarray:
        """Cubeless equity (N,) before the roll for the player on roll (Nuclear's bomb)."""
        return equity(self(fold_bomb(boards, bomb)))


class NumpyNetBot(ScoreAware, BombInput, Bot):
    """Plays the afterstate with the highest cubeless equity (0-ply), NumPy only; at a
    match score (``observe_score``) the highest match winning chance."""

    name = "net"

    def __init__(self, evaluator: NumpyEvaluator):
        self.evaluator = evaluator

    def probabilities(self, plays) -> np.ndarray:
        """(K, 6) outcome probabilities of each play for the player who made it."""
        return self.evaluator.after_play(self.afterstates(plays))

    def scores(self, plays, boards, dice):
        return self.values(plays, self.probabilities(plays))


def load_bot_file(path: str | Path, variant: str | None = None) -> NumpyNetBot:
    """A NumpyNetBot from a bot file; BotFileError when it cannot be used (also when it was
    made for another variant than ``variant``)."""
    meta, arrays = botfile.read(path)
    if variant is not None and meta["variant"] != variant:
        raise botfile.BotFileError(f"{path}: trained for {meta['variant']!r}, not {variant!r}")
    bot = NumpyNetBot(NumpyEvaluator(NumpyNet(meta, arrays, path)))
    bot.name = f"net:{path}"
    return bot
