"""Tables of the staff console: sign-in links and sessions (only their SHA-256 is stored), response templates."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import BigInteger, Column, ForeignKey, String, UniqueConstraint
from sqlmodel import Field, SQLModel

from models.columns import JSONData, UTCDateTime, json_default, utcnow


class ConsoleLink(SQLModel, table=True):
    """A one-time sign-in link sent by the bot to a staff member (``/painel``). Used once, then dead."""

    __tablename__ = "console_link"

    id: int | None = Field(default=None, primary_key=True)
    token_sha256: str = Field(sa_column=Column(String(64), nullable=False, unique=True))
    telegram_user_id: int = Field(sa_column=Column(BigInteger, nullable=False, index=True))
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
    expires_at: dt.datetime = Field(sa_column=Column(UTCDateTime, nullable=False))
    used_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))


class ConsoleSession(SQLModel, table=True):
    """A signed-in browser. The cookie holds the token; the database only its SHA-256."""

    __tablename__ = "console_session"

    id: int | None = Field(default=None, primary_key=True)
    token_sha256: str = Field(sa_column=Column(String(64), nullable=False, unique=True))
    telegram_user_id: int = Field(sa_column=Column(BigInteger, nullable=False, index=True))
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
    last_seen_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
    ended_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))


class ResponseTemplate(SQLModel, table=True):
    """A reply staff reuse, one text per language, with ``{protocol}``-style placeholders, of one municipality.

    A template belongs to the city hall whose staff wrote it (CF Art. 30) and is offered only to its staff.
    """

    __tablename__ = "response_template"
    __table_args__ = (UniqueConstraint("municipality", "name", name="uq_response_template_municipality_name"),)

    id: int | None = Field(default=None, primary_key=True)
    municipality: str | None = Field(
        default=None, sa_column=Column(String(40), ForeignKey("municipality.slug"), index=True),
        description="The municipality whose staff use it (NULL only for a row older than municipalities, "
        "offered to no one).",
    )
    name: str = Field(sa_column=Column(String(80), nullable=False))
    texts: dict[str, Any] = Field(default_factory=json_default, sa_column=Column(JSONData, nullable=False))
    updated_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
    active: bool = True


class StaffApiToken(SQLModel, table=True):
    """A staff member's own credential for the staff HTTP API: it names and proves its holder (only its SHA-256)."""

    __tablename__ = "staff_api_token"

    id: int | None = Field(default=None, primary_key=True)
    token_sha256: str = Field(sa_column=Column(String(64), nullable=False, unique=True))
    telegram_user_id: int = Field(sa_column=Column(BigInteger, nullable=False, index=True))
    label: str = Field(default="", sa_column=Column(String(64), nullable=False, default=""))
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
    last_used_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    revoked_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
