"""End to end through the emulator (issue 6, item 8): opt-in, notice, ciência, defence, decision, appeal.

The real application polls the Bot API emulator; the notification engine's dispatcher delivers what is due.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from sqlmodel import select

from core.municipality import cities_of
from models.columns import utcnow
from models.notices.chain import events_of
from models.notices.delivery import record_explicit_ciencia
from models.notices.filings import file_filing
from models.notices.tables import Notice, NoticeDelivery, NoticeFiling, NoticeStage
from models.people import Role, add_staff
from tests.auxil.case_chat import Talk, deliver
from tests.auxil.case_files import png
from tests.auxil.notices import cp_auto, designate, issue, l1533_auto, opted_in, pdf_text, person
from tests.auxil.tlog import verify


def _button(message: Any, prefix: str) -> str:
    return next(str(b["callback_data"]) for b in message.inline_buttons if str(b["callback_data"]).startswith(prefix))


async def test_opt_in_notice_ciencia_reclamacao_decision_and_appeal(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    maria_user = emulator.add_user(810101, "Maria", language_code="pt-br")
    clara_user = emulator.add_user(810102, "Clara", language_code="pt-br")
    maria, clara = Talk(emulator, maria_user), Talk(emulator, clara_user)

    # Staff issue an auto addressed by CPF before Maria accepts electronic notices: it waits on the paper list
    await clara.send("/start", "O que você quer fazer?")
    async with sessions() as session:
        await add_staff(session=session, telegram_user_id=clara_user.id, role=Role.CLERK, name="Clara", actor="test")
        await designate(session, settings, clara_user.id, "primeira_instancia")  # CP Art. 40: the Chefe
        issued = await issue(session, settings, cp_auto(), now=utcnow())  # signed by the designated inspector
        delivery = (await session.exec(select(NoticeDelivery))).one()
    notice_id = issued.notice.id

    # Opt-in from the deep link: terms → CPF → summary → confirmation
    terms = await maria.send("/start optin", "Receber notificações aqui")
    assert "Tomo ciência" in terms.text and "30 dias" in terms.text and "Termos versão" in terms.text
    asked = await maria.press(terms, "ntc:optin:yes", "CPF")
    summary = await maria.send("529.982.247-25", "Confirme")
    assert "***.982.247-**" in summary.text
    assert asked.message_id != summary.message_id
    accepted = await maria.press(summary, "opt:send", "Pronto!")

    # Maria typed that CPF at opt-in: /entregas suggests her, and Clara addresses the notice to her; it goes to
    # Maria in the bot, with the PDF
    listing = await clara.send("/entregas", "Notificações a entregar")
    detail = await clara.press_and_edit(listing, f"ent:dlv:{delivery.id}", "informou este CPF como seu")
    confirm = await clara.press(detail, f"lnk:sug:{notice_id}:{maria_user.id}",
                                         f"Vincular {issued.notice.number} a Maria")
    await clara.press(confirm, "lnk:send", "Pronto: a notificação foi enviada")
    await deliver(settings, sessions, emulator)
    delivered = await emulator.wait_for_message(maria_user.id, lambda m: "Tomo ciência" in (m.text or ""),
                                                after=accepted.message_id)  # the terms above name the button too
    assert "AI-2026-000001" in delivered.text and "R$\xa0378,00" in delivered.text
    document = await emulator.wait_for_message(maria_user.id, lambda m: m.document is not None, after=0)
    pdf = emulator.file(document.document["file_id"]).data
    assert issued.code in pdf_text(pdf)

    # Tomo ciência: the moment is recorded and the deadlines appear, each with its article
    ack = await maria.press(delivered, _button(delivered, "notif:ciencia:"), "Recebimento registrado")
    assert "Art. 278, §2º" in ack.text and "Outra leitura" not in ack.text  # the governing window only (item 10)

    # The reclamação: text → a photo → review → send (CP Art. 37–39)
    prompt = await maria.press(ack, f"ntc:file:{notice_id}", "Escreva sua reclamação")
    assert "Prazo:" in prompt.text
    files = await maria.send("O terreno foi limpo no dia seguinte à fiscalização.", "mande fotos")
    received = await maria.photo(png(), "Arquivo recebido")
    review = await maria.press(received, "fil:files:done", "Confira antes de enviar")
    assert "1 arquivo anexado" in review.text and files.message_id < review.message_id
    sent = await maria.press(review, "fil:send", "Enviado!")
    assert "a multa fica suspensa" in sent.text and "Art. 39" in sent.text

    # Clara decides in the bot: improcedente, with the reasons (CP Art. 40–41)
    async with sessions() as session:
        filing = (await session.exec(select(NoticeFiling))).one()
    listing = await clara.send("/defesas", "Defesas e recursos a decidir")
    detail = await clara.press_and_edit(listing, f"dfs:fil:{filing.id}", "protocolo em")
    assert "O terreno foi limpo" in detail.text and "1 arquivo anexado" in detail.text
    asked_text = await clara.press(detail, f"dcs:open:{filing.id}:denied", "escreva a decisão")
    confirm = await clara.send("As fotos da fiscalização mostram o mato alto no dia.", "com esta decisão")
    assert asked_text.message_id < confirm.message_id
    await clara.press(confirm, "dcs:send", "Decidido")

    # The decision reaches Maria with the appeal window (Art. 43); no deposit is asked (Art. 46; STF SV 21)
    await deliver(settings, sessions, emulator)
    decision = await emulator.wait_for_message(
        maria_user.id, lambda m: "Decisão sobre sua reclamação" in (m.text or ""), after=0)
    assert "improcedente" in decision.text and "mato alto" in decision.text
    assert "Art. 43, par. único" in decision.text and "R$\xa0189,00" not in decision.text
    assert "o depósito de metade da multa do Art. 46 não é exigido (STF, Súmula Vinculante 21)" in decision.text
    ack_decision = await maria.press(decision, _button(decision, "notif:ciencia:"), "Recebimento registrado")
    assert "Recurso voluntário ao Prefeito" in ack_decision.text and "não é preciso depositar nada" in ack_decision.text

    # The appeal (CP Art. 43–44)
    await maria.press(ack_decision, f"ntc:file:{notice_id}", "Escreva seu recurso")
    await maria.send("Recorro ao Prefeito: a fiscalização foi feita no terreno vizinho.", "mande fotos")
    review = await maria.press(emulator.last_message(maria_user.id), "fil:files:done", "Confira antes de enviar")
    await maria.press(review, "fil:send", "Registramos seu recurso")

    async with sessions() as session:
        notice = await session.get(Notice, notice_id)
        assert notice is not None and notice.stage is NoticeStage.APPEALED
        kinds = [event.kind for event in await events_of(session=session, notice_id=notice_id)]
        assert kinds == ["issued", "delivery.staff", "person.linked", "delivery.electronic", "ciencia", "filing",
                         "decision", "delivery.electronic", "ciencia", "filing"]
        assert (await verify(session)).ok
    assert emulator.unanswered_callbacks() == []
    assert clara.since(0)  # Clara's chat shows only her own screens


async def test_after_the_window_the_bot_refuses_and_cites_the_article(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    """L1533 Art. 22: acknowledged on 2/3/2026, the 10 days (BALCAO_L1533_DEFENCE_DAYS) ended on 12/3/2026."""
    user = emulator.add_user(810201, "João", language_code="pt-br")
    talk = Talk(emulator, user)
    await talk.send("/start", "O que você quer fazer?")
    past = dt.datetime(2026, 3, 2, 14, 0, tzinfo=dt.UTC)
    async with sessions() as session:
        joao = await person(session, user.id, "João")
        await opted_in(session, joao.id, now=past)
        issued = await issue(session, settings, l1533_auto(offender_document=None, person_id=joao.id), now=past)
        delivery = (await session.exec(select(NoticeDelivery))).one()
        assert delivery.id is not None
        await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                      person_id=joao.id, now=past)
    listing = await talk.send("/notificacoes", "Suas notificações")
    assert issued.notice.number in listing.text and "Você recebe notificações aqui" in listing.text
    screen = await talk.press_and_edit(listing, f"ntc:show:{issued.notice.id}", "Prazos")
    assert "encerrado" in screen.text and "Art. 22" in screen.text
    refused = await talk.press(screen, f"ntc:file:{issued.notice.id}", "O prazo terminou")
    assert "quinta-feira, 12 de março de 2026" in refused.text
    assert re.search(r"Lei nº 1\.533/2020 \(Sapezal\), Art\. 22", refused.text)
    async with sessions() as session:
        assert (await session.exec(select(NoticeFiling))).first() is None


async def test_staff_issue_a_notice_in_the_bot_step_by_step(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    ines_user = emulator.add_user(810301, "Inês", language_code="pt-br")
    talk = Talk(emulator, ines_user)
    await talk.send("/start", "O que você quer fazer?")
    async with sessions() as session:
        await add_staff(session=session, telegram_user_id=ines_user.id, role=Role.INSPECTOR, name="Inês",
                        actor="test")
        await designate(session, settings, ines_user.id)  # CP Art. 12
    law = await talk.send("/emitir", "Qual lei")
    kind = await talk.press(law, "emit:rb:nx-posturas", "Qual tipo")
    what = await talk.press(kind, "emit:type:auto", "Qual infração")
    assert what.message_id > kind.message_id
    await talk.send("CP-I-1", "Nome do infrator")
    document = await talk.send("Depósito Bom Preço Ltda.", "CPF ou CNPJ")
    await talk.press(document, "emit:skip:document", "Endereço do infrator")
    await talk.send("Rua 7 de Setembro, 200, Centro", "ID do Telegram")
    await talk.press(emulator.last_message(ines_user.id), "emit:skip:person", "Local da lavratura")
    day = await talk.send("Rua 7 de Setembro, 200", "Dia da lavratura")
    hour = await talk.press(day, "emit:today", "Hora da lavratura")
    when = await talk.press(hour, "emit:now", "Dia em que a infração foi cometida")
    facts = await talk.press(when, "emit:skip:infraction_date", "Descreva os fatos")
    witnesses = await talk.send("Terreno com mato alto e lixo acumulado.", "Testemunhas")
    assert facts.message_id < witnesses.message_id
    term = await talk.press(witnesses, "emit:skip:witnesses", "termo de fiscalização")
    review = await talk.press(term, "emit:skip:term", "Confira a notificação antes de emitir")
    assert "R$\xa0378,00" in review.text and "lista do Correio ou edital" in review.text
    done = await talk.press(review, "emit:send", "Emitida")
    number = re.search(r"AI-\d{4}-\d{6}", done.text)
    assert number is not None and "/entregas" in done.text
    pdf = await emulator.wait_for_message(ines_user.id, lambda m: m.document is not None, after=0)
    assert pdf.document["file_name"] == f"{number.group()}.pdf"
    deliveries = await talk.send("/entregas", "Notificações a entregar")
    assert number.group() in deliveries.text and "ninguém no bot" in deliveries.text


async def test_a_citizen_cannot_use_the_staff_commands(emulator: Any, bot_app: Any) -> None:
    user = emulator.add_user(810401, "Pedro", language_code="pt-br")
    talk = Talk(emulator, user)
    await talk.send("/emitir", "Só servidores")
    await talk.send("/defesas", "Só servidores")


async def test_staff_give_vista_and_order_a_diligencia_in_defesas_cp_art_40_par_1_art_42(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    """/defesas: vista to the autuado for 3 days (Art. 40 §1), then a diligência (Art. 42), then concluded."""
    clara_user = emulator.add_user(810501, "Clara", language_code="pt-br")
    clara = Talk(emulator, clara_user)
    await clara.send("/start", "O que você quer fazer?")
    async with sessions() as session:
        await add_staff(session=session, telegram_user_id=clara_user.id, role=Role.CLERK, name="Clara", actor="test")
        await designate(session, settings, clara_user.id, "primeira_instancia")
        maria = await person(session, 810502, "Maria")
        await opted_in(session, maria.id)
        issued = await issue(session, settings, cp_auto(person_id=maria.id), now=utcnow())
        delivery = (await session.exec(select(NoticeDelivery))).one()
        assert delivery.id is not None and issued.notice.id is not None
        await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                      person_id=maria.id, now=utcnow())
        filing = await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id,
                                   person_id=maria.id, text="Não é meu terreno.")
    listing = await clara.send("/defesas", "Defesas e recursos a decidir")
    detail = await clara.press_and_edit(listing, f"dfs:fil:{filing.id}", "protocolo em")
    assert "Dar vista: pessoa autuada (3 dias)" in [b["text"] for b in detail.inline_buttons]
    after_vista = await clara.press_and_edit(detail, f"dfs:vis:{filing.id}", "Vista para alegações finais até")
    assert not [b for b in after_vista.inline_buttons if b["callback_data"].startswith("dfs:vis:")]  # in turn
    asked = await clara.press(after_vista, f"dlg:open:{filing.id}", "para que é a diligência")
    confirm = await clara.send("Vistoria no terreno com o proprietário.", "Convertido em diligência")
    ordered = await clara.press(confirm, "dlg:send", "Diligência registrada")
    assert asked.message_id < confirm.message_id < ordered.message_id
    again = await clara.send("/defesas", "Defesas e recursos a decidir")
    shown = await clara.press_and_edit(again, f"dfs:fil:{filing.id}", "Convertido em diligência")
    assert "Art. 42" in shown.text
    await clara.press_and_edit(shown, f"dfs:dild:{filing.id}", "protocolo em")
    async with sessions() as session:
        stored = await session.get(NoticeFiling, filing.id)
        assert stored is not None and stored.vista_first_on is not None and stored.diligencia_done_at is not None
        kinds = [event.kind for event in await events_of(session=session, notice_id=issued.notice.id)]
    assert kinds[-3:] == ["vista", "diligencia", "diligencia.done"]


async def test_a_notice_issued_to_the_cpf_typed_at_opt_in_arrives_in_the_chat_at_once(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    """Issue 20 §1: Carlos accepted the terms and typed his CPF; an auto issued to that CPF reaches his chat."""
    carlos_user = emulator.add_user(810301, "Carlos", language_code="pt-br")
    carlos = Talk(emulator, carlos_user)
    terms = await carlos.send("/start optin", "Receber notificações aqui")
    await carlos.press(terms, "ntc:optin:yes", "CPF")
    summary = await carlos.send("529.982.247-25", "Confirme")
    accepted = await carlos.press(summary, "opt:send", "Pronto!")
    async with sessions() as session:  # the staff API, the console and the CLI all issue through issue_notice
        issued = await issue(session, settings, cp_auto(offender_name="Carlos Souza"), now=utcnow())
    assert issued.notice.person_id is not None
    await deliver(settings, sessions, emulator)
    delivered = await emulator.wait_for_message(carlos_user.id, lambda m: "Tomo ciência" in (m.text or ""),
                                                after=accepted.message_id)  # the terms also say "Tomo ciência"
    assert issued.notice.number in delivered.text
    await emulator.wait_for_message(carlos_user.id, lambda m: m.document is not None, after=0)
    ack = await carlos.press(delivered, _button(delivered, "notif:ciencia:"), "Recebimento registrado")
    assert "Art. 278, §2º" in ack.text
