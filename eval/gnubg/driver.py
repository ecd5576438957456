"""GNU Backgammon 1.07 as an outside program: finding Debian's ``gnubg``, running a
``gnubg -t -q`` script (commands on stdin) in a clean HOME with a time limit, long lists
of positions in chunks of a script each, and reading what its ``eval`` prints.

Every judge of ``eval.gnubg`` that runs the program (the money and match cube checks,
the matches through the external-player server, and the tests) does it through here;
the checker-play benchmark uses the PyPI package gnubg-nn instead and never runs it.

A failure is a GnubgError of one line saying what failed and why: the program missing,
not startable, or past its time limit, or an evaluation without a part we read.

What ``eval`` prints for a position before the roll (money session; in a match the
Match ID, '(Money: ...)' after the cubeless equity, and, with ``set output mwc on``,
'MWC' and percentages instead of equities)::

    Position ID:	4HPwATDgc/ABMA
    Match ID:	cAkAAAAAAAAA

    Evaluator: 	Contact
    ...
    Cube analysis
    2-ply cubeless equity +0.076
      0.525 0.149 0.007 - 0.475 0.125 0.005
    Cubeful equities:
    1. No double           +0.099
    2. Double, pass        +1.000  (+0.901)
    3. Double, take        -0.171  (-0.270)
    Proper cube action: No double, take (23.0%)

The Crawford game and a dead cube print no 'Cube analysis'.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Callable, Sequence

from gammon.eval.gnubg.cli import first_line

GNUBG_NAMES = ("gnubg", "/usr/games/gnubg")  # on PATH, else where Debian puts it
SECONDS = 600  # a gnubg process taking longer than this is stopped
CHUNK = 100  # items (positions, entries) per gnubg process
NOT_INSTALLED = "GNU Backgammon's gnubg program is not installed (Debian: apt-get install gnubg)"
ACTION_WORDS = ("No double", "No redouble", "Double", "Redouble", "Too good to double",
                "Too good to redouble", "Optional double", "Optional redouble")
RESPONSE_WORDS = ("take", "pass", "beaver")


class GnubgError(RuntimeError):
    """GNU Backgammon could not be run, or said something we cannot read."""


# --------------------------------------------------------------------- running gnubg

def find_gnubg() -> str | None:
    """The path of GNU Backgammon's program, or None (Debian puts it in /usr/games)."""
    for name in GNUBG_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def gnubg_env(home: str | Path) -> dict:
    """The environment gnubg runs in: HOME ``home`` (so that no user's settings apply),
    this PATH, the C locale (numbers with a decimal point)."""
    return {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C"}


def script_text(script: str | Sequence[str]) -> str:
    """A script as gnubg reads it: the text as given, or the commands one a line."""
    return script if isinstance(script, str) else "\n".join(script) + "\n"


def run_gnubg(script: str | Sequence[str], gnubg: str | None = None,
              timeout: float = SECONDS, home: str | Path | None = None) -> str:
    """gnubg's output (stdout, then stderr) of a script (text, or a list of commands)
    run as ``gnubg -t -q``; its HOME ``home``, else a fresh temporary folder, so that no
    user settings apply. GnubgError when it is not installed, cannot be started or runs
    past ``timeout`` seconds (it is stopped then). gnubg's exit status is not looked at:
    it says its errors in its output."""
    program = gnubg or find_gnubg()
    if program is None:
        raise GnubgError(NOT_INSTALLED)
    if home is not None:
        return _run(program, script_text(script), timeout, home)
    with tempfile.TemporaryDirectory(prefix="gnubg-home-") as folder:
        return _run(program, script_text(script), timeout, folder)


def _run(program: str, text: str, timeout: float, home: str | Path) -> str:
    try:
        run = subprocess.run([program, "-t", "-q"], input=text, capture_output=True,
                             text=True, timeout=timeout, env=gnubg_env(home), check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise GnubgError(f"running {program}: {first_line(e)}") from None
    return run.stdout + run.stderr


def gnubg_version(gnubg: str | None = None) -> str:
    """gnubg's first output line, e.g. 'GNU Backgammon 1.07.001 20230103'."""
    out = run_gnubg("", gnubg, timeout=60)
    return next((line.strip() for line in out.splitlines() if line.strip()), "unknown")


def evaluate_in_chunks(items: list, script: Callable[[list], str],
                       parse: Callable[[str, list], tuple[list, list]],
                       gnubg: str | None = None, chunk: int = CHUNK, log=None,
                       noun: str = "positions",
                       timeout: float = SECONDS) -> tuple[list, list[str]]:
    """gnubg's answers about many items, ``chunk`` per gnubg process: for each chunk the
    script ``script(part)`` is run and its output read by ``parse(output, part)``, which
    gives (what it found, notes on items left out); all found and all notes, in order.
    ``log`` (if given) is told 'gnubg: DONE/ALL NOUN' after each chunk."""
    found, notes = [], []
    for start in range(0, len(items), chunk):
        part = items[start:start + chunk]
        got, why = parse(run_gnubg(script(part), gnubg, timeout), part)
        found += got
        notes += why
        if log:
            log(f"gnubg: {start + len(part)}/{len(items)} {noun}")
    return found, notes


# ---------------------------------------------------------- reading gnubg's evaluations

_NUM = r"([+-]?\d+\.\d+)"
POSID_LINE = re.compile(r"^Position ID:\t(\S+)\s*$", re.MULTILINE)  # eval's, tab-separated
MATCHID_LINE = re.compile(r"^Match ID:\t(\S+)\s*$", re.MULTILINE)
_EVALUATOR = re.compile(r"^Evaluator:\s*(.+?)\s*$", re.MULTILINE)
# '2-ply cubeless equity +0.076', '2-ply cubeless equity -0.236 (Money: -0.192)' or
# '2-ply cubeless MWC  32.22% (Money: -0.192)', then '  0.429 0.105 0.004 - 0.571 0.152 0.006'
_CUBELESS = re.compile(r"^(\d+)-ply cubeless (equity|MWC)\s+" + _NUM + r"(%?)"
                       r"(?:\s*\(Money:\s*" + _NUM + r"\))?\s*\n\s*"
                       + r"\s+".join([_NUM] * 3) + r"\s+-\s+" + r"\s+".join([_NUM] * 3),
                       re.MULTILINE)
# '1. No double           -0.194' / '3. Double, take         29.48%  ( -3.10%)'
_EQUITY = re.compile(r"^\d\.\s+(.+?)\s+" + _NUM + r"%?(?:\s+\(\s*" + _NUM + r"%?\))?\s*$",
                     re.MULTILINE)
_PROPER = re.compile(r"^Proper cube action:\s*(.+?)\s*(?:\(([-\d.]+)%\))?\s*$", re.MULTILINE)
EQUITY_LABELS = {"no_double": ("No double", "No redouble"),
                 "double_take": ("Double, take", "Redouble, take"),
                 "double_pass": ("Double, pass", "Redouble, pass")}


def split_evaluations(output: str) -> list[str]:
    """gnubg's output cut into one piece per ``eval`` (each starts at its 'Position ID:'
    line, tab-separated, unlike the board diagram's)."""
    starts = [m.start() for m in POSID_LINE.finditer(output)]
    return [output[a:b] for a, b in zip(starts, starts[1:] + [len(output)])]


def parse_cube_analysis(text: str) -> dict:
    """The cube analysis of one ``eval`` piece (from its 'Position ID:' line on): posid,
    matchid (None without the line), evaluator, plies, unit ('emg': equities, 'mwc':
    match winning chances), cubeless (its equity, or MWC as a fraction), money_equity
    (None in a money session), probabilities (win, wg, wbg, lg, lbg), no_double,
    double_take, double_pass (MWC as fractions), action (gnubg's words), action_percent
    (the percentage after them, or None). GnubgError when a part is missing; the message
    says 'no cube analysis' where gnubg printed none (the Crawford game, a dead cube)."""
    posid, mid = POSID_LINE.search(text), MATCHID_LINE.search(text)
    if not posid:
        raise GnubgError(f"gnubg's evaluation has no Position ID: {first_line(text)!r}")
    out = {"posid": posid.group(1), "matchid": mid.group(1) if mid else None,
           "evaluator": (_EVALUATOR.search(text) or [None, "unknown"])[1]}
    start = text.find("\nCube analysis")
    if start < 0:
        at = f" at {out['matchid']}" if mid else ""
        raise GnubgError(f"no cube analysis of {out['posid']}{at}")
    cube = text[start:]
    cubeless, proper = _CUBELESS.search(cube), _PROPER.search(cube)
    if not (cubeless and proper):
        missing = "cubeless equity" if not cubeless else "proper cube action"
        raise GnubgError(f"gnubg's evaluation of {out['posid']} has no {missing}")
    mwc = cubeless.group(2) == "MWC"
    scale = 100.0 if mwc else 1.0
    win, wg, wbg, _lose, lg, lbg = (float(cubeless.group(i)) for i in range(6, 12))
    out.update({"plies": int(cubeless.group(1)), "unit": "mwc" if mwc else "emg",
                "cubeless": float(cubeless.group(3)) / scale,
                "money_equity": float(cubeless.group(5)) if cubeless.group(5) else None,
                "probabilities": [win, wg, wbg, lg, lbg], "action": proper.group(1),
                "action_percent": float(proper.group(2)) if proper.group(2) else None})
    lines = {m.group(1): float(m.group(2)) / scale for m in _EQUITY.finditer(cube)}
    for key, labels in EQUITY_LABELS.items():
        found = [lines[label] for label in labels if label in lines]
        if not found:
            raise GnubgError(f"gnubg's evaluation of {out['posid']} has no "
                             f"{labels[0]!r} equity")
        out[key] = found[0]
    return out


def parse_action(text: str) -> tuple[bool, bool] | None:
    """(double, take) of gnubg's proper cube action, e.g. 'Too good to double, pass' ->
    (False, False); None for words we do not know. A beaver is a take."""
    head, _, tail = text.partition(",")
    head, tail = head.strip(), tail.strip().split(" ")[0]
    if head not in ACTION_WORDS or tail not in RESPONSE_WORDS:
        return None
    return head in ("Double", "Redouble"), tail != "pass"


# ------------------------------------------------------- gnubg on a (pseudo) terminal

def run_gnubg_on_terminal(script: str | Sequence[str], gnubg: str | None = None,
                          timeout: float = SECONDS) -> str:
    """gnubg's output of a script run as ``gnubg -t -q`` with its standard output a
    pseudo-terminal: some of what gnubg prints (a rollout's table) it prints only to a
    terminal. The script comes on stdin, the output with its line ends as '\\n'. The
    same errors as ``run_gnubg``; a clean HOME of its own."""
    import pty
    import select
    import time
    program = gnubg or find_gnubg()
    if program is None:
        raise GnubgError(NOT_INSTALLED)
    with tempfile.TemporaryDirectory(prefix="gnubg-home-") as home:
        master, slave = pty.openpty()
        try:
            proc = subprocess.Popen([program, "-t", "-q"], stdin=subprocess.PIPE,
                                    stdout=slave, stderr=slave, env=gnubg_env(home),
                                    close_fds=True, start_new_session=True)
        except OSError as e:
            os.close(master)
            os.close(slave)
            raise GnubgError(f"running {program}: {first_line(e)}") from None
        os.close(slave)
        chunks: list[bytes] = []
        try:
            proc.stdin.write(script_text(script).encode())
            proc.stdin.close()
            deadline = time.monotonic() + timeout
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    proc.kill()
                    raise GnubgError(f"running {program}: no end after {timeout:g} s")
                ready, _, _ = select.select([master], [], [], min(left, 1.0))
                if not ready:
                    if proc.poll() is not None:
                        break
                    continue
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: the terminal's other end is closed
                    break
                if not data:
                    break
                chunks.append(data)
        finally:
            os.close(master)
            if proc.poll() is None:
                proc.kill()
            proc.wait()
    return b"".join(chunks).decode(errors="replace").replace("\r\n", "\n").replace("\r", "\n")
