"""Delivery of a notice (and of each decision) until the offender's ciência (issue 6, item 4).

Telegram gives no read receipts, so proof of delivery follows the SNE model (CTB Art. 282-A):

1. a document goes to the bot only when the person accepted electronic notification (:mod:`.optin`); it is
   enqueued in the outbox as a mandatory message with the PDF and a "Tomo ciência" button;
2. pressing the button records the moment (server time, UTC) as the ciência — an event in the chain;
3. if the person does not press it, after ``BALCAO_TACIT_CIENCIA_DAYS`` days from the sending the ciência is
   *tacit* (CTB Art. 282-A §2: 30 days) — for the rulebooks listed in ``BALCAO_TACIT_CIENCIA_RULEBOOKS``, by
   default Lei 1.533/2020, whose Art. 22 §1 admits delivery "por via eletrônica". The Código de Posturas's
   Art. 36 knows only delivery in person against a dated receipt, by letter with AR and by edital: there, the
   button is the dated receipt, and a document not acknowledged in that time goes to the staff list;
4. a document whose person has not opted in, cannot be reached, revoked the opt-in or did not acknowledge it
   goes to the staff list, where staff record the delivery in person (Art. 36 I) or by post with the AR date
   (Art. 36 II), or the publication of an edital (Art. 36 III; its 30 days as :mod:`models.deadlines` reads them);
5. a document on the staff list because nobody in the bot could take it (no person, no opt-in, opted out,
   unreachable) goes to the bot as soon as that changes: when its person accepts electronic notices
   (:func:`accept_electronic_notices`) or staff link a person to the notice (:func:`link_person`). It leaves the
   staff list then; an AR or a receipt that comes back later can still be recorded for it (by the API).
   Documents not acknowledged in time (CP) and editals stay with staff.
"""

from __future__ import annotations

import base64
import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from core.municipality import Cities, Municipality
from models.audit import record
from models.calendar import BusinessCalendar
from models.columns import utcnow
from models.notices.access import ISSUERS, check_notice_reach
from models.notices.chain import append_event
from models.notices.optin import current_optin, end_optin, person_by_cpf, record_acceptance
from models.notices.tables import (
    CienciaKind,
    DeliveryState,
    DocumentKind,
    Notice,
    NoticeDelivery,
    NoticeFiling,
    NoticeOutcome,
    NoticeStage,
    StaffReason,
)
from models.notices.windows import choices_for, edital_ciencia
from models.outbox import OutboxMessage, OutboxStatus, enqueue
from models.payments.instructions import payment_payload
from models.people import Person
from models.rulebooks.catalogue import CP
from models.rulebooks.deadline_rules import get_rule
from models.tlog.facts import all_logged
from models.tlog.proofs import run

DELIVERY_KIND = "notice.delivery"
DECISION_KIND = "notice.decision"
TACIT_KIND = "notice.tacit_ciencia"
FAILED_OUTBOX = (OutboxStatus.UNREACHABLE, OutboxStatus.FAILED, OutboxStatus.CANCELLED)
REDELIVERABLE = (StaffReason.NO_PERSON, StaffReason.NO_OPTIN, StaffReason.OPTED_OUT, StaffReason.UNREACHABLE)
"""Why a document may be on the staff list and still go to the bot once its person can take it there."""
logger = logging.getLogger(__name__)


class DeliveryError(Exception):
    """A delivery action that does not apply (wrong state, wrong person, date out of range).

    Its message is an English msgid (translate it with ``tr._(str(error))``).
    """


def civil_date(moment: dt.datetime, city: Municipality) -> dt.date:
    """The date in the deployment's time zone."""
    return moment.astimezone(city.tz).date()


def document_payload(*, notice: Notice, delivery: NoticeDelivery, filing: NoticeFiling | None,
                     city: Municipality, http_root: str) -> dict[str, Any]:
    """What the renderer of a delivered document needs (rendered later, in the reader's language).

    ``city`` is the notice's municipality (its office, its means of payment); ``http_root`` the public root of
    /verificar.
    """
    payload: dict[str, Any] = {
        "delivery_id": delivery.id,
        "notice_id": notice.id,
        "number": notice.number,
        "type": notice.type.value,
        "rulebook": notice.rulebook,
        "article": notice.infraction_article,
        "description": notice.infraction_description,
        "fine_cents": notice.fine_cents,
        "tacit": notice.rulebook in city.readings.tacit_ciencia_rulebooks,
        "tacit_days": city.readings.tacit_ciencia_days,
    }
    if filing is None:
        payload["pdf_name"] = f"{notice.number}.pdf"
        payload["pdf_b64"] = base64.b64encode(notice.pdf).decode("ascii")
        payload.update(payment_payload(notice=notice, city=city))  # CP Art. 34 IV: how to pay
    else:
        payload["filing_id"] = filing.id
        payload["filing_kind"] = filing.kind.value
        payload["outcome"] = filing.outcome.value if filing.outcome else None
        payload["decision_text"] = filing.decision_text or ""
        payload["decider"] = filing.decider  # issue 18 §1: the decision names its author
        payload["decided_at"] = filing.decided_at.isoformat() if filing.decided_at else None
        if filing.decision_pdf:  # issue 18: the signed decision goes with its message
            payload["pdf_name"] = f"{notice.number}-decisao-{filing.id}.pdf"
            payload["pdf_b64"] = base64.b64encode(filing.decision_pdf).decode("ascii")
        payload["final"] = notice.stage is NoticeStage.CLOSED
        payload["windows"] = decision_window_terms(notice=notice, final=payload["final"], city=city)
        # CP Art. 46's deposit is not required to appeal (STF Súmula Vinculante 21): said, never asked for
        payload["no_deposit"] = notice.rulebook == CP and not payload["final"]
        # L9784 Art. 26 §1 III and V: a decision is an intimação too: where, when and how to act, and that it goes on
        office = city.office_for_notices
        payload["office"] = office.model_dump() if office is not None else None
        payload["public_url"] = f"{http_root}/verificar"
    return payload


def decision_window_terms(*, notice: Notice, final: bool, city: Municipality) -> list[dict[str, Any]]:
    """The windows a decision opens, as terms (rule, length, unit) — their dates exist only after its ciência."""
    if final:
        payment = "cp-47-1-pagamento" if notice.rulebook == CP else "l1533-13xxiii-pagamento-final"
        rule_ids = [payment] if notice.outcome is not NoticeOutcome.ANNULLED else []
    else:
        rule_ids = ["cp-43-recurso"] if notice.rulebook == CP else ["l1533-22-recurso"]
    choices = choices_for(notice, city)
    terms = []
    for rule_id in rule_ids:
        reading = choices.selected(get_rule(rule_id))
        terms.append({"rule": rule_id, "length": choices.length(reading), "unit": reading.unit.value})
    return terms


async def _reachable_person(
    *, session: AsyncSession, person_id: int | None
) -> tuple[Person | None, StaffReason | None]:
    if person_id is None:
        return None, StaffReason.NO_PERSON
    person = await session.get(Person, person_id)
    if person is None or person.erased_at is not None:
        return None, StaffReason.NO_PERSON
    if await current_optin(session=session, person_id=person_id) is None:
        return person, StaffReason.NO_OPTIN
    return person, None


async def start_delivery(
    *,
    session: AsyncSession,
    city: Municipality,
    notice: Notice,
    actor: str,
    http_root: str,
    filing: NoticeFiling | None = None,
    now: dt.datetime | None = None,
) -> NoticeDelivery:
    """Deliver a notice (or the decision on ``filing``): in the bot when possible, else to the staff list.

    ``city`` is the notice's municipality; ``http_root`` the public root the message points to (/verificar). The
    caller commits (the outbox row commits with the change that causes it).
    """
    assert notice.id is not None
    moment = now or utcnow()
    document = DocumentKind.NOTICE if filing is None else DocumentKind.DECISION
    person, reason = await _reachable_person(session=session, person_id=notice.person_id)
    delivery = NoticeDelivery(notice_id=notice.id, document=document, filing_id=filing.id if filing else None,
                              state=DeliveryState.STAFF if reason else DeliveryState.ELECTRONIC,
                              staff_reason=reason, created_at=moment)
    session.add(delivery)
    await session.flush()
    if reason is not None:
        await append_event(session=session, notice_id=notice.id, kind="delivery.staff", actor=actor, at=moment,
                           data={"delivery_id": delivery.id, "document": document.value, "reason": reason.value})
        return delivery
    assert person is not None and person.id is not None
    await _send_electronic(session=session, city=city, http_root=http_root, notice=notice, delivery=delivery,
                           filing=filing, person_id=person.id, actor=actor, now=moment,
                           outbox_key=f"notice:{notice.id}:delivery:{delivery.id}")
    return delivery


async def _send_electronic(
    *, session: AsyncSession, city: Municipality, http_root: str, notice: Notice, delivery: NoticeDelivery,
    filing: NoticeFiling | None, person_id: int, actor: str, now: dt.datetime, outbox_key: str
) -> None:
    assert notice.id is not None
    delivery.state, delivery.staff_reason, delivery.sent_at = DeliveryState.ELECTRONIC, None, None
    delivery.outbox_key = outbox_key
    session.add(delivery)
    await enqueue(
        session=session,
        person_id=person_id,
        kind=DELIVERY_KIND if filing is None else DECISION_KIND,
        dedupe_key=outbox_key,
        payload=document_payload(notice=notice, delivery=delivery, filing=filing, city=city, http_root=http_root),
        mandatory=True,
    )
    await append_event(session=session, notice_id=notice.id, kind="delivery.electronic", actor=actor, at=now,
                       data={"delivery_id": delivery.id, "document": delivery.document.value, "person_id": person_id})


async def redeliver_waiting(
    *, session: AsyncSession, cities: Cities, http_root: str, person_id: int, actor: str, now: dt.datetime,
    notice_id: int | None = None
) -> int:
    """Send to the bot the person's documents waiting on the staff list for want of the bot; the caller commits.

    Only when the person has an active opt-in, and only documents there for a reason in :data:`REDELIVERABLE`.

    Returns:
        How many documents were sent.
    """
    person, reason = await _reachable_person(session=session, person_id=person_id)
    if person is None or reason is not None:
        return 0
    query = (
        select(NoticeDelivery, Notice)
        .join(Notice, col(Notice.id) == NoticeDelivery.notice_id)
        .where(Notice.person_id == person_id, NoticeDelivery.state == DeliveryState.STAFF,
               col(NoticeDelivery.staff_reason).in_(REDELIVERABLE))
        .order_by(col(NoticeDelivery.id))
    )
    if notice_id is not None:
        query = query.where(Notice.id == notice_id)
    rows = (await session.exec(query)).all()
    for delivery, notice in rows:
        filing = await session.get(NoticeFiling, delivery.filing_id) if delivery.filing_id is not None else None
        stamp = now.astimezone(dt.UTC).strftime("%Y%m%dT%H%M%S")
        await _send_electronic(session=session, city=cities.of(notice.municipality), http_root=http_root,
                               notice=notice, delivery=delivery, filing=filing, person_id=person_id, actor=actor,
                               now=now,
                               outbox_key=f"notice:{notice.id}:delivery:{delivery.id}:{stamp}")
    return len(rows)


async def accept_electronic_notices(
    *, session: AsyncSession, cities: Cities, http_root: str, person_id: int, cpf: str | None = None,
    now: dt.datetime | None = None
) -> int:
    """The person accepts the terms of electronic notification; what waited for it is sent to the bot; commits.

    Args:
        session: database session.
        cities: the deployment's municipalities (each waiting notice is sent in its own's name).
        http_root: the public root the messages point to (/verificar).
        person_id: who accepts.
        cpf: their CPF (11 digits, already validated), optional (see :mod:`models.notices.optin`).
        now: the moment (server time); now when omitted.

    Returns:
        How many documents already issued to the person were sent to the bot now.
    """
    moment = now or utcnow()
    await record_acceptance(session=session, person_id=person_id, cpf=cpf, now=moment)
    sent = await redeliver_waiting(session=session, cities=cities, http_root=http_root, person_id=person_id,
                                   actor=f"person:{person_id}", now=moment)
    await session.commit()
    return sent


async def person_by_telegram_id(*, session: AsyncSession, telegram_user_id: int) -> Person | None:
    """The person of the bot with this Telegram user id (None if they never talked to it or were erased)."""
    person = (await session.exec(select(Person).where(Person.telegram_user_id == telegram_user_id))).first()
    return person if person is not None and person.erased_at is None else None


async def link_person(
    *, session: AsyncSession, cities: Cities, http_root: str, notice_id: int, actor: str, person_id: int | None = None,
    telegram_user_id: int | None = None, now: dt.datetime | None = None
) -> int:
    """Staff address an issued notice to a person of the bot (found later than the issue); commits.

    The notice's legal elements do not change (the person is not one of them); the link is an event of the chain.
    What waits on the staff list for want of the bot goes to the person, if they accepted electronic notices.

    Args:
        session: database session.
        cities: the deployment's municipalities.
        http_root: the public root the messages point to (/verificar).
        notice_id: the notice.
        actor: ``"staff:<telegram id>"`` — the caller checked the role.
        person_id: the person, or
        telegram_user_id: the person's Telegram user id.
        now: the moment (server time); now when omitted.

    Returns:
        How many documents were sent to the bot now.

    Raises:
        DeliveryError: no such notice or person, or the notice is already addressed to someone else.
    """
    moment = now or utcnow()
    notice = await session.get(Notice, notice_id)
    if telegram_user_id is not None:
        person = await person_by_telegram_id(session=session, telegram_user_id=telegram_user_id)
    else:
        person = await session.get(Person, person_id) if person_id is not None else None
    if notice is None or notice.id is None:
        raise DeliveryError(N_("There is no such notice."))
    if person is None or person.id is None or person.erased_at is not None:
        raise DeliveryError(N_("Nobody with this id has talked to the bot."))
    person_id = person.id
    if notice.person_id is not None and notice.person_id != person_id:
        raise DeliveryError(N_("This notice is already addressed to another person."))
    if notice.person_id is None:
        notice.person_id = person_id
        session.add(notice)
        await append_event(session=session, notice_id=notice.id, kind="person.linked", actor=actor, at=moment,
                           data={"person_id": person_id})
        await record(session=session, actor=actor, action="notice.link_person", entity="notice",
                     entity_id=str(notice.id), details={"person_id": person_id})
    sent = await redeliver_waiting(session=session, cities=cities, http_root=http_root, person_id=person_id,
                                   actor=actor, now=moment, notice_id=notice.id)
    await session.commit()
    return sent


@dataclass(frozen=True, slots=True)
class CienciaResult:
    """The ciência recorded (or found already recorded) for a delivery."""

    notice: Notice
    delivery: NoticeDelivery
    already: bool


async def _advance_stage(*, session: AsyncSession, notice: Notice, delivery: NoticeDelivery) -> None:
    """A notice's ciência opens its defence windows; a decision's ciência changes no stage."""
    if delivery.document is DocumentKind.NOTICE and notice.stage is NoticeStage.AWAITING_CIENCIA:
        notice.stage = NoticeStage.NOTIFIED
        session.add(notice)


async def _set_ciencia(
    *,
    session: AsyncSession,
    notice: Notice,
    delivery: NoticeDelivery,
    kind: CienciaKind,
    at: dt.datetime | None,
    on: dt.date,
    actor: str,
    event_at: dt.datetime,
    extra: dict[str, Any] | None = None,
) -> None:
    assert notice.id is not None
    delivery.state = DeliveryState.DONE
    delivery.ciencia_kind = kind
    delivery.ciencia_at = at
    delivery.ciencia_on = on
    session.add(delivery)
    await _advance_stage(session=session, notice=notice, delivery=delivery)
    data: dict[str, Any] = {"delivery_id": delivery.id, "document": delivery.document.value, "how": kind.value,
                            "on": on.isoformat()}
    if at is not None:
        data["moment"] = at.astimezone(dt.UTC).isoformat()
    data.update(extra or {})
    await append_event(session=session, notice_id=notice.id, kind="ciencia", actor=actor, at=event_at, data=data)


async def record_explicit_ciencia(
    *, session: AsyncSession, cities: Cities, delivery_id: int, person_id: int, now: dt.datetime | None = None
) -> CienciaResult:
    """The person pressed "Tomo ciência": record the moment (server time, UTC); idempotent; commits.

    Raises:
        DeliveryError: no such delivery for this person, or it is not an electronic delivery.
    """
    moment = now or utcnow()
    delivery = await session.get(NoticeDelivery, delivery_id)
    notice = await session.get(Notice, delivery.notice_id) if delivery is not None else None
    if delivery is None or notice is None or notice.person_id != person_id:
        raise DeliveryError(N_("No such delivery for this person."))
    if delivery.state is DeliveryState.DONE:
        return CienciaResult(notice=notice, delivery=delivery, already=True)
    if delivery.state is not DeliveryState.ELECTRONIC:
        raise DeliveryError(N_("This document is being delivered by other means."))
    await _set_ciencia(session=session, notice=notice, delivery=delivery, kind=CienciaKind.EXPLICIT, at=moment,
                       on=civil_date(moment, cities.of(notice.municipality)), actor=f"person:{person_id}",
                       event_at=moment)
    await session.commit()
    return CienciaResult(notice=notice, delivery=delivery, already=False)


async def _to_staff(
    *, session: AsyncSession, notice: Notice, delivery: NoticeDelivery, reason: StaffReason, actor: str,
    now: dt.datetime
) -> None:
    assert notice.id is not None
    delivery.state = DeliveryState.STAFF
    delivery.staff_reason = reason
    session.add(delivery)
    await append_event(session=session, notice_id=notice.id, kind="delivery.staff", actor=actor, at=now,
                       data={"delivery_id": delivery.id, "document": delivery.document.value, "reason": reason.value})


async def move_pending_to_staff(*, session: AsyncSession, person_id: int, actor: str, now: dt.datetime) -> int:
    """Send every document of a person still waiting for ciência in the bot to the staff list; the caller commits."""
    rows = (
        await session.exec(
            select(NoticeDelivery, Notice)
            .join(Notice, col(Notice.id) == NoticeDelivery.notice_id)
            .where(Notice.person_id == person_id, NoticeDelivery.state == DeliveryState.ELECTRONIC)
        )
    ).all()
    for delivery, notice in rows:
        await _to_staff(session=session, notice=notice, delivery=delivery, reason=StaffReason.OPTED_OUT, actor=actor,
                        now=now)
    return len(rows)


async def revoke_electronic_notices(*, session: AsyncSession, person_id: int, now: dt.datetime | None = None) -> bool:
    """The person stops electronic notification: close the opt-in, move what awaits ciência to staff; commits.

    Returns:
        False when the person had no active opt-in.
    """
    moment = now or utcnow()
    row = await end_optin(session=session, person_id=person_id, now=moment)
    if row is None:
        return False
    actor = f"person:{person_id}"
    moved = await move_pending_to_staff(session=session, person_id=person_id, actor=actor, now=moment)
    await record(session=session, actor=actor, action="notice.optin.revoke", entity="notice_optin",
                 entity_id=str(row.id), details={"moved_to_staff": moved})
    await session.commit()
    return True


async def scan_electronic_deliveries(*, session: AsyncSession, cities: Cities, now: dt.datetime) -> int:
    """Follow every electronic delivery still waiting for ciência; the caller commits.

    - the outbox could not deliver it (blocked bot, deleted account, gave up): to the staff list;
    - sent: keep the moment it was sent (``sent_at``), the start of the tacit period, as a fact of the delivery
      (covered by the transparency log), never before the notice's issue; the outbox itself is not covered;
    - ``BALCAO_TACIT_CIENCIA_DAYS`` after sending: tacit ciência at that moment where the rulebook admits it
      (a message tells the person), otherwise to the staff list (not acknowledged). Decided at a later scan than
      the one that kept ``sent_at``, and only while the notice and delivery rows are their latest log entries:
      a tacit ciência follows from covered facts alone (issue 23, item 2).

    Returns:
        How many deliveries changed state (and messages were enqueued).
    """
    rows = (
        await session.exec(
            select(NoticeDelivery, Notice, OutboxMessage)
            .join(Notice, col(Notice.id) == NoticeDelivery.notice_id)
            .join(OutboxMessage, col(OutboxMessage.dedupe_key) == NoticeDelivery.outbox_key)
            .where(NoticeDelivery.state == DeliveryState.ELECTRONIC)
            .order_by(col(NoticeDelivery.id))
        )
    ).all()
    changed = 0
    for delivery, notice, message in rows:
        city = cities.of(notice.municipality)
        period = dt.timedelta(days=city.readings.tacit_ciencia_days)
        if message.status in FAILED_OUTBOX:
            await _to_staff(session=session, notice=notice, delivery=delivery, reason=StaffReason.UNREACHABLE,
                            actor="system", now=now)
            changed += 1
            continue
        if message.status is not OutboxStatus.SENT or message.sent_at is None:
            continue
        if delivery.sent_at is None:
            # The outbox is outside the log: its word is kept only as a logged fact of the delivery, never earlier
            # than the notice's own issue nor later than now. The tacit period runs from that fact alone.
            delivery.sent_at = min(max(message.sent_at, notice.issued_at, delivery.created_at), now)
            session.add(delivery)
            continue
        deadline = delivery.sent_at + period
        if now < deadline:
            continue
        if deadline < notice.issued_at + period or not await run(session, all_logged, [
                ("notice", notice.id or 0), ("notice_delivery", delivery.id or 0)]):
            logger.error("notice delivery %s: its rows differ from the transparency log; no tacit ciência derived "
                         "(run notice verify)", delivery.id)
            continue
        if notice.rulebook in city.readings.tacit_ciencia_rulebooks:
            await _set_ciencia(session=session, notice=notice, delivery=delivery, kind=CienciaKind.TACIT,
                               at=deadline, on=civil_date(deadline, city), actor="system", event_at=now,
                               extra={"sent_at": delivery.sent_at.astimezone(dt.UTC).isoformat()})
            assert notice.person_id is not None
            await enqueue(session=session, person_id=notice.person_id, kind=TACIT_KIND,
                          dedupe_key=f"notice:{notice.id}:tacit:{delivery.id}", mandatory=True,
                          payload={"notice_id": notice.id, "number": notice.number,
                                   "document": delivery.document.value,
                                   "on": civil_date(deadline, city).isoformat()})
        else:
            await _to_staff(session=session, notice=notice, delivery=delivery,
                            reason=StaffReason.NOT_ACKNOWLEDGED, actor="system", now=now)
        changed += 1
    return changed


@dataclass(frozen=True, slots=True)
class StaffListItem:
    """A document staff must deliver in person, by post or by edital."""

    delivery: NoticeDelivery
    notice: Notice


async def staff_list(*, session: AsyncSession) -> list[StaffListItem]:
    """Documents on the staff list and editals running, oldest first (the notice holds the address)."""
    rows = (
        await session.exec(
            select(NoticeDelivery, Notice)
            .join(Notice, col(Notice.id) == NoticeDelivery.notice_id)
            .where(col(NoticeDelivery.state).in_([DeliveryState.STAFF, DeliveryState.EDITAL]))
            .order_by(col(NoticeDelivery.id))
        )
    ).all()
    return [StaffListItem(delivery=delivery, notice=notice) for delivery, notice in rows]


async def cpf_claimant(*, session: AsyncSession, notice: Notice) -> Person | None:
    """For a notice addressed to nobody in the bot: the one person who said at opt-in that its CPF is theirs.

    Only a suggestion for staff, who check before linking (:func:`link_person`): the CPF typed at opt-in is not
    verified (see :func:`models.notices.issuing.resolve_person`).
    """
    if notice.person_id is not None or not notice.offender_document or len(notice.offender_document) != 11:
        return None
    person_id = await person_by_cpf(session=session, cpf=notice.offender_document)
    person = await session.get(Person, person_id) if person_id is not None else None
    return person if person is not None and person.erased_at is None else None


async def _staff_delivery(*, session: AsyncSession, delivery_id: int,
                          staff_telegram_id: int | None) -> tuple[NoticeDelivery, Notice]:
    delivery = await session.get(NoticeDelivery, delivery_id)
    if delivery is None:
        raise DeliveryError(N_("No such delivery."))
    notice = await session.get(Notice, delivery.notice_id)
    assert notice is not None
    if staff_telegram_id is not None:  # CF Art. 30 I: another municipality's delivery is out of reach
        await check_notice_reach(session=session, notice=notice, telegram_user_id=staff_telegram_id, roles=ISSUERS)
    if delivery.state is DeliveryState.DONE:
        raise DeliveryError(N_("This document already has its ciência."))
    return delivery, notice


def _check_day(day: dt.date, *, notice: Notice, city: Municipality, now: dt.datetime) -> None:
    if day > civil_date(now, city):
        raise DeliveryError(N_("The date is in the future."))
    if day < civil_date(notice.issued_at, city):
        raise DeliveryError(N_("The date is before the notice was issued."))


async def record_staff_delivery(
    *,
    session: AsyncSession,
    cities: Cities,
    delivery_id: int,
    how: CienciaKind,
    on: dt.date,
    actor: str,
    now: dt.datetime | None = None,
    staff_telegram_id: int | None = None,
) -> CienciaResult:
    """Staff record a delivery in person (CP Art. 36 I: dated receipt) or by post (Art. 36 II: the AR date); commits.

    ``staff_telegram_id``: who records it, checked to reach the notice's municipality (None: a caller that checked).

    Raises:
        DeliveryError: unknown delivery, already acknowledged, a date in the future or before the issue.
        NoticeOutOfReach: the notice is another municipality's (:mod:`models.notices.access`).
    """
    if how not in (CienciaKind.PERSONAL, CienciaKind.POSTAL):
        raise DeliveryError(N_("Only a delivery in person or by post is recorded this way."))
    moment = now or utcnow()
    delivery, notice = await _staff_delivery(session=session, delivery_id=delivery_id,
                                             staff_telegram_id=staff_telegram_id)
    _check_day(on, notice=notice, city=cities.of(notice.municipality), now=moment)
    await _set_ciencia(session=session, notice=notice, delivery=delivery, kind=how, at=None, on=on, actor=actor,
                       event_at=moment)
    await record(session=session, actor=actor, action=f"notice.delivery.{how.value}", entity="notice",
                 entity_id=str(notice.id), details={"delivery_id": delivery.id, "on": on.isoformat()})
    await session.commit()
    return CienciaResult(notice=notice, delivery=delivery, already=False)


async def record_edital(
    *,
    session: AsyncSession,
    cities: Cities,
    delivery_id: int,
    published_on: dt.date,
    actor: str,
    now: dt.datetime | None = None,
    staff_telegram_id: int | None = None,
) -> CienciaResult:
    """Staff record the publication of an edital (CP Art. 36 III; L1533 Art. 22 §1); commits.

    The ciência is the day :func:`models.notices.windows.edital_ciencia` gives (the end of the edital's
    30 days, or its publication, per ``BALCAO_CP_EDITAL_START``); until then the delivery shows as a running
    edital on the staff list. ``staff_telegram_id``: as in :func:`record_staff_delivery`.

    Raises:
        DeliveryError: unknown delivery, already acknowledged, a date in the future or before the issue.
        NoticeOutOfReach: the notice is another municipality's (:mod:`models.notices.access`).
    """
    moment = now or utcnow()
    delivery, notice = await _staff_delivery(session=session, delivery_id=delivery_id,
                                             staff_telegram_id=staff_telegram_id)
    city = cities.of(notice.municipality)
    _check_day(published_on, notice=notice, city=city, now=moment)
    calendar = BusinessCalendar.of(city)
    on = edital_ciencia(notice=notice, published_on=published_on, city=city, calendar=calendar)
    delivery.edital_published_on = published_on
    await _set_ciencia(session=session, notice=notice, delivery=delivery, kind=CienciaKind.EDITAL, at=None, on=on,
                       actor=actor, event_at=moment, extra={"published_on": published_on.isoformat()})
    if on > civil_date(moment, city):
        delivery.state = DeliveryState.EDITAL
    await record(session=session, actor=actor, action="notice.delivery.edital", entity="notice",
                 entity_id=str(notice.id),
                 details={"delivery_id": delivery.id, "published_on": published_on.isoformat()})
    await session.commit()
    return CienciaResult(notice=notice, delivery=delivery, already=False)


async def close_running_editals(*, session: AsyncSession, cities: Cities, now: dt.datetime) -> int:
    """Editals whose period is over leave the staff list (their ciência was fixed at publication); caller commits."""
    today = civil_date(now, cities.default)  # one civil time zone per deployment (BALCAO_TIMEZONE)
    rows = (
        await session.exec(
            select(NoticeDelivery).where(NoticeDelivery.state == DeliveryState.EDITAL,
                                         col(NoticeDelivery.ciencia_on) <= today)
        )
    ).all()
    for delivery in rows:
        delivery.state = DeliveryState.DONE
        session.add(delivery)
    return len(rows)


async def deliveries_of(*, session: AsyncSession, notice_id: int) -> list[NoticeDelivery]:
    """A notice's deliveries, oldest first."""
    return list(
        (
            await session.exec(
                select(NoticeDelivery).where(NoticeDelivery.notice_id == notice_id).order_by(col(NoticeDelivery.id))
            )
        ).all()
    )
