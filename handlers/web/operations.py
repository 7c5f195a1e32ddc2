"""Operations endpoints: ``/metrics`` (Prometheus) and ``/readyz`` (readiness).

Both belong on the private side of the reverse proxy (see the README's operations guide). ``/healthz``
(``handlers.web.health``) stays a liveness check: the process answers and its database takes a write.
``/readyz`` says whether this process should get traffic: 200 only when the database answers a read and
takes a write within 2 s, the schema is at the latest migration, the scan scheduler runs (in ``run``) and the
catalogs are loaded; otherwise 503 naming each failing part.
"""

from __future__ import annotations

import asyncio

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest

from core import metrics, migrate
from core.i18n import catalogs_loaded
from handlers.web.keys import EXPECTS_SCHEDULER, sessions_of
from handlers.web.probes import probe_database
from models.columns import utcnow
from models.outbox import outbox_summary
from notifications.service import scheduler_running

routes = web.RouteTableDef()


@routes.get("/metrics")
async def prometheus_metrics(request: web.Request) -> web.Response:
    """Every Balcão metric in the Prometheus text format; the outbox gauges are read from the database now."""
    async with sessions_of(request)() as session:
        summary = await outbox_summary(session=session, now=utcnow())
    for status, count in summary.by_status.items():
        metrics.OUTBOX_MESSAGES.labels(status=status.value).set(count)
    metrics.OUTBOX_OLDEST_DUE_SECONDS.set(summary.oldest_due_age_seconds)
    body = await asyncio.to_thread(generate_latest, REGISTRY)
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})


async def _database_part(request: web.Request) -> tuple[str | None, str | None]:
    """(database failure, schema failure): each None when that part is ready.

    The database must answer a read *and* take a write (the heartbeat row) within 2 s (``handlers.web.probes``).
    """
    probe = await probe_database(sessions_of(request))
    if probe.read != "ok":
        return f"database unavailable ({probe.read})", "unknown"
    head = migrate.head_revision()
    schema = None
    if probe.revision != head:
        schema = f"at migration {probe.revision or '(empty)'}, needs {head}: run python -m bot db upgrade"
    if probe.write != "ok":
        return f"database refuses writes ({probe.write})", schema
    return None, schema


@routes.get("/readyz")
async def readyz(request: web.Request) -> web.Response:
    """200 ``{"status": "ready"}`` when every part is ready; 503 with ``{"failing": {part: why}}`` otherwise."""
    failing: dict[str, str] = {}
    database, schema = await _database_part(request)
    if database:
        failing["database"] = database
    if schema:
        failing["schema"] = schema
    if request.app.get(EXPECTS_SCHEDULER, False) and not scheduler_running():
        failing["scheduler"] = "the scan scheduler is not running"
    missing = [locale for locale, loaded in catalogs_loaded().items() if not loaded]
    if missing:
        failing["catalogs"] = "no compiled catalog for " + ", ".join(missing)
    if failing:
        return web.json_response({"status": "not ready", "failing": failing}, status=503)
    return web.json_response({"status": "ready"})
