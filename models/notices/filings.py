"""Defences, reclamações and appeals, and the decisions on them (issue 6, item 6).

- First instance: the offender files a *defesa* (CP Art. 24 / Art. 278 for a notificação preliminar; Lei 1.533
  Art. 22 *defesa prévia*) or a *reclamação* against an auto (CP Art. 37–38: by petition, documents optional),
  inside the window :mod:`models.notices.windows` computes; after it the filing is refused citing the article.
  A reclamação suspends the fine and the other penalties until decided (CP Art. 39).
- The decision (CP Art. 40–41) is delivered like the notice, with its own ciência; from it runs the appeal
  (CP Art. 43: 10 dias úteis; L1533 Art. 22). The appeal is always admitted: CP Art. 46's prior deposit of
  half the fine is not required (STF Súmula Vinculante 21; CF Art. 5 XXXIV and LV).
- Before deciding a reclamação, staff may give vista to each side in turn (CP Art. 40 §1) or convert the
  judgment into a diligência (Art. 42): :mod:`models.notices.review`.
- Second instance: the recurso (CP Art. 44) is decided by the Prefeito (Art. 45); that decision is final and is
  delivered with the payment window (Art. 47).

A decision on the defence of a notificação preliminar closes it: granted, it is archived; denied, the
infraction becomes an auto de infração (Art. 28, 277), which staff issue with ``preliminar_id``.

A reclamação not decided within the 10 days of CP Art. 40 may be taken to appeal as if it were rejected
(Art. 42): filing that appeal records the reclamação as rejected by lapse (``decided_by`` :data:`LAPSED`, no
decision text) and ends the first instance's jurisdiction, so staff can no longer decide it.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import re
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_, Translator
from core.municipality import Cities, Municipality, Publication
from models.audit import record
from models.authorities import NotCompetent
from models.calendar import BusinessCalendar
from models.cases.attachments import AttachmentRefused, check_before_download, checked_file, neutral_name
from models.cases.limits import CaseLimits
from models.cases.protocol import next_in_sequence
from models.columns import utcnow
from models.notices.access import STAFF_ROLES, check_notice_reach
from models.notices.authority import access_decision, check_motivation
from models.notices.chain import append_event
from models.notices.decision_pdf import render_decision_pdf
from models.notices.delivery import civil_date, decision_window_terms, start_delivery
from models.notices.signing import sign_decision_pdf
from models.notices.tables import (
    DocumentKind,
    FilingKind,
    FilingOutcome,
    Notice,
    NoticeAttachment,
    NoticeDelivery,
    NoticeFiling,
    NoticeOutcome,
    NoticeStage,
    NoticeType,
)
from models.notices.windows import (
    art42_appeal_from,
    decision_windows,
    diligencia_pending,
    first_instance_windows,
    governing,
    vista_windows,
)
from models.rulebooks.catalogue import CP, LAW_TITLES

MAX_TEXT = 4000
FILING_PROTOCOL_PREFIX = {FilingKind.DEFESA: "DEF", FilingKind.RECLAMACAO: "RCL", FilingKind.RECURSO: "RCS"}
"""A filing's protocol number, as a case's (``RCL-2026-000001``): numbered per kind and civil year."""
LAPSED = "lapsed:art42"
"""``decided_by`` of a reclamação the first instance did not decide in time, appealed under CP Art. 42."""


class FilingRefused(Exception):
    """A filing or decision that cannot be accepted, with the reason and, where the law sets it, the article."""

    def __init__(self, message: str, *, citation: str = "", params: dict[str, Any] | None = None) -> None:
        super().__init__(f"{message} {citation}".strip())
        self.message = message  # English msgid
        self.citation = citation
        self.params = dict(params or {})

    def render(self, tr: Translator) -> str:
        """The reason in the reader's language; dates in ``params`` are written as people say them."""
        values = {key: tr.date(value) if isinstance(value, dt.date) else value for key, value in self.params.items()}
        if isinstance(values.get("rule"), str):
            values["rule"] = tr._(values["rule"])
        return tr._(self.message).format(**values)


def first_filing_kind(notice: Notice) -> FilingKind:
    """What the offender files against a notice: a reclamação against a CP auto (Art. 37), else a defesa."""
    if notice.rulebook == CP and notice.type is NoticeType.AUTO:
        return FilingKind.RECLAMACAO
    return FilingKind.DEFESA


def lapsed(filing: NoticeFiling) -> bool:
    """Whether the filing counts as rejected because it was not decided in time and was appealed (CP Art. 42)."""
    return filing.decided_by == LAPSED


def suspends_penalty(filing: NoticeFiling) -> bool:
    """CP Art. 39: a reclamação pending decision suspends the fine and the other penalties."""
    return filing.kind is FilingKind.RECLAMACAO and filing.decided_at is None


async def _notice_delivery(session: AsyncSession, notice_id: int, document: DocumentKind,
                           filing_id: int | None = None) -> NoticeDelivery | None:
    query = select(NoticeDelivery).where(NoticeDelivery.notice_id == notice_id, NoticeDelivery.document == document)
    if filing_id is not None:
        query = query.where(NoticeDelivery.filing_id == filing_id)
    return (await session.exec(query.order_by(col(NoticeDelivery.id).desc()))).first()


async def filings_of(*, session: AsyncSession, notice_id: int) -> list[NoticeFiling]:
    """A notice's filings, oldest first."""
    return list(
        (await session.exec(
            select(NoticeFiling).where(NoticeFiling.notice_id == notice_id).order_by(col(NoticeFiling.id))
        )).all()
    )


async def last_decided(*, session: AsyncSession, notice_id: int) -> NoticeFiling | None:
    """The latest decided filing of a notice."""
    return (
        await session.exec(
            select(NoticeFiling)
            .where(NoticeFiling.notice_id == notice_id, col(NoticeFiling.decided_at).is_not(None))
            .order_by(col(NoticeFiling.id).desc())
        )
    ).first()


def _law(notice: Notice) -> str:
    return LAW_TITLES[notice.rulebook]


async def pending_filing(*, session: AsyncSession, notice_id: int) -> NoticeFiling | None:
    """The notice's filing waiting for a decision, if any."""
    return (
        await session.exec(
            select(NoticeFiling)
            .where(NoticeFiling.notice_id == notice_id, col(NoticeFiling.decided_at).is_(None))
            .order_by(col(NoticeFiling.id).desc())
        )
    ).first()


async def check_can_file(
    *, session: AsyncSession, city: Municipality, notice: Notice, today: dt.date
) -> tuple[FilingKind, dt.date | None]:
    """What the offender may file today and the last day to do it (None: no last day, CP Art. 42).

    Raises:
        FilingRefused: nothing can be filed now — not yet notified, waiting for a decision, closed, or the window
            closed (citing its article and last day).
    """
    assert notice.id is not None
    calendar = BusinessCalendar.of(city)
    if notice.stage is NoticeStage.AWAITING_CIENCIA:
        raise FilingRefused(N_("First confirm that you received the notice (Tomo ciência)."))
    if notice.stage is NoticeStage.UNDER_REVIEW:
        pending = await pending_filing(session=session, notice_id=notice.id)
        opens = None if pending is None else art42_appeal_from(notice=notice, filing=pending, city=city,
                                                                 calendar=calendar)
        if opens is not None and today >= opens:
            return FilingKind.RECURSO, None  # CP Art. 42: no decision within the Art. 40 period
    if notice.stage in (NoticeStage.UNDER_REVIEW, NoticeStage.APPEALED):
        raise FilingRefused(N_("Your filing is waiting for a decision; you will be told here."))
    if notice.stage is NoticeStage.CLOSED:
        raise FilingRefused(N_("This notice is closed: there is nothing more to file."))
    if notice.stage is NoticeStage.NOTIFIED:
        delivery = await _notice_delivery(session, notice.id, DocumentKind.NOTICE)
        assert delivery is not None
        window = governing(first_instance_windows(notice=notice, delivery=delivery, city=city,
                                                  calendar=calendar)).defence
        kind = first_filing_kind(notice)
    else:  # DECIDED: the first-instance decision was given
        decided = await last_decided(session=session, notice_id=notice.id)
        assert decided is not None and decided.id is not None
        delivery = await _notice_delivery(session, notice.id, DocumentKind.DECISION, decided.id)
        if delivery is None or delivery.ciencia_on is None:
            raise FilingRefused(N_("First confirm that you received the decision (Tomo ciência)."))
        window = governing(decision_windows(notice=notice, delivery=delivery, final=False, city=city,
                                            calendar=calendar)).appeal
        kind = FilingKind.RECURSO
    if window is None:
        raise FilingRefused(N_("This notice has no open deadline for a filing."))
    if today > window.final_date:
        raise FilingRefused(
            N_("The deadline to file ended on {date}: {rule} ({citation}). The bot can no longer accept it."),
            citation=f"{_law(notice)}, {window.rule.article}",
            params={"date": window.final_date, "rule": window.rule.description,
                    "citation": f"{_law(notice)}, {window.rule.article}"},
        )
    return kind, window.final_date


async def store_filing_attachment(
    *, session: AsyncSession, city: Municipality, person_id: int, content: bytes, file_name: str | None,
    already: list[int], caption: str | None = None,
) -> NoticeAttachment:
    """Check and keep a file sent for a filing (CP Art. 38, 44: documents may be attached); commits.

    The checks, types and limits are those of the citizens' cases (:func:`models.cases.attachments.checked_file`:
    photos, PDF, Ogg voice notes and audio, short MP4 videos), so a person meets the same rules everywhere; the
    caption typed under the file is kept with it.

    Raises:
        AttachmentRefused: too many, too big, not an accepted type, a recording too long, or the same file twice.
    """
    limits = CaseLimits.of(city.readings)
    check_before_download(declared_size=len(content), count=len(already), limits=limits)
    # parsed as its type, every metadata block removed, in a worker thread (a large picture holds no one up)
    mime, content = await asyncio.to_thread(checked_file, content, limits)
    digest = hashlib.sha256(content).hexdigest()
    if already:
        twin = (await session.exec(
            select(NoticeAttachment.id).where(col(NoticeAttachment.id).in_(already), NoticeAttachment.sha256 == digest)
        )).first()
        if twin is not None:
            raise AttachmentRefused(N_("You already sent this file; it is kept only once."))
    extension = neutral_name(mime).rsplit(".", 1)[1]
    stem = re.sub(r"[^\w.\-]+", "_", (file_name or "").rsplit(".", 1)[0])[:100].strip("._") or "arquivo"
    attachment = NoticeAttachment(person_id=person_id, file_name=f"{stem}.{extension}", mime_type=mime,
                                  size=len(content), sha256=digest, content=content,
                                  caption=caption[:1024] if caption else None)
    session.add(attachment)
    await session.commit()
    await session.refresh(attachment)
    return attachment


async def attachments_of(*, session: AsyncSession, filing_id: int) -> list[NoticeAttachment]:
    """The files of a filing, in the order they were sent."""
    return list((await session.exec(
        select(NoticeAttachment).where(NoticeAttachment.filing_id == filing_id).order_by(col(NoticeAttachment.id))
    )).all())


async def file_filing(
    *,
    session: AsyncSession,
    cities: Cities,
    notice_id: int,
    person_id: int,
    text: str,
    attachment_ids: list[int] | None = None,
    now: dt.datetime | None = None,
) -> NoticeFiling:
    """The offender files their defesa, reclamação or recurso (whichever is open); commits.

    Args:
        session: database session.
        cities: the deployment's municipalities (the notice's counts the windows).
        notice_id: the notice.
        person_id: who files (must be the notice's person).
        text: the petition (CP Art. 38, 44).
        attachment_ids: files this person sent for it (:func:`store_filing_attachment`), claimed by the filing.
        now: the moment of filing (server time).

    Raises:
        FilingRefused: not this person's notice, nothing open, or the window closed (citing the article).
    """
    moment = now or utcnow()
    notice = await session.get(Notice, notice_id)
    if notice is None or notice.person_id != person_id:
        raise FilingRefused(N_("This notice is not addressed to you."))
    if not text.strip():
        raise FilingRefused(N_("Write what you want to say before sending."))
    city = cities.of(notice.municipality)
    kind, _last_day = await check_can_file(session=session, city=city, notice=notice,
                                           today=civil_date(moment, city))
    if kind is FilingKind.RECURSO and notice.stage is NoticeStage.UNDER_REVIEW:
        await _lapse_first_instance(session=session, notice_id=notice_id, person_id=person_id, now=moment)
    prefix, year = FILING_PROTOCOL_PREFIX[kind], civil_date(moment, city).year
    number = await next_in_sequence(session=session, prefix=prefix, year=year)  # rolled back with a failed filing
    filing = NoticeFiling(notice_id=notice_id, kind=kind, text=text.strip()[:MAX_TEXT], person_id=person_id,
                          filed_by=f"person:{person_id}", filed_at=moment, protocol=f"{prefix}-{year:04d}-{number:06d}")
    session.add(filing)
    notice.stage = NoticeStage.APPEALED if kind is FilingKind.RECURSO else NoticeStage.UNDER_REVIEW
    session.add(notice)
    await session.flush()
    files: list[NoticeAttachment] = []
    if attachment_ids:
        files = list((await session.exec(
            select(NoticeAttachment).where(col(NoticeAttachment.id).in_(attachment_ids),
                                           NoticeAttachment.person_id == person_id,
                                           col(NoticeAttachment.filing_id).is_(None))
        )).all())
        for attachment in files:
            attachment.filing_id = filing.id
            session.add(attachment)
    await append_event(session=session, notice_id=notice_id, kind="filing", actor=f"person:{person_id}", at=moment,
                       data={"filing_id": filing.id, "kind": kind.value,
                             "text_sha256": hashlib.sha256(filing.text.encode("utf-8")).hexdigest(),
                             "attachments_sha256": [attachment.sha256 for attachment in files]})
    await record(session=session, actor=f"person:{person_id}", action=f"notice.filing.{kind.value}", entity="notice",
                 entity_id=str(notice_id), details={"filing_id": filing.id, "attachments": len(files)})
    await session.commit()
    return filing


async def _lapse_first_instance(*, session: AsyncSession, notice_id: int, person_id: int, now: dt.datetime) -> None:
    """CP Art. 42: the undecided reclamação counts as rejected, and the first instance's jurisdiction ends."""
    pending = await pending_filing(session=session, notice_id=notice_id)
    assert pending is not None
    pending.decided_at, pending.decided_by, pending.outcome = now, LAPSED, FilingOutcome.DENIED
    session.add(pending)
    await append_event(session=session, notice_id=notice_id, kind="decision.lapsed", actor=f"person:{person_id}",
                       at=now, data={"filing_id": pending.id, "article": "Art. 42"})


async def decide_filing(
    *,
    session: AsyncSession,
    cities: Cities,
    publication: Publication,
    filing_id: int,
    outcome: FilingOutcome,
    text: str,
    decider_telegram_id: int,
    now: dt.datetime | None = None,
) -> NoticeFiling:
    """The competent authority decides a filing (CP Art. 40–41 first instance; Art. 45 second); commits.

    The decision is a PAdES-signed PDF of the issuing Prefeitura (:mod:`models.notices.decision_pdf`), stored with
    the filing and delivered to the person with its ciência.
    The decider is checked by :func:`models.notices.authority.access_decision` (competent, not impeded) and named on
    the decision; the reasons by :func:`models.notices.authority.check_motivation` (CP Art. 41; L9784 Art. 50).

    Raises:
        FilingRefused: no such pending filing, the decider not competent or impeded, or no real reasons given.
        NoticeOutOfReach: the notice is another municipality's (:mod:`models.notices.access`).
    """
    moment = now or utcnow()
    actor = f"staff:{decider_telegram_id}"
    filing = await session.get(NoticeFiling, filing_id)
    if filing is None or filing.decided_at is not None:
        raise FilingRefused(N_("There is no pending filing {id}."), params={"id": filing_id})
    notice = await session.get(Notice, filing.notice_id)
    assert notice is not None and notice.id is not None
    # CF Art. 30 I: another municipality's notice is out of reach (NoticeOutOfReach), before any competence
    await check_notice_reach(session=session, notice=notice, telegram_user_id=decider_telegram_id, roles=STAFF_ROLES)
    city = cities.of(notice.municipality)
    try:
        author = await access_decision(session=session, city=city, filing=filing, notice=notice,
                                       telegram_user_id=decider_telegram_id)
        text = check_motivation(text, city)
    except NotCompetent as exc:
        raise FilingRefused(exc.message, citation=exc.citation, params=exc.params) from None
    today = civil_date(moment, city)
    calendar = BusinessCalendar.of(city)
    running = [w for w in vista_windows(notice=notice, filing=filing, city=city, calendar=calendar)
               if today <= w.final_date]
    if running:  # CP Art. 40 §1: the final arguments come before the decision
        raise FilingRefused(N_("The vista for final arguments runs until {date}: decide after it."),
                            citation=f"{LAW_TITLES[CP]}, Art. 40, §1º", params={"date": running[0].final_date})
    if diligencia_pending(filing):
        raise FilingRefused(N_("The judgment was converted into a diligência: conclude it first."),
                            citation=f"{LAW_TITLES[CP]}, Art. 42")
    filing.decided_at, filing.decided_by, filing.decider = moment, actor, author.as_data()
    filing.outcome, filing.decision_text = outcome, text.strip()[:MAX_TEXT]
    session.add(filing)
    final = (
        filing.kind is FilingKind.RECURSO
        or outcome is FilingOutcome.GRANTED
        or notice.type is NoticeType.PRELIMINAR
    )
    if final:
        notice.stage = NoticeStage.CLOSED
        notice.outcome = NoticeOutcome.ANNULLED if outcome is FilingOutcome.GRANTED else NoticeOutcome.UPHELD
    else:
        notice.stage = NoticeStage.DECIDED
    session.add(notice)
    await session.flush()
    # Issue 18: the decision is a document of its own, signed by the Prefeitura, naming its author
    terms = decision_window_terms(notice=notice, final=final, city=city)
    rendered = render_decision_pdf(notice=notice, filing=filing, author=author, terms=terms, final=final,
                                   city=city, http_root=publication.http_root)
    filing.decision_pdf = await sign_decision_pdf(rendered, notice=notice, city=city, tsa_url=publication.tsa_url)
    filing.decision_pdf_sha256 = hashlib.sha256(filing.decision_pdf).hexdigest()
    session.add(filing)
    await append_event(session=session, notice_id=notice.id, kind="decision", actor=actor, at=moment, data={
        "filing_id": filing.id, "kind": filing.kind.value, "outcome": outcome.value, "final": final,
        "text_sha256": hashlib.sha256(filing.decision_text.encode("utf-8")).hexdigest(),
        "pdf_sha256": filing.decision_pdf_sha256,
    })
    await record(session=session, actor=actor, action="notice.decision", entity="notice", entity_id=str(notice.id),
                 details={"filing_id": filing.id, "outcome": outcome.value, "final": final})
    await start_delivery(session=session, city=city, notice=notice, actor=actor, http_root=publication.http_root,
                         filing=filing, now=moment)
    await session.commit()
    return filing


async def pending_filings(*, session: AsyncSession) -> list[tuple[NoticeFiling, Notice]]:
    """Filings waiting for a decision, oldest first."""
    rows = (
        await session.exec(
            select(NoticeFiling, Notice)
            .join(Notice, col(Notice.id) == NoticeFiling.notice_id)
            .where(col(NoticeFiling.decided_at).is_(None))
            .order_by(col(NoticeFiling.filed_at))
        )
    ).all()
    return [(filing, notice) for filing, notice in rows]
