"""/notificacoes from the main menu, opt-in and opt-out, the PDF, and /entregas recording an AR (CP Art. 36 II)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlmodel import select

from models.notices.optin import optin_status
from models.notices.tables import CienciaKind, NoticeDelivery, NoticeStage
from models.people import Person, Role, add_staff
from tests.auxil.case_chat import Talk
from tests.auxil.notices import cp_auto, issue


async def test_from_the_menu_opt_in_then_out(emulator: Any, bot_app: Any, sessions: Any) -> None:
    user = emulator.add_user(820101, "João", language_code="pt-br")
    talk = Talk(emulator, user)
    menu = await talk.send("/start", "O que você quer fazer?")
    assert "cmd:notificacoes" in talk.buttons(menu)
    listing = await talk.press_and_edit(menu, "cmd:notificacoes", "Suas notificações")
    assert "Não há notificações para você" in listing.text and "pelo Correio" in listing.text
    terms = await talk.press_and_edit(listing, "ntc:optin", "Receber notificações aqui")
    cpf = await talk.press_and_edit(terms, "ntc:optin:yes", "CPF")
    wrong = await talk.send("123.456.789-00", "CPF não é válido")
    assert wrong.message_id > cpf.message_id
    confirm = await talk.press_and_edit(cpf, "ntc:optin:skip", "Confirme")
    assert "CPF" not in confirm.text
    await talk.press_and_edit(confirm, "ntc:optin:confirm", "Pronto!")
    async with sessions() as session:
        person_id = (await session.exec(select(Person.id))).one()
        assert (await optin_status(session=session, person_id=person_id)).current_terms
    listing = await talk.send("/notificacoes", "Você recebe notificações aqui desde")
    ask = await talk.press_and_edit(listing, "ntc:optout", "Parar de receber notificações aqui?")
    await talk.press_and_edit(ask, "ntc:optout:yes", "não serão mais enviadas")
    async with sessions() as session:
        assert not (await optin_status(session=session, person_id=person_id)).active
    assert emulator.unanswered_callbacks() == []


async def test_staff_record_the_ar_date_and_the_deadlines_start(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    user = emulator.add_user(820201, "Clara", language_code="pt-br")
    talk = Talk(emulator, user)
    await talk.send("/start", "O que você quer fazer?")
    async with sessions() as session:
        await add_staff(session=session, telegram_user_id=user.id, role=Role.CLERK, name="Clara", actor="test")
        issued = await issue(session, settings, cp_auto(offender_document=None),
                             now=dt.datetime.now(dt.UTC) - dt.timedelta(days=3))
        delivery = (await session.exec(select(NoticeDelivery))).one()
    listing = await talk.send("/entregas", "Notificações a entregar")
    assert issued.notice.number in listing.text and "ninguém no bot" in listing.text
    detail = await talk.press_and_edit(listing, f"nstf:dlv:{delivery.id}", "Rua das Acácias, 45")
    assert "Art. 36" in detail.text
    pdf = await talk.press(detail, f"nstf:pdf:{issued.notice.id}", "")
    assert pdf.document is not None
    asked = await talk.press_and_edit(detail, f"nstf:how:{delivery.id}:postal", "Em que dia foi entregue?")
    confirm = await talk.press_and_edit(asked, "nstf:dtoday", "Registrar: AR recebido (Correio)")
    done = await talk.press_and_edit(confirm, "nstf:dconfirm", "Registrado.")
    assert "os prazos começam a partir daí" in done.text
    async with sessions() as session:
        stored = await session.get(NoticeDelivery, delivery.id)
        assert stored is not None
        await session.refresh(stored)
        assert stored.ciencia_kind is CienciaKind.POSTAL
        notice = await session.get(type(issued.notice), issued.notice.id)
        assert notice is not None
        await session.refresh(notice)
        assert notice.stage is NoticeStage.NOTIFIED
    empty = await talk.send("/entregas", "Notificações a entregar")
    assert "Nada a entregar" in empty.text
