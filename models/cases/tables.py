"""Tables of citizens' cases: the case, its author (kept apart), its timeline, attachments, protocol counters.

Three kinds of case share one table:

- a *representação* (Código de Posturas of Nova Xavantina, CP Art. 30–32);
- a report about a ride-hailing driver (Sapezal L1533 Art. 7, 13, 14), worked by inspectors;
- an ombudsman case (*manifestação de ouvidoria*, Lei Federal 13.460/2017).

The author's identity lives in :class:`CaseAuthor`, not in the case, so that the views given to staff who
may not see it (L13460 Art. 10 §7: the author's identity is restricted information) never load it.
"""

from __future__ import annotations

import datetime as dt
import enum
from typing import Any

from sqlalchemy import Column, Date, Enum, Float, ForeignKey, Index, Integer, LargeBinary, String, Text
from sqlmodel import Field, SQLModel

from models.columns import JSONData, UTCDateTime, json_default, utcnow
from models.people import Role


class CaseKind(enum.StrEnum):
    """What the case is, and so which law governs it."""

    REPRESENTATION = "representation"  # CP Art. 30–32
    RIDE_HAILING = "ride_hailing"  # L1533 Art. 7, 13, 14
    OMBUDSMAN = "ombudsman"  # Lei 13.460/2017


PROTOCOL_PREFIX: dict[CaseKind, str] = {
    CaseKind.REPRESENTATION: "REP",
    CaseKind.RIDE_HAILING: "APP",
    CaseKind.OMBUDSMAN: "OUV",
}
"""The protocol number's prefix per kind: ``REP-2026-000123``."""

HANDLING_ROLE: dict[CaseKind, Role] = {
    CaseKind.REPRESENTATION: Role.CLERK,
    CaseKind.RIDE_HAILING: Role.INSPECTOR,
    CaseKind.OMBUDSMAN: Role.OMBUDSMAN,
}
"""Whose queue a case goes to (admins see and may work every queue)."""


class OmbudsmanType(enum.StrEnum):
    """The five kinds of *manifestação* of L13460 Art. 2 V (and D9492 Art. 3)."""

    COMPLAINT = "reclamacao"
    REPORT = "denuncia"
    SUGGESTION = "sugestao"
    PRAISE = "elogio"
    REQUEST = "solicitacao"


class CaseStatus(enum.StrEnum):
    """Where a case stands. The last four are final."""

    RECEIVED = "received"
    IN_PROGRESS = "in_progress"
    AWAITING_COMPLEMENT = "awaiting_complement"
    ANSWERED = "answered"  # ombudsman: conclusive answer given (L13460 Art. 12)
    NOTIFIED = "notified"  # Art. 32: the offender was notified (notificação preliminar, CP Art. 24)
    AUTO_ISSUED = "auto_issued"  # Art. 32: an auto de infração was drawn up (handed over to the notices)
    ARCHIVED = "archived"


FINAL_STATUSES = frozenset({CaseStatus.ANSWERED, CaseStatus.NOTIFIED, CaseStatus.AUTO_ISSUED, CaseStatus.ARCHIVED})


class Outcome(enum.StrEnum):
    """The decision on a representation (CP Art. 32) or a ride-hailing report (L1533 Art. 22, 24 II a)."""

    NOTIFY = "notify"
    AUTO = "auto"
    ARCHIVE = "archive"


OUTCOME_STATUS: dict[Outcome, CaseStatus] = {
    Outcome.NOTIFY: CaseStatus.NOTIFIED,
    Outcome.AUTO: CaseStatus.AUTO_ISSUED,
    Outcome.ARCHIVE: CaseStatus.ARCHIVED,
}


class Relation(enum.StrEnum):
    """The author's relation to the accused (CP Art. 31 sole paragraph)."""

    NONE = "none"
    FORMER = "former"  # was a partner, director, agent or employee, and left
    CURRENT = "current"  # still is


class Satisfaction(enum.StrEnum):
    """The author's answer to the satisfaction question (L13460 Art. 23)."""

    SATISFIED = "satisfied"
    PARTLY = "partly"
    UNSATISFIED = "unsatisfied"


class EventKind(enum.StrEnum):
    """A step in a case's timeline."""

    FILED = "filed"
    ASSIGNED = "assigned"
    COMPLEMENT_REQUESTED = "complement_requested"
    COMPLEMENT_ANSWERED = "complement_answered"
    EXTENDED = "extended"
    DECIDED = "decided"
    ANSWERED = "answered"
    ARCHIVED = "archived"
    RATED = "rated"
    RATING_EXPLAINED = "rating_explained"  # L13460 Art. 23: why the author was not (fully) satisfied


def _enum(kind: type[enum.Enum], length: int = 24, **kwargs: Any) -> Column[Any]:
    return Column(Enum(kind, native_enum=False, length=length, values_callable=lambda e: [m.value for m in e]),
                  **kwargs)


class Case(SQLModel, table=True):
    """A citizen's case. Holds what happened, where and when, the deadline and the decision — not the author."""

    __tablename__ = "citizen_case"
    __table_args__ = (Index("ix_citizen_case_queue", "handling_role", "status", "due_on"),)

    id: int | None = Field(default=None, primary_key=True)
    protocol: str = Field(sa_column=Column(String(24), nullable=False, unique=True, index=True))
    municipality: str = Field(
        sa_column=Column(String(40), ForeignKey("municipality.slug"), nullable=False, index=True),
        description="The municipality it belongs to (its Prefeitura acts; its calendar and unit values apply).",
    )
    kind: CaseKind = Field(sa_column=_enum(CaseKind, nullable=False))
    ombudsman_type: OmbudsmanType | None = Field(default=None, sa_column=_enum(OmbudsmanType, nullable=True))
    status: CaseStatus = Field(default=CaseStatus.RECEIVED, sa_column=_enum(CaseStatus, nullable=False))
    handling_role: Role = Field(sa_column=Column(Enum(Role, native_enum=False, length=16), nullable=False))
    summary: str = Field(sa_column=Column(Text, nullable=False))
    infraction_code: str | None = Field(default=None, sa_column=Column(String(32)))
    legal_refs: list[str] = Field(default_factory=list, sa_column=Column(JSONData, nullable=False))
    accused: str | None = Field(default=None, sa_column=Column(String(200)))
    driver_id: int | None = Field(default=None, sa_column=Column(Integer))
    vehicle_ref: str | None = Field(default=None, sa_column=Column(String(32)))
    place_text: str | None = Field(default=None, sa_column=Column(String(300)))
    latitude: float | None = Field(default=None, sa_column=Column(Float))
    longitude: float | None = Field(default=None, sa_column=Column(Float))
    occurred_on: dt.date | None = Field(default=None, sa_column=Column(Date))
    evidence_note: str | None = Field(default=None, sa_column=Column(Text))
    learned_how: str | None = Field(default=None, sa_column=Column(String(300)))
    relation: Relation | None = Field(default=None, sa_column=_enum(Relation, length=16, nullable=True))
    relation_ended_on: dt.date | None = Field(default=None, sa_column=Column(Date))
    identity_restricted: bool = Field(default=False)
    received_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False, index=True))
    due_on: dt.date = Field(sa_column=Column(Date, nullable=False))
    extended_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    extension_reason: str | None = Field(default=None, sa_column=Column(Text))
    complement_question: str | None = Field(default=None, sa_column=Column(Text))
    complement_requested_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    complement_due_on: dt.date | None = Field(default=None, sa_column=Column(Date))
    complement_answer: str | None = Field(default=None, sa_column=Column(Text))
    complement_answered_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    assigned_staff_id: int | None = Field(
        default=None, sa_column=Column(Integer, ForeignKey("staff_member.id"), index=True)
    )
    outcome: Outcome | None = Field(default=None, sa_column=_enum(Outcome, length=16, nullable=True))
    outcome_reason: str | None = Field(default=None, sa_column=Column(Text))
    answer: str | None = Field(default=None, sa_column=Column(Text))
    satisfaction: Satisfaction | None = Field(default=None, sa_column=_enum(Satisfaction, length=16, nullable=True))
    satisfaction_reason: str | None = Field(
        default=None, sa_column=Column(Text, nullable=True),
        description="Why the author was not (fully) satisfied, in their words (L13460 Art. 23).",
    )
    closed_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    updated_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))


class CaseAuthor(SQLModel, table=True):
    """Who filed a case (CP Art. 31: name, profession, address). Read only where the viewer may see it."""

    __tablename__ = "case_author"

    id: int | None = Field(default=None, primary_key=True)
    case_id: int = Field(sa_column=Column(Integer, ForeignKey("citizen_case.id"), nullable=False, unique=True))
    person_id: int | None = Field(  # None: filed by an Open311 client system (models.open311)
        default=None, sa_column=Column(Integer, ForeignKey("person.id"), nullable=True, index=True)
    )
    name: str = Field(sa_column=Column(String(128), nullable=False))
    profession: str | None = Field(default=None, sa_column=Column(String(80)))
    address: str | None = Field(default=None, sa_column=Column(String(300)))
    cpf: str | None = Field(default=None, sa_column=Column(String(11)))
    pseudonym: str = Field(sa_column=Column(String(8), nullable=False))


class CaseEvent(SQLModel, table=True):
    """One entry of a case's timeline. ``note`` is shown to the author (reasons, questions) — never identities."""

    __tablename__ = "case_event"

    id: int | None = Field(default=None, primary_key=True)
    case_id: int = Field(sa_column=Column(Integer, ForeignKey("citizen_case.id"), nullable=False, index=True))
    at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
    kind: EventKind = Field(sa_column=_enum(EventKind, nullable=False))
    status: CaseStatus = Field(sa_column=_enum(CaseStatus, nullable=False))
    actor: str = Field(sa_column=Column(String(64), nullable=False))
    note: str | None = Field(default=None, sa_column=Column(Text))
    details: dict[str, Any] = Field(default_factory=json_default, sa_column=Column(JSONData, nullable=False))


class CaseAttachment(SQLModel, table=True):
    """A photo, document, voice note or video, stored when received, with the caption typed under it.

    ``case_id`` is empty while in a draft.
    """

    __tablename__ = "case_attachment"
    __table_args__ = (Index("ix_case_attachment_owner", "person_id", "case_id"),)

    id: int | None = Field(default=None, primary_key=True)
    case_id: int | None = Field(default=None, sa_column=Column(Integer, ForeignKey("citizen_case.id"), index=True))
    person_id: int | None = Field(  # None: uploaded by an Open311 client system with its request
        default=None, sa_column=Column(Integer, ForeignKey("person.id"), nullable=True)
    )
    file_name: str = Field(sa_column=Column(String(128), nullable=False))
    mime_type: str = Field(sa_column=Column(String(64), nullable=False))
    size: int = Field(sa_column=Column(Integer, nullable=False))
    sha256: str = Field(sa_column=Column(String(64), nullable=False))
    content: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    caption: str | None = Field(default=None, sa_column=Column(String(1024), nullable=True))
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))


class ProtocolCounter(SQLModel, table=True):
    """The last protocol number given, per prefix and year (incremented in the filing's transaction)."""

    __tablename__ = "protocol_counter"

    prefix: str = Field(sa_column=Column(String(8), primary_key=True))
    year: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    value: int = Field(default=0, sa_column=Column(Integer, nullable=False, default=0))
