"""The public verification page: ``/verificar`` (a form) and ``/verificar/<code>`` (the answer).

Anyone holding a notice (paper or PDF) can check that it is authentic: the QR code opens
``/verificar/<code>``. The page shows whether the code is valid and, if so, the type, number and issue date of the
notice, the law and article, and its stage — never the name, CPF/CNPJ, address or facts (LGPD). It is written
in Portuguese, the municipality's language; every value is HTML-escaped. Not found and malformed codes get the
same answer, so the page tells nothing about which codes exist.

It also shows the notice's entry in the city hall's transparency log (:mod:`models.tlog`) and links the
inclusion proof (``/verificar/<code>/prova.json``) that anyone can check against a published tree head, as
the README's "Verifying a notice" explains.
"""

from __future__ import annotations

import html
from urllib.parse import quote

from aiohttp import web

from core.i18n import Translator, translator
from handlers.web.keys import cities_of_request, sessions_of, settings_of
from models.authorities import ActAuthor
from models.notices.codes import format_code, normalize_code
from models.notices.labels import DECISION_LABELS as DECISION_NAMES
from models.notices.labels import OUTCOME_LABELS, STAGE_LABELS, TYPE_LABELS
from models.notices.signing import decision_signature, notice_signature
from models.notices.tables import NoticeStage
from models.notices.verification import PublicDecision, PublicNotice, verify_code
from models.payments.recording import payment_of
from models.payments.tables import NoticePayment
from models.signatures.validation import SignatureReport
from models.tlog.notices import NoticeProof, PendingEntry, notice_proof
from models.tlog.proofs import run

routes = web.RouteTableDef()
PAGE_LOCALE = "pt_BR"

STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}"
    "h1{font-size:1.4rem}.ok{color:#0a6b2d}.bad{color:#a4000f}dt{font-weight:600;margin-top:.6rem}"
    "dd{margin:0}input{font-size:1.1rem;padding:.4rem;width:14rem;text-transform:uppercase}"
    "button{font-size:1.1rem;padding:.4rem .9rem}small{color:#555}"
)


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def _page(tr: Translator, city: str, body: str, status: int = 200) -> web.Response:
    title = _esc(tr._("Check a notice — city hall of {city}").format(city=city))
    text = (
        f'<!doctype html><html lang="pt-BR"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{title}</title><style>{STYLE}</style></head><body>{body}</body></html>"
    )
    return web.Response(text=text, status=status, content_type="text/html", charset="utf-8",
                        headers={"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
                                 "Cache-Control": "no-store"})


def _form(tr: Translator, typed: str = "") -> str:
    label = _esc(tr._("Verification code (printed on the notice, e.g. 7K2M-QX9D-4HRT)"))
    button = _esc(tr._("Check"))
    return (
        f'<form method="get" action="/verificar"><label for="codigo">{label}</label><br>'
        f'<input id="codigo" name="codigo" value="{_esc(typed)}" maxlength="32" autocomplete="off" required> '
        f'<button type="submit">{button}</button></form>'
    )


def _status(notice: PublicNotice, tr: Translator) -> str:
    if notice.stage is NoticeStage.CLOSED and notice.outcome is not None:
        return tr._(OUTCOME_LABELS[notice.outcome])
    return tr._(STAGE_LABELS[notice.stage])


def _log_entry(proof: NoticeProof | PendingEntry | None, code: str, tr: Translator, *, within_seconds: int) -> str:
    if proof is None:
        missing = _esc(tr._("This notice has no entry in the public log. Ask the city hall why."))
        return f'<p class="bad">{missing}</p>'
    heading = _esc(tr._("Public log"))
    if isinstance(proof, PendingEntry):  # integrated, not yet in a signed head (heads are signed on a schedule)
        lead = _esc(tr._("Entry no. {index} of the city hall's public log records this notice as it is now. The "
                         "proof of inclusion is available after the next signed head, within {seconds} seconds: "
                         "reload the page then.").format(index=proof.index, seconds=within_seconds))
        return f'<h2>{heading}</h2><p id="pendente">{lead}</p>'

    lead = _esc(tr._("Entry no. {index} of the city hall's public log of {size} entries records this notice as it "
                     "is now.").format(index=proof.index, size=proof.head.tree_size))
    link = _esc(tr._("Download the proof of inclusion"))
    how = _esc(tr._("Anyone can check it, with any SHA-256 tool, against the signed tree head the city hall "
                    "publishes at {url}.").format(url="/verificar/sth.json"))
    href = _esc(f"/verificar/{quote(code, safe='')}/prova.json")
    return (f"<h2>{heading}</h2><p>{lead}</p><p><a href=\"{href}\" id=\"prova\">{link}</a></p>"
            f"<p><small>{how}</small></p>")


def _signature(report: SignatureReport, tr: Translator) -> str:
    """The PDF's PAdES signature as pyHanko judges it (L14063 Art. 4), beside the log's proof."""
    heading = _esc(tr._("Digital signature of the PDF"))
    if not report.signed:
        text = _esc(tr._("Not signed: this PDF carries no digital signature (issued before signatures, or the city "
                         "hall has not configured its certificate)."))
        return f'<h2>{heading}</h2><p class="bad" id="assinatura">{text}</p>'
    if not report.intact:
        text = _esc(tr._("Invalid: the PDF's signature does not match its content."))
        return f'<h2>{heading}</h2><p class="bad" id="assinatura">✘ {text}</p>'
    lines = [tr._("Valid: the PDF has not changed since it was signed."),
             tr._("Signed by the certificate of {signer}.").format(signer=report.signer)]
    if report.signed_at is not None:
        lines.append(tr._("Signing time stated: {when}.").format(when=tr.datetime(report.signed_at, format="long")))
    if report.timestamped_at is not None:
        lines.append(tr._("Timestamp (RFC 3161): {when}.").format(
            when=tr.datetime(report.timestamped_at, format="long")))
    lines.append(tr._("The certificate chains to the root the city hall trusts.") if report.trusted
                 else tr._("The certificate does not chain to a root the city hall trusts."))
    items = "".join(f"<li>{_esc(line)}</li>" for line in lines)
    return f'<h2>{heading}</h2><ul class="ok" id="assinatura">{items}</ul>'


def _decision_signatures(decided: list[tuple[PublicDecision, SignatureReport]], tr: Translator) -> str:
    """Each decision's own signed PDF, as pyHanko judges it (issue 18: a signed document at each step)."""
    if not decided:
        return ""
    items = []
    for number, (decision, report) in enumerate(decided, start=1):
        name = _esc(tr._(DECISION_NAMES[decision.kind]))
        if not decision.has_document:
            state, text = "bad", tr._("No document of its own: decided before this version (unsigned).")
        elif not report.signed:
            state, text = "bad", tr._("Not signed: the city hall has not configured its certificate.")
        elif not report.intact:
            state, text = "bad", "✘ " + tr._("Invalid: the PDF's signature does not match its content.")
        else:
            trust = (tr._("The certificate chains to the root the city hall trusts.") if report.trusted
                     else tr._("The certificate does not chain to a root the city hall trusts."))
            state = "ok"
            text = " ".join([tr._("Valid: the PDF has not changed since it was signed."),
                             tr._("Signed by the certificate of {signer}.").format(signer=report.signer), trust])
        items.append(f'<dt>{name}</dt><dd class="{state}" id="assinatura-decisao-{number}">{_esc(text)}</dd>')
    heading = _esc(tr._("Digital signature of each decision"))
    return f"<h2>{heading}</h2><dl>{''.join(items)}</dl>"


def _payment(paid: NoticePayment | None, tr: Translator) -> str:
    """Whether the fine was paid (CP Art. 34 IV): only the day, nothing about who paid or how."""
    if paid is None:
        return ""
    text = _esc(tr._("Fine paid on {date}.").format(date=tr.date(paid.paid_on)))
    return f'<p class="ok" id="pagamento">✔ {text}</p>'


def _valid(notice: PublicNotice, code: str, tr: Translator) -> str:
    rows = [
        (tr._("Type"), tr._(TYPE_LABELS[notice.type])),
        (tr._("Number"), notice.number),
        (tr._("Issued on"), tr.date(notice.issued_at)),
        *([(tr._("Drawn up on"), tr._("{date} at {time}").format(date=tr.date(notice.drawn_up_at),
                                                                 time=tr.time(notice.drawn_up_at)))]
          if notice.drawn_up_at else []),
        (tr._("Signature"), signature_text(notice, tr)),
        *[(tr._(DECISION_NAMES[decision.kind]), decision_text(decision, tr)) for decision in notice.decisions],
        *([(tr._("Provision infringed"), f"{notice.law_title}, {notice.infringed}")] if notice.infringed else []),
        (tr._("Penalty"), f"{notice.law_title}, {notice.article}"),
        (tr._("Status"), _status(notice, tr)),
    ]
    items = "".join(f"<dt>{_esc(name)}</dt><dd>{_esc(value)}</dd>" for name, value in rows)
    heading = _esc(tr._("Authentic document"))
    lead = _esc(tr._("The code {code} belongs to a notice issued by the city hall.").format(code=code))
    privacy = _esc(tr._("For privacy, personal data is not shown here (LGPD)."))
    issuer = f'<p class="issuer"><strong>{_esc(notice.authority)}</strong></p>' if notice.authority else ""
    return (f'{issuer}<h1 class="ok">✔ {heading}</h1><p>{lead}</p><dl>{items}</dl>'
            f"<p><small>{privacy}</small></p>")




def decision_text(decision: PublicDecision, tr: Translator) -> str:
    """When a decision was given and by whom (issue 18 §1: every decision names its author)."""
    if decision.decider is None:
        return tr._("On {date}, before deciders were recorded.").format(date=tr.short_date(decision.decided_at))
    return tr._("On {date}, by {author}").format(date=tr.short_date(decision.decided_at),
                                                 author=ActAuthor.from_data(decision.decider).line(tr))


def signature_text(notice: PublicNotice, tr: Translator) -> str:
    """"Assinada eletronicamente em … por …", or that the notice predates recorded signatures (issue 18 §2)."""
    if notice.signer is None or notice.signed_at is None:
        return tr._("Issued before signatures were recorded (unsigned).")
    return tr._("Signed electronically on {date} at {time} by {author}").format(
        date=tr.short_date(notice.signed_at), time=tr.time(notice.signed_at),
        author=ActAuthor.from_data(notice.signer).line(tr))


@routes.get("/verificar")
async def verification_form(request: web.Request) -> web.StreamResponse:
    """The form; with ``?codigo=`` it sends the visitor to the code's page."""
    settings = settings_of(request)
    tr = translator(PAGE_LOCALE, settings.timezone)
    typed = request.query.get("codigo", "").strip()
    if typed:
        normalised = normalize_code(typed)
        target = format_code(normalised) if normalised else typed[:32]
        raise web.HTTPSeeOther(f"/verificar/{quote(target, safe='')}")
    heading = _esc(tr._("Check a notice"))
    body = f"<h1>{heading}</h1>{_form(tr)}"
    return _page(tr, settings.municipality_name, body)


@routes.get("/verificar/{code}")
async def verification_result(request: web.Request) -> web.Response:
    """Whether a code is authentic, with the notice's public data (never personal data)."""
    settings = settings_of(request)
    tr = translator(PAGE_LOCALE, settings.timezone)
    typed = request.match_info["code"][:64]
    async with sessions_of(request)() as session:
        found = await verify_code(session=session, code=typed)
        proof = None if found is None else await run(session, notice_proof, found.notice_id)
        paid = None if found is None else await payment_of(session=session, notice_id=found.notice_id)
        signature = None if found is None else await notice_signature(session=session, notice_id=found.notice_id,
                                                                      cities=cities_of_request(request))
        decided = [] if found is None else [
            (decision, await decision_signature(session=session, filing_id=decision.filing_id,
                                                  cities=cities_of_request(request)))
            for decision in found.decisions]
    if found is None:
        heading = _esc(tr._("Code not found"))
        hint = _esc(tr._("No notice has this code. Check the characters and try again."))
        body = f'<h1 class="bad">✘ {heading}</h1><p>{hint}</p>{_form(tr, typed)}'
        return _page(tr, settings.municipality_name, body, status=404)
    assert signature is not None
    entry = _log_entry(proof, format_code(typed), tr, within_seconds=round(settings.tlog_max_merge_delay))
    body = (_valid(found, format_code(typed), tr) + _payment(paid, tr) + entry + _signature(signature, tr)
            + _decision_signatures(decided, tr) + _form(tr))
    # The Prefeitura that issued it (CF Art. 30 I), as the act records it: it outlives the municipalities file.
    city = found.authority.removeprefix("Prefeitura Municipal de ") if found.authority else (
        settings.for_municipality(found.municipality if found.municipality in settings.municipalities else None)
        .municipality_name)
    return _page(tr, city, body)
