"""The one error of the file checks: a file that is not what its first bytes say, or that cannot be cleaned."""

from __future__ import annotations


class UnreadableFile(ValueError):
    """The file does not parse as its type, or its metadata cannot be removed (the message is the MIME type)."""
