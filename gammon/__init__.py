"""gammon: a backgammon AI trainer. The rules (``gammon.engine``), the networks
(``gammon.model``), training (``gammon.train``), evaluation (``gammon.eval``) and the
``gammon`` command.

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
