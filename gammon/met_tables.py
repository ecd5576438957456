"""Match equity tables named on the command line (``gammon met --file``, ``gammon review
--met``): a table that ships with gammon, by name, or a file in engine/met.py's text format
or GNU Backgammon's XML; every problem a one-line UsageError."""

from __future__ import annotations

import sys

from gammon.engine.met import NAMED, MatchEquityTable, named_met, read_met

from .errors import UsageError, quote

FILE_LIMIT = 1 << 20  # bytes: a 64-point table in the text format is about 30 KB


def read_table_file(path: str, option: str = "--file") -> MatchEquityTable:
    """The table in ``path`` ('-': stdin); a UsageError naming the file (and the line, for
    what the text format's parser finds wrong)."""
    name = quote(path)
    try:
        if path == "-":
            data = sys.stdin.buffer.read(FILE_LIMIT + 1) if hasattr(sys.stdin, "buffer") \
                else sys.stdin.read(FILE_LIMIT + 1).encode("utf-8", "replace")
            name = "stdin"
        else:
            with open(path, "rb") as f:
                data = f.read(FILE_LIMIT + 1)
    except IsADirectoryError:
        raise UsageError(f"{option} {name} is a directory, not a table file") from None
    except FileNotFoundError as e:
        raise UsageError(f"cannot read {option} {name}: {e.strerror or e} (nor is it the "
                         f"name of a table that ships: {', '.join(NAMED)})") from None
    except OSError as e:
        raise UsageError(f"cannot read {option} {name}: {e.strerror or e}") from None
    except ValueError as e:  # a NUL byte or an unpaired surrogate in the name
        raise UsageError(f"cannot read {option} {name}: {e}") from None
    if len(data) > FILE_LIMIT:
        raise UsageError(f"{option} {name} is over {FILE_LIMIT // 1024} KB; a table file is a "
                         "few kilobytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UsageError(f"{option} {name} is not UTF-8 text (byte {e.start})") from None
    try:
        return read_met(text, origin=name)
    except ValueError as e:
        raise UsageError(str(e)) from None


def table_of(value: str, option: str = "--met") -> MatchEquityTable:
    """A table named as ``--met`` and ``--file`` name one: a table that ships
    (``engine.met.NAMED``: kazaross-xg2) or a file in either format; UsageError else."""
    if value in NAMED:
        return named_met(value)
    return read_table_file(value, option)


__all__ = ["FILE_LIMIT", "read_table_file", "table_of"]
