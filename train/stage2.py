"""The second stage of a training run, from its config's ``[stage2]`` table: generations of
"net k labels positions of its own games; net k + 1 learns the labels".

    RUN/stage2/gen1.gdr          generation 1's dataset (``train.rollout_targets``), rolled
                                 out by the TD net (RUN/stage1.pt, a copy of its model.pt)
    RUN/stage2/gen1/model.pt     net 1: the TD net trained on it (``train.supervised``),
    RUN/stage2/gen1/stage2.json  with its losses
    RUN/stage2/gen2.gdr ...      net 1's rollouts, and so on
    RUN/model.pt                 the last generation's net, when every generation is done

A generation's labels are rollouts (``stage2.plies`` 0), the net's own look-ahead at 1 or 2
plies (``plies``, ``train.rollout_targets``), or, with ``stage2.mine``, the positions where
the net at 0-ply and the net at ``plies`` part, labelled by the latter (``train.mining``:
expert iteration).

Generation k learns from the datasets of generations 1..k (the later ones made by better
nets), starting from the net it would replace. With ``stage2.accept_games`` the new net
replaces that net only when it is better (``accept``; the verdict in
``RUN/stage2/genK/acceptance.json``): otherwise the last accepted net labels the next
generation's positions and is the stage's result. A stopped run started again (``gammon train --resume``) goes on where it stopped:
the datasets resume (``train.rollout_data``: nothing lost or doubled after kill -9) and a
finished generation's net is kept. ``stage2.data`` names datasets that stand for the first
generation's (the shipped recipe starts from the committed ones).
"""

from __future__ import annotations

import glob
import json
import time
from pathlib import Path

from gammon.engine.files import write_atomic

from . import mining
from .config import Config
from .rollout_targets import TargetSettings, generate
from .supervised import FitSettings, StageError, supervise

ACCEPTANCE = "acceptance.json"

STAGE1 = "stage1.pt"


def target_settings(config: Config, generation: int) -> TargetSettings:
    """The rollout settings of a generation (its seed: the run's seed plus the generation)."""
    s = config.stage2
    return TargetSettings(positions=s.positions, seed=config.train.seed + generation,
                          trials=s.trials, truncate=None if s.truncate < 0 else s.truncate,
                          vr=s.vr, explore=s.explore, within=s.within, opponent=s.opponent,
                          opponent_share=s.opponent_share, validation=s.validation,
                          variant=config.train.variant, alternatives=s.alternatives,
                          plies=0 if s.mine else s.plies)


def mining_settings(config: Config, generation: int) -> mining.MiningSettings:
    """The disagreement mining of a generation (its seed as ``target_settings``')."""
    s = config.stage2
    return mining.MiningSettings(
        positions=s.positions, seed=config.train.seed + generation, plies=s.plies,
        threshold=s.threshold, ordinary=s.ordinary, explore=s.explore, within=s.within,
        opponent=s.opponent, opponent_share=s.opponent_share,
        crashed_share=s.crashed_share, validation=s.validation, variant=config.train.variant,
        keep_deep=s.keep_deep)


def fit_settings(config: Config, generation: int) -> FitSettings:
    s = config.stage2
    return FitSettings(epochs=s.epochs, batch_size=s.batch_size,
                       learning_rate=s.learning_rate, patience=s.patience,
                       seed=config.train.seed + generation, crashed=s.crashed)


def given_data(patterns: str) -> list[Path]:
    """The datasets ``stage2.data`` names (paths or globs separated by commas), each
    pattern's sorted; StageError when a pattern names none."""
    out: list[Path] = []
    for pattern in (p.strip() for p in patterns.split(",")):
        if not pattern:
            continue
        found = sorted(Path(p) for p in glob.glob(pattern)) \
            if any(c in pattern for c in "*?[") else [Path(pattern)]
        if not found or not all(p.is_file() for p in found):
            raise StageError(f"stage2.data: no dataset at {pattern}")
        out += [p for p in found if p not in out]
    if not out:
        raise StageError("stage2.data: names no dataset")
    return out


def accept(candidate: Path, incumbent: Path, games: int, seed: int, variant: str,
           log=print) -> dict:
    """Does ``candidate`` replace ``incumbent``? Both at 0-ply: ``games`` paired cubeless
    games head to head (``eval.playing.match``), and the checker-play benchmark's mean
    loss (``eval.gnubg.benchmark`` on its committed decisions: no gnubg needed). Accepted
    when it beats it (the 95% interval above 0), or when its benchmark loss is at least 5%
    lower and it does not lose (the interval reaches 0 or above)."""
    from gammon.eval.bots.registry import make_bot
    from gammon.eval.gnubg import benchmark
    from gammon.eval.playing.match import run_match
    result = run_match(make_bot(f"net:{candidate}", None, variant),
                       make_bot(f"net:{incumbent}", None, variant), games, seed,
                       variant, progress=False)
    ppg, half = result.ppg_a, result.ppg_a_ci95
    out = {"candidate": str(candidate), "incumbent": str(incumbent), "games": games,
           "seed": seed, "ppg": ppg, "ppg_ci95": half}
    if variant == "standard":
        data = benchmark.load()
        out["benchmark_mp"] = {
            name: benchmark.score_bot(name, make_bot(f"net:{net}", None, variant), data)[0]
            ["loss_mp"] for name, net in (("candidate", candidate), ("incumbent", incumbent))}
        lower = out["benchmark_mp"]["candidate"] <= 0.95 * out["benchmark_mp"]["incumbent"]
    else:
        lower = False
    out["beats"] = bool(ppg - half > 0)
    out["benchmark_5pct_lower_not_losing"] = bool(lower and ppg + half >= 0)
    out["accepted"] = out["beats"] or out["benchmark_5pct_lower_not_losing"]
    log(f"acceptance: {ppg:+.4f} ± {half:.4f} ppg over {games:,} paired games"
        + (f"; benchmark {out['benchmark_mp']['candidate']:.2f} mp against "
           f"{out['benchmark_mp']['incumbent']:.2f}" if "benchmark_mp" in out else "")
        + f": {'accepted' if out['accepted'] else 'kept the last net'}")
    return out


def run_stage2(config: Config, out: str | Path, log=print, progress=None,
               writer=None) -> Path:
    """Every generation of the config's second stage in the run folder ``out`` (whose
    model.pt is the TD stage's net); the last net, also written to ``out/model.pt``."""
    from gammon.eval.bots.registry import make_bot
    out = Path(out)
    s = config.stage2
    folder = out / "stage2"
    folder.mkdir(parents=True, exist_ok=True)
    stage1 = out / STAGE1
    if not stage1.exists():
        # a stage from a given net (no TD games): that file itself, every network it
        # holds (a crashed one too), not the TD run's copy of the networks it trains
        given = config.train.games == 0 and config.model.init
        write_atomic(stage1, Path(config.model.init if given else out / "model.pt")
                     .read_bytes())
    net, datasets, history = stage1, [], []
    for g in range(1, s.generations + 1):
        started = time.perf_counter()
        if g == 1 and s.data:
            datasets.extend(given_data(s.data))
            log(f"generation 1: the datasets of stage2.data ({len(datasets)} files)")
        else:
            data = folder / f"gen{g}.gdr"
            bot = make_bot(f"net:{net}", None, config.train.variant)
            if s.mine:
                log(f"generation {g}: mining {s.positions:,} positions where {net} at 0-ply "
                    f"and at {s.plies}-ply part")
                from gammon.eval.analysis.rollouts import one_thread
                with one_thread():
                    mining.generate(data, bot, str(net), mining_settings(config, g), log)
            else:
                how = f"labelling at {s.plies}-ply" if s.plies else "rolling out"
                log(f"generation {g}: {how} {s.positions:,} positions with {net}")
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
        entry = {"generation": g, "net": str(model), "rows": result["rows"],
                 "seconds": time.perf_counter() - started,
                 "validation_loss": {k: v.get("validation_loss") for k, v in
                                     result["networks"].items()}}
        if s.accept_games:
            verdict_file = model.parent / ACCEPTANCE
            if verdict_file.exists():
                verdict = json.loads(verdict_file.read_text())
            else:
                verdict = accept(model, net, s.accept_games, config.train.seed + 1000 * g,
                                 config.train.variant, log)
                write_atomic(verdict_file, (json.dumps(verdict, indent=1) + "\n").encode())
            entry["acceptance"] = verdict
            if verdict["accepted"]:
                net = model
        else:
            net = model
        history.append(entry)
    write_atomic(out / "model.pt", Path(net).read_bytes())
    write_atomic(folder / "generations.json", (json.dumps(history, indent=1) + "\n").encode())
    return net
