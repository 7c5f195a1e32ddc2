"""The tables of the transparency log: its entries, the perfect subtrees, the current head, published heads.

``tlog_entry`` holds one row per leaf, in order (``idx`` from 0): the leaf's data (canonical JSON bytes, see
:mod:`models.tlog.coverage`), its leaf hash and when its commit integrated it. ``tlog_node`` keeps every perfect
subtree of two or more leaves the log has completed, so proofs read O(log² n) hashes. ``tlog_state`` is one row:
the newest signed head (size, root, right edge, signature), which the scheduled head job
(:mod:`models.tlog.signing`) moves forward over the entries integrated since; locking it (``SELECT … FOR
UPDATE``) is the one log-sequence lock every appender and the job take. ``tlog_head`` keeps every signed head,
one per tree size, with its RFC 3161 token and whether the witness took it. ``tlog_published`` keeps the heads
written out each day, the history a copy kept elsewhere is compared with.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import BigInteger, Boolean, Column, Date, Index, Integer, LargeBinary, String, Text, false
from sqlmodel import Field, SQLModel

from models.columns import UTCDateTime


class LogEntry(SQLModel, table=True):
    """One leaf of the log: the state of one covered row at one commit (or its removal)."""

    __tablename__ = "tlog_entry"
    __table_args__ = (Index("ix_tlog_entry_row", "tbl", "row_id", "idx"),)

    idx: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    tbl: str = Field(sa_column=Column(String(32), nullable=False))
    row_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    leaf_hash: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    # ms since the epoch, UTC; NULL for entries integrated before heads were signed on a schedule (migration 0017).
    # Not part of the leaf: it only tells how long an entry has waited for a signed head (the merge delay).
    integrated_at: int | None = Field(default=None, sa_column=Column(BigInteger))


class LogNode(SQLModel, table=True):
    """A perfect subtree of ``2**level`` leaves (level ≥ 1), starting at leaf ``idx * 2**level``."""

    __tablename__ = "tlog_node"

    level: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    idx: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    hash: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class LogState(SQLModel, table=True):
    """The log's newest signed head (one row, ``id = 1``), moved forward by the head job (unsigned without a key)."""

    __tablename__ = "tlog_state"

    id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    size: int = Field(sa_column=Column(BigInteger, nullable=False))
    root: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    edge: str = Field(sa_column=Column(Text, nullable=False))  # JSON [[level, hex], ...], largest first
    timestamp: int = Field(sa_column=Column(BigInteger, nullable=False))  # ms since the epoch, UTC
    key_id: str | None = Field(default=None, sa_column=Column(String(64)))
    signature: bytes | None = Field(default=None, sa_column=Column(LargeBinary))


class SignedHead(SQLModel, table=True):
    """A head the head job signed: one per tree size (the primary key), kept with its RFC 3161 token."""

    __tablename__ = "tlog_head"

    size: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    root: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    timestamp: int = Field(sa_column=Column(BigInteger, nullable=False))  # ms since the epoch, UTC
    key_id: str | None = Field(default=None, sa_column=Column(String(64)))
    signature: bytes | None = Field(default=None, sa_column=Column(LargeBinary))
    tsa_token: bytes | None = Field(default=None, sa_column=Column(LargeBinary))
    witnessed: bool = Field(default=False, sa_column=Column(Boolean, nullable=False, server_default=false()))


class PublishedHead(SQLModel, table=True):
    """A signed tree head written out (once a day by the scan, or on demand), with its RFC 3161 timestamp."""

    __tablename__ = "tlog_published"

    id: int | None = Field(default=None, primary_key=True)
    day: dt.date | None = Field(default=None, sa_column=Column(Date, unique=True))
    size: int = Field(sa_column=Column(BigInteger, nullable=False))
    root: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    timestamp: int = Field(sa_column=Column(BigInteger, nullable=False))
    key_id: str = Field(sa_column=Column(String(64), nullable=False))
    signature: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    tsa_token: bytes | None = Field(default=None, sa_column=Column(LargeBinary))
    published_at: dt.datetime = Field(sa_column=Column(UTCDateTime, nullable=False))
