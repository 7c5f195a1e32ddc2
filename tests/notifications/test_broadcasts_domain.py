"""Broadcast rules without the chat: texts, dates as staff type them, audiences, progress and its single finisher."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from sqlmodel import select

from core.db import SessionFactory
from core.i18n import translator
from core.municipality import cities_of
from core.settings import Settings
from models.broadcasts import Broadcast, BroadcastStatus
from models.columns import utcnow
from models.outbox import OutboxMessage, OutboxStatus
from models.people import Person
from models.reminders import set_topic_muted
from notifications.audiences import AudienceParams, audience
from notifications.broadcasts import (
    MAX_TEXT_LENGTH,
    REPORT_KIND,
    AudienceChoice,
    BroadcastRefused,
    attach_progress_message,
    audience_size,
    check_text,
    create_broadcast,
    follow_progress,
    parse_when,
    preview,
    progress_bar,
    stop_broadcast,
)
from notifications.telegram_text import html_problem, split_html, visible_length
from tests.auxil.broadcasts import sent_by
from tests.notifications.conftest import add_people

NOW = dt.datetime(2027, 1, 4, 15, 0, tzinfo=dt.UTC)  # 11:00 in Cuiabá


@audience("test-all-people", label="Every person row, erased or not")
async def all_people(*, session: Any, now: dt.datetime, params: AudienceParams) -> list[int]:
    return list((await session.exec(select(Person.id))).all())


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("25/12 08:00", "2027-12-25T12:00:00+00:00"),
        ("25/12/2027 às 8h", "2027-12-25T12:00:00+00:00"),
        ("4/1 14h30", "2027-01-04T18:30:00+00:00"),  # today, later
        ("3/1 09:00", "2028-01-03T13:00:00+00:00"),  # no year and already past: next year
        ("2027-02-01T08:00", "2027-02-01T12:00:00+00:00"),
        ("2027-02-01T08:00+00:00", "2027-02-01T08:00:00+00:00"),
        ("31/02 08:00", None),
        ("amanhã", None),
    ],
)
def test_dates_and_times_as_staff_type_them(typed: str, expected: str | None, settings: Settings) -> None:
    moment = parse_when(typed, now=NOW, tz=settings.tz)
    assert (moment.isoformat() if moment else None) == expected


def test_a_29_february_already_past_with_no_leap_year_next_stays_in_the_past(settings: Settings) -> None:
    """It used to raise (2029 has no 29/02); now /aviso answers that the moment has passed."""
    march = dt.datetime(2028, 3, 5, 12, tzinfo=dt.UTC)
    moment = parse_when("29/02 08:00", now=march, tz=settings.tz)
    assert moment is not None and moment.isoformat() == "2028-02-29T12:00:00+00:00"


def test_texts_are_checked_and_plain_text_is_escaped() -> None:
    assert check_text("  Feira <sábado> & domingo ", is_html=False) == "Feira &lt;sábado&gt; &amp; domingo"
    assert check_text("<b>Feira</b> <a href='https://x.gov.br'>aqui</a>", is_html=True).startswith("<b>Feira</b>")
    with pytest.raises(BroadcastRefused) as refused:
        check_text("x" * (MAX_TEXT_LENGTH + 1), is_html=False)
    assert refused.value.code == "text_too_long" and refused.value.limit == MAX_TEXT_LENGTH
    for bad in ("<b>open", "<script>x</script>", "a < b", "<b><i>x</b></i>", "Tom & Jerry"):
        assert html_problem(bad), bad
    assert html_problem("Tom &amp; Jerry &lt;3 <i>ok</i>") is None


def test_a_long_html_message_is_split_into_valid_parts_under_the_limit() -> None:
    text = "<b>" + " ".join(["palavra"] * 2000) + "</b>"
    parts = split_html(text)
    assert len(parts) == 4 and all(visible_length(part) <= 4096 for part in parts)
    assert all(part.startswith("<b>") and part.endswith("</b>") and html_problem(part) is None for part in parts)


def test_the_progress_bar() -> None:
    assert progress_bar(0, 10) == "░░░░░░░░░░ 0%"
    assert progress_bar(5, 10) == "▓▓▓▓▓░░░░░ 50%"
    assert progress_bar(10, 10) == "▓▓▓▓▓▓▓▓▓▓ 100%"


async def test_the_audience_leaves_out_those_who_muted_notices_or_erased_their_data(
    sessions: SessionFactory, settings: Settings
) -> None:
    people = await add_people(sessions, None, 4)
    async with sessions() as session:
        await set_topic_muted(session=session, person_id=people[0], topic="announcements", muted=True)
        erased = await session.get(Person, people[1])
        erased.erased_at = utcnow()
        await session.commit()
        size = await audience_size(session=session, choice=AudienceChoice("test-all-people"), now=NOW)
        assert (size.recipients, size.left_out) == (people[2:], 2)
        with pytest.raises(BroadcastRefused) as refused:
            await audience_size(session=session, choice=AudienceChoice("nobody-knows"), now=NOW)
        assert refused.value.code == "unknown_audience"


async def test_nobody_and_the_past_are_refused(sessions: SessionFactory, settings: Settings) -> None:
    async with sessions() as session:
        with pytest.raises(BroadcastRefused, match="nobody"):
            await create_broadcast(session=session, **sent_by(settings), choice=AudienceChoice("everyone"),
                                   text="x", actor="test", now=NOW)
    await add_people(sessions, None, 1)
    async with sessions() as session:
        with pytest.raises(BroadcastRefused, match="in_the_past"):
            await create_broadcast(session=session, **sent_by(settings), choice=AudienceChoice("everyone"),
                                   text="x", actor="test", now=NOW, send_at=NOW - dt.timedelta(hours=1))


async def test_progress_is_edited_at_most_every_two_seconds_and_the_finish_happens_once(
    sessions: SessionFactory, settings: Settings
) -> None:
    people = await add_people(sessions, None, 3)
    async with sessions() as session:
        created = await create_broadcast(session=session, **sent_by(settings), choice=AudienceChoice("everyone"),
                                         text="Aviso.", actor="staff:1", now=NOW, requester_person_id=people[0],
                                         progress_chat_id=555)
        await attach_progress_message(session=session, broadcast_id=created.id, chat_id=555, message_id=7)
        edits, reports = await follow_progress(session=session, cities=cities_of(settings), now=NOW)
        assert [(e.chat_id, e.message_id) for e in edits] == [(555, 7)] and reports == 0
        assert "0%" in edits[0].text and [data for _label, data in edits[0].buttons[0]] == [f"aviso:stop:{created.id}"]
        again, _ = await follow_progress(session=session, cities=cities_of(settings), now=NOW + dt.timedelta(seconds=1))
        assert again == []  # throttled
        rows = (await session.exec(select(OutboxMessage))).all()
        for row in rows:
            row.status = OutboxStatus.SENT
        rows[0].status = OutboxStatus.UNREACHABLE
        await session.commit()
        later = NOW + dt.timedelta(seconds=3)
        final, reports = await follow_progress(session=session, cities=cities_of(settings), now=later)
        assert reports == 1 and "concluído" in final[0].text and "Entregues: 2 de 3" in final[0].text
        assert final[0].buttons == []
        nothing, more = await follow_progress(session=session, cities=cities_of(settings),
                                              now=later + dt.timedelta(seconds=5))
        assert nothing == [] and more == 0  # finished once, reported once
        report = (await session.exec(select(OutboxMessage).where(OutboxMessage.kind == REPORT_KIND))).one()
        assert report.person_id == people[0] and report.mandatory and report.payload["counts"]["unreachable"] == 1
        broadcast = await session.get(Broadcast, created.id)
        assert broadcast.status is BroadcastStatus.FINISHED and broadcast.finished_at == later


async def test_stopping_cancels_what_is_not_sent_and_only_once(sessions: SessionFactory, settings: Settings) -> None:
    await add_people(sessions, None, 2)
    async with sessions() as session:
        created = await create_broadcast(session=session, **sent_by(settings), choice=AudienceChoice("everyone"),
                                         text="Aviso.", actor="test", now=NOW)
        first = (await session.exec(select(OutboxMessage))).first()
        first.status = OutboxStatus.SENT
        await session.commit()
        view = await stop_broadcast(session=session, broadcast_id=created.id, actor="staff:1")
        assert view is not None and view.status is BroadcastStatus.CANCELLED
        assert (view.counts[OutboxStatus.SENT], view.counts[OutboxStatus.CANCELLED]) == (1, 1)
        assert await stop_broadcast(session=session, broadcast_id=created.id, actor="staff:1") is None


@pytest.mark.parametrize(("count", "expected"), [(0, "0 pessoa."), (1, "1 pessoa."), (2, "2 pessoas.")])
def test_the_notice_reads_in_portuguese_with_two_plural_forms(count: int, expected: str, settings: Settings) -> None:
    tr = translator("pt_BR")
    rendered = preview("Vacinação no sábado.", tr, cities_of(settings).default)
    assert rendered.text.startswith("📢 <b>Aviso da Prefeitura de Sapezal</b>\n\nVacinação no sábado.")
    assert "/lembretes" in rendered.text
    sentence = tr.ngettext("This notice will go to {n} person.", "This notice will go to {n} people.", count)
    assert sentence.format(n=count).endswith(expected)
