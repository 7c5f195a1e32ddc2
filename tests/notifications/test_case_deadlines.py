"""Staff are warned before a case's deadline passes, once; the author is reminded to complete a case; staff hear
when the 20 days to complete it lapsed (D9492 Art. 18); abandoned files are deleted."""

import datetime as dt

import pytest
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import cities_of
from core.settings import Settings
from models.cases.attachments import store_attachment
from models.cases.filing import file_ombudsman_case, file_representation
from models.cases.handling import assign, request_complement
from models.cases.limits import CaseLimits
from models.cases.tables import CaseAttachment
from models.drafts import save_draft
from models.outbox import OutboxMessage
from models.people import Role, add_staff, ensure_person
from notifications.scans import ScanInputs, run_scan
from tests.auxil.case_files import png
from tests.auxil.case_people import NOW, Cast, make_cast, ombudsman, representation


@pytest.fixture
async def cast(session: AsyncSession) -> Cast:
    return await make_cast(session)


async def _messages(session: AsyncSession, kind: str) -> list[OutboxMessage]:
    rows = await session.exec(select(OutboxMessage).where(OutboxMessage.kind == kind).order_by(col(OutboxMessage.id)))
    return list(rows.all())


async def test_staff_are_warned_n_days_before_and_only_once(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    rep = await file_representation(session=session, person_id=cast.joao.id, form=representation(), now=NOW,
                                    cities=cities_of(settings))  # due 12 March; BALCAO_CASE_WARNING_DAYS=3
    await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                              city=cities_of(settings).default)
    before = NOW + dt.timedelta(days=6)  # 8 March: 4 days left
    assert await run_scan("case-deadlines", session=session, now=before, inputs=ScanInputs.of(settings)) == 0
    warn = NOW + dt.timedelta(days=7)  # 9 March: 3 days left
    assert await run_scan("case-deadlines", session=session, now=warn, inputs=ScanInputs.of(settings)) == 1
    assert await run_scan("case-deadlines", session=session, now=warn + dt.timedelta(days=1),
                          inputs=ScanInputs.of(settings)) == 0
    [warning] = [m for m in await _messages(session, "cases.staff") if m.payload["what"] == "deadline"]
    assert (warning.person_id, warning.payload["protocol"]) == (cast.clara.id, rep.protocol)
    await assign(session=session, telegram_user_id=cast.clara.telegram_user_id, case_id=rep.case_id, now=NOW)
    assert await run_scan("case-deadlines", session=session, now=warn,
                          inputs=ScanInputs.of(settings)) == 0  # same date: once


async def test_unassigned_cases_warn_every_member_of_the_role(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    other = await ensure_person(session=session, telegram_user_id=7201, chat_id=7201, first_name="Carla",
                                language_code="pt-br")
    await add_staff(session=session, telegram_user_id=7201, role=Role.CLERK, name="Carla", actor="test")
    await file_representation(session=session, person_id=cast.joao.id, form=representation(), now=NOW,
                              cities=cities_of(settings))
    assert await run_scan("case-deadlines", session=session, now=NOW + dt.timedelta(days=8),
                          inputs=ScanInputs.of(settings)) == 2
    warnings = [m.person_id for m in await _messages(session, "cases.staff") if m.payload["what"] == "deadline"]
    assert sorted(warnings) == sorted([cast.clara.id, other.id])


async def test_the_complementacao_period_reminds_the_author_then_tells_staff_it_lapsed(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    filed = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                                      city=cities_of(settings).default)
    await request_complement(session=session, telegram_user_id=cast.otavio.telegram_user_id, case_id=filed.case_id,
                             question="Qual é o endereço do posto?", now=NOW,
                             cities=cities_of(settings))  # until 23 March
    assert await run_scan("case-deadlines", session=session, now=NOW + dt.timedelta(days=18),
                          inputs=ScanInputs.of(settings)) == 1
    reminder = (await _messages(session, "cases.update"))[-1]
    assert (reminder.person_id, reminder.payload["event"]) == (cast.joao.id, "complement_reminder")
    assert await run_scan("case-deadlines", session=session, now=NOW + dt.timedelta(days=22),
                          inputs=ScanInputs.of(settings)) == 1
    lapsed = [m for m in await _messages(session, "cases.staff") if m.payload["what"] == "complement_lapsed"]
    assert [m.person_id for m in lapsed] == [cast.otavio.id]
    assert await run_scan("case-deadlines", session=session, now=NOW + dt.timedelta(days=23),
                          inputs=ScanInputs.of(settings)) == 0


async def test_files_of_abandoned_forms_are_deleted_but_not_those_of_a_form_in_progress(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    limits = CaseLimits.of(settings)
    await store_attachment(session=session, person_id=cast.joao.id, content=png(), file_name=None, limits=limits,
                           already=[])
    await store_attachment(session=session, person_id=cast.maria.id, content=png(), file_name=None, limits=limits,
                           already=[])
    await save_draft(session=session, person_id=cast.maria.id, form="ouvidoria", step="files", data={})
    await run_scan("case-abandoned-files", session=session, now=dt.datetime.now(dt.UTC) + dt.timedelta(days=2),
                   inputs=ScanInputs.of(settings))
    assert [a.person_id for a in (await session.exec(select(CaseAttachment))).all()] == [cast.maria.id]
