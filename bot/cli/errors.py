"""The error a CLI command raises to stop with a one-line reason (exit code 2), and the refusals several commands share.

Every reason is written in the CLI's language (``cli_translator``): translated first, then formatted.
"""

from __future__ import annotations

from collections.abc import Iterable

from core.i18n import Translator


class CommandError(Exception):
    """A command cannot go on; the message is printed to stderr."""


def unknown_municipality(tr: Translator, *, option: str, value: str, served: Iterable[str]) -> CommandError:
    """The refusal of ``--municipality``/``--municipio`` naming a municipality this deployment does not serve."""
    return CommandError(tr._('{option} "{value}": this deployment serves {served}').format(
        option=option, value=value, served=", ".join(served)))


def file_problem(tr: Translator, error: OSError) -> str:
    """Why a file could not be read or written, in ``tr``'s language (the system's own words only as a detail)."""
    if isinstance(error, FileNotFoundError):
        return tr._("the file or its folder does not exist")
    if isinstance(error, PermissionError):
        return tr._("permission denied")
    if isinstance(error, IsADirectoryError):
        return tr._("it is a folder, not a file")
    return tr._("the system could not use it ({detail})").format(detail=error.strerror or type(error).__name__)
