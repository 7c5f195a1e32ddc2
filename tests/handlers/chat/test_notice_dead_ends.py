"""Issue 9 items 3 and 6 for /emitir: every refusal offers its field, a representação leads to /emitir, one notice
however many taps on Issue."""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import time_machine
from sqlmodel import select

from core.municipalities import built_in
from core.municipality import cities_of
from models.authorities import grant_authority
from models.cases.filing import file_representation
from models.cases.tables import Case
from models.columns import utcnow
from models.notices.delivery import record_explicit_ciencia
from models.notices.filings import file_filing
from models.notices.tables import Notice, NoticeDelivery, NoticeFiling, NoticeType
from models.people import Person, Role, StaffMember, add_staff
from tests.auxil.case_chat import Talk
from tests.auxil.case_people import representation
from tests.auxil.notices import cp_auto, issue, opted_in, person


async def _staff(emulator: Any, sessions: Any, user_id: int, name: str, role: Role = Role.INSPECTOR) -> Talk:
    user = emulator.add_user(user_id, name, language_code="pt-br")
    talk = Talk(emulator, user)
    await talk.send("/start", "O que você quer fazer?")
    async with sessions() as session:
        await add_staff(session=session, telegram_user_id=user.id, role=role, name=name, actor="test",
                        registration=f"M{user.id}")
        for act in ("autuar", "primeira_instancia"):  # CP Art. 12 and 40, designated by portaria
            for place in built_in().values():  # the test deployment's two municipalities
                member = (await session.exec(select(StaffMember).where(StaffMember.telegram_user_id == user.id))).one()
                await grant_authority(session=session, member=member, act=act, municipality=place, actor="test",
                                      designation_kind="Portaria", designation_number="1/2026",
                                      designation_on=dt.date(2026, 1, 2))
    return talk


async def _start_notice(talk: Talk, kind: str) -> None:
    """/emitir under Nova Xavantina's Código de Posturas, up to the question of the infraction."""
    law = await talk.send("/emitir", "Qual lei")
    chosen = await talk.press(law, "emit:rb:nx-posturas", "Qual tipo")
    await talk.press(chosen, f"emit:type:{kind}", "Qual infração")


async def _offender_to_the_hour(talk: Talk) -> Any:
    """The offender (a company, no document, address or Telegram id), the place and today: the hour's question."""
    document = await talk.send("Depósito Bom Preço Ltda.", "CPF ou CNPJ")
    address = await talk.press(document, "emit:skip:document", "Endereço do infrator")
    person = await talk.press(address, "emit:skip:address", "ID do Telegram")
    await talk.press(person, "emit:skip:person", "Local da lavratura")
    day = await talk.send("Rua 7 de Setembro, 200", "Dia da lavratura")
    return await talk.press(day, "emit:today", "Hora da lavratura")


AFTERNOON = dt.datetime(2026, 12, 1, 15, 0, tzinfo=ZoneInfo("America/Cuiaba"))
"""A frozen local moment with an hour left before midnight and its 00:00 in the past."""


async def test_a_future_hour_is_refused_with_buttons_for_date_and_time_cp_art_34(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    with time_machine.travel(AFTERNOON, tick=True):
        talk = await _staff(emulator, sessions, 830101, "Inês")
        # An hour later today: after "Hoje" it is a moment in the future. The clock is frozen in the afternoon (a run
        # that crossed midnight in Cuiabá made "later today" the past).
        later = AFTERNOON + dt.timedelta(hours=1)
        await _start_notice(talk, "auto")
        await talk.send("CP-I-1", "Nome do infrator")
        await _offender_to_the_hour(talk)
        when = await talk.send(later.strftime("%H:%M"), "Dia em que a infração foi cometida")
        facts = await talk.press(when, "emit:skip:infraction_date", "Descreva os fatos")
        witnesses = await talk.send("Terreno com mato alto e lixo acumulado.", "Testemunhas")
        assert facts.message_id < witnesses.message_id
        term = await talk.press(witnesses, "emit:skip:witnesses", "termo de fiscalização")
        review = await talk.press(term, "emit:skip:term", "Ainda não pode ser emitida")
        buttons = talk.buttons(review)
        assert "emit:send" not in buttons
        # The refusal names the day and the hour: both can be changed from here, the named ones first.
        assert buttons[:2] == ["emit:edit:date", "emit:edit:time"]
        asked = await talk.press(review, "emit:edit:time", "Hora da lavratura")
        fixed = await talk.send("00:00", "Confira a notificação antes de emitir")
        assert asked.message_id < fixed.message_id
        assert "emit:send" in talk.buttons(fixed) and "Ainda não pode" not in fixed.text
        await talk.press(fixed, "emit:send", "Emitida")
        assert emulator.unanswered_callbacks() == []


async def test_notify_the_offender_leads_to_emitir_prefilled_from_the_case_cp_art_32(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    async with sessions() as session:
        author = Person(telegram_user_id=830202, chat_id=830202, first_name="João", locale="pt_BR")
        session.add(author)
        await session.commit()
        assert author.id is not None
        await file_representation(session=session, person_id=author.id, form=representation(), now=utcnow(),
                                  cities=cities_of(settings))
        case = (await session.exec(select(Case))).one()
    clara = await _staff(emulator, sessions, 830201, "Clara", Role.CLERK)
    queue = await clara.send("/pendencias", case.protocol)
    opened = await clara.press(queue, f"pend:case:{case.id}", case.protocol)
    note = await clara.press(opened, f"pend:notify:{case.id}", "Pular")
    confirm = await clara.press(note, "pact:skip", "Confirma?")
    done = await clara.press(confirm, "pact:send", "notificação preliminar")
    assert f"emit:case:{case.id}" in clara.buttons(done)
    # The citizen's account is a reference under each question; the inspector writes the act's (issue 18 §6).
    name = await clara.press(done, f"emit:case:{case.id}", "Nome do infrator")
    assert "Depósito Bom Preço" in name.text and "João" not in name.text  # the author is never on it
    await clara.send("Depósito Bom Preço Ltda.", "Local da lavratura")
    await clara.send("voltar", "Nome do infrator")  # issue 19 §4.3, in a start prefilled from the case…
    await clara.send("Depósito Bom Preço Ltda.", "Local da lavratura")  # …then the steps it left, none skipped
    await clara.send("Rua 7 de Setembro, 200", "Descreva os fatos")
    review = await clara.send("Entulho e lixo despejados na calçada, constatados no local.",
                              "Confira a notificação antes de emitir")
    await clara.press(review, "emit:send", "Emitida")
    async with sessions() as session:
        notice = (await session.exec(select(Notice))).one()
        assert notice.case_id == case.id and notice.type is NoticeType.PRELIMINAR
    assert emulator.unanswered_callbacks() == []


async def test_three_taps_on_issue_at_once_issue_one_notice_and_the_others_quote_its_number(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    talk = await _staff(emulator, sessions, 830301, "Inês")
    await _start_notice(talk, "preliminar")
    await talk.send("CP-I-1", "Nome do infrator")
    await _offender_to_the_hour(talk)
    when = await talk.send("00:00", "Dia em que a infração foi cometida")
    await talk.press(when, "emit:skip:infraction_date", "Descreva os fatos")
    review = await talk.send("Terreno com mato alto e lixo acumulado.", "Confira a notificação antes de emitir")
    for _ in range(3):  # one getUpdates batch, as a burst of taps arrives
        emulator.press_button(talk.user, review, "emit:send")
    await emulator.wait_until(lambda: sum("já foi emitida" in (m.text or "") for m in emulator.messages(talk.user.id)
                                          if m.message_id > review.message_id) == 2)
    async with sessions() as session:
        (notice,) = (await session.exec(select(Notice))).all()
    later = [m.text or "" for m in emulator.messages(talk.user.id) if m.message_id > review.message_id]
    assert sum(f"já foi emitida: <b>{notice.number}</b>" in text or f"já foi emitida: {notice.number}" in text
               for text in later) == 2
    await emulator.wait_until(lambda: not emulator.unanswered_callbacks())


async def test_a_row_charged_per_square_metre_asks_the_area_and_the_day_of_the_infraction_cp_art_68(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    """CP Tabela III item 2 (Art. 68): units per m² × the area; the table lost its value, so staff give the units."""
    talk = await _staff(emulator, sessions, 830401, "Inês")
    await _start_notice(talk, "auto")
    await talk.send("CP-III-2", "quantos m² estão ocupados")
    await talk.send("muito", "Digite um número, como 12,5.")
    await talk.send("3,5", "digite a multa em unidades fiscais")
    await talk.send("2", "Nome do infrator")
    hour = await _offender_to_the_hour(talk)
    await talk.press(hour, "emit:now", "Dia em que a infração foi cometida")
    await talk.send("ontem", "Descreva os fatos")
    witnesses = await talk.send("Entulho ocupando a calçada e parte da rua.", "Testemunhas")
    term = await talk.press(witnesses, "emit:skip:witnesses", "termo de fiscalização")
    review = await talk.press(term, "emit:skip:term", "Confira a notificação antes de emitir")
    assert "3,5" in review.text and "(7 " in review.text  # 2 units per m² × 3,5 m²
    await talk.press(review, "emit:send", "Emitida")
    async with sessions() as session:
        notice = (await session.exec(select(Notice))).one()
    yesterday = dt.datetime.now(settings.tz).date() - dt.timedelta(days=1)
    assert (notice.quantity, notice.fine_units, notice.infraction_on) == ("3.5", "7.0", yesterday)


async def test_a_lei_1533_auto_past_90_days_asks_the_issuer_to_confirm_in_the_chat_art_22_par_1(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    """Drawn up 120 days ago: the review warns (L1533 Art. 22 §1) and offers "Emitir mesmo assim" instead of
    Issue; once confirmed it issues, signed by Inês at the real time (issue 18 §2)."""
    talk = await _staff(emulator, sessions, 830501, "Inês")
    drawn = (dt.datetime.now(settings.tz) - dt.timedelta(days=120)).date()
    law = await talk.send("/emitir", "Qual lei")
    await talk.press(law, "emit:rb:sapezal-1533", "Qual infração")
    await talk.send("L1533-26-IV", "Nome do infrator")
    document = await talk.send("Motorista de placa QWE1A23", "CPF ou CNPJ")
    address = await talk.press(document, "emit:skip:document", "Endereço do infrator")
    platform = await talk.press(address, "emit:skip:address", "Lei 1.533")  # the platform, notified too (Art. 22)
    person = await talk.press(platform, "emit:skip:platform", "ID do Telegram")
    await talk.press(person, "emit:skip:person", "Local da lavratura")
    await talk.send("Av. Brasil, em frente à rodoviária", "Dia da lavratura")
    await talk.send(drawn.strftime("%d/%m/%Y"), "Hora da lavratura")
    when = await talk.send("10:00", "Dia em que a infração foi cometida")
    await talk.press(when, "emit:skip:infraction_date", "Descreva os fatos")
    witnesses = await talk.send("Embarque de passageiro na via pública sem o aplicativo.", "Testemunhas")
    term = await talk.press(witnesses, "emit:skip:witnesses", "termo de fiscalização")
    review = await talk.press(term, "emit:skip:term", "Confirme para emitir mesmo assim")
    assert "Art. 22, §1º" in review.text and "Você assina, como Inês" in review.text
    buttons = [button["callback_data"] for row in review.reply_markup["inline_keyboard"] for button in row]
    assert "emit:send" not in buttons and "emit:late" in buttons
    confirmed = await talk.press(review, "emit:late", "Confira a notificação antes de emitir")
    await talk.press(confirmed, "emit:send", "Emitida")
    async with sessions() as session:
        notice = (await session.exec(select(Notice))).one()
    assert notice.issuer_telegram_id == 830501 and notice.signed_at is not None
    assert notice.signed_at > notice.drawn_up_at + dt.timedelta(days=90)


async def test_the_autuante_is_refused_in_the_chat_before_writing_a_word_l9784_art_18(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    """Clara drew up the auto and is also head of department: /defesas refuses her the decision, naming Lei 9.784
    Art. 18 I and CF Art. 37, before she types the reasons (issue 18 §1)."""
    clara = await _staff(emulator, sessions, 830601, "Clara", Role.CLERK)
    async with sessions() as session:
        maria = await person(session, 830602, "Maria")
        await opted_in(session, maria.id, now=utcnow() - dt.timedelta(days=1))
        yesterday = (utcnow().astimezone(settings.tz) - dt.timedelta(days=1)).date()  # Cuiabá's day, in the past
        issued = await issue(session, settings, cp_auto(person_id=maria.id, drawn_up_on=yesterday),
                             now=utcnow(), signer=830601)
        delivery = (await session.exec(select(NoticeDelivery))).one()
        await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id or 0,
                                      person_id=maria.id, now=utcnow())
        filing = await file_filing(session=session, cities=cities_of(settings), notice_id=issued.notice.id or 0,
                                   person_id=maria.id, text="O terreno não é meu.", now=utcnow())
    listing = await clara.send("/defesas", "Defesas e recursos a decidir")
    detail = await clara.press_and_edit(listing, f"dfs:fil:{filing.id}", "protocolo em")
    refused = await clara.press(detail, f"dcs:open:{filing.id}:denied", "Você lavrou esta notificação")
    assert "Lei 9.784/1999, Art. 18, I; CF, Art. 37" in refused.text
    async with sessions() as session:
        assert (await session.get(NoticeFiling, filing.id)).decided_at is None  # type: ignore[union-attr]


async def test_a_whole_message_that_finds_no_infraction_gets_an_answer_telegram_accepts(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    """Second pentest of issue 23: the "nothing found" reply quoted all 4,096 typed characters back, a reply longer
    than Telegram takes; it quotes the start, and the form still waits for the infraction."""
    talk = await _staff(emulator, sessions, 830601, "Inês")
    await _start_notice(talk, "preliminar")
    said = await talk.send("xyzw " * 819, "Nada encontrado")
    assert len(said.text) < 400
    await talk.send("CP-I-1", "Nome do infrator")
