"""Who reads what, in the chat: every role opens every kind of case from /pendencias (a forged button where the
case is not in their queue), and gets what models/cases/access.py says (LGPD Art. 6 III; CP Art. 31;
L13460 Art. 10 §7)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel.ext.asyncio.session import AsyncSession

from core.db import SessionFactory
from core.settings import Settings
from models.people import Role
from tests.auxil.access_matrix import AUTHOR_NAME, EXPECTED, KINDS, ROLES, Gets, file_every_kind, member_of
from tests.auxil.case_chat import Talk
from tests.auxil.case_people import Cast, make_cast

ANSWER = {Gets.AUTHOR: AUTHOR_NAME, Gets.REFUSED: "worked by staff of another role",
          Gets.ABSENT: "That case does not exist."}


@pytest.fixture
async def cast(session: AsyncSession) -> Cast:
    return await make_cast(session, with_admin=True)


@pytest.mark.parametrize("role", ROLES, ids=[role.value for role in ROLES])
async def test_each_role_opens_in_the_chat_only_the_cases_that_are_its_work(
    emulator: Any, bot_app: Any, session: AsyncSession, settings: Settings, sessions: SessionFactory, cast: Cast,
    role: Role,
) -> None:
    cases = await file_every_kind(session, settings, cast)
    who = member_of(cast, role)
    staff = Talk(emulator, emulator.add_user(who, "Servidor", language_code="en"))
    queue = await staff.send("/pendencias", "ending")  # "Pending cases" or "Nothing pending"
    for kind, gets in zip(KINDS, EXPECTED[role], strict=True):
        case_id, protocol = cases[kind]
        mark = staff._mark()
        emulator.press_button(staff.user, queue, f"pend:case:{case_id}", forged=True)
        answer = await emulator.wait_for_message(who, lambda m: any(
            text in (m.text or "") for text in ANSWER.values()), after=mark)
        assert ANSWER[gets] in (answer.text or ""), (kind, answer.text)
        assert (protocol in (queue.text or "")) is (gets is Gets.AUTHOR), kind
    assert emulator.unanswered_callbacks() == []
