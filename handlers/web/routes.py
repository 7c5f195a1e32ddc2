"""The list of route tables that the aiohttp server mounts (areas append theirs here)."""

from __future__ import annotations

from aiohttp import web

from handlers.web import (
    api_broadcasts,
    api_cases,
    api_drivers,
    api_notices,
    api_platforms,
    health,
    log_proofs,
    open311,
    operations,
    transparency,
    verification,
)

ROUTE_TABLES: tuple[web.RouteTableDef, ...] = (
    health.routes,  # /healthz
    operations.routes,  # /metrics, /readyz (private)
    api_broadcasts.routes,  # /api/broadcasts…
    api_cases.routes,  # /api/cases…
    api_drivers.routes,  # /api/drivers…
    api_notices.routes,  # /api/notices…
    log_proofs.routes,  # public /verificar/sth.json, proofs (before /verificar/{code})
    verification.routes,  # public /verificar
    api_platforms.routes,  # /api/platforms… (L1533 Art. 5 IX)
    open311.service_routes,  # public /open311/v2/discovery, services
    open311.request_routes,  # /open311/v2/requests…, servicerequestupdates (POST and updates need an api_key)
    transparency.routes,  # public /transparencia and its open data
)
