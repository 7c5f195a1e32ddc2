"""/idioma end to end (issue 9 item 5): one answer per button press, the menu follows, the command menu too."""

from typing import Any

import pytest

from bot.sandbox.methods import visible_commands


@pytest.mark.parametrize(
    ("locale", "done", "menu_prompt", "command_text"),
    [
        ("en", "I will talk to you in English", "What would you like to do?", "Change the language"),
        ("es", "español", "¿Qué desea hacer?", "Cambiar el idioma"),
    ],
)
async def test_switching_language_answers_the_press_once_shows_the_menu_and_sets_the_chat_command_menu(
    emulator: Any, bot_app: Any, caplog: pytest.LogCaptureFixture, locale: str, done: str, menu_prompt: str,
    command_text: str,
) -> None:
    maria = emulator.add_user(810001, "Maria", language_code="pt-br")  # her Telegram app is in Portuguese
    emulator.send_text(maria, "/idioma")
    picker = await emulator.wait_for_message(maria.id, lambda m: "Escolha o seu idioma" in (m.text or ""))
    query_id = emulator.press_button(maria, picker, f"lang:{locale}")
    await emulator.wait_for_edit(maria.id, picker.message_id, lambda m: done in (m.text or ""))
    menu = await emulator.wait_for_message(maria.id, lambda m: menu_prompt in (m.text or ""))
    assert menu.inline_buttons, "the main menu has its buttons"
    assert emulator.callback_query(query_id).answered
    assert emulator.calls_to("answerCallbackQuery", ok=False) == [], "a button press was answered twice"
    assert not [r for r in caplog.records if r.name == "balcao.errors"], "the switch raised an error"
    commands = {c["command"]: c["description"] for c in visible_commands(emulator.bot, emulator.user(maria))}
    assert commands["idioma"] == command_text  # Telegram picked Portuguese from her app; her chat's menu is hers


async def test_a_second_answer_to_one_button_press_is_refused_like_telegram_does(emulator: Any) -> None:
    from tests.auxil.emulator import ptb_bot

    maria = emulator.add_user(810001, "Maria", language_code="pt-br")
    message = emulator.send_text(maria, "hello")
    async with ptb_bot(emulator) as bot:
        sent = await bot.send_message(message.chat_id, "?", reply_markup={"inline_keyboard": [[
            {"text": "ok", "callback_data": "x"}]]})
        query_id = emulator.press_button(maria, sent.message_id, "x")
        assert await bot.answer_callback_query(query_id)
        with pytest.raises(Exception, match=r"(?i)query is too old"):
            await bot.answer_callback_query(query_id)


async def test_an_error_after_the_press_was_answered_still_reaches_the_person(emulator: Any, bot_app: Any) -> None:
    from telegram.ext import CallbackQueryHandler

    from handlers.chat.replies import answer_query

    async def answer_then_fail(update: Any, context: Any) -> None:
        await answer_query(update, context)
        raise RuntimeError("boom")

    bot_app.add_handler(CallbackQueryHandler(answer_then_fail, pattern="^menu:main$"), group=-1)
    maria = emulator.add_user(810001, "Maria", language_code="pt-br")
    emulator.send_text(maria, "/ajuda")
    helped = await emulator.wait_for_message(maria.id, lambda m: "Como usar" in (m.text or ""))
    emulator.press_button(maria, helped, "menu:main")
    await emulator.wait_for_message(maria.id, lambda m: "algo deu errado" in (m.text or ""))


async def test_the_language_picker_names_each_language_as_its_speakers_write_it(emulator: Any, bot_app: Any) -> None:
    maria = emulator.add_user(810001, "Maria", language_code="pt-br")
    emulator.send_text(maria, "/idioma")
    picker = await emulator.wait_for_message(maria.id, lambda m: "Escolha o seu idioma" in (m.text or ""))
    assert [b["text"] for b in picker.inline_buttons] == ["Português (Brasil)", "English", "Español"]
