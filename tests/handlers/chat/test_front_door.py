"""End to end through the emulator: /start in the user's language, the main menu, /idioma, /cancelar, errors."""

import json
from typing import Any

import pytest
from sqlmodel import select
from telegram.ext import CommandHandler

from handlers.chat.commands import COMMANDS
from models.cases.tables import CaseAttachment
from models.drafts import get_draft, save_draft
from models.people import Person
from tests.auxil.case_chat import Talk
from tests.auxil.case_files import pdf


@pytest.mark.parametrize(
    ("language_code", "greeting", "menu_prompt"),
    [
        ("pt-br", "Olá, Maria!", "O que você quer fazer?"),
        ("en", "Hello, Maria!", "What would you like to do?"),
        ("es", "¡Hola, Maria!", "¿Qué desea hacer?"),
    ],
)
async def test_start_answers_in_the_users_language_with_the_main_menu(
    emulator: Any, bot_app: Any, language_code: str, greeting: str, menu_prompt: str
) -> None:
    maria = emulator.add_user(810001, "Maria", language_code=language_code)
    emulator.send_text(maria, "/start")
    hello = await emulator.wait_for_message(maria.id, lambda m: greeting in (m.text or ""))
    menu = await emulator.wait_for_message(maria.id, lambda m: menu_prompt in (m.text or ""))
    assert hello.text.startswith(greeting)
    labels = [button["callback_data"] for button in menu.inline_buttons]
    expected = {f"cmd:{c.name}" for c in COMMANDS.values() if c.menu_label and c.staff_roles is None}
    assert expected <= set(labels)


async def test_a_menu_button_runs_the_same_function_as_the_command(emulator: Any, bot_app: Any) -> None:
    maria = emulator.add_user(810001, "Maria", language_code="pt-br")
    emulator.send_text(maria, "/start")
    menu = await emulator.wait_for_message(maria.id, lambda m: "O que você quer fazer?" in (m.text or ""))
    emulator.press_button(maria, menu, "cmd:privacidade")
    privacy = await emulator.wait_for_message(maria.id, lambda m: "Seus dados no Balcão" in (m.text or ""))
    assert "LGPD" in privacy.text


async def test_idioma_switches_the_language_and_it_sticks(emulator: Any, bot_app: Any, sessions: Any) -> None:
    maria = emulator.add_user(810001, "Maria", language_code="pt-br")
    emulator.send_text(maria, "/idioma")
    picker = await emulator.wait_for_message(maria.id, lambda m: "Escolha o seu idioma" in (m.text or ""))
    emulator.press_button(maria, picker, "lang:es")
    await emulator.wait_for_edit(maria.id, picker.message_id, lambda m: "español" in (m.text or ""))
    emulator.send_text(maria, "/ajuda")
    await emulator.wait_for_message(maria.id, lambda m: "Cómo usar Balcão" in (m.text or ""))
    async with sessions() as session:
        person = (await session.exec(__import__("sqlmodel").select(Person))).one()
    assert (person.locale, person.locale_chosen) == ("es", True)


async def test_cancelar_discards_the_form_in_progress_and_says_what_was_kept(
    emulator: Any, bot_app: Any, sessions: Any
) -> None:
    maria = emulator.add_user(810001, "Maria", language_code="pt-br")
    emulator.send_text(maria, "/start")
    await emulator.wait_for_message(maria.id, lambda m: "O que você quer fazer?" in (m.text or ""))
    async with sessions() as session:
        person = (await session.exec(__import__("sqlmodel").select(Person))).one()
        await save_draft(session=session, person_id=person.id, form="unknown-form", step="x", data={"a": 1})
    emulator.send_text(maria, "/cancelar")
    answer = await emulator.wait_for_message(maria.id, lambda m: "Cancelado" in (m.text or ""))
    assert "continua guardado" in answer.text
    async with sessions() as session:
        assert await get_draft(session=session, person_id=person.id) is None
    emulator.send_text(maria, "/cancelar")
    await emulator.wait_for_message(maria.id, lambda m: "Não havia nada em andamento" in (m.text or ""))


async def test_cancelar_in_a_form_discards_its_draft_and_the_files_sent_into_it(
    emulator: Any, bot_app: Any, sessions: Any
) -> None:
    """The engine's /cancelar: the form named, its draft and its unfiled files gone, the next start afresh."""
    joao = Talk(emulator, emulator.add_user(810002, "João", language_code="en"))
    city = await joao.send("/ouvidoria", "Choose your city")
    kinds = await joao.press(city, "city:sapezal:ouvidoria", "What kind of message is it?")
    await joao.press(kinds, "ouv:type:reclamacao", "Write your message")
    await joao.send("O posto de saúde do bairro está sem médico há duas semanas.", "If you want, send")
    await joao.document(pdf(), "receita.pdf", "application/pdf", "File received (1 of 5)")
    async with sessions() as session:
        assert len((await session.exec(select(CaseAttachment))).all()) == 1
    answer = await joao.send("/cancelar", "Cancelled")
    assert "your message to the Ombudsman was discarded" in answer.text and "is kept" in answer.text
    async with sessions() as session:
        person = (await session.exec(select(Person).where(Person.telegram_user_id == 810002))).one()
        assert await get_draft(session=session, person_id=person.id) is None
        assert (await session.exec(select(CaseAttachment))).all() == []
    await joao.send("/ouvidoria", "What kind of message is it?")  # afresh: no "continue where you stopped"


async def test_an_unexpected_error_is_logged_with_a_reference_the_user_can_quote(
    emulator: Any, bot_app: Any, caplog: pytest.LogCaptureFixture
) -> None:
    async def explode(update: Any, context: Any) -> None:
        raise RuntimeError("database on fire")

    bot_app.add_handler(CommandHandler("explodir", explode), group=-1)  # group 0 ends with the unknown-command reply
    maria = emulator.add_user(810001, "Maria", language_code="pt-br")
    emulator.send_text(maria, "/explodir")
    apology = await emulator.wait_for_message(maria.id, lambda m: "algo deu errado" in (m.text or ""))
    reference = apology.text.rsplit(" ", 1)[-1]
    assert reference.startswith("E-")
    assert "Traceback" not in apology.text and "database on fire" not in apology.text
    assert any(reference in record.getMessage() and record.exc_info for record in caplog.records)


async def test_command_menus_are_published_per_language(emulator: Any, bot_app: Any) -> None:
    calls = emulator.calls_to("setMyCommands", ok=True)
    languages = {call.params.get("language_code") for call in calls}
    assert {None, "pt", "en", "es"} <= languages
    portuguese = next(c for c in calls if c.params.get("language_code") == "pt")
    commands = portuguese.params["commands"]
    commands = json.loads(commands) if isinstance(commands, str) else commands
    assert commands[0] == {"command": "start", "description": "Começar e ver o menu principal"}
    assert {"cancelar", "idioma", "ajuda", "privacidade"} <= {c["command"] for c in commands}
    spanish = next(c for c in calls if c.params.get("language_code") == "es")
    assert "Cambiar el idioma" in str(spanish.params["commands"])


async def test_staff_get_their_own_menu_in_their_chat(
    emulator: Any, settings: Any, sessions: Any
) -> None:
    from handlers.chat.commands import chat_command
    from models.people import Role, add_staff
    from tests.auxil.bot_harness import running_bot

    ana = emulator.add_user(820001, "Ana", language_code="pt-br")
    async with sessions() as session:
        await add_staff(session=session, telegram_user_id=ana.id, role=Role.CLERK, name="Ana", actor="test")
    if "filastaff" not in COMMANDS:
        @chat_command("filastaff", description="Work the queue", staff_roles=frozenset({Role.CLERK}))
        async def _queue(update: Any, context: Any) -> None:
            return None
    try:
        async with running_bot(settings, sessions, emulator):
            emulator.send_text(ana, "/start")
            await emulator.wait_for_message(ana.id, lambda m: "O que você quer fazer?" in (m.text or ""))
            scoped = [c for c in emulator.calls_to("setMyCommands", ok=True)
                      if "chat" in str(c.params.get("scope"))]
        assert scoped, "the staff chat got no menu of its own"
        assert "filastaff" in str(scoped[-1].params["commands"])
        assert str(ana.id) in str(scoped[-1].params["scope"])
    finally:
        COMMANDS.pop("filastaff", None)


async def test_a_newcomer_is_pointed_to_the_privacy_notice_until_they_acknowledge_it(
    emulator: Any, bot_app: Any, sessions: Any
) -> None:
    """LGPD Art. 9: the person is told how their data is used; the moment they acknowledge it is recorded."""
    joao = emulator.add_user(810009, "João", language_code="pt-br")
    emulator.send_text(joao, "/start")
    hello = await emulator.wait_for_message(joao.id, lambda m: "Olá, João!" in (m.text or ""))
    assert "/privacidade" in hello.text
    emulator.send_text(joao, "/privacidade")
    notice = await emulator.wait_for_message(joao.id, lambda m: "Seus dados no Balcão" in (m.text or ""))
    emulator.press_button(joao, notice, "privacy:ack")
    await emulator.wait_for_edit(joao.id, notice.message_id, lambda m: "Obrigado" in (m.text or ""))
    async with sessions() as session:
        person = (await session.exec(__import__("sqlmodel").select(Person))).one()
    assert person.privacy_accepted_at is not None
    emulator.send_text(joao, "/start")
    again = await emulator.wait_for_message(joao.id, lambda m: "Olá, João!" in (m.text or ""))
    assert "/privacidade" not in again.text
    emulator.send_text(joao, "/privacidade")
    second = await emulator.wait_for_message(joao.id, lambda m: "Seus dados no Balcão" in (m.text or ""))
    assert "privacy:ack" not in str(second.inline_buttons)
    assert emulator.unanswered_callbacks() == []


async def test_privacidade_names_the_encarregado_and_says_telegram_is_abroad(
    emulator: Any, bot_app: Any, sessions: Any
) -> None:
    # LGPD Art. 23 III, 41 §1: the encarregado named with a contact; Art. 33 VII with 23 I: Telegram is abroad.
    ana = emulator.add_user(810031, "Ana", language_code="pt-br")
    emulator.send_text(ana, "/privacidade")
    notice = await emulator.wait_for_message(ana.id, lambda m: "Seus dados no Balcão" in (m.text or ""))
    assert "encarregado" in notice.text and "Bruna Encarregada, lgpd@sapezal.mt.gov.br" in notice.text
    assert "Telegram, um provedor no exterior" in notice.text and "Art. 33 VII" in notice.text
