"""Telegram conversations. ``register_all`` adds every area's handlers to the application.

Handler groups: -110 stops anything not from a private chat (before all else); -105 stops a person's flood (the
per-person inbound limit, ``handlers.chat.inbound``); -100 loads the person; 0 commands
(new messages only) and buttons, the last handlers answering a command or a press no area took; 50 free input to
forms, and edits of earlier messages (``handlers.chat.engine.edited_message``).
"""

from __future__ import annotations

from types import ModuleType

from telegram import Update
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, MessageHandler, TypeHandler, filters

from handlers.chat import (
    broadcasts,  # /aviso
    city,  # /cidade ("Minha cidade")
    console_link,  # /painel
    delivery_refusals,  # /entregas: refusals at a delivery in person (CP Art. 25, 26, 34 §3)
    drivers,  # /situacao, /vincular, /desvincular (Lei 1.533/2020)
    follow,  # /acompanhar
    human_contact,  # "Falar com uma pessoa" (/ajuda, "Não entendi")
    my_data,  # /meusdados
    notice_decision,  # /defesas → the decision
    notice_deliveries,  # /entregas
    notice_delivery_date,  # /entregas → the day of delivery
    notice_diligencia,  # /defesas → order a diligência (CP Art. 42)
    notice_filings,  # /defesas
    notice_issue,  # /emitir
    notice_link,  # /entregas → address a notice to a person of the bot
    notices,  # /notificacoes
    ombudsman,  # /ouvidoria
    reminders,  # /lembretes
    representation,  # /representacao
    sentences,  # a sentence typed at the menu: the form it means
    staff_notices,  # the nstf: buttons of messages sent before /emitir, /entregas and /defesas were split
    staff_queue,  # /pendencias
    start,  # /start, menu, /ajuda, /idioma, /cancelar, /privacidade
)
from handlers.chat.buttons import unknown_button
from handlers.chat.commands import COMMANDS
from handlers.chat.errors import on_error
from handlers.chat.inbound import InboundGate
from handlers.chat.people import load_person
from handlers.chat.private import only_private_chats

AREAS: tuple[ModuleType, ...] = (
    start, representation, ombudsman, follow, my_data, staff_queue, broadcasts, reminders, drivers, notices,
    notice_issue, notice_deliveries, notice_delivery_date, notice_link, notice_filings, notice_decision,
    notice_diligencia, staff_notices, delivery_refusals, sentences, human_contact,
    console_link, city,
)


def register_all(application: Application) -> None:
    """Add the person loader, every area's handlers, the registered commands and the error handler."""
    application.add_handler(TypeHandler(Update, load_person), group=-100)
    application.add_handler(TypeHandler(Update, only_private_chats), group=-110)
    application.add_handler(TypeHandler(Update, InboundGate()), group=-105)
    for area in AREAS:
        area.register(application)
    for command in COMMANDS.values():
        application.add_handler(CommandHandler([command.name, *command.aliases], command.callback,
                                               filters=filters.UpdateType.MESSAGE))  # an edit runs nothing
    application.add_handler(MessageHandler(filters.UpdateType.MESSAGE & filters.COMMAND, start.unknown_command))
    application.add_handler(CallbackQueryHandler(unknown_button))  # last of group 0: no area took the press
    application.add_error_handler(on_error)
