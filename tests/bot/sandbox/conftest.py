"""Fixtures for the sandbox's own tests: a running emulator, a PTB ``Bot`` pointed at it, and an echo bot."""

from __future__ import annotations

import html
from collections.abc import AsyncIterator

import pytest
import telegram
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import CallbackQueryHandler, ContextTypes, MessageHandler, filters

from bot.sandbox.emulator import BotApiEmulator
from tests.auxil.emulator import AnyApplication, application_builder, polling, ptb_bot, running_emulator


@pytest.fixture
async def emu() -> AsyncIterator[BotApiEmulator]:
    async with running_emulator() as emulator:
        yield emulator


@pytest.fixture
async def tg(emu: BotApiEmulator) -> AsyncIterator[telegram.Bot]:
    """The real python-telegram-bot client, initialized against the emulator."""
    async with ptb_bot(emu) as bot:
        yield bot


async def _echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    message = update.effective_message
    assert message is not None
    if message.text:
        keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Marcar como lido", callback_data="lido")]])
        await message.reply_html(f"Eco: <b>{html.escape(message.text)}</b>", reply_markup=keyboard)
    elif message.contact:
        await message.reply_text(f"Telefone recebido: {message.contact.phone_number}")
    elif message.location:
        await message.reply_text(f"Local recebido: {message.location.latitude}, {message.location.longitude}")
    elif message.photo:
        largest = message.photo[-1]
        await message.reply_text(f"Foto {largest.width}x{largest.height} recebida")
    elif message.document:
        data = await (await message.document.get_file()).download_as_bytearray()
        await message.reply_document(bytes(data), filename=f"eco-{message.document.file_name}")


async def _read(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    assert query is not None
    await query.answer("Marcado")
    await query.edit_message_text("Lido ✔")


@pytest.fixture
async def echo_bot(emu: BotApiEmulator) -> AsyncIterator[AnyApplication]:
    """A tiny PTB application polling the emulator: echoes text (with a button), contacts, places and files."""
    application = application_builder(emu).build()
    application.add_handler(MessageHandler(filters.ALL & ~filters.UpdateType.EDITED, _echo))
    application.add_handler(CallbackQueryHandler(_read, pattern="^lido$"))
    async with polling(application) as running:
        yield running
