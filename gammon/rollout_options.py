"""The rollout options every command that rolls out shares (``gammon rollout``, and
``--rollout`` of ``hint``, ``analyze`` and ``cube``): how many trials, the dice's seed,
truncation, variance reduction, quasi-random dice, the bear-off stop, the progress bar;
and the ``eval.analysis.rollouts.Settings`` they make."""

from __future__ import annotations

from gammon.eval.analysis.rollouts import DEFAULT_TRIALS, MAX_PLIES, MAX_TRIALS, RolloutError, Settings

from .errors import UsageError
from .options import cube_settings
from .positions import SEED_RANGE, seed_type, whole_type

ONLY_WITH_ROLLOUT = ("trials", "truncate", "no_vr", "no_quasi", "no_bearoff", "no_progress")


def add_rollout_settings(p, seed: bool = True, progress: bool = True) -> None:
    """--trials, --seed (unless the command has its own), --truncate, --no-vr, --no-quasi,
    --no-bearoff, --no-progress (unless the command has its own)."""
    p.add_argument("--trials", type=whole_type("--trials", 1, MAX_TRIALS), default=None,
                   metavar="N", help=f"trials per position, 1 to {MAX_TRIALS:,} (default "
                                     f"{DEFAULT_TRIALS:,})")
    if seed:
        p.add_argument("--seed", type=seed_type, default=None,
                       help=f"seed of the dice, {SEED_RANGE} (default: a fresh one, printed)")
    p.add_argument("--truncate", type=whole_type("--truncate", 0, MAX_PLIES), default=None,
                   metavar="N", help="stop each trial after N plies and take the net's value "
                                     "of the position reached (0: of the position itself)")
    p.add_argument("--no-vr", action="store_true", help="no variance reduction")
    p.add_argument("--no-quasi", action="store_true",
                   help="random dice from the first roll (no stratified first two rolls)")
    p.add_argument("--no-bearoff", action="store_true",
                   help="play races to the end instead of stopping in the bear-off database")
    if progress:
        p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def add_rollout_flag(p, what: str) -> None:
    """--rollout (``what`` it rolls out, for --help) with the rollout settings."""
    p.add_argument("--rollout", action="store_true",
                   help=f"roll out {what} (settings: --trials, --seed, --truncate, --no-vr, "
                        f"--no-quasi, --no-bearoff, as for `gammon rollout`)")
    add_rollout_settings(p, seed=not any(a.dest == "seed" for a in p._actions),
                         progress=not any(a.dest == "no_progress" for a in p._actions))


def check_rollout_args(args, names=ONLY_WITH_ROLLOUT) -> None:
    """UsageError for a rollout setting (``names``) given without --rollout."""
    if getattr(args, "rollout", False):
        return
    for name in names:
        value = getattr(args, name, None)
        if value not in (None, False):
            raise UsageError(f"--{name.replace('_', '-')} is a rollout setting: add --rollout")


def rollout_seed(args) -> int:
    """The seed of the dice: --seed, else a fresh one (printed with the results)."""
    from gammon.eval.playing.match import new_seed
    return new_seed() if args.seed is None else args.seed


def rollout_settings(args, seed: int, cubeful: bool = False,
                     until_se: float | None = None) -> Settings:
    """The Settings of the options (UsageError for what a rollout cannot take)."""
    efficiency, jacoby, beavers = cube_settings(args)
    settings = Settings(trials=DEFAULT_TRIALS if args.trials is None else args.trials,
                        seed=seed, truncate=args.truncate, vr=not args.no_vr,
                        quasi=not args.no_quasi, bearoff=not args.no_bearoff,
                        cubeful=cubeful, efficiency=efficiency, jacoby=jacoby,
                        beavers=beavers, until_se=until_se, variant=args.variant)
    try:
        settings.check()
    except RolloutError as e:
        raise UsageError(str(e)) from None
    return settings


def check_rollout_bot(settings: Settings, bot) -> None:
    """UsageError where the settings need probabilities the bot has none of."""
    from gammon.eval.analysis.rollouts import check_bot
    from gammon.eval.bots.cube import probability_source
    try:
        check_bot(settings, probability_source(bot) is not None)
    except RolloutError as e:
        raise UsageError(str(e)) from None


def progress_bar(total: int, args):
    """A tqdm bar of trials on stderr (off with --no-progress or when stderr is no
    terminal)."""
    from tqdm import tqdm
    return tqdm(total=total, unit="trial", disable=True if args.no_progress else None,
                leave=False, dynamic_ncols=True)


def settings_words(s: dict) -> str:
    """A rollout's settings (``Settings.to_dict`` with "bot") in words."""
    words = [f"bot {s['bot']}", f"seed {s['seed']}", f"variant {s['variant']}"]
    trials = f"{s['trials']:,} trials at most" if s["until_se"] else f"{s['trials']:,} trials"
    if s["until_se"]:
        trials += f" (until the s.e. is below {s['until_se']:g})"
    words.append(trials)
    words.append("dice quasi-random (first two rolls stratified)" if s["quasi"]
                 else "dice random")
    words.append(f"variance reduction {s['variance_reduction']}")
    words.append(f"truncated after {s['truncate']} plies" if s["truncate"] is not None
                 else "played to the end")
    if s["bearoff"]:
        words.append("stopped in the bear-off database")
    if s["cubeful"]:
        words.append(f"cubeful (efficiency {s['efficiency']:g}, Jacoby "
                     f"{'on' if s['jacoby'] else 'off'}, beavers "
                     f"{'on' if s['beavers'] else 'off'})")
    else:
        words.append("cubeless")
    return ", ".join(words)


__all__ = ["add_rollout_flag", "add_rollout_settings", "check_rollout_args",
           "check_rollout_bot", "progress_bar", "rollout_seed", "rollout_settings",
           "settings_words"]
