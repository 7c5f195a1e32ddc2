"""Whole-number arguments (``type=whole_number(tr)``), refused in the CLI's language.

argparse's own refusal of ``type=int`` names the Python type ("invalid int value: 'doze'"); this one says what
was expected ("'doze' is not a whole number").
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from core.i18n import Translator


def whole_number(tr: Translator) -> Callable[[str], int]:
    """The ``type=`` of an argument that takes a whole number (a Telegram id, a port, a count of days).

    Args:
        tr: the CLI's translator, for the refusal.

    Returns:
        A function that reads the number, or raises :class:`argparse.ArgumentTypeError` saying what was expected.
    """

    def read(text: str) -> int:
        try:
            return int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(tr._("'{value}' is not a whole number").format(value=text)) from None

    return read
