"""Issue 9 item 6: the author answers staff's request for more information by typing, and staff see the answer.

D9492 Art. 18: the author completes the case within 20 days; the answer is recorded in the case.
"""

from typing import Any

from sqlmodel import select

from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.cases.filing import file_representation
from models.cases.tables import Case, CaseStatus
from models.columns import utcnow
from models.people import Person, Role, add_staff
from tests.auxil.case_chat import Talk, deliver
from tests.auxil.case_people import representation

JOAO, CLARA = 870001, 870101


async def _setup(sessions: SessionFactory, settings: Settings, cases: int) -> list[Case]:
    async with sessions() as session:
        for telegram_id, name in ((JOAO, "João"), (CLARA, "Clara")):
            session.add(Person(telegram_user_id=telegram_id, chat_id=telegram_id, first_name=name, locale="pt_BR"))
        await session.commit()
        await add_staff(session=session, telegram_user_id=CLARA, role=Role.CLERK, name="Clara", actor="test")
        joao = (await session.exec(select(Person).where(Person.telegram_user_id == JOAO))).one()
        assert joao.id is not None
        for _ in range(cases):
            await file_representation(session=session, person_id=joao.id, form=representation(), now=utcnow(),
                                      cities=cities_of(settings))
        return list((await session.exec(select(Case).order_by(Case.id))).all())  # type: ignore[arg-type]


async def _ask(clara: Talk, case: Case, question: str) -> None:
    queue = await clara.send("/pendencias", case.protocol)
    opened = await clara.press(queue, f"pend:case:{case.id}", case.protocol)
    prompt = await clara.press(opened, f"pend:ask:{case.id}", "20 dias")
    confirm = await clara.send(question, "Confirma?")
    assert prompt.message_id < confirm.message_id
    done = await clara.press(confirm, "pact:send", "Enviado ao autor")
    await clara.emulator.wait_for_message(  # back on the queue page the case was opened from
        clara.user.id, lambda m: any(b.get("callback_data", "").startswith("pend:case:") for b in m.inline_buttons),
        after=done.message_id)


async def test_the_typed_answer_is_recorded_and_staff_see_it_in_the_case(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    (case,) = await _setup(sessions, settings, 1)
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="pt-br"))
    clara = Talk(emulator, emulator.add_user(CLARA, "Clara", language_code="pt-br"))
    await _ask(clara, case, "Qual é o número da casa em frente ao entulho?")
    await deliver(settings, sessions, emulator)
    await emulator.wait_for_message(JOAO, lambda m: "Qual é o número da casa" in (m.text or ""), after=0)
    # No "Responder agora" pressed: the typed text is the answer.
    thanks = await joao.send("Fica em frente ao número 45.", "Obrigado! Sua resposta foi juntada")
    assert case.protocol in thanks.text
    async with sessions() as session:
        stored = await session.get(Case, case.id)
        assert stored is not None
        await session.refresh(stored)
        assert stored.status is CaseStatus.IN_PROGRESS
        assert stored.complement_answer == "Fica em frente ao número 45."
    queue = await clara.send("/pendencias", case.protocol)
    opened = await clara.press(queue, f"pend:case:{case.id}", case.protocol)
    assert "Qual é o número da casa em frente ao entulho?" in opened.text
    assert "Fica em frente ao número 45." in opened.text
    # Nothing is waiting any more: a later text is not taken as an answer.
    await joao.send("Mais uma coisa.", "Não entendi")
    assert emulator.unanswered_callbacks() == []


async def test_with_two_cases_waiting_the_text_is_kept_and_the_author_chooses(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    first, second = await _setup(sessions, settings, 2)
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="pt-br"))
    clara = Talk(emulator, emulator.add_user(CLARA, "Clara", language_code="pt-br"))
    await _ask(clara, first, "Qual é o número da casa?")
    await _ask(clara, second, "Há quanto tempo o entulho está lá?")
    which = await joao.send("Há duas semanas.", "Para qual caso é esta resposta?")
    assert {f"cpl:for:{first.id}", f"cpl:for:{second.id}"} <= set(joao.buttons(which))
    review = await joao.press(which, f"cpl:for:{second.id}", "Enviar?")
    assert second.protocol in review.text and "Há duas semanas." in review.text
    await joao.send("sim", "Obrigado! Sua resposta foi juntada")  # typed "sim" at the review, as in every form
    async with sessions() as session:
        answers = {c.id: c.complement_answer for c in (await session.exec(select(Case))).all()}
    assert answers == {first.id: None, second.id: "Há duas semanas."}
    await joao.press(which, f"cpl:for:{second.id}", "já foi juntada ao")  # a second press: no double, says so
    assert emulator.unanswered_callbacks() == []


async def test_the_answer_takes_audio_files_voice_notes_and_videos_with_their_captions(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    """Issue 19 §2: one file intake, so the complement takes what the representação takes (an audio file too)."""
    from models.cases.tables import CaseAttachment
    from tests.auxil.case_files import mp4, ogg

    (case,) = await _setup(sessions, settings, 1)
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="pt-br"))
    clara = Talk(emulator, emulator.add_user(CLARA, "Clara", language_code="pt-br"))
    await _ask(clara, case, "Qual é o número da casa em frente ao entulho?")
    await deliver(settings, sessions, emulator)
    asked = await emulator.wait_for_message(JOAO, lambda m: "Qual é o número da casa" in (m.text or ""), after=0)
    await joao.press(asked, f"acomp:compl:{case.id}", "Escreva sua resposta")
    mark = joao._mark()
    emulator.send_audio(joao.user, ogg(10), duration=10, caption="o vizinho explica")
    await joao._expect(mark, "Arquivo recebido (1 de 5)")
    mark = joao._mark()
    emulator.send_voice(joao.user, ogg(5), duration=5)
    await joao._expect(mark, "Arquivo recebido (2 de 5)")
    mark = joao._mark()
    emulator.send_video(joao.user, mp4(20), duration=20, caption="a casa 45")
    await joao._expect(mark, "Arquivo recebido (3 de 5)")
    await joao.send("Fica em frente ao número 45.", "Enviar?")
    await joao.send("sim", "Obrigado! Sua resposta foi juntada")
    async with sessions() as session:
        files = (await session.exec(select(CaseAttachment).where(CaseAttachment.case_id == case.id)
                                    .order_by(CaseAttachment.id))).all()  # type: ignore[arg-type]
        stored = await session.get(Case, case.id)
    assert [(f.mime_type, f.caption) for f in files] == [
        ("audio/ogg", "o vizinho explica"), ("audio/ogg", None), ("video/mp4", "a casa 45")]
    assert stored is not None and stored.complement_answer == "Fica em frente ao número 45."
