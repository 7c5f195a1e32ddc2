"""How the notice messages read, in the reader's language, with their buttons and the PDF."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import translator
from core.municipality import Publication, cities_of
from core.settings import Settings
from models.notices.delivery import record_explicit_ciencia
from models.notices.filings import decide_filing, file_filing
from models.notices.tables import FilingOutcome
from notifications.notice_messages import DECISION, DELIVERY, LIMIT_WARNING, REMINDER, TACIT
from notifications.rendering import KINDS, render
from tests.auxil.notices import CHEFE, cp_auto, issue, l1533_auto, opted_in, outbox, person

NOW = dt.datetime(2026, 3, 2, 14, 0, tzinfo=dt.UTC)


async def _delivery_payload(session: AsyncSession, settings: Settings, data: object) -> dict[str, object]:
    maria = await person(session, 9001, "Maria")
    await opted_in(session, maria.id)
    issued = await issue(session, settings, data, now=NOW)  # type: ignore[arg-type]
    [message] = await outbox(session, DELIVERY)
    return {**message.payload, "_pdf": issued.pdf}


def test_legal_messages_have_no_mutable_topic() -> None:
    for kind in (DELIVERY, DECISION, TACIT, LIMIT_WARNING):
        assert KINDS[kind].topic is None
    assert KINDS[REMINDER].topic == "notice-deadlines"


@pytest.mark.parametrize(
    ("locale", "title", "tacit"),
    [
        ("pt_BR", "Auto de infração nº", "será considerado notificado 30 dias"),
        ("en", "Infraction report (auto de infração) No.", "you will count as notified 30 days"),
        ("es", "Acta de infracción (auto de infração) n.º", "se le considerará notificado 30 días"),
    ],
)
async def test_the_delivery_in_each_language_with_the_pdf_and_the_ciencia_button(
    session: AsyncSession, settings: Settings, locale: str, title: str, tacit: str
) -> None:
    payload = await _delivery_payload(session, settings, l1533_auto(offender_document=None, person_telegram_id=9001))
    rendered = render(DELIVERY, payload, translator(locale))
    assert title in rendered.text and tacit in rendered.text
    assert rendered.buttons[0][0][1] == f"notif:ciencia:{payload['delivery_id']}"
    assert rendered.document == (f"{payload['number']}.pdf", payload["_pdf"])
    assert "Lei nº 1.533/2020 (Sapezal), Art. 26, IV" in rendered.text


async def test_a_cp_delivery_says_it_goes_by_post_when_not_acknowledged(
    session: AsyncSession, settings: Settings
) -> None:
    payload = await _delivery_payload(session, settings, cp_auto(offender_document=None, person_telegram_id=9001))
    text = render(DELIVERY, payload, translator("pt_BR")).text
    assert "Se você não tocar em 30 dias, a notificação será entregue pelo Correio." in text
    assert "CPF" not in text and "Acácias" not in text  # no CPF, no address in the message


async def test_the_decision_states_the_appeal_and_that_no_deposit_is_required(
    session: AsyncSession, settings: Settings
) -> None:
    payload = await _delivery_payload(session, settings, cp_auto(offender_document=None, person_telegram_id=9001))
    await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=int(payload["delivery_id"]),  # type: ignore[call-overload]
                                  person_id=1, now=NOW)
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=int(payload["notice_id"]),  # type: ignore[call-overload]
                               person_id=1, text="Não fui eu.", now=NOW)
    assert filing.id is not None
    await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                        filing_id=filing.id, outcome=FilingOutcome.DENIED,
                        text="Fotos confirmam. Vistos os fatos e as provas dos autos.",
                        decider_telegram_id=CHEFE, now=NOW)
    [message] = await outbox(session, DECISION)
    rendered = render(DECISION, message.payload, translator("pt_BR"))
    assert "Decisão sobre sua reclamação" in rendered.text and "improcedente" in rendered.text
    assert "Você pode recorrer em 10 dias úteis (Art. 43, par. único)." in rendered.text
    # STF Súmula Vinculante 21 (CF Art. 5 XXXIV, LV): the appeal never waits for CP Art. 46's deposit
    assert "Deposite" not in rendered.text
    assert ("Para recorrer não é preciso depositar nada: o depósito de metade da multa do Art. 46 não é exigido "
            "(STF, Súmula Vinculante 21).") in rendered.text
    assert rendered.buttons[0][0][1].startswith("notif:ciencia:")


def test_the_reminder_counts_the_days_left_at_send_time() -> None:
    today = dt.datetime.now(dt.UTC).astimezone(translator("pt_BR").tz).date()
    payload = {"notice_id": 1, "number": "AI-2026-000001", "rule": "cp-37-reclamacao",
               "final_date": (today + dt.timedelta(days=3)).isoformat()}
    text = render(REMINDER, payload, translator("pt_BR")).text
    assert "⏰ Faltam 3 dias" in text and "Reclamação contra a ação dos fiscais" in text and "Art. 37" in text
    payload["final_date"] = today.isoformat()
    assert "Hoje é o último dia" in render(REMINDER, payload, translator("pt_BR")).text
