"""The bot object of the application: python-telegram-bot's ``ExtBot`` with two protections.

* ``getUpdates``: each update is read on its own; one the library cannot read is replaced by an empty
  update with its id (:mod:`bot.update_parsing`), so one bad update never stops polling for everyone.
* Replies: a reply the Bot API refuses for now (429, 5xx, network) is tried again in place, after the wait
  Telegram asks for or a short backoff, so the rest of the person's turn waits for it and comes after it, in
  order (the turn holds the person's place: their next update waits too). Only when it is still refused after
  :data:`REPLY_TRIES` tries or :data:`REPLY_WAIT_SECONDS` of waiting is a ``sendMessage`` or ``editMessageText``
  queued in the outbox and sent by the dispatcher with its retry rules (:mod:`notifications.chat_replies`);
  the handler then gets :class:`~notifications.chat_replies.ReplyDeferred`, and a form whose question was not
  delivered asks it again before it takes anything typed as its answer (``models.drafts``: ``asked``).
  Telegram may take its time to answer: a reply waits :data:`REPLY_READ_TIMEOUT` seconds for it (python-telegram-
  bot's 5 s made a slow but delivered question count as refused, and arrive twice). A failed ``answerCallbackQuery``
  (only stops the spinner), refused for now or because the query was already answered or is too old, is
  logged and passed over, so the reply itself still goes.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Sequence
from typing import Any

from telegram import Update
from telegram._utils.defaultvalue import DEFAULT_NONE, DefaultValue  # as PTB's own get_updates
from telegram.error import BadRequest, RetryAfter, TelegramError
from telegram.ext import ExtBot
from telegram.request import HTTPXRequest

from bot.update_parsing import has_update_id, parse_update
from core.db import SessionFactory
from core.settings import Settings
from models.columns import utcnow
from notifications.chat_replies import ReplyDeferred, callback_buttons, defer_reply
from notifications.retry_policy import backoff_seconds, is_transient, retry_after_seconds
from notifications.service import wake_dispatcher

logger = logging.getLogger("balcao.bot")

DEFERRABLE = frozenset({"sendMessage", "editMessageText"})
RETRIED_IN_PLACE = DEFERRABLE | {"sendDocument", "sendPhoto", "editMessageReplyMarkup", "sendLocation"}
"""The replies of a turn: tried again in place when refused for now."""
REPLY_TRIES = 4
REPLY_WAIT_SECONDS = 20.0
"""At most this long, all waits of one reply together, before it goes to the outbox."""
REPLY_FIRST_RETRY_SECONDS = 0.5
"""A 5xx or network error is tried again after this, then twice as long each time (a 429 waits what it says)."""
REPLY_READ_TIMEOUT = 30.0


async def pause(seconds: float) -> None:
    """Wait before trying a refused reply again (tests replace it, to count the waits instead of sleeping)."""
    await asyncio.sleep(seconds)
CONNECTION_POOL = 256
"""Connections of the bot's HTTP client (python-telegram-bot's default for an application)."""


class BalcaoBot(ExtBot[None]):
    """``ExtBot`` that skips unreadable updates and queues refused replies (see the module's docstring)."""

    def __init__(self, *args: Any, sessions: SessionFactory | None = None, settings: Settings | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sessions = sessions
        self._settings = settings

    async def _post(self, endpoint: str, data: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        waited, tries = 0.0, 0
        while True:
            try:
                return await super()._post(endpoint, data, **kwargs)
            except TelegramError as exc:
                if endpoint == "answerCallbackQuery" and (is_transient(exc) or _expired_query(exc)):
                    # it only stops the spinner: a query answered twice, or after Telegram's ~15 s, must not
                    # abort the reply itself (the person was left without an answer)
                    logger.info("a button press was not acknowledged: %s", type(exc).__name__)
                    return True
                if not is_transient(exc) or endpoint not in RETRIED_IN_PLACE:
                    raise
                tries += 1
                wait = (retry_after_seconds(exc) if isinstance(exc, RetryAfter)
                        else REPLY_FIRST_RETRY_SECONDS * 2 ** (tries - 1))
                if tries < REPLY_TRIES and waited + wait <= REPLY_WAIT_SECONDS:
                    logger.info("a reply was refused (%s); trying again in %.1f s, the rest of the turn waits",
                                type(exc).__name__, wait)
                    await pause(wait)
                    waited += wait
                    continue
                if endpoint in DEFERRABLE and await self._defer(data or {}, exc):
                    raise ReplyDeferred(f"reply queued after {type(exc).__name__}") from exc
                raise

    async def get_updates(
        self,
        offset: int | None = None,
        limit: int | None = None,
        timeout: int | float | dt.timedelta | None = None,  # noqa: ASYNC109 (the Bot API parameter)
        allowed_updates: Sequence[str] | None = None,
        *,
        read_timeout: Any = DEFAULT_NONE,
        write_timeout: Any = DEFAULT_NONE,
        connect_timeout: Any = DEFAULT_NONE,
        pool_timeout: Any = DEFAULT_NONE,
        api_kwargs: dict[str, Any] | None = None,
    ) -> tuple[Update, ...]:
        """``getUpdates`` as python-telegram-bot does it, but each update is read on its own (read once).

        An update the library cannot read becomes an empty update with its id (:func:`parse_update`), so the
        poller confirms it and goes on; the library's own version failed the whole batch, on every retry.
        """
        data = {"timeout": timeout, "offset": offset, "limit": limit, "allowed_updates": allowed_updates}
        base = (self._request[0].read_timeout if isinstance(read_timeout, DefaultValue) else read_timeout) or 0
        wait = timeout.total_seconds() if isinstance(timeout, dt.timedelta) else (timeout or 0)
        result = await self._post(
            "getUpdates",
            data,
            read_timeout=base + wait,
            write_timeout=write_timeout,
            connect_timeout=connect_timeout,
            pool_timeout=pool_timeout,
            api_kwargs=api_kwargs,
        )
        updates = tuple(parse_update(item, self) for item in result if has_update_id(item))
        for update in updates:
            self.insert_callback_data(update)
        return updates

    async def _defer(self, data: dict[str, Any], exc: TelegramError) -> bool:
        chat_id, text = data.get("chat_id"), data.get("text")
        if self._sessions is None or self._settings is None or type(chat_id) is not int or not isinstance(text, str):
            return False
        if isinstance(exc, RetryAfter):
            wait = retry_after_seconds(exc)
        else:
            wait = backoff_seconds(1, cap=self._settings.dispatch_retry_max_seconds)
        async with self._sessions() as session:
            queued = await defer_reply(
                session=session,
                chat_id=chat_id,
                text=text,
                buttons=callback_buttons(data.get("reply_markup")),
                not_before=utcnow() + dt.timedelta(seconds=wait),
            )
        if queued:
            logger.warning("a reply was refused (%s); queued in the outbox, next try in %.0f s",
                           type(exc).__name__, wait)
            wake_dispatcher()
        return queued


def _expired_query(exc: TelegramError) -> bool:
    return isinstance(exc, BadRequest) and "query is too old" in str(exc).lower()


def build_bot(settings: Settings, sessions: SessionFactory) -> BalcaoBot:
    """The application's bot, pointed at ``BALCAO_TELEGRAM_API_URL``."""
    assert settings.telegram_token is not None
    root = settings.telegram_api_url
    return BalcaoBot(
        settings.telegram_token.get_secret_value(),
        base_url=f"{root}/bot",
        base_file_url=f"{root}/file/bot",
        request=HTTPXRequest(connection_pool_size=CONNECTION_POOL, read_timeout=REPLY_READ_TIMEOUT),
        get_updates_request=HTTPXRequest(),
        sessions=sessions,
        settings=settings,
    )
