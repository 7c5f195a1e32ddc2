"""Defesas: defences, reclamações and appeals waiting for a decision (clerks), as ``/defesas`` in the bot.

Each shows its notice's open windows with their articles (:func:`models.notices.status.notice_view`) and a form to
decide it (CP Art. 40–41, 45) through
:func:`models.notices.filings.decide_filing`, which delivers the decision to the person.
"""

from __future__ import annotations

import asyncio

from aiohttp import web

from core.i18n import N_, Translator
from core.municipality import Publication
from handlers.web.citizen_files import citizen_file
from handlers.web.console.forms import city_today, db, form_text
from handlers.web.console.guard import console_page, elsewhere, works_in
from handlers.web.console.rendering import message_page, render
from handlers.web.console.staff import staff_of
from handlers.web.keys import SETTINGS, cities_of_request
from models.cases.previews import PREVIEW_TYPES, NoPreview, image_preview
from models.notices.decision_documents import decision_document
from models.notices.filing_record import FilingFile, filing_file, filing_record
from models.notices.filings import FilingRefused, decide_filing, pending_filings
from models.notices.status import notice_view
from models.notices.tables import FilingKind, FilingOutcome, Notice, NoticeAttachment, NoticeFiling
from models.people import Role
from models.rulebooks.procedure import decision_articles

routes = web.RouteTableDef()
KIND_NAMES = {FilingKind.DEFESA: N_("Defence"), FilingKind.RECLAMACAO: N_("Complaint (reclamação)"),
              FilingKind.RECURSO: N_("Appeal")}
OUTCOME_NAMES = {FilingOutcome.GRANTED: N_("Accepted (procedente)"),
                 FilingOutcome.DENIED: N_("Rejected (improcedente)")}


def _reason(refused: FilingRefused, tr: Translator) -> str:
    return f"{refused.render(tr)} ({refused.citation})" if refused.citation else refused.render(tr)


async def _page(request: web.Request, *, error: str = "", error_id: int | None = None, status: int = 200,
                typed: str = "") -> web.Response:
    cities = cities_of_request(request)
    today = city_today(request)
    async with db(request)() as session:
        shown = staff_of(request).shown
        rows = [(filing, notice) for filing, notice in await pending_filings(session=session)
                if notice.municipality in shown]
        views = [await notice_view(session=session, city=cities.of(notice.municipality), notice=notice,
                                 today=today)
                 for _filing, notice in rows]
        records = [await filing_record(session=session, filing=filing, number=notice.number)
                   for filing, notice in rows]
    return render(request, "filings.html", {
        "title": staff_of(request).tr._("Defences and appeals"),
        "rows": list(zip(rows, views, records, strict=True)),
        "kinds": KIND_NAMES, "outcomes": OUTCOME_NAMES, "today": today, "error": error, "error_id": error_id,
        "typed": typed, "done": request.query.get("feito") == "1",
        "decision_articles": decision_articles,  # each act cites its own law
    }, status=status)


@routes.get("/defesas")
@console_page(Role.CLERK)
async def filings_page(request: web.Request) -> web.Response:
    """The filings waiting for a decision, oldest first, with their windows."""
    return await _page(request)


@routes.post("/defesas/{filing_id:\\d{1,9}}/decisao")
@console_page(Role.CLERK)
async def decide(request: web.Request) -> web.StreamResponse:
    """Decide a filing; the decision goes to the person with its ciência."""
    staff = staff_of(request)
    filing_id = int(request.match_info["filing_id"])
    raw = await form_text(request, "outcome", 20)
    text = await form_text(request, "text")
    outcome = next((o for o in FilingOutcome if o.value == raw), None)
    if outcome is None:
        return await _page(request, error=staff.tr._("Choose a decision."), error_id=filing_id, status=422,
                           typed=text)
    async with db(request)() as session:
        filing = await session.get(NoticeFiling, filing_id)
        notice = await session.get(Notice, filing.notice_id) if filing is not None else None
    if notice is not None and not await works_in(request, notice.municipality, (Role.CLERK,)):
        return elsewhere(request)
    async with db(request)() as session:
        try:
            await decide_filing(session=session, cities=cities_of_request(request),
                                publication=Publication.of(request.config_dict[SETTINGS]), filing_id=filing_id,
                                outcome=outcome, text=text, decider_telegram_id=staff.telegram_user_id)
        except FilingRefused as refused:
            return await _page(request, error=_reason(refused, staff.tr), error_id=filing_id, status=422,
                               typed=text)
    raise web.HTTPSeeOther("/painel/defesas?feito=1")


@routes.get("/defesas/{filing_id:\\d{1,9}}/decisao.pdf")
@console_page(Role.CLERK, Role.INSPECTOR)
async def decision_pdf(request: web.Request) -> web.StreamResponse:
    """A decision's signed PDF, as given (issue 18: a signed document at each step), for staff of its municipality."""
    async with db(request)() as session:
        found = await decision_document(session=session, filing_id=int(request.match_info["filing_id"]))
    if found is None:
        tr = staff_of(request).tr
        return message_page(request, status=404, title=tr._("Not found"), text=tr._(
            "This decision has no document of its own: it was given before decisions were signed."))
    notice, filing = found
    if not await works_in(request, notice.municipality, (Role.CLERK, Role.INSPECTOR)):
        return elsewhere(request)
    assert filing.decision_pdf is not None
    return web.Response(body=filing.decision_pdf, content_type="application/pdf", headers={
        "Content-Disposition": f'inline; filename="{notice.number}-decisao-{filing.id}.pdf"'})
async def _file(request: web.Request) -> tuple[NoticeAttachment, FilingFile] | web.Response:
    """The filing's file of the URL and its neutral name, for a clerk where its notice is; else the refusal."""
    filing_id, attachment_id = int(request.match_info["filing_id"]), int(request.match_info["attachment_id"])
    async with db(request)() as session:
        found = await filing_file(session=session, filing_id=filing_id, attachment_id=attachment_id)
        filing = await session.get(NoticeFiling, filing_id)
        notice = await session.get(Notice, filing.notice_id) if filing is not None else None
    if found is None or notice is None:
        tr = staff_of(request).tr
        return message_page(request, status=404, title=tr._("Not found"), text=tr._("No such file."))
    if not await works_in(request, notice.municipality, (Role.CLERK,)):  # CF Art. 30
        return elsewhere(request)
    return found


@routes.get("/defesas/{filing_id:\\d{1,9}}/anexos/{attachment_id:\\d{1,9}}")
@console_page(Role.CLERK)
async def attachment(request: web.Request) -> web.Response:
    """A file sent with a filing, as the case files are: a sandboxed download under a neutral name."""
    got = await _file(request)
    if isinstance(got, web.Response):
        return got
    row, named = got
    return citizen_file(row.content, mime_type=row.mime_type, file_name=named.file_name, sha256=row.sha256)


@routes.get("/defesas/{filing_id:\\d{1,9}}/anexos/{attachment_id:\\d{1,9}}/previa")
@console_page(Role.CLERK)
async def preview(request: web.Request) -> web.Response:
    """A photo sent with a filing drawn again from its pixels as a PNG (:func:`models.cases.previews.image_preview`)."""
    got = await _file(request)
    if isinstance(got, web.Response):
        return got
    row, named = got
    tr = staff_of(request).tr
    if row.mime_type not in PREVIEW_TYPES:
        return message_page(request, status=404, title=tr._("Not found"), text=tr._("No such file."))
    try:
        drawn = await asyncio.to_thread(image_preview, row.content)  # seconds of CPU for a big photo
    except NoPreview:
        return message_page(request, status=404, title=tr._("Not found"), text=tr._("No such file."))
    return citizen_file(drawn, mime_type="image/png", file_name=f"previa-{named.id}.png", inline=True)
