"""The second stage of a training run, from its config's ``[stage2]`` table: generations of
"net k rolls out positions of its own games; net k + 1 learns the results".

    RUN/stage2/gen1.gdr          generation 1's dataset (``train.rollout_targets``), rolled
                                 out by the TD net (RUN/stage1.pt, a copy of its model.pt)
    RUN/stage2/gen1/model.pt     net 1: the TD net trained on it (``train.supervised``),
    RUN/stage2/gen1/stage2.json  with its losses
    RUN/stage2/gen2.gdr ...      net 1's rollouts, and so on
    RUN/model.pt                 the last generation's net, when every generation is done

Generation k learns from the datasets of generations 1..k (the later ones made by better
nets). A stopped run started again (``gammon train --resume``) goes on where it stopped:
the datasets resume (``train.rollout_data``: nothing lost or doubled after kill -9) and a
finished generation's net is kept. ``stage2.data`` names datasets that stand for the first
generation's (the shipped recipe starts from the committed ones).
"""

from __future__ import annotations

import glob
import json
import time
from pathlib import Path

from engine.files import write_atomic

from .config import Config
from .rollout_targets import TargetSettings, generate
from .supervised import FitSettings, StageError, supervise

STAGE1 = "stage1.pt"


def target_settings(config: Config, generation: int) -> TargetSettings:
    """The rollout settings of a generation (its seed: the run's seed plus the generation)."""
    s = config.stage2
    return TargetSettings(positions=s.positions, seed=config.train.seed + generation,
                          trials=s.trials, truncate=None if s.truncate < 0 else s.truncate,
                          vr=s.vr, explore=s.explore, within=s.within, opponent=s.opponent,
                          opponent_share=s.opponent_share, validation=s.validation,
                          variant=config.train.variant, alternatives=s.alternatives)


def fit_settings(config: Config, generation: int) -> FitSettings:
    s = config.stage2
    return FitSettings(epochs=s.epochs, batch_size=s.batch_size,
                       learning_rate=s.learning_rate, patience=s.patience,
                       seed=config.train.seed + generation, crashed=s.crashed)


def given_data(pattern: str) -> list[Path]:
    """The datasets ``stage2.data`` names, sorted; StageError when it names none."""
    found = sorted(Path(p) for p in glob.glob(pattern)) if any(c in pattern for c in "*?[") \
        else [Path(pattern)]
    if not found or not all(p.is_file() for p in found):
        raise StageError(f"stage2.data: no dataset at {pattern}")
    return found


def run_stage2(config: Config, out: str | Path, log=print, progress=None,
               writer=None) -> Path:
    """Every generation of the config's second stage in the run folder ``out`` (whose
    model.pt is the TD stage's net); the last net, also written to ``out/model.pt``."""
    from eval.bots.registry import make_bot
    out = Path(out)
    s = config.stage2
    folder = out / "stage2"
    folder.mkdir(parents=True, exist_ok=True)
    stage1 = out / STAGE1
    if not stage1.exists():
        write_atomic(stage1, (out / "model.pt").read_bytes())
    net, datasets, history = stage1, [], []
    for g in range(1, s.generations + 1):
        started = time.perf_counter()
        if g == 1 and s.data:
            datasets.extend(given_data(s.data))
            log(f"generation 1: the datasets of stage2.data ({len(datasets)} files)")
        else:
            data = folder / f"gen{g}.gdr"
            bot = make_bot(f"net:{net}", None, config.train.variant)
            log(f"generation {g}: rolling out {s.positions:,} positions with {net}")
            generate(data, bot, str(net), target_settings(config, g), progress, log)
            datasets.append(data)
        model = folder / f"gen{g}" / "model.pt"
        result_file = model.parent / "stage2.json"
        if model.exists() and result_file.exists():
            result = json.loads(result_file.read_text())
            log(f"generation {g}: trained already ({model})")
        else:
            log(f"generation {g}: training on {len(datasets)} dataset(s)")
            result = supervise(net, datasets, model.parent, fit_settings(config, g), log,
                               writer)
        history.append({"generation": g, "net": str(model), "rows": result["rows"],
                        "seconds": time.perf_counter() - started,
                        "validation_loss": {k: v.get("validation_loss") for k, v in
                                            result["networks"].items()}})
        net = model
    write_atomic(out / "model.pt", Path(net).read_bytes())
    write_atomic(folder / "generations.json", (json.dumps(history, indent=1) + "\n").encode())
    return net
