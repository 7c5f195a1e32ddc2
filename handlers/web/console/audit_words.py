"""The audit log in words: what each recorded action, entity and detail means, in the reader's language.

The log stores dotted codes (``console.signin``, ``console_session``, ``days=None``) for machines and for
``notice verify``; a clerk reads sentences. An action without a name here (a new one) falls back to its code, and a
test (``tests/handlers/web/console/test_console_audit_words.py``) fails for a literal code the models record
unnamed.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from core.i18n import N_, Translator
from models.audit import AuditEvent

ACTIONS: dict[str, str] = {
    "api.shared_token": N_("Used the shared API key"),
    "api_token.issue": N_("Created an API key"),
    "api_token.revoke": N_("Revoked an API key"),
    "broadcast.cancel": N_("Stopped sending a broadcast"),
    "broadcast.create": N_("Created a broadcast"),
    "case.answered": N_("Answered the case"),
    "case.archived": N_("Archived the case"),
    "case.assigned": N_("Assigned the case"),
    "case.complement_answered": N_("The author sent the complement"),
    "case.complement_requested": N_("Asked the author for a complement"),
    "case.decided": N_("Decided the case"),
    "case.extended": N_("Extended the deadline"),
    "case.filed": N_("Filed the case"),
    "case.rated": N_("The author rated the answer"),
    "case.rating_explained": N_("The author said why the answer did not satisfy them"),
    "console.export": N_("Exported data"),
    "console.link": N_("Asked for a sign-in link"),
    "console.signin": N_("Signed in to the console"),
    "console.signout": N_("Signed out of the console"),
    "driver.inspection.create": N_("Recorded a vehicle inspection"),
    "driver.inspection.update": N_("Corrected a vehicle inspection"),
    "driver.import.create": N_("Imported a new driver"),
    "driver.import.update": N_("Updated a driver by import"),
    "driver.link": N_("Linked a driver to the bot"),
    "driver.link_code.create": N_("Created a driver link code"),
    "driver.sanction.cassacao": N_("Cancelled (cassou) a driver's authorization"),
    "driver.sanction.revocation": N_("Revoked a driver's authorization"),
    "driver.sanction.suspension": N_("Suspended a driver's authorization"),
    "driver.unlink": N_("Unlinked a driver from the bot"),
    "notice.decision": N_("Decided a defence or appeal"),
    "notice.delivery.edital": N_("Published the notice by edital"),
    "notice.delivery.personal": N_("Recorded delivery in person"),
    "notice.delivery.platform": N_("Recorded delivery through the platform"),
    "notice.delivery.postal": N_("Recorded delivery by post (AR)"),
    "notice.diligencia": N_("Ordered a diligence"),
    "notice.diligencia_done": N_("Recorded a diligence as done"),
    "notice.filing.defesa": N_("A defence was filed"),
    "notice.filing.reclamacao": N_("A complaint against the notice was filed"),
    "notice.filing.recurso": N_("An appeal was filed"),
    "notice.issue": N_("Issued a notice"),
    "notice.link_person": N_("Linked the notice to a person"),
    "notice.optin.accept": N_("Accepted notices in the bot"),
    "notice.optin.revoke": N_("Stopped notices in the bot"),
    "notice.paid": N_("Recorded a payment"),
    "notice.vista": N_("Opened the case file for viewing (vista)"),
    "open311.key_add": N_("Created an Open311 key"),
    "open311.key_revoke": N_("Revoked an Open311 key"),
    "person.municipality": N_("Changed a person's municipality"),
    "privacy.acknowledge": N_("Accepted the privacy notice"),
    "privacy.erase": N_("Erased personal data on request"),
    "reminders.mute": N_("Muted reminders"),
    "staff.add": N_("Gave a staff member a role"),
    "staff.update": N_("Changed a staff member's role"),
    "staff.authority": N_("Recorded a staff member's authority"),
    "staff.remove": N_("Ended a staff member's role"),
    "template.retire": N_("Stopped offering a reply template"),
    "template.add": N_("Created a reply template"),
    "template.update": N_("Changed a reply template"),
}
ENTITIES: dict[str, str] = {
    "broadcast": N_("Broadcast"),
    "citizen_case": N_("Case"),
    "console_link": N_("Sign-in link"),
    "console_session": N_("Console session"),
    "driver": N_("Driver"),
    "driver_authorization": N_("Driver's authorization"),
    "export": N_("Export"),
    "notice": N_("Notice"),
    "notice_optin": N_("Notices in the bot"),
    "open311_client": N_("Open311 key"),
    "person": N_("Person"),
    "response_template": N_("Reply template"),
    "staff_api_token": N_("API key"),
    "staff_member": N_("Staff member"),
    "vehicle_inspection": N_("Vehicle inspection"),
}
DETAILS: dict[str, str] = {
    "act": N_("act"), "amount_cents": N_("amount in cents"), "attachments": N_("files"),
    "authorization": N_("authorization"), "cancelled_messages": N_("messages not sent"), "date": N_("date"),
    "days": N_("days"), "delivery_id": N_("delivery"), "due_on": N_("due on"), "expires_at": N_("expires at"),
    "fields": N_("fields"), "files": N_("files"), "filing_id": N_("filing"), "final": N_("final"),
    "format": N_("format"), "infraction": N_("infraction"), "kept": N_("kept"), "line": N_("line"),
    "locales": N_("languages"), "method": N_("method"), "moved_from_person": N_("moved from person"),
    "moved_to_staff": N_("moved to staff"), "municipality": N_("municipality"), "name": N_("name"),
    "number": N_("number"), "office": N_("office"), "on": N_("on"), "outcome": N_("outcome"), "path": N_("path"),
    "person_id": N_("person"), "platform_delivery_id": N_("platform delivery"), "protocol": N_("protocol"),
    "published_on": N_("published on"), "result": N_("result"), "role": N_("role"),
    "satisfaction": N_("satisfaction"), "side": N_("side"), "since": N_("since"), "source": N_("source"),
    "staff_id": N_("staff member"), "status": N_("status"), "telegram_user_id": N_("Telegram id"),
    "terms_version": N_("terms version"), "title": N_("title"), "topic": N_("topic"), "type": N_("type"),
    "until": N_("until"), "vehicle_id": N_("vehicle"), "with_cpf": N_("with CPF"),
}
ACTORS: dict[str, str] = {
    "author": N_("the author"), "system": N_("the system"), "cli": N_("the command line"), "api": N_("the API"),
}


@dataclass(frozen=True, slots=True)
class EventInWords:
    """One audit entry as the console shows it."""

    at: dt.datetime
    actor: str
    action: str
    entity: str
    details: str


def _value(tr: Translator, value: object) -> str:
    if value is None:
        return "—"  # a fact the event did not have
    if isinstance(value, bool):
        return tr._("yes") if value else tr._("no")
    if isinstance(value, int | float):
        return tr.number(value)
    if isinstance(value, list | tuple):
        return tr.names(str(item) for item in value) if value else tr._("none")
    return str(value)


def _actor(tr: Translator, actor: str) -> str:
    kind, _, key = actor.partition(":")
    if kind == "staff" and key:
        return tr._("staff member {id}").format(id=key)
    if kind == "person" and key:
        return tr._("person {id}").format(id=key)
    return tr._(ACTORS[actor]) if actor in ACTORS else actor


def in_words(tr: Translator, event: AuditEvent) -> EventInWords:
    """An audit event in the reader's words (codes without a name here are shown as they are)."""
    details = "; ".join(
        f"{tr._(DETAILS[key]) if key in DETAILS else key}: {_value(tr, value)}"
        for key, value in event.details.items())
    entity = tr._(ENTITIES[event.entity]) if event.entity in ENTITIES else event.entity
    return EventInWords(
        at=event.at, actor=_actor(tr, event.actor),
        action=tr._(ACTIONS[event.action]) if event.action in ACTIONS else event.action,
        entity=f"{entity} {event.entity_id}".strip(), details=details,
    )
