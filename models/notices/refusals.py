"""Refusals at a delivery in person, recorded as the Código de Posturas provides.

- CP Art. 25 sole paragraph: the person notified refuses to sign the "ciente" of a notificação preliminar: the
  refusal is noted on it by the authority who drew it up;
- CP Art. 26 sole paragraph: a refusal to receive the copy is declared by the agent, and neither favours nor harms
  the offender: the delivery stands as made that day;
- CP Art. 29: refusing to take knowledge of the preliminar leads to the auto de infração at once;
- CP Art. 34 §2–§3: the offender of an auto may refuse, or be unable, to sign; that is mentioned, the signature is
  not essential and the refusal does not aggravate the penalty.

Each is recorded as the delivery in person of that day (the ciência, CP Art. 36 I) with an event of the notice's
chain naming the refusal and its article, declared by the staff member who records it. A refused preliminar says
that the auto is due now (Art. 29), and the console opens its form.
"""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from core.municipality import Cities
from models.columns import utcnow
from models.notices.chain import append_event
from models.notices.delivery import DeliveryError, record_staff_delivery
from models.notices.tables import CienciaKind, DocumentKind, Notice, NoticeDelivery, NoticeType
from models.rulebooks.catalogue import CP


class Refusal(enum.StrEnum):
    """What the person did at the delivery in person."""

    CIENTE = "ciente"  # refused to sign the "ciente" of the preliminar (CP Art. 25 sole paragraph)
    RECEIPT = "receipt"  # refused to receive the copy (CP Art. 26 sole paragraph)
    SIGN = "sign"  # would not sign the auto (CP Art. 34 §3)
    UNABLE = "unable"  # could not sign the auto (CP Art. 34 §3; Art. 27)


ARTICLES = {
    Refusal.CIENTE: "Código de Posturas, Art. 25, parágrafo único; Art. 29",
    Refusal.RECEIPT: "Código de Posturas, Art. 26, parágrafo único; Art. 29",
    Refusal.SIGN: "Código de Posturas, Art. 34, §3º",
    Refusal.UNABLE: "Código de Posturas, Art. 34, §3º",
}
LABELS = {
    Refusal.CIENTE: N_("In person: refused to sign the \"ciente\""),
    Refusal.RECEIPT: N_("In person: refused to receive it (declared by the agent)"),
    Refusal.SIGN: N_("In person: would not sign"),
    Refusal.UNABLE: N_("In person: could not sign"),
}
FOR_TYPE = {
    NoticeType.PRELIMINAR: (Refusal.CIENTE, Refusal.RECEIPT),
    NoticeType.AUTO: (Refusal.SIGN, Refusal.UNABLE, Refusal.RECEIPT),
}
"""The refusals the code provides for each kind of act."""


@dataclass(frozen=True, slots=True)
class RefusalRecorded:
    """A refusal recorded: the notice, and whether the auto is due now (CP Art. 29)."""

    notice: Notice
    auto_due: bool


async def record_refusal(
    *, session: AsyncSession, cities: Cities, delivery_id: int, refusal: Refusal, on: dt.date, actor: str,
    now: dt.datetime | None = None,
) -> RefusalRecorded:
    """Record a delivery in person at which the person refused (or could not sign); commits.

    Raises:
        DeliveryError: not a Código de Posturas notice, a refusal the code does not provide for this act, or what
            :func:`models.notices.delivery.record_staff_delivery` refuses (date, state).
    """
    moment = now or utcnow()
    delivery = await session.get(NoticeDelivery, delivery_id)
    notice = await session.get(Notice, delivery.notice_id) if delivery is not None else None
    if delivery is None or notice is None or notice.id is None:
        raise DeliveryError(N_("No such delivery."))
    if notice.rulebook != CP or delivery.document is not DocumentKind.NOTICE or refusal not in FOR_TYPE[notice.type]:
        raise DeliveryError(N_("The law of this document provides no such refusal."))
    await append_event(session=session, notice_id=notice.id, kind="delivery.refusal", actor=actor, at=moment,
                       data={"delivery_id": delivery.id, "refusal": refusal.value, "article": ARTICLES[refusal],
                             "on": on.isoformat()})
    # CP Art. 26 sole paragraph: the refusal neither favours nor harms: the delivery in person stands that day.
    result = await record_staff_delivery(session=session, cities=cities, delivery_id=delivery_id,
                                         how=CienciaKind.PERSONAL, on=on, actor=actor, now=moment)
    # CP Art. 29: a person who refuses to take knowledge of the preliminar gets the auto at once.
    return RefusalRecorded(notice=result.notice, auto_due=notice.type is NoticeType.PRELIMINAR)
