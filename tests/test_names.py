"""One installed name (issue 40, point 5): everything imports as ``gammon.*``, so a user's
own ``model.py``, ``train.py``, ``engine.py`` or ``eval.py`` beside their notebook cannot
shadow a part of gammon, and pyproject.toml lists every package the wheel must hold."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PARTS = ("engine", "model", "train", "eval")


def _pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _package_folders():
    """Every folder of the source tree that is a package, by its installed name."""
    names = set()
    for part in PARTS + ("gammon",):
        for init in (ROOT / part).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT).parts
            names.add(".".join(rel if part == "gammon" else ("gammon",) + rel))
    return names


def test_pyproject_lists_every_package_folder():
    setup = _pyproject()["tool"]["setuptools"]
    listed = set(setup["packages"])
    # a new folder must be listed, or the wheel lacks it; gammon.checkpoints is data only
    assert listed == _package_folders() | {"gammon.checkpoints"}
    assert setup["package-dir"] == {f"gammon.{p}": p for p in PARTS + ("checkpoints",)}


def test_no_source_file_imports_a_bare_part():
    """Inside the tree every import names ``gammon.X``: a bare ``import model`` would pick up
    the user's own model.py first."""
    bad = []
    for part in PARTS + ("gammon", "tests", "examples"):
        for path in (ROOT / part).rglob("*.py"):
            for n, line in enumerate(path.read_text().splitlines(), 1):
                words = line.strip().split()
                if (len(words) >= 2 and words[0] in ("import", "from")
                        and words[1].split(".")[0] in PARTS):
                    bad.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert bad == []


SHADOWS = {f"{p}.py": f"raise ImportError('the user\\'s own {p}.py was imported')\n"
           for p in PARTS}


@pytest.fixture
def user_folder(tmp_path):
    """A user's working folder holding their own model.py, train.py, engine.py, eval.py."""
    for name, text in SHADOWS.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "engine").mkdir()  # and a folder of that name, no __init__: a namespace
    return tmp_path


def _run(args, cwd):
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)


def test_the_command_works_beside_the_users_own_modules(user_folder):
    done = _run(["-m", "gammon.cli", "hint", "4HPwATDgc/ABMA", "31"], user_folder)
    assert done.returncode == 0, done.stderr
    assert "8/5 6/5" in done.stdout  # the opening 3-1 makes the five point


def test_the_library_imports_beside_the_users_own_modules(user_folder):
    code = ("from gammon.eval.analysis import ranked\n"
        "from gammon.engine.formats.posid import *\n"
        "import gammon.model.player, gammon.train.config\n"
        "import sys\n"
        "assert not any(m in sys.modules for m in ('engine', 'model', 'train', 'eval'))\n"
        "print('ok')\n")
    done = _run(["-c", code], user_folder)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
    # and the user's own module is still theirs
    own = _run(["-c", "import model"], user_folder)
    assert "the user's own model.py was imported" in own.stderr


def test_a_built_wheel_holds_every_part_and_the_shipped_nets(tmp_path, user_folder):
    """The wheel, installed (not editable) in a fresh venv, answers a hint with the shipped
    net from a folder that holds the user's own model.py and friends."""
    pytest.importorskip("setuptools")  # --no-build-isolation builds with this one
    wheels, venv = tmp_path / "wheels", tmp_path / "venv"
    built = _run(["-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", str(ROOT),
                  "-w", str(wheels)], tmp_path)
    assert built.returncode == 0, built.stderr
    wheel = next(wheels.glob("gammon-*.whl"))
    import zipfile
    names = set(zipfile.ZipFile(wheel).namelist())
    for package in _pyproject()["tool"]["setuptools"]["packages"]:
        folder = package.replace(".", "/")
        assert any(n.startswith(folder + "/") for n in names), package
    assert {"gammon/py.typed", "gammon/checkpoints/default.pt",
            "gammon/engine/mets/kazaross-xg2.met"} <= names
    assert not any(n.startswith(("engine/", "model/", "train/", "eval/")) for n in names)
    made = _run(["-m", "venv", "--system-site-packages", str(venv)], tmp_path)
    assert made.returncode == 0, made.stderr
    python = str(venv / "bin" / "python")
    done = subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                           str(wheel)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    hint = subprocess.run([python, "-m", "gammon.cli", "hint", "4HPwATDgc/ABMA", "31"],
                          cwd=user_folder, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    assert hint.returncode == 0, hint.stderr
    assert "8/5 6/5" in hint.stdout
    where = subprocess.run([python, "-c", "import gammon.engine; print(gammon.engine.__file__)"],
                           cwd=user_folder, capture_output=True, text=True, timeout=300)
    assert str(venv) in where.stdout  # the wheel's copy, not the source tree
