"""People (a Telegram user known to Balcão) and staff with their roles."""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass
from functools import cache
from typing import Any

from sqlalchemy import BigInteger, Column, Enum, ForeignKey, String, UniqueConstraint, and_, bindparam
from sqlmodel import Field, SQLModel, col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import DEFAULT_LOCALE, N_, negotiate_locale
from models.audit import record
from models.columns import UTCDateTime, utcnow
from models.invalid_input import InvalidInput

DEFAULT_BOT_KEY = "default"
"""``Person.bot_key`` of people who talk to the deployment's default bot (see ``bot.bots``)."""


class Person(SQLModel, table=True):
    """A Telegram user who talked to the bot. Drivers and citizens are both people; so are staff."""

    __tablename__ = "person"

    id: int | None = Field(default=None, primary_key=True)
    telegram_user_id: int = Field(sa_column=Column(BigInteger, unique=True, nullable=False, index=True))
    chat_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    first_name: str = Field(default="", sa_column=Column(String(128), nullable=False, default=""))
    locale: str = Field(default=DEFAULT_LOCALE, sa_column=Column(String(8), nullable=False))
    locale_chosen: bool = Field(default=False, description="True once the person picked a language.")
    bot_key: str = Field(
        default=DEFAULT_BOT_KEY,
        sa_column=Column(String(64), nullable=False, default=DEFAULT_BOT_KEY, server_default=DEFAULT_BOT_KEY),
        description="The bot this person talks to (``default`` or a municipality's own): what Balcão sends them "
        "on its own goes out through it.",
    )
    municipality: str | None = Field(
        default=None, sa_column=Column(String(40), ForeignKey("municipality.slug"), index=True),
        description="The city the person chose (\"Minha cidade\"); a linked driver's registration wins over it.",
    )
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
    privacy_accepted_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    erased_at: dt.datetime | None = Field(
        default=None,
        sa_column=Column(UTCDateTime),
        description="Set when the person asked for erasure (LGPD Art. 18 VI); identifying fields are blanked.",
    )


class Role(enum.StrEnum):
    """What a staff member may do. Every staff action checks the role on each call."""

    ADMIN = "admin"
    CLERK = "clerk"
    INSPECTOR = "inspector"
    OMBUDSMAN = "ombudsman"


ROLE_LABELS: dict[Role, str] = {
    Role.ADMIN: N_("Administrator"),
    Role.CLERK: N_("Clerk (representations and reports)"),
    Role.INSPECTOR: N_("Inspector (penalty notices)"),
    Role.OMBUDSMAN: N_("Ombudsman (ouvidor)"),
}
"""A role by its name, as people read it (the code words ``clerk``, ``ombudsman`` are for machines)."""


NAME_MAX = 128
"""The longest staff member's name (its column's size)."""
REGISTRATION_MAX = 32
"""The longest registration number (matrícula; its column's size)."""


class StaffMember(SQLModel, table=True):
    """A municipal employee allowed to use the staff commands."""

    __tablename__ = "staff_member"
    __table_args__ = (UniqueConstraint("telegram_user_id", "municipality", name="uq_staff_member_user_municipality"),)

    id: int | None = Field(default=None, primary_key=True)
    telegram_user_id: int = Field(sa_column=Column(BigInteger, nullable=False, index=True))
    municipality: str | None = Field(
        default=None, sa_column=Column(String(40), ForeignKey("municipality.slug"), index=True),
        description="Where the role is held; NULL: in every municipality of the deployment (its operator).",
    )
    name: str = Field(default="", sa_column=Column(String(NAME_MAX), nullable=False, default=""))
    role: Role = Field(sa_column=Column(Enum(Role, native_enum=False, length=16), nullable=False))
    registration: str = Field(
        default="", sa_column=Column(String(REGISTRATION_MAX), nullable=False, default="", server_default=""),
        description="The employee's registration number (matrícula), named on every act they sign.",
    )
    active: bool = True
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))


class PermissionDenied(Exception):
    """The caller is not staff, or not of a role allowed to do this."""


@dataclass(frozen=True, slots=True)
class PersonView:
    """What handlers need to know about the person behind an update."""

    id: int
    telegram_user_id: int
    chat_id: int
    first_name: str
    locale: str
    staff_role: Role | None
    privacy_acknowledged: bool = False
    municipality: str | None = None
    municipality_chosen: bool = False
    municipality_registered: bool = False

    @property
    def is_staff(self) -> bool:
        """Whether the person is an active staff member."""
        return self.staff_role is not None


async def ensure_person(
    *,
    session: AsyncSession,
    telegram_user_id: int,
    chat_id: int,
    first_name: str,
    language_code: str | None,
    bot_key: str = DEFAULT_BOT_KEY,
) -> PersonView:
    """Find or create the person behind a Telegram update.

    A new person gets the locale negotiated from Telegram's ``language_code``; a person who chose a language
    with /idioma keeps it.

    Args:
        session: database session (committed here).
        telegram_user_id: Telegram's user id.
        chat_id: the private chat to write to.
        first_name: Telegram first name (display only).
        language_code: Telegram's IETF language tag, if any.
        bot_key: the bot the update came through; messages Balcão sends the person later go through it.

    Returns:
        The person as handlers see it, with the staff role if any.
    """
    # One statement for a known person (issue 21: an update's budget before its handler): the person, their
    # linked driver's municipality and every active staff role, together; more only when something changed.
    person, registered, roles = await _person_with_places(session=session, telegram_user_id=telegram_user_id)
    if person is None:
        person = Person(
            telegram_user_id=telegram_user_id,
            chat_id=chat_id,
            first_name=first_name[:128],
            locale=negotiate_locale(language_code),
            bot_key=bot_key,
        )
        session.add(person)
    else:
        if person.bot_key != bot_key:
            person.bot_key = bot_key
        if not person.locale_chosen and person.erased_at is None and person.locale != (
            locale := negotiate_locale(language_code)
        ):
            person.locale = locale
        if person.chat_id != chat_id:
            person.chat_id = chat_id
        if person.erased_at is None and person.first_name != first_name[:128]:
            person.first_name = first_name[:128]
    if session.new or session.dirty:  # most updates change nothing: no write
        await session.commit()  # the session keeps its objects after commit (expire_on_commit=False)
    assert person.id is not None
    municipality = registered or person.municipality or _only_place(roles)
    return PersonView(
        id=person.id,
        telegram_user_id=person.telegram_user_id,
        chat_id=person.chat_id,
        first_name=person.first_name,
        locale=person.locale,
        staff_role=_role_in(roles, municipality),
        privacy_acknowledged=person.privacy_accepted_at is not None,
        municipality=municipality,
        municipality_chosen=person.municipality is not None,
        municipality_registered=registered is not None,
    )


async def _person_with_places(
    *, session: AsyncSession, telegram_user_id: int
) -> tuple[Person | None, str | None, dict[str | None, Role]]:
    """The person of a Telegram id, their driver registration's municipality and their active roles, in one query.

    A staff member may have no person row yet (added before their first message): their roles then come from a
    second query, once, when the person is created.
    """
    rows = (await session.exec(_person_with_places_statement(), params={"telegram_user_id": telegram_user_id})).all()
    if not rows:
        return None, None, await staff_roles(session=session, telegram_user_id=telegram_user_id)
    roles: dict[str | None, Role] = {place: Role(role) for _, _, place, role in rows if role is not None}
    return rows[0][0], rows[0][1], roles


@cache
def _person_with_places_statement() -> Any:
    """The SELECT of :func:`_person_with_places`, built once per process with the Telegram id as a parameter.

    Building it per update (the column comparisons, the join, the subquery) and deriving its cache key cost more
    CPU than running it (issue 21: about 40 % of ``ensure_person`` under py-spy); one statement object keeps its
    cache key memoised, so SQLAlchemy finds its compiled form at once.
    """
    from models.drivers.tables import Driver  # the registry imports people; import it only when asked

    registered = (
        select(Driver.municipality).where(Driver.person_id == Person.id).limit(1).scalar_subquery()
    )
    return (
        select(Person, registered, StaffMember.municipality, StaffMember.role)
        .outerjoin(StaffMember, and_(col(StaffMember.telegram_user_id) == Person.telegram_user_id,
                                     col(StaffMember.active) == True))  # noqa: E712
        .where(Person.telegram_user_id == bindparam("telegram_user_id", type_=BigInteger))
    )


def _only_place(roles: dict[str | None, Role]) -> str | None:
    """The one municipality where someone holds roles, or None (none, several, or deployment-wide only)."""
    places = {place for place in roles if place is not None}
    return places.pop() if len(places) == 1 else None


def _role_in(roles: dict[str | None, Role], municipality: str | None) -> Role | None:
    """The role that counts in ``municipality`` among someone's roles (see :func:`staff_role`)."""
    if None in roles:
        return roles[None]
    if municipality == ANY_MUNICIPALITY:
        return next(iter(sorted(roles.values(), key=lambda role: role is not Role.ADMIN)), None)
    return roles.get(municipality) if municipality is not None else None


async def _registration_municipality(*, session: AsyncSession, person_id: int) -> str | None:
    from models.drivers.tables import Driver  # the registry imports people; import it only when asked

    return (await session.exec(select(Driver.municipality).where(Driver.person_id == person_id))).first()


async def person_municipality(*, session: AsyncSession, person: Person) -> str | None:
    """A person's municipality: a linked driver's registration, else the city they chose, else their staff role's.

    ``None`` when none of these says (a deployment serving several then asks the person, "Minha cidade").
    """
    assert person.id is not None
    driver = await _registration_municipality(session=session, person_id=person.id)
    if driver is not None:
        return driver
    if person.municipality is not None:
        return person.municipality
    return _only_place(await staff_roles(session=session, telegram_user_id=person.telegram_user_id))


async def choose_municipality(*, session: AsyncSession, person_id: int, municipality: str) -> None:
    """Store the city a person chose ("Minha cidade"); a linked driver's registration still wins over it."""
    person = await session.get(Person, person_id)
    if person is None:
        raise LookupError(f"person {person_id} not found")
    person.municipality = municipality
    await record(session=session, actor=f"person:{person_id}", action="person.municipality", entity="person",
                 entity_id=str(person_id), details={"municipality": municipality})
    await session.commit()


async def acknowledge_privacy(*, session: AsyncSession, person_id: int) -> dt.datetime:
    """Record that the person read the privacy notice (LGPD Art. 9: clear information on the processing).

    Public services rest on LGPD Art. 7 III and Art. 23, not on consent; this records that the person was told.
    The first acknowledgement is kept; pressing again changes nothing.

    Returns:
        When the person first acknowledged it.
    """
    person = await session.get(Person, person_id)
    if person is None:
        raise LookupError(f"person {person_id} not found")
    if person.privacy_accepted_at is None:
        person.privacy_accepted_at = utcnow()
        await record(session=session, actor=f"person:{person_id}", action="privacy.acknowledge", entity="person",
                     entity_id=str(person_id))
        await session.commit()
    return person.privacy_accepted_at


async def set_locale(*, session: AsyncSession, person_id: int, locale: str) -> str:
    """Store the language a person picked (/idioma) and return the normalised locale."""
    person = await session.get(Person, person_id)
    if person is None:
        raise LookupError(f"person {person_id} not found")
    person.locale = negotiate_locale(locale)
    person.locale_chosen = True
    await session.commit()
    return person.locale


ANY_MUNICIPALITY = "*"
"""``municipality`` argument of :func:`staff_role`: a role held in any municipality (an entry point's first check;
the object acted on is then checked in its own municipality)."""


async def staff_roles(*, session: AsyncSession, telegram_user_id: int) -> dict[str | None, Role]:
    """Every active role of a Telegram user by municipality (``None``: held in every municipality)."""
    members = (
        await session.exec(
            select(StaffMember).where(
                StaffMember.telegram_user_id == telegram_user_id, StaffMember.active == True  # noqa: E712
            )
        )
    ).all()
    return {member.municipality: member.role for member in members}


async def staff_role(*, session: AsyncSession, telegram_user_id: int, municipality: str | None) -> Role | None:
    """The active staff role of a Telegram user in a municipality, or None.

    A role is held in one municipality (CF Art. 30: each city hall has its own staff): an admin of Sapezal is
    nothing in Nova Xavantina. A role held deployment-wide (``municipality`` NULL) counts in every one.

    Args:
        session: database session.
        telegram_user_id: the user.
        municipality: the municipality's slug; ``None`` when the context has none (only deployment-wide roles
            count), :data:`ANY_MUNICIPALITY` for a role held anywhere.
    """
    return _role_in(await staff_roles(session=session, telegram_user_id=telegram_user_id), municipality)


async def require_role(
    *, session: AsyncSession, telegram_user_id: int, allowed: frozenset[Role], municipality: str | None
) -> Role:
    """Check, on every call, that a Telegram user is active staff with one of the allowed roles in a municipality.

    Admins are always allowed.

    Raises:
        PermissionDenied: the user is not staff there or has another role.
    """
    role = await staff_role(session=session, telegram_user_id=telegram_user_id, municipality=municipality)
    if role is None or (role not in allowed and role is not Role.ADMIN):
        raise PermissionDenied(f"user needs one of {sorted(allowed)}")
    return role


async def staff_municipalities(*, session: AsyncSession, telegram_user_id: int, allowed: frozenset[Role]
                               ) -> frozenset[str] | None:
    """Where a user may act with one of ``allowed`` (admins always may); ``None``: in every municipality."""
    roles = await staff_roles(session=session, telegram_user_id=telegram_user_id)
    fits = {place for place, role in roles.items() if role in allowed or role is Role.ADMIN}
    return None if None in fits else frozenset(place for place in fits if place is not None)


async def add_staff(
    *, session: AsyncSession, telegram_user_id: int, role: Role, name: str = "", actor: str,
    municipality: str | None = None, registration: str = "",
) -> StaffMember:
    """Add a staff member, or change the role of an existing one, in a municipality; audited.

    Args:
        session: database session (committed here).
        telegram_user_id: the employee's Telegram user id.
        role: the role to grant.
        name: display name.
        actor: who did it, for the audit log (e.g. ``"cli"``).
        municipality: where the role is held; ``None``: in every municipality of the deployment.
        registration: the registration number (matrícula); empty keeps the one recorded.

    Raises:
        InvalidInput: a name longer than :data:`NAME_MAX` or a registration longer than :data:`REGISTRATION_MAX`
            characters (their columns' sizes: PostgreSQL refuses longer ones, SQLite would keep them whole).
    """
    if len(name.strip()) > NAME_MAX or len(registration.strip()) > REGISTRATION_MAX:
        raise InvalidInput(N_("Write the name in at most {name} characters and the registration number in at "
                              "most {registration}."), fields=("name", "registration"), name=NAME_MAX,
                           registration=REGISTRATION_MAX)
    member = (
        await session.exec(select(StaffMember).where(StaffMember.telegram_user_id == telegram_user_id,
                                                     StaffMember.municipality == municipality))
    ).first()
    if member is None:
        member = StaffMember(telegram_user_id=telegram_user_id, role=role, name=name, municipality=municipality,
                             registration=registration.strip())
        session.add(member)
        action = "staff.add"
    else:
        member.role = role
        member.active = True
        member.name = name or member.name
        member.registration = registration.strip() or member.registration
        action = "staff.update"
    await session.flush()
    await record(
        session=session,
        actor=actor,
        action=action,
        entity="staff_member",
        entity_id=str(member.id),
        details={"role": role.value, "telegram_user_id": telegram_user_id, "municipality": municipality},
    )
    await session.commit()
    return member
