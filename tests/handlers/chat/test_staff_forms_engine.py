"""The staff's notice forms on the form engine (issue 19 §1, §4): /emitir, the delivery date, the link, the decision.

Each goes through the Bot API emulator: the engine checks the role on every update, closes an idle draft saying
so, takes typed "voltar" as "back", returns a sub-form to the screen it came from, and answers an old button of
a form already sent with its number, editing nothing. Updates queued without an ``await`` between them arrive in
one ``getUpdates`` batch, as a double tap does.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import time_machine
from sqlmodel import select

from core.municipality import cities_of
from models.columns import utcnow
from models.drafts import get_draft
from models.notices.delivery import record_explicit_ciencia
from models.notices.filings import file_filing
from models.notices.tables import Notice, NoticeDelivery, NoticeFiling
from models.people import Person, Role, StaffMember, add_staff
from tests.auxil.case_chat import Talk
from tests.auxil.notices import cp_auto, designate, issue, opted_in, person

INES, CLARA, MARIA = 870101, 870102, 870103


async def _staff(emulator: Any, sessions: Any, settings: Any, user_id: int, name: str,
                 role: Role = Role.INSPECTOR) -> Talk:
    talk = Talk(emulator, emulator.add_user(user_id, name, language_code="pt-br"))
    await talk.send("/start", "O que você quer fazer?")
    async with sessions() as session:
        await add_staff(session=session, telegram_user_id=user_id, role=role, name=name, actor="test")
        for act in ("autuar", "primeira_instancia"):  # CP Art. 12 and 40, designated by portaria
            await designate(session, settings, user_id, act)
        await session.commit()
    return talk


async def _up_to_the_name(talk: Talk) -> Any:
    """/emitir under Nova Xavantina's Código de Posturas, an auto, the infraction: the offender's name is asked."""
    law = await talk.send("/emitir", "Qual lei")
    kind = await talk.press(law, "emit:rb:nx-posturas", "Qual tipo")
    await talk.press(kind, "emit:type:auto", "Qual infração")
    return await talk.send("CP-I-1", "Nome do infrator")


async def _draft(sessions: Any, telegram_id: int) -> Any:
    async with sessions() as session:
        found = (await session.exec(select(Person).where(Person.telegram_user_id == telegram_id))).one()
        return await get_draft(session=session, person_id=found.id or 0)


async def test_typed_voltar_in_emitir_asks_the_step_before_again_and_is_never_the_offenders_name(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    """Issue 19 §4.3: "voltar" goes back one step in every form; before, it became the offender's name."""
    talk = await _staff(emulator, sessions, settings, INES, "Inês")
    await _up_to_the_name(talk)
    await talk.send("voltar", "Qual infração")
    draft = await _draft(sessions, INES)
    assert draft.step == "infraction" and "name" not in draft.data
    await talk.send("CP-I-1", "Nome do infrator")
    await talk.send("Anterior", "Qual infração")  # any case, and the other word
    assert (await _draft(sessions, INES)).data.get("name") is None


async def test_a_role_withdrawn_in_the_middle_of_emitir_stops_the_next_answer(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    """The role is checked on every update of the form (Form.roles), not only at /emitir; the draft is closed."""
    talk = await _staff(emulator, sessions, settings, INES, "Inês")
    await _up_to_the_name(talk)
    async with sessions() as session:
        for member in (await session.exec(select(StaffMember).where(StaffMember.telegram_user_id == INES))).all():
            member.active = False
            session.add(member)
        await session.commit()
    await talk.send("Depósito Bom Preço Ltda.", "Só servidores com o perfil certo")
    assert await _draft(sessions, INES) is None  # nothing taken, nothing half-done waiting for the role
    async with sessions() as session:
        assert (await session.exec(select(Notice))).all() == []


async def test_an_emitir_draft_idle_past_the_configured_hours_is_closed_saying_what_was_kept(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    """BALCAO_STAFF_FORM_IDLE_HOURS (12): the next answer after that finds the form closed, and is not taken."""
    start = dt.datetime(2026, 3, 10, 13, 0, tzinfo=dt.UTC)
    with time_machine.travel(start, tick=True) as clock:
        talk = await _staff(emulator, sessions, settings, INES, "Inês")
        await _up_to_the_name(talk)
        clock.shift(dt.timedelta(hours=settings.staff_form_idle_hours, minutes=1))
        closed = await talk.send("Depósito Bom Preço Ltda.", "mais de 12 horas sem resposta")
        assert "nada foi emitido nem registrado" in closed.text
        assert await _draft(sessions, INES) is None
        async with sessions() as session:
            assert (await session.exec(select(Notice))).all() == []


async def test_an_old_cancel_of_an_issued_notice_answers_its_number_and_edits_nothing(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    """Issue 19 §4.2: Issue and the review's Cancel at the same instant, then Cancel again: one notice, and the
    review is never turned into "Cancelado"."""
    talk = await _staff(emulator, sessions, settings, INES, "Inês")
    await _up_to_the_name(talk)
    document = await talk.send("Depósito Bom Preço Ltda.", "CPF ou CNPJ")
    address = await talk.press(document, "emit:skip:document", "Endereço do infrator")
    person_id = await talk.press(address, "emit:skip:address", "ID do Telegram")
    await talk.press(person_id, "emit:skip:person", "Local da lavratura")
    day = await talk.send("Rua 7 de Setembro, 200", "Dia da lavratura")
    hour = await talk.press(day, "emit:today", "Hora da lavratura")
    when = await talk.send("00:00", "Dia em que a infração foi cometida")
    await talk.press(when, "emit:skip:infraction_date", "Descreva os fatos")
    witnesses = await talk.send("Terreno com mato alto e lixo acumulado.", "Testemunhas")
    term = await talk.press(witnesses, "emit:skip:witnesses", "termo de fiscalização")
    review = await talk.press(term, "emit:skip:term", "Confira a notificação antes de emitir")
    assert hour.message_id < review.message_id
    issue_button = [b["text"] for b in review.inline_buttons if b["callback_data"] == "emit:send"]
    assert issue_button == ["✅ Emitir a notificação"]
    emulator.press_button(talk.user, review, "emit:send")
    emulator.press_button(talk.user, review, "emit:cancel")
    await emulator.wait_until(lambda: any("já foi emitida" in (m.text or "") for m in emulator.messages(INES)))
    emulator.press_button(talk.user, review, "emit:cancel")
    await emulator.wait_until(lambda: sum("já foi emitida" in (m.text or "") for m in emulator.messages(INES)) == 2)
    async with sessions() as session:
        (notice,) = (await session.exec(select(Notice))).all()
    later = [m.text or "" for m in emulator.messages(INES) if m.message_id > review.message_id]
    assert sum(f"já foi emitida: <b>{notice.number}</b>" in text or f"já foi emitida: {notice.number}" in text
               for text in later) == 2
    assert not any("Cancelado" in text for text in later)
    kept = emulator.world.chat(emulator.bot, INES).messages[review.message_id]
    assert kept.edits == 0
    await emulator.wait_until(lambda: not emulator.unanswered_callbacks())


async def test_cancel_in_the_delivery_date_returns_to_the_list_it_came_from(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    """A sub-form returns to the screen it came from (Form.back, like PTB's map_to_parent): Cancel → /entregas."""
    clara = await _staff(emulator, sessions, settings, CLARA, "Clara", Role.CLERK)
    async with sessions() as session:
        issued = await issue(session, settings, cp_auto(offender_document=None),
                             now=dt.datetime.now(dt.UTC) - dt.timedelta(days=3))
        delivery = (await session.exec(select(NoticeDelivery))).one()
    listing = await clara.send("/entregas", "Notificações a entregar")
    detail = await clara.press_and_edit(listing, f"ent:dlv:{delivery.id}", "Rua das Acácias, 45")
    asked = await clara.press(detail, f"dday:open:{delivery.id}:postal", "Em que dia foi entregue?")
    await clara.send("amanhã", "Em que dia foi entregue?")  # refused, asked again
    await clara.press_and_edit(asked, "dday:cancel", "Cancelado")
    back = await emulator.wait_for_message(CLARA, lambda m: "Notificações a entregar" in (m.text or ""),
                                           after=asked.message_id)
    assert issued.notice.number in back.text and f"ent:dlv:{delivery.id}" in clara.buttons(back)
    assert await _draft(sessions, CLARA) is None


async def test_two_taps_on_confirm_the_decision_decide_once_and_return_to_defesas(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    """The decision (CP Art. 41): "✅ Confirmar a decisão" pressed twice at once decides once, the second press
    says it was recorded, and the clerk is back at /defesas without the filing."""
    clara = await _staff(emulator, sessions, settings, CLARA, "Clara", Role.CLERK)
    async with sessions() as session:
        maria = await person(session, MARIA, "Maria")
        await opted_in(session, maria.id, now=utcnow() - dt.timedelta(days=1))
        yesterday = (utcnow().astimezone(settings.tz) - dt.timedelta(days=1)).date()
        issued = await issue(session, settings, cp_auto(person_id=maria.id, drawn_up_on=yesterday), now=utcnow())
        delivery = (await session.exec(select(NoticeDelivery))).one()
        await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id or 0,
                                      person_id=maria.id, now=utcnow())
        filing = await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id or 0,
                                   person_id=maria.id, text="O terreno não é meu.", now=utcnow())
    listing = await clara.send("/defesas", "Defesas e recursos a decidir")
    detail = await clara.press_and_edit(listing, f"dfs:fil:{filing.id}", "protocolo em")
    await clara.press(detail, f"dcs:open:{filing.id}:denied", "escreva a decisão")
    await clara.send("ok", "Lei 9.784")  # L9784 Art. 50: no reason of substance, asked again
    confirm = await clara.send("As fotos da fiscalização mostram o mato alto no dia da vistoria.", "com esta decisão")
    assert "✅ Confirmar a decisão" in [b["text"] for b in confirm.inline_buttons]
    emulator.press_button(clara.user, confirm, "dcs:send")
    emulator.press_button(clara.user, confirm, "dcs:send")
    await emulator.wait_until(lambda: any("já foi registrado" in (m.text or "") for m in emulator.messages(CLARA)))
    back = await emulator.wait_for_message(CLARA, lambda m: "Defesas e recursos a decidir" in (m.text or ""),
                                           after=confirm.message_id)
    assert issued.notice.number not in back.text
    async with sessions() as session:
        stored = await session.get(NoticeFiling, filing.id)
        assert stored is not None and stored.decided_at is not None
    later = [m.text or "" for m in emulator.messages(CLARA) if m.message_id > confirm.message_id]
    assert sum("Decidido" in text for text in later) == 1
    assert emulator.world.chat(emulator.bot, CLARA).messages[confirm.message_id].edits == 0
    await emulator.wait_until(lambda: not emulator.unanswered_callbacks())


async def test_buttons_of_messages_sent_before_the_split_still_open_their_screen(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    """A notification's "Notificações a entregar" (``nstf:list``) already in a chat opens /entregas; an old button
    of the hand-rolled /emitir (``nstf:issue``) says it is no longer valid and issues nothing (a regression guard:
    main answered both itself)."""
    clara = await _staff(emulator, sessions, settings, CLARA, "Clara", Role.CLERK)
    menu = await clara.send("/entregas", "Notificações a entregar")
    mark = clara._mark()
    emulator.press_button(clara.user, menu, "nstf:list", forged=True)
    await clara._expect(mark, "Notificações a entregar")
    mark = clara._mark()
    emulator.press_button(clara.user, menu, "nstf:issue", forged=True)
    await clara._expect(mark, "Esse botão não vale mais")
    async with sessions() as session:
        assert (await session.exec(select(Notice))).all() == []
    await emulator.wait_until(lambda: not emulator.unanswered_callbacks())
