"""Issue 22: a step's save merges into the draft what that step changed; it never writes back a whole draft read
before another update's write (two processes each read the draft, each added a photo or an answer, and the last
whole-draft write won)."""

from __future__ import annotations

import copy

from core.db import SessionFactory
from models.drafts import get_draft, mark_asked, save_draft
from models.people import Person


async def _person(sessions: SessionFactory) -> int:
    async with sessions() as session:
        person = Person(telegram_user_id=861001, chat_id=861001, first_name="Ana")
        session.add(person)
        await session.commit()
        assert person.id is not None
        return person.id


async def test_two_saves_from_the_same_read_both_stay(sessions: SessionFactory) -> None:
    person_id = await _person(sessions)
    async with sessions() as session:
        start = await save_draft(session=session, person_id=person_id, form="ouvidoria", step="files",
                                 data={"text": "Sem médico no posto.", "files": [1], "answers": {"5": "text"}})
    read = copy.deepcopy(start.data)  # what two updates (two processes) both read
    photo, answer = copy.deepcopy(read), copy.deepcopy(read)
    photo["files"] = [*photo["files"], 2]
    answer["files"] = [*answer["files"], 3]
    answer["type"] = "reclamacao"
    photo["answers"]["8"] = "files"
    answer["answers"]["9"] = "type"
    async with sessions() as session:
        await save_draft(session=session, person_id=person_id, form="ouvidoria", step="files", data=photo, base=read)
    async with sessions() as session:
        saved = await save_draft(session=session, person_id=person_id, form="ouvidoria", step="files", data=answer,
                                 base=read)
    assert saved.data == {"text": "Sem médico no posto.", "files": [1, 2, 3], "type": "reclamacao",
                          "answers": {"5": "text", "8": "files", "9": "type"}}
    async with sessions() as session:
        stored = await get_draft(session=session, person_id=person_id)
    assert stored is not None and stored.data == saved.data and stored.version == 2


async def test_a_removed_answer_is_removed_and_a_new_form_replaces_the_old(sessions: SessionFactory) -> None:
    person_id = await _person(sessions)
    async with sessions() as session:
        first = await save_draft(session=session, person_id=person_id, form="representacao", step="review",
                                 data={"name": "Ana", "editing": True})
    changed = {"name": "Ana"}
    async with sessions() as session:
        saved = await save_draft(session=session, person_id=person_id, form="representacao", step="review",
                                 data=changed, base=first.data)
    assert saved.data == {"name": "Ana"}
    async with sessions() as session:
        fresh = await save_draft(session=session, person_id=person_id, form="ouvidoria", step="type", data={"k": 1})
    assert fresh.data == {"k": 1}


async def test_a_step_is_not_asked_until_its_question_was_delivered(sessions: SessionFactory) -> None:
    person_id = await _person(sessions)
    async with sessions() as session:
        await save_draft(session=session, person_id=person_id, form="ouvidoria", step="text", data={}, asked=False)
    async with sessions() as session:
        await mark_asked(session=session, person_id=person_id, step="type")  # an older step: changes nothing
        assert (await get_draft(session=session, person_id=person_id)).asked is False  # type: ignore[union-attr]
    async with sessions() as session:
        await mark_asked(session=session, person_id=person_id, step="text")
    async with sessions() as session:
        assert (await get_draft(session=session, person_id=person_id)).asked is True  # type: ignore[union-attr]
