"""A citizen's notice screen (issue 9 item 10): one governing window per right, in plain words.

The Código de Posturas gives a notificação preliminar two readings of the defence window (Art. 24 and Art. 278);
the system applies one (docs/LEGAL-CHOICES.md). The person it is addressed to sees that one; "Outra leitura"
stays on staff screens and in ``python -m bot prazo``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlmodel import select

from core.municipality import Publication, cities_of
from models.deadlines import WindowRole
from models.notices.delivery import record_explicit_ciencia
from models.notices.status import notice_view
from models.notices.tables import NoticeDelivery
from tests.auxil.case_chat import Talk
from tests.auxil.notices import cp_auto, cp_preliminar, issue, l1533_auto, opted_in, person


async def test_the_citizen_sees_one_window_per_right_and_no_other_reading(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    user = emulator.add_user(820401, "Maria", language_code="pt-br")
    talk = Talk(emulator, user)
    await talk.send("/start", "O que você quer fazer?")
    now = dt.datetime.now(dt.UTC) - dt.timedelta(days=1)
    async with sessions() as session:
        maria = await person(session, user.id, "Maria")
        await opted_in(session, maria.id, now=now)
        issued = await issue(session, settings, cp_preliminar(offender_document=None, person_id=maria.id), now=now)
        delivery = (await session.exec(select(NoticeDelivery))).one()
        await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                      person_id=maria.id, now=now)
        view = await notice_view(session=session, city=cities_of(settings).of(issued.notice.municipality),
                                 notice=issued.notice, today=now.date())
    readings = [w for w in view.windows if w.role is WindowRole.ALTERNATIVE]
    assert readings, "this notice has another reading of its defence window (the case this test is about)"
    listing = await talk.send("/notificacoes", "Suas notificações")
    screen = await talk.press_and_edit(listing, f"ntc:show:{issued.notice.id}", "Prazos")
    deadlines = [line for line in screen.text.splitlines() if line.startswith("• ")]
    assert len(deadlines) == 1, screen.text
    assert "Outra leitura" not in screen.text and readings[0].rule.article not in screen.text
    # issue 20 §3: the preliminar does not send its reader to "o prazo escrito na notificação preliminar"
    assert "na notificação preliminar" not in screen.text and "no prazo escrito nesta notificação" in screen.text


async def test_cancelling_an_appeal_names_it_an_appeal(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    """/cancelar said "sua defesa foi descartado" for an appeal: the filing names itself (CP Art. 42 appeal here)."""
    from models.notices.filings import file_filing

    user = emulator.add_user(820501, "Maria", language_code="pt-br")
    talk = Talk(emulator, user)
    await talk.send("/start", "O que você quer fazer?")
    past = dt.datetime.now(dt.UTC) - dt.timedelta(days=16)
    async with sessions() as session:
        maria = await person(session, user.id, "Maria")
        await opted_in(session, maria.id, now=past)
        issued = await issue(session, settings, cp_auto(offender_document=None, person_id=maria.id), now=past)
        delivery = (await session.exec(select(NoticeDelivery))).one()
        await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                      person_id=maria.id, now=past)
        await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id, person_id=maria.id,
                          text="O terreno foi limpo.", now=past + dt.timedelta(days=1))
    listing = await talk.send("/notificacoes", "Suas notificações")
    screen = await talk.press_and_edit(listing, f"ntc:show:{issued.notice.id}", "Você já pode recorrer")
    await talk.press(screen, f"ntc:file:{issued.notice.id}", "Escreva seu recurso")
    cancelled = await talk.send("/cancelar", "Cancelado")
    assert "descartei seu recurso e nada foi enviado" in cancelled.text, cancelled.text


async def test_before_the_ciencia_the_screen_says_what_opens_after_it(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    """Issue 20 §3: before ciência, "Ver prazos e opções" said nothing of the deadlines; now it names each right
    the ciência opens, by its length (its dates come with the ciência)."""
    user = emulator.add_user(820403, "Maria", language_code="pt-br")
    talk = Talk(emulator, user)
    await talk.send("/start", "O que você quer fazer?")
    now = dt.datetime.now(dt.UTC) - dt.timedelta(days=1)
    async with sessions() as session:
        maria = await person(session, user.id, "Maria")
        await opted_in(session, maria.id, now=now)
        issued = await issue(session, settings, l1533_auto(offender_document=None, person_id=maria.id), now=now)
    listing = await talk.send("/notificacoes", "Suas notificações")
    screen = await talk.press_and_edit(listing, f"ntc:show:{issued.notice.id}", "Depois da ciência")
    assert "Prazos</b>" not in screen.text  # no date before the ciência
    after = [line for line in screen.text.splitlines() if line.startswith("• ")]
    assert after and all("dias" in line for line in after), screen.text
    assert "Lei nº 1.533/2020 (Sapezal), Art. 22" in screen.text
    # an "Auto de infração" names its windows after its own kind, not "a notificação"
    assert "no prazo fixado neste auto de infração" in screen.text and "fixado na notificação" not in screen.text


async def test_each_deadline_says_what_it_counts_from_so_the_pdf_and_the_chat_agree(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    """Issue 20 §3: the PDF said "30 dias corridos" and the chat "faltam 34 dias": the count runs from the
    ciência, not the issue, and the chat now says so beside the date."""
    user = emulator.add_user(820404, "Maria", language_code="pt-br")
    talk = Talk(emulator, user)
    await talk.send("/start", "O que você quer fazer?")
    issued_at = dt.datetime.now(dt.UTC) - dt.timedelta(days=5)
    async with sessions() as session:
        maria = await person(session, user.id, "Maria")
        await opted_in(session, maria.id, now=issued_at)
        issued = await issue(session, settings, l1533_auto(offender_document=None, person_id=maria.id),
                             now=issued_at)
        delivery = (await session.exec(select(NoticeDelivery))).one()
        ciencia = dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)
        await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                      person_id=maria.id, now=ciencia)
        delivery = (await session.exec(select(NoticeDelivery))).one()
    listing = await talk.send("/notificacoes", "Suas notificações")
    screen = await talk.press_and_edit(listing, f"ntc:show:{issued.notice.id}", "Prazos")
    assert delivery.ciencia_on is not None
    start = delivery.ciencia_on.strftime("%d/%m/%Y")
    assert f"30 dias corridos contados a partir de {start}" in screen.text, screen.text


async def test_the_payment_stays_visible_after_a_defence_decision(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    """Issue 20 §3: after the first-instance decision the screen showed only the appeal; the fine's payment (CP
    Art. 47 I, after the final decision) vanished. It stays, by its length, until the final decision dates it."""
    from models.notices.filings import decide_filing, file_filing
    from models.notices.tables import FilingOutcome
    from tests.auxil.notices import CHEFE

    user = emulator.add_user(820405, "Maria", language_code="pt-br")
    talk = Talk(emulator, user)
    await talk.send("/start", "O que você quer fazer?")
    past = dt.datetime.now(dt.UTC) - dt.timedelta(days=6)
    async with sessions() as session:
        maria = await person(session, user.id, "Maria")
        await opted_in(session, maria.id, now=past)
        issued = await issue(session, settings, cp_auto(offender_document=None, person_id=maria.id), now=past)
        delivery = (await session.exec(select(NoticeDelivery))).one()
        await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                      person_id=maria.id, now=past)
        filing = await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id,
                                   person_id=maria.id, text="O terreno foi limpo.", now=past + dt.timedelta(days=1))
        await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                            filing_id=filing.id, outcome=FilingOutcome.DENIED,
                            text="Improcedente: as fotos da fiscalização mostram o mato alto no dia.",
                            decider_telegram_id=CHEFE, now=past + dt.timedelta(days=2))
    listing = await talk.send("/notificacoes", "Suas notificações")
    screen = await talk.press_and_edit(listing, f"ntc:show:{issued.notice.id}", "Decisão")
    assert "Pagamento da multa depois da decisão definitiva: 10 dias úteis" in screen.text, screen.text
    assert "contados da ciência da decisão definitiva" in screen.text and "Art. 47, I" in screen.text
