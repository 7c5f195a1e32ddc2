"""Staff record a fine's payment, or import the bank's file, idempotently; a paid notice stops its payment
reminders (CP Art. 34 IV, 47 I; L1533 Art. 13 XXIII; issue 18 §8)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import translator
from core.municipality import cities_of
from core.settings import Settings
from models.notices.delivery import record_explicit_ciencia
from models.notices.status import notice_view
from models.notices.tables import Notice, NoticeDelivery, NoticeEvent
from models.payments.recording import (
    PaymentFileRefused,
    PaymentRefused,
    import_payments,
    payment_of,
    record_payment,
)
from models.payments.tables import NoticePayment, PaymentSource
from models.people import PermissionDenied, Role
from notifications.notice_scans import notice_reminders
from tests.auxil.notices import cp_auto, cp_preliminar, issue, l1533_auto, opted_in, outbox, person, staff

NOW = dt.datetime(2026, 3, 2, 14, 0, tzinfo=dt.UTC)  # Monday, 10:00 in Cuiabá
LATER = dt.datetime(2026, 3, 10, 14, 0, tzinfo=dt.UTC)


def cuiaba(day: dt.date, hour: int = 10) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, hour + 4, tzinfo=dt.UTC)


async def pay(session: AsyncSession, settings: Settings, number: str, *, amount: str = "378.00",
              reference: str = "E2E-1", staff_id: int | None = None) -> bool:
    recorded = await record_payment(session=session, cities=cities_of(settings), number=number, amount=Decimal(amount),
                                    paid_on=dt.date(2026, 3, 9), reference=reference, actor="test",
                                    staff_telegram_id=staff_id, now=LATER)
    return recorded.created


async def test_a_clerk_records_a_payment_once_and_a_repeat_changes_nothing(
    session: AsyncSession, settings: Settings
) -> None:
    clara = await staff(session, 9102, "Clara", Role.CLERK)
    issued = await issue(session, settings, cp_auto(), now=NOW)  # R$ 378,00 (CP Tabela I item 1)
    number = issued.notice.number
    assert await pay(session, settings, number, staff_id=clara.telegram_user_id) is True
    assert await pay(session, settings, number.replace("-", ""), staff_id=clara.telegram_user_id) is False  # txid
    rows = (await session.exec(select(NoticePayment))).all()
    assert len(rows) == 1 and rows[0].amount_cents == 37800 and rows[0].source is PaymentSource.STAFF
    events = (await session.exec(select(NoticeEvent).where(NoticeEvent.kind == "paid"))).all()
    assert len(events) == 1 and events[0].data["reference"] == "E2E-1"  # in the chain, so in the public log


@pytest.mark.parametrize(("amount", "reference", "reason"), [
    ("377.99", "E2E-9", "is less than the fine"),  # CP Art. 34 IV: the fine is what the auto intimates
])
async def test_a_payment_below_the_fine_is_refused(
    session: AsyncSession, settings: Settings, amount: str, reference: str, reason: str
) -> None:
    issued = await issue(session, settings, cp_auto(), now=NOW)
    with pytest.raises(PaymentRefused) as refused:
        await pay(session, settings, issued.notice.number, amount=amount, reference=reference)
    assert reason in refused.value.render(translator("en"))
    assert "é menos que a multa" in refused.value.render(translator("pt_BR"))


async def test_refusals_a_second_payment_no_fine_and_a_wrong_role(session: AsyncSession, settings: Settings) -> None:
    ines = await staff(session, 9101, "Inês", Role.INSPECTOR)
    issued = await issue(session, settings, cp_auto(), now=NOW)
    preliminar = await issue(session, settings, cp_preliminar(), now=NOW)
    with pytest.raises(PermissionDenied):  # only clerks (and admins) record payments, checked on every call
        await pay(session, settings, issued.notice.number, staff_id=ines.telegram_user_id)
    assert await pay(session, settings, issued.notice.number) is True
    with pytest.raises(PaymentRefused, match="already paid"):
        await pay(session, settings, issued.notice.number, reference="E2E-2")
    with pytest.raises(PaymentRefused, match="no fine"):  # CP Art. 25: a notificação preliminar fines nobody
        await pay(session, settings, preliminar.notice.number, reference="E2E-3")
    with pytest.raises(PaymentRefused, match="No notice"):
        await pay(session, settings, "AI-2026-999999", reference="E2E-4")


async def test_a_paid_notice_stops_its_payment_reminders_and_shows_paid(
    session: AsyncSession, settings: Settings
) -> None:
    # L1533 Art. 13 XXIII: acknowledged Mon 2/3/2026, the 30 days to pay end Wed 1/4/2026, reminded on 29/3
    # and 31/3. Paid on 9/3, nothing is reminded any more.
    maria = await person(session, 9001, "Maria")
    await opted_in(session, maria.id, now=NOW - dt.timedelta(days=1))
    issued = await issue(session, settings, l1533_auto(person_id=maria.id), now=cuiaba(dt.date(2026, 3, 2), 11))
    delivery = (await session.exec(select(NoticeDelivery))).first()
    assert delivery is not None and delivery.id is not None
    await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                  person_id=maria.id,
                                  now=cuiaba(dt.date(2026, 3, 2), 12))
    notice = await session.get(Notice, issued.notice.id)
    assert notice is not None
    before = await notice_view(session=session, city=cities_of(settings).of(notice.municipality), notice=notice,
                               today=dt.date(2026, 3, 9))
    assert before.acts.payment is not None and before.paid is None
    await pay(session, settings, notice.number, amount=str(Decimal(notice.fine_cents) / 100))
    after = await notice_view(session=session, city=cities_of(settings).of(notice.municipality), notice=notice,
                              today=dt.date(2026, 3, 29))
    assert after.acts.payment is None and after.paid is not None
    assert await notice_reminders(session=session, now=cuiaba(dt.date(2026, 3, 29)), cities=cities_of(settings)) == 0
    assert await notice_reminders(session=session, now=cuiaba(dt.date(2026, 3, 31)), cities=cities_of(settings)) == 0
    reminded = [r.payload["rule"] for r in await outbox(session, "notice.reminder")]
    assert "l1533-13xxiii-pagamento" not in reminded


BANK_FILE = """data_pagamento;valor;txid;id_transacao
09/03/2026;378,00;{first};E2E-A
2026-03-09;378.00;{second};E2E-B
"""


async def test_the_bank_file_is_imported_once_and_a_second_import_changes_nothing(
    session: AsyncSession, settings: Settings
) -> None:
    first = await issue(session, settings, cp_auto(), now=NOW)
    second = await issue(session, settings, cp_auto(), now=NOW)
    content = BANK_FILE.format(first=first.notice.number.replace("-", ""), second=second.notice.number)
    result = await import_payments(session=session, cities=cities_of(settings), content=content, actor="test",
                                   staff_telegram_id=None, now=LATER)
    assert (result.recorded, result.already) == (2, 0)
    again = await import_payments(session=session, cities=cities_of(settings), content=content, actor="test",
                                  staff_telegram_id=None, now=LATER)
    assert (again.recorded, again.already) == (0, 2)
    assert len((await session.exec(select(NoticePayment))).all()) == 2
    paid = await payment_of(session=session, notice_id=first.notice.id or 0)
    assert paid is not None and paid.source is PaymentSource.BANK_FILE and paid.paid_on == dt.date(2026, 3, 9)


async def test_a_bank_file_with_bad_rows_changes_nothing_and_names_each_line(
    session: AsyncSession, settings: Settings
) -> None:
    good = await issue(session, settings, cp_auto(), now=NOW)
    content = (f"data_pagamento,valor,notificacao,id_transacao\n"
               f"2026-03-09,378.00,{good.notice.number},E2E-A\n"
               f"2026-03-09,trezentos,{good.notice.number},E2E-B\n"
               f"2026-03-09,378.00,AI-2026-999999,E2E-C\n")
    with pytest.raises(PaymentFileRefused) as refused:
        await import_payments(session=session, cities=cities_of(settings), content=content, actor="test",
                              staff_telegram_id=None, now=LATER)
    lines = [(line, reason.render(translator("pt_BR"))) for line, reason in refused.value.problems]
    assert [line for line, _ in lines] == [3, 4]
    assert "não é um valor" in lines[0][1] and "Não há notificação AI-2026-999999" in lines[1][1]
    assert (await session.exec(select(NoticePayment))).all() == []  # not even the good row


async def test_a_file_without_the_columns_is_refused(session: AsyncSession, settings: Settings) -> None:
    with pytest.raises(PaymentFileRefused) as refused:
        await import_payments(session=session, cities=cities_of(settings), content="data;valor\n2026-03-09;1,00\n",
                              actor="test", staff_telegram_id=None, now=LATER)
    [(line, reason)] = refused.value.problems
    assert line == 1 and "data_pagamento" in reason.render(translator("en"))
