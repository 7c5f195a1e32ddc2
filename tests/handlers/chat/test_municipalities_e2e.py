"""One deployment serving Sapezal and Nova Xavantina (issue 11 item 2).

Each act is valid only in the name of the authority competent for it (CF Art. 30 I): each person gets documents
headed by their own Prefeitura, deadlines counted with their municipality's holidays, and fines priced with its
fiscal unit (URS for Lei 1.533/2020 of Sapezal, UPF-NX for the Código de Posturas, Lei 1.101/2004, of Nova
Xavantina); staff of one municipality can neither see nor act on the other's cases.
"""

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
import time_machine
from sqlmodel import select

from core.db import SessionFactory
from core.settings import Settings, load_settings
from models.cases.handling import staff_case, staff_queue
from models.cases.tables import Case, CaseKind
from models.people import PermissionDenied, Person, Role, add_staff
from models.rulebooks.catalogue import get_infraction
from tests.auxil.bot_harness import running_bot
from tests.auxil.broadcasts import sent_by
from tests.auxil.case_chat import Talk
from tests.auxil.municipalities import write_municipalities
from tests.auxil.notices import cp_auto, issue, l1533_auto
from tests.models.cases.test_receipt_pdf import page_text

NOW = dt.datetime(2026, 12, 1, 13, 0, tzinfo=dt.UTC)  # Tuesday; 30 days later is Thursday 31 December
JOAO, MARIA, IRIS, CLARA = 850001, 850002, 850101, 850102


@pytest.fixture
def two_cities(settings: Settings, tmp_path: Path) -> Settings:
    """Different municipal holidays: Sapezal closes on 31 December 2026, Nova Xavantina does not."""
    path = write_municipalities(tmp_path, sapezal_extra='holidays.2026 = ["2026-12-31"]',
                                nx_extra='holidays.2026 = ["2026-12-30"]')
    return load_settings(database_url=settings.database_url, municipalities_file=path)


async def _file_ombudsman(talk: Talk, city: str) -> str:
    """Choose the city with its button, then file a short ombudsman message; return the bot's answer."""
    ask = await talk.send("/ouvidoria", "Choose your city")
    assert {f"city:{slug}:ouvidoria" for slug in ("sapezal", "nova-xavantina")} <= set(talk.buttons(ask))
    kinds = await talk.press(ask, f"city:{city}:ouvidoria", "What kind of message is it?")
    await talk.press(kinds, "ouv:type:sugestao", "Write your message")
    files = await talk.send("Mais árvores na praça central, por favor.", "If you want, send")
    identity = await talk.press(files, "ouv:files:done", "Who may see your name?")
    await talk.press(identity, "ouv:id:open", "What is your full name?")
    review = await talk.send("Pessoa de Teste", "Please check your message")
    mark = review.message_id
    sent = await talk.press(review, "ouv:send", "Your protocol number is")
    await talk.emulator.wait_for_message(talk.user.id, lambda m: m.document is not None, after=mark, timeout=8.0)
    assert sent.text is not None
    return sent.text


async def test_each_person_gets_their_own_prefeitura_calendar_and_staff(
    emulator: Any, two_cities: Settings, sessions: SessionFactory
) -> None:
    async with sessions() as session:
        for telegram_id, name in ((IRIS, "Íris"), (CLARA, "Clara")):
            session.add(Person(telegram_user_id=telegram_id, chat_id=telegram_id, first_name=name, locale="en"))
        await session.commit()
        await add_staff(session=session, telegram_user_id=IRIS, role=Role.ADMIN, name="Íris", actor="test",
                        municipality="sapezal")
        await add_staff(session=session, telegram_user_id=CLARA, role=Role.ADMIN, name="Clara", actor="test",
                        municipality="nova-xavantina")
    emulator.add_user(IRIS, "Íris", language_code="en")
    emulator.add_user(CLARA, "Clara", language_code="en")
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    maria = Talk(emulator, emulator.add_user(MARIA, "Maria", language_code="en"))
    with time_machine.travel(NOW, tick=True):
        async with running_bot(two_cities, sessions, emulator):
            # João chooses Sapezal: 30 days (L13460 Art. 16) end on 31 December, Sapezal's holiday,
            # then 1 January and a weekend: Monday 4 January 2027 (L9784 Art. 66 §1).
            joao_sent = await _file_ombudsman(joao, "sapezal")
            receipt = joao.last_document()
            assert receipt is not None
            joao_pdf = page_text(emulator.file(receipt["file_id"]).data)
            maria_sent = await _file_ombudsman(maria, "nova-xavantina")
            receipt = maria.last_document()
            assert receipt is not None
            maria_pdf = page_text(emulator.file(receipt["file_id"]).data)
            city = await joao.send("/cidade", "Your city")
            assert "Sapezal" in (city.text or "")
            async with sessions() as session:
                protocols = {case.municipality: (case.id, case.protocol)
                             for case in (await session.exec(select(Case))).all()}
            # In the chat, Sapezal's admin sees Sapezal's case only (acting on the other's: below and the staff API).
            iris = Talk(emulator, emulator.user(IRIS))
            pending = await iris.send("/pendencias", "Pending cases")
            assert protocols["sapezal"][1] in (pending.text or "")
            assert protocols["nova-xavantina"][1] not in (pending.text or "")
            assert [f"pend:case:{protocols['sapezal'][0]}"] == [d for d in iris.buttons(pending) if d != "menu:main"]
    assert "2027" in joao_sent and "2027" not in maria_sent  # the due dates the people were told
    assert "City hall of Sapezal" in joao_pdf and "Nova Xavantina" not in joao_pdf
    assert "City hall of Nova Xavantina" in maria_pdf and "Sapezal" not in maria_pdf
    # LGPD Art. 41 §1: each receipt names its own city hall's encarregado (Nova Xavantina names none here).
    assert "lgpd@sapezal.mt.gov.br" in joao_pdf and "encarregado" not in maria_pdf
    async with sessions() as session:
        cases = {case.municipality: case for case in (await session.exec(select(Case))).all()}
        assert {slug: case.due_on for slug, case in cases.items()} == {
            "sapezal": dt.date(2027, 1, 4), "nova-xavantina": dt.date(2026, 12, 31)}
        assert all(case.kind is CaseKind.OMBUDSMAN for case in cases.values())
        # Staff of one municipality: its queue only, and the other's case refused (chat and API use these).
        queue = await staff_queue(session=session, telegram_user_id=IRIS, today=NOW.date())
        assert [item.protocol for item in queue] == [cases["sapezal"].protocol]
        with pytest.raises(PermissionDenied):
            await staff_case(session=session, telegram_user_id=IRIS, case_id=cases["nova-xavantina"].id)
        assert (await staff_case(session=session, telegram_user_id=CLARA,
                                 case_id=cases["nova-xavantina"].id)).protocol == cases["nova-xavantina"].protocol


async def test_notices_are_headed_and_priced_by_the_municipality_whose_law_they_apply(
    two_cities: Settings, sessions: SessionFactory
) -> None:
    """An auto under the Código de Posturas is Nova Xavantina's act, priced in UPF-NX; Lei 1.533's is Sapezal's."""
    moment = dt.datetime(2026, 3, 2, 14, 0, tzinfo=dt.UTC)
    async with sessions() as session:
        cp = await issue(session, two_cities, cp_auto(), now=moment)
    assert cp.notice.municipality == "nova-xavantina" and cp.notice.fine_unit == "UPF-NX"
    cp_text = page_text(cp.pdf)
    assert "Prefeitura Municipal de Nova Xavantina" in cp_text and "Sapezal" not in cp_text
    # CP Tabela I item 1: 9 UPF-NX × R$ 42,00 (Nova Xavantina's 2026 value in the test configuration).
    assert cp.notice.fine_cents == 9 * 4200 and "R$ 378,00" in cp_text
    async with sessions() as session:
        app = await issue(session, two_cities, l1533_auto(), now=moment)
    assert app.notice.municipality == "sapezal" and app.notice.fine_unit == "URS"
    units = get_infraction("L1533-26-IV").units
    assert units is not None and app.notice.fine_cents == int(units * 525)  # Sapezal's URS 2026: R$ 5,25
    app_text = page_text(app.pdf)
    assert "Prefeitura Municipal de Sapezal" in app_text and "Nova Xavantina" not in app_text


async def test_outside_the_demo_a_fine_needs_its_years_unit_value(two_cities: Settings,
                                                                 sessions: SessionFactory) -> None:
    """Issue 11 item 3: no fine for 2027 until UPF-NX 2027 is configured for Nova Xavantina; the setting is named."""
    from models.notices.elements import NoticeRefused

    moment = dt.datetime(2027, 3, 2, 14, 0, tzinfo=dt.UTC)
    async with sessions() as session:
        with pytest.raises(NoticeRefused) as refused:
            await issue(session, two_cities, cp_auto(drawn_up_on=dt.date(2027, 3, 2)), now=moment)
    text = str(refused.value.problems[0].render(__import__("core.i18n").i18n.translator("en")))
    assert "UPF-NX" in text and "2027" in text and "Nova Xavantina" in text and "unit_values.UPF-NX" in text


async def test_a_broadcast_belongs_to_its_municipality_and_reaches_its_people(
    two_cities: Settings, sessions: SessionFactory
) -> None:
    """A Prefeitura speaks to its own citizens: Nova Xavantina's notice reaches those who chose it; Sapezal's (the
    default) also those who have not chosen yet."""
    from models.broadcasts import Broadcast
    from notifications.broadcasts import AudienceChoice, create_broadcast
    from notifications.plugins import load_all

    load_all()
    async with sessions() as session:
        people = {name: Person(telegram_user_id=900 + index, chat_id=900 + index, first_name=name, locale="pt_BR",
                               municipality=place)
                  for index, (name, place) in enumerate((("Sá", "sapezal"), ("Nina", "nova-xavantina"), ("Zé", None)))}
        session.add_all(people.values())
        await session.commit()
        nx = await create_broadcast(session=session, **sent_by(two_cities, "nova-xavantina"),
                                    choice=AudienceChoice("everyone"), text="Vacinação", actor="test", now=NOW)
        sapezal = await create_broadcast(session=session, **sent_by(two_cities), choice=AudienceChoice("everyone"),
                                         text="Feira", actor="test", now=NOW)
        rows = {row.id: row.municipality for row in (await session.exec(select(Broadcast))).all()}
    assert nx.recipients == 1 and sapezal.recipients == 2
    assert rows == {nx.id: "nova-xavantina", sapezal.id: "sapezal"}


async def test_on_a_municipalitys_own_bot_a_person_is_that_municipalitys_without_choosing(
    emulator: Any, two_cities: Settings, sessions: SessionFactory
) -> None:
    """A municipality may have its own bot (DESIGN: Municipalities): who talks to it is spoken to in its name."""
    ze = Talk(emulator, emulator.add_user(850201, "Zé", language_code="en"))
    async with running_bot(two_cities, sessions, emulator, bot_key="nova-xavantina"):
        hello = await ze.send("/start", "city hall of Nova Xavantina")
        assert not [d for d in ze.buttons(hello) if d.startswith("city:")]
        await ze.send("/ouvidoria", "What kind of message is it?")  # no city question


@pytest.mark.parametrize(
    ("language_code", "cities"),
    [("pt-br", "Prefeituras de Sapezal e Nova Xavantina no"), ("en", "city halls of Sapezal and Nova Xavantina on")],
)
async def test_the_greeting_joins_the_municipalities_with_the_languages_and(
    emulator: Any, two_cities: Settings, sessions: SessionFactory, language_code: str, cities: str
) -> None:
    talk = Talk(emulator, emulator.add_user(JOAO, "João", language_code=language_code))
    async with running_bot(two_cities, sessions, emulator):
        hello = await talk.send("/start", cities)
    assert "Sapezal, Nova Xavantina" not in hello.text
