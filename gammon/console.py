"""Lines in, text out, for an interactive session: prompts, end of input, dice typed by people.

``Console`` writes to one stream and reads lines from another; ``ask`` returns None at the
end of input (Ctrl-D, a closed pipe), so a session can stop cleanly instead of crashing.
"""

from __future__ import annotations

import re
import sys

from .errors import quote

_DICE = re.compile(r"^\s*([1-6])\s*[-,/ ]?\s*([1-6])\s*$")  # [1-6]: ASCII digits only


class EndOfInput(Exception):
    """The person's input ended (Ctrl-D or a closed pipe): leave without asking anything."""


class Console:
    """A prompt-and-answer channel over text streams (stdin and stdout by default)."""

    def __init__(self, stdin=None, stdout=None):
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout

    def say(self, text: str = "") -> None:
        """Write ``text`` and a newline, flushed at once."""
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def ask(self, prompt: str) -> str:
        """Show ``prompt`` and read one line, stripped; EndOfInput at the end of input."""
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            self.stdout.write("\n")
            self.stdout.flush()
            raise EndOfInput
        return line.strip()


def read_dice(text: str) -> tuple[int, int]:
    """Two dice typed as ``6 2``, ``62``, ``6-2`` or ``6,2``; ValueError says the format."""
    found = _DICE.match(text)
    if not found:
        raise ValueError(f"type two dice from 1 to 6, like '6 2', '62' or '6-2' "
                         f"(got {quote(text)})")
    return int(found.group(1)), int(found.group(2))
