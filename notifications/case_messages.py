"""How the messages about citizens' cases read: to the author (each step of their case) and to staff.

Rendered at send time in the reader's language. Payloads come from :mod:`models.cases.timeline`; they never
hold the author's identity. The author's messages cannot be muted (they are about their own case).
"""

from __future__ import annotations

import datetime as dt
import html
from typing import Any

from core.i18n import Translator
from models.authorities import ActAuthor
from models.cases.labels import KIND_LABELS, SATISFACTION_LABELS, STATUS_LABELS
from models.cases.tables import CaseKind, CaseStatus, Satisfaction
from models.cases.timeline import CITIZEN_UPDATE, STAFF_NOTICE
from models.columns import utcnow
from models.days_left import days_left_words
from models.when import municipal_today
from notifications.rendering import Rendered, renderer
from notifications.telegram_text import small


def _esc(value: object) -> str:
    return html.escape(str(value), quote=False)


def _date(payload: dict[str, Any], key: str) -> dt.date | None:
    value = payload.get(key)
    return dt.date.fromisoformat(value) if value else None


def _days_left(tr: Translator, day: dt.date) -> str:
    """The one wording (:mod:`models.days_left`), today being the reader's civil day at rendering time."""
    return days_left_words(tr, day, today=municipal_today(tr.tz, now=utcnow()))



def _decided(payload: dict[str, Any], tr: Translator) -> str:
    protocol = _esc(payload["protocol"])
    status = CaseStatus(payload["status"])
    if status is CaseStatus.NOTIFIED:
        text = tr._("Your report {protocol} was checked: the person responsible will be notified to put it right.")
    elif status is CaseStatus.AUTO_ISSUED:
        text = tr._("Your report {protocol} was checked: an infraction report (auto de infração) was drawn up.")
    else:
        text = tr._("Your report {protocol} was checked and archived.")
    text = text.format(protocol=f"<b>{protocol}</b>")
    if payload.get("note") and status is CaseStatus.ARCHIVED:
        text += "\n" + tr._("Reason: {reason}").format(reason=_esc(payload["note"]))
    elif payload.get("note"):  # notify / auto: a note for the author, not a reason
        text += "\n" + tr.pgettext("decision", "Note: {note}").format(note=_esc(payload["note"]))
    if payload.get("kind") == CaseKind.REPRESENTATION.value:
        text += small(tr._("Código de Posturas, Art. 32"))
    text += "\n" + tr._("Your name is never shown to the person reported.")
    return text


@renderer(CITIZEN_UPDATE)
def render_case_update(payload: dict[str, Any], tr: Translator) -> Rendered:
    """A step of the author's case: started, more information needed, extended, decided, answered, archived."""
    case_id = int(payload["case_id"])
    protocol = f"<b>{_esc(payload['protocol'])}</b>"
    event = payload["event"]
    see = [(tr._("See the case"), f"acomp:case:{case_id}")]
    if event == "assigned":
        text = tr._("A staff member is now handling your case {protocol}.").format(protocol=protocol)
        return Rendered(text=text, buttons=[see])
    if event in ("complement_requested", "complement_reminder"):
        due = _date(payload, "complement_due_on")
        lead = (
            tr._("The city hall needs more information about your case {protocol}:")
            if event == "complement_requested"
            else tr._("Reminder: the city hall is still waiting for your answer about {protocol}:")
        )
        text = lead.format(protocol=protocol) + f"\n\n<i>{_esc(payload.get('note') or '')}</i>\n\n"
        if due is not None:
            text += tr._("Please answer by {date} ({left}). Without an answer, the case may be archived.").format(
                date=tr.date(due), left=_days_left(tr, due)
            )
        # issue 20 §3: a municipal screen cites no federal decree to the citizen (the 20 days: LEGAL-CHOICES #74)
        text += small(tr._("Lei nº 9.784/1999, Art. 39 and 40"))
        return Rendered(text=text, buttons=[[(tr._("Answer now"), f"acomp:compl:{case_id}")], see])
    if event == "extended":
        due = _date(payload, "due_on")
        text = tr._("The deadline to answer your case {protocol} was extended to {date}.").format(
            protocol=protocol, date=tr.date(due) if due else ""
        )
        text += "\n" + tr._("Reason: {reason}").format(reason=_esc(payload.get("note") or ""))
        text += small(tr._("Lei 13.460/2017, Art. 16"))
        return Rendered(text=text, buttons=[see])
    if event == "decided":
        return Rendered(text=_decided(payload, tr), buttons=[see])
    if event == "answered":
        text = tr._("The Ouvidoria answered your case {protocol}:").format(protocol=protocol)
        text += f"\n\n{_esc(payload.get('note') or '')}\n\n"
        if payload.get("author"):  # issue 18 §1: the answer names its author, the Ouvidor
            text += tr._("Answered by {author}.").format(author=_esc(ActAuthor.from_data(payload["author"]).line(tr)))
            text += "\n\n"
        text += tr._("Were you satisfied with the answer?")
        text += small(tr._("Lei 13.460/2017, Art. 23"))
        rating = [(tr._(SATISFACTION_LABELS[s]), f"acomp:sat:{case_id}:{s.value}") for s in Satisfaction]
        return Rendered(text=text, buttons=[rating, see])
    if event == "archived":
        text = tr._("Your case {protocol} was archived.").format(protocol=protocol)
        text += "\n" + tr._("Reason: {reason}").format(reason=_esc(payload.get("note") or ""))
        return Rendered(text=text, buttons=[see])
    status = CaseStatus(payload["status"])
    text = tr._("Your case {protocol} is now: {status}.").format(protocol=protocol, status=tr._(STATUS_LABELS[status]))
    return Rendered(text=text, buttons=[see])


@renderer(STAFF_NOTICE)
def render_staff_notice(payload: dict[str, Any], tr: Translator) -> Rendered:
    """Work for staff on a case: a new one, an assignment, the author's answer, a deadline, a lapsed period."""
    case_id = int(payload["case_id"])
    protocol = f"<b>{_esc(payload['protocol'])}</b>"
    kind = tr._(KIND_LABELS[CaseKind(payload["kind"])])
    due = _date(payload, "due_on")
    what = payload["what"]
    if what == "new":
        text = tr._("New case in your queue: {protocol} ({kind}).").format(protocol=protocol, kind=_esc(kind))
        if due is not None:
            text += "\n" + tr._("Due by {date} ({left}).").format(date=tr.date(due), left=_days_left(tr, due))
    elif what == "assigned":
        text = tr._("The case {protocol} was assigned to you.").format(protocol=protocol)
    elif what == "complement_answered":
        text = tr._("The author sent the information asked for on {protocol}.").format(protocol=protocol)
    elif what == "complement_lapsed":
        lapsed = _date(payload, "complement_due_on")
        text = tr._("The period to complete {protocol} ended on {date} without an answer: you may archive it.").format(
            protocol=protocol, date=tr.date(lapsed) if lapsed else ""
        )
        text += small(tr._("Decreto 9.492/2018, Art. 18"))
    else:
        text = tr._("Deadline coming: {protocol} is due by {date} ({left}).").format(
            protocol=protocol, date=tr.date(due) if due else "", left=_days_left(tr, due) if due else ""
        )
    return Rendered(text=text, buttons=[[(tr._("Open the case"), f"pend:case:{case_id}")]])
