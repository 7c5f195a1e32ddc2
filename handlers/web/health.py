"""``/healthz``: is the process up, does the database answer, and does it still take writes.

200 ``{"status": "ok", "checks": {"database_read": "ok", "database_write": "ok"}}``; otherwise 503 with the
part that failed in ``failed`` (``database_read`` or ``database_write``) and each check's outcome; a database that
does not answer within 2 s is a failure too (``handlers.web.probes``).
"""

from __future__ import annotations

from aiohttp import web

from handlers.web.keys import sessions_of
from handlers.web.probes import probe_database

routes = web.RouteTableDef()


@routes.get("/healthz")
async def healthz(request: web.Request) -> web.Response:
    """200 when the database answers a read and takes a write, 503 naming the part that failed (within 2 s)."""
    probe = await probe_database(sessions_of(request))
    checks = {"database_read": probe.read, "database_write": probe.write}
    failed = probe.failed
    if failed is not None:
        status = "database unavailable" if failed == "database_read" else "database refuses writes"
        return web.json_response({"status": status, "failed": failed, "checks": checks}, status=503)
    return web.json_response({"status": "ok", "checks": checks})
