"""The person who reported stays unseen (issue 18 §6): a notice issued from a representação carries the inspector's
account, never the citizen's words, in its PDF, its chat message to the accused, and /verificar.

CP Art. 31 keeps the author apart from the accused; LGPD Art. 6 III (necessity): the citizen's words may identify
them ("do lado da minha casa"), and the facts of the act are the ones the agent verified (CP Art. 25 III, 34 III).
"""

from __future__ import annotations

import re
from typing import Any

from aiohttp.test_utils import TestClient, TestServer
from sqlmodel import select

from bot.web import build_web_app
from core.municipality import cities_of
from models.cases.filing import Place, file_representation
from models.cases.tables import Case
from models.columns import utcnow
from models.notices.delivery import link_person
from models.notices.tables import Notice
from models.people import Person, Role, add_staff
from tests.auxil.case_chat import Talk, deliver
from tests.auxil.case_people import representation
from tests.auxil.notices import designate, opted_in, pdf_plain_text

IDENTIFYING = ("minha casa", "minha filha", "asma", "não sei o nome", "dono do terreno", "-14.6", "-52.3", "João")
"""What the citizen said that could tell the accused who reported them."""


async def test_a_notice_from_a_representacao_carries_none_of_the_citizens_words(
    emulator: Any, bot_app: Any, settings: Any, sessions: Any
) -> None:
    async with sessions() as session:
        author = Person(telegram_user_id=840101, chat_id=840101, first_name="João", locale="pt_BR")
        session.add(author)
        await session.commit()
        assert author.id is not None
        form = representation(
            facts="Do lado da minha casa o terreno tem mato alto até a janela, minha filha tem asma.",
            accused="não sei o nome, é o dono do terreno", infraction_code="CP-I-1",
            place=Place(latitude=-14.6712, longitude=-52.3501))
        await file_representation(session=session, person_id=author.id, form=form, now=utcnow(),
                                  cities=cities_of(settings))
        case = (await session.exec(select(Case))).one()
    maria_user = emulator.add_user(840102, "Maria", language_code="pt-br")
    maria = Talk(emulator, maria_user)
    await maria.send("/start", "O que você quer fazer?")
    async with sessions() as session:
        maria_person = (await session.exec(select(Person).where(Person.telegram_user_id == maria_user.id))).one()
        assert maria_person.id is not None
        await opted_in(session, maria_person.id)
    clara_user = emulator.add_user(840103, "Clara", language_code="pt-br")
    clara = Talk(emulator, clara_user)
    await clara.send("/start", "O que você quer fazer?")
    async with sessions() as session:
        await add_staff(session=session, telegram_user_id=clara_user.id, role=Role.CLERK, name="Clara", actor="test")
        await designate(session, settings, clara_user.id, "autuar")  # CP Art. 12: she signs the act she issues
        await session.commit()

    queue = await clara.send("/pendencias", case.protocol)
    opened = await clara.press(queue, f"pend:case:{case.id}", case.protocol)
    note = await clara.press(opened, f"pend:notify:{case.id}", "Pular")
    confirm = await clara.press(note, "pact:skip", "Confirma?")
    done = await clara.press(confirm, "pact:send", "notificação preliminar")
    # The inspector sees the citizen's words under each question, as a reference only, and writes the act's own.
    name = await clara.press(done, f"emit:case:{case.id}", "Nome do infrator")
    assert "não sei o nome, é o dono do terreno" in name.text and "não copiado" in name.text
    place = await clara.send("Maria Aparecida da Silva", "Local da lavratura")
    assert "-14.671200" in place.text
    await clara.send("-14.6712, -52.3501", "não como coordenadas")  # CP Art. 25 II: the place is an address
    facts = await clara.send("Rua das Acácias, 45, Centro", "Descreva os fatos")
    assert "minha filha tem asma" in facts.text
    review = await clara.send("Terreno com vegetação alta, verificado em vistoria no local.",
                              "Confira a notificação antes de emitir")
    issued = await clara.press(review, "emit:send", "Emitida")
    code = re.search(r"([A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4})", issued.text or "")
    assert code is not None

    async with sessions() as session:
        notice = (await session.exec(select(Notice))).one()
        assert notice.facts == "Terreno com vegetação alta, verificado em vistoria no local."
        assert notice.id is not None
        await link_person(session=session, cities=cities_of(settings), http_root=settings.http_root,
                          notice_id=notice.id, actor="test",
                          telegram_user_id=maria_user.id)
    await deliver(settings, sessions, emulator)
    delivered = await emulator.wait_for_message(maria_user.id, lambda m: "Tomo ciência" in (m.text or ""), after=0)
    document = await emulator.wait_for_message(maria_user.id, lambda m: m.document is not None, after=0)
    pdf = pdf_plain_text(emulator.file(document.document["file_id"]).data)
    assert notice.number in pdf and "Rua das Acácias, 45" in pdf

    async with TestClient(TestServer(build_web_app(settings, sessions))) as client:
        page = await (await client.get(f"/verificar/{code.group(1)}")).text()
    assert notice.number in page
    for said in IDENTIFYING:
        assert said not in pdf, said
        assert said not in (delivered.text or ""), said
        assert said not in page, said
