"""The engine's defects of issue 19 §4, in the citizens' forms (the staff's: ``test_staff_forms_engine``).

§4.2: after REP-2026-000001 was filed, the old "✖ Cancelar" of its review rewrote it into "Cancelado: nada foi
enviado". A button of a form already sent now answers that it was sent, with its protocol, and edits nothing —
also when Send and Cancel arrive in the same ``getUpdates`` batch (a double tap). §4.3: typed "voltar" was stored
as an answer ("Como ficou sabendo: voltar"); it now goes back one step, in every language the bot speaks.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import select

from core.db import SessionFactory
from models.cases.tables import Case
from models.drafts import get_draft, save_draft
from models.people import Person
from tests.auxil.case_chat import Talk

JOAO = 860001
CUIABA = ZoneInfo("America/Cuiaba")


def _review(key: str) -> dict[str, Any]:
    day = (dt.datetime.now(CUIABA).date() - dt.timedelta(days=2)).isoformat()
    return {"key": key, "kind": "cp", "name": "João Batista Pereira", "profession": "Pedreiro",
            "address": "Rua das Flores, 123, Centro", "cpf": None, "infraction_code": None,
            "facts": "Um caminhão despeja entulho na calçada toda sexta.", "accused": None,
            "place_text": "Rua das Flores, 200", "lat": None, "lon": None, "occurred_on": day,
            "evidence_note": "O vizinho filmou tudo.", "learned": "Vi", "learned_key": "saw", "relation": "none",
            "relation_ended_on": None}


async def _seed(sessions: SessionFactory, step: str, data: dict[str, Any], locale: str = "pt_BR") -> int:
    async with sessions() as session:
        person = Person(telegram_user_id=JOAO, chat_id=JOAO, first_name="João", locale=locale)
        session.add(person)
        await session.commit()
        await session.refresh(person)
        assert person.id is not None
        await save_draft(session=session, person_id=person.id, form="representacao", step=step, data=data)
        return person.id


async def test_send_and_the_old_cancel_at_the_same_instant_file_once_and_the_review_is_never_rewritten(
    emulator: Any, bot_app: Any, sessions: SessionFactory
) -> None:
    await _seed(sessions, "review", _review("s" * 16))
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="pt-br"))
    offer = await joao.send("/representacao", "")
    review = await joao.press(offer, "rep:resume", "Confira")
    emulator.press_button(joao.user, review, "rep:send")  # one batch: the double tap of Send, then Cancel
    emulator.press_button(joao.user, review, "rep:cancel")
    await emulator.wait_until(lambda: any("já foi enviada" in (m.text or "") for m in emulator.messages(JOAO)))
    async with sessions() as session:
        (case,) = (await session.exec(select(Case))).all()
    later = [m.text or "" for m in emulator.messages(JOAO) if m.message_id > review.message_id]
    assert any(f"protocolo é <b>{case.protocol}</b>" in t or f"protocolo é {case.protocol}" in t for t in later)
    assert not any("Cancelado" in text for text in later)
    kept = emulator.world.chat(emulator.bot, JOAO).messages[review.message_id]
    assert kept.edits == 0 and "Cancelado" not in (kept.text or "")
    # Pressed again later, alone: the same answer, and still nothing edited.
    again = await joao.press(review, "rep:cancel", "já foi enviada")
    assert case.protocol in again.text
    assert emulator.world.chat(emulator.bot, JOAO).messages[review.message_id].edits == 0
    await emulator.wait_until(lambda: not emulator.unanswered_callbacks())


@pytest.mark.parametrize(("word", "locale", "language", "name_question", "first_one"), [
    ("voltar", "pt_BR", "pt-br", "Qual é o seu nome completo?", "Esta é a primeira pergunta."),
    ("Anterior", "pt_BR", "pt-br", "Qual é o seu nome completo?", "Esta é a primeira pergunta."),
    ("back", "en", "en", "What is your full name?", "This is the first question."),
    ("atrás", "es", "es", "¿Cuál es su nombre completo?", "Esta es la primera pregunta."),
])
async def test_typed_voltar_goes_back_one_step_and_is_never_stored_as_the_answer(
    emulator: Any, bot_app: Any, sessions: SessionFactory, word: str, locale: str, language: str,
    name_question: str, first_one: str,
) -> None:
    person_id = await _seed(sessions, "profession", {"key": "v" * 16, "kind": "cp", "name": "João Batista Pereira"},
                            locale=locale)
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code=language))
    offer = await joao.send("/representacao", "")
    await joao.press(offer, "rep:resume", "")
    await joao.send(word, name_question)
    async with sessions() as session:
        draft = await get_draft(session=session, person_id=person_id)
    assert draft is not None and draft.step == "name"
    assert draft.data["name"] == "João Batista Pereira" and "profession" not in draft.data  # kept, not replaced
    mark = joao._mark()
    await joao.send(word, name_question)  # at the first question: said so, and asked again
    assert first_one in joao.since(mark)
    async with sessions() as session:
        draft = await get_draft(session=session, person_id=person_id)
    assert draft is not None and draft.step == "name" and draft.data["name"] == "João Batista Pereira"
