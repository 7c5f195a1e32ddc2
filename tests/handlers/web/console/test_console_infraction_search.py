"""The notice form finds the infraction by its words without JavaScript: "Buscar" posts the form, which comes back
with everything typed kept and the matching catalogue rows as buttons (the chat's search,
models.cases.catalogue_search); pressing one fills the code and its law, and nothing is issued meanwhile."""

from __future__ import annotations

import re

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.cases.filing import file_representation
from models.cases.handling import decide
from models.cases.tables import Case, Outcome
from models.notices.tables import Notice
from tests.auxil.case_people import NOW, make_cast, representation
from tests.auxil.console import console_client, sign_in
from tests.auxil.notices import designate

CLARA = 7101


async def test_the_infraction_is_found_by_its_words_and_chosen_without_javascript(
    session: AsyncSession, sessions: SessionFactory, settings: Settings
) -> None:
    cast = await make_cast(session)
    await designate(session, settings, CLARA)
    filed = await file_representation(session=session, person_id=cast.joao.id, form=representation(), now=NOW,
                                      cities=cities_of(settings))
    case = (await session.exec(select(Case).where(Case.protocol == filed.protocol))).one()
    assert case.id is not None
    await decide(session=session, telegram_user_id=CLARA, case_id=case.id, outcome=Outcome.AUTO, reason=None,
                 now=NOW)
    async with console_client(settings, sessions, NOW) as client:
        csrf = await sign_in(client, sessions, settings, CLARA)
        typed = {"csrf": csrf, "type": "auto", "offender_name": "Bar do Zé", "place": "Rua 7, 200",
                 "facts": "Som alto às 2h.", "case_protocol": filed.protocol.lower()}
        searched = await client.post("/painel/notificacoes/nova", data={
            **typed, "infraction_search": "barulho", "search": "1"})
        page = await searched.text()
        assert searched.status == 200
        choices = re.findall(r'name="choose" value="([^"]+)"', page)
        assert choices[0] == "nx-posturas:CP-XI-4" and all(c.startswith("nx-posturas:CP-XI") for c in choices[:3])
        assert "Desrespeitar o sossego público com ruídos ou sons excessivos" in page
        assert 'value="Bar do Zé"' in page and "Som alto às 2h.</textarea>" in page  # nothing typed is lost
        assert "Depósito Bom Preço</dd>" in page  # the citizen's account stays beside the form
        vistoria = await (await client.post("/painel/notificacoes/nova", data={
            **typed, "infraction_search": "vistoria vencida", "search": "1"})).text()
        assert re.findall(r'name="choose" value="([^"]+)"', vistoria)[0] == "sapezal-1533:L1533-26-I"
        chosen = await (await client.post("/painel/notificacoes/nova", data={
            **typed, "infraction_search": "barulho", "choose": "nx-posturas:CP-XI-4"})).text()
        assert 'id="f-infraction_code" name="infraction_code" type="text" value="CP-XI-4"' in chosen
        assert '<option value="nx-posturas" selected>' in chosen
        assert "Escolhida: CP-XI-4 — Desrespeitar o sossego público" in chosen
        nothing = await (await client.post("/painel/notificacoes/nova", data={
            **typed, "infraction_search": "xyzzy", "search": "1"})).text()
        assert "Nenhuma infração tem essas palavras" in nothing
        forged = await client.post("/painel/notificacoes/nova", data={**typed, "choose": "nx-posturas:NOPE"})
        assert forged.status == 200 and 'value="NOPE"' not in await forged.text()
        suggested = await (await client.get("/painel/notificacoes/infracoes?q=barulho")).json()
        assert suggested["results"][0]["choice"] == "nx-posturas:CP-XI-4"
        assert (await client.get("/painel/notificacoes/infracoes?q=" + "x" * 5000)).status == 200
    async with sessions() as check:
        assert (await check.exec(select(Notice))).all() == []  # searching and choosing issue nothing
