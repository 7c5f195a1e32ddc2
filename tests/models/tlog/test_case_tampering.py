"""Issue 23, item 2: what went unseen outside the log — a case's deadlines, an ombudsman case's answer and status, a
citizen's evidence file, a staff role — is now found by ``notice verify``, each changed in the database as an
attacker with database access would (raw SQL, the application not involved). On the old main each of these
reported 0 problems."""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass

import pytest
from sqlalchemy import LargeBinary, bindparam, text
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import cities_of
from core.settings import Settings
from models.cases.attachments import store_attachment
from models.cases.filing import file_ombudsman_case
from models.cases.handling import answer_case
from models.cases.limits import CaseLimits
from tests.auxil.case_files import png
from tests.auxil.case_people import NOW, Cast, make_cast, ombudsman
from tests.auxil.tlog import verify


@dataclass(frozen=True)
class Filed:
    case_id: int
    attachment_id: int
    ombudsman_staff_id: int


@pytest.fixture
async def filed(session: AsyncSession, settings: Settings) -> Filed:
    cast: Cast = await make_cast(session)
    photo = await store_attachment(session=session, person_id=cast.joao.id, content=png(seed=3), file_name="f.png",
                                   limits=CaseLimits.of(settings), already=[])
    assert photo.id is not None
    case = await file_ombudsman_case(session=session, person_id=cast.joao.id,
                                     form=ombudsman(attachment_ids=[photo.id]), now=NOW,
                                     city=cities_of(settings).default)
    await answer_case(session=session, cities=cities_of(settings), telegram_user_id=cast.otavio.telegram_user_id,
                      case_id=case.case_id,
                      text="O médico volta na segunda-feira.", now=NOW + dt.timedelta(days=3))
    staff = (await session.exec(text("SELECT id FROM staff_member WHERE role = 'OMBUDSMAN'"))).scalar_one()  # type: ignore[call-overload]
    assert (await verify(session)).ok
    return Filed(case_id=case.case_id, attachment_id=photo.id, ombudsman_staff_id=int(staff))


FORGED = png(seed=99)

TAMPERINGS = {
    # CP Art. 32 / L13460 Art. 16: the deadline runs from received_at and ends on due_on.
    "received_at moved": ("UPDATE citizen_case SET received_at = '2026-02-01 10:00:00' WHERE id = :case",
                          "citizen_case", "received_at"),
    "due_on moved": ("UPDATE citizen_case SET due_on = '2026-06-30' WHERE id = :case", "citizen_case", "due_on"),
    # L13460 Art. 12: the conclusive answer is the Ombudsman's act.
    "answer rewritten": ("UPDATE citizen_case SET answer = 'Nada a fazer.' WHERE id = :case",
                         "citizen_case", "answer"),
    "status reopened": ("UPDATE citizen_case SET status = 'RECEIVED', closed_at = NULL WHERE id = :case",
                        "citizen_case", "status"),
    "evidence bytes and sha256 replaced": (
        "UPDATE case_attachment SET content = :content, sha256 = :sha WHERE id = :attachment",
        "case_attachment", "content"),
    # L13460 Art. 10 §7: the role decides who reads the restricted author.
    "staff role changed": ("UPDATE staff_member SET role = 'CLERK' WHERE id = :staff", "staff_member", "role"),
    "author reassigned": ("UPDATE case_author SET person_id = NULL WHERE case_id = :case", "case_author",
                          "person_id"),
}


@pytest.mark.parametrize("wording", list(TAMPERINGS))
async def test_a_change_behind_the_applications_back_is_found(session: AsyncSession, filed: Filed,
                                                              wording: str) -> None:
    statement, table, column = TAMPERINGS[wording]
    params = {"case": filed.case_id, "attachment": filed.attachment_id, "staff": filed.ombudsman_staff_id,
              "content": FORGED, "sha": hashlib.sha256(FORGED).hexdigest()}
    clause = text(statement).bindparams(bindparam("content", type_=LargeBinary())) if ":content" in statement \
        else text(statement)
    used = {name: value for name, value in params.items() if f":{name}" in statement}
    await session.exec(clause, params=used)  # type: ignore[call-overload]
    await session.commit()
    report = await verify(session)
    assert [p for p in report.problems if p.where.startswith(table) and column in p.params.get("fields", "")], \
        report.problems


async def test_a_bulk_update_through_the_application_is_logged(session: AsyncSession, filed: Filed) -> None:
    """``update(...)`` statements (erasure, claiming files) change rows the flush never sees: they are logged."""
    from sqlmodel import col, update

    from models.cases.tables import CaseAuthor

    await session.exec(update(CaseAuthor).where(col(CaseAuthor.case_id) == filed.case_id).values(cpf="52998224725"))
    await session.commit()
    assert (await verify(session)).ok


async def test_a_staff_token_inserted_behind_the_applications_back_is_found(session: AsyncSession,
                                                                             filed: Filed) -> None:
    """The second pentest of issue 23: a token hash inserted for the real Ombudsman lets its holder act with the
    identity proven (L13460 Art. 10 §7). The credential is covered, so one issued through the application verifies
    and one inserted with raw SQL is found."""
    from models.console.api_tokens import issue_api_token

    holder = (await session.exec(text(  # type: ignore[call-overload]
        "SELECT telegram_user_id FROM staff_member WHERE id = :staff"), params={"staff": filed.ombudsman_staff_id})
    ).scalar_one()
    await issue_api_token(session=session, telegram_user_id=int(holder), label="planilha", now=NOW)
    assert (await verify(session)).ok
    await session.exec(text(  # type: ignore[call-overload]
        "INSERT INTO staff_api_token (token_sha256, telegram_user_id, label, created_at) "
        "VALUES (:sha, :holder, 'x', '2026-03-01 10:00:00')"),
        params={"sha": hashlib.sha256(b"bst_forged").hexdigest(), "holder": int(holder)})
    await session.commit()
    report = await verify(session)
    assert [p for p in report.problems if p.where.startswith("staff_api_token")], report.problems
