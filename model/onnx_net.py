"""ONNX bot files: a trained network as one ONNX model, played through onnxruntime.

``gammon export --format onnx CKPT OUT.onnx`` (``model.onnx_export``) writes every network
of a checkpoint (the main one, and those of other phases: "race", "crashed") into one ONNX
graph. Each network ``NAME`` is a pair of the graph's inputs and outputs, the batch axis
dynamic:

    NAME_inputs          float32 (N, F)  the encoded boards (``model.encoding``; F inputs)
    NAME_probabilities   float32 (N, 6)  softmax of the six exclusive outcomes

onnxruntime wants every input of a graph fed: a network not asked about takes (0, F).
The model's ``metadata_props`` (strings; onnxruntime's ``custom_metadata_map``) say what
the graph is, in the terms of ``model.botfile``'s metadata:

    format        "gammon-onnx"
    version       "1"                  readers refuse versions they do not know
    variant       "standard", ...      the variant the networks were trained for
    networks      "main,race"          the networks, comma-separated, main first
    phases        "race"               the phases with a network of their own ("" none)
    outputs       the six outcomes in order, comma-separated, for the player on roll
    NAME.encoding "advanced", ...      the input encoding of network NAME
    NAME.inputs   F                    its input width
    NAME.hidden   "128"                its hidden layer widths, comma-separated
    NAME.activation "sigmoid", ...     after every hidden layer
    input_layout  a short description of the inputs and of the phase dispatch
    source        the checkpoint it was exported from (informative)

The encoding stays in Python: the graph takes encoded inputs. ``OnnxNet`` values boards as
``model.numpy_net.NumpyNet`` does, the network part alone run by onnxruntime (one thread):
the same phase dispatch (``model.numpy_net.by_phase``), the same padding
(``model.rows.padded``), and the bot is ``model.numpy_net``'s evaluator and player around
it, so the bear-off database and ``engine.sanity`` treat its outputs alike.

A file is an ONNX bot file by its name (``.onnx``); reading one needs onnxruntime (the
extra ``gammon[onnx]``), never torch.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gammon.engine.rules import variant as get_variant

from . import botfile
from .botfile import BotFileError, short
from .encoding import encoder
from .numpy_net import MAIN, NumpyEvaluator, NumpyNetBot, by_phase
from .rows import padded

FORMAT = "gammon-onnx"
VERSION = 1
READABLE = (1,)
SUFFIX = ".onnx"
INSTALL = "pip install 'gammon[onnx]'"
INPUT_LAYOUT = (
    "NAME_inputs (N, F) float32 are model.encoding's ENCODING units of boards (N, 26) int8 "
    "seen from the player on roll (cells 1..24 his points 1..24, 25 his bar, 0 the "
    "opponent's bar; his checkers positive, the opponent's negative); NAME_probabilities "
    "(N, 6) float32 the softmax over outputs, for the player on roll. Each board goes to "
    "its phase's network (engine.phase.classify: race, crashed), the main network takes "
    "the rest; gammon settles races with every checker home by its bear-off database and "
    "zeroes the outcomes a position rules out (engine.sanity)")


class OnnxUnavailable(BotFileError):
    """onnxruntime (or onnx, for writing) is not installed; the message says what to
    install. A BotFileError, so every command reports it in one line."""


def is_onnx_file(path: str | Path) -> bool:
    """Whether ``path`` names an ONNX bot file: by its name, ``.onnx`` in any case."""
    return str(path).lower().endswith(SUFFIX)


def runtime():
    """The onnxruntime module; OnnxUnavailable saying what to install when it is missing."""
    try:
        import onnxruntime
    except ImportError:
        raise OnnxUnavailable(f"ONNX bot files need onnxruntime: {INSTALL}") from None
    return onnxruntime


def metadata_props(networks: dict[str, dict], variant: str, source: str = "") -> dict[str, str]:
    """The ``metadata_props`` of an ONNX bot file (strings) from its networks, name ->
    {encoding, inputs, hidden, activation}, the main one first."""
    names = list(networks)
    if names[:1] != [MAIN]:
        raise ValueError("the main network comes first")
    props = {"format": FORMAT, "version": str(VERSION), "variant": variant,
             "networks": ",".join(names), "phases": ",".join(names[1:]),
             "outputs": ",".join(botfile.OUTPUTS), "input_layout": INPUT_LAYOUT,
             "source": source}
    for name, spec in networks.items():
        props[f"{name}.encoding"] = spec["encoding"]
        props[f"{name}.inputs"] = str(spec["inputs"])
        props[f"{name}.hidden"] = ",".join(str(h) for h in spec["hidden"])
        props[f"{name}.activation"] = spec["activation"]
    return props


def parse_metadata(props: dict[str, str], path) -> dict:
    """A bot file's metadata (``model.botfile``'s layout, ``format`` "gammon-onnx") from
    an ONNX bot file's ``metadata_props``; BotFileError names the file and what is wrong."""
    if props.get("format") != FORMAT:
        raise BotFileError(f"{path}: not a gammon ONNX bot file (no format {FORMAT!r} in "
                           "its metadata)")
    if props.get("version") not in {str(v) for v in READABLE}:
        raise BotFileError(f"{path}: ONNX bot file version {short(props.get('version'))}, "
                           f"this gammon reads version {', '.join(map(str, READABLE))}")
    names = props.get("networks", "").split(",")
    if names[:1] != [MAIN] or len(set(names)) != len(names) or not set(names[1:]) <= set(
            botfile.OTHER_PHASES) or props.get("phases", "") != ",".join(names[1:]):
        raise BotFileError(f"{path}: networks {short(props.get('networks'))} and phases "
                           f"{short(props.get('phases'))} are not main and then some of "
                           f"{', '.join(botfile.OTHER_PHASES)}")
    if props.get("outputs") != ",".join(botfile.OUTPUTS):
        raise BotFileError(f"{path}: outputs {short(props.get('outputs'))} are not the six "
                           f"outcomes this gammon plays ({', '.join(botfile.OUTPUTS)})")
    specs = {}
    for name in names:
        spec = {"variant": props.get("variant")}
        for key in ("encoding", "inputs", "hidden", "activation"):
            if f"{name}.{key}" not in props:
                raise BotFileError(f"{path}: metadata has no {name}.{key!r}")
            spec[key] = props[f"{name}.{key}"]
        try:
            spec["inputs"] = int(spec["inputs"])
            spec["hidden"] = [int(h) for h in spec["hidden"].split(",")]
        except ValueError:
            raise BotFileError(f"{path}: {name}.inputs {short(spec['inputs'])} or "
                               f"{name}.hidden {short(spec['hidden'])} is not whole "
                               "numbers") from None
        sizes = botfile.network_sizes(spec, path, BotFileError, f"the {name} network's "
                                      "metadata")
        if spec["inputs"] != sizes[0]:
            raise BotFileError(f"{path}: {name}.inputs {spec['inputs']} does not match the "
                               f"{spec['encoding']} encoding ({sizes[0]})")
        specs[name] = spec
    main = specs.pop(MAIN)
    meta = {"format": FORMAT, "version": int(props["version"]), **main,
            "outputs": list(botfile.OUTPUTS), "source": props.get("source", "")}
    if specs:
        meta["phases"] = {name: {k: v for k, v in spec.items() if k != "variant"}
                          for name, spec in specs.items()}
    return meta


def session_options(ort):
    """One thread, quiet: onnxruntime's errors come back as exceptions, not log lines."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 4  # fatal only
    return options


def open_session(path: str | Path):
    """(onnxruntime session, metadata) of an ONNX bot file; BotFileError names the file
    and what is wrong, OnnxUnavailable when onnxruntime is not installed."""
    ort = runtime()
    path = Path(path)
    botfile.check_regular_file(path, "ONNX bot file", BotFileError)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise BotFileError(f"{path}: cannot read it ({e.strerror or e})") from None
    try:
        # from bytes: a model naming external weight files is refused, never followed
        session = ort.InferenceSession(data, sess_options=session_options(ort),
                                       providers=["CPUExecutionProvider"])
        props = dict(session.get_modelmeta().custom_metadata_map)
    except Exception as e:  # not protobuf, not ONNX, an operator it cannot run, ...
        raise BotFileError(f"{path}: not a readable ONNX model ({_reason(e)})") from None
    meta = parse_metadata(props, path)
    _check_graph(session, meta, path)
    return session, meta


def _reason(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text[:160] if text else type(e).__name__


def networks(meta: dict) -> dict[str, dict]:
    """The networks a bot file's metadata describes, name -> its metadata, main first."""
    out = {MAIN: meta}
    out.update({name: botfile.phase_meta(meta, name)
                for name in botfile.phase_names(meta, "metadata")})
    return out


def _check_graph(session, meta: dict, path) -> None:
    """Refuse a graph whose inputs and outputs are not those the metadata implies."""
    nets = networks(meta)
    want_in = {f"{name}_inputs": spec["inputs"] for name, spec in nets.items()}
    want_out = {f"{name}_probabilities": len(botfile.OUTPUTS) for name in nets}
    for kind, found, want in (("inputs", session.get_inputs(), want_in),
                              ("outputs", session.get_outputs(), want_out)):
        shapes = {a.name: a for a in found}
        if set(shapes) != set(want):
            raise BotFileError(f"{path}: graph {kind} {short(sorted(shapes))} are not "
                               f"{', '.join(sorted(want))}")
        for name, width in want.items():
            a = shapes[name]
            if a.type != "tensor(float)" or len(a.shape) != 2 or a.shape[1] != width:
                raise BotFileError(f"{path}: {name} is {a.type} {short(a.shape)}, not "
                                   f"float (N, {width})")


class OnnxNet:
    """Six-outcome probabilities of boards (N, 26) int8 from an ONNX bot file's networks,
    as ``model.numpy_net.NumpyNet`` gives them (it takes NumpyNet's place in
    ``NumpyEvaluator``)."""

    def __init__(self, session, meta: dict):
        self.session, self.meta = session, meta
        self.encoding, self.activation = meta["encoding"], meta["activation"]
        self.hidden = tuple(meta["hidden"])
        self.rules = get_variant(meta["variant"])
        self.checkers = self.rules.checkers
        self.networks = networks(meta)  # name -> metadata, main first
        self.phases = [name for name in self.networks if name != MAIN]
        self._encoders = {name: encoder(spec["encoding"])
                          for name, spec in self.networks.items()}
        self._empty = {f"{name}_inputs": np.zeros((0, spec["inputs"]), dtype=np.float32)
                       for name, spec in self.networks.items()}

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """(N, 26) -> (N, 6) float32 softmax probabilities for the player on roll, each
        board from its phase's network."""
        return by_phase(np.asarray(boards, dtype=np.int8), self.phases, self.run)

    def run(self, groups: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The networks on their boards, one onnxruntime call: {name: boards (n, 26)} ->
        {name: (n, 6) float32}. Padded inside ``model.rows.batch_independent`` as
        NumpyNet's are."""
        feed = dict(self._empty)
        for name, boards in groups.items():
            feed[f"{name}_inputs"] = self._encoders[name](padded(boards), self.checkers)
        names = list(groups)
        values = self.session.run([f"{name}_probabilities" for name in names], feed)
        return {name: np.asarray(v[:len(groups[name])], dtype=np.float32)
                for name, v in zip(names, values)}


def load_onnx_bot(path: str | Path, variant: str | None = None) -> NumpyNetBot:
    """A bot (``model.numpy_net.NumpyNetBot``, 0-ply) from an ONNX bot file; BotFileError
    when it cannot be used (also when made for another variant than ``variant``),
    OnnxUnavailable when onnxruntime is not installed."""
    session, meta = open_session(path)
    if variant is not None and meta["variant"] != variant:
        raise BotFileError(f"{path}: trained for {meta['variant']!r}, not {variant!r}")
    bot = NumpyNetBot(NumpyEvaluator(OnnxNet(session, meta)))
    bot.name = f"net:{path}"
    return bot


__all__ = ["FORMAT", "VERSION", "OnnxNet", "OnnxUnavailable", "is_onnx_file",
           "load_onnx_bot", "metadata_props", "open_session", "parse_metadata", "runtime"]
