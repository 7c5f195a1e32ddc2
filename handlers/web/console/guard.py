"""The console's middleware: a live session, the staff role checked again, CSRF on every change, safe headers.

Every request but the sign-in link and the stylesheet needs the session cookie of a live session
(:func:`models.console.signin.session_owner`) whose owner is active staff *now* (:func:`models.people.require_role`).
A request that changes anything (any method but GET/HEAD) must carry the session's CSRF token in the form field
``csrf`` or the ``X-CSRF-Token`` header; without it nothing runs. Pages for some roles only use :func:`console_page`.
Unexpected errors are logged with a reference (``E-7F3A9C``) shown to the person, never a stack trace.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web
from sqlmodel import select

from core.i18n import translator
from core.municipality import ConsoleTimes
from core.references import new_reference
from handlers.web.console.forms import db
from handlers.web.console.rendering import message_page, request_translator
from handlers.web.console.staff import STAFF, ConsoleStaff, staff_of
from handlers.web.keys import SETTINGS, cities_of_request
from models.columns import utcnow
from models.console.scope import admin_of_every_municipality, console_scope, may_work_in, roles_for_page, widest
from models.console.signin import CONSOLE_ROLES, csrf_ok, csrf_token, session_owner
from models.notices.access import NoticeOutOfReach
from models.people import PermissionDenied, Person, Role, StaffMember

logger = logging.getLogger("balcao.console")
COOKIE = "balcao_console"
PLACE_COOKIE = "balcao_console_municipio"
"""The municipality an admin of several chose to look at (a view choice, checked against the roles each request)."""
PUBLIC_PREFIXES = ("/painel/entrar/", "/painel/static/")
SAFE_METHODS = frozenset({"GET", "HEAD"})
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; media-src 'self'; object-src 'none'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # the sign-in link's secret must never leave in a Referer
    "X-Frame-Options": "DENY",
}


async def _signed_in(request: web.Request, token: str) -> ConsoleStaff | None:
    settings = request.config_dict[SETTINGS]
    async with db(request)() as session:
        owner = await session_owner(session=session, token=token, now=utcnow(), times=ConsoleTimes.of(settings))
        if owner is None:
            return None
        try:
            scope = await console_scope(session=session, telegram_user_id=owner, cities=cities_of_request(request),
                                        allowed=CONSOLE_ROLES, chosen=request.cookies.get(PLACE_COOKIE) or None)
        except PermissionDenied:
            return None
        member = (await session.exec(select(StaffMember).where(StaffMember.telegram_user_id == owner,
                                                               StaffMember.active == True))).first()  # noqa: E712
        person = (await session.exec(select(Person).where(Person.telegram_user_id == owner))).first()
    locale = person.locale if person is not None else settings.cli_locale
    chosen = scope.shown[0] if len(scope.shown) == 1 and len(scope.places) > 1 else None
    return ConsoleStaff(telegram_user_id=owner, role=scope.role, name=member.name if member else "",
                        municipalities=scope.names, places=scope.places, shown=scope.shown, chosen=chosen,
                        roles=scope.roles, session_token=token, csrf=csrf_token(token),
                        tr=translator(locale, settings.timezone))


def _signed_out(request: web.Request) -> web.Response:
    tr = request_translator(request)
    return message_page(request, status=401, title=tr._("Sign in to the staff console"), text=tr._(
        "You are not signed in, or your session ended. Send /painel to the Balcão bot in Telegram and open the "
        "link it sends you."))


async def _csrf_given(request: web.Request) -> str:
    header = request.headers.get("X-CSRF-Token", "")
    if header:
        return header
    if request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        form = await request.post()
        value = form.get("csrf")
        return value if isinstance(value, str) else ""
    return ""


async def _guarded(request: web.Request, handler: Handler) -> web.StreamResponse:
    if request.path.startswith(PUBLIC_PREFIXES):
        return await handler(request)
    token = request.cookies.get(COOKIE, "")
    staff = await _signed_in(request, token) if token else None
    if staff is None:
        return _signed_out(request)
    request[STAFF] = staff
    if request.method not in SAFE_METHODS and not csrf_ok(token, await _csrf_given(request)):
        logger.warning("console: %s %s refused, missing or wrong CSRF token (staff %s)", request.method,
                       request.path, staff.telegram_user_id)
        tr = staff.tr
        return message_page(request, status=403, title=tr._("Not done"), text=tr._(
            "This form was too old or did not come from the console, so nothing was changed. Go back, reload "
            "the page and try again."))
    return await handler(request)


@web.middleware
async def console_guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Check the session, the role and the CSRF token; add the security headers; turn crashes into a page."""
    try:
        response = await _guarded(request, handler)
    except web.HTTPException as http_error:
        for name, value in HEADERS.items():
            http_error.headers.setdefault(name, value)
        raise
    except Exception:
        reference = new_reference()
        logger.exception("console error ref=%s %s %s", reference, request.method, request.path)
        tr = request_translator(request)
        response = message_page(request, status=500, title=tr._("Something went wrong"), text=tr._(
            "Sorry, something went wrong on our side and nothing was changed. If it happens again, quote this "
            "reference: {reference}").format(reference=reference))
    if not response.prepared:
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        response.headers.setdefault("Cache-Control", "no-store")
    return response


def console_page(*roles: Role) -> Callable[[Handler], Handler]:
    """Allow a page only to staff of ``roles`` (admins always); others get a refusal page and nothing runs.

    The page then shows only the municipalities where the member holds one of ``roles``, with the role held there
    (:func:`models.console.scope.roles_for_page`): its lists and exports leave out the others.
    """
    allowed = frozenset(roles)

    def decorate(handler: Handler) -> Handler:
        async def wrapper(request: web.Request) -> web.StreamResponse:
            staff = staff_of(request)
            kept = roles_for_page(staff.roles, allowed)
            if not kept:
                tr = staff.tr
                return message_page(request, status=403, title=tr._("Not for your role"), text=tr._(
                    "This part of the console is for other staff roles. Nothing was changed."))
            shown = tuple(slug for slug, _role in kept)
            request[STAFF] = dataclasses.replace(
                staff, shown=shown, roles=kept, role=widest(kept),
                municipalities=tuple(name for slug, name in staff.places if slug in shown))
            try:
                return await handler(request)
            except NoticeOutOfReach:  # a notice the domain's access_* refused (CF Art. 30 I): nothing changed
                return elsewhere(request)

        wrapper.__name__ = handler.__name__
        wrapper.__doc__ = handler.__doc__
        return wrapper

    return decorate


async def works_in(request: web.Request, municipality: str, roles: tuple[Role, ...]) -> bool:
    """Whether the signed-in member may open or act on a record of ``municipality`` with one of ``roles``.

    The record's municipality must be one the console shows now, and the member must hold one of the roles
    (admins always) there (CF Art. 30: each city hall has its own staff).
    """
    staff = staff_of(request)
    async with db(request)() as session:
        return await may_work_in(session=session, telegram_user_id=staff.telegram_user_id, municipality=municipality,
                                 shown=staff.shown, allowed=frozenset(roles))


def elsewhere(request: web.Request) -> web.Response:
    """The refusal of another municipality's record (or of one the console does not show now): nothing changed."""
    tr = staff_of(request).tr
    return message_page(request, status=403, title=tr._("Another municipality's record"), text=tr._(
        "This record belongs to a municipality you do not work in here, so it is not shown and nothing was "
        "changed. If you work in several municipalities, choose it at the top of the page."))


async def deployment_wide(request: web.Request) -> web.Response | None:
    """Refuse a page about the whole deployment (the audit log, Open311 keys) to all but admins of every municipality.

    Returns:
        The refusal page, or None when the member is an admin in every municipality the deployment serves.
    """
    staff = staff_of(request)
    async with db(request)() as session:
        if await admin_of_every_municipality(session=session, telegram_user_id=staff.telegram_user_id,
                                             cities=cities_of_request(request)):
            return None
    tr = staff.tr
    return message_page(request, status=403, title=tr._("Not for your role"), text=tr._(
        "This page covers every municipality of this deployment, so only an admin of all of them uses it. "
        "Nothing was changed."))
