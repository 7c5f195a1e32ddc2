"""Safe headers on every answer of the HTTP server: no page of Balcão can be framed, sniffed or leak its address.

Added to every response as it is prepared (streamed ones, errors and every sub-application's too), without
replacing what a page set for itself (the console's own stricter policy, a citizen's file's ``sandbox``):

- ``Content-Security-Policy`` on HTML: ``frame-ancestors 'none'`` (no clickjacking of ``/transparencia``,
  ``/verificar`` or the console), no script but our own files, no plugin, no ``<base>``, forms only to us;
- ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy: no-referrer`` on everything (the verification code
  and the sign-in link must never leave in a Referer); ``X-Frame-Options: DENY`` for old browsers;
- ``Strict-Transport-Security`` when the public address is ``https://`` (``BALCAO_PUBLIC_URL``), the only way the
  server knows it stands behind TLS without trusting a header anyone can send.
"""

from __future__ import annotations

from aiohttp import web

from handlers.web.keys import SETTINGS

PAGE_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
               "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
"""The CSP of every HTML page that sets none itself (inline styles are allowed, scripts never)."""
EVERY_RESPONSE = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"}
HSTS = "max-age=31536000; includeSubDomains"
"""One year (OWASP's recommendation); sent only when the deployment is served over https."""


async def add_security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """``on_response_prepare``: add the safe headers a response does not set itself."""
    headers = response.headers
    for name, value in EVERY_RESPONSE.items():
        headers.setdefault(name, value)
    if (response.content_type or "").startswith(("text/html", "image/svg")):
        headers.setdefault("Content-Security-Policy", PAGE_POLICY)
    if request.config_dict[SETTINGS].http_root.startswith("https://"):
        headers.setdefault("Strict-Transport-Security", HSTS)
