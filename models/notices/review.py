"""Before the first-instance decision on a reclamação: vista (CP Art. 40 §§1–2) and diligência (Art. 42).

- Vista (Art. 40 §1): within the Art. 40 period the head of department may give the file "sucessivamente, ao
  autuado e ao autuante […] por 03 (três) dias a cada um, para alegações finais". Staff open it to one side, then,
  once those 3 days are over, to the other; ``BALCAO_CP_VISTA_ORDER`` says who goes first (the autuado, as the
  text lists them, by default). While a vista runs the decision waits; after the last one the authority has
  5 more days to decide (§2), counted by :func:`models.notices.windows.decision_due` and warned to staff.
- Diligência (Art. 42): the judgment may be converted into a diligência; while it is pending no Art. 42 appeal
  opens. Once staff record it concluded, the 10 days of Art. 40 count again from that day.

Every step is an event in the notice's chain and a line of the audit log.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from core.municipality import Cities, Municipality
from models.audit import record
from models.authorities import NotCompetent
from models.calendar import BusinessCalendar
from models.columns import utcnow
from models.deadlines import Window
from models.notices.access import STAFF_ROLES, check_notice_reach
from models.notices.authority import access_decision
from models.notices.chain import append_event
from models.notices.delivery import civil_date
from models.notices.filings import MAX_TEXT, FilingRefused
from models.notices.reminders import reminder_offset
from models.notices.tables import FilingKind, Notice, NoticeFiling
from models.notices.windows import appeal_decision_due, decision_due, diligencia_pending, vista_windows
from models.rulebooks.catalogue import CP, LAW_TITLES

VISTA_SIDES = {"autuado_primeiro": ("autuado", "autuante"), "autuante_primeiro": ("autuante", "autuado")}
"""CP Art. 40 §1: the order of the sides (``BALCAO_CP_VISTA_ORDER``)."""


def _citation(article: str) -> str:
    return f"{LAW_TITLES[CP]}, {article}"


async def _reclamacao(session: AsyncSession, cities: Cities, filing_id: int,
                      telegram_user_id: int) -> tuple[NoticeFiling, Notice]:
    """The pending reclamação, if the caller is its judge.

    Vista and diligência are the Chefe's acts (CP Art. 40 §1, Art. 42), checked as the decision is
    (:func:`models.notices.authority.access_decision`).
    """
    filing = await session.get(NoticeFiling, filing_id)
    if filing is None or filing.decided_at is not None or filing.kind is not FilingKind.RECLAMACAO:
        raise FilingRefused(N_("There is no pending complaint (reclamação) {id}."), params={"id": filing_id})
    notice = await session.get(Notice, filing.notice_id)
    assert notice is not None and notice.rulebook == CP
    # CF Art. 30 I: another municipality's notice is out of reach (NoticeOutOfReach), before any competence
    await check_notice_reach(session=session, notice=notice, telegram_user_id=telegram_user_id, roles=STAFF_ROLES)
    try:
        await access_decision(session=session, city=cities.of(notice.municipality), filing=filing, notice=notice,
                              telegram_user_id=telegram_user_id)
    except NotCompetent as exc:
        raise FilingRefused(exc.message, citation=exc.citation, params=exc.params) from None
    return filing, notice


def next_vista_side(filing: NoticeFiling, city: Municipality) -> str | None:
    """The side the next vista goes to (``autuado`` or ``autuante``), or None when both had theirs."""
    first, second = VISTA_SIDES[city.readings.cp_vista_order]
    if filing.vista_first_on is None:
        return first
    return second if filing.vista_second_on is None else None


def running_vista(*, notice: Notice, filing: NoticeFiling, city: Municipality, calendar: BusinessCalendar,
                  today: dt.date) -> Window | None:
    """The vista period still running today, if any (CP Art. 40 §1: the decision waits for it)."""
    return next((window for window in vista_windows(notice=notice, filing=filing, city=city,
                                                    calendar=calendar) if today <= window.final_date), None)


async def open_vista(*, session: AsyncSession, cities: Cities, filing_id: int, decider_telegram_id: int,
                     now: dt.datetime | None = None) -> NoticeFiling:
    """Give the next side vista of a reclamação for 3 days (CP Art. 40 §1); commits.

    Raises:
        FilingRefused: no such pending reclamação; a diligência pending; both sides already had vista; the
            other side's vista still running; or (the first vista) the Art. 40 period is over.
        NoticeOutOfReach: the notice is another municipality's (:mod:`models.notices.access`).
    """
    moment = now or utcnow()
    actor = f"staff:{decider_telegram_id}"
    filing, notice = await _reclamacao(session, cities, filing_id, decider_telegram_id)
    city = cities.of(notice.municipality)
    today = civil_date(moment, city)
    calendar = BusinessCalendar.of(city)
    side = next_vista_side(filing, city)
    if diligencia_pending(filing):
        raise FilingRefused(N_("The judgment was converted into a diligência: conclude it first."),
                            citation=_citation("Art. 42"))
    if side is None:
        raise FilingRefused(N_("Both sides have already had vista of this complaint."),
                            citation=_citation("Art. 40, §1º"))
    if running_vista(notice=notice, filing=filing, city=city, calendar=calendar, today=today):
        raise FilingRefused(N_("The other side's vista is still running: the second one follows it."),
                            citation=_citation("Art. 40, §1º"))
    if filing.vista_first_on is None:
        due = decision_due(notice=notice, filing=filing, city=city, calendar=calendar)
        if due is not None and today > due.final_date:
            raise FilingRefused(N_("Vista must be given within the 10 days of Art. 40, which ended on {date}."),
                                citation=_citation("Art. 40, §1º"), params={"date": due.final_date})
        filing.vista_first_on = today
    else:
        filing.vista_second_on = today
    session.add(filing)
    await append_event(session=session, notice_id=notice.id or 0, kind="vista", actor=actor, at=moment,
                       data={"filing_id": filing.id, "side": side, "on": today.isoformat()})
    await record(session=session, actor=actor, action="notice.vista", entity="notice", entity_id=str(notice.id),
                 details={"filing_id": filing.id, "side": side})
    await session.commit()
    return filing


async def order_diligencia(*, session: AsyncSession, cities: Cities, filing_id: int, text: str,
                           decider_telegram_id: int, now: dt.datetime | None = None) -> NoticeFiling:
    """Convert the judgment of a reclamação into a diligência (CP Art. 42), with what is to be done; commits.

    Raises:
        FilingRefused: no such pending reclamação, no text, or a diligência already pending.
        NoticeOutOfReach: the notice is another municipality's (:mod:`models.notices.access`).
    """
    moment = now or utcnow()
    actor = f"staff:{decider_telegram_id}"
    filing, notice = await _reclamacao(session, cities, filing_id, decider_telegram_id)
    if not text.strip():
        raise FilingRefused(N_("Write what the diligência is for."), citation=_citation("Art. 42"))
    if diligencia_pending(filing):
        raise FilingRefused(N_("A diligência is already pending on this complaint."), citation=_citation("Art. 42"))
    filing.diligencia_at, filing.diligencia_done_at = moment, None
    filing.diligencia_text = text.strip()[:MAX_TEXT]
    session.add(filing)
    await append_event(session=session, notice_id=notice.id or 0, kind="diligencia", actor=actor, at=moment,
                       data={"filing_id": filing.id})
    await record(session=session, actor=actor, action="notice.diligencia", entity="notice",
                 entity_id=str(notice.id), details={"filing_id": filing.id})
    await session.commit()
    return filing


async def conclude_diligencia(*, session: AsyncSession, cities: Cities, filing_id: int,
                              decider_telegram_id: int, now: dt.datetime | None = None) -> NoticeFiling:
    """Record the diligência concluded: the 10 days of CP Art. 40 run again from today; commits.

    Raises:
        FilingRefused: no such pending reclamação, or no diligência pending on it.
        NoticeOutOfReach: the notice is another municipality's (:mod:`models.notices.access`).
    """
    moment = now or utcnow()
    actor = f"staff:{decider_telegram_id}"
    filing, notice = await _reclamacao(session, cities, filing_id, decider_telegram_id)
    if not diligencia_pending(filing):
        raise FilingRefused(N_("No diligência is pending on this complaint."), citation=_citation("Art. 42"))
    filing.diligencia_done_at = moment
    session.add(filing)
    await append_event(session=session, notice_id=notice.id or 0, kind="diligencia.done", actor=actor, at=moment,
                       data={"filing_id": filing.id})
    await record(session=session, actor=actor, action="notice.diligencia_done", entity="notice",
                 entity_id=str(notice.id), details={"filing_id": filing.id})
    await session.commit()
    return filing


@dataclass(frozen=True, slots=True)
class DecisionWarning:
    """A reclamação (CP Art. 40, §2) or an appeal (Art. 45) whose decision is due soon or overdue, for its deciders."""

    notice: Notice
    filing: NoticeFiling
    window: Window
    offset: int  # days left the warning answers (``BALCAO_NOTICE_REMINDER_DAYS``, or 0 on the day and after)

    @property
    def dedupe_key(self) -> str:
        """One warning per filing, rule, last day and offset."""
        return (f"notice:{self.notice.id}:decision:{self.filing.id}:{self.window.rule.id}:"
                f"{self.window.final_date.isoformat()}:{self.offset}")


async def decision_warnings(*, session: AsyncSession, cities: Cities, now: dt.datetime) -> list[DecisionWarning]:
    """Pending reclamações and appeals whose decision is due within the reminder days, on the day, or late.

    ``BALCAO_NOTICE_REMINDER_DAYS`` sets the days. A reclamação is due on Art. 40's 10 days, or after vista on the
    5 days of §2 (:func:`decision_due`); a pending diligência has none. An appeal is due on Art. 45's 10 days from
    its filing (:func:`models.notices.windows.appeal_decision_due`). Late ones get one warning (offset 0) on the
    last day, and the key keeps it once.
    """
    rows = (await session.exec(
        select(NoticeFiling, Notice).join(Notice, col(Notice.id) == NoticeFiling.notice_id)
        .where(col(NoticeFiling.decided_at).is_(None),
               col(NoticeFiling.kind).in_([FilingKind.RECLAMACAO, FilingKind.RECURSO]), Notice.rulebook == CP)
        .order_by(col(NoticeFiling.id))
    )).all()
    found = []
    for filing, notice in rows:
        city = cities.of(notice.municipality)
        calendar = BusinessCalendar.of(city)
        due = (appeal_decision_due(notice=notice, filing=filing, city=city, calendar=calendar)
               if filing.kind is FilingKind.RECURSO else
               decision_due(notice=notice, filing=filing, city=city, calendar=calendar))
        if due is None:
            continue
        left = (due.final_date - civil_date(now, city)).days
        offset = 0 if left <= 0 else reminder_offset(left, city.readings.notice_reminder_days)
        if offset is not None:
            found.append(DecisionWarning(notice=notice, filing=filing, window=due, offset=offset))
    return found
