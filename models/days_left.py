"""The one wording of "days left" to a person (issue 19 §2): the chat, the reminders and the notices all use it.

It takes the civil day of today as an argument (the caller's clock, frozen in tests), never reading the clock itself:
"3 days left", "last day today", "ended 2 days ago". Counting the days is the deadline's business
(:mod:`models.deadlines`); this only says how many remain.
"""

from __future__ import annotations

import datetime as dt

from core.i18n import Translator


def days_left_words(tr: Translator, final: dt.date, *, today: dt.date) -> str:
    """How many days remain until ``final`` (its last day included), in the reader's language.

    Args:
        tr: the reader's translator.
        final: the last day of the period.
        today: the civil day it is now where the period runs.
    """
    return days_words(tr, (final - today).days)


def days_words(tr: Translator, left: int) -> str:
    """The same wording for a count already made: ``left`` days from today to the last day (negative: past it)."""
    if left > 0:
        return tr.ngettext("{n} day left", "{n} days left", left).format(n=tr.number(left))
    if left == 0:
        return tr._("last day today")
    return tr.ngettext("ended {n} day ago", "ended {n} days ago", -left).format(n=tr.number(-left))
