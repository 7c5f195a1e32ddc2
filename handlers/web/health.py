"""``/healthz``: is the process up and the database reachable."""

from __future__ import annotations

from aiohttp import web
from sqlalchemy import text

from handlers.web.keys import sessions_of

routes = web.RouteTableDef()


@routes.get("/healthz")
async def healthz(request: web.Request) -> web.Response:
    """200 with ``{"status": "ok"}`` when the database answers, 503 otherwise."""
    try:
        async with sessions_of(request)() as session:
            await session.exec(text("SELECT 1"))
    except Exception:  # any database failure means "not healthy"
        return web.json_response({"status": "database unavailable"}, status=503)
    return web.json_response({"status": "ok"})
