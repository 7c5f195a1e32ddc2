"""/notificacoes from the main menu, opt-in and opt-out, the PDF, and /entregas recording an AR (CP Art. 36 II)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlmodel import select

from core.municipality import cities_of
from models.notices.delivery import record_explicit_ciencia
from models.notices.filings import file_filing
from models.notices.optin import optin_status
from models.notices.tables import CienciaKind, NoticeDelivery, NoticeFiling, NoticeStage
from models.people import Person, Role, add_staff
from tests.auxil.case_chat import Talk, deliver
from tests.auxil.notices import cp_auto, issue, opted_in, person


async def test_from_the_menu_opt_in_then_out(emulator: Any, bot_app: Any, sessions: Any) -> None:
    user = emulator.add_user(820101, "João", language_code="pt-br")
    talk = Talk(emulator, user)
    menu = await talk.send("/start", "O que você quer fazer?")
    assert "cmd:notificacoes" in talk.buttons(menu)
    listing = await talk.press_and_edit(menu, "cmd:notificacoes", "Suas notificações")
    assert "Não há notificações para você" in listing.text and "pelo Correio" in listing.text
    terms = await talk.press_and_edit(listing, "ntc:optin", "Receber notificações aqui")
    cpf = await talk.press(terms, "ntc:optin:yes", "CPF")
    wrong = await talk.send("123.456.789-00", "CPF não é válido")
    assert wrong.message_id > cpf.message_id
    confirm = await talk.press(cpf, "opt:skip:cpf", "Confirme")
    assert "CPF" not in confirm.text
    await talk.press(confirm, "opt:send", "Pronto!")
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
    detail = await talk.press_and_edit(listing, f"ent:dlv:{delivery.id}", "Rua das Acácias, 45")
    assert "Art. 36" in detail.text
    pdf = await talk.press(detail, f"ent:pdf:{issued.notice.id}", "")
    assert pdf.document is not None
    asked = await talk.press(detail, f"dday:open:{delivery.id}:postal", "Em que dia foi entregue?")
    confirm = await talk.press(asked, "dday:today", "Registrar: AR recebido (Correio)")
    done = await talk.press(confirm, "dday:send", "Registrado.")
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


async def test_cp_art_42_the_bot_offers_the_appeal_when_the_complaint_was_not_decided_in_time(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    """The reclamação was filed 15 days ago; Art. 40 gave the first instance 10 days; Art. 42 opens the appeal."""
    user = emulator.add_user(820301, "Maria", language_code="pt-br")
    talk = Talk(emulator, user)
    await talk.send("/start", "O que você quer fazer?")
    past = dt.datetime.now(dt.UTC) - dt.timedelta(days=16)
    async with sessions() as session:
        maria = await person(session, user.id, "Maria")
        await opted_in(session, maria.id, now=past)
        issued = await issue(session, settings, cp_auto(offender_document=None, person_id=maria.id), now=past)
        assert issued.notice.id is not None
        delivery = (await session.exec(select(NoticeDelivery))).one()
        assert delivery.id is not None
        await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                      person_id=maria.id, now=past)
        await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id, person_id=maria.id,
                          text="O terreno foi limpo.", now=past + dt.timedelta(days=1))
    listing = await talk.send("/notificacoes", "Suas notificações")
    assert "Sem decisão no prazo" in listing.text
    screen = await talk.press_and_edit(listing, f"ntc:show:{issued.notice.id}", "Você já pode recorrer")
    assert "Art. 40 and 42" not in screen.text and "Art. 40" in screen.text and "Art. 42" in screen.text
    prompt = await talk.press(screen, f"ntc:file:{issued.notice.id}", "Escreva seu recurso")
    assert "não há prazo enquanto a reclamação não for decidida" in prompt.text
    await talk.send("Recorro: a reclamação não foi decidida no prazo.", "mande fotos")
    await talk.press(emulator.last_message(user.id), "fil:files:done", "Confira antes de enviar")
    await talk.send("sim", "Registramos seu recurso")  # issue 20 §3: a typed "sim" sends it, as in the ouvidoria
    async with sessions() as session:
        notice = await session.get(type(issued.notice), issued.notice.id)
        assert notice is not None
        await session.refresh(notice)
        assert notice.stage is NoticeStage.APPEALED
        filings = (await session.exec(select(NoticeFiling).order_by(NoticeFiling.id))).all()  # type: ignore[arg-type]
        assert [(f.kind.value, f.decided_by) for f in filings] == [("reclamacao", "lapsed:art42"), ("recurso", None)]
        assert filings[1].text == "Recorro: a reclamação não foi decidida no prazo."
    appealed = await talk.send("/notificacoes", "Suas notificações")
    screen = await talk.press_and_edit(appealed, f"ntc:show:{issued.notice.id}", "não foi decidida no prazo")
    # STF Súmula Vinculante 21: the appeal goes forward without CP Art. 46's deposit, and the screen says so
    assert "deposite" not in screen.text.lower() and "não é preciso depositar nada" in screen.text
    assert emulator.unanswered_callbacks() == []


async def test_opting_in_later_brings_the_notice_waiting_for_the_post(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    user = emulator.add_user(820401, "João", language_code="pt-br")
    talk = Talk(emulator, user)
    await talk.send("/start", "O que você quer fazer?")
    async with sessions() as session:
        joao = await person(session, user.id, "João")
        issued = await issue(session, settings, cp_auto(offender_document=None, person_id=joao.id),
                             now=dt.datetime.now(dt.UTC) - dt.timedelta(days=1))
    terms = await talk.send("/start optin", "Receber notificações aqui")
    await talk.press(terms, "ntc:optin:yes", "CPF")
    await talk.press(emulator.last_message(user.id), "opt:skip:cpf", "Confirme")
    done = await talk.send("sim", "Pronto!")  # a typed "sim" at the review, as in every form
    assert "1 documento que esperava por você está vindo para cá" in done.text
    await deliver(settings, sessions, emulator)
    delivered = await emulator.wait_for_message(user.id, lambda m: "Tomo ciência" in (m.text or ""),
                                                after=done.message_id)  # the terms above it name the button too
    assert issued.notice.number in delivered.text
    assert emulator.unanswered_callbacks() == []


async def test_staff_address_a_notice_to_a_person_found_later(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    clara_user = emulator.add_user(820501, "Clara", language_code="pt-br")
    maria_user = emulator.add_user(820502, "Maria", language_code="pt-br")
    clara = Talk(emulator, clara_user)
    await clara.send("/start", "O que você quer fazer?")
    async with sessions() as session:
        await add_staff(session=session, telegram_user_id=clara_user.id, role=Role.CLERK, name="Clara", actor="test")
        maria = await person(session, maria_user.id, "Maria")
        await opted_in(session, maria.id)
        issued = await issue(session, settings, cp_auto(offender_document=None),
                             now=dt.datetime.now(dt.UTC) - dt.timedelta(days=1))
        delivery = (await session.exec(select(NoticeDelivery))).one()
    listing = await clara.send("/entregas", "Notificações a entregar")
    detail = await clara.press_and_edit(listing, f"ent:dlv:{delivery.id}", "Rua das Acácias, 45")
    asked = await clara.press(detail, f"lnk:open:{issued.notice.id}", "ID do Telegram da pessoa")
    await clara.send("maria", "é um número")
    await clara.send("999999", "Ninguém com esse ID")
    confirm = await clara.send(str(maria_user.id), f"Vincular {issued.notice.number} a Maria")
    assert asked.message_id < confirm.message_id
    done = await clara.press(confirm, "lnk:send", "Pronto: a notificação foi enviada")
    # The sub-form returns to the list it came from (Form.back): the notice linked is no longer on it.
    back = await emulator.wait_for_message(clara_user.id, lambda m: "Notificações a entregar" in (m.text or ""),
                                           after=done.message_id)
    assert issued.notice.number not in back.text
    await deliver(settings, sessions, emulator)
    delivered = await emulator.wait_for_message(maria_user.id, lambda m: "Tomo ciência" in (m.text or ""), after=0)
    assert issued.notice.number in delivered.text
    empty = await clara.send("/entregas", "Notificações a entregar")
    assert "Nada a entregar" in empty.text
    assert emulator.unanswered_callbacks() == []

