"""The dispatcher end to end through the Bot API emulator: rendering, errors, limits, leases, stopping."""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
from collections import Counter
from typing import Any

from sqlalchemy import update
from sqlmodel import select

from core.i18n import Translator
from models.columns import utcnow
from models.outbox import OutboxMessage, OutboxStatus, enqueue
from models.people import Person
from models.reminders import set_topic_muted
from notifications.rendering import Rendered, renderer
from notifications.topics import reminder_topic
from tests.notifications.conftest import FIRST_USER_ID, add_people

KIND = "test.hello"
OPTIONAL_KIND = "test.optional"
LONG_KIND = "test.long"
TOPIC = reminder_topic("test-topic", label="Test reminders")


@renderer(KIND)
def render_hello(payload: dict[str, Any], tr: Translator) -> Rendered:
    return Rendered(text=f"{tr._('Hello')} <b>#{payload['n']}</b> {tr.locale}")


@renderer(OPTIONAL_KIND, topic=TOPIC.name)
def render_optional(payload: dict[str, Any], tr: Translator) -> Rendered:
    return Rendered(text=f"optional #{payload['n']}")


@renderer(LONG_KIND)
def render_long(payload: dict[str, Any], tr: Translator) -> Rendered:
    words = " ".join(f"<b>palavra{i}</b>" for i in range(1500))  # ~16,000 visible characters
    return Rendered(text=words, buttons=[[("OK", "test:ok")]], document=("aviso.pdf", b"%PDF-1.4 test"))


async def enqueue_all(sessions, person_ids: list[int], *, kind: str = KIND, prefix: str = "hello", **kwargs) -> None:
    async with sessions() as session:
        for index, person_id in enumerate(person_ids):
            await enqueue(session=session, person_id=person_id, kind=kind, dedupe_key=f"{prefix}:{person_id}",
                          payload={"n": index}, **kwargs)
        await session.commit()


async def rows(sessions) -> list[OutboxMessage]:
    async with sessions() as session:
        return list((await session.exec(select(OutboxMessage).order_by(OutboxMessage.id))).all())


def delivered(emu) -> Counter[int]:
    return Counter(call.params["chat_id"] for call in emu.calls_to("sendMessage", ok=True))


async def test_sends_every_due_message_once_in_the_readers_language(sessions, emu, make_dispatcher):
    people = await add_people(sessions, emu, 20)
    async with sessions() as session:
        person = await session.get(Person, people[0])
        person.locale = "en"
        await session.commit()
    await enqueue_all(sessions, people)
    stats = await (await make_dispatcher()).run_until_idle()
    assert stats.sent == 20
    assert delivered(emu) == Counter({FIRST_USER_ID + i: 1 for i in range(20)})
    assert emu.messages(FIRST_USER_ID)[0].text.endswith("#0 en")
    assert emu.messages(FIRST_USER_ID + 1)[0].text.endswith("#1 pt_BR")
    outbox = await rows(sessions)
    assert {row.status for row in outbox} == {OutboxStatus.SENT}
    assert all(row.telegram_message_id and row.sent_at and row.attempts == 1 for row in outbox)


async def test_enqueueing_the_same_key_twice_sends_once(sessions, emu, make_dispatcher):
    people = await add_people(sessions, emu, 1)
    await enqueue_all(sessions, people)
    await enqueue_all(sessions, people)
    await (await make_dispatcher()).run_until_idle()
    assert delivered(emu) == Counter({FIRST_USER_ID: 1})


async def test_not_before_in_the_future_waits(sessions, emu, make_dispatcher):
    people = await add_people(sessions, emu, 1)
    await enqueue_all(sessions, people, not_before=utcnow() + dt.timedelta(hours=1))
    stats = await (await make_dispatcher()).run_until_idle()
    assert stats.sent == 0 and not emu.calls_to("sendMessage")


async def test_a_blocked_user_and_an_unknown_chat_are_unreachable_without_retry(sessions, emu, make_dispatcher):
    people = await add_people(sessions, emu, 3)
    emu.block(FIRST_USER_ID + 1)
    async with sessions() as session:  # a person whose chat Telegram does not know
        person = await session.get(Person, people[2])
        person.chat_id = 123
        await session.commit()
    await enqueue_all(sessions, people)
    stats = await (await make_dispatcher()).run_until_idle()
    assert (stats.sent, stats.unreachable) == (1, 2)
    outbox = await rows(sessions)
    assert [row.status for row in outbox] == [OutboxStatus.SENT, OutboxStatus.UNREACHABLE, OutboxStatus.UNREACHABLE]
    assert "blocked" in outbox[1].last_error and "chat not found" in outbox[2].last_error.lower()
    assert len(emu.calls_to("sendMessage", ok=False)) == 2  # one try each, never retried
    again = await (await make_dispatcher()).run_until_idle()
    assert again.sent == again.unreachable == 0 and len(emu.calls_to("sendMessage", ok=False)) == 2


async def test_network_errors_retry_with_backoff_then_send(sessions, emu, make_dispatcher):
    people = await add_people(sessions, emu, 1)
    await enqueue_all(sessions, people)
    emu.fail_next("sendMessage", error_code=502, description="Bad Gateway", times=2)
    clock = {"now": utcnow()}
    dispatcher = await make_dispatcher(now=lambda: clock["now"])
    stats = await dispatcher.run_until_idle()
    [row] = await rows(sessions)
    assert stats.retry_later == 1 and row.status is OutboxStatus.PENDING and row.attempts == 1
    assert row.not_before == clock["now"] + dt.timedelta(seconds=10)
    clock["now"] += dt.timedelta(seconds=10)
    await dispatcher.run_until_idle()
    [row] = await rows(sessions)
    assert row.attempts == 2 and row.not_before == clock["now"] + dt.timedelta(seconds=20)  # doubled
    clock["now"] += dt.timedelta(seconds=20)
    await dispatcher.run_until_idle()
    [row] = await rows(sessions)
    assert row.status is OutboxStatus.SENT and row.attempts == 3
    assert delivered(emu) == Counter({FIRST_USER_ID: 1})


async def test_network_errors_give_up_after_the_maximum_attempts(sessions, emu, make_dispatcher, tg_settings):
    people = await add_people(sessions, emu, 1)
    await enqueue_all(sessions, people)
    emu.fail_next("sendMessage", error_code=500, description="Internal Server Error", times=10)
    clock = {"now": utcnow()}
    settings = tg_settings.model_copy(update={"dispatch_max_attempts": 3, "dispatch_retry_max_seconds": 15.0})
    dispatcher = await make_dispatcher(settings, now=lambda: clock["now"])
    waits = []
    for _ in range(3):
        await dispatcher.run_until_idle()
        [row] = await rows(sessions)
        if row.status is OutboxStatus.PENDING:
            waits.append(row.not_before - clock["now"])
            clock["now"] = row.not_before
    assert waits == [dt.timedelta(seconds=10), dt.timedelta(seconds=15)]  # backoff capped at 15 s
    assert row.status is OutboxStatus.FAILED and row.attempts == 3 and "gave up after 3 attempts" in row.last_error


async def test_a_bad_request_fails_at_once(sessions, emu, make_dispatcher):
    people = await add_people(sessions, emu, 1)
    await enqueue_all(sessions, people)
    emu.fail_next("sendMessage", error_code=400, description="Bad Request: can't parse entities")
    stats = await (await make_dispatcher()).run_until_idle()
    [row] = await rows(sessions)
    assert stats.failed == 1 and row.status is OutboxStatus.FAILED and "parse entities" in row.last_error


async def test_a_429_storm_pauses_and_still_delivers_each_message_once(sessions, emu, make_dispatcher, tg_settings):
    """Telegram's flood control answers 429 to most calls: the dispatcher waits retry_after and goes on."""
    people = await add_people(sessions, emu, 12)
    await enqueue_all(sessions, people)
    emu.limits(global_per_second=5)  # far below the dispatcher's 500/s
    stats = await (await make_dispatcher()).run_until_idle()
    assert stats.sent == 12 and stats.rate_limited >= 1
    assert delivered(emu) == Counter({FIRST_USER_ID + i: 1 for i in range(12)})
    refused = [call for call in emu.calls_to("sendMessage", ok=False)]
    assert refused and all(call.error_code == 429 for call in refused)
    first_refusal = refused[0].at
    after = [call.at for call in emu.calls_to("sendMessage", ok=True) if call.at > first_refusal]
    assert after and min(after) >= first_refusal + dt.timedelta(seconds=1)  # paused for retry_after
    assert {row.attempts for row in await rows(sessions)} == {1}  # a 429 is not an attempt


async def test_a_muted_optional_topic_is_cancelled_but_a_mandatory_message_goes(sessions, emu, make_dispatcher):
    people = await add_people(sessions, emu, 2)
    async with sessions() as session:
        for person_id in people:
            await set_topic_muted(session=session, person_id=person_id, topic=TOPIC.name, muted=True)
        await session.commit()
    await enqueue_all(sessions, people[:1], kind=OPTIONAL_KIND, prefix="optional")
    await enqueue_all(sessions, people[1:], kind=OPTIONAL_KIND, prefix="legal", mandatory=True)
    stats = await (await make_dispatcher()).run_until_idle()
    assert (stats.sent, stats.cancelled) == (1, 1)
    assert delivered(emu) == Counter({FIRST_USER_ID + 1: 1})
    first, second = await rows(sessions)
    assert first.status is OutboxStatus.CANCELLED and "muted" in first.last_error and first.attempts == 0
    assert second.status is OutboxStatus.SENT


async def test_a_person_who_erased_their_data_gets_nothing(sessions, emu, make_dispatcher):
    people = await add_people(sessions, emu, 1)
    async with sessions() as session:
        person = await session.get(Person, people[0])
        person.erased_at = utcnow()
        await session.commit()
    await enqueue_all(sessions, people)
    stats = await (await make_dispatcher()).run_until_idle()
    assert stats.cancelled == 1 and not emu.calls_to("sendMessage")


async def test_an_unknown_kind_fails_without_stopping_the_others(sessions, emu, make_dispatcher):
    people = await add_people(sessions, emu, 2)
    await enqueue_all(sessions, people[:1], kind="nobody.renders.this", prefix="x")
    await enqueue_all(sessions, people[1:])
    stats = await (await make_dispatcher()).run_until_idle()
    assert (stats.sent, stats.failed) == (1, 1)
    first, _ = await rows(sessions)
    assert "no renderer" in first.last_error


async def test_a_long_message_goes_in_parts_within_the_limit_then_its_document(sessions, emu, make_dispatcher):
    people = await add_people(sessions, emu, 1)
    await enqueue_all(sessions, people, kind=LONG_KIND, prefix="long")
    stats = await (await make_dispatcher()).run_until_idle()
    assert stats.sent == 1
    messages = emu.messages(FIRST_USER_ID)
    texts = [m for m in messages if m.text]
    assert len(texts) >= 4 and all(len(m.text) <= 4096 for m in texts)
    assert " ".join(m.text for m in texts).split() == [f"palavra{i}" for i in range(1500)]
    assert texts[-1].inline_buttons and not texts[0].inline_buttons  # buttons on the last part only
    assert messages[-1].document is not None and messages[-1].document["file_name"] == "aviso.pdf"
    [row] = await rows(sessions)
    assert row.parts_sent == len(messages) and row.telegram_message_id == messages[0].message_id


async def test_a_retry_resumes_after_the_parts_already_sent(sessions, emu, make_dispatcher):
    people = await add_people(sessions, emu, 1)
    await enqueue_all(sessions, people, kind=LONG_KIND, prefix="long")
    emu.fail_next("sendDocument", error_code=502, description="Bad Gateway")
    clock = {"now": utcnow()}
    dispatcher = await make_dispatcher(now=lambda: clock["now"])
    await dispatcher.run_until_idle()
    [row] = await rows(sessions)
    texts_before = len(emu.calls_to("sendMessage", ok=True))
    assert row.status is OutboxStatus.PENDING and row.parts_sent == texts_before
    clock["now"] = row.not_before
    await dispatcher.run_until_idle()
    assert len(emu.calls_to("sendMessage", ok=True)) == texts_before  # no text part twice
    assert len(emu.calls_to("sendDocument", ok=True)) == 1


async def test_paid_broadcast_mode_asks_telegram_for_paid_sending(sessions, emu, make_dispatcher, tg_settings):
    people = await add_people(sessions, emu, 2)
    await enqueue_all(sessions, people)
    settings = tg_settings.model_copy(update={"dispatch_paid_broadcast": True, "dispatch_paid_rate": 1000.0})
    dispatcher = await make_dispatcher(settings)
    assert dispatcher.pacer._global.count == 1000
    await dispatcher.run_until_idle()
    assert all(call.params.get("allow_paid_broadcast") is True for call in emu.calls_to("sendMessage"))


async def test_messages_to_one_person_go_before_a_broadcast_enqueued_earlier(sessions, emu, make_dispatcher,
                                                                              tg_settings):
    people = await add_people(sessions, emu, 5)
    await enqueue_all(sessions, people[:4], prefix="bulk", broadcast_id=99)
    await enqueue_all(sessions, people[4:], prefix="single")
    settings = tg_settings.model_copy(update={"dispatch_global_rate": 20.0})
    await (await make_dispatcher(settings)).run_until_idle()
    order = [call.params["chat_id"] for call in emu.calls_to("sendMessage", ok=True)]
    assert order[0] == FIRST_USER_ID + 4


async def test_one_chat_gets_at_most_the_per_chat_rate(sessions, emu, make_dispatcher, tg_settings):
    people = await add_people(sessions, emu, 1)
    async with sessions() as session:
        for n in range(3):
            await enqueue(session=session, person_id=people[0], kind=KIND, dedupe_key=f"same:{n}", payload={"n": n})
        await session.commit()
    settings = tg_settings.model_copy(update={"dispatch_per_chat_rate": 5.0})
    await (await make_dispatcher(settings)).run_until_idle()
    times = [call.at for call in emu.calls_to("sendMessage", ok=True)]
    assert len(times) == 3
    assert all(b - a >= dt.timedelta(seconds=0.2) for a, b in itertools.pairwise(times))


async def test_rows_of_a_dead_dispatcher_are_sent_when_their_lease_expires(sessions, emu, make_dispatcher):
    people = await add_people(sessions, emu, 2)
    await enqueue_all(sessions, people)
    now = utcnow()
    async with sessions() as session:  # claimed by a process that died: one lease expired, one still valid
        await session.exec(update(OutboxMessage).values(status=OutboxStatus.SENDING, claimed_by="dead:1:x"))
        await session.exec(update(OutboxMessage).where(OutboxMessage.person_id == people[0])
                           .values(lease_until=now - dt.timedelta(seconds=1)))
        await session.exec(update(OutboxMessage).where(OutboxMessage.person_id == people[1])
                           .values(lease_until=now + dt.timedelta(minutes=5)))
        await session.commit()
    stats = await (await make_dispatcher()).run_until_idle()
    assert stats.sent == 1 and delivered(emu) == Counter({FIRST_USER_ID: 1})
    first, second = await rows(sessions)
    assert first.status is OutboxStatus.SENT and first.attempts == 2  # the dead one's try counts
    assert second.status is OutboxStatus.SENDING and second.claimed_by == "dead:1:x"


async def test_stopping_gives_back_what_was_not_sent(sessions, emu, make_dispatcher, tg_settings):
    people = await add_people(sessions, emu, 40)
    await enqueue_all(sessions, people)
    settings = tg_settings.model_copy(update={"dispatch_global_rate": 20.0})
    dispatcher = await make_dispatcher(settings)
    stop = asyncio.Event()
    task = asyncio.create_task(dispatcher.run_forever(stop=stop))
    await emu.wait_until(lambda: len(emu.calls_to("sendMessage")) >= 5)
    stop.set()
    stats = await asyncio.wait_for(task, timeout=5)
    outbox = await rows(sessions)
    by_status = Counter(row.status for row in outbox)
    assert by_status[OutboxStatus.SENT] == stats.sent == len(emu.calls_to("sendMessage", ok=True))
    assert by_status[OutboxStatus.PENDING] == 40 - stats.sent and by_status[OutboxStatus.SENDING] == 0
    assert all(row.attempts == 0 for row in outbox if row.status is OutboxStatus.PENDING)
