"""The broadcast audience "citizens who follow a topic": authors of open cases on a kind, a CP table or a protocol."""

import pytest
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import cities_of
from core.settings import Settings
from models.cases.filing import file_ombudsman_case, file_representation
from models.cases.handling import decide
from models.cases.privacy import erase_personal_data
from models.cases.tables import Outcome
from notifications.audiences import AudienceParams, recipients
from notifications.citizen_audiences import UnknownTopic
from tests.auxil.case_people import NOW, make_cast, ombudsman, representation


async def test_followers_of_a_topic_are_the_authors_of_open_cases(session: AsyncSession, settings: Settings) -> None:
    cast = await make_cast(session)
    rep = await file_representation(session=session, person_id=cast.joao.id, form=representation(), now=NOW,
                                    cities=cities_of(settings))
    await file_representation(session=session, person_id=cast.maria.id,
                              form=representation(infraction_code="CP-II-10"), now=NOW, cities=cities_of(settings))
    await file_ombudsman_case(session=session, person_id=cast.maria.id, form=ombudsman(restricted=False), now=NOW,
                              city=cities_of(settings).default)

    async def who(topic: str) -> list[int]:
        return await recipients("citizens", session=session, now=NOW, params=AudienceParams(topic=topic))

    assert await who("representacao") == sorted([cast.joao.id, cast.maria.id])
    assert await who("cp-i") == [cast.joao.id]
    assert await who("ouvidoria") == [cast.maria.id]
    await decide(session=session, telegram_user_id=cast.clara.telegram_user_id, case_id=rep.case_id,
                 outcome=Outcome.NOTIFY, reason=None, now=NOW)
    assert await who("CP-I") == []  # closed: no longer followed
    assert await who(rep.protocol) == [cast.joao.id]  # the case itself still reaches its author
    await erase_personal_data(session=session, person_id=cast.maria.id, now=NOW)
    assert await who("ouvidoria") == []
    with pytest.raises(UnknownTopic):
        await who("lixo")


async def test_a_restricted_author_is_reached_by_no_broadcast(session: AsyncSession, settings: Settings) -> None:
    """L13460 Art. 10 §7: neither ``ouvidoria`` nor the protocol reaches the author who restricted their
    identity; to the clerk who broadcasts, that case does not exist (the count says nothing either)."""
    cast = await make_cast(session)
    hidden = await file_ombudsman_case(session=session, person_id=cast.joao.id, form=ombudsman(restricted=True),
                                       now=NOW, city=cities_of(settings).default)
    await file_ombudsman_case(session=session, person_id=cast.maria.id, form=ombudsman(restricted=False), now=NOW,
                              city=cities_of(settings).default)

    async def who(topic: str) -> list[int]:
        return await recipients("citizens", session=session, now=NOW, params=AudienceParams(topic=topic))

    assert await who("ouvidoria") == [cast.maria.id]
    assert await who(hidden.protocol) == []
