"""One wording of "days left" (issue 19 §2): the chat's notices, /acompanhar, the case messages and the driver
reminders said it four ways ("encerrado", "o prazo acabou", "dias de atraso", "hoje é o último dia") and one read
the clock itself. Now one function says it, from the today it is given."""

import datetime as dt

import pytest

from core.i18n import translator
from models.days_left import days_left_words, days_words

FINAL = dt.date(2026, 3, 12)


@pytest.mark.parametrize(("today", "pt", "en"), [
    (dt.date(2026, 3, 9), "faltam 3 dias", "3 days left"),
    (dt.date(2026, 3, 11), "falta 1 dia", "1 day left"),
    (dt.date(2026, 3, 12), "hoje é o último dia", "last day today"),
    (dt.date(2026, 3, 14), "encerrado há 2 dias", "ended 2 days ago"),
])
def test_the_days_left_are_said_one_way_from_the_today_given(today: dt.date, pt: str, en: str) -> None:
    assert days_left_words(translator("pt_BR"), FINAL, today=today) == pt
    assert days_left_words(translator("en"), FINAL, today=today) == en
    assert days_words(translator("pt_BR"), (FINAL - today).days) == pt  # a count already made reads the same
