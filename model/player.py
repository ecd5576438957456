"""``net:PATH`` players: load a checkpoint (``net:`` alone: the shipped model of the
variant, ``checkpoints/default.pt`` for standard and ``checkpoints/VARIANT.pt`` for the
others) as a bot.

PATH may be a torch checkpoint (``.pt``), a standalone bot file written by
``gammon export`` (``model.botfile``, told apart by its content): a bot file plays with
NumPy alone, and loading one never imports torch; or an ONNX bot file written by
``gammon export --format onnx`` (``model.onnx_net``, told by its name ``.onnx``), played
through onnxruntime (``gammon[onnx]``), never torch either.
"""

from __future__ import annotations

from pathlib import Path

from .botfile import is_bot_file

CHECKPOINTS = Path(__file__).resolve().parent.parent / "checkpoints"
DEFAULT = CHECKPOINTS / "default.pt"


def shipped(variant: str = "standard") -> Path:
    """The shipped model of a variant: what ``net:`` alone plays."""
    return DEFAULT if variant == "standard" else CHECKPOINTS / f"{variant}.pt"


def load_net_bot(path: str | None = None, variant: str = "standard", plies: int = 0):
    """A bot from a checkpoint or bot file, looking ``plies`` ahead (``model.lookahead``:
    0-ply = the network alone, 1-ply = the opponent's 21 rolls, 2-ply = ours after them;
    a torch checkpoint only). CheckpointError / BotFileError name the file when it can't
    be used; ValueError for plies out of range or a bot file asked to look ahead."""
    from .lookahead import check_plies
    plies = check_plies(plies)
    if not path and not shipped(variant).is_file():
        raise FileNotFoundError(f"no shipped model for {variant} ({shipped(variant)}); "
                                f"train one with gammon train --variant {variant} and "
                                f"name it net:PATH")
    path = Path(path) if path else shipped(variant)
    if is_bot_file(path):
        if plies:
            raise ValueError(f"{path}: a bot file plays at 0-ply only (the look-ahead "
                             f"needs a torch checkpoint, .pt)")
        from .numpy_net import load_bot_file
        return load_bot_file(path, variant)
    from .onnx_net import is_onnx_file
    if is_onnx_file(path):
        if plies:
            raise ValueError(f"{path}: an ONNX bot file plays at 0-ply only (the look-ahead "
                             f"needs a torch checkpoint, .pt)")
        from .onnx_net import load_onnx_bot
        return load_onnx_bot(path, variant)
    import torch

    from .checkpoint import build_net, build_phases, check_compatible, load
    from .policy import NetEvaluator, NetPolicy
    payload = load(path)
    check_compatible(payload, path, variant=variant)
    torch.set_num_threads(max(1, min(2, torch.get_num_threads())))
    net = build_net(payload, path)
    evaluator = NetEvaluator(net, payload["model"]["encoding"], variant,
                             phases=build_phases(payload, path))
    bot = NetPolicy(evaluator, plies=plies)
    bot.name = f"net:{path}" + (f"@{plies}" if plies else "")
    return bot
