"""A notice from a decided representação (CP Art. 32).

The elements the case hands over, and the citizen's report beside them as a reference the act never copies.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import Municipality
from models.cases.handling import notice_handover
from models.drivers.tables import Driver
from models.notices.elements import NoticeInput
from models.notices.tables import NoticeType


@dataclass(frozen=True, slots=True)
class CaseReference:
    """What the citizen reported, shown to the inspector beside the form as a reference, never copied into the act.

    The act's facts are the inspector's own account (CP Art. 25 III, 34 III: "os fatos", verified by the agent); the
    citizen's words may name them ("do lado da minha casa", "minha filha tem asma") and would reach the accused in
    the PDF (LGPD Art. 6 III; CP Art. 31 keeps the author apart from the accused).
    """

    protocol: str
    accused: str
    place: str
    facts: str


@dataclass(frozen=True, slots=True)
class CasePrefill:
    """The elements a decided case fills in, and the citizen's report beside them for reference."""

    data: NoticeInput
    reference: CaseReference


async def input_from_case(
    *, session: AsyncSession, city: Municipality, case_id: int, issuer_name: str | None, now: dt.datetime
) -> CasePrefill:
    """The elements of the notice a decided representação calls for (CP Art. 32), for staff to complete and issue.

    The case hands over (``models.cases.handling.notice_handover``) the type, law and infraction; the accused, the
    place and the facts as the citizen told them are only a :class:`CaseReference` for the inspector, who writes
    the act's own (issue 18 §6). A registered driver named in a ride-hailing report gives the name, CPF and
    Telegram link (the registry's, not the citizen's words). The drawing up is ``now``; staff check and complete
    the rest before issuing. Never the author.

    Raises:
        LookupError: the case is not decided for a notice (archived, or still open).
    """
    handover = await notice_handover(session=session, case_id=case_id)
    if handover is None:
        raise LookupError(f"case {case_id} does not call for a notice")
    name, document, person_id = None, None, None
    if handover.driver_id is not None:
        driver = await session.get(Driver, handover.driver_id)
        if driver is not None:
            name, document, person_id = driver.name, driver.cpf, driver.person_id
    local = now.astimezone(city.tz)
    data = NoticeInput(
        type=NoticeType(handover.notice_type),
        rulebook=handover.rulebook,
        infraction_code=handover.infraction_code,
        offender_name=name,
        offender_document=document,
        person_id=person_id,
        drawn_up_on=local.date(),
        drawn_up_time=local.time().replace(second=0, microsecond=0),
        issuer_name=issuer_name,
        case_id=case_id,
    )
    reference = CaseReference(protocol=handover.protocol, accused=handover.accused or "", place=handover.place,
                              facts=handover.facts)
    return CasePrefill(data=data, reference=reference)
