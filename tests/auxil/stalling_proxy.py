"""A TCP proxy on loopback in front of a throwaway PostgreSQL's Unix socket, that can freeze.

Frozen, it stops passing bytes either way on every connection, open or new: to Balcão the server is alive but says
nothing, as a PostgreSQL whose machine hangs (SIGSTOP on the postmaster alone would leave the open connections'
backends answering). Thawed, the bytes held back flow again.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class StallingProxy:
    """``port`` on 127.0.0.1 forwards to ``socket_path``; :meth:`freeze` and :meth:`thaw` stop and resume it."""

    socket_path: Path
    port: int = 0
    _flowing: asyncio.Event = field(default_factory=asyncio.Event)
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    def freeze(self) -> None:
        """Stop passing bytes (connections stay open)."""
        self._flowing.clear()

    def thaw(self) -> None:
        """Pass bytes again."""
        self._flowing.set()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, asyncio.CancelledError):
            while data := await reader.read(65536):
                await self._flowing.wait()
                writer.write(data)
                await writer.drain()
        writer.close()

    async def _connect(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        await self._flowing.wait()
        server_reader, server_writer = await asyncio.open_unix_connection(str(self.socket_path))
        for task in (asyncio.create_task(self._pipe(client_reader, server_writer)),
                     asyncio.create_task(self._pipe(server_reader, client_writer))):
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)


@asynccontextmanager
async def stalling_proxy(socket_path: Path) -> AsyncIterator[StallingProxy]:
    """Serve a :class:`StallingProxy` (flowing) for the block; every connection is closed after it."""
    proxy = StallingProxy(socket_path)
    proxy.thaw()
    server = await asyncio.start_server(proxy._connect, "127.0.0.1", 0)
    proxy.port = int(server.sockets[0].getsockname()[1])
    try:
        yield proxy
    finally:
        proxy.thaw()
        server.close()
        for task in list(proxy._tasks):
            task.cancel()
        await asyncio.gather(*proxy._tasks, return_exceptions=True)
        await server.wait_closed()
