"""/meusdados end to end: the JSON export of everything held about the person (LGPD Art. 18 II), and the
erasure that keeps what the law requires and says why (Art. 16 I, Art. 18 VI)."""

import json
from typing import Any

from sqlmodel import select

from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.cases.filing import file_representation
from models.cases.tables import CaseAuthor
from models.columns import utcnow
from models.people import Person
from tests.auxil.case_chat import Talk
from tests.auxil.case_people import representation

JOAO = 870001


async def test_export_then_erasure(emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory) -> None:
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    await joao.send("/start", "What would you like to do?")
    async with sessions() as session:
        person = (await session.exec(select(Person).where(Person.telegram_user_id == JOAO))).one()
        assert person.id is not None
        filed = await file_representation(session=session, person_id=person.id, form=representation(), now=utcnow(),
                                          cities=cities_of(settings))
    menu = await joao.send("/meusdados", "Your data")
    await joao.press(menu, "dados:export", "Your data is in the files above")
    document = joao.last_document()
    assert document is not None and document["file_name"] == "meus-dados-balcao.json"
    exported = json.loads(emulator.file(document["file_id"]).data)
    assert exported["person"]["first_name"] == "João"
    assert exported["cases"][0]["protocol"] == filed.protocol
    assert exported["cases"][0]["author"]["cpf"] == "***.982.247-**"

    menu = await joao.send("/meusdados", "Your data")
    confirm = await joao.press_and_edit(menu, "dados:erase", "Delete your personal data?")
    assert "Código de Posturas, Art. 31" in confirm.text and "LGPD Art. 16 I" in confirm.text
    done = await joao.press_and_edit(confirm, "dados:erase:yes", "your personal data was deleted")
    assert "Your representations (Código de Posturas)" in done.text
    async with sessions() as session:
        person = (await session.exec(select(Person).where(Person.telegram_user_id == JOAO))).one()
        author = (await session.exec(select(CaseAuthor))).one()
    assert person.first_name == "" and person.erased_at is not None
    assert author.name == "João Batista Pereira" and author.cpf is None
    await joao.send("/start", "What would you like to do?")  # the bot still works, without the name
    async with sessions() as session:
        person = (await session.exec(select(Person).where(Person.telegram_user_id == JOAO))).one()
    assert person.first_name == ""


async def test_the_export_has_a_readable_pdf_in_the_persons_language_and_local_time(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    """Issue 9 item 11: the JSON keeps machine keys and ISO times with offset; the PDF beside it is for people."""
    import datetime as dt
    from zoneinfo import ZoneInfo

    from tests.auxil.notices import pdf_text

    maria = Talk(emulator, emulator.add_user(JOAO + 1, "Maria", language_code="pt-br"))
    await maria.send("/start", "O que você quer fazer?")
    async with sessions() as session:
        person = (await session.exec(select(Person).where(Person.telegram_user_id == JOAO + 1))).one()
        filed = await file_representation(session=session, person_id=person.id, form=representation(), now=utcnow(),
                                          cities=cities_of(settings))
    mark = maria._mark()
    menu = await maria.send("/meusdados", "Seus dados")
    await maria.press(menu, "dados:export", "Seus dados estão nos arquivos acima")
    documents = [m.document for m in emulator.messages(JOAO + 1) if m.message_id > mark and m.document]
    assert [d["file_name"] for d in documents] == ["meus-dados-balcao.pdf", "meus-dados-balcao.json"]
    exported = json.loads(emulator.file(documents[1]["file_id"]).data)
    assert {"person", "cases", "generated_at"} <= set(exported) and "first_name" in exported["person"]
    generated = dt.datetime.fromisoformat(exported["generated_at"])
    assert generated.utcoffset() == dt.timedelta(0)  # ISO 8601 with its offset
    text = pdf_text(emulator.file(documents[0]["file_id"]).data)
    assert "Seus dados no Balcão" in text and "Seus casos" in text and filed.protocol in text
    assert "Representação (Código de Posturas)" in text and "Nome no Telegram" in text
    assert "first_name" not in text and "received_at" not in text  # people read words, not keys
    assert "lgpd@sapezal.mt.gov.br" in text  # LGPD Art. 41 §1: who answers for these data (the encarregado)
    local = generated.astimezone(ZoneInfo("America/Cuiaba"))
    assert f"às {local:%H:%M}" in text and f"{generated:%H:%M}" not in text and "AMT" not in text


async def test_the_readable_pdf_names_every_code_word(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    """A newcomer's walk (issue 20 §2): the PDF read "None", "partly", "notify", "cases.update", "Idioma pt_BR"."""
    from models.cases.citizen import rate
    from models.cases.handling import decide
    from models.cases.tables import Outcome, Satisfaction
    from models.people import Role, add_staff
    from models.reminders import set_topic_muted
    from tests.auxil.notices import pdf_text

    clara = 870101
    maria = Talk(emulator, emulator.add_user(JOAO + 2, "Maria", language_code="pt-br"))
    await maria.send("/start", "O que você quer fazer?")
    emulator.add_user(clara, "Clara", language_code="pt-br")
    async with sessions() as session:
        person = (await session.exec(select(Person).where(Person.telegram_user_id == JOAO + 2))).one()
        await add_staff(session=session, telegram_user_id=person.telegram_user_id, role=Role.CLERK, name="Maria",
                        actor="test")
        await add_staff(session=session, telegram_user_id=clara, role=Role.CLERK, name="Clara", actor="test")
        filed = await file_representation(session=session, person_id=person.id, form=representation(), now=utcnow(),
                                          cities=cities_of(settings))
        await decide(session=session, telegram_user_id=clara, case_id=filed.case_id, outcome=Outcome.NOTIFY,
                     reason="Verificado no local: há entulho na calçada.", now=utcnow())
        await rate(session=session, person_id=person.id, case_id=filed.case_id, satisfaction=Satisfaction.PARTLY,
                   now=utcnow())
        await set_topic_muted(session=session, person_id=person.id, topic="renewal", muted=True)
        await session.commit()
    mark = maria._mark()
    menu = await maria.send("/meusdados", "Seus dados")
    await maria.press(menu, "dados:export", "Seus dados estão nos arquivos acima")
    pdf = next(m.document for m in emulator.messages(JOAO + 2) if m.message_id > mark and m.document)
    text = pdf_text(emulator.file(pdf["file_id"]).data)
    for word in ("None", "partly", "notify", "cases.update", "pt_BR", "clerk", "renewal", "none"):
        assert word not in text, word
    for name in ("Português (Brasil)", "Atendente (representações e denúncias)", "O responsável será notificado",
                 "Em parte", "Nenhuma relação", "Novidade sobre o seu caso", "Renovação da autorização"):
        assert name in text, name
