"""Tables of Open311: the client systems with their keys, and the link from a case to the system that filed it.

A key is stored only as its SHA-256 (a key is 32 random bytes, so a plain hash is enough to make a stolen table
useless); the key itself is printed once, when it is issued.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Column, ForeignKey, Integer, String
from sqlmodel import Field, SQLModel

from models.columns import UTCDateTime, utcnow


class Open311Client(SQLModel, table=True):
    """A client system allowed to post service requests (FixMyStreet, a city app…), with its hashed key."""

    __tablename__ = "open311_client"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_column=Column(String(64), nullable=False, unique=True))
    key_sha256: str = Field(sa_column=Column(String(64), nullable=False, unique=True))
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
    revoked_at: dt.datetime | None = Field(default=None, sa_column=Column(UTCDateTime))


class Open311Submission(SQLModel, table=True):
    """A case filed through Open311: which client system filed it, for whom (hashed), and its public media URL.

    ``account_sha256`` is the SHA-256 of the client's ``account_id`` (else ``email``, else ``device_id``): the
    person as far as the daily limit is concerned, without keeping their contact.
    """

    __tablename__ = "open311_submission"

    id: int | None = Field(default=None, primary_key=True)
    case_id: int = Field(sa_column=Column(Integer, ForeignKey("citizen_case.id"), nullable=False, unique=True))
    client_id: int = Field(sa_column=Column(Integer, ForeignKey("open311_client.id"), nullable=False, index=True))
    account_sha256: str = Field(sa_column=Column(String(64), nullable=False, index=True))
    service_code: str = Field(sa_column=Column(String(16), nullable=False))
    media_url: str | None = Field(default=None, sa_column=Column(String(500)))
