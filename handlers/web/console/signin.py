"""Sign-in from the bot's one-time link, and sign-out.

``GET /painel/entrar/{token}`` only looks at the link and shows a button (a link preview or a prefetch uses
nothing); ``POST`` of that button uses it once and opens the session. Unknown, expired, used and foreign links (a
link of someone else while another staff member is signed in here) get a page saying what to do.
"""

from __future__ import annotations

from aiohttp import web
from yarl import URL

from core.municipality import ConsoleTimes
from handlers.web.console.forms import db
from handlers.web.console.guard import COOKIE, PLACE_COOKIE
from handlers.web.console.rendering import message_page, render, request_translator
from handlers.web.console.staff import staff_of
from handlers.web.keys import SETTINGS
from models.columns import utcnow
from models.console.signin import LinkProblem, LinkRefused, check_link, end_session, redeem_link, session_owner

routes = web.RouteTableDef()

PROBLEM_STATUS = {
    LinkProblem.UNKNOWN: 404,
    LinkProblem.EXPIRED: 410,
    LinkProblem.USED: 410,
    LinkProblem.NOT_STAFF: 403,
    LinkProblem.FOREIGN: 403,
}


def _refused(request: web.Request, problem: LinkProblem) -> web.Response:
    tr = request_translator(request)
    texts = {
        LinkProblem.UNKNOWN: tr._("This sign-in link is not valid. Send /painel to the Balcão bot to get a new one."),
        LinkProblem.EXPIRED: tr._("This sign-in link has expired. Send /painel to the Balcão bot to get a new one."),
        LinkProblem.USED: tr._("This sign-in link was already used; each link works once. Send /painel to the "
                               "Balcão bot to get a new one."),
        LinkProblem.NOT_STAFF: tr._("This link belongs to someone who is no longer staff, so it does not sign in."),
        LinkProblem.FOREIGN: tr._("Someone else is signed in to the console in this browser, and this link is not "
                                  "theirs. Sign out first, then open the link again."),
    }
    return message_page(request, title=tr._("Sign-in link refused"), text=texts[problem],
                        status=PROBLEM_STATUS[problem])


async def _current_owner(request: web.Request) -> int | None:
    token = request.cookies.get(COOKIE, "")
    if not token:
        return None
    async with db(request)() as session:
        return await session_owner(session=session, token=token, now=utcnow(),
                                   times=ConsoleTimes.of(request.config_dict[SETTINGS]))


@routes.get("/entrar/{token}")
async def link_page(request: web.Request) -> web.Response:
    """The page of a sign-in link: a button to sign in (the link is not used yet)."""
    owner = await _current_owner(request)
    try:
        async with db(request)() as session:
            await check_link(session=session, token=request.match_info["token"], now=utcnow(), signed_in_as=owner)
    except LinkRefused as refused:
        return _refused(request, refused.problem)
    tr = request_translator(request)
    return render(request, "signin.html", {"title": tr._("Sign in to the staff console"), "action": request.path})


def _from_this_site(request: web.Request) -> bool:
    """Whether the sign-in form was posted from the console's own page (login CSRF, OWASP ASVS V3.5).

    A browser says where a form comes from. ``Sec-Fetch-Site`` (every current browser) must be ``same-origin`` (or
    ``none``: typed by the person). Without it, ``Origin`` when sent must be this server's (the console's
    ``Referrer-Policy: no-referrer`` makes a browser send ``null`` for its own forms, so ``Sec-Fetch-Site`` decides
    when present). A request with neither (a script, an old browser) carries no other site's form and passes.
    """
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None:
        return site in ("same-origin", "none")
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    ours = {f"{request.scheme}://{request.host}", str(URL(request.config_dict[SETTINGS].http_root).origin())}
    return origin in ours


@routes.post("/entrar/{token}")
async def sign_in(request: web.Request) -> web.StreamResponse:
    """Use the link once and open the session; then go to the dashboard. Only from the link's own page."""
    if not _from_this_site(request):  # another site's form would sign this browser into its own session
        tr = request_translator(request)
        return message_page(request, status=403, title=tr._("Sign-in link refused"), text=tr._(
            "This sign-in did not come from the console's own page, so it was refused. Open the link the Balcão bot "
            "sent you and press the button there."), nav=False)
    owner = await _current_owner(request)
    try:
        async with db(request)() as session:
            opened = await redeem_link(session=session, token=request.match_info["token"], now=utcnow(),
                                       signed_in_as=owner)
    except LinkRefused as refused:
        return _refused(request, refused.problem)
    settings = request.config_dict[SETTINGS]
    redirect = web.HTTPSeeOther("/painel/")
    redirect.set_cookie(COOKIE, opened.token, httponly=True, samesite="Lax", path="/painel/",
                        secure=settings.http_root.startswith("https://"))
    raise redirect


@routes.post("/sair")
async def sign_out(request: web.Request) -> web.Response:
    """End the session (CSRF-checked like every change) and forget the cookie."""
    staff = staff_of(request)
    async with db(request)() as session:
        await end_session(session=session, token=staff.session_token, now=utcnow())
    tr = staff.tr
    response = message_page(request, status=200, title=tr._("Signed out"), text=tr._(
        "You signed out of the staff console. To come back, send /painel to the Balcão bot."), nav=False)
    response.del_cookie(COOKIE, path="/painel/")
    response.del_cookie(PLACE_COOKIE, path="/painel/")  # the next person here starts from their own municipalities
    return response
