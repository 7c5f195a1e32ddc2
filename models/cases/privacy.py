"""LGPD for the people Balcão serves: export everything held about a person, and erase what may be erased.

- Export (LGPD Art. 18 II, access): one JSON document with the person's record, their cases (with timeline and
  the list of files), the draft in progress, their driver registration if any, the notices addressed to them,
  their reminder choices and the messages sent to them. CPFs are masked in the file, since it travels through
  Telegram; the full record is available at the counter.
- Erasure (LGPD Art. 18 VI): blanks the Telegram name, deletes the draft, unfiled files, reminder choices and
  optional data (the CPF given in a case), and marks the person erased. What the law requires the city hall to
  keep stays, and the person is told which and why (LGPD Art. 16 I: storage for a legal obligation):
  representações (CP Art. 31 makes the author's identification part of the petition),
  ride-hailing reports (records of the inspection, L1533 Art. 17), ombudsman cases (Lei 13.460/2017,
  kept with the identity restricted, Art. 10 §7), the driver registration (L1533 Art. 8 and 12) and
  penalty notices (CP Art. 25 and 34; L1533 Art. 22). The Telegram id stays while any of these exist,
  to deliver the answers and notices the law requires.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from models.audit import record
from models.cases.attachments import discard_unfiled
from models.cases.tables import Case, CaseAttachment, CaseAuthor, CaseEvent, CaseKind
from models.drafts import Draft
from models.drivers.identifiers import format_plate, mask_cpf
from models.drivers.registry import linked_driver
from models.drivers.tables import Authorization, Vehicle
from models.notices.tables import Notice
from models.outbox import OutboxMessage
from models.people import Person, StaffMember
from models.reminders import ReminderMute

EXPORT_FORMAT = "balcao-personal-data/1"


def _iso(value: dt.date | dt.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


async def _cases(session: AsyncSession, person_id: int) -> list[dict[str, Any]]:
    rows = (
        await session.exec(
            select(Case, CaseAuthor)
            .join(CaseAuthor, col(CaseAuthor.case_id) == Case.id)
            .where(CaseAuthor.person_id == person_id)
            .order_by(col(Case.id))
        )
    ).all()
    cases = []
    for case, author in rows:
        events = (
            await session.exec(select(CaseEvent).where(CaseEvent.case_id == case.id).order_by(col(CaseEvent.id)))
        ).all()
        files = (
            await session.exec(
                select(CaseAttachment.file_name, CaseAttachment.mime_type, CaseAttachment.size, CaseAttachment.sha256)
                .where(CaseAttachment.case_id == case.id)
                .order_by(col(CaseAttachment.id))
            )
        ).all()
        cases.append(
            {
                "protocol": case.protocol,
                "kind": case.kind.value,
                "ombudsman_type": case.ombudsman_type.value if case.ombudsman_type else None,
                "status": case.status.value,
                "received_at": _iso(case.received_at),
                "due_on": _iso(case.due_on),
                "what_happened": case.summary,
                "infraction_code": case.infraction_code,
                "legal_refs": list(case.legal_refs),
                "accused": case.accused,
                "place": case.place_text,
                "latitude": case.latitude,
                "longitude": case.longitude,
                "occurred_on": _iso(case.occurred_on),
                "evidence": case.evidence_note,
                "how_you_learned": case.learned_how,
                "relation_to_accused": case.relation.value if case.relation else None,
                "relation_ended_on": _iso(case.relation_ended_on),
                "identity_restricted": case.identity_restricted,
                "author": {
                    "name": author.name,
                    "profession": author.profession,
                    "address": author.address,
                    "cpf": mask_cpf(author.cpf) if author.cpf else None,
                },
                "complement_question": case.complement_question,
                "complement_answer": case.complement_answer,
                "extension_reason": case.extension_reason,
                "outcome": case.outcome.value if case.outcome else None,
                "outcome_reason": case.outcome_reason,
                "answer": case.answer,
                "satisfaction": case.satisfaction.value if case.satisfaction else None,
                "timeline": [
                    {"at": _iso(e.at), "event": e.kind.value, "status": e.status.value, "note": e.note}
                    for e in events
                ],
                "files": [
                    {"name": name, "type": mime, "size": size, "sha256": digest}
                    for name, mime, size, digest in files
                ],
            }
        )
    return cases


async def _driver(session: AsyncSession, person_id: int) -> dict[str, Any] | None:
    driver = await linked_driver(session=session, person_id=person_id)
    if driver is None:
        return None
    found: dict[str, Any] = {
        "name": driver.name,
        "cpf": mask_cpf(driver.cpf),
        "phone": driver.phone,
        "cnh_category": driver.cnh_category,
        "cnh_issued_on": _iso(driver.cnh_issued_on),
        "linked_at": _iso(driver.linked_at),
    }
    row = (
        await session.exec(
            select(Authorization, Vehicle)
            .join(Vehicle, col(Vehicle.id) == Authorization.vehicle_id)
            .where(Authorization.driver_id == driver.id)
        )
    ).first()
    if row is not None:
        authorization, vehicle = row
        found["authorization"] = {
            "number": authorization.number,
            "valid_until": _iso(authorization.valid_until),
            "plate": format_plate(vehicle.plate),
            "model_year": vehicle.model_year,
        }
    return found


async def export_personal_data(*, session: AsyncSession, person_id: int, now: dt.datetime) -> dict[str, Any]:
    """Everything Balcão holds about a person, as a JSON-safe document (LGPD Art. 18 II).

    Raises:
        LookupError: no such person.
    """
    person = await session.get(Person, person_id)
    if person is None:
        raise LookupError(f"person {person_id} not found")
    staff = (
        await session.exec(select(StaffMember).where(StaffMember.telegram_user_id == person.telegram_user_id))
    ).first()
    draft = (await session.exec(select(Draft).where(Draft.person_id == person_id))).first()
    notices = (await session.exec(select(Notice).where(Notice.person_id == person_id).order_by(col(Notice.id)))).all()
    mutes = (await session.exec(select(ReminderMute.topic).where(ReminderMute.person_id == person_id))).all()
    messages = (
        await session.exec(
            select(OutboxMessage.kind, OutboxMessage.status, OutboxMessage.created_at, OutboxMessage.sent_at)
            .where(OutboxMessage.person_id == person_id)
            .order_by(col(OutboxMessage.id))
        )
    ).all()
    return {
        "format": EXPORT_FORMAT,
        "generated_at": _iso(now),
        "person": {
            "telegram_user_id": person.telegram_user_id,
            "first_name": person.first_name,
            "language": person.locale,
            "first_contact": _iso(person.created_at),
            "privacy_accepted_at": _iso(person.privacy_accepted_at),
            "erased_at": _iso(person.erased_at),
        },
        "staff": {"role": staff.role.value, "name": staff.name, "active": staff.active} if staff else None,
        "form_in_progress": {"form": draft.form, "step": draft.step, "answers": draft.data} if draft else None,
        "cases": await _cases(session, person_id),
        "driver": await _driver(session, person_id),
        "notices": [
            {
                "number": notice.number,
                "type": notice.type.value,
                "infraction_code": notice.infraction_code,
                "issued_at": _iso(notice.issued_at),
                "stage": str(notice.stage),
            }
            for notice in notices
        ],
        "muted_reminders": sorted(mutes),
        "messages_sent_to_you": [
            {"kind": kind, "status": str(status), "created_at": _iso(created), "sent_at": _iso(sent)}
            for kind, status, created, sent in messages
        ],
    }


@dataclass(frozen=True, slots=True)
class KeptRecord:
    """Something the law requires the city hall to keep, and why (English msgids with the article)."""

    what: str
    why: str
    count: int


@dataclass(frozen=True, slots=True)
class ErasureReport:
    """What an erasure removed and what it kept."""

    erased: bool
    kept: tuple[KeptRecord, ...]


_KEPT_CASES: dict[CaseKind, tuple[str, str]] = {
    CaseKind.REPRESENTATION: (
        N_("Your representations (Código de Posturas)"),
        N_("The law makes your name, profession and address part of the petition (Código de Posturas, Art. 31); "
           "the city hall must keep it as a public record (LGPD Art. 16 I)."),
    ),
    CaseKind.RIDE_HAILING: (
        N_("Your reports about ride-hailing drivers"),
        N_("They are records of the inspection (Lei 1.533/2020, Art. 17), kept by legal obligation (LGPD Art. 16 I)."),
    ),
    CaseKind.OMBUDSMAN: (
        N_("Your ombudsman cases"),
        N_("The ombudsman must keep them, with your identity restricted (Lei 13.460/2017, Art. 10 §7; "
           "LGPD Art. 16 I)."),
    ),
}


async def kept_records(*, session: AsyncSession, person_id: int) -> list[KeptRecord]:
    """What would be (or was) kept on erasure, and the legal reason for each."""
    kept = []
    counts = (
        await session.exec(
            select(Case.kind, func.count())
            .join(CaseAuthor, col(CaseAuthor.case_id) == Case.id)
            .where(CaseAuthor.person_id == person_id)
            .group_by(Case.kind)
        )
    ).all()
    by_kind = {CaseKind(kind): int(count) for kind, count in counts}
    for kind, (what, why) in _KEPT_CASES.items():
        if by_kind.get(kind):
            kept.append(KeptRecord(what=what, why=why, count=by_kind[kind]))
    if await linked_driver(session=session, person_id=person_id) is not None:
        kept.append(
            KeptRecord(
                what=N_("Your driver registration"),
                why=N_("The registry of authorized drivers is required by Lei 1.533/2020 (Art. 8 and 12)."),
                count=1,
            )
        )
    notices = int(
        (await session.exec(select(func.count()).select_from(Notice).where(Notice.person_id == person_id))).one()
    )
    if notices:
        kept.append(
            KeptRecord(
                what=N_("Penalty notices addressed to you"),
                why=N_("They are records of an administrative procedure (Código de Posturas, Art. 25 and 34; "
                       "Lei 1.533/2020, Art. 22), kept by legal obligation (LGPD Art. 16 I)."),
                count=notices,
            )
        )
    if kept:
        kept.append(
            KeptRecord(
                what=N_("Your Telegram account number"),
                why=N_("Only to deliver the answers and notices above, as the law requires (LGPD Art. 16 I)."),
                count=1,
            )
        )
    return kept


async def erase_personal_data(*, session: AsyncSession, person_id: int, now: dt.datetime) -> ErasureReport:
    """Erase what may be erased about a person (LGPD Art. 18 VI) and say what is kept and why (committed).

    Raises:
        LookupError: no such person.
    """
    person = await session.get(Person, person_id)
    if person is None:
        raise LookupError(f"person {person_id} not found")
    person.first_name = ""
    person.erased_at = now
    await session.exec(delete(Draft).where(col(Draft.person_id) == person_id))
    await discard_unfiled(session=session, person_id=person_id)
    await session.exec(delete(ReminderMute).where(col(ReminderMute.person_id) == person_id))
    await session.exec(
        update(CaseAuthor).where(col(CaseAuthor.person_id) == person_id).values(cpf=None)
    )
    kept = await kept_records(session=session, person_id=person_id)
    await record(
        session=session,
        actor=f"person:{person_id}",
        action="privacy.erase",
        entity="person",
        entity_id=str(person_id),
        details={"kept": [k.what for k in kept]},
    )
    await session.commit()
    return ErasureReport(erased=True, kept=tuple(kept))
