"""Minhas chaves da API: a staff member's own personal tokens for the staff HTTP API, a new one shown once, revoke.

Every staff role; each member sees and revokes only their own tokens (:mod:`models.console.api_tokens`, which keeps
only the SHA-256 and writes the audit log). A new token is on one page only, the answer to the form that made it.
"""

from __future__ import annotations

from aiohttp import web

from handlers.web.console.forms import db, form_text
from handlers.web.console.rendering import render
from handlers.web.console.staff import staff_of
from models.columns import utcnow
from models.console.api_tokens import TokenRefused, issue_api_token, list_api_tokens, revoke_api_token

routes = web.RouteTableDef()


async def _page(request: web.Request, *, token: str = "", label: str = "", error: str = "",
                status: int = 200) -> web.Response:
    staff = staff_of(request)
    async with db(request)() as session:
        tokens = await list_api_tokens(session=session, telegram_user_id=staff.telegram_user_id)
    response = render(request, "api_tokens.html", {
        "title": staff.tr._("My API tokens"), "tokens": tokens, "token": token, "label": label, "error": error,
        "revoked": request.query.get("revogada") == "1",
    }, status=status)
    return response


@routes.get("/chaves")
async def tokens_page(request: web.Request) -> web.Response:
    """The member's tokens and the form for a new one."""
    return await _page(request)


@routes.post("/chaves")
async def issue(request: web.Request) -> web.Response:
    """Issue a token to the signed-in member and show it this once (audited; only its hash is kept)."""
    staff = staff_of(request)
    label = await form_text(request, "label", 200)
    try:
        async with db(request)() as session:
            issued = await issue_api_token(session=session, telegram_user_id=staff.telegram_user_id, label=label,
                                           now=utcnow())
    except TokenRefused as refused:
        return await _page(request, label=label, error=refused.render(staff.tr), status=422)
    return await _page(request, token=issued.token, label=label, status=201)


@routes.post("/chaves/{token_id:\\d{1,9}}/revogar")
async def revoke(request: web.Request) -> web.StreamResponse:
    """Revoke one of the member's own tokens at once (audited)."""
    staff = staff_of(request)
    try:
        async with db(request)() as session:
            await revoke_api_token(session=session, telegram_user_id=staff.telegram_user_id,
                                   token_id=int(request.match_info["token_id"]), now=utcnow())
    except TokenRefused as refused:
        return await _page(request, error=refused.render(staff.tr), status=404)
    raise web.HTTPSeeOther("/painel/chaves?revogada=1")
