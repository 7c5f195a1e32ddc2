"""The append-only audit log: who did what to which record, and when.

Rows are only ever inserted. A flush that would update or delete one is refused, so a bug cannot rewrite
history; the database user of a production deployment should also lack UPDATE/DELETE on this table
(see the README).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Column, String, event
from sqlalchemy.orm import Session
from sqlmodel import Field, SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession

from models.columns import JSONData, UTCDateTime, json_default, utcnow


class AuditEvent(SQLModel, table=True):
    """One thing that happened, with its actor. Never holds CPF, address or a complainant's identity."""

    __tablename__ = "audit_event"

    id: int | None = Field(default=None, primary_key=True)
    at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False, index=True))
    actor: str = Field(sa_column=Column(String(64), nullable=False))
    action: str = Field(sa_column=Column(String(64), nullable=False, index=True))
    entity: str = Field(sa_column=Column(String(64), nullable=False))
    entity_id: str = Field(sa_column=Column(String(64), nullable=False))
    details: dict[str, Any] = Field(default_factory=json_default, sa_column=Column(JSONData, nullable=False))


class AuditLogIsAppendOnly(Exception):
    """Something tried to change or delete an audit event."""


@event.listens_for(Session, "before_flush")
def _refuse_audit_changes(session: Session, _flush_context: object, _instances: object) -> None:
    for obj in list(session.dirty) + list(session.deleted):
        if isinstance(obj, AuditEvent) and (obj in session.deleted or session.is_modified(obj)):
            raise AuditLogIsAppendOnly("audit events are append-only")


async def record(
    *,
    session: AsyncSession,
    actor: str,
    action: str,
    entity: str,
    entity_id: str,
    details: dict[str, Any] | None = None,
) -> AuditEvent:
    """Append an audit event to the session (the caller commits with its own change).

    Args:
        session: the session holding the change being audited.
        actor: ``"staff:<telegram id>"``, ``"person:<id>"``, ``"cli"``, ``"api"`` or ``"system"``.
        action: dotted verb, e.g. ``"driver.import.update"``.
        entity: table or concept name.
        entity_id: its key.
        details: JSON-safe facts; never personal data beyond ids.
    """
    audit_event = AuditEvent(
        actor=actor, action=action, entity=entity, entity_id=entity_id, details=details or {}
    )
    session.add(audit_event)
    return audit_event
