"""Open311 GeoReport v2 at ``/open311/v2/`` (http://wiki.open311.org/GeoReport_v2), XML and JSON.

Discovery, services and service definitions (:mod:`.services`); POST and GET requests, one request, and
mySociety's ``servicerequestupdates`` (:mod:`.requests`). Rendering and the spec's errors: :mod:`.render`.
"""

from handlers.web.open311.requests import routes as request_routes
from handlers.web.open311.services import routes as service_routes

__all__ = ["request_routes", "service_routes"]
