"""Recording that a fine was paid: by a staff member, or from the bank's payment file (CSV), idempotently.

A paid notice stops its payment reminders and reads "paga" in the chat, the console and ``/verificar``
(CP Art. 34 IV, 47 I: the fine is due; once paid there is nothing left to remind). The payment is an event of the
notice's chain (``paid``), so the transparency log records it.

The bank's file (UTF-8, header row, ``;`` or ``,``): ``data_pagamento`` (``YYYY-MM-DD`` or ``DD/MM/YYYY``),
``valor`` (``378,00`` or ``378.00``), ``txid`` (the PIX code's txid, or ``notificacao``: the notice's number) and
``id_transacao`` (the bank's id of the payment: the PIX end-to-end id, the DAM's authentication). A file with a bad
row changes nothing and names each bad row by its line; importing the same file again changes nothing.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from core.municipality import Cities, Municipality
from models import when
from models.audit import record
from models.invalid_input import InvalidInput
from models.notices.chain import append_event
from models.notices.pdf import money_of
from models.notices.tables import Notice, NoticeOutcome, NoticeType
from models.payments.pix import txid_of
from models.payments.tables import NoticePayment, PaymentSource
from models.people import Role, require_role

PAID = "paid"
RECORDERS = frozenset({Role.CLERK})
REQUIRED_COLUMNS = ("data_pagamento", "valor", "id_transacao")
MAX_ROWS = 20_000


class PaymentRefused(InvalidInput):
    """A payment that cannot be recorded, with the reason (translated where it is shown)."""


class PaymentFileRefused(Exception):
    """The bank's file has bad rows: nothing was recorded. ``problems`` holds (line, reason)."""

    def __init__(self, problems: list[tuple[int, InvalidInput]]) -> None:
        super().__init__(f"{len(problems)} bad rows")
        self.problems = problems


@dataclass(frozen=True, slots=True)
class RecordedPayment:
    """A payment and whether this call recorded it (False: it was already recorded, nothing changed)."""

    payment: NoticePayment
    notice: Notice
    created: bool


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What an import of the bank's file did."""

    recorded: int
    already: int


def is_fine(notice: Notice) -> bool:
    """Whether a notice intimates a payment (CP Art. 34 IV): an auto with a fine, not a warning."""
    return notice.type is NoticeType.AUTO and notice.fine_cents > 0 and not notice.warning_only


async def notice_of_reference(*, session: AsyncSession, number_or_txid: str) -> Notice | None:
    """The notice a number (``AI-2026-000001``) or a PIX txid (``AI2026000001``) names."""
    text = number_or_txid.strip().upper()
    found = (await session.exec(select(Notice).where(Notice.number == text))).first()
    if found is not None or not text.isalnum():
        return found
    return (await session.exec(select(Notice).where(func.replace(col(Notice.number), "-", "") == text))).first()


async def payments_of(*, session: AsyncSession, notice_ids: Iterable[int]) -> dict[int, NoticePayment]:
    """The payments of some notices, by notice id (unpaid ones are absent)."""
    ids = list(notice_ids)
    if not ids:
        return {}
    rows = (await session.exec(select(NoticePayment).where(col(NoticePayment.notice_id).in_(ids)))).all()
    return {row.notice_id: row for row in rows}


async def payment_of(*, session: AsyncSession, notice_id: int) -> NoticePayment | None:
    """The payment of one notice, or None."""
    return (await payments_of(session=session, notice_ids=[notice_id])).get(notice_id)


def _payable_cents(*, notice: Notice, city: Municipality, amount: Decimal, paid_on: dt.date,
                   now: dt.datetime) -> int:
    """The amount in cents, once the notice has a fine still due, the date is plausible and the amount covers it."""
    if not is_fine(notice):
        raise PaymentRefused(N_("{number} has no fine to pay."), number=notice.number)
    if notice.outcome is NoticeOutcome.ANNULLED:
        raise PaymentRefused(N_("{number} was cancelled: nothing is due."), number=notice.number)
    today = now.astimezone(city.tz).date()
    if paid_on > today or paid_on < notice.issued_at.astimezone(city.tz).date():
        raise PaymentRefused(N_("The payment date {date} must be between the notice's issue and today."), date=paid_on)
    cents = int((amount * 100).to_integral_value())
    if cents < notice.fine_cents:
        raise PaymentRefused(N_("{amount} is less than the fine of {number} ({fine})."), amount=_reais(amount),
                             number=notice.number, fine=_reais(money_of(notice.fine_cents)))
    return cents


async def _record(*, session: AsyncSession, cities: Cities, reference_of_notice: str, amount: Decimal,
                  paid_on: dt.date, reference: str, source: PaymentSource, actor: str,
                  staff_telegram_id: int | None, now: dt.datetime) -> RecordedPayment:
    notice = await notice_of_reference(session=session, number_or_txid=reference_of_notice)
    if notice is None or notice.id is None:
        raise PaymentRefused(N_("No notice {number}."), number=reference_of_notice[:40])
    if staff_telegram_id is not None:  # every staff action checks the role (clerks; admins always may)
        await require_role(session=session, telegram_user_id=staff_telegram_id, allowed=RECORDERS,
                           municipality=notice.municipality)
    reference = reference.strip()
    if not reference or len(reference) > 64:
        raise PaymentRefused(N_("Give the bank's id of the payment (1 to 64 characters)."))
    existing = await payment_of(session=session, notice_id=notice.id)
    if existing is not None:
        if existing.reference != reference:
            raise PaymentRefused(N_("{number} was already paid on {date} (bank id {reference})."), number=notice.number,
                                 date=existing.paid_on, reference=existing.reference)
        return RecordedPayment(payment=existing, notice=notice, created=False)
    elsewhere = (await session.exec(select(NoticePayment).where(NoticePayment.reference == reference))).first()
    if elsewhere is not None:
        other = await session.get(Notice, elsewhere.notice_id)
        raise PaymentRefused(N_("The bank id {reference} is already recorded for {number}."), reference=reference,
                             number=other.number if other else "?")
    cents = _payable_cents(notice=notice, city=cities.of(notice.municipality), amount=amount, paid_on=paid_on, now=now)
    payment = NoticePayment(notice_id=notice.id, paid_on=paid_on, amount_cents=cents, reference=reference,
                            source=source, recorded_by=actor[:64], recorded_at=now)
    session.add(payment)
    await append_event(session=session, notice_id=notice.id, kind=PAID, actor=actor, at=now, data={
        "paid_on": paid_on.isoformat(), "amount_cents": cents, "reference": reference, "source": source.value})
    await record(session=session, actor=actor, action="notice.paid", entity="notice", entity_id=str(notice.id),
                 details={"number": notice.number, "amount_cents": cents, "source": source.value})
    await session.flush()
    return RecordedPayment(payment=payment, notice=notice, created=True)


async def record_payment(*, session: AsyncSession, cities: Cities, number: str, amount: Decimal,
                         paid_on: dt.date, reference: str, actor: str, staff_telegram_id: int | None,
                         now: dt.datetime) -> RecordedPayment:
    """A staff member records that a notice's fine was paid (commits); the same payment again changes nothing.

    Args:
        session: the database session.
        cities: the deployment's municipalities (the notice's gives the time zone).
        number: the notice's number or its PIX txid.
        amount: what was paid, in reais (not less than the fine).
        paid_on: the day of the payment (between the notice's issue and today).
        reference: the bank's id of the payment.
        actor: who records it (audit).
        staff_telegram_id: the staff member, whose role is checked (None: the operator's shell).
        now: the current moment.

    Raises:
        PaymentRefused: no such notice, nothing to pay, already paid with another bank id, a bad date or amount.
        PermissionDenied: the staff member may not record payments there.
    """
    recorded = await _record(session=session, cities=cities, reference_of_notice=number, amount=amount,
                             paid_on=paid_on, reference=reference, source=PaymentSource.STAFF, actor=actor,
                             staff_telegram_id=staff_telegram_id, now=now)
    await session.commit()
    return recorded


def _reais(amount: Decimal) -> str:
    """An amount as the Real is written (``R$ 377,99``), whatever the reader's language."""
    return "R$ " + f"{amount:,.2f}".replace(",", "_").replace(".", ",").replace("_", ".")


def parse_amount(text: str) -> Decimal:
    """``378,00``, ``1.234,56`` or ``378.00`` as reais.

    Raises:
        PaymentRefused: not an amount.
    """
    value = text.strip().removeprefix("R$").strip()
    if "," in value:
        value = value.replace(".", "").replace(",", ".")
    if not re.fullmatch(r"\d{1,9}(\.\d{1,2})?", value):
        raise PaymentRefused(N_("{value} is not an amount (write 378,00)."), value=text.strip()[:20])
    try:
        return Decimal(value)
    except InvalidOperation as exc:  # pragma: no cover - the pattern already rules it out
        raise PaymentRefused(N_("{value} is not an amount (write 378,00)."), value=text.strip()[:20]) from exc


def parse_day(text: str, *, today: dt.date) -> dt.date:
    """A payment day as :func:`models.when.parse_day` reads it (``10/03/2026``, ``2026-03-10``, ``ontem``…).

    Raises:
        PaymentRefused: not a date.
    """
    value = text.strip()
    try:
        return when.parse_day(value, today=today, towards="past")
    except InvalidInput as exc:
        raise PaymentRefused(N_("{value} is not a date (write 2026-03-10 or 10/03/2026)."), value=value[:20]) from exc


async def import_payments(*, session: AsyncSession, cities: Cities, content: str, actor: str,
                          staff_telegram_id: int | None, now: dt.datetime) -> ImportResult:
    """Record every payment of the bank's file (commits), or none when a row is bad.

    Raises:
        PaymentFileRefused: the header lacks a column, or rows are bad (each with its line number and reason).
        PermissionDenied: the staff member may not record payments of a row's municipality.
    """
    text = content.lstrip("\ufeff")
    header = text.splitlines()[0] if text else ""
    reader = csv.DictReader(io.StringIO(text), delimiter=";" if ";" in header else ",")
    names = [name.strip().lower() for name in reader.fieldnames or []]
    missing = [name for name in REQUIRED_COLUMNS if name not in names]
    if "txid" not in names and "notificacao" not in names:
        missing.append("txid")
    if missing:
        raise PaymentFileRefused([(1, PaymentRefused(N_("Missing columns: {columns}."), columns=", ".join(missing)))])
    problems: list[tuple[int, InvalidInput]] = []
    recorded = already = 0
    today = when.municipal_today(cities.default.tz, now=now)  # one civil time zone per deployment
    for line, raw in enumerate(reader, start=2):
        if line > MAX_ROWS + 1:
            problems.append((line, PaymentRefused(N_("More than {n} rows: split the file."), n=MAX_ROWS)))
            break
        row = {str(key).strip().lower(): (value or "").strip() for key, value in raw.items() if key is not None}
        try:
            result = await _record(
                session=session, cities=cities, reference_of_notice=row.get("txid") or row.get("notificacao", ""),
                amount=parse_amount(row["valor"]), paid_on=parse_day(row["data_pagamento"], today=today),
                reference=row["id_transacao"], source=PaymentSource.BANK_FILE, actor=actor,
                staff_telegram_id=staff_telegram_id, now=now)
        except PaymentRefused as refused:
            problems.append((line, refused))
            continue
        recorded, already = recorded + result.created, already + (not result.created)
    if problems:
        await session.rollback()
        raise PaymentFileRefused(problems)
    await session.commit()
    return ImportResult(recorded=recorded, already=already)


def pix_txid(notice: Notice) -> str:
    """The txid the notice's PIX code carries (the bank's file gives it back)."""
    return txid_of(notice.number)
