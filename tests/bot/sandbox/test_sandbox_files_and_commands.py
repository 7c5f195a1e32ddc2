"""Files (upload, file_id, getFile, download) and command menus per scope and language."""

from __future__ import annotations

import pytest
import telegram
from telegram import BotCommand, BotCommandScopeAllPrivateChats, BotCommandScopeChat
from telegram.error import BadRequest

from bot.sandbox.emulator import BotApiEmulator
from tests.auxil.emulator import tiny_png

CARLOS = 700000001
MARIA = 700000002
ANA = 700000003


async def test_document_upload_then_download(emu: BotApiEmulator, tg: telegram.Bot) -> None:
    content = b"%PDF-1.4\n% notificacao de penalidade\n"
    sent = await tg.send_document(
        MARIA, content, filename="notificacao.pdf", caption="<b>Notificação</b> nº 12", parse_mode="HTML"
    )
    document = sent.document
    assert (document.file_name, document.mime_type, document.file_size) == (
        "notificacao.pdf",
        "application/pdf",
        len(content),
    )
    assert sent.caption == "Notificação nº 12" and sent.caption_entities[0].type == "bold"
    [call] = emu.calls_to("sendDocument")
    assert call.params["document"] == {"upload": "notificacao.pdf", "size": len(content)}  # it came as multipart

    file = await tg.get_file(document.file_id)
    assert file.file_path is not None and file.file_path.endswith(".pdf")
    assert bytes(await file.download_as_bytearray()) == content

    again = await tg.send_document(CARLOS, document.file_id)  # resent by file_id, no upload
    assert again.document.file_unique_id == document.file_unique_id
    assert [m.document["file_id"] for m in emu.messages(CARLOS) if m.document] == [document.file_id]


async def test_photo_upload_gives_photo_sizes(emu: BotApiEmulator, tg: telegram.Bot) -> None:
    image = tiny_png(640, 480)
    sent = await tg.send_photo(CARLOS, image, caption="Selo do veículo")
    sizes = [(p.width, p.height) for p in sent.photo]
    assert sizes == [(320, 240), (640, 480)]  # smallest first; photo[-1] is the original
    file = await tg.get_file(sent.photo[-1].file_id)
    assert bytes(await file.download_as_bytearray()) == image
    assert emu.messages(CARLOS)[0].caption == "Selo do veículo"

    resent = await tg.send_photo(MARIA, sent.photo[-1].file_id)
    assert resent.photo[-1].file_id == sent.photo[-1].file_id

    with pytest.raises(BadRequest, match="Image_process_failed"):
        await tg.send_photo(CARLOS, b"not an image", filename="x.jpg")
    with pytest.raises(BadRequest, match="Wrong file identifier/http url specified"):
        await tg.send_photo(CARLOS, "AgAC-no-such-file")
    with pytest.raises(BadRequest, match=r"(?i)can't use file of type photo as document"):
        await tg.send_document(CARLOS, sent.photo[-1].file_id)


async def test_files_sent_by_users_are_available_to_the_bot(emu: BotApiEmulator, tg: telegram.Bot) -> None:
    photo = tiny_png(3, 2)
    emu.send_photo(emu.personas[1], photo, caption="Buraco na rua")
    emu.send_document(emu.personas[1], b"col1;col2\n", "lista.csv", "text/csv")
    photo_update, document_update = await tg.get_updates()

    message = photo_update.message
    assert message.caption == "Buraco na rua" and (message.photo[-1].width, message.photo[-1].height) == (3, 2)
    downloaded = await (await tg.get_file(message.photo[-1].file_id)).download_as_bytearray()
    assert bytes(downloaded) == photo

    document = document_update.message.document
    assert (document.file_name, document.mime_type) == ("lista.csv", "text/csv")
    assert bytes(await (await document.get_file()).download_as_bytearray()) == b"col1;col2\n"

    with pytest.raises(ValueError, match="not an image"):
        emu.send_photo(emu.personas[1], b"plain text")


async def test_unknown_file_id_and_path(emu: BotApiEmulator, tg: telegram.Bot) -> None:
    with pytest.raises(BadRequest, match="Invalid file_id"):
        await tg.get_file("nope")
    response = await tg.request.do_request(f"{emu.file_base_url}{emu.token}/documents/missing.pdf", "GET")
    assert response[0] == 404


async def test_commands_per_scope_and_language(emu: BotApiEmulator, tg: telegram.Bot) -> None:
    default = [BotCommand("start", "Começar"), BotCommand("ajuda", "Ajuda")]
    english = [BotCommand("start", "Start"), BotCommand("help", "Help")]
    staff = [BotCommand("start", "Começar"), BotCommand("pendencias", "Fila de casos")]
    assert await tg.set_my_commands(default) is True
    assert await tg.set_my_commands(english, language_code="en")
    assert await tg.set_my_commands(staff, scope=BotCommandScopeChat(ANA))

    assert await tg.get_my_commands() == tuple(default)
    assert await tg.get_my_commands(language_code="en") == tuple(english)
    assert await tg.get_my_commands(scope=BotCommandScopeChat(ANA)) == tuple(staff)
    assert await tg.get_my_commands(scope=BotCommandScopeAllPrivateChats()) == ()  # exactly that scope, no fallback

    # what each person's Telegram shows: chat scope first, then the language, then the default
    tourist = emu.add_user(900001, "Tourist", language_code="en-us")
    assert [c["command"] for c in emu.commands_for(ANA)] == ["start", "pendencias"]
    assert [c["command"] for c in emu.commands_for(tourist)] == ["start", "help"]
    assert [c["command"] for c in emu.commands_for(MARIA)] == ["start", "ajuda"]

    assert await tg.delete_my_commands(language_code="en")
    assert [c["command"] for c in emu.commands_for(tourist)] == ["start", "ajuda"]


async def test_bad_commands_are_refused(tg: telegram.Bot) -> None:
    with pytest.raises(BadRequest, match="Bot_command_invalid"):
        await tg.set_my_commands([BotCommand("Com Espaço", "x")])
    with pytest.raises(BadRequest, match="Chat not found"):
        await tg.set_my_commands([BotCommand("start", "x")], scope=BotCommandScopeChat(1))
    with pytest.raises(BadRequest, match="Invalid language_code"):
        await tg.set_my_commands([BotCommand("start", "x")], language_code="pt-br")
