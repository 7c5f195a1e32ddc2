"""The payment of a fine: one row per notice, recorded by staff or imported from the bank's file."""

from __future__ import annotations

import datetime as dt
import enum

from sqlalchemy import Column, Date, Enum, ForeignKey, Integer, String
from sqlmodel import Field, SQLModel

from models.columns import UTCDateTime, utcnow


class PaymentSource(enum.StrEnum):
    """How the payment became known."""

    STAFF = "staff"  # a staff member recorded it (console or CLI), from the DAM's receipt or the bank's statement
    BANK_FILE = "bank_file"  # imported from the bank's payment file (CSV)


class NoticePayment(SQLModel, table=True):
    """The fine of a notice paid (CP Art. 34 IV, 47 I; L1533 Art. 13 XXIII); at most one per notice.

    ``reference`` is the bank's identifier of the transaction (the PIX end-to-end id, the DAM's authentication):
    recording the same payment twice changes nothing.
    """

    __tablename__ = "notice_payment"

    id: int | None = Field(default=None, primary_key=True)
    notice_id: int = Field(sa_column=Column(Integer, ForeignKey("notice.id"), nullable=False, unique=True))
    paid_on: dt.date = Field(sa_column=Column(Date, nullable=False))
    amount_cents: int = Field(sa_column=Column(Integer, nullable=False))
    reference: str = Field(sa_column=Column(String(64), nullable=False, unique=True))
    source: PaymentSource = Field(sa_column=Column(Enum(PaymentSource, name="payment_source"), nullable=False))
    recorded_by: str = Field(sa_column=Column(String(64), nullable=False))
    recorded_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))
