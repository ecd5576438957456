"""The one error type the command line turns into a one-line message and exit code 2, and
the helpers that keep such messages short and on one line."""

QUOTE_LIMIT = 80  # characters of the user's input an error message quotes at most
MESSAGE_LIMIT = 400  # characters of a whole error message at most


class UsageError(ValueError):
    """Bad input from the user: printed as one line on stderr, exit code 2."""


def quote(text, limit: int = QUOTE_LIMIT) -> str:
    """``text`` as an error message quotes it: its repr (control characters, NUL and
    unpaired surrogates escaped), cut after ``limit`` characters with the full length
    said, so a megabyte of input never comes back whole."""
    text = str(text)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"


def one_line(message, limit: int = MESSAGE_LIMIT) -> str:
    """``message`` made fit for one line of a terminal: line breaks and other characters
    that are not printable escaped, and at most ``limit`` characters (the rest said by its
    length). The last guard for messages written by code that does not use ``quote``."""
    raw = str(message)
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in raw[:limit])
    if len(raw) > limit or len(text) > limit:
        text = f"{text[:limit]}... ({len(raw):,} characters)"
    return text
