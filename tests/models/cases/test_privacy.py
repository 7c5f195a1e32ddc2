"""LGPD: export everything held about a person (Art. 18 II); erase what may be erased and keep, with the reason,
what the law requires (Art. 16 I, Art. 18 VI)."""

import json

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import cities_of
from core.settings import Settings
from models.cases.attachments import store_attachment
from models.cases.filing import file_ombudsman_case, file_representation
from models.cases.limits import CaseLimits
from models.cases.privacy import erase_personal_data, export_personal_data, kept_records
from models.cases.tables import CaseAttachment, CaseAuthor
from models.drafts import get_draft, save_draft
from models.drivers.tables import Driver
from models.people import Person
from tests.auxil.case_files import png
from tests.auxil.case_people import NOW, Cast, ombudsman, representation
from tests.auxil.drivers import driver_row, seed_registry


async def test_the_export_holds_the_person_their_cases_and_their_draft(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    await file_representation(session=session, person_id=cast.joao.id, form=representation(), now=NOW,
                              cities=cities_of(settings))
    await save_draft(session=session, person_id=cast.joao.id, form="ouvidoria", step="text", data={"type": "elogio"})
    document = await export_personal_data(session=session, person_id=cast.joao.id, now=NOW)
    json.dumps(document)  # JSON-safe
    assert document["person"]["first_name"] == "João"
    assert document["form_in_progress"]["answers"] == {"type": "elogio"}
    [case] = document["cases"]
    assert case["protocol"] == "REP-2026-000001"
    assert case["author"]["name"] == "João Batista Pereira"
    assert case["author"]["cpf"] == "***.982.247-**"  # masked: the file travels through Telegram
    assert case["timeline"][0]["event"] == "filed"
    assert document["driver"] is None and document["notices"] == []
    other = await export_personal_data(session=session, person_id=cast.maria.id, now=NOW)
    assert other["cases"] == []


async def test_erasure_blanks_what_it_may_and_says_what_the_law_keeps(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    await file_representation(session=session, person_id=cast.joao.id, form=representation(), now=NOW,
                              cities=cities_of(settings))
    await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(), now=NOW,
                              city=cities_of(settings).default)
    await save_draft(session=session, person_id=cast.joao.id, form="representacao", step="name", data={})
    await store_attachment(session=session, person_id=cast.joao.id, content=png(), file_name=None,
                           limits=CaseLimits.of(settings), already=[])
    report = await erase_personal_data(session=session, person_id=cast.joao.id, now=NOW)
    assert [k.what for k in report.kept] == [
        "Your representations (Código de Posturas)",
        "Your ombudsman cases",
        "Your Telegram account number",
    ]
    assert "Art. 31" in report.kept[0].why and "Art. 10 §7" in report.kept[1].why
    person = await session.get(Person, cast.joao.id)
    assert person is not None and person.first_name == "" and person.erased_at is not None
    assert await get_draft(session=session, person_id=cast.joao.id) is None
    assert (await session.exec(select(CaseAttachment))).all() == []
    authors = (await session.exec(select(CaseAuthor))).all()
    assert {a.name for a in authors} == {"João Batista Pereira"} and {a.cpf for a in authors} == {None}


async def test_a_person_without_records_keeps_nothing(session: AsyncSession, cast: Cast) -> None:
    assert await kept_records(session=session, person_id=cast.maria.id) == []


async def test_a_linked_driver_gets_the_registration_in_the_export_and_keeps_it(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """L1533 Art. 8 and 12: the registry of authorized drivers stays; the export shows it, CPF masked."""
    await seed_registry(session, settings, [driver_row()])
    driver = (await session.exec(select(Driver))).one()
    driver.person_id = cast.maria.id
    await session.commit()
    document = await export_personal_data(session=session, person_id=cast.maria.id, now=NOW)
    assert document["driver"]["name"] == "Maria Aparecida da Silva"
    assert document["driver"]["cpf"] == "***.456.789-**"
    assert document["driver"]["authorization"]["plate"] == "QBX-1234"
    report = await erase_personal_data(session=session, person_id=cast.maria.id, now=NOW)
    assert [k.what for k in report.kept] == ["Your driver registration", "Your Telegram account number"]
    assert (await session.exec(select(Driver))).one().name == "Maria Aparecida da Silva"
