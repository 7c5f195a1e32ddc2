"""What the author does with their cases.

List and follow them, answer a request for complementação, rate the answer.

A person only ever reaches their own cases: every function looks the case up through its author row.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from core.municipality import Cities
from models.cases.attachments import claim_attachments
from models.cases.fields import clean_text
from models.cases.handling import CaseActionRefused, case_view_for
from models.cases.schedule import civil_date, first_due_on
from models.cases.tables import (
    FINAL_STATUSES,
    Case,
    CaseAuthor,
    CaseKind,
    CaseStatus,
    EventKind,
    OmbudsmanType,
    Satisfaction,
)
from models.cases.timeline import AUTHOR_ACTOR, CaseNotFound, notify_staff, record_event
from models.cases.views import CaseView


@dataclass(frozen=True, slots=True)
class CaseLine:
    """A line of the author's list of cases."""

    id: int
    protocol: str
    kind: CaseKind
    ombudsman_type: OmbudsmanType | None
    status: CaseStatus
    received_at: dt.datetime
    due_on: dt.date
    complement_due_on: dt.date | None

    @property
    def is_open(self) -> bool:
        """Whether the case still awaits a decision or answer."""
        return self.status not in FINAL_STATUSES

    @property
    def next_date(self) -> dt.date:
        """The date that matters now: the author's own deadline while more information is awaited."""
        if self.status is CaseStatus.AWAITING_COMPLEMENT and self.complement_due_on is not None:
            return self.complement_due_on
        return self.due_on


async def my_cases(*, session: AsyncSession, person_id: int, limit: int = 20) -> list[CaseLine]:
    """The person's cases, open ones first, then the most recent."""
    rows = (
        await session.exec(
            select(Case)
            .join(CaseAuthor, col(CaseAuthor.case_id) == Case.id)
            .where(CaseAuthor.person_id == person_id)
            .order_by(col(Case.closed_at).is_not(None), col(Case.received_at).desc())
            .limit(limit)
        )
    ).all()
    return [
        CaseLine(
            id=case.id or 0,
            protocol=case.protocol,
            kind=case.kind,
            ombudsman_type=case.ombudsman_type,
            status=case.status,
            received_at=case.received_at,
            due_on=case.due_on,
            complement_due_on=case.complement_due_on,
        )
        for case in rows
    ]


async def awaiting_complement(*, session: AsyncSession, person_id: int) -> list[CaseLine]:
    """The person's cases waiting for more information from them (D9492 Art. 18), oldest request first.

    A text the author types outside any form is their answer when exactly one case waits for it.
    """
    rows = (
        await session.exec(
            select(Case)
            .join(CaseAuthor, col(CaseAuthor.case_id) == Case.id)
            .where(CaseAuthor.person_id == person_id, Case.status == CaseStatus.AWAITING_COMPLEMENT)
            .order_by(col(Case.complement_due_on), col(Case.id))
        )
    ).all()
    return [
        CaseLine(id=case.id or 0, protocol=case.protocol, kind=case.kind, ombudsman_type=case.ombudsman_type,
                 status=case.status, received_at=case.received_at, due_on=case.due_on,
                 complement_due_on=case.complement_due_on)
        for case in rows
    ]


async def _own_case(
    *, session: AsyncSession, person_id: int, case_id: int | None = None, protocol: str | None = None
) -> Case:
    statement = select(Case).join(CaseAuthor, col(CaseAuthor.case_id) == Case.id).where(
        CaseAuthor.person_id == person_id
    )
    if case_id is not None:
        statement = statement.where(Case.id == case_id)
    else:
        statement = statement.where(Case.protocol == (protocol or "").upper())
    case = (await session.exec(statement)).first()
    if case is None:
        raise CaseNotFound("no such case of this person")
    return case


async def my_case(
    *, session: AsyncSession, person_id: int, case_id: int | None = None, protocol: str | None = None
) -> CaseView:
    """One of the person's cases with its timeline.

    Raises:
        CaseNotFound: not a case of this person (another person's case is "not found" too).
    """
    case = await _own_case(session=session, person_id=person_id, case_id=case_id, protocol=protocol)
    return await case_view_for(session=session, case=case, viewer_role=None)


async def answer_complement(
    *,
    session: AsyncSession,
    person_id: int,
    case_id: int,
    text: str,
    attachment_ids: list[int],
    now: dt.datetime,
    cities: Cities,
) -> dt.date:
    """The author completes the case as asked, within the 20 days (D9492 Art. 18).

    The answer deadline then starts again (Art. 18; ``BALCAO_OMBUDSMAN_COMPLEMENT_RESTARTS``), and the staff in
    charge are told.

    Returns:
        The case's deadline after the answer.

    Raises:
        CaseNotFound: not a case of this person.
        CaseActionRefused: nothing was asked, or the period is over.
        InvalidInput: the text is too short or too long.
    """
    case = await _own_case(session=session, person_id=person_id, case_id=case_id)
    if case.status is not CaseStatus.AWAITING_COMPLEMENT or case.complement_due_on is None:
        raise CaseActionRefused(N_("This case is not waiting for more information from you."))
    city = cities.of(case.municipality)
    if civil_date(now, city) > case.complement_due_on:
        raise CaseActionRefused(
            N_("The period to complete this case ended on {day}; the case may be archived. You can file a new one."),
            day=case.complement_due_on,
        )
    answer = clean_text(text, min_length=3, max_length=3500) if text.strip() or not attachment_ids else ""
    await claim_attachments(session=session, person_id=person_id, attachment_ids=attachment_ids, case_id=case.id or 0)
    case.complement_answer = answer or None
    case.complement_answered_at = now
    case.status = CaseStatus.IN_PROGRESS
    if case.kind is not CaseKind.OMBUDSMAN or city.readings.ombudsman_complement_restarts:
        case.due_on = max(case.due_on, first_due_on(kind=case.kind, received_at=now, city=city))
    await record_event(
        session=session, case=case, kind=EventKind.COMPLEMENT_ANSWERED, actor=AUTHOR_ACTOR, now=now,
        notify_author=False, details={"files": len(attachment_ids)},
    )
    await notify_staff(session=session, case=case, what="complement_answered", dedupe=f"compl:{case.id}")
    await session.commit()
    return case.due_on


async def rate(
    *, session: AsyncSession, person_id: int, case_id: int, satisfaction: Satisfaction, now: dt.datetime
) -> None:
    """Record the author's satisfaction with the answer (L13460 Art. 23), once.

    Raises:
        CaseNotFound: not a case of this person.
        CaseActionRefused: the case has no answer yet, or was already rated.
    """
    case = await _own_case(session=session, person_id=person_id, case_id=case_id)
    if case.status not in FINAL_STATUSES:
        raise CaseActionRefused(N_("You can rate the service once your case has its answer."))
    if case.satisfaction is not None:
        raise CaseActionRefused(N_("You have already rated this case. Thank you!"))
    case.satisfaction = satisfaction
    await record_event(
        session=session, case=case, kind=EventKind.RATED, actor=AUTHOR_ACTOR, now=now,
        notify_author=False, details={"satisfaction": satisfaction.value},
    )
    await session.commit()



REASON_MIN, REASON_MAX = 5, 1000
"""Length of the reason for a rating, in characters."""


async def explain_rating(
    *, session: AsyncSession, person_id: int, case_id: int, reason: str, now: dt.datetime
) -> None:
    """Record why the author was not (fully) satisfied with the answer (L13460 Art. 23), once.

    The case stays closed: its conclusive answer closed it (L13460 Art. 12); the reason is feedback for the
    evaluation of the service, and a disagreement is a new manifestação (LEGAL-CHOICES item 80).

    Raises:
        CaseNotFound: not a case of this person.
        CaseActionRefused: not rated "partly" or "unsatisfied", or the reason was already given.
        InvalidInput: the reason is too short or too long.
    """
    text = clean_text(reason, min_length=REASON_MIN, max_length=REASON_MAX)
    case = await _own_case(session=session, person_id=person_id, case_id=case_id)
    if case.satisfaction not in (Satisfaction.PARTLY, Satisfaction.UNSATISFIED):
        raise CaseActionRefused(N_("You can say why once you have rated the answer \"No\" or \"Partly\"."))
    if case.satisfaction_reason is not None:
        raise CaseActionRefused(N_("You have already said why. Thank you!"))
    case.satisfaction_reason = text
    await record_event(  # L13460 Art. 23: the evaluation of the service, in the author's words
        session=session, case=case, kind=EventKind.RATING_EXPLAINED, actor=AUTHOR_ACTOR, now=now,
        notify_author=False, note=text, details={"satisfaction": case.satisfaction.value},
    )
    await session.commit()
