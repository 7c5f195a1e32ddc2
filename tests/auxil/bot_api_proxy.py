"""A proxy between Balcão's processes and the Bot API emulator that can hold replies, for tests.

Every request is forwarded to the emulator as it came. :meth:`BotApiProxy.hold` makes the next matching call wait at
the proxy, unanswered, until released or dropped: the moment between a step's save and its reply, where a test kills
the process with ``kill -9``; or for a few seconds, as a Bot API slow to answer. (Refusals, 429 and 5xx, are the
emulator's own ``fail_next``.) Loopback only."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

import aiohttp
from aiohttp import web
from multidict import MultiDictProxy


@dataclass
class Hold:
    """One held call: ``arrived`` once it came; ``release()`` forwards it, ``drop()`` never does."""

    method: str
    matches: Callable[[MultiDictProxy[str | bytes | web.FileField]], bool]
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    delay: float | None = None
    _go: asyncio.Future[bool] | None = None

    def release(self) -> None:
        """Forward the held call now."""
        if self._go is not None and not self._go.done():
            self._go.set_result(True)

    def release_after(self, seconds: float) -> None:
        """Forward it ``seconds`` after it came: a Bot API that is slow to answer."""
        asyncio.get_running_loop().call_later(seconds, self.release)

    def drop(self) -> None:
        """Never forward it (its caller is dead)."""
        if self._go is not None and not self._go.done():
            self._go.set_result(False)


@dataclass
class BotApiProxy:
    """See the module's docstring; ``upstream`` is the emulator's root URL."""

    upstream: str
    holds: list[Hold] = field(default_factory=list)
    _runner: web.AppRunner | None = None
    _client: aiohttp.ClientSession | None = None

    async def start(self) -> str:
        """Listen on a free loopback port; return the root URL to give as ``BALCAO_TELEGRAM_API_URL``."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{path:.*}", self._forward)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self._client = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120))
        return f"http://127.0.0.1:{self._runner.addresses[0][1]}"

    async def stop(self) -> None:
        """Drop what is held; stop listening."""
        for hold in self.holds:
            hold.drop()
        if self._client is not None:
            await self._client.close()
        if self._runner is not None:
            await self._runner.cleanup()

    def hold(self, method: str, matches: Callable[[MultiDictProxy[str | bytes | web.FileField]], bool], *,
             delay: float | None = None) -> Hold:
        """Hold the next call of ``method`` whose parameters match (once); with ``delay``, forward it that many
        seconds after it came (a slow Bot API)."""
        hold = Hold(method, matches, delay=delay)
        self.holds.append(hold)
        return hold

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        method = request.path.rsplit("/", 1)[-1]
        for hold in self.holds:
            if hold._go is None and hold.method.lower() == method.lower() and hold.matches(await request.post()):
                hold._go = asyncio.get_running_loop().create_future()
                hold.arrived.set()
                if hold.delay is not None:
                    hold.release_after(hold.delay)
                if not await hold._go:
                    return web.Response(status=502, text="dropped")
                break
        assert self._client is not None
        headers = {key: value for key, value in request.headers.items() if key.lower() in ("content-type",)}
        async with self._client.request(request.method, self.upstream + request.path_qs, data=body,
                                        headers=headers) as upstream:
            payload = await upstream.read()
            return web.Response(status=upstream.status, body=payload,
                                content_type=upstream.content_type)
