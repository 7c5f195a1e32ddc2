"""The end-to-end helpers in tests/auxil/emulator.py, driving a small PTB application."""

from __future__ import annotations

import pytest
import telegram
from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.sandbox.emulator import BotApiEmulator
from bot.sandbox.state import Persona
from tests.auxil.emulator import AnyApplication, press, running_emulator, say, tiny_png


async def test_say_returns_the_bot_reply(emu: BotApiEmulator, echo_bot: AnyApplication) -> None:
    maria = emu.personas[1]
    reply = await say(emu, maria, "Quero abrir uma <representação>")
    assert reply.text == "Eco: Quero abrir uma <representação>"
    assert reply.html == "Eco: <b>Quero abrir uma &lt;representação&gt;</b>"
    assert reply.chat_id == maria.user_id and reply.from_bot

    second = await say(emu, maria, "segunda")
    assert second.text == "Eco: segunda" and second.message_id > reply.message_id


async def test_press_by_label_or_data_returns_the_edit(emu: BotApiEmulator, echo_bot: AnyApplication) -> None:
    carlos = emu.personas[0]
    reply = await say(emu, carlos, "oi")
    edited = await press(emu, carlos, reply, "Marcar como lido")
    assert (edited.message_id, edited.text, edited.inline_buttons) == (reply.message_id, "Lido ✔", [])
    [query_id] = list(emu.bot.callback_queries)
    answered = await emu.wait_for_answer(query_id)
    assert answered.answer_text == "Marcado"

    other = await say(emu, carlos, "outra")
    assert (await press(emu, carlos, other.message_id, "lido")).text == "Lido ✔"
    with pytest.raises(LookupError, match="no button"):
        await press(emu, carlos, other, "Marcar como lido")  # the edit removed the button


async def test_contacts_places_photos_and_documents_reach_the_bot(
    emu: BotApiEmulator, echo_bot: AnyApplication
) -> None:
    carlos = emu.personas[0]
    emu.share_contact(carlos)
    assert (await emu.wait_for_message(carlos.user_id)).text == "Telefone recebido: +5565999110001"
    emu.share_location(carlos, -13.5427, -58.8145)
    assert (await emu.wait_for_message(carlos.user_id)).text == "Local recebido: -13.5427, -58.8145"
    emu.send_photo(carlos, tiny_png(5, 4))
    assert (await emu.wait_for_message(carlos.user_id)).text == "Foto 5x4 recebida"
    emu.send_document(carlos, b"laudo", "vistoria.txt", "text/plain")
    echoed = await emu.wait_for_message(carlos.user_id)
    assert echoed.document is not None and echoed.document["file_name"] == "eco-vistoria.txt"
    assert emu.file(echoed.document["file_id"]).data == b"laudo"


async def test_waiting_for_nothing_times_out_with_the_chat_shown(emu: BotApiEmulator, tg: telegram.Bot) -> None:
    await tg.send_message(700000002, "mensagem antiga")
    with pytest.raises(TimeoutError, match="mensagem antiga"):
        await emu.wait_for_message(700000002, timeout=0.05)
    # after=0 counts messages already there
    assert (await emu.wait_for_message(700000002, after=0, timeout=0.05)).text == "mensagem antiga"


async def test_press_refuses_url_buttons(emu: BotApiEmulator, tg: telegram.Bot) -> None:
    link = InlineKeyboardMarkup([[InlineKeyboardButton("Site", url="https://sapezal.mt.gov.br")]])
    sent = await tg.send_message(700000002, "Veja", reply_markup=link)
    with pytest.raises(ValueError, match="no callback data"):
        await press(emu, 700000002, sent.message_id, "Site")


async def test_running_emulator_takes_custom_personas() -> None:
    staff = Persona(user_id=42, first_name="Joana", role_label="Fiscal", language_code="es")
    async with running_emulator(personas=[staff]) as emu:
        assert emu.root_url.startswith("http://127.0.0.1:")
        assert emu.user(42).language_code == "es"
        with pytest.raises(KeyError):
            emu.user(700000001)
