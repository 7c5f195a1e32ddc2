"""The bots of a deployment: the default bot (``BALCAO_TELEGRAM_TOKEN``) and each municipality's own.

A municipality may brand its service with a bot of its own, or share the deployment's default bot. Every
bot has a key (``default``, or the municipality's slug); a person's row remembers the bot they talk to
(``Person.bot_key``), and everything sent to them on Balcão's own initiative goes out through that bot.

One ``run`` process serves every bot it is given (one python-telegram-bot ``Application`` per token), and a
deployment may split its bots across several ``run`` processes on one PostgreSQL (``run --bots KEY,KEY``);
``dispatch --bots`` likewise. Each bot is sent with by its own dispatcher, paced at that bot's own limits
(Telegram's caps are per bot), which claims only the rows of its bot's people.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pydantic import SecretStr

from core.settings import Settings
from models.people import DEFAULT_BOT_KEY as DEFAULT_BOT
from notifications.outbox_claims import BotScope
from notifications.service import Sender


@dataclass(frozen=True, slots=True)
class BotIdentity:
    """One bot: its key and its token (never printed: ``SecretStr``)."""

    key: str
    token: SecretStr

    def settings(self, settings: Settings) -> Settings:
        """The deployment's settings as this bot's application and dispatcher see them (its own token)."""
        return settings.model_copy(update={"telegram_token": self.token})


class UnknownBots(ValueError):
    """``--bots`` named keys the deployment does not have."""

    def __init__(self, unknown: Sequence[str], known: Sequence[str]) -> None:
        super().__init__(", ".join(unknown))
        self.unknown = list(unknown)
        self.known = list(known)


def configured_bots(settings: Settings, own_bots: Iterable[tuple[str, SecretStr]] = ()) -> list[BotIdentity]:
    """Every bot of the deployment: the default one when a token is set, then the municipalities' own.

    Args:
        settings: the deployment's settings.
        own_bots: (municipality slug, token) of each municipality with a bot of its own.

    Returns:
        The bots, default first; a token given twice is one bot (the first key).
    """
    bots: list[BotIdentity] = []
    if settings.telegram_token is not None:
        bots.append(BotIdentity(DEFAULT_BOT, settings.telegram_token))
    seen = {bot.token.get_secret_value() for bot in bots}
    for key, token in own_bots:
        if token.get_secret_value() not in seen:
            seen.add(token.get_secret_value())
            bots.append(BotIdentity(key, token))
    return bots


def choose_bots(bots: Sequence[BotIdentity], keys: Sequence[str] | None) -> list[BotIdentity]:
    """The bots a process serves: all of them, or those ``--bots`` names.

    Raises:
        UnknownBots: a key is not one of the deployment's bots.
    """
    if not keys:
        return list(bots)
    known = {bot.key: bot for bot in bots}
    unknown = [key for key in keys if key not in known]
    if unknown:
        raise UnknownBots(unknown, list(known))
    return [known[key] for key in dict.fromkeys(keys)]


def scope_of(bot: BotIdentity, deployment: Sequence[BotIdentity]) -> BotScope | None:
    """Whose outbox rows ``bot``'s dispatcher claims, among the deployment's bots.

    With one bot, every row (no filter). A municipality's own bot: its people. The default bot: everyone
    else, also people whose municipality no longer has a bot of its own.
    """
    if len(deployment) <= 1:
        return None
    if bot.key == DEFAULT_BOT:
        return BotScope(frozenset(other.key for other in deployment if other.key != DEFAULT_BOT), complement=True)
    return BotScope(frozenset({bot.key}))


def senders(settings: Settings, served: Sequence[BotIdentity], deployment: Sequence[BotIdentity]) -> list[Sender]:
    """One dispatcher's sender per bot this process serves."""
    return [Sender(settings=bot.settings(settings), scope=scope_of(bot, deployment)) for bot in served]
