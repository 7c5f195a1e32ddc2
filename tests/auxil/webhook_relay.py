"""Telegram's side of webhook delivery to several ``run`` processes, for tests: a relay and a round-robin proxy.

The emulator delivers a bot's webhook updates one after another, waiting for each answer. Telegram does more: it
keeps several connections open to the webhook (``max_connections``, 40 by default) and delivers different chats'
updates at the same time, one chat's updates one after another (the next once the previous got a 2xx; grammY's
webhook guide: "Telegram will deliver updates from the same chat in sequence, and updates from different chats are
sent concurrently"), and it delivers an update again after any other answer. A deployment of several processes sits
behind a load balancer that hands each request to the next process. :class:`WebhookRelay` does both, on loopback
only:

* the emulator's webhook URL is the relay's (``BALCAO_WEBHOOK_URL``); the relay answers it 200 at once and
  queues the update by chat;
* each chat's queue is delivered in order, each update to the next process of the round robin, with the
  request's path and secret header;
* an answer other than 2xx, a refused connection or a process killed mid-request is delivered again, to the next
  process, after :attr:`retry_delay` seconds, as Telegram would.

:attr:`WebhookRelay.in_flight` says which process holds each update now (for a ``kill -9`` at a chosen moment).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


def chat_of(update: dict[str, Any]) -> int:
    """The chat (or user) an update belongs to; 0 for updates of nobody."""
    for kind in ("message", "edited_message", "callback_query", "my_chat_member"):
        body = update.get(kind)
        if isinstance(body, dict):
            chat = body.get("chat") or (body.get("message") or {}).get("chat") or body.get("from") or {}
            return int(chat.get("id", 0))
    return 0


@dataclass
class Attempt:
    """One delivery of an update to one process, and how it ended (the HTTP status, or the error)."""

    update_id: int
    target: int
    outcome: str


@dataclass
class WebhookRelay:
    """See the module's docstring; ``targets`` are the processes' roots (``http://127.0.0.1:PORT``)."""

    targets: Sequence[str]
    retry_delay: float = 0.2
    attempts: list[Attempt] = field(default_factory=list)
    in_flight: dict[int, int] = field(default_factory=dict)
    delivered: set[int] = field(default_factory=set)
    _queues: dict[int, asyncio.Queue[tuple[str, dict[str, str], dict[str, Any]]]] = field(default_factory=dict)
    _workers: list[asyncio.Task[None]] = field(default_factory=list)
    _turn: itertools.count[int] = field(default_factory=itertools.count)
    _runner: web.AppRunner | None = None
    _client: aiohttp.ClientSession | None = None

    async def start(self) -> str:
        """Listen on a free loopback port; return the root URL to give as ``BALCAO_WEBHOOK_URL``."""
        app = web.Application()
        app.router.add_post("/{path:.*}", self._receive)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self._client = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60))
        port = self._runner.addresses[0][1]
        return f"http://127.0.0.1:{port}"

    async def stop(self) -> None:
        """Stop delivering and listening."""
        for worker in self._workers:
            worker.cancel()
        for worker in self._workers:
            with contextlib.suppress(asyncio.CancelledError):
                await worker
        if self._client is not None:
            await self._client.close()
        if self._runner is not None:
            await self._runner.cleanup()

    def idle(self) -> bool:
        """Whether every update received was delivered (answered 2xx by a process)."""
        return all(queue.empty() for queue in self._queues.values()) and not self.in_flight

    async def _receive(self, request: web.Request) -> web.Response:
        update = json.loads(await request.read())
        headers = {SECRET_HEADER: request.headers.get(SECRET_HEADER, "")}
        chat = chat_of(update)
        queue = self._queues.get(chat)
        if queue is None:
            queue = self._queues[chat] = asyncio.Queue()
            self._workers.append(asyncio.create_task(self._deliver_chat(queue)))
        queue.put_nowait((request.path, headers, update))
        return web.Response(text="ok")

    async def _deliver_chat(self, queue: asyncio.Queue[tuple[str, dict[str, str], dict[str, Any]]]) -> None:
        while True:
            path, headers, update = await queue.get()
            update_id = int(update["update_id"])
            while True:
                target = next(self._turn) % len(self.targets)
                self.in_flight[update_id] = target
                outcome = await self._post(self.targets[target] + path, headers, update)
                self.attempts.append(Attempt(update_id, target, outcome))
                if outcome.startswith("2"):
                    break
                await asyncio.sleep(self.retry_delay)  # Telegram's own pause before delivering it again
            del self.in_flight[update_id]
            self.delivered.add(update_id)

    async def _post(self, url: str, headers: dict[str, str], update: dict[str, Any]) -> str:
        assert self._client is not None
        try:
            async with self._client.post(url, json=update, headers=headers) as response:
                await response.read()
                return str(response.status)
        except (aiohttp.ClientError, TimeoutError) as error:
            return type(error).__name__
