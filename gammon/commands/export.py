"""``gammon export``: write a checkpoint as a standalone bot file that plays without torch
(an .npz played with NumPy alone, or with ``--format onnx`` an ONNX model)."""

from __future__ import annotations

import argparse
import json

from ..errors import UsageError

NET_PREFIX = "net:"
FORMATS = ("npz", "onnx")  # model.export.FORMATS (not imported here: argparse is built first)
MAX_CHECK_GAMES = 10_000

HELP = """\
Export a trained network (a run's model.pt or checkpoint.pt; net: is the shipped
checkpoints/default.pt, net:PATH is PATH) as a standalone bot file: an
.npz archive of float32 weight arrays and a JSON metadata entry (format, version, encoding,
hidden sizes, activation, variant), no pickle. The file plays with NumPy alone, choosing
exactly the plays the torch network chooses; use it wherever a bot is named, as net:OUT.

With --format onnx, OUT.onnx is one ONNX model holding every network of the checkpoint
(inputs NAME_inputs, the encoded boards; outputs NAME_probabilities, the six outcomes;
NAME main, race, crashed), its encodings and variant in the model's metadata_props. It
plays as net:OUT.onnx through onnxruntime; writing and playing it needs
pip install 'gammon[onnx]'.

After writing, the file is loaded back and compared with the torch network on every
afterstate of a few random games; the largest probability difference is reported.

examples:
  gammon export runs/strong/model.pt strong.npz
  gammon export net: default.npz                # the shipped model
  gammon export net: plakoto.npz --variant plakoto   # the shipped Plakoto model
  gammon export --format onnx net: default.onnx     # for onnxruntime
  gammon match net:strong.npz pubeval --games 1000
"""


def add_parser(sub) -> None:
    p = sub.add_parser("export", help="write a checkpoint as a standalone NumPy bot file",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("checkpoint", metavar="CKPT",
                   help="model.pt or checkpoint.pt of a run, as a path or net:PATH "
                        "(net: alone: the shipped model)")
    p.add_argument("out", metavar="OUT", help="the bot file to write (by convention .npz; "
                                              "with --format onnx, named .onnx)")
    p.add_argument("--format", choices=FORMATS, default="npz",
                   help="npz: NumPy's archive, played with NumPy alone (the default); onnx: "
                        "an ONNX model, played through onnxruntime")
    p.add_argument("--check-games", type=int, default=8, metavar="N",
                   help="random games whose afterstates are compared (default: 8)")
    p.add_argument("--seed", type=int, default=0, help="seed of the check games (default: 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    from gammon.engine.rules import VARIANTS
    p.add_argument("--variant", choices=list(VARIANTS), default=None,
                   help="the variant the network must be trained for (net: alone: that "
                        "variant's shipped model); a network of another variant is refused")
    p.set_defaults(run=run)


def run(args) -> int:
    from gammon.model.botfile import BotFileError, is_bot_file
    from gammon.model.checkpoint import CheckpointError, check_compatible, load
    from gammon.model.export import export_checkpoint
    from gammon.model.onnx_net import is_onnx_file
    from gammon.model.player import shipped
    if not 0 <= args.check_games <= MAX_CHECK_GAMES:
        raise UsageError(f"--check-games must be within 0..{MAX_CHECK_GAMES:,}, "
                         f"got {args.check_games}")
    source = args.checkpoint
    if source.startswith(NET_PREFIX):  # as wherever a bot is named: net:PATH, net: alone
        source = source[len(NET_PREFIX):] or str(shipped(args.variant or "standard"))
    if not source:
        raise UsageError("CKPT is empty; give a checkpoint file, net:PATH or net:")
    try:
        if args.variant is not None and not (is_bot_file(source) or is_onnx_file(source)):
            check_compatible(load(source), source, variant=args.variant)
        report = export_checkpoint(source, args.out, args.check_games, args.seed,
                                   args.format)
    except (CheckpointError, BotFileError, OSError) as e:
        raise UsageError(str(e)) from None
    if args.json:
        print(json.dumps(report.to_dict()))
        return 0
    m = report.meta
    print(f"wrote {report.path}: {report.bytes:,} bytes, {m['encoding']} net {m['hidden']} "
          f"{m['activation']}, {m['variant']}")
    player = " (onnxruntime)" if args.format == "onnx" else ""
    print(f"checked {report.positions:,} afterstates{player} against the torch network: "
          f"largest probability difference {report.max_abs_diff:.2e}")
    print(f"play it as net:{report.path}")
    return 0
