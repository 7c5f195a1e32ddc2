"""Issue 22 items 3, 4 and 5: a turn's replies all come, in order, and a saved step's question is never skipped.

* One 502 on "Address noted." sent it to the outbox and stopped the handler: the next question never came, the
  address was not saved, and the next answer was stored as the address. A refused reply is now tried again in
  place and the rest of the turn follows it, in order.
* A step's saved answer and its question go together: when the question could not be delivered (refused for good
  here; a ``kill -9`` in ``tests/ops/test_several_processes.py``), the next thing the person sends is not taken as
  its answer: the question is asked again.
* While the database is down, each update got two apologies with two references, the second for an
  ``AttributeError`` of a later handler group. One failure now gives one apology, whose log names the real cause.
"""

import logging
from typing import Any

import pytest
from sqlmodel import select
from telegram import Update

from bot import telegram_bot
from core.db import SessionFactory, create_engine, session_factory
from handlers.chat.context import SESSIONS_KEY
from models.columns import utcnow
from models.drafts import Draft, get_draft
from models.people import Person
from tests.auxil.case_chat import Talk

JOAO = 852001


async def _draft(sessions: SessionFactory, user_id: int) -> Draft | None:
    async with sessions() as session:
        person = (await session.exec(select(Person).where(Person.telegram_user_id == user_id))).one()
        return await get_draft(session=session, person_id=person.id)


async def _to_the_author_address(joao: Talk) -> None:
    kind = await joao.send("/representacao", "What would you like to report?")
    await joao.press(kind, "rep:kind:cp", "What is your full name?")
    await joao.send("João Batista Pereira", "profession")
    await joao.send("Pedreiro", "What is your address")


async def test_a_refused_address_note_still_brings_the_next_question_in_order(
    emulator: Any, bot_app: Any, sessions: SessionFactory, reply_waits: list[float]
) -> None:
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    await _to_the_author_address(joao)
    await joao.send("Rua das Flores, 123, Centro", "type your CPF")
    await joao.send("529.982.247-25", "Type one or two words")
    results = await joao.send("lixo na rua", "Is it one of these?")
    await joao.press(results, "rep:inf:CP-I-9", "Describe briefly what happened")
    accused = await joao.send("Um caminhão despeja entulho na calçada toda sexta.", "Who is responsible?")
    await joao.press(accused, "rep:skip:accused", "Where did it happen?")
    mark = joao._mark()
    emulator.fail_next("sendMessage", error_code=502, description="Bad Gateway", chat_id=JOAO)
    await joao.send("Rua das Palmeiras, 45, em frente à escola", "When did it happen?")
    assert joao.since(mark) == ["Address noted.", joao.since(mark)[1]]  # the note, then the next question
    assert len(reply_waits) == 1
    draft = await _draft(sessions, JOAO)
    assert draft is not None and draft.step == "when"
    assert draft.data["place_text"] == "Rua das Palmeiras, 45, em frente à escola"


async def test_a_question_that_was_not_delivered_is_asked_again_before_an_answer_is_taken(
    emulator: Any, bot_app: Any, sessions: SessionFactory, reply_waits: list[float]
) -> None:
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    await _to_the_author_address(joao)
    emulator.fail_next("sendMessage", error_code=502, description="Bad Gateway", chat_id=JOAO,
                       times=telegram_bot.REPLY_TRIES)  # the CPF question is refused for good (it goes to the outbox)
    emulator.send_text(JOAO, "Rua das Flores, 123, Centro")
    await emulator.wait_until(lambda: len(emulator.calls_to("sendMessage", ok=False)) >= telegram_bot.REPLY_TRIES)
    mark = joao._mark()
    # no question came, so João types his address again: it is not taken as his CPF, the question comes again
    again = await joao.send("Rua das Flores, 123, Centro", "type your CPF")
    assert joao.since(mark)[0] == "Let's continue from where we stopped:"
    draft = await _draft(sessions, JOAO)
    assert draft is not None and draft.step == "cpf"
    assert draft.data["address"] == "Rua das Flores, 123, Centro" and draft.data.get("cpf") is None
    assert "not valid" not in (again.text or "")
    await joao.send("529.982.247-25", "Type one or two words")


async def test_one_failure_gives_one_apology_whose_log_names_the_cause(
    emulator: Any, bot_app: Any, sessions: SessionFactory, caplog: pytest.LogCaptureFixture, tmp_path: Any
) -> None:
    maria = emulator.add_user(852002, "Maria", language_code="en")
    down = create_engine(f"sqlite+aiosqlite:///{tmp_path}/no-such-directory/balcao.db")  # the database is away
    bot_app.bot_data[SESSIONS_KEY] = session_factory(down)
    data = {"update_id": 7001, "message": {
        "message_id": 7001, "date": int(utcnow().timestamp()), "text": "/ajuda",
        "entities": [{"type": "bot_command", "offset": 0, "length": 6}],
        "chat": {"id": maria.id, "type": "private", "first_name": "Maria"}, "from": maria.as_user()}}
    try:
        with caplog.at_level(logging.ERROR, logger="balcao.errors"):
            await bot_app.process_update(Update.de_json(data, bot_app.bot))
    finally:
        bot_app.bot_data[SESSIONS_KEY] = sessions
        await down.dispose()
    texts = [m.text or "" for m in emulator.messages(maria.id) if m.from_bot]
    assert len(texts) == 1 and texts[0].startswith("Sorry, something went wrong on our side")
    errors = [r for r in caplog.records if r.name == "balcao.errors" and r.levelno == logging.ERROR]
    assert len(errors) == 1
    [reference] = [word for word in texts[0].split() if word.startswith("E-")]
    assert reference in errors[0].getMessage() and "OperationalError" in errors[0].getMessage()
    assert errors[0].exc_info is not None and not isinstance(errors[0].exc_info[1], AttributeError)


async def test_a_refused_protocol_message_is_followed_by_the_receipt_and_the_menu_in_order(
    emulator: Any, bot_app: Any, reply_waits: list[float]
) -> None:
    """Issue 22 item 3: after ✅ Enviar the case was filed, but the PDF receipt and the menu never arrived."""
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    city = await joao.send("/ouvidoria", "Choose your city")
    kinds = await joao.press(city, "city:sapezal:ouvidoria", "What kind of message is it?")
    await joao.press(kinds, "ouv:type:reclamacao", "Write your message")
    files = await joao.send("O posto de saúde do bairro está sem médico há duas semanas.", "If you want, send")
    identity = await joao.press(files, "ouv:files:done", "Who may see your name?")
    await joao.press(identity, "ouv:id:restricted", "What is your full name?")
    review = await joao.send("João Batista Pereira", "Please check your message")
    mark = joao._mark()
    emulator.fail_next("sendMessage", error_code=502, description="Bad Gateway", chat_id=JOAO)
    await joao.press(review, "ouv:send", "What would you like to do now?")
    after = [m for m in emulator.messages(JOAO) if m.message_id > mark]
    assert "Your protocol number is" in (after[0].text or "")
    assert after[1].document is not None and after[1].document["file_name"].startswith("OUV-")
    assert "What would you like to do now?" in (after[2].text or "") and len(after) == 3
    assert reply_waits == [telegram_bot.REPLY_FIRST_RETRY_SECONDS]
