"""The author details of a person's last case, offered back in the chat (issue 19 §4.5; LGPD Art. 18 VI)."""

from __future__ import annotations

import datetime as dt

from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import cities_of
from core.settings import Settings
from models.cases.filing import Author, file_ombudsman_case, file_representation
from models.cases.known_author import KnownAuthor, last_author
from models.people import Person
from tests.auxil.case_people import NOW, make_cast, ombudsman, representation


async def test_the_newest_own_case_is_the_one_offered(session: AsyncSession, settings: Settings) -> None:
    cast = await make_cast(session)
    assert await last_author(session=session, person_id=cast.joao.id) is None
    await file_representation(session=session, person_id=cast.joao.id, form=representation(), now=NOW,
                              cities=cities_of(settings))
    await file_ombudsman_case(session=session, person_id=cast.maria.id, now=NOW + dt.timedelta(hours=1),
                              form=ombudsman(author=Author(name="Maria Aparecida da Silva")),
                              city=cities_of(settings).default)
    assert await last_author(session=session, person_id=cast.joao.id) == KnownAuthor(
        "João Batista Pereira", "Pedreiro", "Rua das Flores, 123, Centro")
    await file_ombudsman_case(session=session, person_id=cast.joao.id, now=NOW + dt.timedelta(days=1),
                              form=ombudsman(author=Author(name="João B. Pereira")), city=cities_of(settings).default)
    assert await last_author(session=session, person_id=cast.joao.id) == KnownAuthor("João B. Pereira", None, None)


async def test_cases_before_an_erasure_are_not_offered(session: AsyncSession, settings: Settings) -> None:
    cast = await make_cast(session)
    await file_representation(session=session, person_id=cast.joao.id, form=representation(), now=NOW,
                              cities=cities_of(settings))
    person = await session.get(Person, cast.joao.id)
    assert person is not None
    person.erased_at = NOW + dt.timedelta(hours=1)
    session.add(person)
    await session.commit()
    assert await last_author(session=session, person_id=cast.joao.id) is None
