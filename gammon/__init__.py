"""gammon: a backgammon AI trainer. The rules (``gammon.engine``), the networks
(``gammon.model``), training (``gammon.train``), evaluation (``gammon.eval``) and the
``gammon`` command; and the public API, ``from gammon import Position, hint, play_games,
...`` (docs/library.md), whose names are imported when first used (below).

One namespace: everything installs under ``gammon``, so a user's own ``model.py`` or
``train.py`` beside their notebook cannot shadow a part of gammon (docs/design.md, "One
installed name"). In the repository the four parts are the top-level folders ``engine/``,
``model/``, ``train/`` and ``eval/``; an installed wheel holds them inside ``gammon/``
(pyproject.toml's package-dir), and a source tree (a clone, an editable install, a
benchmark's baseline copy) finds them beside this folder through ``__path__`` below."""

import os as _os

_HERE = _os.path.dirname(_os.path.abspath(__file__))
if not _os.path.isdir(_os.path.join(_HERE, "engine")):  # a source tree: engine/ beside gammon/
    __path__.append(_os.path.dirname(_HERE))  # noqa: F821 - a package's own __path__

# --- the public API: ``from gammon import Position, hint, play_games, ...`` (docs/library.md).
# Each name is imported from its module the first time it is asked for (PEP 562), so that
# ``import gammon``, which runs before every ``gammon.engine...`` import, stays cheap and
# imports neither NumPy nor torch; type checkers and IDEs read the imports below.
import typing as _typing

if _typing.TYPE_CHECKING:
    from gammon.api_analysis import (Evaluation, RankedPlay, RolloutValue, bot, evaluate,
                                     hint, rollout)
    from gammon.api_games import GamesResult, MatchesResult, play_games, play_matches
    from gammon.api_position import Play, Position
    from gammon.api_train import TrainingRun, train_network
    from gammon.engine.policy import Bot

__all__ = ["Position", "Play", "Bot", "bot", "hint", "RankedPlay", "evaluate", "Evaluation",
           "rollout", "RolloutValue", "play_games", "GamesResult", "play_matches",
           "MatchesResult", "train_network", "TrainingRun"]

_HOME = {  # each public name's module
    "Position": "gammon.api_position", "Play": "gammon.api_position",
    "Bot": "gammon.engine.policy",
    "bot": "gammon.api_analysis", "hint": "gammon.api_analysis",
    "RankedPlay": "gammon.api_analysis", "evaluate": "gammon.api_analysis",
    "Evaluation": "gammon.api_analysis", "rollout": "gammon.api_analysis",
    "RolloutValue": "gammon.api_analysis",
    "play_games": "gammon.api_games", "GamesResult": "gammon.api_games",
    "play_matches": "gammon.api_games", "MatchesResult": "gammon.api_games",
    "train_network": "gammon.api_train", "TrainingRun": "gammon.api_train",
}


def __getattr__(name: str) -> object:
    """A public name, imported from its module when first asked for."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'gammon' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
