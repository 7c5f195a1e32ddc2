"""Button data as input: ids parsed strictly, and one answer for data no handler accepts.

A client can send any callback data (an old message, a modified app): an id is only ASCII digits that fit a
database integer (``²`` passes ``str.isdigit`` but not ``int``; 30 digits overflow PostgreSQL's INTEGER), and
anything refused is answered "This button is no longer valid" and logged once, without its content.
"""

from __future__ import annotations

import logging
import re

from telegram import Update

from core.i18n import DEFAULT_LOCALE, translator
from handlers.chat.context import BalcaoContext
from handlers.chat.replies import answer_query

logger = logging.getLogger("balcao.buttons")

_ID = re.compile(r"[0-9]{1,10}")
MAX_ID = 2**31 - 1
"""The largest id a table holds (INTEGER on PostgreSQL)."""


def button_id(text: str) -> int | None:
    """The id a button carries, or None when the text is not one (not ASCII digits, or too large)."""
    if _ID.fullmatch(text) is None:
        return None
    value = int(text)
    return value if 0 < value <= MAX_ID else None


async def unknown_button(update: Update, context: BalcaoContext) -> None:
    """A button press nothing accepts (no area's prefix, or data its area refuses): say so, log it once."""
    query = update.callback_query
    if query is None:
        return
    logger.warning("unknown button update_id=%s length=%d", update.update_id, len(query.data or ""))
    tr = getattr(context, "tr", None) or translator(DEFAULT_LOCALE)
    await answer_query(update, context, tr._("This button is no longer valid."))
