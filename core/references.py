"""Error references: the short code a person quotes (``E-7F3A9C``) and the log line that carries it.

The chat, the web pages, Open311 and the CLI all answer an unexpected error with one of these; it lives here, below
every layer, so that none of them imports another to get it.
"""

from __future__ import annotations

import secrets


def new_reference() -> str:
    """A short reference like ``E-7F3A9C`` that ties the person's report to the log line."""
    return "E-" + secrets.token_hex(3).upper()
