"""``gammon plot``: the learning curve of a training run as a PNG (matplotlib, optional)."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from ..errors import UsageError

HELP = """\
Draw the learning curve of a training run from RUN/evaluations.jsonl: games trained against
points per game (with its 95% interval) and winning rate, both against pubeval. Writes a
PNG, RUN/learning_curve.png unless --out says otherwise. Needs matplotlib, an optional
extra: pip install 'gammon[plot]' (or pip install matplotlib).

A run with a second stage (a [stage2] table: rollouts, then supervised learning) also gets
RUN/stage2_curve.png: each network's training and validation loss by epoch, one colour
per generation, from RUN/stage2/genK/stage2.jsonl (a run of stage 2 alone has only this).

examples:
  gammon plot runs/default
  gammon plot runs/stage2
  gammon plot runs/strong --out strong.png
"""

EVALUATIONS = "evaluations.jsonl"
DEFAULT_NAME = "learning_curve.png"
MAX_BYTES = 64 * 2**20  # one line per evaluation: a few hundred bytes each
FIELDS = ("games_trained", "ppg", "ppg_ci95", "win_rate")
INSTALL = "pip install 'gammon[plot]' (or pip install matplotlib)"


def add_parser(sub) -> None:
    p = sub.add_parser("plot", help="draw a run's learning curve (needs matplotlib)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run_dir", metavar="RUN",
                   help="run directory (holding evaluations.jsonl), or the file itself")
    p.add_argument("--out", metavar="FILE.png",
                   help=f"the PNG to write (default: RUN/{DEFAULT_NAME})")
    p.set_defaults(run=run)


def read_evaluations(path: str | Path) -> list[dict]:
    """The evaluations of a run, one per games_trained (the last line wins), in order;
    UsageError naming the file and line for anything missing, empty or corrupt."""
    path = Path(path)
    if path.is_dir():
        path = path / EVALUATIONS
    try:
        if not path.is_file():
            what = "not a regular file" if path.exists() else "no such file"
            raise UsageError(f"{path}: {what} (a run writes it at its first evaluation "
                             "against pubeval)")
        if path.stat().st_size > MAX_BYTES:
            raise UsageError(f"{path}: {path.stat().st_size:,} bytes, too large for a run's "
                             f"evaluations (at most {MAX_BYTES // 2**20} MB)")
        data = path.read_bytes()
    except OSError as e:
        raise UsageError(f"{path}: cannot read it ({e.strerror or e})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UsageError(f"{path}: not UTF-8 text (byte {e.start}); not a run's "
                         "evaluations") from None
    by_games = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            raise UsageError(f"{path}: line {number} is not JSON: {_quote(line)}") from None
        if not isinstance(entry, dict):
            raise UsageError(f"{path}: line {number} is not a JSON object: {_quote(line)}")
        for key in FIELDS:
            value = entry.get(key)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                    not math.isfinite(value) or (key != "ppg" and value < 0):
                kind = "a finite number" if key == "ppg" else "a finite number >= 0"
                raise UsageError(f"{path}: line {number}: {key} is "
                                 f"{_quote(json.dumps(value))}, not {kind}")
        by_games[entry["games_trained"]] = entry
    if not by_games:
        raise UsageError(f"{path}: empty; the run has no evaluation against pubeval yet")
    return [by_games[g] for g in sorted(by_games)]


def _quote(text: str, limit: int = 80) -> str:
    text = repr(text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def draw(evaluations: list[dict], out: str | Path, title: str = "") -> None:
    """Write the learning curve as a PNG to ``out`` atomically; ImportError without
    matplotlib, ``engine.files.WriteError`` when it cannot be written. Uses the Agg
    canvas: no display, no pyplot state."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter

    games = [e["games_trained"] for e in evaluations]
    ppg = [e["ppg"] for e in evaluations]
    ci = [e["ppg_ci95"] for e in evaluations]
    wins = [100 * e["win_rate"] for e in evaluations]
    fig = Figure(figsize=(8, 6), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=(3, 2))
    top.fill_between(games, [p - c for p, c in zip(ppg, ci)],
                     [p + c for p, c in zip(ppg, ci)], alpha=0.25, linewidth=0,
                     label="95% interval")
    top.plot(games, ppg, marker="o", markersize=3, label="points per game")
    top.axhline(0, color="grey", linewidth=0.8)
    top.set_ylabel("points per game v pubeval")
    top.legend(loc="lower right")
    top.grid(alpha=0.3)
    bottom.plot(games, wins, marker="o", markersize=3, color="tab:green")
    bottom.axhline(50, color="grey", linewidth=0.8)
    bottom.set_ylabel("wins v pubeval (%)")
    bottom.set_xlabel("games trained")
    bottom.grid(alpha=0.3)
    bottom.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:,.0f}"))
    n = evaluations[-1].get("games")
    fig.suptitle(f"{title}: learning curve" + (f" ({n:,} games against pubeval per point)"
                                               if isinstance(n, int) else ""))
    from gammon.engine.files import write_atomic
    write_atomic(out, lambda f: fig.savefig(f, format="png"))


STAGE2_NAME = "stage2_curve.png"


def stage2_logs(run_dir: Path) -> list[tuple[str, list[dict]]]:
    """(generation, its epoch lines) of a run's second stage, in order; [] for none.
    UsageError for a line that is not one the stage writes."""
    out = []
    for log in sorted(run_dir.glob("stage2/gen*/stage2.jsonl"),
                      key=lambda p: int(p.parent.name[3:]) if p.parent.name[3:].isdigit()
                      else 0):
        lines = []
        for number, line in enumerate(log.read_text(errors="replace").splitlines(), 1):
            try:
                entry = json.loads(line)
                assert isinstance(entry, dict) and isinstance(entry["network"], str)
                float(entry["train_loss"]), float(entry["validation_loss"]), int(entry["epoch"])
            except Exception:  # noqa: BLE001 - any damage is the same one line
                raise UsageError(f"{log}: line {number} is not a stage-2 epoch line: "
                                 f"{_quote(line)}") from None
            lines.append(entry)
        out.append((log.parent.name, lines))
    return out


def draw_stage2(logs: list[tuple[str, list[dict]]], out: str | Path, title: str = "") -> None:
    """The second stage's losses as a PNG: one panel per network, train (dashed) and
    validation (solid) cross-entropy by epoch, a colour per generation."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    networks = sorted({e["network"] for _, lines in logs for e in lines},
                      key=lambda n: ("main", "crashed", "race").index(n)
                      if n in ("main", "crashed", "race") else 9)
    fig = Figure(figsize=(4 * max(len(networks), 1), 4), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, max(len(networks), 1), squeeze=False)[0]
    for ax, network in zip(axes, networks):
        for k, (generation, lines) in enumerate(logs):
            mine = [e for e in lines if e["network"] == network]
            if not mine:
                continue
            epochs = [e["epoch"] for e in mine]
            colour = f"C{k % 10}"
            ax.plot(epochs, [e["validation_loss"] for e in mine], color=colour,
                    label=f"{generation} validation")
            ax.plot(epochs, [e["train_loss"] for e in mine], color=colour, linestyle="--",
                    label=f"{generation} train")
        ax.set_title(network)
        ax.set_xlabel("epoch")
        ax.set_ylabel("cross-entropy")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"{title}: second stage")
    from gammon.engine.files import write_atomic
    write_atomic(out, lambda f: fig.savefig(f, format="png"))


def run(args) -> int:
    source = Path(args.run_dir)
    run_dir = source if source.is_dir() else source.parent
    out = Path(args.out) if args.out else run_dir / DEFAULT_NAME
    logs = stage2_logs(run_dir) if source.is_dir() else []
    if logs and not (run_dir / EVALUATIONS).exists():
        return _stage2_only(args, run_dir, logs)
    evaluations = read_evaluations(source)
    if out.is_dir():
        raise UsageError(f"--out {out}: a directory; give the PNG file to write")
    if not out.parent.is_dir():
        raise UsageError(f"--out {out}: no such directory {out.parent}")
    _drawn(lambda: draw(evaluations, out, run_dir.resolve().name or str(run_dir)), out)
    print(f"wrote {out}: {len(evaluations)} evaluations, "
          f"{evaluations[0]['games_trained']:,} to {evaluations[-1]['games_trained']:,} "
          "games trained")
    if logs:
        _draw_stage2(run_dir / STAGE2_NAME, run_dir, logs)
    return 0


def _stage2_only(args, run_dir: Path, logs) -> int:
    out = Path(args.out) if args.out else run_dir / STAGE2_NAME
    if out.is_dir() or not out.parent.is_dir():
        raise UsageError(f"--out {out}: give a PNG file in an existing directory")
    _draw_stage2(out, run_dir, logs)
    return 0


def _draw_stage2(out: Path, run_dir: Path, logs) -> None:
    _drawn(lambda: draw_stage2(logs, out, run_dir.resolve().name or str(run_dir)), out)
    print(f"wrote {out}: the second stage, {len(logs)} generation(s)")


def _drawn(drawing, out: Path) -> None:
    """Run ``drawing`` (which writes ``out``): a missing matplotlib is a UsageError saying
    what to install; an error of the drawing itself is one WriteError line about ``out``."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError(f"drawing needs matplotlib, which is not installed: {INSTALL}") \
            from None
    from gammon.engine.files import WriteError, reason
    try:
        drawing()
    except WriteError:  # one line: "cannot write OUT: No space left on device"
        raise
    except OSError as e:  # from the drawing itself
        raise WriteError(out, reason(e), e.errno) from None
