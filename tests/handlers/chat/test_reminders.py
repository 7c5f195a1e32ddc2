"""/lembretes end to end: the topics on and off, what is queued, turning one off and on, and why legal notices
cannot be turned off (L1533 Art. 22 §1; CP Art. 24 and 36)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlmodel import select

from core.db import SessionFactory
from core.i18n import Translator
from core.settings import Settings
from models.audit import AuditEvent
from models.columns import utcnow
from models.outbox import enqueue
from models.people import Person
from models.reminders import ReminderMute
from notifications.rendering import Rendered, renderer
from notifications.topics import reminder_topic
from tests.auxil.bot_harness import running_bot
from tests.auxil.case_chat import Talk

JOAO, MARIA = 880001, 880002


async def only_joao(*, session: Any, person_id: int) -> bool:
    person = await session.get(Person, person_id)
    return person is not None and person.telegram_user_id == JOAO


RENEWAL = reminder_topic("test-renewal", label="Test renewal reminders", description="Before it expires.",
                         applies=only_joao)


@renderer("test.renewal", topic=RENEWAL.name)
def render_renewal(payload: dict[str, Any], tr: Translator) -> Rendered:
    return Rendered(text="renew")


@renderer("test.penalty")
def render_penalty(payload: dict[str, Any], tr: Translator) -> Rendered:
    return Rendered(text="penalty")


async def test_turning_a_reminder_off_and_on(emulator: Any, settings: Settings, sessions: SessionFactory) -> None:
    async with sessions() as session:
        joao = Person(telegram_user_id=JOAO, chat_id=JOAO, first_name="João", locale="en", locale_chosen=True)
        maria = Person(telegram_user_id=MARIA, chat_id=MARIA, first_name="Maria", locale="en", locale_chosen=True)
        session.add_all([joao, maria])
        await session.commit()
        soon = utcnow() + dt.timedelta(days=3)
        await enqueue(session=session, person_id=joao.id, kind="test.renewal", dedupe_key="r:1", not_before=soon)
        await enqueue(session=session, person_id=joao.id, kind="test.penalty", dedupe_key="p:1", mandatory=True,
                      not_before=soon + dt.timedelta(days=1))
        await session.commit()
    talk = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    other = Talk(emulator, emulator.add_user(MARIA, "Maria", language_code="en"))
    async with running_bot(settings, sessions, emulator):
        screen = await talk.send("/lembretes", "Your reminders")
        assert "Test renewal reminders — on" in screen.text
        assert "Notices from the city hall — on" in screen.text
        assert "Legal notices (penalties, deadlines to defend yourself) always arrive" in screen.text
        assert "Coming up: 2 messages." in screen.text and "• Legal notice:" in screen.text
        off = await talk.press_and_edit(screen, "rem:off:test-renewal", "Test renewal reminders — off")
        assert "(off: will not be sent)" in off.text and "rem:on:test-renewal" in talk.buttons(off)
        why = await talk.press_and_edit(off, "rem:why", "cannot be turned off")
        assert "Lei 1.533/2020, Art. 22 §1" in why.text
        back = await talk.press_and_edit(why, "rem:show", "Your reminders")
        await talk.press_and_edit(back, "rem:on:test-renewal", "Test renewal reminders — on")
        await talk.press_and_edit(back, "rem:off:announcements", "Notices from the city hall — off")
        maria_screen = await other.send("/lembretes", "Your reminders")
        assert "Test renewal" not in maria_screen.text  # the topic does not concern her
    async with sessions() as session:
        mutes = (await session.exec(select(ReminderMute.topic))).all()
        actions = [e.action for e in (await session.exec(select(AuditEvent).order_by(AuditEvent.id))).all()]
    assert mutes == ["announcements"]
    assert actions == ["reminders.mute", "reminders.unmute", "reminders.mute"]
