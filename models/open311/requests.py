"""What Open311 publishes about a case: never the author, their contact or CPF, nor anything they wrote.

GeoReport v2 ``GET requests`` is public. A case's author is restricted information (LGPD; Lei 13.460/2017
Art. 10 §7), and their own words may name them, so a request shows only the service, the status with a fixed
note per status, the dates (``expected_datetime`` is the case's deadline, :mod:`models.cases.schedule`), the
place and a media URL the client system itself made public. Ombudsman cases are never listed.
Status updates for systems that sync (mySociety's ``servicerequestupdates``) are the timeline's steps.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, not_, or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from models.cases.public_place import PlacePrecision, rounded_coordinate
from models.cases.tables import FINAL_STATUSES, Case, CaseEvent, CaseKind, CaseStatus
from models.open311.services import CP_OTHER_CODE, CP_PREFIX, RIDE_HAILING_CODE, service_of_case
from models.open311.tables import Open311Submission
from models.people import Role

OPEN311_KINDS = (CaseKind.REPRESENTATION, CaseKind.RIDE_HAILING)
MAX_RANGE = dt.timedelta(days=90)
"""GeoReport v2 GET requests: a date range "may not span more than 90 days" (the default is the last 90 days)."""
MAX_RESULTS = 1000

STATUS_NOTES: dict[CaseStatus, str] = {
    CaseStatus.RECEIVED: N_("Received; waiting to be looked at."),
    CaseStatus.IN_PROGRESS: N_("Being looked at by the inspectors."),
    CaseStatus.AWAITING_COMPLEMENT: N_("Waiting for more information from the person who reported it."),
    CaseStatus.ANSWERED: N_("Answered."),
    CaseStatus.NOTIFIED: N_("Checked: the person responsible will be notified (Código de Posturas, Art. 32)."),
    CaseStatus.AUTO_ISSUED: N_("A penalty notice (auto de infração) was issued (Código de Posturas, Art. 32)."),
    CaseStatus.ARCHIVED: N_("Archived."),
}
"""The public note per status (msgids): fixed texts, never what staff wrote to the author."""

AGENCY: dict[Role, str] = {
    Role.CLERK: N_("Código de Posturas inspection"),
    Role.INSPECTOR: N_("Ride-hailing inspection"),
}


UPDATE_STATUSES: dict[CaseStatus, str] = {
    CaseStatus.RECEIVED: "OPEN",
    CaseStatus.IN_PROGRESS: "IN_PROGRESS",
    CaseStatus.AWAITING_COMPLEMENT: "IN_PROGRESS",
    # CP Art. 32: the city hall acted (a notificação preliminar or an auto went to the offender); whether the
    # problem is gone Balcão does not know, so never FIXED
    CaseStatus.NOTIFIED: "CLOSED",
    CaseStatus.AUTO_ISSUED: "CLOSED",
    CaseStatus.ANSWERED: "CLOSED",
    # archived (with the reason the author is told): nothing more will be done, which is not "Fixed"
    CaseStatus.ARCHIVED: "NO_FURTHER_ACTION",
}
"""mySociety's extended statuses of servicerequestupdates, from Balcão's decisions (README, Open311).

Balcão's archiving has a free reason, not a category, so ``DUPLICATE`` and ``NOT_COUNCILS_RESPONSIBILITY``
are not sent; a FixMyStreet with extended statuses on shows an archived case as "No further action"."""


def open311_status(status: CaseStatus) -> str:
    """GeoReport v2 status: ``closed`` once the case is decided or archived, else ``open``."""
    return "closed" if status in FINAL_STATUSES else "open"


@dataclass(frozen=True, slots=True)
class PublicRequest:
    """A case as GET requests shows it. ``status_note`` and ``agency`` are msgids."""

    service_request_id: str
    service_code: str
    status: str
    status_note: str
    agency: str
    requested_at: dt.datetime
    updated_at: dt.datetime
    due_on: dt.date
    address: str | None
    latitude: float | None
    longitude: float | None
    media_url: str | None


@dataclass(frozen=True, slots=True)
class PublicUpdate:
    """A step of a case as servicerequestupdates shows it (the note is the fixed one of its status).

    ``status`` is mySociety's extended status (:data:`UPDATE_STATUSES`).
    """

    update_id: int
    service_request_id: str
    status: str
    status_note: str
    updated_at: dt.datetime


def _service_condition(code: str) -> Any:
    """Cases of one service: the service an Open311 request was posted to, else the one of its catalogue row."""
    representation = col(Case.kind) == CaseKind.REPRESENTATION.value
    if code == RIDE_HAILING_CODE:
        by_case = col(Case.kind) == CaseKind.RIDE_HAILING.value
    elif code == CP_OTHER_CODE:
        by_case = and_(representation, or_(col(Case.infraction_code).is_(None),
                                           not_(col(Case.infraction_code).like(f"{CP_PREFIX}%"))))
    else:
        # the code is the client's text: a prefix match with LIKE's wildcards escaped, so "%" names no service
        by_case = and_(representation, col(Case.infraction_code).startswith(f"{code}-", autoescape=True))
    return or_(col(Open311Submission.service_code) == code, and_(col(Open311Submission.id).is_(None), by_case))


async def public_requests(
    *,
    session: AsyncSession,
    municipality: str,
    protocols: list[str] | None = None,
    service_codes: list[str] | None = None,
    start: dt.datetime | None = None,
    end: dt.datetime | None = None,
    statuses: list[str] | None = None,
    place: PlacePrecision = "exact",
    limit: int = MAX_RESULTS,
) -> list[PublicRequest]:
    """The public view of one municipality's representações and ride-hailing reports, newest first.

    Args:
        session: database session.
        municipality: the jurisdiction's municipality key: another municipality's cases are not there.
        protocols: only these protocol numbers (then the other filters are ignored, as the spec says).
        service_codes: only these services.
        start: received at or after.
        end: received before or at.
        statuses: ``open`` and/or ``closed``.
        place: ``exact`` publishes the address and coordinates given; ``rounded`` leaves the address out and
            rounds the coordinates as the open data do (``BALCAO_OPEN311_PLACE``).
        limit: at most this many.
    """
    statement = (
        select(Case, Open311Submission)
        .join(Open311Submission, col(Open311Submission.case_id) == Case.id, isouter=True)
        .where(col(Case.kind).in_([kind.value for kind in OPEN311_KINDS]), col(Case.municipality) == municipality)
    )
    if protocols is not None:
        statement = statement.where(col(Case.protocol).in_([protocol.upper() for protocol in protocols]))
    else:
        if service_codes:
            statement = statement.where(or_(*(_service_condition(code) for code in service_codes)))
        if start is not None:
            statement = statement.where(col(Case.received_at) >= start)
        if end is not None:
            statement = statement.where(col(Case.received_at) <= end)
        if statuses and set(statuses) != {"open", "closed"}:
            final = [status.value for status in FINAL_STATUSES]
            closed = col(Case.status).in_(final)
            statement = statement.where(closed if "closed" in statuses else not_(closed))
    statement = statement.order_by(col(Case.received_at).desc(), col(Case.id).desc()).limit(limit)
    found = []
    exact = place == "exact"
    for case, submission in (await session.exec(statement)).all():
        found.append(
            PublicRequest(
                service_request_id=case.protocol,
                service_code=submission.service_code if submission else service_of_case(
                    kind=case.kind, infraction_code=case.infraction_code),
                status=open311_status(case.status),
                status_note=STATUS_NOTES[case.status],
                agency=AGENCY.get(case.handling_role, AGENCY[Role.CLERK]),
                requested_at=case.received_at,
                updated_at=case.updated_at,
                due_on=case.due_on,
                address=case.place_text if exact else None,
                latitude=case.latitude if exact else rounded_coordinate(case.latitude),
                longitude=case.longitude if exact else rounded_coordinate(case.longitude),
                media_url=submission.media_url if submission else None,
            )
        )
    return found


async def public_updates(
    *, session: AsyncSession, municipality: str, start: dt.datetime, end: dt.datetime, limit: int = MAX_RESULTS
) -> list[PublicUpdate]:
    """Every step of one municipality's representações and reports in [start, end], oldest first.

    mySociety's ``servicerequestupdates``; ``municipality`` is the jurisdiction's key.

    The filing itself is not an update (the request is created by it), nor is the author's rating.
    """
    statement = (
        select(CaseEvent, Case.protocol)
        .join(Case, col(Case.id) == CaseEvent.case_id)
        .where(
            col(Case.kind).in_([kind.value for kind in OPEN311_KINDS]),
            col(Case.municipality) == municipality,
            col(CaseEvent.kind).not_in(["filed", "rated"]),
            col(CaseEvent.at) >= start,
            col(CaseEvent.at) <= end,
        )
        .order_by(col(CaseEvent.at), col(CaseEvent.id))
        .limit(limit)
    )
    return [
        PublicUpdate(
            update_id=event.id or 0,
            service_request_id=protocol,
            status=UPDATE_STATUSES[event.status],
            status_note=STATUS_NOTES[event.status],
            updated_at=event.at,
        )
        for event, protocol in (await session.exec(statement)).all()
    ]
