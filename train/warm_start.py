"""Warm start (``model.init``): a run's networks begin from the weights of a model file
instead of random ones, phase by phase; a net of another encoding gives the input units both
share (``model.encoding.shared_units``: the classic 198), the other units of the first layer
starting at zero.
"""

from __future__ import annotations

import torch

from gammon.model.encoding import shared_units
from gammon.model.net import ValueNet

from .config import ConfigError


def start_from(nets: dict[str, tuple[ValueNet, str]], path: str) -> None:
    """Load the weights of the model file ``path`` into ``nets`` (``model.init``), by
    phase ("main" and the other phases, each (network, encoding)): each network starts from
    the file's network of its phase, and stays random where the file has none (a race
    network started from a one-network file). The same hidden sizes and activation are
    required; when the encodings differ, the first layer's weights of the input units both
    share (the classic 198) are copied and the others are zero. ConfigError says what does
    not fit."""
    from gammon.model.checkpoint import CheckpointError, build_net, build_phases, load
    try:
        payload = load(path)
        sources = {"main": (build_net(payload, path), payload["model"]["encoding"]),
                   **build_phases(payload, path)}
    except (CheckpointError, OSError) as e:
        raise ConfigError(f"model.init: {e}") from None
    for phase, (net, encoding) in nets.items():
        if phase in sources:
            _copy_weights(net, encoding, *sources[phase], path, phase)


def _copy_weights(net: ValueNet, encoding: str, source: ValueNet, source_encoding: str,
                  path: str, phase: str) -> None:
    """``net`` (of ``encoding``) takes the weights of ``source`` (``start_from``)."""
    which = "" if phase == "main" else f"its {phase} network "
    if (tuple(source.hidden), source.activation) != (tuple(net.hidden), net.activation):
        raise ConfigError(f"model.init: {path} {which}has hidden {list(source.hidden)} "
                          f"{source.activation}, the config asks for {list(net.hidden)} "
                          f"{net.activation}")
    state = source.state_dict()
    if source_encoding != encoding:
        shared = shared_units(source_encoding, encoding)  # the leading units both hold alike
        if not shared:
            raise ConfigError(f"model.init: {path} {which}is a {source_encoding} net; a "
                              f"{encoding} net cannot start from it")
        first = torch.zeros_like(net.layers[0].weight)
        first[:, :shared] = state["layers.0.weight"][:, :shared]
        state["layers.0.weight"] = first
    net.load_state_dict(state)
