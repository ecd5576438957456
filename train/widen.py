"""Widen a model file's networks without changing what they compute (issue 37, point 4: a
wider contact net that starts where the trained one stands, not from nothing).

    python -m gammon.train.widen --net checkpoints/expert-gen3.pt --hidden 256 \\
        --out runs/gen3-wide-start.pt

Each network of one hidden layer narrower than ``--hidden`` (by default the main and the
crashed networks; ``--phases`` names others) gets new hidden units: their input weights
and biases drawn small (normal, ``--scale``), their weights into the outputs zero. The
outputs are then exactly those of the narrower net, for every position, and training
moves the new units from there (their outgoing weights get gradients at once; the
incoming ones once those are not zero). The result is a model file like any other
(``model.init`` of a second-stage recipe, ``net:FILE``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

from gammon.model import checkpoint as ckpt
from gammon.model.net import ValueNet

PHASES = ("main", "crashed")  # the contact networks: where the benchmark's loss is


def widen_net(net: ValueNet, hidden: int, scale: float = 0.01,
              generator: torch.Generator | None = None) -> ValueNet:
    """A net of one hidden layer of ``hidden`` units computing what ``net`` computes:
    its units first, then the new ones (incoming weights normal(0, ``scale``), outgoing
    zero). ValueError unless ``net`` has one hidden layer of at most ``hidden`` units."""
    if len(net.hidden) != 1:
        raise ValueError(f"only a net of one hidden layer is widened, not {list(net.hidden)}")
    old = net.hidden[0]
    if hidden < old:
        raise ValueError(f"--hidden {hidden} is narrower than the net's {old} units")
    wide = ValueNet(net.inputs, (hidden,), net.activation)
    src = net.state_dict()
    w = torch.randn(hidden, net.inputs, generator=generator) * scale  # (H, F)
    b = torch.randn(hidden, generator=generator) * scale  # (H,)
    w[:old], b[:old] = src["layers.0.weight"], src["layers.0.bias"]
    out = torch.zeros(6, hidden)  # (6, H): the new units add nothing yet
    out[:, :old] = src["out.weight"]
    dst = {"layers.0.weight": w, "layers.0.bias": b, "out.weight": out,
           "out.bias": src["out.bias"].clone()}
    wide.load_state_dict(dst)
    wide.eval()
    return wide


def widen_file(path, out, hidden: int, phases=PHASES, scale: float = 0.01,
               seed: int = 1) -> dict[str, list[int]]:
    """Write ``out``: the model file ``path`` with the networks of ``phases`` ("main",
    "crashed", "race") widened to ``hidden`` units; the hidden sizes written, by phase."""
    payload = ckpt.load(path)
    gen = torch.Generator().manual_seed(seed)
    spec = payload["model"]
    main = ckpt.build_net(payload, path)
    if "main" in phases:
        main = widen_net(main, hidden, scale, gen)
    others = {}
    for name, (net, encoding) in ckpt.build_phases(payload, path).items():
        others[name] = (widen_net(net, hidden, scale, gen) if name in phases else net,
                        encoding)
    ckpt.save(out, ckpt.model_payload(main, spec["encoding"], spec["variant"], others or None))
    return {"main": list(main.hidden), **{k: list(n.hidden) for k, (n, _) in others.items()}}


def main(argv=None) -> int:
    from gammon.eval.gnubg.cli import OneLineParser, first_line
    p = OneLineParser(prog="python -m gammon.train.widen", description=__doc__,
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--net", type=Path, required=True, help="the model file to widen")
    p.add_argument("--hidden", type=int, required=True, help="the hidden units wanted")
    p.add_argument("--out", type=Path, required=True, help="the widened model file")
    p.add_argument("--phases", default=",".join(PHASES),
                   help=f"the networks to widen, by phase (default {','.join(PHASES)})")
    p.add_argument("--scale", type=float, default=0.01,
                   help="spread of the new units' incoming weights (default 0.01)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    phases = tuple(x.strip() for x in args.phases.split(",") if x.strip())
    try:
        unknown = [x for x in phases if x not in ("main",) + ckpt.OTHER_PHASES]
        if unknown:
            raise ValueError(f"--phases: no phase {unknown[0]!r} (main, race, crashed)")
        if not args.scale >= 0:
            raise ValueError(f"--scale is 0 or more, got {args.scale}")
        sizes = widen_file(args.net, args.out, args.hidden, phases, args.scale, args.seed)
    except (ValueError, OSError) as e:  # CheckpointError and WriteError are among them
        print(f"error: {first_line(e)}", file=sys.stderr)
        return 2
    print(f"{args.out}: " + ", ".join(f"{k} {v}" for k, v in sizes.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
