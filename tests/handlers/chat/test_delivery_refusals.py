"""Refusals at a delivery in person, recorded in the chat's /entregas as in the console (issue 18 §3), through the
same domain function: a refused "ciente" (CP Art. 25 sole paragraph) or receipt (Art. 26 sole paragraph) of a
preliminar counts as delivered that day and leads to the auto (Art. 29); an auto's offender who would not sign
(Art. 34 §3). Lei 1.533 provides no such refusal, and its delivery screen offers none."""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from core.municipality import cities_of
from models.columns import utcnow
from models.notices.chain import events_of
from models.notices.delivery import civil_date
from models.notices.tables import CienciaKind, NoticeDelivery
from models.people import Role, add_staff
from tests.auxil.case_chat import Talk
from tests.auxil.notices import cp_auto, cp_preliminar, issue, l1533_auto


async def _staff(emulator: Any, sessions: Any, user_id: int, name: str, role: Role = Role.INSPECTOR) -> Talk:
    user = emulator.add_user(user_id, name, language_code="pt-br")
    talk = Talk(emulator, user)
    await talk.send("/start", "O que você quer fazer?")
    async with sessions() as session:
        await add_staff(session=session, telegram_user_id=user.id, role=role, name=name, actor="test")
    return talk


async def _forged(talk: Talk, message: Any, data: str, expected: str) -> Any:
    """A press no button carries (a modified client may send any data), answered by editing the message."""
    talk.emulator.press_button(talk.user, message, data, forged=True)
    return await talk.emulator.wait_for_edit(talk.user.id, message.message_id,
                                             lambda m: expected in (m.text or ""), timeout=10)


async def _to_deliver(sessions: Any, settings: Any, data: Any) -> int:
    async with sessions() as session:
        issued = await issue(session, settings, data, now=utcnow())
        delivery = (await session.exec(select(NoticeDelivery).where(
            NoticeDelivery.notice_id == issued.notice.id))).one()
    assert delivery.id is not None
    return delivery.id


async def test_a_refused_ciente_of_a_preliminar_is_recorded_in_the_chat_and_the_auto_is_due(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    talk = await _staff(emulator, sessions, 850301, "Clara", Role.CLERK)
    delivery_id = await _to_deliver(sessions, settings, cp_preliminar())
    listing = await talk.send("/entregas", "Notificações a entregar")
    screen = await talk.press_and_edit(listing, f"ent:dlv:{delivery_id}", "Código de Posturas, Art. 36")
    assert f"nrf:o:{delivery_id}" in talk.buttons(screen)
    options = await talk.press_and_edit(screen, f"nrf:o:{delivery_id}", "o que aconteceu na entrega pessoal")
    assert "Art. 25, parágrafo único" in options.text and "Art. 26, parágrafo único" in options.text
    assert f"nrf:r:{delivery_id}:sign" not in talk.buttons(options)  # Art. 34 §3 is the auto's, not the preliminar's
    day = await talk.press_and_edit(options, f"nrf:r:{delivery_id}:ciente", "Em que dia foi a entrega pessoal")
    today = civil_date(utcnow(), cities_of(settings).default)
    done = await talk.press_and_edit(day, f"nrf:c:{delivery_id}:ciente:{today.isoformat()}", "Registrado")
    assert "Art. 29" in done.text and "/emitir" in done.text  # CP Art. 29: the auto at once
    async with sessions() as session:
        delivery = await session.get(NoticeDelivery, delivery_id)
        assert delivery is not None
        events = await events_of(session=session, notice_id=delivery.notice_id)
    # CP Art. 26 sole paragraph: the delivery stands as made that day, the refusal declared by the agent who records it
    assert (delivery.ciencia_kind, delivery.ciencia_on) == (CienciaKind.PERSONAL, today)
    [refused] = [event for event in events if event.kind == "delivery.refusal"]
    assert refused.data["refusal"] == "ciente" and refused.actor == "staff:850301"
    assert refused.data["article"] == "Código de Posturas, Art. 25, parágrafo único; Art. 29"


async def test_an_auto_refused_signature_is_recorded_and_a_future_day_is_refused(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    talk = await _staff(emulator, sessions, 850302, "Inês")
    delivery_id = await _to_deliver(sessions, settings, cp_auto())
    listing = await talk.send("/entregas", "Notificações a entregar")
    screen = await talk.press_and_edit(listing, f"ent:dlv:{delivery_id}", "Código de Posturas, Art. 36")
    options = await talk.press_and_edit(screen, f"nrf:o:{delivery_id}", "o que aconteceu na entrega pessoal")
    assert "Art. 34, §3º" in options.text and f"nrf:r:{delivery_id}:ciente" not in talk.buttons(options)
    day = await talk.press_and_edit(options, f"nrf:r:{delivery_id}:sign", "Em que dia foi a entrega pessoal")
    # a forged press with a day in the future is answered, and nothing is recorded
    future = await _forged(talk, day, f"nrf:c:{delivery_id}:sign:2099-01-01", "Não registrado")
    async with sessions() as session:
        delivery = await session.get(NoticeDelivery, delivery_id)
        assert delivery is not None and delivery.ciencia_on is None
    today = civil_date(utcnow(), cities_of(settings).default)
    await _forged(talk, future, f"nrf:c:{delivery_id}:sign:{today.isoformat()}", "Registrado")
    async with sessions() as session:
        delivery = await session.get(NoticeDelivery, delivery_id)
        assert delivery is not None and delivery.ciencia_on == today


async def test_lei_1533_offers_no_refusal_and_a_citizen_cannot_record_one(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    talk = await _staff(emulator, sessions, 850303, "Clara", Role.CLERK)
    delivery_id = await _to_deliver(sessions, settings, l1533_auto())
    listing = await talk.send("/entregas", "Notificações a entregar")
    screen = await talk.press_and_edit(listing, f"ent:dlv:{delivery_id}", "Lei 1.533/2020, Art. 22 §1")
    assert not [data for data in talk.buttons(screen) if data.startswith("nrf:")]
    citizen = emulator.add_user(850304, "Pedro", language_code="pt-br")
    other = Talk(emulator, citizen)
    start = await other.send("/start", "O que você quer fazer?")
    today = civil_date(utcnow(), cities_of(settings).default)
    await _forged(other, start, f"nrf:c:{delivery_id}:receipt:{today.isoformat()}",
                  "Só servidores com o perfil certo")
    async with sessions() as session:
        delivery = await session.get(NoticeDelivery, delivery_id)
        assert delivery is not None and delivery.ciencia_on is None
