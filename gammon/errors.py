"""The one error type the command line turns into a one-line message and exit code 2."""


class UsageError(ValueError):
    """Bad input from the user: printed as one line on stderr, exit code 2."""
