"""The form engine end to end, as real Telegram clients behave: albums and double taps arrive as several updates
at the same instant, people edit earlier messages, modified clients forge button data, and people record instead
of typing.

Updates queued without an ``await`` between them reach the bot in one ``getUpdates`` batch, as Telegram
delivers an album or a burst of taps.
"""

import datetime as dt
import logging
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import col, select

from bot.sandbox.emulator import BotApiEmulator
from bot.sandbox.state import ChatMessage
from core.db import SessionFactory
from models.cases.tables import Case, CaseAttachment
from models.drafts import get_draft, save_draft
from models.people import Person
from tests.auxil.case_chat import Talk
from tests.auxil.case_files import mp4, ogg, png

JOAO, MARIA = 850001, 850002
CUIABA = ZoneInfo("America/Cuiaba")


def _today() -> dt.date:
    return dt.datetime.now(CUIABA).date()


def _ombudsman_review(key: str) -> dict[str, Any]:
    return {"key": key, "type": "reclamacao", "text": "O posto de saúde do bairro está sem médico.", "files": [],
            "restricted": True, "name": "João Batista Pereira"}


def _representation_until_evidence(key: str) -> dict[str, Any]:
    return {"key": key, "kind": "cp", "name": "João Batista Pereira", "profession": "Pedreiro",
            "address": "Rua das Flores, 123, Centro", "cpf": None, "infraction_code": None,
            "facts": "Um caminhão despeja entulho na calçada toda sexta.", "accused": None,
            "place_text": "Rua das Flores, 200", "lat": None, "lon": None,
            "occurred_on": (_today() - dt.timedelta(days=2)).isoformat()}


def _representation_review(key: str) -> dict[str, Any]:
    return {**_representation_until_evidence(key), "evidence_note": "O vizinho filmou tudo.", "learned": "Vi",
            "learned_key": "saw", "relation": "none", "relation_ended_on": None}


async def _seed(sessions: SessionFactory, telegram_id: int, form: str, step: str, data: dict[str, Any],
                locale: str = "en") -> int:
    """A person with a form half filled in (as a restart would find it)."""
    async with sessions() as session:
        person = Person(telegram_user_id=telegram_id, chat_id=telegram_id, first_name="P", locale=locale)
        session.add(person)
        await session.commit()
        await session.refresh(person)
        assert person.id is not None
        await save_draft(session=session, person_id=person.id, form=form, step=step, data=data)
        return person.id


async def _resume(talk: Talk, command: str, prefix: str, expected: str) -> ChatMessage:
    offer = await talk.send(command, "")
    return await talk.press(offer, f"{prefix}:resume", expected)


def _texts(emulator: BotApiEmulator, user_id: int, after: int) -> list[str]:
    return [m.text or m.caption or "" for m in emulator.messages(user_id) if m.message_id > after]


async def _cases(sessions: SessionFactory) -> list[Case]:
    async with sessions() as session:
        return list((await session.exec(select(Case))).all())


async def test_an_album_of_ten_photos_keeps_the_first_five_with_the_caption_and_refuses_the_rest_once(
    emulator: Any, bot_app: Any, sessions: SessionFactory
) -> None:
    person_id = await _seed(sessions, JOAO, "representacao", "evidence", _representation_until_evidence("a" * 16))
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    evidence = await _resume(joao, "/representacao", "rep", "Send photos or documents")
    emulator.send_album(joao.user, [png(seed=i) for i in range(10)], caption="foto do entulho")
    await emulator.wait_until(lambda: len(_texts(emulator, JOAO, evidence.message_id)) >= 6)
    await emulator.wait_until(lambda: bot_app.update_processor.people_in_flight == 0)  # all ten handled
    answers = _texts(emulator, JOAO, evidence.message_id)
    assert answers == [f"File received ({n} of 5). Send more, or press Done." for n in range(1, 6)] + [
        "You can send at most 5 files per case: the other photos of this album were not kept. Everything else is "
        "safe."
    ]
    async with sessions() as session:
        draft = await get_draft(session=session, person_id=person_id)
        files = (await session.exec(select(CaseAttachment).order_by(col(CaseAttachment.id)))).all()
    assert draft is not None and draft.data["files"] == [f.id for f in files] and len(files) == 5
    assert [f.caption for f in files] == ["foto do entulho", None, None, None, None]


@pytest.mark.parametrize(("form", "command", "prefix", "data"), [
    ("ouvidoria", "/ouvidoria", "ouv", _ombudsman_review),
    ("representacao", "/representacao", "rep", _representation_review),
])
async def test_three_taps_on_send_at_the_same_instant_file_one_case_and_quote_its_protocol_twice(
    emulator: Any, bot_app: Any, sessions: SessionFactory, form: str, command: str, prefix: str, data: Any
) -> None:
    await _seed(sessions, JOAO, form, "review", data("b" * 16))
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    review = await _resume(joao, command, prefix, "Please check your")
    for _ in range(3):
        emulator.press_button(joao.user, review, f"{prefix}:send")
    await emulator.wait_until(lambda: sum("already sent" in t for t in _texts(emulator, JOAO, review.message_id)) == 2)
    (case,) = await _cases(sessions)
    answers = _texts(emulator, JOAO, review.message_id)
    assert sum(f"Your protocol number is <b>{case.protocol}</b>" in t or f"Your protocol number is {case.protocol}"
               in t for t in answers) == 1
    assert sum(f"already sent. Its protocol number is {case.protocol}" in t for t in answers) == 2
    await emulator.wait_until(lambda: not emulator.unanswered_callbacks())


async def test_two_people_tapping_send_three_times_at_once_each_file_one_case(
    emulator: Any, bot_app: Any, sessions: SessionFactory
) -> None:
    await _seed(sessions, JOAO, "ouvidoria", "review", _ombudsman_review("c" * 16))
    await _seed(sessions, MARIA, "ouvidoria", "review", {**_ombudsman_review("d" * 16), "name": "Maria Souza"})
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    maria = Talk(emulator, emulator.add_user(MARIA, "Maria", language_code="en"))
    reviews = [await _resume(joao, "/ouvidoria", "ouv", "Please check"),
               await _resume(maria, "/ouvidoria", "ouv", "Please check")]
    for _ in range(3):
        for talk, review in zip((joao, maria), reviews, strict=True):
            emulator.press_button(talk.user, review, "ouv:send")
    for user_id, review in ((JOAO, reviews[0]), (MARIA, reviews[1])):
        await emulator.wait_until(
            lambda u=user_id, r=review: sum("already sent" in t for t in _texts(emulator, u, r.message_id)) == 2
        )
    cases = await _cases(sessions)
    assert len(cases) == 2 and len({c.protocol for c in cases}) == 2


async def test_an_edit_of_an_earlier_answer_at_the_review_changes_that_answer_and_never_files(
    emulator: Any, bot_app: Any, sessions: SessionFactory
) -> None:
    """Editing the name message to "yes" filed the case; a typo fixed later replaced the current answer."""
    data = {k: v for k, v in _ombudsman_review("e" * 16).items() if k != "name"}
    await _seed(sessions, JOAO, "ouvidoria", "name", data)
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    await _resume(joao, "/ouvidoria", "ouv", "What is your full name?")
    mark = joao._mark()
    await joao.send("João Batista Pereria", "Please check your message")
    (name_message,) = [m for m in emulator.transcript(JOAO) if m.message_id > mark and not m.from_bot]

    mark = joao._mark()
    emulator.edit_text(joao.user, name_message, "yes")
    await emulator.wait_for_message(JOAO, lambda m: "Please check your message" in (m.text or ""), after=mark)
    assert any("Your edit was not taken: Please write your full name" in t for t in joao.since(mark))
    assert await _cases(sessions) == []

    mark = joao._mark()
    emulator.edit_text(joao.user, name_message, "João Batista Pereira")
    review = await emulator.wait_for_message(JOAO, lambda m: "Please check your message" in (m.text or ""),
                                             after=mark)
    assert "Changed: Name." in joao.since(mark) and "João Batista Pereira" in review.text

    mark = joao._mark()
    command = next(m for m in emulator.transcript(JOAO) if not m.from_bot and m.text == "/ouvidoria")
    emulator.edit_text(joao.user, command, "/cancelar")  # an edited command runs nothing either
    await emulator.wait_for_message(JOAO, lambda m: "Please check your message" in (m.text or ""), after=mark)
    assert any("Editing an earlier message changes nothing here" in t for t in joao.since(mark))
    assert await _cases(sessions) == []
    await joao.press(review, "ouv:send", "Your protocol number is")
    (case,) = await _cases(sessions)
    async with sessions() as session:
        from models.cases.tables import CaseAuthor

        author = (await session.exec(select(CaseAuthor))).one()
    assert author.name == "João Batista Pereira" and case.protocol.startswith("OUV-")


FORGED = ["rep:when:-30", "rep:when:abc", "rep:rel:bogus", "rep:", "rep:when:12345678901", "rep:when:" + "9" * 30,
          "rep:when:²", "rep:inf:²", "rep:edit:²", "rep:skip:²", "rep:files:all", "rep:send:x"]


async def test_forged_buttons_are_answered_this_button_is_no_longer_valid_and_change_nothing(
    emulator: Any, bot_app: Any, sessions: SessionFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """``rep:when:-30`` filed a date 30 days in the future (typed, that date is refused); the others crashed."""
    caplog.set_level(logging.WARNING)
    person_id = await _seed(sessions, JOAO, "representacao", "when",
                            {k: v for k, v in _representation_until_evidence("f" * 16).items() if k != "occurred_on"},
                            locale="pt_BR")
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="pt-br"))
    when = await _resume(joao, "/representacao", "rep", "Quando aconteceu?")
    for data in FORGED:
        mark = joao._mark()
        emulator.press_button(joao.user, when, data, forged=True)
        await emulator.wait_for_message(JOAO, lambda m: "Quando aconteceu?" in (m.text or ""), after=mark)
        assert "Esse botão não vale mais." in joao.since(mark), data
    mark = joao._mark()
    query = emulator.press_button(joao.user, when, "²", forged=True)  # no area's prefix at all
    await emulator.wait_until(lambda: emulator.callback_query(query).answered)
    assert emulator.callback_query(query).answer_text == "Esse botão não vale mais."
    async with sessions() as session:
        draft = await get_draft(session=session, person_id=person_id)
    assert draft is not None and draft.step == "when" and "occurred_on" not in draft.data
    refused = [r for r in caplog.records if "button refused" in r.getMessage() or "unknown button" in r.getMessage()]
    assert len(refused) == len(FORGED) + 1
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    await joao.press(when, "rep:when:1", "Mande fotos ou documentos")


async def test_voice_notes_and_short_videos_are_evidence_within_the_configured_length(
    emulator: Any, bot_app: Any, sessions: SessionFactory
) -> None:
    person_id = await _seed(sessions, JOAO, "ouvidoria", "files",
                            {k: v for k, v in _ombudsman_review("g" * 16).items() if k not in ("restricted", "name")})
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    await _resume(joao, "/ouvidoria", "ouv", "If you want, send")
    mark = joao._mark()
    emulator.send_voice(joao.user, ogg(20), duration=20)
    await joao._expect(mark, "File received (1 of 5)")
    mark = joao._mark()
    emulator.send_video(joao.user, mp4(30), duration=30, caption="o caminhão")
    await joao._expect(mark, "File received (2 of 5)")
    mark = joao._mark()
    emulator.send_video(joao.user, mp4(600), duration=5)  # the phone may say anything: the file decides
    await joao._expect(mark, "too long: the limit is 120 seconds")
    mark = joao._mark()
    emulator.send_voice(joao.user, b"not a recording at all", duration=3)
    await joao._expect(mark, "only accept")
    async with sessions() as session:
        draft = await get_draft(session=session, person_id=person_id)
        files = (await session.exec(select(CaseAttachment).order_by(col(CaseAttachment.id)))).all()
    assert [(f.mime_type, f.caption) for f in files] == [("audio/ogg", None), ("video/mp4", "o caminhão")]
    assert draft is not None and draft.data["files"] == [f.id for f in files]


async def test_typed_sim_and_nao_at_the_review_and_the_protocol_message_is_never_edited_away(
    emulator: Any, bot_app: Any, sessions: SessionFactory
) -> None:
    await _seed(sessions, JOAO, "representacao", "review", _representation_review("h" * 16), locale="pt_BR")
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="pt-br"))
    await _resume(joao, "/representacao", "rep", "Confira")
    change = await joao.send("não", "O que você quer mudar?")
    assert "rep:edit:evidence" in joao.buttons(change) and await _cases(sessions) == []
    relation = await joao.press(change, "rep:edit:relation", "sócio")
    await joao.send("não", "Confira")  # "não, nunca" typed at a yes/no question
    assert relation
    await joao.press(change, "rep:edit:review", "Confira")
    sent = await joao.send("sim", "Seu número de protocolo é")
    (case,) = await _cases(sessions)
    assert case.protocol in sent.text and sent.inline_buttons == []
    after = await emulator.wait_for_message(JOAO, lambda m: "rep" not in (m.text or "") and bool(m.inline_buttons),
                                            after=sent.message_id)
    await joao.press_and_edit(after, "cmd:acompanhar", case.protocol)
    kept = emulator.world.chat(emulator.bot, JOAO).messages[sent.message_id]
    assert kept.edits == 0 and case.protocol in (kept.text or "")


async def test_forged_ids_in_the_other_areas_buttons_are_refused_without_an_error(
    emulator: Any, bot_app: Any, sessions: SessionFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """``²`` passes isdigit but not int(); 30 digits overflow PostgreSQL's INTEGER; ``pend:take`` of no case."""
    from models.people import Role, add_staff

    caplog.set_level(logging.WARNING)
    async with sessions() as session:
        session.add(Person(telegram_user_id=JOAO, chat_id=JOAO, first_name="Clara", locale="en"))
        await session.commit()
        await add_staff(session=session, telegram_user_id=JOAO, role=Role.CLERK, name="Clara", actor="test")
    clara = Talk(emulator, emulator.add_user(JOAO, "Clara", language_code="en"))
    menu = await clara.send("/start", "")
    for data in ("acomp:case:²", "acomp:case:" + "9" * 30, "acomp:sat:²:satisfied", "ntc:show:²", "ntc:pdf:-1",
                 "ntc:file:" + "9" * 30, "notif:ciencia:" + "9" * 20, "pend:case:²", "pend:take:" + "9" * 30):
        query = emulator.press_button(clara.user, menu, data, forged=True)
        await emulator.wait_until(lambda q=query: emulator.callback_query(q).answered)
        assert emulator.callback_query(query).answer_text == "This button is no longer valid.", data
    mark = clara._mark()
    emulator.press_button(clara.user, menu, "pend:take:999999", forged=True)
    await clara._expect(mark, "That case does not exist.")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_draft_saved_before_the_engine_is_filed_once_too(
    emulator: Any, bot_app: Any, sessions: SessionFactory
) -> None:
    """Drafts written by the old conversations have no key: they get one on their next update."""
    data = {k: v for k, v in _ombudsman_review("unused").items() if k != "key"}
    person_id = await _seed(sessions, JOAO, "ouvidoria", "review", data)
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    review = await _resume(joao, "/ouvidoria", "ouv", "Please check")
    await joao.send("yes", "Your protocol number is")
    (case,) = await _cases(sessions)
    again = await joao.press(review, "ouv:send", "already sent")
    assert case.protocol in again.text
    async with sessions() as session:
        assert await get_draft(session=session, person_id=person_id) is None


async def test_a_typo_fixed_in_the_name_while_the_profession_is_asked_changes_the_name_only(
    emulator: Any, bot_app: Any, sessions: SessionFactory
) -> None:
    """Correcting the name while the form asked the next question stored the name as the answer to that one."""
    person_id = await _seed(sessions, JOAO, "representacao", "name", {"key": "i" * 16, "kind": "cp"})
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    await _resume(joao, "/representacao", "rep", "What is your full name?")
    mark = joao._mark()
    await joao.send("João Batista Pereria", "profession")
    (name_message,) = [m for m in emulator.transcript(JOAO) if m.message_id > mark and not m.from_bot]
    mark = joao._mark()
    emulator.edit_text(joao.user, name_message, "João Batista Pereira")
    await joao._expect(mark, "What is your profession")
    assert "Changed: Name." in joao.since(mark)
    async with sessions() as session:
        draft = await get_draft(session=session, person_id=person_id)
    assert draft is not None and draft.step == "profession"
    assert draft.data["name"] == "João Batista Pereira" and "profession" not in draft.data
