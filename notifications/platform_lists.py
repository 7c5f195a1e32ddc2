"""The platforms' list of vehicles, owners and drivers every 30 days (L1533 Art. 5 IX): warn staff when late.

One outbox row per late platform, list due day and staff member (clerks and admins who use the bot): the dedupe
key names the due day, so a platform stays warned once per missed list, and the warning comes again only when the
next due day passes without a list. The state comes from :mod:`models.drivers.platforms`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import Translator
from core.settings import Settings
from models.drivers.periods import office_calendar
from models.drivers.platforms import ARTICLE, list_statuses
from models.outbox import enqueue
from models.people import Person, Role, StaffMember
from models.rulebooks.catalogue import L1533
from models.when import municipal_today
from notifications.notice_scans import polite_moment
from notifications.rendering import Rendered, renderer
from notifications.scans import scan
from notifications.telegram_text import small

LATE_LIST = "platform.late_list"


async def _platform_staff(session: AsyncSession) -> list[int]:
    rows = (await session.exec(
        select(Person.id).join(StaffMember, col(StaffMember.telegram_user_id) == Person.telegram_user_id)
        .where(StaffMember.active == True, col(StaffMember.role).in_([Role.CLERK, Role.ADMIN]))  # noqa: E712
        .order_by(col(Person.id))
    )).all()
    return [person_id for person_id in rows if person_id is not None]


@scan("platform-lists")
async def platform_lists(*, session: AsyncSession, now: dt.datetime, settings: Settings) -> int:
    """Warn clerks and admins of each platform whose Art. 5 IX list is overdue."""
    today = municipal_today(settings.tz, now=now)
    calendar = office_calendar(settings.for_rulebook(L1533))  # Lei 1.533/2020 is Sapezal's: its office calendar
    late = [s for s in await list_statuses(session=session, today=today, calendar=calendar) if s.late]
    if not late:
        return 0
    staff = await _platform_staff(session)
    count = 0
    for status in late:
        for person_id in staff:
            count += int(await enqueue(
                session=session, person_id=person_id, kind=LATE_LIST,
                dedupe_key=f"platform:{status.platform.id}:list:{status.due_on.isoformat()}:{person_id}",
                payload={"platform": status.platform.name, "due_on": status.due_on.isoformat(),
                         "last": status.last_received_on.isoformat() if status.last_received_on else None},
                not_before=polite_moment(now, settings.tz)))
    return count


@renderer(LATE_LIST)
def render_late_list(payload: dict[str, Any], tr: Translator) -> Rendered:
    """To staff: a platform has not sent its list of vehicles, owners and drivers (Art. 5 IX)."""
    due = dt.date.fromisoformat(payload["due_on"])
    text = tr._("⚠️ The platform {name} has not sent the list of vehicles, owners and drivers due on {date}.")
    text = text.format(name=payload["platform"], date=tr.date(due))
    if payload.get("last"):
        text += "\n" + tr._("Last list received: {date}.").format(date=tr.date(dt.date.fromisoformat(payload["last"])))
    return Rendered(text=text + small(tr._("Lei 1.533/2020, {article}: every 30 days").format(article=ARTICLE)))
