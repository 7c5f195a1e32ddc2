"""The notice's second addressee under Lei 1.533: the technology platform (L1533 Art. 22).

"Constatada a infração, será lavrado Auto de Infração … com a expedição da notificação à plataforma tecnológica e
ao condutor": the notice goes to both. The driver's delivery is the :class:`~models.notices.tables.NoticeDelivery`
that its ciência and deadlines hang on; the platform's is tracked beside it, in its own row, so that it never moves
the driver's windows (docs/LEGAL-CHOICES.md, item 48). A platform is a company outside the bot: staff deliver the
notice by the means of Art. 22 §1 (directly, by post with the Correio's receipt, electronically, by edital) and
record the day, from the console's delivery list, as they do for the driver.
"""

from __future__ import annotations

import datetime as dt
import enum

from sqlalchemy import Column, Date, Enum, ForeignKey, Integer, String
from sqlmodel import Field, SQLModel, col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from core.municipality import Cities
from models.audit import record
from models.columns import UTCDateTime, utcnow
from models.notices.chain import append_event
from models.notices.delivery import DeliveryError, civil_date
from models.notices.tables import Notice


class PlatformMeans(enum.StrEnum):
    """How the notice reached the platform (L1533 Art. 22 §1)."""

    DIRECT = "direct"  # handed over by the Administração Municipal
    POSTAL = "postal"  # by post, with the Correio's receipt
    ELECTRONIC = "electronic"  # by e-mail or the platform's channel
    EDITAL = "edital"  # edital in the municipality's official newspaper


MEANS_LABELS = {
    PlatformMeans.DIRECT: N_("Handed over directly"),
    PlatformMeans.POSTAL: N_("By post, with the Correio's receipt"),
    PlatformMeans.ELECTRONIC: N_("Electronically (e-mail)"),
    PlatformMeans.EDITAL: N_("Edital in the official newspaper"),
}


class NoticePlatformDelivery(SQLModel, table=True):
    """The delivery of a Lei 1.533 notice to the technology platform (L1533 Art. 22), pending until recorded."""

    __tablename__ = "notice_platform_delivery"

    id: int | None = Field(default=None, primary_key=True)
    notice_id: int = Field(sa_column=Column(Integer, ForeignKey("notice.id"), nullable=False, index=True))
    platform_name: str = Field(sa_column=Column(String(160), nullable=False))
    means: PlatformMeans | None = Field(default=None, sa_column=Column(Enum(PlatformMeans, native_enum=False,
                                                                            length=16)))
    delivered_on: dt.date | None = Field(default=None, sa_column=Column(Date))
    recorded_by: str | None = Field(default=None, sa_column=Column(String(64)))
    created_at: dt.datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime, nullable=False))


async def start_platform_delivery(*, session: AsyncSession, notice: Notice, actor: str,
                                  now: dt.datetime) -> NoticePlatformDelivery | None:
    """Put the platform's copy on the staff list, for a notice that names one (L1533 Art. 22); the caller commits."""
    if not notice.platform_name or notice.id is None:
        return None
    delivery = NoticePlatformDelivery(notice_id=notice.id, platform_name=notice.platform_name, created_at=now)
    session.add(delivery)
    await session.flush()
    await append_event(session=session, notice_id=notice.id, kind="delivery.platform", actor=actor, at=now,
                       data={"platform_delivery_id": delivery.id})
    return delivery


async def pending_platform_deliveries(*, session: AsyncSession) -> list[tuple[NoticePlatformDelivery, Notice]]:
    """The platforms' copies still to deliver, oldest first, with their notices."""
    rows = await session.exec(
        select(NoticePlatformDelivery, Notice)
        .where(NoticePlatformDelivery.notice_id == Notice.id, col(NoticePlatformDelivery.delivered_on).is_(None))
        .order_by(col(NoticePlatformDelivery.id))
    )
    return list(rows.all())


async def record_platform_delivery(*, session: AsyncSession, cities: Cities, delivery_id: int,
                                   means: PlatformMeans, on: dt.date, actor: str,
                                   now: dt.datetime | None = None) -> Notice:
    """Staff record the day the platform received the notice, and how (L1533 Art. 22 §1); commits.

    Raises:
        DeliveryError: unknown or already recorded delivery, or a day in the future or before the notice's issue.
    """
    moment = now or utcnow()
    delivery = await session.get(NoticePlatformDelivery, delivery_id)
    notice = await session.get(Notice, delivery.notice_id) if delivery is not None else None
    if delivery is None or notice is None:
        raise DeliveryError(N_("No such delivery."))
    if delivery.delivered_on is not None:
        raise DeliveryError(N_("This document already has its ciência."))
    city = cities.of(notice.municipality)
    if on > civil_date(moment, city):
        raise DeliveryError(N_("The date is in the future."))
    if on < civil_date(notice.issued_at, city):
        raise DeliveryError(N_("The date is before the notice was issued."))
    delivery.means, delivery.delivered_on, delivery.recorded_by = means, on, actor
    session.add(delivery)
    assert notice.id is not None
    await append_event(session=session, notice_id=notice.id, kind="delivery.platform.done", actor=actor, at=moment,
                       data={"platform_delivery_id": delivery.id, "means": means.value, "on": on.isoformat()})
    await record(session=session, actor=actor, action="notice.delivery.platform", entity="notice",
                 entity_id=str(notice.id), details={"platform_delivery_id": delivery.id, "on": on.isoformat()})
    await session.commit()
    return notice
