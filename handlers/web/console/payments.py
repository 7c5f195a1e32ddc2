"""Pagamentos: record that a fine was paid, or import the bank's payment file (CP Art. 34 IV).

Both call :mod:`models.payments.recording`, which checks the clerk's role in the notice's municipality on every
call and changes nothing on a repeat. A refusal keeps what was typed.
"""

from __future__ import annotations

from aiohttp import web

from handlers.web.console.forms import city_today, db, form_text
from handlers.web.console.guard import console_page
from handlers.web.console.rendering import message_page, render
from handlers.web.console.staff import staff_of
from handlers.web.keys import cities_of_request
from models.columns import utcnow
from models.payments.recording import (
    PaymentFileRefused,
    PaymentRefused,
    import_payments,
    parse_amount,
    parse_day,
    record_payment,
)
from models.people import PermissionDenied, Role

routes = web.RouteTableDef()
FIELDS = ("number", "amount", "paid_on", "reference")
MAX_CSV = 5 * 1024 * 1024


def _page(request: web.Request, *, values: dict[str, str], error: str = "", done: str = "",
          problems: list[tuple[int, str]] | None = None, imported: tuple[int, int] | None = None,
          status: int = 200) -> web.Response:
    return render(request, "payments.html", {
        "title": staff_of(request).tr._("Payments"), "values": values, "error": error, "done": done,
        "problems": problems or [], "imported": imported, "today": city_today(request),
    }, status=status)


def _refused_by_role(request: web.Request) -> web.Response:
    tr = staff_of(request).tr
    return message_page(request, status=403, title=tr._("Not for your role"), text=tr._(
        "Only clerks of the notice's municipality record its payments. Nothing was changed."))


@routes.get("/pagamentos")
@console_page(Role.CLERK)
async def payments_page(request: web.Request) -> web.Response:
    """The form to record one payment, and the bank file's import."""
    return _page(request, values={}, done=request.query.get("feito", "")[:40])


@routes.post("/pagamentos")
@console_page(Role.CLERK)
async def record(request: web.Request) -> web.StreamResponse:
    """Record one payment: the notice's number, the amount, the day and the bank's id."""
    staff = staff_of(request)
    values = {name: (await form_text(request, name, 80)).strip() for name in FIELDS}
    try:
        async with db(request)() as session:
            recorded = await record_payment(
                session=session, cities=cities_of_request(request), number=values["number"],
                amount=parse_amount(values["amount"]), paid_on=parse_day(values["paid_on"], today=city_today(request)),
                reference=values["reference"], actor=staff.actor, staff_telegram_id=staff.telegram_user_id,
                now=utcnow())
    except PaymentRefused as refused:
        return _page(request, values=values, error=refused.render(staff.tr), status=422)
    except PermissionDenied:
        return _refused_by_role(request)
    raise web.HTTPSeeOther(f"/painel/pagamentos?feito={recorded.notice.number}")


@routes.post("/pagamentos/importar")
@console_page(Role.CLERK)
async def import_file(request: web.Request) -> web.Response:
    """Import the bank's CSV: every row, or none when one is bad (each named by its line)."""
    staff = staff_of(request)
    tr = staff.tr
    upload = (await request.post()).get("file")
    raw = upload.file.read(MAX_CSV + 1) if isinstance(upload, web.FileField) else b""
    if not raw or len(raw) > MAX_CSV:
        return _page(request, values={}, status=400, error=tr._(
            "Choose the bank's CSV file (UTF-8, at most 5 MB). Nothing was changed."))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return _page(request, values={}, status=422, error=tr._(
            "The file is not UTF-8; export it again as UTF-8 CSV. Nothing was changed."))
    try:
        async with db(request)() as session:
            result = await import_payments(session=session, cities=cities_of_request(request), content=text,
                                           actor=staff.actor, staff_telegram_id=staff.telegram_user_id,
                                           now=utcnow())
    except PaymentFileRefused as refused:
        problems = [(line, reason.render(tr)) for line, reason in refused.problems]
        return _page(request, values={}, problems=problems, status=422)
    except PermissionDenied:
        return _refused_by_role(request)
    return _page(request, values={}, imported=(result.recorded, result.already))
