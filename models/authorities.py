"""Who is competent for each act, and the author every act names (issue 18 §1).

An administrative act is valid only when done by the authority the law gives the power to (Lei 9.784/1999
Art. 11: competence cannot be waived). Each municipality names, per kind of act, the office and the staff role
(cargo) that performs it (``core.municipalities.Authorities``); a staff member holds that competence as a
:class:`StaffAuthority` row, with the office, and the designation act when the law asks for one (CP Art. 12:
"Agente para esse fim designado": portaria, number and date). :func:`competent_author` is the one check every
entry point goes through; it returns the :class:`ActAuthor` the act then names (name, role, office, matrícula,
designation).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import Column, Date, ForeignKey, Integer, String
from sqlmodel import Field, SQLModel, col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_, Translator
from core.municipalities import ACT_KINDS, ActKind, MunicipalityConfig
from models.audit import record
from models.columns import UTCDateTime, utcnow
from models.invalid_input import InvalidInput
from models.people import StaffMember


class StaffAuthority(SQLModel, table=True):
    """A staff member's competence for one kind of act, with the office and the designation act."""

    __tablename__ = "staff_authority"

    id: int | None = Field(default=None, primary_key=True)
    staff_member_id: int = Field(sa_column=Column(Integer, ForeignKey("staff_member.id"), nullable=False,
                                                  index=True))
    act: str = Field(sa_column=Column(String(24), nullable=False))
    municipality: str = Field(
        sa_column=Column(String(40), ForeignKey("municipality.slug"), nullable=False, index=True),
        description="Where the competence is held: the office is that Prefeitura's (CF Art. 30 I).",
    )
    office: str = Field(sa_column=Column(String(160), nullable=False))
    title: str = Field(sa_column=Column(String(160), nullable=False))
    designation_kind: str = Field(default="", sa_column=Column(String(32), nullable=False, default=""))
    designation_number: str = Field(default="", sa_column=Column(String(32), nullable=False, default=""))
    designation_on: dt.date | None = Field(default=None, sa_column=Column(Date))
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
    revoked_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))


class NotCompetent(InvalidInput):
    """The staff member is not the competent authority for this act, or is impeded; ``citation`` names the law."""

    def __init__(self, message: str, *, citation: str, **params: Any) -> None:
        super().__init__(message, **params)
        self.citation = citation

    def render(self, tr: Translator) -> str:
        """The reason in the reader's language, followed by the provision."""
        return f"{super().render(tr)} ({self.citation})" if self.citation else super().render(tr)


@dataclass(frozen=True, slots=True)
class ActAuthor:
    """The author an act names: who, in which role and office, with which registration and designation."""

    telegram_user_id: int
    name: str
    title: str
    office: str
    registration: str
    designation_kind: str = ""
    designation_number: str = ""
    designation_on: str = ""  # ISO date, or empty

    def as_data(self) -> dict[str, Any]:
        """The author as recorded on the act (JSON)."""
        return asdict(self)

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> ActAuthor:
        """The author recorded on an act."""
        return cls(**{key: data.get(key, "") for key in cls.__dataclass_fields__})

    def line(self, tr: Translator) -> str:
        """The author in one line, in the reader's language.

        ``Inês Fiscal, Agente fiscal designado, Departamento de Fiscalização, matrícula nº 1234, Portaria nº 12/2026,
        de 02/01/2026``.
        """
        parts = [self.name, self.title, self.office]
        if self.registration:
            parts.append(tr._("registration no. {number}").format(number=self.registration))
        if self.designation_kind:
            designation = tr._("{kind} no. {number}").format(kind=self.designation_kind,
                                                            number=self.designation_number)
            if self.designation_on:
                designation = tr._("{act}, of {date}").format(
                    act=designation, date=tr.short_date(dt.date.fromisoformat(self.designation_on)))
            parts.append(designation)
        return ", ".join(part for part in parts if part)


def _author(member: StaffMember, held: StaffAuthority) -> ActAuthor:
    return ActAuthor(
        telegram_user_id=member.telegram_user_id, name=member.name, title=held.title, office=held.office,
        registration=member.registration, designation_kind=held.designation_kind,
        designation_number=held.designation_number,
        designation_on=held.designation_on.isoformat() if held.designation_on else "",
    )


async def authorities_of(*, session: AsyncSession, staff_member_id: int) -> list[StaffAuthority]:
    """The competences a staff member holds now, in the order they were granted."""
    return list((await session.exec(
        select(StaffAuthority).where(StaffAuthority.staff_member_id == staff_member_id,
                                     col(StaffAuthority.revoked_at).is_(None))
        .order_by(col(StaffAuthority.id))
    )).all())


async def grant_authority(
    *, session: AsyncSession, member: StaffMember, act: str, municipality: MunicipalityConfig, actor: str,
    designation_kind: str = "", designation_number: str = "", designation_on: dt.date | None = None,
    now: dt.datetime | None = None,
) -> StaffAuthority:
    """Give a staff member the competence for one kind of act, in the office the municipality sets; audited.

    A competence held before for the same act in the same municipality is replaced (its row is kept, revoked).

    Raises:
        InvalidInput: an unknown act, no name or registration number, or (when the law asks for one, CP Art. 12)
            no designation act with its number and date.
    """
    moment = now or utcnow()
    if act not in ACT_KINDS:
        raise InvalidInput(N_("Unknown kind of act {act}: use one of {acts}."), act=act, acts=", ".join(ACT_KINDS))
    rule = municipality.competent.of(act)
    if not member.name.strip() or not member.registration.strip():
        raise InvalidInput(N_("An act names its author: give the staff member's name and registration number "
                              "(matrícula) first."))
    if rule.designation_required and not (designation_kind.strip() and designation_number.strip()
                                          and designation_on is not None):
        raise NotCompetent(N_("The {title} acts only when designated for it: give the designation act (e.g. "
                              "Portaria), its number and its date."), citation=rule.article, title=rule.title)
    assert member.id is not None
    for held in await authorities_of(session=session, staff_member_id=member.id):
        if held.act == act and held.municipality == municipality.slug:
            held.revoked_at = moment
            session.add(held)
    held = StaffAuthority(staff_member_id=member.id, act=act, municipality=municipality.slug, office=rule.office,
                          title=rule.title, designation_kind=designation_kind.strip()[:32],
                          designation_number=designation_number.strip()[:32], designation_on=designation_on,
                          created_at=moment)
    session.add(held)
    await session.flush()
    await record(session=session, actor=actor, action="staff.authority", entity="staff_member",
                 entity_id=str(member.id),
                 details={"act": act, "municipality": municipality.slug, "office": rule.office, "title": rule.title,
                          "designation": f"{designation_kind} {designation_number}".strip()})
    await session.commit()
    return held


async def competent_author(
    *, session: AsyncSession, telegram_user_id: int, municipality: MunicipalityConfig, act: ActKind,
    refusal: str = N_("Only the {title} ({office}) may do this act, and you do not hold that role here."),
) -> ActAuthor:
    """The author of an act: the caller, if they hold the competence for it in the municipality now.

    Raises:
        NotCompetent: the caller holds no such competence there (citing the provision that gives it).
    """
    rows = (await session.exec(
        select(StaffMember, StaffAuthority)
        .join(StaffAuthority, col(StaffAuthority.staff_member_id) == StaffMember.id)
        .where(StaffMember.telegram_user_id == telegram_user_id, StaffMember.active == True,  # noqa: E712
               col(StaffMember.municipality).is_(None) | (col(StaffMember.municipality) == municipality.slug),
               StaffAuthority.act == act, StaffAuthority.municipality == municipality.slug,
               col(StaffAuthority.revoked_at).is_(None))
        .order_by(col(StaffMember.municipality).is_(None), col(StaffAuthority.id).desc())
    )).first()
    rule = municipality.competent.of(act)
    if rows is None:
        raise NotCompetent(refusal, citation=rule.article, title=rule.title, office=rule.office)
    member, held = rows
    return _author(member, held)


async def holders_of(*, session: AsyncSession, municipality: str, act: ActKind) -> list[int]:
    """The Telegram ids of the active staff who hold the competence for ``act`` in ``municipality`` now."""
    rows = (await session.exec(
        select(StaffMember.telegram_user_id)
        .join(StaffAuthority, col(StaffAuthority.staff_member_id) == StaffMember.id)
        .where(StaffMember.active == True,  # noqa: E712
               col(StaffMember.municipality).is_(None) | (col(StaffMember.municipality) == municipality),
               StaffAuthority.act == act, StaffAuthority.municipality == municipality,
               col(StaffAuthority.revoked_at).is_(None))
        .distinct().order_by(col(StaffMember.telegram_user_id))
    )).all()
    return list(rows)


@dataclass(frozen=True, slots=True)
class StaffRow:
    """A staff member of a municipality as the console's staff page lists them, with their competences."""

    member: StaffMember
    authorities: tuple[StaffAuthority, ...]


async def staff_of_municipalities(*, session: AsyncSession, municipalities: tuple[str, ...]) -> list[StaffRow]:
    """The active staff holding a role in one of ``municipalities`` (or in every one), with their competences there."""
    members = (await session.exec(
        select(StaffMember).where(StaffMember.active == True,  # noqa: E712
                                  col(StaffMember.municipality).is_(None)
                                  | col(StaffMember.municipality).in_(municipalities))
        .order_by(col(StaffMember.name), col(StaffMember.id))
    )).all()
    rows = []
    for member in members:
        assert member.id is not None
        held = [row for row in await authorities_of(session=session, staff_member_id=member.id)
                if row.municipality in municipalities]
        rows.append(StaffRow(member=member, authorities=tuple(held)))
    return rows


async def ombudsman_author(*, session: AsyncSession, member: StaffMember, municipality: MunicipalityConfig
                           ) -> ActAuthor:
    """The author an ombudsman answer names: the Ouvidor (L13460 Art. 13–14), as the file sets them.

    The ``ombudsman`` staff role is the Ouvidor's: a member holding it answers (its role check is the
    competence); a recorded ``ouvidoria`` competence adds its designation act.
    """
    assert member.id is not None
    held = next((row for row in await authorities_of(session=session, staff_member_id=member.id)
                 if row.act == "ouvidoria" and row.municipality == municipality.slug), None)
    if held is not None:
        return _author(member, held)
    rule = municipality.competent.of("ouvidoria")
    return ActAuthor(telegram_user_id=member.telegram_user_id, name=member.name, title=rule.title, office=rule.office,
                     registration=member.registration)
