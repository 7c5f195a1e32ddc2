"""Limits against abuse: new cases per person per day, and the number, size and type of attachments.

The figures come from settings (``BALCAO_CASES_PER_DAY``, ``BALCAO_CASE_ATTACHMENTS_MAX``,
``BALCAO_CASE_ATTACHMENT_MAX_MB``, ``BALCAO_CASE_VOICE_MAX_SECONDS``, ``BALCAO_CASE_VIDEO_MAX_SECONDS``) so a
deployment can tune them; the types are fixed (JPEG, PNG, PDF, and Ogg voice notes and MP4 videos: see
``models.cases.media``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import Translator
from core.readings import ReadingFields
from core.settings import Settings
from models.cases.tables import Case, CaseAuthor
from models.invalid_input import InvalidInput
from models.open311.tables import Open311Submission

ALLOWED_TYPES: dict[str, tuple[bytes, str]] = {
    "image/jpeg": (b"\xff\xd8\xff", "jpg"),
    "image/png": (b"\x89PNG\r\n\x1a\n", "png"),
    "application/pdf": (b"%PDF-", "pdf"),
}
"""Accepted attachment types: MIME type → (magic bytes at the start of the file, file extension)."""


@dataclass(frozen=True, slots=True)
class CaseLimits:
    """The limits in force."""

    cases_per_day: int
    max_attachments: int
    max_attachment_bytes: int
    max_voice_seconds: int = 0
    max_video_seconds: int = 0

    @classmethod
    def from_settings(cls, settings: ReadingFields) -> CaseLimits:
        """The limits a deployment configured."""
        return cls(
            cases_per_day=settings.cases_per_day,
            max_attachments=settings.case_attachments_max,
            max_attachment_bytes=settings.case_attachment_max_mb * 1024 * 1024,
            max_voice_seconds=settings.case_voice_max_seconds,
            max_video_seconds=settings.case_video_max_seconds,
        )


class DailyLimitReached(InvalidInput):
    """The person already filed as many cases today as the limit allows."""

    def __init__(self, limit: int) -> None:
        super().__init__("daily limit", n=limit)
        self.limit = limit

    def render(self, tr: Translator) -> str:
        """The explanation, with the limit, in the reader's language."""
        return tr.ngettext(
            "You have already filed {n} case today, the most we accept in one day so the service stays "
            "fair for everyone. Please come back tomorrow: what you typed is kept.",
            "You have already filed {n} cases today, the most we accept in one day so the service stays "
            "fair for everyone. Please come back tomorrow: what you typed is kept.",
            self.limit,
        ).format(n=self.limit)


def civil_day_bounds(now: dt.datetime, tz: ZoneInfo) -> tuple[dt.datetime, dt.datetime]:
    """Start and end (UTC) of the civil day that contains ``now``."""
    day = now.astimezone(tz).date()
    start = dt.datetime.combine(day, dt.time.min, tzinfo=tz)
    return start.astimezone(dt.UTC), (start + dt.timedelta(days=1)).astimezone(dt.UTC)


async def cases_filed_today(*, session: AsyncSession, person_id: int, now: dt.datetime, tz: ZoneInfo) -> int:
    """How many cases the person filed on the civil day of ``now``."""
    start, end = civil_day_bounds(now, tz)
    statement = (
        select(func.count())
        .select_from(Case)
        .join(CaseAuthor, col(CaseAuthor.case_id) == Case.id)
        .where(CaseAuthor.person_id == person_id, Case.received_at >= start, Case.received_at < end)
    )
    return int((await session.exec(statement)).one())


async def open311_cases_filed_today(
    *, session: AsyncSession, client_id: int, account_sha256: str, now: dt.datetime, tz: ZoneInfo
) -> int:
    """How many cases one person of an Open311 client system filed on the civil day of ``now``."""
    start, end = civil_day_bounds(now, tz)
    statement = (
        select(func.count())
        .select_from(Case)
        .join(Open311Submission, col(Open311Submission.case_id) == Case.id)
        .where(
            Open311Submission.client_id == client_id,
            Open311Submission.account_sha256 == account_sha256,
            Case.received_at >= start,
            Case.received_at < end,
        )
    )
    return int((await session.exec(statement)).one())


async def check_daily_limit(
    *,
    session: AsyncSession,
    person_id: int | None,
    now: dt.datetime,
    settings: Settings,
    open311: tuple[int, str] | None = None,
) -> None:
    """Refuse a new case when the person reached today's limit (the same limit in the chat and over Open311).

    Args:
        session: database session.
        person_id: the person in the chat; None for a request from an Open311 client system.
        now: the moment of filing.
        settings: gives ``BALCAO_CASES_PER_DAY``.
        open311: (client id, hashed account) of an Open311 request: the person as the client system knows them.

    Raises:
        DailyLimitReached: with the limit in the message.
    """
    limit = settings.cases_per_day
    if open311 is not None:
        client_id, account = open311
        filed = await open311_cases_filed_today(
            session=session, client_id=client_id, account_sha256=account, now=now, tz=settings.tz
        )
    elif person_id is not None:
        filed = await cases_filed_today(session=session, person_id=person_id, now=now, tz=settings.tz)
    else:
        raise ValueError("a case is filed by a person or through Open311")
    if filed >= limit:
        raise DailyLimitReached(limit)
