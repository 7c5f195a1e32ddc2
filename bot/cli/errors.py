"""The error a CLI command raises to stop with a one-line reason (exit code 2)."""


class CommandError(Exception):
    """A command cannot go on; the message is printed to stderr."""
