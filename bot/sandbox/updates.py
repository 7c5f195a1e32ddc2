"""Getting updates to the bot: ``getUpdates`` long polling and webhook delivery."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import time
from typing import Any

import aiohttp

from bot.sandbox.errors import bad_request, conflict
from bot.sandbox.state import DEFAULT_ALLOWED_UPDATES, BotState, WebhookConfig, World

_LOGGER = logging.getLogger(__name__)
MAX_LIMIT = 100
WEBHOOK_IS_ACTIVE = "can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"
TERMINATED = "terminated by other getUpdates request; make sure that only one bot instance is running"
_SECRET_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


class UpdateDelivery:
    """Hands queued updates to bots, by long polling or by POSTing them to a webhook.

    Args:
        world: the emulator's state.
        retry_delay: seconds before the first retry of a failed webhook delivery (doubles up to 10 s).
    """

    def __init__(self, world: World, *, retry_delay: float = 0.2) -> None:
        self.world = world
        self.retry_delay = retry_delay
        self._session: aiohttp.ClientSession | None = None

    async def start(self) -> None:
        """Open the HTTP client used for webhooks."""
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10))

    async def close(self) -> None:
        """Stop every webhook delivery and close the HTTP client."""
        tasks = [bot.webhook_task for bot in self.world.bots.values() if bot.webhook_task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for bot in self.world.bots.values():
            bot.webhook_task = None
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def get_updates(
        self,
        bot: BotState,
        *,
        offset: int | None,
        limit: int | None,
        poll_timeout: int | None,
        allowed_updates: list[str] | None,
    ) -> list[dict[str, Any]]:
        """Answer ``getUpdates``: confirm, then return pending updates, waiting up to ``poll_timeout`` for one.

        Raises:
            ApiError: 409 while a webhook is set, or when a newer ``getUpdates`` replaced this one.
        """
        if bot.webhook is not None:
            raise conflict(WEBHOOK_IS_ACTIVE)
        if allowed_updates is not None:
            if not isinstance(allowed_updates, list):
                raise bad_request("can't parse allowed updates JSON object")
            bot.allowed_updates = frozenset(allowed_updates) if allowed_updates else DEFAULT_ALLOWED_UPDATES
        if offset:
            bot.confirm(offset)
        count = MAX_LIMIT if not limit or limit > MAX_LIMIT or limit < 1 else limit
        bot.poll_generation += 1
        generation = bot.poll_generation
        bot.updates_signal.notify()  # an older long poll of this bot now ends with 409, as on Telegram
        if not bot.pending and poll_timeout and poll_timeout > 0:

            def ready() -> bool | None:
                stop = self.world.closing or bot.poll_generation != generation or bot.webhook is not None
                return True if stop or bot.pending else None

            bot.waiting_polls += 1
            self.world.changes.notify()
            try:
                await bot.updates_signal.wait_for(ready, poll_timeout)
            except TimeoutError:
                return []
            finally:
                bot.waiting_polls -= 1
                self.world.changes.notify()
            if bot.poll_generation != generation:
                raise conflict(TERMINATED)
            if bot.webhook is not None:
                raise conflict(WEBHOOK_IS_ACTIVE)
        return list(itertools.islice(bot.pending, count))

    def set_webhook(
        self,
        bot: BotState,
        *,
        url: str,
        secret_token: str | None,
        max_connections: int | None,
        allowed_updates: list[str] | None,
        drop_pending_updates: bool,
    ) -> None:
        """Set (or, with an empty url, remove) the bot's webhook and start delivering to it.

        Raises:
            ApiError: 400 for a bad url or secret token.
        """
        if not url:
            self.delete_webhook(bot, drop_pending_updates=drop_pending_updates)
            return
        if not url.startswith(("http://", "https://")):
            raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        if secret_token is not None and (
            not 1 <= len(secret_token) <= 256 or not set(secret_token) <= _SECRET_CHARACTERS
        ):
            raise bad_request("secret token contains unallowed characters")
        if drop_pending_updates:
            bot.pending.clear()
        if allowed_updates is not None:
            bot.allowed_updates = frozenset(allowed_updates) if allowed_updates else DEFAULT_ALLOWED_UPDATES
        config = WebhookConfig(
            url=url,
            secret_token=secret_token,
            max_connections=max_connections or 40,
            allowed_updates=sorted(bot.allowed_updates),
        )
        bot.webhook = config
        if bot.webhook_task is not None:
            bot.webhook_task.cancel()
        bot.webhook_task = asyncio.get_running_loop().create_task(self._deliver(bot, config))
        bot.updates_signal.notify()

    def delete_webhook(self, bot: BotState, *, drop_pending_updates: bool) -> bool:
        """Remove the webhook; return whether there was one."""
        had_webhook = bot.webhook is not None
        bot.webhook = None
        if bot.webhook_task is not None:
            bot.webhook_task.cancel()
            bot.webhook_task = None
        if drop_pending_updates:
            bot.pending.clear()
        bot.updates_signal.notify()
        return had_webhook

    def webhook_info(self, bot: BotState) -> dict[str, Any]:
        """Answer ``getWebhookInfo``."""
        config = bot.webhook
        info: dict[str, Any] = {
            "url": config.url if config else "",
            "has_custom_certificate": False,
            "pending_update_count": len(bot.pending),
        }
        if config is not None:
            info["max_connections"] = config.max_connections
            info["ip_address"] = "127.0.0.1"
            info["allowed_updates"] = config.allowed_updates
            if config.last_error_date is not None:
                info["last_error_date"] = config.last_error_date
                info["last_error_message"] = config.last_error_message
        return info

    async def _deliver(self, bot: BotState, config: WebhookConfig) -> None:
        delay = self.retry_delay

        def stopped() -> bool:
            return bot.webhook is not config or self.world.closing

        while not stopped():
            await bot.updates_signal.wait_for(lambda: True if stopped() or bot.pending else None, None)
            if stopped():
                return
            update = bot.pending[0]
            error = await self._post(config, update)
            if error is None:
                if bot.pending and bot.pending[0] is update:
                    bot.pending.popleft()
                    self.world.changes.notify()  # a bot that answers only once it handled the update
                delay = self.retry_delay
                continue
            config.last_error_date = int(time.time())
            config.last_error_message = error
            _LOGGER.info("webhook delivery to %s failed: %s", config.url, error)
            with contextlib.suppress(TimeoutError):
                await bot.updates_signal.wait_for(lambda: True if stopped() else None, delay)
            delay = min(delay * 2, 10.0)

    async def _post(self, config: WebhookConfig, update: dict[str, Any]) -> str | None:
        """POST one update; return None on a 2xx answer, else Telegram's ``last_error_message``."""
        if self._session is None:
            return "Webhook delivery is stopped"
        headers = {"Content-Type": "application/json"}
        if config.secret_token:
            headers["X-Telegram-Bot-Api-Secret-Token"] = config.secret_token
        try:
            async with self._session.post(config.url, data=json.dumps(update), headers=headers) as response:
                await response.read()
                if 200 <= response.status < 300:
                    return None
                return f"Wrong response from the webhook: {response.status} {response.reason}"
        except aiohttp.ClientConnectorError:
            return "Connection refused"
        except TimeoutError:
            return "Read timeout expired"
        except aiohttp.ClientError as error:
            return f"Connection error: {error}"
        except Exception as error:  # e.g. a test's network guard refusing a non-local address
            return f"Connection error: {error}"
