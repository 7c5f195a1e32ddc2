"""A tiny log witness on 127.0.0.1 (aiohttp): it keeps every head POSTed to it and answers GET with the newest."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from aiohttp import web


@asynccontextmanager
async def local_witness() -> AsyncIterator[tuple[str, list[dict[str, Any]]]]:
    """Run the witness; yields its URL and the heads it has kept, oldest first."""
    kept: list[dict[str, Any]] = []

    async def take(request: web.Request) -> web.Response:
        kept.append(json.loads(await request.read()))
        return web.json_response({"kept": len(kept)}, status=201)

    async def newest(_request: web.Request) -> web.Response:
        return web.json_response(kept[-1]) if kept else web.json_response({"error": "none"}, status=404)

    app = web.Application()
    app.router.add_post("/heads", take)
    app.router.add_get("/heads", newest)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}/heads", kept
    finally:
        await runner.cleanup()
