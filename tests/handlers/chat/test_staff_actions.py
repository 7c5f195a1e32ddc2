"""The /pendencias staff actions on the form engine (issue 19 §1): the role checked on every update, a double tap
on Confirm decides once, the domain's text rules kept when typed (nothing typed lost), and back to the queue page
the case was opened from, done or cancelled."""

import datetime as dt
from typing import Any

from sqlmodel import col, select

from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.cases.filing import file_representation
from models.cases.tables import Case, CaseEvent, CaseStatus, EventKind
from models.columns import utcnow
from models.people import Person, Role, StaffMember, add_staff
from tests.auxil.case_chat import Talk
from tests.auxil.case_people import representation

JOAO, CLARA = 851001, 851101


async def _setup(sessions: SessionFactory, settings: Settings, cases: int = 1) -> list[Case]:
    async with sessions() as session:
        for telegram_id, name in ((JOAO, "João"), (CLARA, "Clara")):
            session.add(Person(telegram_user_id=telegram_id, chat_id=telegram_id, first_name=name, locale="en"))
        await session.commit()
        await add_staff(session=session, telegram_user_id=CLARA, role=Role.CLERK, name="Clara", actor="test")
        joao = (await session.exec(select(Person).where(Person.telegram_user_id == JOAO))).one()
        for days_ago in range(cases):  # one a day, within the daily limit
            await file_representation(session=session, person_id=joao.id, form=representation(),
                                      now=utcnow() - dt.timedelta(days=days_ago), cities=cities_of(settings))
        return list((await session.exec(select(Case).order_by(col(Case.id)))).all())


async def _status(sessions: SessionFactory, case_id: int | None) -> CaseStatus:
    async with sessions() as session:
        case = await session.get(Case, case_id)
        assert case is not None
        await session.refresh(case)
        return case.status


def _texts_after(emulator: Any, mark: int) -> list[str]:
    return [m.text or "" for m in emulator.messages(CLARA) if m.message_id > mark]


async def test_the_role_is_checked_on_every_update_not_only_at_the_start(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    (case,) = await _setup(sessions, settings)
    clara = Talk(emulator, emulator.add_user(CLARA, "Clara", language_code="en"))
    queue = await clara.send("/pendencias", "Pending cases")
    opened = await clara.press(queue, f"pend:case:{case.id}", case.protocol)
    await clara.press(opened, f"pend:archive:{case.id}", "reason for archiving")
    async with sessions() as session:  # the role is withdrawn while she types
        for member in (await session.exec(select(StaffMember).where(StaffMember.telegram_user_id == CLARA))).all():
            member.active = False
            session.add(member)
        await session.commit()
    await clara.send("Fiscal foi ao local e não havia entulho.", "only for city hall staff")
    assert not [t for t in clara.since(opened.message_id) if "Confirm?" in t]
    assert await _status(sessions, case.id) is not CaseStatus.ARCHIVED
    await clara.send("Outra tentativa de arquivar.", "I did not understand")  # the form was closed, not left open


async def test_a_double_tap_on_confirm_at_the_same_instant_decides_once_and_says_so(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    (case,) = await _setup(sessions, settings)
    clara = Talk(emulator, emulator.add_user(CLARA, "Clara", language_code="en"))
    queue = await clara.send("/pendencias", "Pending cases")
    opened = await clara.press(queue, f"pend:case:{case.id}", case.protocol)
    await clara.press(opened, f"pend:archive:{case.id}", "reason for archiving")
    confirm = await clara.send("Fiscal foi ao local e não havia entulho.", "Confirm?")
    assert "pact:send" in clara.buttons(confirm)
    for _ in range(2):
        emulator.press_button(clara.user, confirm, "pact:send")
    await emulator.wait_until(lambda: any("already confirmed" in t for t in _texts_after(emulator,
                                                                                          confirm.message_id)))
    answers = _texts_after(emulator, confirm.message_id)
    assert sum("Archived. The author was told the reason." in t for t in answers) == 1
    assert sum(f"already confirmed on case <b>{case.protocol}</b>" in t or
               f"already confirmed on case {case.protocol}" in t for t in answers) == 1
    async with sessions() as session:
        events = (await session.exec(select(CaseEvent).where(CaseEvent.case_id == case.id))).all()
    assert sum(event.kind in (EventKind.ARCHIVED, EventKind.DECIDED) for event in events) == 1
    await emulator.wait_until(lambda: not emulator.unanswered_callbacks())


async def test_a_question_longer_than_the_domain_takes_is_refused_when_typed_and_the_form_waits(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    """Before: 3,500 characters were taken, the domain refused 1,000 at Confirm and the draft was thrown away."""
    (case,) = await _setup(sessions, settings)
    clara = Talk(emulator, emulator.add_user(CLARA, "Clara", language_code="en"))
    queue = await clara.send("/pendencias", "Pending cases")
    opened = await clara.press(queue, f"pend:case:{case.id}", case.protocol)
    await clara.press(opened, f"pend:ask:{case.id}", "Type the question for the author")
    refused = await clara.send("Qual é o número? " * 70, "too long")
    assert "1000" in refused.text or "1,000" in refused.text
    confirm = await clara.send("Qual é o número da casa em frente?", "Confirm?")  # still asking: nothing lost
    await clara.press(confirm, "pact:send", "Sent to the author")
    assert await _status(sessions, case.id) is CaseStatus.AWAITING_COMPLEMENT


async def test_done_or_cancelled_the_clerk_is_back_on_the_queue_page_the_case_came_from(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    cases = await _setup(sessions, settings, 13)
    clara = Talk(emulator, emulator.add_user(CLARA, "Clara", language_code="en"))
    first = await clara.send("/pendencias", "here 1 to 10.")
    second = await clara.press_and_edit(first, "pend:page:2", "here 11 to 13.")
    on_page = [b for b in clara.buttons(second) if b.startswith("pend:case:")]
    assert on_page and all(b.endswith(":2") for b in on_page)
    case_id = int(on_page[0].split(":")[2])
    protocol = next(case.protocol for case in cases if case.id == case_id)
    opened = await clara.press(second, on_page[0], protocol)
    assert "pend:page:2" in clara.buttons(opened)  # ◀ Pending cases goes back to page 2, not page 1
    prompt = await clara.press(opened, f"pend:archive:{case_id}:2", "reason for archiving")
    back = await clara.press(prompt, "pact:cancel", "here 11 to 13.")
    assert any("Cancelled" in (m.text or "") for m in emulator.messages(CLARA) if m.message_id >= prompt.message_id)
    opened = await clara.press(back, on_page[0], protocol)
    await clara.press(opened, f"pend:archive:{case_id}:2", "reason for archiving")
    confirm = await clara.send("Fiscal foi ao local e não havia entulho.", "Confirm?")
    await clara.press(confirm, "pact:send", "here 11 to 12.")  # one case fewer, still page 2
    assert await _status(sessions, case_id) is CaseStatus.ARCHIVED


async def test_the_text_is_changed_from_the_confirmation_and_the_rest_of_the_action_is_kept(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    """Before: the only way to fix a typo in a reason was to cancel and type everything again."""
    (case,) = await _setup(sessions, settings)
    clara = Talk(emulator, emulator.add_user(CLARA, "Clara", language_code="en"))
    queue = await clara.send("/pendencias", "Pending cases")
    opened = await clara.press(queue, f"pend:case:{case.id}", case.protocol)
    await clara.press(opened, f"pend:archive:{case.id}", "reason for archiving")
    confirm = await clara.send("Fiscal foi ao loca e não havia entulho.", "Confirm?")
    assert "Archive with this reason" in confirm.text
    which = await clara.press(confirm, "pact:edit", "What do you want to change?")
    prompt = await clara.press(which, "pact:edit:text", "reason for archiving")  # the same action, the same case
    fixed = await clara.send("Fiscal foi ao local e não havia entulho.", "Confirm?")
    assert prompt.message_id < fixed.message_id and "ao local e" in fixed.text and "Archive with" in fixed.text
    await clara.press(fixed, "pact:send", "Archived. The author was told the reason.")
    async with sessions() as session:
        stored = await session.get(Case, case.id)
        assert stored is not None
        await session.refresh(stored)
    assert stored.status is CaseStatus.ARCHIVED and stored.outcome_reason == "Fiscal foi ao local e não havia entulho."
