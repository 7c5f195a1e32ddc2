"""What staff and authors read on a case (issue 9 items 7 and 8), end to end through the emulator in pt_BR.

Every label comes from the catalogs ("Histórico", "Autor", "Responsável"); one msgid per meaning ("Responder" on
the Ombudsman's button, "Resposta" over the answer); photos reach staff as photos with the sender's words; a shared
location is an OpenStreetMap link beside the address typed.
"""

from typing import Any

from sqlmodel import select

from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.cases.attachments import store_attachment
from models.cases.filing import Place, file_ombudsman_case, file_representation
from models.cases.handling import answer_case, assign, decide
from models.cases.limits import CaseLimits
from models.cases.tables import Case, Outcome
from models.columns import utcnow
from models.people import Person, Role, add_staff
from tests.auxil.case_chat import Talk, deliver
from tests.auxil.case_files import pdf, png
from tests.auxil.case_people import ombudsman, representation

JOAO, CLARA, OTAVIO = 860001, 860101, 860103
LAT, LON = -14.520389, -52.345012


async def _people(sessions: SessionFactory) -> int:
    async with sessions() as session:
        for telegram_id, name in ((JOAO, "João"), (CLARA, "Clara"), (OTAVIO, "Otávio")):
            session.add(Person(telegram_user_id=telegram_id, chat_id=telegram_id, first_name=name, locale="pt_BR"))
        await session.commit()
        await add_staff(session=session, telegram_user_id=CLARA, role=Role.CLERK, name="Clara", actor="test")
        await add_staff(session=session, telegram_user_id=OTAVIO, role=Role.OMBUDSMAN, name="Otávio", actor="test")
        joao = (await session.exec(select(Person).where(Person.telegram_user_id == JOAO))).one()
        assert joao.id is not None
        return joao.id


async def test_staff_see_portuguese_labels_photos_as_photos_and_the_place_on_a_map(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    joao_id = await _people(sessions)
    async with sessions() as session:
        limits = CaseLimits.of(settings)
        photo = await store_attachment(session=session, person_id=joao_id, content=png(seed=7),
                                       file_name="foto.jpg", limits=limits, already=[])
        document = await store_attachment(session=session, person_id=joao_id, content=pdf(), file_name="nota.pdf",
                                          limits=limits, already=[photo.id])
        place = Place(text="Rua 7 de Setembro, em frente ao nº 40", latitude=LAT, longitude=LON)
        await file_representation(session=session, person_id=joao_id, cities=cities_of(settings), now=utcnow(),
                                  form=representation(place=place, attachment_ids=[photo.id, document.id]))
        case = (await session.exec(select(Case))).one()
        await assign(session=session, telegram_user_id=CLARA, case_id=case.id, now=utcnow())
    clara = Talk(emulator, emulator.add_user(CLARA, "Clara", language_code="pt-br"))
    queue = await clara.send("/pendencias", case.protocol)
    opened = await clara.press(queue, f"pend:case:{case.id}", "Histórico")
    assert "Autor:" in opened.text and "Responsável: Clara" in opened.text
    assert "Rua 7 de Setembro, em frente ao nº 40" in opened.text
    link = next(e for e in opened.entities if e.get("type") == "text_link")
    assert link["url"] == f"https://www.openstreetmap.org/?mlat={LAT:.6f}&mlon={LON:.6f}#map=18/{LAT:.6f}/{LON:.6f}"
    assert f"{LAT:.5f}" not in opened.text  # no raw coordinates in the text
    mark = clara._mark()
    await clara.press(opened, f"pend:files:{case.id}", "acima.")
    sent = [m for m in emulator.messages(CLARA) if m.message_id > mark]
    photos = [m for m in sent if m.photo]
    documents = [m for m in sent if m.document is not None]
    assert len(photos) == 1 and len(documents) == 1
    assert f"{case.protocol} · arquivo 1 de 2" in (photos[0].caption or "")
    assert documents[0].document["mime_type"] == "application/pdf"


async def test_the_ombudsman_button_says_responder_and_the_author_reads_resposta(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    joao_id = await _people(sessions)
    async with sessions() as session:
        await file_ombudsman_case(session=session, person_id=joao_id, form=ombudsman(), now=utcnow(),
                                  city=cities_of(settings).default)
        case = (await session.exec(select(Case))).one()
    otavio = Talk(emulator, emulator.add_user(OTAVIO, "Otávio", language_code="pt-br"))
    queue = await otavio.send("/pendencias", case.protocol)
    opened = await otavio.press(queue, f"pend:case:{case.id}", "Histórico")
    labels = {b["callback_data"]: b["text"] for b in opened.inline_buttons}
    assert labels[f"pend:answer:{case.id}"] == "Responder"
    async with sessions() as session:
        await answer_case(session=session, cities=cities_of(settings), telegram_user_id=OTAVIO, case_id=case.id,
                          now=utcnow(),
                          text="O médico foi contratado e atende desde segunda-feira.")
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="pt-br"))
    shown = await joao.send(case.protocol, "Resposta:")  # the protocol typed alone opens the case (item 12)
    assert "Responder:" not in shown.text and "O médico foi contratado" in shown.text


async def test_cancelling_a_report_agrees_with_its_name(emulator: Any, bot_app: Any) -> None:
    """"sua denúncia foi descartado" read wrong: the sentence no longer depends on the form's gender."""
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="pt-br"))
    await joao.send("/representacao", "")
    cancelled = await joao.send("/cancelar", "Cancelado")
    assert "descartei sua denúncia e nada foi enviado" in cancelled.text, cancelled.text


async def test_an_ombudsman_message_without_files_says_none_not_zero_files(emulator: Any, bot_app: Any) -> None:
    """"Arquivos: 0 arquivo" read wrong: no file is "nenhum"."""
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="pt-br"))
    city = await joao.send("/ouvidoria", "Escolha a sua cidade")  # the test deployment serves two
    kinds = await joao.press(city, "city:sapezal:ouvidoria", "Que tipo de manifestação")
    await joao.press(kinds, "ouv:type:reclamacao", "Escreva")
    files = await joao.send("O posto de saúde do bairro está sem médico há duas semanas.", "Se quiser")
    identity = await joao.press(files, "ouv:files:done", "Quem pode ver seu nome?")
    name = await joao.press(identity, "ouv:id:restricted", "nome completo")
    review = await joao.send("João Batista Pereira", "Arquivos:")
    assert "Arquivos: nenhum" in review.text and "0 arquivo" not in review.text
    assert name


async def test_the_author_reads_the_note_of_a_notify_decision_and_each_law_once(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    """CP Art. 32: the note of "notify" is an "Observação", not a "Motivo" (an archive keeps "Motivo"); /acompanhar
    names the Código de Posturas once, then Art. 30–32 and the breached rule (Art. 53, Tabela I item 9)."""
    joao_id = await _people(sessions)
    async with sessions() as session:
        for _ in range(2):
            await file_representation(session=session, person_id=joao_id, cities=cities_of(settings), now=utcnow(),
                                      form=representation())
        notified, archived = (await session.exec(select(Case).order_by(Case.id))).all()
        await decide(session=session, telegram_user_id=CLARA, case_id=notified.id, outcome=Outcome.NOTIFY,
                     reason="O responsável tem 10 dias para limpar a calçada.", now=utcnow())
        await decide(session=session, telegram_user_id=CLARA, case_id=archived.id, outcome=Outcome.ARCHIVE,
                     reason="A calçada já estava limpa na vistoria.", now=utcnow())
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="pt-br"))
    await deliver(settings, sessions, emulator)
    told = [m.text for m in emulator.messages(JOAO) if m.text and "foi verificada" in m.text]
    note = next(text for text in told if f"{notified.protocol} foi verificada" in text)
    reason = next(text for text in told if f"{archived.protocol} foi verificada" in text)
    assert "Observação: O responsável tem 10 dias para limpar a calçada." in note and "Motivo" not in note
    assert "Motivo: A calçada já estava limpa na vistoria." in reason
    shown = await joao.send(notified.protocol, "Histórico")
    law = "Lei nº 1.101/2004 – Código de Posturas (Nova Xavantina)"
    assert shown.text.count(law) == 1
    assert f"{law}, Art. 30 a 32; Art. 53 (Tabela I, item 9)" in shown.text
