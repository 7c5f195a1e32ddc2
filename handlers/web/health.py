"""``/healthz``: is the process up, does the database answer, and does it still take writes.

200 ``{"status": "ok", "checks": {"database_read": "ok", "database_write": "ok"}}``; otherwise 503 with the
part that failed in ``failed`` (``database_read`` or ``database_write``) and each check's outcome.
"""

from __future__ import annotations

import logging

from aiohttp import web
from sqlalchemy import text

from handlers.web.keys import sessions_of
from models.columns import utcnow
from models.health import probe_write

routes = web.RouteTableDef()
logger = logging.getLogger("balcao.health")


@routes.get("/healthz")
async def healthz(request: web.Request) -> web.Response:
    """200 when the database answers a read and takes a write, 503 naming the part that failed."""
    checks = {"database_read": "not run", "database_write": "not run"}
    failed = None
    try:
        async with sessions_of(request)() as session:
            await session.exec(text("SELECT 1"))
            checks["database_read"] = "ok"
            await probe_write(session=session, now=utcnow())
            checks["database_write"] = "ok"
    except Exception as exc:  # any database failure means "not healthy"; say which part
        failed = "database_read" if checks["database_read"] != "ok" else "database_write"
        checks[failed] = f"failed: {type(exc).__name__}"
        logger.warning("health check: %s failed (%s)", failed, type(exc).__name__)
    if failed is not None:
        status = "database unavailable" if failed == "database_read" else "database refuses writes"
        return web.json_response({"status": status, "failed": failed, "checks": checks}, status=503)
    return web.json_response({"status": "ok", "checks": checks})
