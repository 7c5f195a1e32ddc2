"""Read-only views of cases, as each audience may see them.

- The author sees their own case in full (:func:`author_view` with ``may_see_author=True``).
- Staff see a case and its author only where :mod:`models.cases.access` says their role reads it (a restricted
  ombudsman case is the Ombudsman's alone, L13460 Art. 10 §7).
- Nothing here is ever sent to the accused: the hand-over to the penalty notices
  (:class:`models.cases.handling.NoticeHandover`) carries no author field at all.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from models.cases.access import Reading, reading
from models.cases.legal_basis import by_law
from models.cases.limits import ALLOWED_TYPES
from models.cases.media import EXTENSIONS
from models.cases.tables import (
    FINAL_STATUSES,
    Case,
    CaseAttachment,
    CaseAuthor,
    CaseEvent,
    CaseKind,
    CaseStatus,
    EventKind,
    OmbudsmanType,
    Outcome,
    Relation,
    Satisfaction,
)
from models.drivers.identifiers import mask_cpf
from models.people import Role


@dataclass(frozen=True, slots=True)
class AuthorView:
    """The author as a viewer may see them: in full, or only the pseudonym (``restricted``)."""

    restricted: bool
    pseudonym: str
    name: str | None = None
    profession: str | None = None
    address: str | None = None
    cpf_masked: str | None = None

    @property
    def label(self) -> str:
        """The name, or ``#7F3A`` when restricted (the chat adds a translated "Author … (identity restricted)")."""
        return self.name if self.name is not None else f"#{self.pseudonym}"


@dataclass(frozen=True, slots=True)
class EventView:
    """One line of the timeline."""

    at: dt.datetime
    kind: EventKind
    status: CaseStatus
    note: str | None


@dataclass(frozen=True, slots=True)
class AttachmentView:
    """A file's description (the bytes are fetched separately)."""

    id: int
    file_name: str
    mime_type: str
    size: int
    sha256: str
    caption: str | None = None  # what the author typed under it (the chat's caption)


@dataclass(frozen=True, slots=True)
class CaseView:
    """Everything about a case a viewer may see."""

    id: int
    protocol: str
    kind: CaseKind
    ombudsman_type: OmbudsmanType | None
    status: CaseStatus
    handling_role: Role
    summary: str
    infraction_code: str | None
    legal_refs: tuple[str, ...]
    accused: str | None
    vehicle_ref: str | None
    place_text: str | None
    latitude: float | None
    longitude: float | None
    occurred_on: dt.date | None
    evidence_note: str | None
    learned_how: str | None
    relation: Relation | None
    relation_ended_on: dt.date | None
    identity_restricted: bool
    received_at: dt.datetime
    due_on: dt.date
    extended: bool
    extension_reason: str | None
    complement_question: str | None
    complement_due_on: dt.date | None
    complement_answer: str | None
    assigned_staff_id: int | None
    assigned_staff_name: str | None
    outcome: Outcome | None
    outcome_reason: str | None
    answer: str | None
    satisfaction: Satisfaction | None
    author: AuthorView
    events: tuple[EventView, ...]
    attachments: tuple[AttachmentView, ...]

    @property
    def is_open(self) -> bool:
        """Whether the case still awaits a decision or answer."""
        return self.status not in FINAL_STATUSES

    @property
    def evidence_missing(self) -> bool:
        """A representação with neither a file nor a note of where the evidence is (CP Art. 31).

        Only a request from an Open311 client system is filed so; the clerk asks for the evidence
        (``docs/LEGAL-CHOICES.md``, Open311 without evidence).
        """
        # CP Art. 31: "será acompanhada de provas ou indicará os elementos deste"
        return self.kind is CaseKind.REPRESENTATION and not self.evidence_note and not self.attachments

    @property
    def legal_basis(self) -> tuple[str, ...]:
        """The references to show: each law once, followed by its articles (:func:`models.cases.legal_basis.by_law`)."""
        return by_law(self.legal_refs)


@dataclass(frozen=True, slots=True)
class QueueItem:
    """A line of the staff queue."""

    id: int
    protocol: str
    kind: CaseKind
    ombudsman_type: OmbudsmanType | None
    status: CaseStatus
    due_on: dt.date
    days_left: int
    complement_due_on: dt.date | None
    complement_lapsed: bool
    assigned_staff_id: int | None
    assigned_to_me: bool
    summary: str


def attachment_name(protocol: str, number: int, mime_type: str) -> str:
    """The name staff and the API see for a case's file: ``OUV-2026-000012-anexo-2.jpg``, never the sender's own."""
    extension = ALLOWED_TYPES[mime_type][1] if mime_type in ALLOWED_TYPES else EXTENSIONS.get(mime_type, "bin")
    return f"{protocol}-anexo-{number}.{extension}"


def may_see_author(case: Case, viewer_role: Role | None) -> bool:
    """Whether a staff member of ``viewer_role`` may see who filed the case: whoever reads it.

    (:func:`models.cases.access.reading`; CP Art. 31 makes the author's identification part of the petition, and a
    restricted ombudsman author is the Ombudsman's alone, L13460 Art. 10 §7).
    """
    return viewer_role is not None and reading(case, viewer_role) is Reading.FULL


def author_view(author: CaseAuthor, *, visible: bool) -> AuthorView:
    """The author in full, or only the pseudonym."""
    if not visible:
        return AuthorView(restricted=True, pseudonym=author.pseudonym)
    return AuthorView(
        restricted=False,
        pseudonym=author.pseudonym,
        name=author.name,
        profession=author.profession,
        address=author.address,
        cpf_masked=mask_cpf(author.cpf) if author.cpf else None,
    )


def case_view(
    case: Case,
    *,
    author: AuthorView,
    events: list[CaseEvent],
    attachments: list[CaseAttachment],
    assigned_staff_name: str | None,
) -> CaseView:
    """Assemble the view of a case (the caller decides how the author is shown)."""
    assert case.id is not None
    return CaseView(
        id=case.id,
        protocol=case.protocol,
        kind=case.kind,
        ombudsman_type=case.ombudsman_type,
        status=case.status,
        handling_role=case.handling_role,
        summary=case.summary,
        infraction_code=case.infraction_code,
        legal_refs=tuple(case.legal_refs),
        accused=case.accused,
        vehicle_ref=case.vehicle_ref,
        place_text=case.place_text,
        latitude=case.latitude,
        longitude=case.longitude,
        occurred_on=case.occurred_on,
        evidence_note=case.evidence_note,
        learned_how=case.learned_how,
        relation=case.relation,
        relation_ended_on=case.relation_ended_on,
        identity_restricted=case.identity_restricted,
        received_at=case.received_at,
        due_on=case.due_on,
        extended=case.extended_at is not None,
        extension_reason=case.extension_reason,
        complement_question=case.complement_question,
        complement_due_on=case.complement_due_on,
        complement_answer=case.complement_answer,
        assigned_staff_id=case.assigned_staff_id,
        assigned_staff_name=assigned_staff_name,
        outcome=case.outcome,
        outcome_reason=case.outcome_reason,
        answer=case.answer,
        satisfaction=case.satisfaction,
        author=author,
        events=tuple(EventView(at=e.at, kind=e.kind, status=e.status, note=e.note) for e in events),
        attachments=tuple(
            AttachmentView(id=a.id or 0, file_name=attachment_name(case.protocol, n, a.mime_type),
                           mime_type=a.mime_type, size=a.size, sha256=a.sha256, caption=a.caption)
            for n, a in enumerate(attachments, start=1)
        ),
    )
