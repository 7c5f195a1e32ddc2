"""Opt-in to electronic notification (issue 6, item 4), on the model of the SNE.

The person reads the terms in the bot and accepts them explicitly; the acceptance (terms version, moment)
is kept, and so is the revocation. Only a person with an active opt-in receives notices in the bot; anyone
else's notices go to the staff list for delivery in person, by post or by edital (CP Art. 36). At opt-in the
person may register their CPF: a notice later issued to that CPF is suggested to staff for this person (who link
it after checking, since the CPF typed here is only the person's word).

The terms say: notices arrive in this chat with their PDF; pressing "Tomo ciência" records the moment of
ciência; where the law admits electronic delivery (L1533 Art. 22 §1) the person counts as notified
after ``BALCAO_TACIT_CIENCIA_DAYS`` days even without pressing it (CTB Art. 282-A §2 model); deadlines run
from the ciência; revoking (:func:`models.notices.delivery.revoke_electronic_notices`) sends what still awaits
ciência to the staff list, and documents already acknowledged stay valid.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.audit import record
from models.columns import utcnow
from models.notices.tables import NoticeOptIn

TERMS_VERSION = "2026-1"
"""Version of the opt-in terms; raise it when their text changes (people then accept the new ones)."""


@dataclass(frozen=True, slots=True)
class OptInStatus:
    """A person's current opt-in."""

    active: bool
    terms_version: str | None
    accepted_at: dt.datetime | None
    cpf: str | None

    @property
    def current_terms(self) -> bool:
        """Whether the person accepted the terms now in force."""
        return self.active and self.terms_version == TERMS_VERSION


async def current_optin(*, session: AsyncSession, person_id: int) -> NoticeOptIn | None:
    """The person's active opt-in row, if any."""
    return (
        await session.exec(
            select(NoticeOptIn)
            .where(NoticeOptIn.person_id == person_id, col(NoticeOptIn.revoked_at).is_(None))
            .order_by(col(NoticeOptIn.id).desc())
        )
    ).first()


async def optin_status(*, session: AsyncSession, person_id: int) -> OptInStatus:
    """Whether the person receives notices electronically, and under which terms."""
    row = await current_optin(session=session, person_id=person_id)
    if row is None:
        return OptInStatus(active=False, terms_version=None, accepted_at=None, cpf=None)
    return OptInStatus(active=True, terms_version=row.terms_version, accepted_at=row.accepted_at, cpf=row.cpf)


async def record_acceptance(
    *, session: AsyncSession, person_id: int, cpf: str | None = None, now: dt.datetime | None = None
) -> NoticeOptIn:
    """Record that the person accepted the current terms (closing an older acceptance); the caller commits.

    :func:`models.notices.delivery.accept_electronic_notices` calls it and sends what already waited for the
    person.

    Args:
        session: database session.
        person_id: who accepts.
        cpf: their CPF (11 digits, already validated), to let staff address notices by CPF; optional.
        now: the moment (server time); now when omitted.
    """
    moment = now or utcnow()
    previous = await current_optin(session=session, person_id=person_id)
    if previous is not None:
        previous.revoked_at = moment
    row = NoticeOptIn(person_id=person_id, terms_version=TERMS_VERSION, cpf=cpf, accepted_at=moment)
    session.add(row)
    await session.flush()
    await record(session=session, actor=f"person:{person_id}", action="notice.optin.accept", entity="notice_optin",
                 entity_id=str(row.id), details={"terms_version": TERMS_VERSION, "with_cpf": cpf is not None})
    return row


async def end_optin(*, session: AsyncSession, person_id: int, now: dt.datetime) -> NoticeOptIn | None:
    """Close the person's active opt-in (the caller moves pending documents and commits); None if none."""
    row = await current_optin(session=session, person_id=person_id)
    if row is not None:
        row.revoked_at = now
    return row


async def person_by_cpf(*, session: AsyncSession, cpf: str) -> int | None:
    """The one person who registered this CPF at an active opt-in; None if nobody or several did.

    The CPF given at opt-in is the person's own statement, not verified: it only suggests the person to staff
    (:func:`models.notices.delivery.cpf_claimant`), and when two people claim the same CPF nobody is suggested.
    """
    claimants = set(
        (
            await session.exec(
                select(NoticeOptIn.person_id).where(NoticeOptIn.cpf == cpf, col(NoticeOptIn.revoked_at).is_(None))
            )
        ).all()
    )
    return claimants.pop() if len(claimants) == 1 else None
