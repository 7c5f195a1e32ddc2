"""Open311 GeoReport v2: the client systems that may post, the cases they filed, and what the API publishes.

The HTTP side is :mod:`handlers.web.open311`; the filing itself is the chat's (:mod:`models.cases.filing`).
"""

from models.open311 import tables  # noqa: F401  (register tables)
