"""The tables of penalty notices: the notice, its deliveries (with ciência), filings, opt-in and events.

A notice's legal elements (CP Art. 25 / Art. 34; L1533 Art. 22–23) are written once, at issue, and
never change: a flush that would change one is refused (:class:`NoticeIsImmutable`), and the ``issued``
:class:`NoticeEvent` records a digest of them. What changes over a notice's life (stage, outcome) is kept
beside them and every change is an event. Every row of these tables is covered by the transparency log
(:mod:`models.tlog`): each commit appends its new values, and ``notice verify`` finds any row that differs.
"""

from __future__ import annotations

import datetime as dt
import enum
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    Date,
    Enum,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    event,
    inspect,
)
from sqlalchemy.orm import Session
from sqlmodel import Field, SQLModel

from models.columns import JSONData, UTCDateTime, json_default, utcnow


class NoticeType(enum.StrEnum):
    """The two kinds of notice."""

    PRELIMINAR = "preliminar"  # CP Art. 24–25: notificação preliminar (not in Lei 1.533/2020)
    AUTO = "auto"  # CP Art. 33–34; L1533 Art. 22: auto de infração / notificação de penalidade


class NoticeStage(enum.StrEnum):
    """Where a notice is in its procedure."""

    AWAITING_CIENCIA = "awaiting_ciencia"  # issued; the offender has not been notified yet
    NOTIFIED = "notified"  # ciência recorded: the defence window runs from it
    UNDER_REVIEW = "under_review"  # a defence / reclamação awaits the first-instance decision (CP Art. 40)
    DECIDED = "decided"  # first-instance decision given: the appeal window runs from its ciência (CP Art. 43)
    APPEALED = "appealed"  # a recurso awaits the second instance (CP Art. 45)
    CLOSED = "closed"  # final


class NoticeOutcome(enum.StrEnum):
    """How a closed notice ended."""

    UPHELD = "upheld"  # the penalty stands
    ANNULLED = "annulled"  # the notice / auto was found improcedente


class DeliveryState(enum.StrEnum):
    """The delivery of one document (the notice, or a decision) until its ciência."""

    ELECTRONIC = "electronic"  # sent (or queued) in the bot; waiting for "Tomo ciência" or the tacit period
    STAFF = "staff"  # on the staff list: deliver in person (CP Art. 36 I), by post (II) or publish an edital (III)
    EDITAL = "edital"  # edital published; its period runs (CP Art. 36 III)
    DONE = "done"  # ciência recorded


class CienciaKind(enum.StrEnum):
    """How the offender came to know of a document."""

    EXPLICIT = "explicit"  # pressed "Tomo ciência" in the bot
    TACIT = "tacit"  # the tacit period after the electronic delivery ran out (CTB Art. 282-A §2 model)
    PERSONAL = "personal"  # handed over against a dated receipt (CP Art. 36 I)
    POSTAL = "postal"  # letter with aviso de recebimento, at the AR date (CP Art. 36 II)
    EDITAL = "edital"  # edital (CP Art. 36 III)


class StaffReason(enum.StrEnum):
    """Why a document is on the staff list instead of (or after) electronic delivery."""

    NO_PERSON = "no_person"  # the notice names nobody who uses the bot
    NO_OPTIN = "no_optin"  # the person has not accepted electronic notices
    UNREACHABLE = "unreachable"  # Telegram refused the message (blocked bot, deleted account)
    NOT_ACKNOWLEDGED = "not_acknowledged"  # no "Tomo ciência" in time where tacit ciência does not apply
    OPTED_OUT = "opted_out"  # the person revoked the electronic opt-in before ciência


class DocumentKind(enum.StrEnum):
    """What a delivery carries."""

    NOTICE = "notice"
    DECISION = "decision"


class FilingKind(enum.StrEnum):
    """What the offender files."""

    DEFESA = "defesa"  # CP Art. 24 / Art. 278 (preliminar); L1533 Art. 22 (defesa prévia)
    RECLAMACAO = "reclamacao"  # CP Art. 37–39 (against an auto)
    RECURSO = "recurso"  # CP Art. 43–46; L1533 Art. 22 (recurso administrativo)


class FilingOutcome(enum.StrEnum):
    """A decision on a filing."""

    GRANTED = "granted"  # the filing is procedente: the notice is annulled
    DENIED = "denied"  # improcedente: the notice stands


def _enum(kind: type[enum.Enum], length: int = 24) -> Enum:
    return Enum(kind, native_enum=False, length=length)


class Notice(SQLModel, table=True):
    """A notificação preliminar or an auto de infração, with the elements the law requires on it."""

    __tablename__ = "notice"

    id: int | None = Field(default=None, primary_key=True)
    number: str = Field(sa_column=Column(String(24), nullable=False, unique=True, index=True))
    municipality: str = Field(
        sa_column=Column(String(40), ForeignKey("municipality.slug"), nullable=False, index=True),
        description="The municipality it belongs to (its Prefeitura acts; its calendar and unit values apply).",
    )
    type: NoticeType = Field(sa_column=Column(_enum(NoticeType, 16), nullable=False))
    rulebook: str = Field(sa_column=Column(String(24), nullable=False))
    infraction_code: str = Field(sa_column=Column(String(32), nullable=False, index=True))
    infraction_article: str = Field(sa_column=Column(String(128), nullable=False))
    infraction_description: str = Field(sa_column=Column(Text, nullable=False))
    offender_name: str = Field(sa_column=Column(String(160), nullable=False))
    offender_document: str | None = Field(default=None, sa_column=Column(String(14), index=True))
    offender_address: str | None = Field(default=None, sa_column=Column(Text))
    person_id: int | None = Field(default=None, sa_column=Column(Integer, ForeignKey("person.id"), index=True))
    place: str = Field(sa_column=Column(String(200), nullable=False))
    drawn_up_at: dt.datetime = Field(sa_column=Column(UTCDateTime, nullable=False))
    facts: str = Field(sa_column=Column(Text, nullable=False))
    witnesses: str | None = Field(default=None, sa_column=Column(Text))
    inspection_term: str | None = Field(default=None, sa_column=Column(String(64)))
    issuer_name: str = Field(sa_column=Column(String(160), nullable=False))
    issuer_telegram_id: int | None = Field(default=None, sa_column=Column(BigInteger))
    fine_cents: int = Field(sa_column=Column(BigInteger, nullable=False))
    fine_units: str = Field(sa_column=Column(String(16), nullable=False))
    fine_unit: str = Field(sa_column=Column(String(8), nullable=False))
    recidivist: bool = False
    # CP Art. 8 par. único: the earlier notice of the same nature the recidivism rests on (shown to staff).
    recidivism_of: int | None = Field(default=None, sa_column=Column(Integer, ForeignKey("notice.id")))
    # The day the infraction was committed, apart from the drawing up (its year's unit value applies); None on
    # notices issued before it was recorded: the drawing-up day stands in for it.
    infraction_on: dt.date | None = Field(default=None, sa_column=Column(Date))
    # Tabela III "por m²": the quantity the unit value is multiplied by (decimal text), else None.
    quantity: str | None = Field(default=None, sa_column=Column(String(16)))
    # CP Art. 57 §1: a first water-pollution offence is a warning (advertência), without a fine.
    warning_only: bool = False
    # L1533 Art. 13 XXIII: the days to pay the fine the notice states (frozen at issue).
    payment_days: int | None = Field(default=None, sa_column=Column(Integer))
    penalties: str | None = Field(default=None, sa_column=Column(Text))
    # CP Art. 25 III, 34 III; L9784 Art. 26 §1 VI: the provision infringed as the inspector gave it (required on the
    # "Outros" rows, which name no conduct); None: the catalogue row's own (or a notice issued before it existed).
    infringed_provision: str | None = Field(default=None, sa_column=Column(String(200)))
    # The Prefeitura that issued the act, as it was called then (CF Art. 30 I): /verificar keeps it after the
    # municipality leaves the file.
    issuer_authority: str | None = Field(default=None, sa_column=Column(String(160)))
    # L1533 Art. 22: the technology platform the notice also goes to, besides the driver.
    platform_name: str | None = Field(default=None, sa_column=Column(String(160)))
    defence_days: int | None = Field(default=None, sa_column=Column(Integer))
    case_id: int | None = Field(default=None, sa_column=Column(Integer, index=True))
    preliminar_id: int | None = Field(default=None, sa_column=Column(Integer, ForeignKey("notice.id")))
    code_hash: str = Field(sa_column=Column(String(64), nullable=False, unique=True, index=True))
    pdf: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    pdf_sha256: str = Field(sa_column=Column(String(64), nullable=False))
    issued_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
    # Issue 18 §2: who signed the act (models.authorities.ActAuthor, as data) and when, at the moment of issue;
    # None on notices issued before signers were recorded ("unsigned, before this version": issued_at stands).
    signer: dict[str, Any] | None = Field(default=None, sa_column=Column(JSONData))
    signed_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    stage: NoticeStage = Field(
        default=NoticeStage.AWAITING_CIENCIA, sa_column=Column(_enum(NoticeStage), nullable=False, index=True)
    )
    outcome: NoticeOutcome | None = Field(default=None, sa_column=Column(_enum(NoticeOutcome, 16)))


IMMUTABLE_FIELDS: tuple[str, ...] = (
    "number", "municipality", "type", "rulebook", "infraction_code", "infraction_article", "infraction_description",
    "offender_name", "offender_document", "offender_address", "place", "drawn_up_at", "facts", "witnesses",
    "inspection_term", "issuer_name", "issuer_telegram_id", "fine_cents", "fine_units", "fine_unit",
    "recidivist", "penalties", "defence_days", "case_id", "preliminar_id", "code_hash", "pdf", "pdf_sha256",
    "issued_at",
)
"""The elements written at issue (number and PDF are completed once, in the same transaction, from the id)."""

LATER_ELEMENTS: tuple[str, ...] = ("recidivism_of", "infraction_on", "quantity", "warning_only", "payment_days",
                                   "infringed_provision", "issuer_authority", "platform_name",
                                   "signer", "signed_at")
"""Elements added after the first notices were issued: as immutable as the others, and digested only when set,
so the digest of a notice issued before them does not change (``models.notices.chain.elements_digest``)."""


class NoticeDelivery(SQLModel, table=True):
    """The delivery of one document of a notice to the offender, until its ciência."""

    __tablename__ = "notice_delivery"
    __table_args__ = (Index("ix_notice_delivery_state", "state"),)

    id: int | None = Field(default=None, primary_key=True)
    notice_id: int = Field(sa_column=Column(Integer, ForeignKey("notice.id"), nullable=False, index=True))
    document: DocumentKind = Field(sa_column=Column(_enum(DocumentKind, 16), nullable=False))
    filing_id: int | None = Field(default=None, sa_column=Column(Integer, ForeignKey("notice_filing.id")))
    state: DeliveryState = Field(sa_column=Column(_enum(DeliveryState, 16), nullable=False))
    staff_reason: StaffReason | None = Field(default=None, sa_column=Column(_enum(StaffReason)))
    outbox_key: str | None = Field(default=None, sa_column=Column(String(160)))
    sent_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    edital_published_on: dt.date | None = Field(default=None, sa_column=Column(Date))
    ciencia_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    ciencia_on: dt.date | None = Field(default=None, sa_column=Column(Date))
    ciencia_kind: CienciaKind | None = Field(default=None, sa_column=Column(_enum(CienciaKind, 16)))
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))


class NoticeFiling(SQLModel, table=True):
    """A defence, reclamação or recurso filed against a notice, and the decision on it."""

    __tablename__ = "notice_filing"

    id: int | None = Field(default=None, primary_key=True)
    notice_id: int = Field(sa_column=Column(Integer, ForeignKey("notice.id"), nullable=False, index=True))
    kind: FilingKind = Field(sa_column=Column(_enum(FilingKind, 16), nullable=False))
    text: str = Field(sa_column=Column(Text, nullable=False))
    person_id: int | None = Field(default=None, sa_column=Column(Integer, ForeignKey("person.id")))
    filed_by: str = Field(sa_column=Column(String(64), nullable=False))
    filed_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
    decided_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    decided_by: str | None = Field(default=None, sa_column=Column(String(64)))
    outcome: FilingOutcome | None = Field(default=None, sa_column=Column(_enum(FilingOutcome, 16)))
    decision_text: str | None = Field(default=None, sa_column=Column(Text))
    # Issue 18 §1: the decision's author (models.authorities.ActAuthor, as data), named on the decision; None on
    # decisions before it was recorded, and on a reclamação rejected by lapse (CP Art. 42).
    decider: dict[str, Any] | None = Field(default=None, sa_column=Column(JSONData))
    # Issue 18 "Done when": the decision as a PAdES-signed PDF of the issuing Prefeitura (models.notices.decision_pdf),
    # rendered once when decided; None on decisions given before this version ("unsigned, before this version") and
    # on a reclamação rejected by lapse (CP Art. 42), which no one decided.
    decision_pdf: bytes | None = Field(default=None, sa_column=Column(LargeBinary))
    decision_pdf_sha256: str | None = Field(default=None, sa_column=Column(String(64)))
    # CP Art. 40 §1: vista for final arguments, opened to each side in turn (the order BALCAO_CP_VISTA_ORDER
    # sets), 3 days each from the day it is opened; §2: 5 more days to decide after the last one.
    vista_first_on: dt.date | None = Field(default=None, sa_column=Column(Date))
    vista_second_on: dt.date | None = Field(default=None, sa_column=Column(Date))
    # CP Art. 42: the judgment converted into a diligência; while it is pending no Art. 42 appeal opens.
    diligencia_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    diligencia_text: str | None = Field(default=None, sa_column=Column(Text))
    diligencia_done_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    # L9784 Art. 6 par. único; L13460 Art. 12: a filing gets a receipt and a number, as a case does
    # (``DEF-2026-000001``, ``RCL-…``, ``RCS-…``); None on filings made before numbers were given.
    protocol: str | None = Field(default=None, sa_column=Column(String(16), unique=True))


class NoticeAttachment(SQLModel, table=True):
    """A file sent with a filing (CP Art. 38, 44: documents may be attached), kept in the database."""

    __tablename__ = "notice_attachment"

    id: int | None = Field(default=None, primary_key=True)
    person_id: int = Field(sa_column=Column(Integer, ForeignKey("person.id"), nullable=False, index=True))
    filing_id: int | None = Field(default=None, sa_column=Column(Integer, ForeignKey("notice_filing.id"),
                                                                  index=True))
    file_name: str = Field(sa_column=Column(String(128), nullable=False))
    mime_type: str = Field(sa_column=Column(String(48), nullable=False))
    size: int = Field(sa_column=Column(Integer, nullable=False))
    sha256: str = Field(sa_column=Column(String(64), nullable=False))
    content: bytes = Field(sa_column=Column(LargeBinary, nullable=False), repr=False)
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
    caption: str | None = Field(default=None, sa_column=Column(Text))
    """The text typed under the file (a photo's or a video's caption), as for a case's files."""


class NoticeOptIn(SQLModel, table=True):
    """A person's acceptance of electronic notification (one row per acceptance; revoking closes it)."""

    __tablename__ = "notice_optin"

    id: int | None = Field(default=None, primary_key=True)
    person_id: int = Field(sa_column=Column(Integer, ForeignKey("person.id"), nullable=False, index=True))
    terms_version: str = Field(sa_column=Column(String(16), nullable=False))
    cpf: str | None = Field(default=None, sa_column=Column(String(11), index=True))
    accepted_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
    revoked_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))


class NoticeEvent(SQLModel, table=True):
    """One event of a notice, numbered in order (``seq``); rows are only ever inserted."""

    __tablename__ = "notice_event"
    __table_args__ = (UniqueConstraint("notice_id", "seq", name="uq_notice_event_seq"),)

    id: int | None = Field(default=None, primary_key=True)
    notice_id: int = Field(sa_column=Column(Integer, ForeignKey("notice.id"), nullable=False, index=True))
    seq: int = Field(sa_column=Column(Integer, nullable=False))
    at: dt.datetime = Field(sa_column=Column(UTCDateTime, nullable=False))
    kind: str = Field(sa_column=Column(String(48), nullable=False))
    actor: str = Field(sa_column=Column(String(64), nullable=False))
    data: dict[str, Any] = Field(default_factory=json_default, sa_column=Column(JSONData, nullable=False))


class NoticeEventsAreAppendOnly(Exception):
    """Something tried to change or delete a notice event."""


class NoticeIsImmutable(Exception):
    """Something tried to change an element of an issued notice, or to delete a notice."""


@event.listens_for(Session, "before_flush")
def _refuse_history_changes(session: Session, _flush_context: object, _instances: object) -> None:
    for obj in session.deleted:
        if isinstance(obj, NoticeEvent):
            raise NoticeEventsAreAppendOnly("notice events are append-only")
        if isinstance(obj, Notice):
            raise NoticeIsImmutable("notices are never deleted")
    for obj in session.dirty:
        if isinstance(obj, NoticeEvent) and session.is_modified(obj):
            raise NoticeEventsAreAppendOnly("notice events are append-only")
        if isinstance(obj, Notice):
            state = inspect(obj)
            if _is_first_number(state.attrs["number"].history.deleted):
                continue  # the issue itself: number and document are completed once the id is known
            for name in (*IMMUTABLE_FIELDS, *LATER_ELEMENTS):
                if state.attrs[name].history.has_changes():
                    raise NoticeIsImmutable(f"the element {name!r} of an issued notice cannot change")


def _is_first_number(previous: Any) -> bool:
    values = list(previous or ())
    return bool(values) and all(
        isinstance(value, str) and value.startswith(PROVISIONAL_NUMBER_PREFIX) for value in values
    )


PROVISIONAL_NUMBER_PREFIX = "tmp-"
"""A notice's number before its id is known (replaced in the same transaction)."""
