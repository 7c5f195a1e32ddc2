"""Telegram's command menus (setMyCommands): one per language, and a larger one in each staff chat."""

from __future__ import annotations

from sqlmodel import col, select
from telegram import Bot, BotCommand, BotCommandScopeChat, BotCommandScopeDefault

from core.i18n import SUPPORTED_LOCALES, translator
from handlers.chat.commands import ChatCommand, public_commands, staff_commands
from models.people import DEFAULT_BOT_KEY, Person, Role, StaffMember

# Telegram's language_code for setMyCommands is a two-letter ISO 639-1 code.
TELEGRAM_LANGUAGE = {"pt_BR": "pt", "en": "en", "es": "es"}


def _bot_commands(commands: list[ChatCommand], locale: str) -> list[BotCommand]:
    tr = translator(locale)
    return [BotCommand(command.name, tr._(command.description)[:256]) for command in commands]


async def publish_command_menus(bot: Bot, *, sessions: object, bot_key: str = DEFAULT_BOT_KEY) -> None:
    """Set the public menu in every language (Portuguese also as the default) and each staff chat's menu.

    Args:
        bot: the bot.
        sessions: the session factory, to list the staff.
        bot_key: which bot this is: only the staff who talk to it get their menu from it.
    """
    public = public_commands()
    await bot.set_my_commands(_bot_commands(public, "pt_BR"), scope=BotCommandScopeDefault())
    for locale in SUPPORTED_LOCALES:
        await bot.set_my_commands(
            _bot_commands(public, locale), scope=BotCommandScopeDefault(), language_code=TELEGRAM_LANGUAGE[locale]
        )
    async with sessions() as session:  # type: ignore[operator]
        rows = (
            await session.exec(
                select(StaffMember, Person)
                .join(Person, col(Person.telegram_user_id) == col(StaffMember.telegram_user_id))
                .where(StaffMember.active == True, Person.bot_key == bot_key)  # noqa: E712
            )
        ).all()
    for member, person in rows:
        await publish_staff_menu(bot, chat_id=person.chat_id, role=member.role, locale=person.locale)


async def publish_person_menu(bot: Bot, *, chat_id: int, locale: str, role: Role | None) -> None:
    """The menu of one person's private chat in the language they chose (Telegram's own pick is the app's).

    Args:
        bot: the bot.
        chat_id: the person's private chat.
        locale: the language they chose with /idioma.
        role: their staff role, if any (then the staff menu, in that language).
    """
    if role is not None:
        await publish_staff_menu(bot, chat_id=chat_id, role=role, locale=locale)
        return
    await bot.set_my_commands(_bot_commands(public_commands(), locale), scope=BotCommandScopeChat(chat_id))


async def publish_staff_menu(bot: Bot, *, chat_id: int, role: Role, locale: str) -> None:
    """The menu of one staff member's private chat: the public commands plus those of their role."""
    allowed = [c for c in staff_commands() if role is Role.ADMIN or (c.staff_roles and role in c.staff_roles)]
    await bot.set_my_commands(_bot_commands(public_commands() + allowed, locale), scope=BotCommandScopeChat(chat_id))
