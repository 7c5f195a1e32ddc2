"""People (a Telegram user known to Balcão) and staff with their roles."""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass

from sqlalchemy import BigInteger, Column, Enum, String
from sqlmodel import Field, SQLModel, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.i18n import DEFAULT_LOCALE, negotiate_locale
from models.audit import record
from models.columns import UTCDateTime, utcnow

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


class StaffMember(SQLModel, table=True):
    """A municipal employee allowed to use the staff commands."""

    __tablename__ = "staff_member"

    id: int | None = Field(default=None, primary_key=True)
    telegram_user_id: int = Field(sa_column=Column(BigInteger, unique=True, nullable=False, index=True))
    name: str = Field(default="", sa_column=Column(String(128), nullable=False, default=""))
    role: Role = Field(sa_column=Column(Enum(Role, native_enum=False, length=16), nullable=False))
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
    person = (await session.exec(select(Person).where(Person.telegram_user_id == telegram_user_id))).first()
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
    if session.new or session.dirty:  # most updates change nothing: no write, no second read
        await session.commit()
        await session.refresh(person)
    role = await staff_role(session=session, telegram_user_id=telegram_user_id)
    assert person.id is not None
    return PersonView(
        id=person.id,
        telegram_user_id=person.telegram_user_id,
        chat_id=person.chat_id,
        first_name=person.first_name,
        locale=person.locale,
        staff_role=role,
        privacy_acknowledged=person.privacy_accepted_at is not None,
    )


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


async def staff_role(*, session: AsyncSession, telegram_user_id: int) -> Role | None:
    """The active staff role of a Telegram user, or None."""
    member = (
        await session.exec(
            select(StaffMember).where(
                StaffMember.telegram_user_id == telegram_user_id, StaffMember.active == True  # noqa: E712
            )
        )
    ).first()
    return member.role if member else None


async def require_role(*, session: AsyncSession, telegram_user_id: int, allowed: frozenset[Role]) -> Role:
    """Check, on every call, that a Telegram user is active staff with one of the allowed roles.

    Admins are always allowed.

    Raises:
        PermissionDenied: the user is not staff or has another role.
    """
    role = await staff_role(session=session, telegram_user_id=telegram_user_id)
    if role is None or (role not in allowed and role is not Role.ADMIN):
        raise PermissionDenied(f"user needs one of {sorted(allowed)}")
    return role


async def add_staff(
    *, session: AsyncSession, telegram_user_id: int, role: Role, name: str = "", actor: str
) -> StaffMember:
    """Add a staff member, or change the role of an existing one; audited.

    Args:
        session: database session (committed here).
        telegram_user_id: the employee's Telegram user id.
        role: the role to grant.
        name: display name.
        actor: who did it, for the audit log (e.g. ``"cli"``).
    """
    member = (
        await session.exec(select(StaffMember).where(StaffMember.telegram_user_id == telegram_user_id))
    ).first()
    if member is None:
        member = StaffMember(telegram_user_id=telegram_user_id, role=role, name=name)
        session.add(member)
        action = "staff.add"
    else:
        member.role = role
        member.active = True
        member.name = name or member.name
        action = "staff.update"
    await session.flush()
    await record(
        session=session,
        actor=actor,
        action=action,
        entity="staff_member",
        entity_id=str(member.id),
        details={"role": role.value, "telegram_user_id": telegram_user_id},
    )
    await session.commit()
    return member
