"""Linking a driver's registration to their Telegram account, and unlinking it (/vincular, /desvincular).

Two ways to prove who you are:

- **Your own contact.** The driver shares their contact with Telegram's "share my phone number" button (a
  contact whose ``user_id`` is not the sender's is refused by the handler), the number is matched to the
  registry, and the driver types the first three digits of their CPF (the masked CPF ``***.456.789-**`` never
  shows them).
- **A one-time code** that staff generate (``python -m bot driver link-code CPF`` or the staff API) and give to
  the driver, as a deep link ``https://t.me/<bot>?start=link-<code>`` or typed after "I have a code". Codes are
  random (50 bits), single use, expire after ``BALCAO_DRIVER_LINK_CODE_HOURS`` (72 h) and only their SHA-256 is
  stored.

Wrong answers (CPF digits or codes) are limited to :data:`MAX_FAILED_ATTEMPTS` per person in 24 hours, counted
in the database so a restart does not reset them; comparisons are constant-time. A person can be both a driver
and a citizen: linking changes nothing else about them. When a driver links a new account, the link moves and
the old account is told (a driver may change phones); unlinking stops the reminders.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from enum import StrEnum

from sqlalchemy import func, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import Municipality
from models.audit import record
from models.columns import utcnow
from models.drivers.identifiers import cpf_confirmation, mask_cpf, parse_cpf
from models.drivers.tables import Driver, LinkAttempt, LinkCode
from models.outbox import OutboxMessage, OutboxStatus, enqueue

MAX_FAILED_ATTEMPTS = 5
"""Wrong CPF digits or codes a person may send in :data:`ATTEMPT_WINDOW` before linking is refused."""
ATTEMPT_WINDOW = dt.timedelta(hours=24)
CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Crockford's base 32: no I, L, O or U, so a code read aloud or typed by hand is not mistaken."""
CODE_LENGTH = 10
DEEP_LINK_PREFIX = "link-"
LINK_MOVED_KIND = "driver.link_moved"


class LinkOutcome(StrEnum):
    """What happened to a linking attempt."""

    LINKED = "linked"
    ALREADY_YOURS = "already_yours"  # this account was already linked to that driver
    OTHER_DRIVER = "other_driver"  # this account is linked to another driver: unlink first
    WRONG = "wrong"  # wrong CPF digits or unknown code
    EXPIRED = "expired"  # the code expired
    USED = "used"  # the code was already used
    TOO_MANY = "too_many"  # too many wrong answers in 24 hours


@dataclass(frozen=True, slots=True)
class LinkResult:
    """The outcome of a linking attempt.

    Attributes:
        outcome: what happened.
        driver_id: the driver linked (for ``LINKED`` and ``ALREADY_YOURS``).
        attempts_left: wrong answers still allowed in the window.
        previous_person_id: the account the link moved from, if any.
    """

    outcome: LinkOutcome
    driver_id: int | None = None
    attempts_left: int = MAX_FAILED_ATTEMPTS
    previous_person_id: int | None = None


@dataclass(frozen=True, slots=True)
class IssuedCode:
    """A new one-time link code, shown once to staff (only its hash is stored)."""

    code: str
    driver_id: int
    driver_name: str
    cpf_masked: str
    expires_at: dt.datetime

    @property
    def start_payload(self) -> str:
        """The ``/start`` payload of the deep link (``link-<code>``)."""
        return DEEP_LINK_PREFIX + self.code

    def deep_link(self, bot_username: str) -> str:
        """``https://t.me/<bot>?start=link-<code>``."""
        return f"https://t.me/{bot_username}?start={self.start_payload}"


class DriverNotFound(LookupError):
    """No driver with that CPF in the registry."""


def normalise_code(text: str) -> str:
    """A code as typed (spaces, dashes, lower case, O for 0, I or L for 1) in canonical form."""
    code = re.sub(r"[^0-9A-Za-z]", "", text).upper()
    return code.translate(str.maketrans("OIL", "011"))


def _hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


async def attempts_left(*, session: AsyncSession, person_id: int, now: dt.datetime) -> int:
    """How many wrong answers the person may still give in the current 24-hour window."""
    failed = (
        await session.exec(
            select(func.count())
            .select_from(LinkAttempt)
            .where(
                LinkAttempt.person_id == person_id,
                LinkAttempt.succeeded == False,  # noqa: E712
                col(LinkAttempt.at) > now - ATTEMPT_WINDOW,
            )
        )
    ).one()
    return max(0, MAX_FAILED_ATTEMPTS - int(failed))


async def drivers_with_phone(*, session: AsyncSession, phone: str) -> list[int]:
    """The drivers registered with this phone number (E.164, see ``identifiers.parse_phone``)."""
    return [
        driver_id
        for driver_id in (await session.exec(select(Driver.id).where(Driver.phone == phone))).all()
        if driver_id is not None
    ]


async def _failed(
    session: AsyncSession, person_id: int, method: str, now: dt.datetime, outcome: LinkOutcome
) -> LinkResult:
    session.add(LinkAttempt(person_id=person_id, at=now, method=method, succeeded=False))
    await session.commit()
    return LinkResult(outcome, attempts_left=await attempts_left(session=session, person_id=person_id, now=now))


async def _link(session: AsyncSession, driver: Driver, person_id: int, method: str, now: dt.datetime) -> LinkResult:
    assert driver.id is not None
    if driver.person_id == person_id:
        return LinkResult(LinkOutcome.ALREADY_YOURS, driver_id=driver.id)
    current = (await session.exec(select(Driver).where(Driver.person_id == person_id))).first()
    if current is not None:
        return LinkResult(LinkOutcome.OTHER_DRIVER, driver_id=current.id)
    previous = driver.person_id
    if previous is not None:
        driver.person_id = None
        await session.flush()
        await enqueue(
            session=session,
            person_id=previous,
            kind=LINK_MOVED_KIND,
            dedupe_key=f"{LINK_MOVED_KIND}:{driver.id}:{previous}:{now.isoformat()}",
            mandatory=True,
        )
    driver.person_id, driver.linked_at, driver.updated_at = person_id, now, now
    session.add(LinkAttempt(person_id=person_id, at=now, method=method, succeeded=True))
    await record(
        session=session,
        actor=f"person:{person_id}",
        action="driver.link",
        entity="driver",
        entity_id=str(driver.id),
        details={"method": method, "moved_from_person": previous} if previous else {"method": method},
    )
    await session.commit()
    return LinkResult(LinkOutcome.LINKED, driver_id=driver.id, previous_person_id=previous)


async def confirm_cpf_digits(
    *, session: AsyncSession, person_id: int, candidates: list[int], digits: str, now: dt.datetime
) -> LinkResult:
    """Link the person to the candidate driver whose CPF starts with ``digits`` (after a contact matched).

    Args:
        session: database session (committed here).
        person_id: the person who shared their own contact.
        candidates: the drivers registered with that phone number.
        digits: what the person typed (non-digits are ignored).
        now: the current time (aware).

    Returns:
        ``LINKED`` (or ``ALREADY_YOURS``/``OTHER_DRIVER``), ``WRONG`` with the attempts left, or ``TOO_MANY``.
    """
    if await attempts_left(session=session, person_id=person_id, now=now) == 0:
        return LinkResult(LinkOutcome.TOO_MANY, attempts_left=0)
    typed = re.sub(r"\D", "", digits).encode()
    drivers = (await session.exec(select(Driver).where(col(Driver.id).in_(candidates)))).all() if candidates else []
    match: Driver | None = None
    for driver in drivers:  # compare with every candidate, in constant time, before deciding
        if hmac.compare_digest(typed, cpf_confirmation(driver.cpf).encode()) and match is None:
            match = driver
    if match is None:
        result = await _failed(session, person_id, "contact", now, LinkOutcome.WRONG)
        return result if result.attempts_left else LinkResult(LinkOutcome.TOO_MANY, attempts_left=0)
    return await _link(session, match, person_id, "contact", now)


async def redeem_link_code(*, session: AsyncSession, person_id: int, code: str, now: dt.datetime) -> LinkResult:
    """Link the person with a one-time code (deep link or typed).

    Returns:
        ``LINKED`` (or ``ALREADY_YOURS``/``OTHER_DRIVER``); ``WRONG``, ``EXPIRED`` or ``USED`` (each counts as a
        wrong attempt); ``TOO_MANY`` once the limit is reached.
    """
    if await attempts_left(session=session, person_id=person_id, now=now) == 0:
        return LinkResult(LinkOutcome.TOO_MANY, attempts_left=0)
    stored = (await session.exec(select(LinkCode).where(LinkCode.code_hash == _hash(normalise_code(code))))).first()
    outcome: LinkOutcome | None = None
    if stored is None:
        outcome = LinkOutcome.WRONG
    elif stored.used_at is not None:
        outcome = LinkOutcome.USED
    elif stored.expires_at <= now:
        outcome = LinkOutcome.EXPIRED
    if outcome is not None or stored is None:
        result = await _failed(session, person_id, "code", now, outcome or LinkOutcome.WRONG)
        return result if result.attempts_left else LinkResult(LinkOutcome.TOO_MANY, attempts_left=0)
    driver = await session.get(Driver, stored.driver_id)
    assert driver is not None
    result = await _link(session, driver, person_id, "code", now)
    if result.outcome is LinkOutcome.LINKED:
        stored.used_at = now
        await session.commit()
    return result


async def create_link_code(
    *, session: AsyncSession, cpf: str, actor: str, now: dt.datetime, city: Municipality
) -> IssuedCode:
    """Generate a one-time link code for the driver with this CPF, audited (committed here).

    Raises:
        InvalidIdentifier: the CPF is not valid.
        DriverNotFound: no driver with that CPF.
    """
    canonical = parse_cpf(cpf)
    driver = (await session.exec(select(Driver).where(Driver.cpf == canonical))).first()
    if driver is None or driver.id is None:
        raise DriverNotFound("no driver with this CPF in the registry")
    code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    expires_at = now + dt.timedelta(hours=city.readings.driver_link_code_hours)
    session.add(LinkCode(driver_id=driver.id, code_hash=_hash(code), expires_at=expires_at, created_by=actor))
    await record(
        session=session,
        actor=actor,
        action="driver.link_code.create",
        entity="driver",
        entity_id=str(driver.id),
        details={"expires_at": expires_at.isoformat()},
    )
    await session.commit()
    return IssuedCode(code, driver.id, driver.name, mask_cpf(driver.cpf), expires_at)


async def unlink(*, session: AsyncSession, person_id: int) -> bool:
    """Unlink the person's account from their driver registration and drop the driver reminders still queued.

    Returns:
        True when there was a link.
    """
    driver = (await session.exec(select(Driver).where(Driver.person_id == person_id))).first()
    if driver is None:
        return False
    driver.person_id, driver.linked_at, driver.updated_at = None, None, utcnow()
    await session.exec(
        update(OutboxMessage)
        .where(
            col(OutboxMessage.person_id) == person_id,
            col(OutboxMessage.status) == OutboxStatus.PENDING,
            col(OutboxMessage.kind).startswith("driver."),
        )
        .values(status=OutboxStatus.CANCELLED)
    )
    await record(
        session=session,
        actor=f"person:{person_id}",
        action="driver.unlink",
        entity="driver",
        entity_id=str(driver.id),
    )
    await session.commit()
    return True
