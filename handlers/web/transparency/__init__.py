"""The public results panel ``/transparencia`` and its open data: no sign-in, cached, pt_BR first.

Pages are Jinja2 templates (aiohttp-jinja2, under their own app key so other areas keep theirs); the figures are
:mod:`models.transparency`; the charts are SVG drawn here (:mod:`.charts`).
"""

from handlers.web.transparency.views import routes, setup

__all__ = ["routes", "setup"]
