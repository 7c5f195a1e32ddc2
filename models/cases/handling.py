"""What staff do with cases: the queue, assigning, asking for complementação, deciding, answering, extending.

Every function checks the caller's role on each call (:func:`models.people.require_role`) and returns data.
Who may act: the role the case is routed to (clerks for representações, inspectors for ride-hailing reports,
the ombudsman for ombudsman cases) and admins. Who may *read* a case and its author, per role and kind, is
:mod:`models.cases.access` (a restricted ombudsman case is the Ombudsman's alone, L13460 Art. 10 §7).

The decision on a representação (CP Art. 32: notify the offender, draw up an *auto*, or archive) records the
outcome and returns a :class:`NoticeHandover` — what the penalty notices need to issue the notificação
preliminar or the auto de infração, with the case id to reference, and nothing about the author.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, and_, func, or_, true
from sqlalchemy import case as sql_case
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from core.municipality import Cities
from models.authorities import ombudsman_author
from models.cases.access import CaseNotReadable, Reading, reading, restricted_to_ombudsman
from models.cases.fields import clean_text
from models.cases.schedule import complement_due_on, extended_due_on
from models.cases.tables import (
    FINAL_STATUSES,
    HANDLING_ROLE,
    OUTCOME_STATUS,
    Case,
    CaseAttachment,
    CaseEvent,
    CaseKind,
    CaseStatus,
    EventKind,
    Outcome,
)
from models.cases.timeline import CaseNotFound, get_author, get_case, notify_staff, record_event
from models.cases.views import (
    CaseView,
    QueueItem,
    author_view,
    case_view,
    may_see_author,
)
from models.invalid_input import InvalidInput
from models.people import ANY_MUNICIPALITY, PermissionDenied, Role, StaffMember, require_role, staff_roles
from models.rulebooks.catalogue import CP, L1533, LAW_TITLES

ALL_STAFF = frozenset(Role)


class CaseActionRefused(InvalidInput):
    """The action does not fit the case as it stands (closed, already extended, wrong kind…)."""


@dataclass(frozen=True, slots=True)
class StaffActor:
    """The staff member acting, as checked on this call."""

    member_id: int
    telegram_user_id: int
    role: Role
    name: str

    @property
    def tag(self) -> str:
        """The actor for the audit log and the timeline (an id, never a name)."""
        return f"staff:{self.telegram_user_id}"


@dataclass(frozen=True, slots=True)
class NoticeHandover:
    """What the penalty notices need to issue the notice a decision calls for. Never carries the author.

    Attributes:
        case_id: the case, for ``Notice.case_id``.
        protocol: the case's protocol, to quote.
        notice_type: ``"preliminar"`` (CP Art. 24, notificação preliminar) or ``"auto"`` (CP Art. 33–34;
            L1533 Art. 22), as in ``models.notices.tables.NoticeType``.
        rulebook: ``"nx-posturas"`` or ``"sapezal-1533"``.
        infraction_code: the catalogue row, when the author picked one (or the report implies it).
        accused: who is accused, as the author described them (a business, a person, a plate).
        driver_id: the registered driver, for ride-hailing reports.
        place: where.
        occurred_on: when.
        facts: what happened, in the author's words.
    """

    case_id: int
    protocol: str
    notice_type: str
    rulebook: str
    infraction_code: str | None
    accused: str | None
    driver_id: int | None
    place: str
    occurred_on: dt.date | None
    facts: str

    @property
    def law_title(self) -> str:
        """The rulebook's name as people read it, e.g. ``Lei nº 1.533/2020 (Sapezal)``."""
        return LAW_TITLES.get(self.rulebook, self.rulebook)

    def notice_fields(self) -> dict[str, object]:
        """The elements a penalty notice can start from, named as the notices' issue form names them.

        The keys are those of ``models.notices.elements.NoticeInput`` and of the staff API ``POST /api/notices``;
        staff complete the rest (the offender, the place and the facts they found, the issuer, the date…). The
        accused, place and facts as the citizen told them are the hand-over's own fields, a reference for the
        inspector: never copied into the act, where they could tell the accused who reported them (CP Art. 31;
        LGPD Art. 6 III; docs/LEGAL-CHOICES.md, item 46).
        """
        return {
            "type": self.notice_type,
            "rulebook": self.rulebook,
            "infraction_code": self.infraction_code,
            "case_id": self.case_id,
        }


@dataclass(frozen=True, slots=True)
class Decision:
    """The result of deciding a representação or a report."""

    case_id: int
    protocol: str
    outcome: Outcome
    status: CaseStatus
    handover: NoticeHandover | None


async def staff_actor(
    *, session: AsyncSession, telegram_user_id: int, allowed: frozenset[Role], municipality: str | None,
    prefer: Role | None = None,
) -> StaffActor:
    """Check the caller's role in a municipality now and return who they are.

    Args:
        session: database session.
        telegram_user_id: the caller.
        allowed: roles that may act (admins always may).
        municipality: the case's municipality (a role is held in one; CF Art. 30), or :data:`ANY_MUNICIPALITY`.
        prefer: a role the caller holds in that very municipality that counts there over a deployment-wide one
            (the Ombudsman's, for a restricted complaint).

    Raises:
        PermissionDenied: not active staff there with an allowed role.
    """
    role = await require_role(session=session, telegram_user_id=telegram_user_id, allowed=allowed,
                              municipality=municipality)
    if prefer is not None and role is not prefer:
        # L13460 Art. 10 §7: an admin everywhere who is also this city's Ombudsman reads its restricted
        # complaints as its Ombudsman — the queue lists them by that role (cases_visible_to), so it opens them too.
        held = await staff_roles(session=session, telegram_user_id=telegram_user_id)
        if held.get(municipality) is prefer:
            role = prefer
    members = (
        await session.exec(select(StaffMember).where(StaffMember.telegram_user_id == telegram_user_id,
                                                     StaffMember.active == True)  # noqa: E712
                           .order_by(col(StaffMember.municipality).is_not(None)))
    ).all()
    member = next(m for m in members if m.municipality in (None, municipality) or municipality == ANY_MUNICIPALITY)
    assert member.id is not None
    return StaffActor(member_id=member.id, telegram_user_id=telegram_user_id, role=role, name=member.name)


async def _acting(*, session: AsyncSession, telegram_user_id: int, case: Case) -> StaffActor:
    prefer = Role.OMBUDSMAN if restricted_to_ombudsman(case) else None
    if prefer is not None:  # before the role check, so a clerk learns nothing from a 403
        _may_open(case, await staff_actor(session=session, telegram_user_id=telegram_user_id, allowed=ALL_STAFF,
                                          municipality=case.municipality, prefer=prefer))
    return await staff_actor(
        session=session, telegram_user_id=telegram_user_id, allowed=frozenset({HANDLING_ROLE[case.kind]}),
        municipality=case.municipality, prefer=prefer,
    )


def _may_open(case: Case, actor: StaffActor, *, identity_proven: bool = True) -> None:
    """Refuse a case the member's role does not read (:func:`models.cases.access.reading`).

    Raises:
        CaseNotFound: a restricted ombudsman case, to anyone but the Ombudsman proven by their own credential (the
            same answer as an unknown protocol, so that its existence is not told either; Lei 13.460/2017
            Art. 10 §7).
        CaseNotReadable: a case of another role's work in this municipality (LGPD Art. 6 III).
    """
    if reading(case, actor.role, identity_proven=identity_proven) is Reading.NOTHING:
        if restricted_to_ombudsman(case):
            raise CaseNotFound(f"no case {case.id!r}")
        raise CaseNotReadable(f"{actor.role} does not read {case.kind} cases")


async def may_act(*, session: AsyncSession, telegram_user_id: int, case_id: int) -> StaffActor:
    """Check, before asking staff for a text, that they may still act on this open case.

    Raises:
        CaseNotFound: no such case.
        PermissionDenied: not staff of the role the case is routed to (nor admin).
        CaseActionRefused: the case is closed.
    """
    case = await get_case(session=session, case_id=case_id)
    actor = await _acting(session=session, telegram_user_id=telegram_user_id, case=case)
    _open(case)
    return actor


def _open(case: Case) -> None:
    if case.status in FINAL_STATUSES:
        raise CaseActionRefused(N_("This case is already closed."))


async def _load_view(*, session: AsyncSession, case: Case, author_visible: bool) -> CaseView:
    assert case.id is not None
    author = await get_author(session=session, case_id=case.id)
    events = (
        await session.exec(select(CaseEvent).where(CaseEvent.case_id == case.id).order_by(col(CaseEvent.id)))
    ).all()
    attachments = (
        await session.exec(
            select(CaseAttachment).where(CaseAttachment.case_id == case.id).order_by(col(CaseAttachment.id))
        )
    ).all()
    assigned_name = None
    if case.assigned_staff_id is not None:
        member = await session.get(StaffMember, case.assigned_staff_id)
        assigned_name = member.name if member else None
    return case_view(
        case,
        author=author_view(author, visible=author_visible),
        events=list(events),
        attachments=list(attachments),
        assigned_staff_name=assigned_name,
    )


async def case_view_for(*, session: AsyncSession, case: Case, viewer_role: Role | None) -> CaseView:
    """A case as a staff member of ``viewer_role`` may see it (``None``: the author's own view, in full)."""
    visible = True if viewer_role is None else may_see_author(case, viewer_role)
    return await _load_view(session=session, case=case, author_visible=visible)


async def staff_case(
    *, session: AsyncSession, telegram_user_id: int, case_id: int | None = None, protocol: str | None = None,
    identity_proven: bool = True,
) -> CaseView:
    """A case for a staff member whose role reads it (:mod:`models.cases.access`), with its author.

    Args:
        session: database session.
        telegram_user_id: the staff member.
        case_id: the case, by id …
        protocol: … or by protocol.
        identity_proven: False when the caller is proven only by the shared staff API token: restricted cases
            do not exist for them (L13460 Art. 10 §7).

    Raises:
        PermissionDenied: not staff, or (:class:`CaseNotReadable`) not of a role that reads this case.
        CaseNotFound: no such case, or a restricted one the caller may not open.
    """
    case = await get_case(session=session, case_id=case_id, protocol=protocol)
    actor = await staff_actor(session=session, telegram_user_id=telegram_user_id, allowed=ALL_STAFF,
                              municipality=case.municipality,
                              prefer=Role.OMBUDSMAN if restricted_to_ombudsman(case) else None)
    _may_open(case, actor, identity_proven=identity_proven)
    return await case_view_for(session=session, case=case, viewer_role=actor.role)


def require_proven_identity(case: Case, *, identity_proven: bool) -> None:
    """Refuse a restricted ombudsman case to a caller proven only by the shared staff API token.

    Raises:
        CaseNotFound: the case is restricted and nothing proves the caller is the Ombudsman (Lei 13.460/2017
            Art. 10 §7).
    """
    if restricted_to_ombudsman(case) and not identity_proven:
        raise CaseNotFound(f"no case {case.id!r}")


def queue_deadline() -> Any:
    """The deadline a case is worked by, as SQL: the complementação's end while waiting for the author, else due_on."""
    return sql_case(
        (col(Case.status) == CaseStatus.AWAITING_COMPLEMENT.value, col(Case.complement_due_on)),
        else_=col(Case.due_on),
    )


def queue_item(case: Case, *, today: dt.date, my_member_ids: Collection[int]) -> QueueItem:
    """A case as a line of a staff queue (chat, API and console): its working deadline and days left."""
    assert case.id is not None
    awaiting = case.status is CaseStatus.AWAITING_COMPLEMENT and case.complement_due_on is not None
    due = case.complement_due_on if awaiting and case.complement_due_on else case.due_on
    return QueueItem(
        id=case.id,
        protocol=case.protocol,
        kind=case.kind,
        ombudsman_type=case.ombudsman_type,
        status=case.status,
        due_on=due,
        days_left=(due - today).days,
        complement_due_on=case.complement_due_on,
        complement_lapsed=awaiting and due < today,
        assigned_staff_id=case.assigned_staff_id,
        assigned_to_me=case.assigned_staff_id in my_member_ids,
        summary=case.summary if len(case.summary) <= 80 else case.summary[:79] + "…",
    )


async def staff_queue(
    *, session: AsyncSession, telegram_user_id: int, today: dt.date, limit: int = 50, offset: int = 0,
    identity_proven: bool = True,
) -> list[QueueItem]:
    """The open cases of the caller's role (every role for admins), the nearest deadline first.

    A case waiting for the citizen's complementação is ordered by that period's end (then it may be archived).

    Args:
        session: database session.
        telegram_user_id: the staff member.
        today: the civil day, for the days left.
        limit: how many at most (a page).
        offset: how many of the queue's first cases to skip (the pages before).
        identity_proven: False for the shared staff API token: no restricted case (L13460 Art. 10 §7).

    Raises:
        PermissionDenied: not staff.
    """
    roles = await staff_roles(session=session, telegram_user_id=telegram_user_id)
    if not roles:
        raise PermissionDenied("not staff")
    statement = select(Case).where(col(Case.status).not_in([s.value for s in FINAL_STATUSES]))
    statement = statement.where(cases_visible_to(roles, identity_proven=identity_proven))
    member_ids = {member_id for member_id in (await session.exec(select(StaffMember.id).where(
        StaffMember.telegram_user_id == telegram_user_id))).all() if member_id is not None}
    statement = statement.order_by(queue_deadline(), col(Case.id)).offset(max(0, offset)).limit(limit)
    return [queue_item(case, today=today, my_member_ids=member_ids) for case in (await session.exec(statement)).all()]


async def staff_queue_size(*, session: AsyncSession, telegram_user_id: int, identity_proven: bool = True) -> int:
    """How many open cases the caller's queue holds (what :func:`staff_queue` pages through).

    Raises:
        PermissionDenied: not staff.
    """
    roles = await staff_roles(session=session, telegram_user_id=telegram_user_id)
    if not roles:
        raise PermissionDenied("not staff")
    statement = select(func.count()).select_from(Case).where(
        col(Case.status).not_in([s.value for s in FINAL_STATUSES]),
        cases_visible_to(roles, identity_proven=identity_proven))
    return int((await session.exec(statement)).one())


def cases_visible_to(roles: dict[str | None, Role], *, identity_proven: bool = True) -> ColumnElement[bool]:
    """The cases a member's roles reach: per municipality, its role's queue (every queue for an admin).

    The same rule as :func:`models.cases.access.reading`, as SQL.
    """
    reach = []
    for place, role in roles.items():
        where: list[ColumnElement[bool]] = [] if place is None else [col(Case.municipality) == place]
        if role is not Role.ADMIN:
            where.append(col(Case.handling_role) == role)
        # L13460 Art. 10 §7: restricted cases are the Ombudsman's alone, proven by their own credential
        if role is not Role.OMBUDSMAN or not identity_proven:
            where.append(~(and_(col(Case.kind) == CaseKind.OMBUDSMAN.value,
                                col(Case.identity_restricted) == True)))  # noqa: E712
        reach.append(and_(true(), *where))
    return or_(*reach)


async def assign(
    *,
    session: AsyncSession,
    telegram_user_id: int,
    case_id: int,
    now: dt.datetime,
    assignee_telegram_user_id: int | None = None,
) -> CaseStatus:
    """Assign a case to the caller (or to another staff member of the role); the first assignment starts it.

    Raises:
        PermissionDenied: the caller or the assignee may not work this case.
        CaseActionRefused: the case is closed.
    """
    case = await get_case(session=session, case_id=case_id)
    actor = await _acting(session=session, telegram_user_id=telegram_user_id, case=case)
    _open(case)
    assignee = actor
    if assignee_telegram_user_id is not None and assignee_telegram_user_id != telegram_user_id:
        try:
            assignee = await _acting(session=session, telegram_user_id=assignee_telegram_user_id, case=case)
        except PermissionDenied:
            raise CaseActionRefused(N_("That person is not staff who can work this case.")) from None
    case.assigned_staff_id = assignee.member_id
    started = case.status is CaseStatus.RECEIVED
    if started:
        case.status = CaseStatus.IN_PROGRESS
    await record_event(
        session=session, case=case, kind=EventKind.ASSIGNED, actor=actor.tag, now=now,
        details={"staff_id": assignee.member_id}, notify_author=started,
    )
    if assignee is not actor:
        await notify_staff(session=session, case=case, what="assigned", dedupe=f"assigned:{case_id}:{now.isoformat()}")
    await session.commit()
    return case.status


def _self_assign(case: Case, actor: StaffActor) -> None:
    if case.assigned_staff_id is None:
        case.assigned_staff_id = actor.member_id


async def request_complement(
    *, session: AsyncSession, telegram_user_id: int, case_id: int, question: str, now: dt.datetime, cities: Cities
) -> dt.date:
    """Ask the author to complete the case; they have 20 days (D9492 Art. 18). Once per case.

    Returns:
        The last day for the author's answer.

    Raises:
        PermissionDenied: the caller may not work this case.
        CaseActionRefused: closed, complementação already asked once, or filed through Open311 (no chat author).
        InvalidInput: the question is too short or too long.
    """
    case = await get_case(session=session, case_id=case_id)
    actor = await _acting(session=session, telegram_user_id=telegram_user_id, case=case)
    _open(case)
    if case.complement_requested_at is not None:
        raise CaseActionRefused(
            N_("More information was already asked for once on this case; it can't be asked again.")
        )
    if (await get_author(session=session, case_id=case_id)).person_id is None:
        # Filed through Open311: its author is not in the chat and could never answer within the 20 days.
        raise CaseActionRefused(
            N_("This case came from another system through Open311: its author cannot be asked in the chat. "
               "Decide it with what it has, or contact that system.")
        )
    text = clean_text(question, min_length=10, max_length=1000)
    _self_assign(case, actor)
    case.status = CaseStatus.AWAITING_COMPLEMENT
    case.complement_question = text
    case.complement_requested_at = now
    case.complement_due_on = complement_due_on(requested_at=now, city=cities.of(case.municipality))
    await record_event(session=session, case=case, kind=EventKind.COMPLEMENT_REQUESTED, actor=actor.tag, now=now,
                       note=text)
    await session.commit()
    return case.complement_due_on


def _handover(case: Case, outcome: Outcome) -> NoticeHandover | None:
    assert case.id is not None
    if outcome is Outcome.ARCHIVE:
        return None
    if case.kind is CaseKind.RIDE_HAILING:
        if outcome is not Outcome.AUTO:
            return None  # Lei 1.533 has no notificação preliminar: a regularisation notice is not a penalty
        rulebook, notice_type = L1533, "auto"
    else:
        rulebook, notice_type = CP, ("auto" if outcome is Outcome.AUTO else "preliminar")
    place = case.place_text or (
        f"{case.latitude:.6f}, {case.longitude:.6f}" if case.latitude is not None and case.longitude is not None else ""
    )
    return NoticeHandover(
        case_id=case.id,
        protocol=case.protocol,
        notice_type=notice_type,
        rulebook=rulebook,
        infraction_code=case.infraction_code,
        accused=case.accused,
        driver_id=case.driver_id,
        place=place,
        occurred_on=case.occurred_on,
        facts=case.summary,
    )


async def decide(
    *,
    session: AsyncSession,
    telegram_user_id: int,
    case_id: int,
    outcome: Outcome,
    reason: str | None,
    now: dt.datetime,
) -> Decision:
    """Decide a representação (CP Art. 32) or a ride-hailing report: notify, issue an auto, or archive.

    Archiving needs a reason, which the author is told. Notifying or issuing an auto hands over to the penalty
    notices (the returned :class:`NoticeHandover`; the notice references ``case_id``).

    Raises:
        PermissionDenied: the caller may not work this case.
        CaseActionRefused: an ombudsman case (answer it instead) or a closed case.
        InvalidInput: no reason to archive.
    """
    case = await get_case(session=session, case_id=case_id)
    actor = await _acting(session=session, telegram_user_id=telegram_user_id, case=case)
    if case.kind is CaseKind.OMBUDSMAN:
        raise CaseActionRefused(N_("An ombudsman case is answered, not decided."))
    _open(case)
    note = None
    if outcome is Outcome.ARCHIVE or (reason and reason.strip()):
        note = clean_text(reason or "", min_length=5, max_length=1000)
    _self_assign(case, actor)
    case.outcome = outcome
    case.outcome_reason = note
    case.status = OUTCOME_STATUS[outcome]
    case.closed_at = now
    await record_event(session=session, case=case, kind=EventKind.DECIDED, actor=actor.tag, now=now, note=note,
                       details={"outcome": outcome.value})
    await session.commit()
    assert case.id is not None
    return Decision(case_id=case.id, protocol=case.protocol, outcome=outcome, status=case.status,
                    handover=_handover(case, outcome))


async def notice_handover(*, session: AsyncSession, case_id: int) -> NoticeHandover | None:
    """The hand-over of a decided case to the penalty notices (None if archived or not decided)."""
    case = await get_case(session=session, case_id=case_id)
    return _handover(case, case.outcome) if case.outcome is not None else None


def _ombudsman(case: Case) -> None:
    if case.kind is not CaseKind.OMBUDSMAN:
        raise CaseActionRefused(N_("Only ombudsman cases are answered this way; decide this case instead."))
    _open(case)


async def answer_case(
    *, session: AsyncSession, telegram_user_id: int, case_id: int, text: str, now: dt.datetime, cities: Cities
) -> None:
    """Give an ombudsman case its conclusive answer (L13460 Art. 12); the author gets it in the chat.

    The answer names its author, the Ouvidor, with the office and role of the municipalities file (issue 18 §1).

    Raises:
        PermissionDenied: not the ombudsman.
        CaseActionRefused: not an ombudsman case, or closed.
        InvalidInput: the answer is too short or too long.
    """
    case = await get_case(session=session, case_id=case_id)
    actor = await _acting(session=session, telegram_user_id=telegram_user_id, case=case)
    _ombudsman(case)
    answer = clean_text(text, min_length=10, max_length=3500)
    member = await session.get(StaffMember, actor.member_id)
    assert member is not None
    author = await ombudsman_author(session=session, member=member,
                                    municipality=cities.of(case.municipality).config)
    _self_assign(case, actor)
    case.answer = answer
    case.status = CaseStatus.ANSWERED
    case.closed_at = now
    await record_event(session=session, case=case, kind=EventKind.ANSWERED, actor=actor.tag, now=now, note=answer,
                       details={"author": author.as_data()})
    await session.commit()


async def extend(
    *, session: AsyncSession, telegram_user_id: int, case_id: int, reason: str, now: dt.datetime, cities: Cities
) -> dt.date:
    """Extend an ombudsman case's deadline once, by 30 days, with a reason (L13460 Art. 16).

    Returns:
        The new deadline.

    Raises:
        PermissionDenied: not the ombudsman.
        CaseActionRefused: not an ombudsman case, closed, or already extended.
        InvalidInput: the reason is too short or too long.
    """
    case = await get_case(session=session, case_id=case_id)
    actor = await _acting(session=session, telegram_user_id=telegram_user_id, case=case)
    _ombudsman(case)
    if case.extended_at is not None:
        raise CaseActionRefused(
            N_("The deadline was already extended once; the law allows only one extension (Lei 13.460/2017, Art. 16).")
        )
    why = clean_text(reason, min_length=10, max_length=1000)
    _self_assign(case, actor)
    case.due_on = extended_due_on(due_on=case.due_on, city=cities.of(case.municipality))
    case.extended_at = now
    case.extension_reason = why
    await record_event(session=session, case=case, kind=EventKind.EXTENDED, actor=actor.tag, now=now, note=why,
                       details={"due_on": case.due_on.isoformat()})
    await session.commit()
    return case.due_on


async def archive_ombudsman(
    *, session: AsyncSession, telegram_user_id: int, case_id: int, reason: str, now: dt.datetime, cities: Cities
) -> None:
    """Archive an ombudsman case without an answer, with a reason the author is told — only on a ground the law lists.

    L13460 Art. 12 and 16 owe every manifestação a conclusive answer within 30 days (once extended):
    archiving is not a way around it. The one ground the law gives to close a case without it is a complementação
    the author did not give within its 20 days (D9492 Art. 18); any other reason (a repeated
    manifestação, a matter of another office) is told to the author as the answer itself (LEGAL-CHOICES).

    Raises:
        PermissionDenied: not the ombudsman.
        CaseActionRefused: not an ombudsman case, closed, or no lapsed complementação to archive it on.
        InvalidInput: the reason is too short or too long.
    """
    case = await get_case(session=session, case_id=case_id)
    actor = await _acting(session=session, telegram_user_id=telegram_user_id, case=case)
    _ombudsman(case)
    today = now.astimezone(cities.of(case.municipality).tz).date()
    lapsed = (case.status is CaseStatus.AWAITING_COMPLEMENT and case.complement_due_on is not None
              and today > case.complement_due_on)
    if not lapsed:
        raise CaseActionRefused(N_("An ombudsman case is owed a conclusive answer (Lei 13.460/2017, Art. 12 and 16): "
                                   "answer it. It is archived without an answer only when the author did not give "
                                   "the complementação asked within 20 days (Decreto 9.492/2018, Art. 18)."))
    why = clean_text(reason, min_length=5, max_length=1000)
    _self_assign(case, actor)
    case.status = CaseStatus.ARCHIVED
    case.outcome = Outcome.ARCHIVE
    case.outcome_reason = why
    case.closed_at = now
    await record_event(session=session, case=case, kind=EventKind.ARCHIVED, actor=actor.tag, now=now, note=why)
    await session.commit()


async def archive_case(
    *, session: AsyncSession, telegram_user_id: int, case_id: int, reason: str, now: dt.datetime, cities: Cities
) -> None:
    """Archive any open case with a reason the author is told.

    An ombudsman case is archived without an answer (:func:`archive_ombudsman`); a representação or a
    ride-hailing report is decided so (CP Art. 32, :func:`decide` with :attr:`Outcome.ARCHIVE`).

    Raises:
        PermissionDenied: the caller may not work this case.
        CaseActionRefused: the case is closed, or an ombudsman case without a ground to archive it.
        InvalidInput: the reason is too short or too long.
    """
    case = await get_case(session=session, case_id=case_id)
    if case.kind is CaseKind.OMBUDSMAN:
        await archive_ombudsman(session=session, telegram_user_id=telegram_user_id, case_id=case_id, reason=reason,
                                now=now, cities=cities)
    else:
        await decide(session=session, telegram_user_id=telegram_user_id, case_id=case_id, outcome=Outcome.ARCHIVE,
                     reason=reason, now=now)
