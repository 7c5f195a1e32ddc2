"""Who reads what inside one municipality (models/cases/access.py): every role against every kind of case, in the
domain that the console, the chat and the API all call (LGPD Art. 6 III; CP Art. 31; L13460 Art. 10 §7)."""

from __future__ import annotations

import pytest
from sqlmodel.ext.asyncio.session import AsyncSession

from core.settings import Settings
from models.cases.access import CaseNotReadable
from models.cases.handling import assign, staff_case, staff_queue
from models.cases.timeline import CaseNotFound
from models.people import PermissionDenied, Role
from tests.auxil.access_matrix import AUTHOR_NAME, MATRIX, Gets, file_every_kind, member_of
from tests.auxil.case_people import NOW, Cast, make_cast


@pytest.fixture
async def cast(session: AsyncSession) -> Cast:
    return await make_cast(session, with_admin=True)


@pytest.mark.parametrize(("role", "kind", "gets"), MATRIX, ids=[f"{r.value}-{k}" for r, k, _ in MATRIX])
async def test_each_role_reads_only_the_kinds_of_case_that_are_its_work(
    session: AsyncSession, settings: Settings, cast: Cast, role: Role, kind: str, gets: Gets
) -> None:
    cases = await file_every_kind(session, settings, cast)
    case_id, protocol = cases[kind]
    who = member_of(cast, role)
    queue = {item.protocol for item in await staff_queue(session=session, telegram_user_id=who, today=NOW.date())}
    if gets is Gets.AUTHOR:
        view = await staff_case(session=session, telegram_user_id=who, protocol=protocol)
        assert view.author.name == AUTHOR_NAME
        assert protocol in queue
        return
    assert protocol not in queue
    expected = CaseNotFound if gets is Gets.ABSENT else CaseNotReadable
    with pytest.raises(expected):
        await staff_case(session=session, telegram_user_id=who, protocol=protocol)
    with pytest.raises((CaseNotFound, PermissionDenied)):
        await assign(session=session, telegram_user_id=who, case_id=case_id, now=NOW)


async def test_the_shared_token_never_reaches_a_restricted_case_even_for_the_ombudsman(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """L13460 Art. 10 §7: the deployment-wide token only names the Ombudsman, it does not prove them."""
    cases = await file_every_kind(session, settings, cast)
    otavio = cast.otavio.telegram_user_id
    _case_id, restricted = cases["ombudsman_restricted"]
    with pytest.raises(CaseNotFound):
        await staff_case(session=session, telegram_user_id=otavio, protocol=restricted, identity_proven=False)
    queue = await staff_queue(session=session, telegram_user_id=otavio, today=NOW.date(), identity_proven=False)
    assert [item.protocol for item in queue] == [cases["ombudsman"][1]]
