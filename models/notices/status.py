"""A notice as the offender and staff see it: stage, ciência, windows with their last days, what may be done now."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import Municipality
from models.calendar import BusinessCalendar
from models.deadlines import Window
from models.notices.delivery import civil_date, deliveries_of
from models.notices.filings import FilingRefused, check_can_file, filings_of, lapsed, suspends_penalty
from models.notices.tables import (
    DeliveryState,
    DocumentKind,
    FilingKind,
    Notice,
    NoticeDelivery,
    NoticeFiling,
    NoticeOutcome,
    NoticeStage,
)
from models.notices.windows import (
    ActWindows,
    LaterTerm,
    art42_appeal_from,
    decision_due,
    decision_windows,
    first_instance_windows,
    governing,
    opened_by_ciencia,
    payment_after_final,
    vista_windows,
)
from models.payments.recording import payment_of
from models.payments.tables import NoticePayment


@dataclass(frozen=True, slots=True)
class NoticeView:
    """Everything a screen about one notice needs.

    Attributes:
        notice: the notice.
        delivery: the delivery of the notice itself (the latest).
        filings: defences, reclamações and appeals, oldest first.
        decision_delivery: the delivery of the latest decision, if any.
        windows: the windows of the current stage (every reading; see ``models.deadlines``).
        acts: the window that governs each act (defence, appeal, payment).
        awaiting_ciencia: a document in the bot waiting for this person's "Tomo ciência", if any.
        tacit_on: the day a tacit ciência will happen, when it applies.
        suspended: a reclamação pending decision suspends the fine (CP Art. 39).
        can_file: what the person may file now, or None (then ``refusal`` says why).
        refusal: why nothing can be filed now.
        art42_from: the day an appeal became possible because the reclamação was not decided within the
            Art. 40 period (CP Art. 42), while it stays undecided.
    """

    notice: Notice
    delivery: NoticeDelivery | None
    filings: list[NoticeFiling]
    decision_delivery: NoticeDelivery | None
    windows: tuple[Window, ...]
    acts: ActWindows
    awaiting_ciencia: NoticeDelivery | None
    tacit_on: dt.date | None
    suspended: bool
    can_file: FilingKind | None
    refusal: FilingRefused | None
    art42_from: dt.date | None = None
    paid: NoticePayment | None = None  # the fine's payment (CP Art. 34 IV): no payment window is left
    after_ciencia: tuple[Window, ...] = ()  # before the ciência: what it will open (lengths; issue 20 §3)
    payment_later: LaterTerm | None = None  # a defence decided, the process going on: the payment still to come

    @property
    def pending_filing(self) -> NoticeFiling | None:
        """The filing waiting for a decision, if any."""
        return next((filing for filing in self.filings if filing.decided_at is None), None)

    @property
    def last_decision(self) -> NoticeFiling | None:
        """The latest decided filing, if any."""
        return next((filing for filing in reversed(self.filings) if filing.decided_at is not None), None)


def _latest(deliveries: list[NoticeDelivery], document: DocumentKind) -> NoticeDelivery | None:
    found = [delivery for delivery in deliveries if delivery.document is document]
    return found[-1] if found else None


def _windows(*, notice: Notice, city: Municipality, calendar: BusinessCalendar, deliveries: list[NoticeDelivery],
             filings: list[NoticeFiling], today: dt.date) -> tuple[tuple[Window, ...], dt.date | None]:
    """The periods open at the notice's stage, and the day the CP Art. 42 appeal opened (if it is open today)."""
    delivery = _latest(deliveries, DocumentKind.NOTICE)
    decision_delivery = _latest(deliveries, DocumentKind.DECISION)
    windows: tuple[Window, ...] = ()
    pending = next((filing for filing in filings if filing.decided_at is None), None)
    art42_from = None
    if notice.stage in (NoticeStage.NOTIFIED, NoticeStage.UNDER_REVIEW) and delivery is not None:
        windows = first_instance_windows(notice=notice, delivery=delivery, city=city, calendar=calendar)
        due = None if pending is None else decision_due(notice=notice, filing=pending, city=city,
                                                        calendar=calendar)
        if pending is not None:  # CP Art. 40 §1: vista periods; the decision due (Art. 40, §2); after it, Art. 42
            windows = (*windows, *vista_windows(notice=notice, filing=pending, city=city, calendar=calendar))
        if pending is not None and due is not None:
            windows = (*windows, due)
        if pending is not None:  # CP Art. 42: open after the period, and kept open by a late diligência
            opens = art42_appeal_from(notice=notice, filing=pending, city=city, calendar=calendar)
            art42_from = opens if opens is not None and today >= opens else None
    elif notice.stage is NoticeStage.APPEALED and any(lapsed(filing) for filing in filings):
        windows = ()  # CP Art. 42: appealed without a decision, so there is no decision to count from
    elif notice.stage in (NoticeStage.DECIDED, NoticeStage.APPEALED) and decision_delivery is not None:
        first = next((d for d in reversed(deliveries) if d.document is DocumentKind.DECISION
                      and _filing_kind(filings, d.filing_id) is not FilingKind.RECURSO), decision_delivery)
        windows = decision_windows(notice=notice, delivery=first, final=False, city=city, calendar=calendar)
    elif notice.stage is NoticeStage.CLOSED and notice.outcome is NoticeOutcome.UPHELD and decision_delivery:
        windows = decision_windows(notice=notice, delivery=decision_delivery, final=True, city=city,
                                   calendar=calendar)
    return windows, art42_from


async def notice_view(*, session: AsyncSession, city: Municipality, notice: Notice, today: dt.date) -> NoticeView:
    """Build the view of one notice for ``today`` (civil date)."""
    assert notice.id is not None
    calendar = BusinessCalendar.of(city)
    deliveries = await deliveries_of(session=session, notice_id=notice.id)
    filings = await filings_of(session=session, notice_id=notice.id)
    delivery = _latest(deliveries, DocumentKind.NOTICE)
    decision_delivery = _latest(deliveries, DocumentKind.DECISION)
    windows, art42_from = _windows(notice=notice, city=city, calendar=calendar, deliveries=deliveries,
                                   filings=filings, today=today)
    acts = governing(windows)
    paid = await payment_of(session=session, notice_id=notice.id)
    if paid is not None:  # CP Art. 34 IV / 47 I: the fine is paid, so nothing is left to pay or to remind of
        windows = tuple(window for window in windows if window is not acts.payment)
        acts = replace(acts, payment=None)
    awaiting = next((d for d in reversed(deliveries) if d.state is DeliveryState.ELECTRONIC), None)
    tacit_on = None
    tacit = notice.rulebook in city.readings.tacit_ciencia_rulebooks
    if awaiting is not None and awaiting.sent_at is not None and tacit:
        tacit_on = civil_date(awaiting.sent_at + dt.timedelta(days=city.readings.tacit_ciencia_days), city)
    can_file: FilingKind | None = None
    refusal: FilingRefused | None = None
    try:
        can_file, _last = await check_can_file(session=session, city=city, notice=notice, today=today)
    except FilingRefused as exc:
        refusal = exc
    return NoticeView(
        notice=notice,
        delivery=delivery,
        filings=filings,
        decision_delivery=decision_delivery,
        windows=windows,
        acts=acts,
        awaiting_ciencia=awaiting,
        tacit_on=tacit_on,
        suspended=any(suspends_penalty(filing) for filing in filings),
        can_file=can_file,
        refusal=refusal,
        art42_from=art42_from,
        paid=paid,
        after_ciencia=opened_by_ciencia(notice=notice, city=city, calendar=calendar, on=today)
        if notice.stage is NoticeStage.AWAITING_CIENCIA else (),
        payment_later=payment_after_final(notice=notice, city=city)
        if notice.stage in (NoticeStage.DECIDED, NoticeStage.APPEALED) and paid is None else None,
    )


def _filing_kind(filings: list[NoticeFiling], filing_id: int | None) -> FilingKind | None:
    return next((filing.kind for filing in filings if filing.id == filing_id), None)


async def notices_of_person(*, session: AsyncSession, person_id: int) -> list[Notice]:
    """The notices addressed to a person, newest first."""
    return list(
        (await session.exec(
            select(Notice).where(Notice.person_id == person_id).order_by(col(Notice.id).desc())
        )).all()
    )


async def notice_of_person(*, session: AsyncSession, notice_id: int, person_id: int) -> Notice | None:
    """One notice, only if it is addressed to this person."""
    notice = await session.get(Notice, notice_id)
    return notice if notice is not None and notice.person_id == person_id else None


async def notice_by_number(*, session: AsyncSession, number: str) -> Notice | None:
    """A notice by its number (``AI-2026-000001``), case-insensitive."""
    return (await session.exec(select(Notice).where(Notice.number == number.strip().upper()))).first()
