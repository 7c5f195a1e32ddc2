"""How the penalty-notice messages read, rendered at send time in the reader's language.

- ``notice.delivery``: the notice with its PDF and the "Tomo ciência" button (mandatory: a legal notice);
- ``notice.decision``: a decision on a defence, reclamação or appeal, with the windows it opens (mandatory);
- ``notice.tacit_ciencia``: the person now counts as notified (mandatory);
- ``notice.reminder``: days left before a window closes (topic ``notice-deadlines``, which a person may mute);
- ``notice.limit_warning``: to staff, a Lei 1.533 notice nearing the 90-day delivery limit (Art. 22 §1).

The "Tomo ciência" button's data is ``notif:ciencia:<delivery id>``; the chat module ``handlers.chat.notices``
answers it. Payloads never hold the offender's CPF or address.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
from typing import Any

from core.i18n import N_, Translator
from core.municipalities import Office
from models.authorities import ActAuthor
from models.columns import utcnow
from models.days_left import days_left_words
from models.notices.act_elements import ELEMENTS_CITATION, goes_on_line, where_to_act_lines
from models.notices.pdf import money_of
from models.notices.tables import FilingKind, FilingOutcome, NoticeType
from models.notices.windows import NO_DEPOSIT
from models.outbox import enqueue
from models.rulebooks.catalogue import LAW_TITLES
from models.rulebooks.deadline_rules import Unit, get_rule, unit_phrase
from models.when import municipal_today
from notifications.payment_messages import payment_lines
from notifications.rendering import Rendered, renderer
from notifications.telegram_text import small
from notifications.topics import reminder_topic

DELIVERY = "notice.delivery"
DECISION = "notice.decision"
TACIT = "notice.tacit_ciencia"
REMINDER = "notice.reminder"
LIMIT_WARNING = "notice.limit_warning"
DECISION_WARNING = "notice.decision_warning"

DEADLINES_TOPIC = reminder_topic(
    "notice-deadlines",
    label=N_("Deadlines of my notices"),
    description=N_("A few days before the deadline to defend yourself, appeal or pay ends."),
)

TYPE_LABELS = {  # keyed by the enums, which also find their plain values (``"auto"``) from payloads
    NoticeType.PRELIMINAR: N_("Preliminary notice"),
    NoticeType.AUTO: N_("Infraction report (auto de infração)"),
}
FILING_LABELS = {  # with the possessive, so sentences need no gender agreement in Portuguese
    FilingKind.DEFESA: N_("your defence"),
    FilingKind.RECLAMACAO: N_("your complaint (reclamação)"),
    FilingKind.RECURSO: N_("your appeal"),
}


def ciencia_data(delivery_id: int) -> str:
    """The callback data of the "Tomo ciência" button."""
    return f"notif:ciencia:{delivery_id}"


def open_data(notice_id: int) -> str:
    """The callback data of the button that opens a notice in /notificacoes."""
    return f"ntc:show:{notice_id}"


def _esc(value: object) -> str:
    return html.escape(str(value), quote=False)


def money(tr: Translator, cents: int) -> str:
    """An amount kept in cents, as the reader writes money (``R$ 1.234,50``)."""
    return tr.money(money_of(cents))



@renderer(DELIVERY)
def render_delivery(payload: dict[str, Any], tr: Translator) -> Rendered:
    """The notice, its PDF, and how ciência works (explicit, or tacit / by post after N days)."""
    title = tr._(TYPE_LABELS[payload["type"]])
    lines = [
        tr._("📄 <b>{title} No. {number}</b>").format(title=_esc(title), number=_esc(payload["number"])),
        tr._("The city hall sent you a penalty notice: {description}.").format(
            description=_esc(payload["description"])),
        tr._("Fine: {amount}").format(amount=money(tr, int(payload["fine_cents"]))),
        "",
        tr._('Press "Tomo ciência" to confirm you received it. Your deadlines start on that day.'),
    ]
    days = int(payload["tacit_days"])
    if payload.get("tacit"):
        lines.append(tr.ngettext(
            "If you do not press it, you will count as notified {n} day after this message.",
            "If you do not press it, you will count as notified {n} days after this message.", days).format(n=days))
    else:
        lines.append(tr.ngettext(
            "If you do not press it within {n} day, the notice will be delivered by post.",
            "If you do not press it within {n} days, the notice will be delivered by post.", days).format(n=days))
    lines += payment_lines(payload, tr)
    text = "\n".join(lines) + small(f"{LAW_TITLES.get(payload['rulebook'], '')}, {payload['article']}")
    buttons = [
        [(tr._("✅ Tomo ciência (I received it)"), ciencia_data(int(payload["delivery_id"])))],
        [(tr._("See deadlines and options"), open_data(int(payload["notice_id"])))],
    ]
    document = (str(payload["pdf_name"]), base64.b64decode(payload["pdf_b64"]))
    return Rendered(text=text, buttons=buttons, document=document)


def window_terms(payload: dict[str, Any], tr: Translator) -> list[str]:
    """The windows a decision opens, in words with their articles (dates come with the ciência)."""
    lines = []
    for term in payload.get("windows", []):
        rule = get_rule(term["rule"])
        length = unit_phrase(tr, Unit(term["unit"]), int(term["length"]))
        if rule.id.endswith("-recurso"):
            line = tr._("You may appeal within {length} ({article}).").format(length=length, article=rule.article)
        else:
            line = tr._("Pay the fine within {length} ({article}).").format(length=length, article=rule.article)
        lines.append("• " + line)
    if payload.get("no_deposit"):
        lines.append("• " + tr._(NO_DEPOSIT))
    return lines


@renderer(DECISION)
def render_decision(payload: dict[str, Any], tr: Translator) -> Rendered:
    """A decision, its reasons, and the windows it opens from the ciência."""
    kind = tr._(FILING_LABELS[payload["filing_kind"]])
    number = _esc(payload["number"])
    granted = payload["outcome"] == FilingOutcome.GRANTED.value
    lines = [tr._("⚖️ <b>Decision on {kind} — notice {number}</b>").format(kind=_esc(kind), number=number)]
    if granted:
        lines.append(tr._("Result for {kind}: accepted. The notice is cancelled.").format(kind=_esc(kind)))
    elif payload.get("final"):
        lines.append(tr._("Result for {kind}: not accepted. The notice stands, and this decision is final.").format(
            kind=_esc(kind)))
    else:
        lines.append(tr._("Result for {kind}: not accepted. The notice stands.").format(kind=_esc(kind)))
    lines.append(f"<blockquote>{_esc(payload.get('decision_text') or '')}</blockquote>")
    if payload.get("decider"):  # issue 18 §1: every decision names its author (name, role, office, matrícula)
        author = ActAuthor.from_data(payload["decider"])
        lines.append(tr._("Decided by {author}.").format(author=_esc(author.line(tr))))
    terms = window_terms(payload, tr)
    if terms:
        lines.append(tr._("Counting from the day you confirm you received this decision:"))
        lines += terms
    lines += _where_to_act(payload, tr)
    lines.append(tr._('Press "Tomo ciência" to confirm you received it.'))
    buttons = [
        [(tr._("✅ Tomo ciência (I received it)"), ciencia_data(int(payload["delivery_id"])))],
        [(tr._("See deadlines and options"), open_data(int(payload["notice_id"])))],
    ]
    document = ((str(payload["pdf_name"]), base64.b64decode(payload["pdf_b64"])) if payload.get("pdf_b64")
                else None)  # issue 18: the signed decision; none on decisions given before this version
    return Rendered(text="\n".join(lines), buttons=buttons, document=document)


def _where_to_act(payload: dict[str, Any], tr: Translator) -> list[str]:
    """L9784 Art. 26 §1 III (where, when and how to act) and V (the process goes on), for a decision."""
    if not payload.get("office"):
        return []  # no office configured when it was decided (an issue needs one: models.notices.issuing)
    office = Office.model_validate(payload["office"])
    lines = ["• " + _esc(line) for line in where_to_act_lines(office=office, public_url=str(payload["public_url"]),
                                                               tr=tr)]
    return [*lines, _esc(goes_on_line(tr)) + small(ELEMENTS_CITATION)]


@renderer(TACIT)
def render_tacit(payload: dict[str, Any], tr: Translator) -> Rendered:
    """The person now counts as notified."""
    day = dt.date.fromisoformat(payload["on"])
    if payload.get("document") == "decision":
        text = tr._("You now count as notified of the decision on notice {number}, since {date}.")
    else:
        text = tr._("You now count as notified of notice {number}, since {date}.")
    text = text.format(number=f"<b>{_esc(payload['number'])}</b>", date=tr.date(day))
    text += "\n" + tr._("Your deadlines count from that day. See them below.")
    text += small(tr._("Tacit ciência, as in CTB Art. 282-A §2"))
    return Rendered(text=text, buttons=[[(tr._("See deadlines and options"), open_data(int(payload["notice_id"])))]])


@renderer(REMINDER, topic=DEADLINES_TOPIC.name)
def render_reminder(payload: dict[str, Any], tr: Translator) -> Rendered:
    """Days left before a window closes."""
    rule = get_rule(payload["rule"])
    final = dt.date.fromisoformat(payload["final_date"])
    words = days_left_words(tr, final, today=municipal_today(tr.tz, now=utcnow()))  # the one wording (issue 19 §2)
    lead = "⏰ " + words[:1].upper() + words[1:]
    text = tr._("{lead}: {what}, notice {number}, until {date}.").format(
        lead=lead, what=_esc(tr._(rule.description)), number=f"<b>{_esc(payload['number'])}</b>",
        date=tr.date(final))
    text += small(f"{rule.law_title}, {rule.article}")
    return Rendered(text=text, buttons=[[(tr._("Open the notice"), open_data(int(payload["notice_id"])))]])


@renderer(LIMIT_WARNING)
def render_limit_warning(payload: dict[str, Any], tr: Translator) -> Rendered:
    """To staff: deliver this notice before the 90-day limit, by post, in person or by edital."""
    final = dt.date.fromisoformat(payload["final_date"])
    left = (final - dt.datetime.now(tr.tz).date()).days
    when = (tr._("the limit has passed") if left < 0
            else tr.ngettext("{n} day left", "{n} days left", left).format(n=left))
    text = tr._("⚠️ Notice {number} has not been delivered yet. Deliver it by {date} ({when}): "
                "in person, by post with AR, or by edital.").format(
        number=f"<b>{_esc(payload['number'])}</b>", date=tr.date(final), when=when)
    text += small(tr._("Lei 1.533/2020, Art. 22 §1: 90 days, or it goes to the Dívida Ativa"))
    return Rendered(text=text, buttons=[[(tr._("Notices to deliver"), "ent:list")]])


@renderer(DECISION_WARNING)
def render_decision_warning(payload: dict[str, Any], tr: Translator) -> Rendered:
    """To its deciders: decide this reclamação (CP Art. 40; §2 after vista) or appeal (Art. 45) by its last day.

    After a reclamação's last day the person may appeal (Art. 42).
    """
    final = dt.date.fromisoformat(payload["final_date"])
    when = days_left_words(tr, final, today=municipal_today(tr.tz, now=utcnow()))
    rule = get_rule(str(payload["rule"]))
    values = {"number": f"<b>{_esc(payload['number'])}</b>", "date": tr.date(final), "when": when}
    if payload.get("filing_kind") == FilingKind.RECURSO.value:  # CP Art. 45: the second instance decides
        text = tr._("⚠️ The appeal on notice {number} must be decided by {date} ({when}).").format(**values)
        text += small(f"{rule.law_title}, {rule.article}")
    else:
        text = tr._("⚠️ The complaint on notice {number} must be decided by {date} ({when}).").format(**values)
        text += small(tr._("Código de Posturas, {article}: after it the person may appeal (Art. 42)").format(
            article=rule.article))
    return Rendered(text=text, buttons=[[(tr._("Open it"), f"dfs:fil:{int(payload['filing_id'])}")]])


async def enqueue_reminder(*, session: Any, person_id: int, notice_id: int, number: str, rule_id: str,
                           final_date: dt.date, dedupe_key: str, not_before: dt.datetime) -> bool:
    """Queue one reminder (the scan's helper)."""
    return await enqueue(session=session, person_id=person_id, kind=REMINDER, dedupe_key=dedupe_key,
                         not_before=not_before,
                         payload={"notice_id": notice_id, "number": number, "rule": rule_id,
                                  "final_date": final_date.isoformat()})
