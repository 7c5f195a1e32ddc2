"""HTTP endpoints on aiohttp: the staff API (``/api/…``, bearer token) and public pages.

Each area adds a ``RouteTableDef`` to ``ROUTE_TABLES`` in ``handlers.web.routes``.
"""
