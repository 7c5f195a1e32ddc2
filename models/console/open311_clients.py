"""The Open311 client systems as the console lists them: name, when the key was issued, revoked, last request filed.

Keys themselves are issued and revoked by :mod:`models.open311.keys` (the CLI's functions); no key is ever read
back, only whether the client's key is active. "Last used" is the last service request the client filed (the only
use of a key that is stored).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from models.cases.tables import Case
from models.open311.tables import Open311Client, Open311Submission


@dataclass(frozen=True, slots=True)
class ClientRow:
    """One client system in the list."""

    id: int
    name: str
    created_at: dt.datetime
    revoked_at: dt.datetime | None
    last_filed_at: dt.datetime | None
    requests: int


async def list_clients(*, session: AsyncSession) -> list[ClientRow]:
    """Every client system, active ones first, then by name, with its requests filed and the last one's time."""
    used = (select(Open311Submission.client_id, func.count().label("n"), func.max(Case.received_at).label("last"))
            .join(Case, col(Case.id) == Open311Submission.case_id).group_by(col(Open311Submission.client_id))
            .subquery())
    rows = (await session.exec(
        select(Open311Client, used.c.n, used.c.last).outerjoin(used, used.c.client_id == Open311Client.id)
        .order_by(col(Open311Client.revoked_at).is_not(None), col(Open311Client.name)))).all()
    result = []
    for client, count, last in rows:
        assert client.id is not None
        result.append(ClientRow(id=client.id, name=client.name, created_at=client.created_at,
                                revoked_at=client.revoked_at, last_filed_at=last, requests=count or 0))
    return result

