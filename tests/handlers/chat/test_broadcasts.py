"""/aviso end to end: text, preview, audience, count, now or later, progress edited in place, final report, stop;
refused to non-staff; a restart in the middle loses nothing."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlmodel import select

from core.db import SessionFactory
from core.settings import Settings
from models.broadcasts import Broadcast, BroadcastStatus
from models.drafts import get_draft, save_draft
from models.outbox import OutboxMessage, OutboxStatus
from models.people import Person, Role, add_staff
from models.reminders import set_topic_muted
from notifications.audiences import AudienceParams, audience
from tests.auxil.bot_harness import running_bot
from tests.auxil.case_chat import Talk, deliver

CLARA, JOAO = 860101, 860001
RECIPIENTS = (860002, 860003, 860004)  # Maria (pt_BR), Pedro (en), Rosa (muted notices)


@audience("test-neighbours", label="Neighbours of the test square")
async def neighbours(*, session: Any, now: dt.datetime, params: AudienceParams) -> list[int]:
    rows = await session.exec(select(Person.id).where(Person.telegram_user_id.in_(RECIPIENTS)))
    return list(rows.all())


@audience("test-expiring", label="Test people expiring soon", takes_days=True)
async def expiring(*, session: Any, now: dt.datetime, params: AudienceParams) -> list[int]:
    assert params.days is not None
    rows = await session.exec(select(Person.id).where(Person.telegram_user_id.in_(RECIPIENTS[: params.days // 30])))
    return list(rows.all())


async def _topics(*, session: Any) -> list[tuple[str, str]]:
    return [("praca", "Works on the square"), ("feira", "Street market")]


@audience("test-followers", label="People following a test topic", takes_topic=True, topic_choices=_topics)
async def followers(*, session: Any, now: dt.datetime, params: AudienceParams) -> list[int]:
    wanted = {"praca": RECIPIENTS[:1], "feira": RECIPIENTS}.get(params.topic or "", ())
    rows = await session.exec(select(Person.id).where(Person.telegram_user_id.in_(wanted)))
    return list(rows.all())


async def _people(sessions: SessionFactory, emulator: Any) -> tuple[Talk, Talk]:
    async with sessions() as session:
        for telegram_id, name, locale in ((CLARA, "Clara", "en"), (JOAO, "João", "en"), (860002, "Maria", "pt_BR"),
                                          (860003, "Pedro", "en"), (860004, "Rosa", "pt_BR")):
            session.add(Person(telegram_user_id=telegram_id, chat_id=telegram_id, first_name=name, locale=locale,
                               locale_chosen=True))
        await session.commit()
        await add_staff(session=session, telegram_user_id=CLARA, role=Role.CLERK, name="Clara", actor="test")
        rosa = (await session.exec(select(Person).where(Person.telegram_user_id == 860004))).one()
        await set_topic_muted(session=session, person_id=rosa.id, topic="announcements", muted=True)
        await session.commit()
    for telegram_id, name in ((860002, "Maria"), (860003, "Pedro"), (860004, "Rosa")):
        emulator.add_user(telegram_id, name)
    clara = Talk(emulator, emulator.add_user(CLARA, "Clara", language_code="en"))
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    return clara, joao


async def test_a_notice_from_text_to_final_report(emulator: Any, settings: Settings, sessions: SessionFactory) -> None:
    clara, joao = await _people(sessions, emulator)
    async with running_bot(settings, sessions, emulator):
        await joao.send("/aviso", "Only staff with the right role")
        await clara.send("/aviso", "Write the notice")
        audiences = await clara.send("Vistoria & renovação: traga o documento <original>.", "Who should receive")
        shown = emulator.messages(CLARA)
        assert "Preview" in shown[-2].text
        assert "Notice from the City Hall of Sapezal" in shown[-2].text
        assert "Vistoria & renovação: traga o documento <original>." in shown[-2].text  # escaped, shown as typed
    async with running_bot(settings, sessions, emulator):  # a restart in the middle: the draft is kept
        count = await clara.press(audiences, "aviso:aud:test-neighbours", "will go to 2 people")
        assert "1 person is left out" in count.text
        confirm = await clara.press(count, "aviso:now", "Send this notice now to 2 people")
        progress = await clara.press_and_edit(confirm, "aviso:send", "Notice #1")
        assert "aviso:stop:1" in clara.buttons(progress)
    await deliver(settings, sessions, emulator)
    maria = emulator.messages(860002)[-1].text
    pedro = emulator.messages(860003)[-1].text
    assert "Vistoria & renovação" in maria and "Vistoria & renovação" in pedro
    assert "Notice from the City Hall of Sapezal" in pedro
    assert not emulator.messages(860004)  # muted notices: left out
    final = emulator.messages(CLARA)
    edited = next(m for m in final if m.message_id == progress.message_id)
    assert "finished" in edited.text and "Delivered: 2 of 2" in edited.text and not edited.inline_buttons
    assert "Final report" in final[-1].text and "Delivered: 2 of 2" in final[-1].text
    async with sessions() as session:
        broadcast = (await session.exec(select(Broadcast))).one()
    assert broadcast.status is BroadcastStatus.FINISHED and broadcast.created_by == f"staff:{CLARA}"


async def test_a_scheduled_notice_waits_and_can_be_stopped(
    emulator: Any, settings: Settings, sessions: SessionFactory
) -> None:
    clara, _joao = await _people(sessions, emulator)
    async with running_bot(settings, sessions, emulator):
        await clara.send("/aviso", "Write the notice")
        audiences = await clara.send("Reunião na praça.", "Who should receive it?")
        days = await clara.press(audiences, "aviso:aud:test-expiring", "within how many days")
        await clara.send("soon", "Type a number of days")
        await clara.send("²", "Type a number of days")  # a digit int() cannot read
        when = await clara.send("60", "will go to 2 people")
        assert "When should it go?" in when.text
        assert days and any(data.startswith("aviso:at:") for data in clara.buttons(when))
        await clara.send("31/02 08:00", "I did not understand that date")
        local = (dt.datetime.now(settings.tz) + dt.timedelta(days=3)).replace(hour=9, minute=30)
        confirm = await clara.send(local.strftime("%d/%m/%Y %H:%M"), "Send this notice on")
        scheduled = await clara.press_and_edit(confirm, "aviso:send", "scheduled for")
        await deliver(settings, sessions, emulator)
        assert not emulator.messages(860002)  # not yet
        stopped = await clara.press_and_edit(scheduled, "aviso:stop:1", "Notice #1")
        assert "aviso:stop:1" not in clara.buttons(stopped)
    async with sessions() as session:
        statuses = set((await session.exec(select(OutboxMessage.status))).all())
        broadcast = (await session.exec(select(Broadcast))).one()
    assert statuses == {OutboxStatus.CANCELLED} and broadcast.status is BroadcastStatus.CANCELLED
    assert broadcast.send_at == local.astimezone(dt.UTC).replace(second=0, microsecond=0)


async def test_cancel_discards_the_notice_being_written(
    emulator: Any, settings: Settings, sessions: SessionFactory
) -> None:
    clara, _joao = await _people(sessions, emulator)
    async with running_bot(settings, sessions, emulator):
        await clara.send("/aviso", "Write the notice")
        audiences = await clara.send("Texto qualquer.", "Who should receive it?")
        await clara.press_and_edit(audiences, "aviso:cancel", "nothing was sent")
    async with sessions() as session:
        assert not (await session.exec(select(Broadcast))).all()


async def test_an_old_cancel_button_keeps_what_else_the_person_is_writing(
    emulator: Any, settings: Settings, sessions: SessionFactory
) -> None:
    """A stale ``aviso:cancel`` pressed while another form is open discards nothing of that form."""
    clara, _joao = await _people(sessions, emulator)
    async with running_bot(settings, sessions, emulator):
        started = await clara.send("/aviso", "Write the notice")
        async with sessions() as session:
            clara_id = (await session.exec(select(Person.id).where(Person.telegram_user_id == CLARA))).one()
            await save_draft(session=session, person_id=clara_id, form="complaint", step="where", data={"a": 1})
        await clara.press(started, "aviso:cancel", "already sent or cancelled")
    async with sessions() as session:
        draft = await get_draft(session=session, person_id=clara_id)
    assert draft is not None and draft.form == "complaint" and draft.data == {"a": 1}


async def test_a_topic_audience_offers_its_topics_or_takes_a_typed_one(
    emulator: Any, settings: Settings, sessions: SessionFactory
) -> None:
    clara, _joao = await _people(sessions, emulator)
    async with running_bot(settings, sessions, emulator):
        await clara.send("/aviso", "Write the notice")
        audiences = await clara.send("Obras na praça.", "Who should receive it?")
        topics = await clara.press(audiences, "aviso:aud:test-followers", "which topic?")
        assert {"aviso:topic:praca", "aviso:topic:feira"} <= set(clara.buttons(topics))
        count = await clara.press(topics, "aviso:topic:praca", "will go to 1 person")
        assert "People following a test topic — praca" in count.text
        again = await clara.press(count, "aviso:audiences", "Who should receive it?")
        await clara.press(again, "aviso:aud:test-followers", "which topic?")
        typed = await clara.send("feira", "will go to 2 people")
        back = await clara.press(typed, "aviso:audiences", "Who should receive it?")
        await clara.press(back, "aviso:aud:test-followers", "which topic?")
        nobody = await clara.send("nada", "Nobody is in this audience right now")
        assert "aviso:now" not in clara.buttons(nobody) and "aviso:audiences" in clara.buttons(nobody)


async def test_three_taps_on_send_at_once_create_one_broadcast_and_the_others_quote_its_number(
    emulator: Any, settings: Settings, sessions: SessionFactory
) -> None:
    """Issue 9 item 3, issue 19 §1: a burst of taps on "✅ Send the notice" queues the notice once (claim-once)."""
    clara, _joao = await _people(sessions, emulator)
    async with running_bot(settings, sessions, emulator):
        await clara.send("/aviso", "Write the notice")
        audiences = await clara.send("A feira muda de lugar no sábado.", "Who should receive")
        count = await clara.press(audiences, "aviso:aud:test-neighbours", "will go to 2 people")
        confirm = await clara.press(count, "aviso:now", "Send this notice now to 2 people")
        assert "Notice from the City Hall of Sapezal" in confirm.text  # the review shows it as it will be received
        queries = [emulator.press_button(clara.user, confirm, "aviso:send") for _ in range(3)]  # one getUpdates batch
        await emulator.wait_until(lambda: all(emulator.callback_query(q).answered for q in queries))
        await emulator.wait_until(
            lambda: sum("already sent: #1" in (m.text or "") for m in emulator.messages(CLARA)) == 2)
        async with sessions() as session:
            (broadcast,) = (await session.exec(select(Broadcast))).all()
        assert broadcast.id == 1
        async with sessions() as session:
            outbox = (await session.exec(select(OutboxMessage))).all()
        assert len(outbox) == 2  # Maria and Pedro, once each
