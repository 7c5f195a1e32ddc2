"""The real python-telegram-bot client against the emulator: messages, keyboards and every error shape."""

from __future__ import annotations

import datetime as dtm
import json
from typing import Any

import aiohttp
import pytest
import telegram
from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    KeyboardButton,
    LinkPreviewOptions,
    ReplyKeyboardMarkup,
    ReplyKeyboardRemove,
)
from telegram.error import BadRequest, Forbidden, InvalidToken, RetryAfter

from bot.sandbox.emulator import BotApiEmulator
from tests.auxil.emulator import ptb_bot

CARLOS = 700000001
MARIA = 700000002


async def raw_call(emu: BotApiEmulator, method: str, **kwargs: Any) -> tuple[int, dict[str, Any]]:
    """Call the emulator over plain HTTP (to check Telegram's exact JSON shapes)."""
    url = f"{emu.bot_base_url}{kwargs.pop('token', emu.token)}/{method}"
    async with aiohttp.ClientSession() as session, session.request(kwargs.pop("http", "POST"), url, **kwargs) as r:
        return r.status, await r.json()


async def test_get_me_names_the_bot_of_each_token(emu: BotApiEmulator, tg: telegram.Bot) -> None:
    me = await tg.get_me()
    assert (me.id, me.username, me.is_bot) == (123456789, "balcao_sandbox_bot", True)

    async with ptb_bot(emu, "555:other") as other:
        assert (await other.get_me()).id == 555


async def test_a_malformed_token_is_unauthorized(emu: BotApiEmulator) -> None:
    status, body = await raw_call(emu, "getMe", token="not-a-token")
    assert (status, body) == (401, {"ok": False, "error_code": 401, "description": "Unauthorized"})
    with pytest.raises(InvalidToken):
        async with ptb_bot(emu, "not-a-token"):
            pass


async def test_an_unknown_method_is_not_found(emu: BotApiEmulator) -> None:
    status, body = await raw_call(emu, "sendHologram", json={"chat_id": CARLOS})
    assert (status, body) == (404, {"ok": False, "error_code": 404, "description": "Not Found"})


async def test_method_names_are_case_insensitive_and_every_encoding_is_read(emu: BotApiEmulator) -> None:
    status, body = await raw_call(emu, "SENDMESSAGE", json={"chat_id": CARLOS, "text": "json"})
    assert status == 200 and body["ok"] and body["result"]["text"] == "json"
    status, body = await raw_call(emu, "sendMessage", data={"chat_id": str(CARLOS), "text": "form"})
    assert status == 200 and body["result"]["chat"]["id"] == CARLOS
    status, body = await raw_call(emu, "sendMessage", http="GET", params={"chat_id": str(CARLOS), "text": "query"})
    assert status == 200 and body["result"]["text"] == "query"

    # however it came, the recorded call has typed parameters
    assert [c.params["chat_id"] for c in emu.calls_to("sendMessage")] == [CARLOS, CARLOS, CARLOS]
    assert [m.text for m in emu.messages(CARLOS)] == ["json", "form", "query"]


async def test_send_html_and_edit_it(emu: BotApiEmulator, tg: telegram.Bot) -> None:
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Ver prazo", callback_data="prazo:1")]])
    sent = await tg.send_message(CARLOS, "<b>Autorização</b> vence em <i>12</i> dias", "HTML", reply_markup=keyboard)

    assert sent.text == "Autorização vence em 12 dias"
    assert [(e.type, e.offset, e.length) for e in sent.entities] == [("bold", 0, 11), ("italic", 21, 2)]
    assert sent.reply_markup == keyboard
    [stored] = emu.messages(CARLOS)
    assert stored.html == "<b>Autorização</b> vence em <i>12</i> dias"
    assert stored.button("Ver prazo")["callback_data"] == "prazo:1"

    edited = await tg.edit_message_text("Renovada", chat_id=CARLOS, message_id=sent.message_id)
    assert edited.text == "Renovada" and edited.edit_date is not None
    [stored] = emu.messages(CARLOS)
    assert (stored.text, stored.inline_buttons, stored.edits) == ("Renovada", [], 1)  # no markup given: removed

    with pytest.raises(BadRequest, match="Message is not modified"):
        await tg.edit_message_text("Renovada", chat_id=CARLOS, message_id=sent.message_id)
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await tg.edit_message_text("x", chat_id=CARLOS, message_id=999)


async def test_edit_reply_markup_and_delete(emu: BotApiEmulator, tg: telegram.Bot) -> None:
    sent = await tg.send_message(CARLOS, "Escolha")
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Sim", callback_data="s")]])
    await tg.edit_message_reply_markup(CARLOS, sent.message_id, reply_markup=markup)
    assert emu.messages(CARLOS)[0].button("s")["text"] == "Sim"

    assert await tg.delete_message(CARLOS, sent.message_id) is True
    assert emu.messages(CARLOS) == []
    with pytest.raises(BadRequest, match="Message to delete not found"):
        await tg.delete_message(CARLOS, sent.message_id)


async def test_parse_errors_and_length_limits(tg: telegram.Bot) -> None:
    with pytest.raises(BadRequest) as unsupported:
        await tg.send_message(CARLOS, "Prazo <foo>amanhã</foo>", parse_mode="HTML")
    assert unsupported.value.message == 'Can\'t parse entities: unsupported start tag "foo" at byte offset 6'

    with pytest.raises(BadRequest, match="Can't parse entities: can't find end tag corresponding to start tag"):
        await tg.send_message(CARLOS, "<b>aberto", parse_mode="HTML")

    # the limit applies after markup is removed: 4096 characters inside tags pass, one more does not
    await tg.send_message(CARLOS, "<b>" + "a" * 4096 + "</b>", parse_mode="HTML")
    with pytest.raises(BadRequest, match=r"^Message is too long$"):
        await tg.send_message(CARLOS, "a" * 4097)
    with pytest.raises(BadRequest, match=r"^Message text is empty$"):
        await tg.send_message(CARLOS, "  <b> </b> ", parse_mode="HTML")


async def test_error_json_shapes_are_telegrams(emu: BotApiEmulator) -> None:
    emu.block(CARLOS)
    assert await raw_call(emu, "sendMessage", json={"chat_id": CARLOS, "text": "oi"}) == (
        403,
        {"ok": False, "error_code": 403, "description": "Forbidden: bot was blocked by the user"},
    )
    assert await raw_call(emu, "sendMessage", json={"chat_id": 42, "text": "oi"}) == (
        400,
        {"ok": False, "error_code": 400, "description": "Bad Request: chat not found"},
    )
    emu.fail_next("sendMessage", error_code=429, description="Too Many Requests: retry after 7", retry_after=7)
    assert await raw_call(emu, "sendMessage", json={"chat_id": MARIA, "text": "oi"}) == (
        429,
        {
            "ok": False,
            "error_code": 429,
            "description": "Too Many Requests: retry after 7",
            "parameters": {"retry_after": 7},
        },
    )


async def test_ptb_raises_the_right_exceptions(
    emu: BotApiEmulator, tg: telegram.Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "true")
    emu.block(CARLOS)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await tg.send_message(CARLOS, "Seu prazo termina amanhã")
    with pytest.raises(BadRequest, match=r"^Chat not found$"):
        await tg.send_message(123, "oi")

    emu.fail_next("sendMessage", error_code=429, description="Too Many Requests: retry after 7", retry_after=7)
    with pytest.raises(RetryAfter) as flood:
        await tg.send_message(MARIA, "oi")
    assert flood.value.retry_after == dtm.timedelta(seconds=7)
    await tg.send_message(MARIA, "oi")  # the fault was used up

    emu.unblock(CARLOS)
    await tg.send_message(CARLOS, "de novo")
    failed = emu.calls_to("sendMessage", ok=False)
    assert [c.error_code for c in failed] == [403, 400, 429]


async def test_fail_next_can_target_one_chat_and_repeat(emu: BotApiEmulator, tg: telegram.Bot) -> None:
    emu.fail_next("sendMessage", error_code=502, description="Bad Gateway", times=2, chat_id=MARIA)
    await tg.send_message(CARLOS, "passa")
    for _ in range(2):
        with pytest.raises(telegram.error.NetworkError, match="Bad Gateway"):
            await tg.send_message(MARIA, "falha")
    await tg.send_message(MARIA, "passa")
    assert [m.text for m in emu.messages(MARIA)] == ["passa"]


async def test_flood_limits_answer_429_per_chat_and_globally(
    emu: BotApiEmulator, tg: telegram.Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "true")
    emu.limits(per_chat_per_second=2)
    await tg.send_message(CARLOS, "1")
    await tg.send_message(CARLOS, "2")
    with pytest.raises(RetryAfter) as flood:
        await tg.send_message(CARLOS, "3")
    assert flood.value.retry_after == dtm.timedelta(seconds=1)
    await tg.send_message(MARIA, "outra conversa passa")

    emu.limits(global_per_second=3)
    for text in ("a", "b", "c"):
        await tg.send_message(MARIA if text != "b" else CARLOS, text)
    with pytest.raises(RetryAfter):
        await tg.send_message(700000003, "d")

    emu.limits()  # off again
    for _ in range(10):
        await tg.send_message(CARLOS, "sem limite")


async def test_options_are_accepted_and_recorded(emu: BotApiEmulator, tg: telegram.Bot) -> None:
    sent = await tg.send_message(
        CARLOS,
        "Aviso com link https://sapezal.mt.gov.br",
        link_preview_options=LinkPreviewOptions(is_disabled=True),
        disable_notification=True,
        protect_content=True,
        allow_paid_broadcast=True,
    )
    assert sent.has_protected_content is True
    assert sent.link_preview_options == LinkPreviewOptions(is_disabled=True)
    [call] = emu.calls_to("sendMessage")
    assert call.params["disable_notification"] is True and call.params["allow_paid_broadcast"] is True
    assert call.params["link_preview_options"] == {"is_disabled": True}
    assert call.at.tzinfo is not None


async def test_reply_keyboard_contact_and_location(emu: BotApiEmulator, tg: telegram.Bot) -> None:
    keyboard = ReplyKeyboardMarkup(
        [
            [KeyboardButton("Compartilhar meu contato", request_contact=True)],
            [KeyboardButton("Onde estou", request_location=True)],
        ],
        one_time_keyboard=True,
    )
    await tg.send_message(CARLOS, "Para vincular, compartilhe seu telefone", reply_markup=keyboard)
    shown = emu.reply_keyboard(CARLOS)
    assert shown is not None and shown["keyboard"][0][0]["request_contact"] is True
    assert emu.messages(CARLOS)[0].keyboard_buttons[1] == {"text": "Onde estou", "request_location": True}

    emu.share_contact(emu.personas[0])
    assert emu.reply_keyboard(CARLOS) is None  # one-time keyboards hide after use
    emu.share_contact(emu.personas[0], "+5565988887777", own=False, first_name="Vizinho")
    emu.share_location(emu.personas[0], -13.5427, -58.8145)
    updates = await tg.get_updates()
    own, other, place = (u.message for u in updates)
    assert own.contact.user_id == CARLOS and own.contact.phone_number == "+5565999110001"
    assert other.contact.user_id != CARLOS and other.contact.first_name == "Vizinho"
    assert (place.location.latitude, place.location.longitude) == (-13.5427, -58.8145)

    await tg.send_message(CARLOS, "Pronto", reply_markup=ReplyKeyboardRemove())
    assert emu.reply_keyboard(CARLOS) is None


async def test_invalid_inline_buttons_are_refused(emu: BotApiEmulator) -> None:
    markup = {"inline_keyboard": [[{"text": "x", "callback_data": "d" * 65}]]}
    status, body = await raw_call(emu, "sendMessage", json={"chat_id": CARLOS, "text": "t", "reply_markup": markup})
    assert (status, body["description"]) == (400, "Bad Request: BUTTON_DATA_INVALID")
    markup = {"inline_keyboard": [[{"text": "só texto"}]]}
    status, body = await raw_call(
        emu, "sendMessage", data={"chat_id": CARLOS, "text": "t", "reply_markup": json.dumps(markup)}
    )
    assert status == 400 and "Text buttons are unallowed in the inline keyboard" in body["description"]


async def test_chat_actions_menu_button_and_get_chat(emu: BotApiEmulator, tg: telegram.Bot) -> None:
    assert await tg.send_chat_action(CARLOS, "typing") is True
    with pytest.raises(BadRequest, match="Wrong parameter action"):
        await tg.send_chat_action(CARLOS, "dancing")
    assert await tg.set_chat_menu_button(CARLOS, telegram.MenuButtonCommands()) is True
    assert await tg.get_chat_menu_button(CARLOS) == telegram.MenuButtonCommands()
    chat = await tg.get_chat(CARLOS)
    assert (chat.id, chat.first_name, chat.type) == (CARLOS, "Carlos", "private")


async def test_replies_quote_one_level(emu: BotApiEmulator, tg: telegram.Bot) -> None:
    question = emu.send_text(MARIA, "Qual o prazo?")
    first = await tg.send_message(MARIA, "30 dias", reply_parameters=telegram.ReplyParameters(question.message_id))
    assert first.reply_to_message is not None and first.reply_to_message.text == "Qual o prazo?"
    second = await tg.send_message(MARIA, "Úteis", reply_to_message_id=first.message_id)
    assert second.reply_to_message is not None and second.reply_to_message.reply_to_message is None

    with pytest.raises(BadRequest, match="Message to be replied not found"):
        await tg.send_message(MARIA, "x", reply_parameters=telegram.ReplyParameters(999))
    sent = await tg.send_message(
        MARIA, "x", reply_parameters=telegram.ReplyParameters(999, allow_sending_without_reply=True)
    )
    assert sent.reply_to_message is None
