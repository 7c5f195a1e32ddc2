"""The list of route tables that the aiohttp server mounts (areas append theirs here)."""

from __future__ import annotations

from aiohttp import web

from handlers.web import api_broadcasts, api_cases, api_drivers, api_notices, health, verification

ROUTE_TABLES: tuple[web.RouteTableDef, ...] = (health.routes,)
ROUTE_TABLES += (api_broadcasts.routes,)  # notifications: staff broadcasts
ROUTE_TABLES += (api_cases.routes,)  # citizens: cases
ROUTE_TABLES += (api_drivers.routes,)  # drivers: registry import, link codes, status
ROUTE_TABLES += (api_notices.routes, verification.routes)  # notices: staff API, public /verificar
