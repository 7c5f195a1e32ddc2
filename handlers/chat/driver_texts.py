"""The texts of /situacao (Lei 1.533/2020): the short answer, the facts behind "Details", and every step to take.

Pure rendering (a :class:`models.drivers.registry.DriverSituation` and a translator in, HTML out), apart from the
screens and the link in :mod:`handlers.chat.drivers`.
"""

from __future__ import annotations

from core.i18n import N_, Translator
from handlers.chat.replies import esc
from models.days_left import days_words
from models.drivers.registry import DriverSituation
from models.drivers.status import (
    ARTICLES,
    LAW,
    RULE_ANNUAL_INSPECTION,
    RULE_VALIDITY,
    RULE_VEHICLE_AGE,
    STATE_MESSAGES,
    STATUS_LABELS,
    AuthorizationStatus,
    StatusKind,
    Step,
    StepCode,
)
from models.drivers.tables import InspectionResult


def legal(article: str) -> str:
    """An article of Lei 1.533/2020 in small italics."""
    return f"<i>{LAW}, {esc(article)}</i>"


def _state_line(tr: Translator, status: AuthorizationStatus) -> str:
    """What the state means, with its date and days left."""
    kind, until = status.kind, status.until
    if kind in STATE_MESSAGES and until is not None:
        return tr._(STATE_MESSAGES[kind]).format(date=tr.date(until), left=days_words(tr, status.days_left or 0))
    if kind in (StatusKind.ACTIVE, StatusKind.EXPIRING_SOON) and until is not None:
        return tr._("Valid until {date} ({left}).").format(
            date=tr.date(until), left=days_words(tr, status.validity_days_left)
        )
    if kind is StatusKind.EXPIRED and until is not None:
        return tr._("It ended on {date}.").format(date=tr.date(until))
    if kind is StatusKind.AWAITING_INSPECTION and until is not None and status.days_left is not None:
        return tr._("The vehicle has not passed an inspection yet: present it by {date} ({left}).").format(
            date=tr.date(until), left=days_words(tr, status.days_left)
        )
    if kind is StatusKind.SUSPENDED and until is not None and status.days_left is not None:
        return tr._("Suspended until {date} ({left}).").format(
            date=tr.date(until), left=days_words(tr, status.days_left)
        )
    if kind is StatusKind.REVOKED:
        return tr._("The city hall revoked this authorization.")
    return tr._("The city hall cancelled this authorization (cassação).")


def step_text(tr: Translator, step: Step, status: AuthorizationStatus) -> str:
    """One thing to do, in plain words, with its deadline."""
    code, deadline = step.code, step.deadline
    date = tr.date(deadline) if deadline is not None else ""
    left = days_words(tr, step.days_left) if step.days_left is not None else ""
    if code is StepCode.CONTACT_OFFICE:
        return tr._("Talk to the city hall to know what you can do.")
    if code is StepCode.WAIT_SUSPENSION:
        return tr._("Wait for the suspension to end: it lasts until {date} ({left}).").format(date=date, left=left)
    if code is StepCode.REPORT_CHANGES:
        return tr._("If your phone, address, CNH or vehicle changes, tell the city hall within 7 days.")
    if step.overdue:
        overdue = {
            StepCode.PRESENT_VEHICLE: N_("Present your vehicle for inspection: the deadline ended on {date}."),
            StepCode.FIX_INSPECTION: N_("Fix your vehicle and present it again: the deadline ended on {date}. "
                                        "It may not serve until it passes."),
            StepCode.ANNUAL_INSPECTION: N_("Do the yearly inspection: it was due on {date}."),
            StepCode.RENEW: N_("Renew your authorization: it ended on {date}."),
            StepCode.REPLACE_VEHICLE: N_("Replace your vehicle: it passed the age limit on {date}."),
        }
        return tr._(overdue[code]).format(date=date)
    upcoming = {
        StepCode.PRESENT_VEHICLE: N_("Present your vehicle for inspection by {date} ({left})."),
        StepCode.FIX_INSPECTION: N_("Fix what failed the inspection and present the vehicle again by {date} ({left})."),
        StepCode.ANNUAL_INSPECTION: N_("Do the yearly inspection by {date} ({left})."),
        StepCode.RENEW: N_("Renew your authorization (pay the fees) by {date} ({left})."),
        StepCode.REPLACE_VEHICLE: N_("Replace your vehicle by {date}: it reaches the age limit ({left})."),
    }
    text = tr._(upcoming[code]).format(date=date, left=left)
    office_day = status.renew_by if code is StepCode.RENEW else status.inspection.inspect_by
    if code in (StepCode.RENEW, StepCode.ANNUAL_INSPECTION) and office_day is not None and office_day != deadline:
        text += " " + tr._("The office is closed that day: go by {date}.").format(date=tr.date(office_day))
    return text


HEADLINE_STEPS = {StatusKind.EXPIRED: StepCode.RENEW, StatusKind.SUSPENDED: StepCode.WAIT_SUSPENSION}
"""The step that answers the state itself, shown first whatever the dates of the others."""


def _headline_step(status: AuthorizationStatus) -> Step:
    wanted = HEADLINE_STEPS.get(status.kind)
    return next((step for step in status.next_steps if step.code is wanted), status.next_steps[0])


def summary_text(tr: Translator, situation: DriverSituation) -> str:
    """The short answer to "is my authorization valid?": state, validity, may I work today, what next."""
    status = situation.status
    lines = [
        tr._("<b>Authorization nº {number}</b> — {state}").format(
            number=esc(situation.authorization_number), state=esc(tr._(STATUS_LABELS[status.kind]))
        ),
        esc(_state_line(tr, status)),
        tr._("✅ You may drive for the apps today.") if status.may_serve
        else tr._("⛔ You may not drive for the apps today."),
    ]
    first = _headline_step(status)
    if first.code is not StepCode.REPORT_CHANGES:
        lines.append(tr._("<b>Next:</b> {step}").format(step=esc(step_text(tr, first, status))))
    lines.append(legal(status.article))
    return "\n".join(lines)


def details_text(tr: Translator, situation: DriverSituation, office: str) -> str:
    """The facts behind /situacao, one short line each, the articles in one small line at the end.

    What to do, step by step with each article, is one button further (:func:`steps_text`).
    """
    status = situation.status
    lines = [
        tr._("<b>Driver:</b> {name} (CPF {cpf})").format(name=esc(situation.name), cpf=esc(situation.cpf_masked)),
        tr._("<b>Authorization nº {number}</b> — {state}").format(
            number=esc(situation.authorization_number), state=esc(tr._(STATUS_LABELS[status.kind]))
        ),
    ]
    articles = [ARTICLES[RULE_VALIDITY]]
    if status.kind in (StatusKind.ACTIVE, StatusKind.EXPIRING_SOON):  # the validity, said once
        lines.append(esc(tr._("Valid for 12 months from the payment of the fees, until {date} ({left}).").format(
            date=tr.date(status.valid_until), left=days_words(tr, status.validity_days_left)
        )))
    else:
        lines.append(esc(_state_line(tr, status)))
        articles.append(status.article)
    lines += [
        tr._("<b>Vehicle</b> {plate}, model {year}").format(plate=esc(situation.plate), year=situation.model_year),
        esc(tr._("It may serve until {date} (5 years of use, counted to 31 December).").format(
            date=tr.date(status.vehicle_last_day)
        )),
    ]
    articles.append(ARTICLES[RULE_VEHICLE_AGE])
    inspection = status.inspection
    if inspection.last_on is None:
        lines.append(esc(tr._("No inspection yet.")))
    else:
        result = tr._("approved") if inspection.last_result is InspectionResult.APPROVED else tr._("not approved")
        lines.append(esc(tr._("Last inspection: {date}, {result}.").format(date=tr.date(inspection.last_on),
                                                                             result=result)))
    if inspection.due_on is not None and inspection.days_left is not None:
        lines.append(esc(tr._("Next yearly inspection by {date} ({left}).").format(
            date=tr.date(inspection.due_on), left=days_words(tr, inspection.days_left)
        )))
    articles.append(ARTICLES[RULE_ANNUAL_INSPECTION])
    lines.append(tr._("<b>Where:</b> {office}").format(office=esc(office)))
    lines.append(legal("; ".join(dict.fromkeys(articles))))
    return "\n".join(lines)


def steps_text(tr: Translator, situation: DriverSituation, office: str) -> str:
    """What to do, one step per line with its deadline, each followed by its article."""
    status = situation.status
    lines = [tr._("<b>What to do</b>")]
    for step in status.next_steps:
        lines.append(f"• {esc(step_text(tr, step, status))}")
        lines.append(f"  {legal(step.article)}")
    lines.append(tr._("<b>Where:</b> {office}").format(office=esc(office)))
    return "\n".join(lines)
