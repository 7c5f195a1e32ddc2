"""Whether a staff member reaches a notice, its deliveries and its filings: the municipality check, in one place.

A staff role is held in one municipality (CF Art. 30 I: each municipality runs its own services with its own
staff), so a notice, its deliveries and the filings against it are acted on only by staff who hold one of the
act's roles where the notice was issued (admins of the whole deployment everywhere). This is Zulip's
``access_*`` pattern (``access_stream_by_id``): an ``access_*`` function loads the object *for* a caller and raises
when the caller may not have it, and the actions call it themselves (as ``models.cases.handling`` does for
cases), so no entry point — chat, console, API — can forget the check. The competence for the act itself
(who decides, who is impeded) is :mod:`models.notices.authority`'s.

Roles: issuing, delivering and addressing notices are the inspectors' and clerks' (:data:`ISSUERS`); the filings
wait in the clerks' queue (:data:`JUDGES`) and are acted on by staff of the municipality (:data:`STAFF_ROLES`) whom the
designation makes competent.
"""

from __future__ import annotations

from collections.abc import Collection

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.notices.tables import Notice, NoticeDelivery, NoticeFiling
from models.people import PermissionDenied, Role, staff_municipalities

ISSUERS = frozenset({Role.INSPECTOR, Role.CLERK})
"""Who issues, delivers and addresses notices (CP Art. 12, 36; L1533 Art. 22)."""
JUDGES = frozenset({Role.CLERK})
"""Whose queue the filings are (CP Art. 40: the Chefe do Departamento; Art. 45: the Prefeito, through it)."""
STAFF_ROLES = frozenset(Role)
"""Any staff role of the municipality: the filing acts need one there; who may decide is the designation's
(:func:`models.notices.authority.access_decision`), so an impeded autuante hears why (L9784 Art. 18 I)."""


class NoticeOutOfReach(PermissionDenied):
    """The notice is another municipality's: the caller holds none of the act's roles there (CF Art. 30 I)."""


async def notices_reach(*, session: AsyncSession, telegram_user_id: int, roles: frozenset[Role]
                        ) -> frozenset[str] | None:
    """The municipalities whose notices the caller reaches with one of ``roles`` (None: every one, an admin's)."""
    return await staff_municipalities(session=session, telegram_user_id=telegram_user_id, allowed=roles)


async def check_notice_reach(*, session: AsyncSession, notice: Notice, telegram_user_id: int,
                             roles: frozenset[Role], shown: Collection[str] | None = None) -> None:
    """Refuse a notice of a municipality where the caller holds none of ``roles``.

    Args:
        session: database session.
        notice: the notice.
        telegram_user_id: the staff member.
        roles: the roles of the act (admins always).
        shown: the municipalities the caller's screen works in now (the console's choice); None: all of theirs.

    Raises:
        NoticeOutOfReach: it is another municipality's, or one the screen does not show now.
    """
    reach = await notices_reach(session=session, telegram_user_id=telegram_user_id, roles=roles)
    if (reach is not None and notice.municipality not in reach) or (shown is not None
                                                                    and notice.municipality not in shown):
        raise NoticeOutOfReach(notice.municipality)


async def access_notice(*, session: AsyncSession, number: str, telegram_user_id: int,
                        roles: frozenset[Role] = ISSUERS, shown: Collection[str] | None = None) -> Notice | None:
    """The notice with that number (case-insensitive), for the caller (None: there is none).

    ``shown``: as in :func:`check_notice_reach`.

    Raises:
        NoticeOutOfReach: it is another municipality's.
    """
    notice = (await session.exec(select(Notice).where(Notice.number == number.strip().upper()))).first()
    if notice is not None:
        await check_notice_reach(session=session, notice=notice, telegram_user_id=telegram_user_id, roles=roles,
                                 shown=shown)
    return notice


async def access_delivery(*, session: AsyncSession, delivery_id: int, telegram_user_id: int,
                          roles: frozenset[Role] = ISSUERS, shown: Collection[str] | None = None,
                          ) -> tuple[NoticeDelivery, Notice] | None:
    """A delivery and its notice, for the caller (None: there is no such delivery).

    Raises:
        NoticeOutOfReach: its notice is another municipality's.
    """
    delivery = await session.get(NoticeDelivery, delivery_id)
    notice = await session.get(Notice, delivery.notice_id) if delivery is not None else None
    if delivery is None or notice is None:
        return None
    await check_notice_reach(session=session, notice=notice, telegram_user_id=telegram_user_id, roles=roles,
                                 shown=shown)
    return delivery, notice


async def access_filing(*, session: AsyncSession, filing_id: int, telegram_user_id: int,
                        roles: frozenset[Role] = STAFF_ROLES, shown: Collection[str] | None = None,
                        ) -> tuple[NoticeFiling, Notice] | None:
    """A filing and its notice, for the caller (None: there is no such filing).

    Raises:
        NoticeOutOfReach: its notice is another municipality's.
    """
    filing = await session.get(NoticeFiling, filing_id)
    notice = await session.get(Notice, filing.notice_id) if filing is not None else None
    if filing is None or notice is None:
        return None
    await check_notice_reach(session=session, notice=notice, telegram_user_id=telegram_user_id, roles=roles,
                                 shown=shown)
    return filing, notice
