"""``net:PATH`` players: load a checkpoint (``net:`` alone: the shipped default) as a bot."""

from __future__ import annotations

from pathlib import Path

import torch

from .checkpoint import build_net, check_compatible, load
from .policy import NetEvaluator, NetPolicy

DEFAULT = Path(__file__).resolve().parent.parent / "checkpoints" / "default.pt"


def load_net_bot(path: str | None = None, variant: str = "standard", plies: int = 0) -> NetPolicy:
    """A NetPolicy from a checkpoint file; CheckpointError names the file when it can't."""
    path = Path(path) if path else DEFAULT
    payload = load(path)
    check_compatible(payload, path, variant=variant)
    torch.set_num_threads(max(1, min(2, torch.get_num_threads())))
    net = build_net(payload, path)
    from engine.board import variant as get_variant
    evaluator = NetEvaluator(net, payload["model"]["encoding"], get_variant(variant).checkers)
    bot = NetPolicy(evaluator, plies=plies)
    bot.name = f"net:{path}"
    return bot
