"""The readable copy of a person's data (LGPD Art. 18 II): the JSON export laid out as a PDF in their language.

The JSON file stays the machine-readable original (English keys, ISO 8601 times with their offset); this PDF
shows the same document to a person: each key by its name in their language, each time in the deployment's
time zone ("4 de janeiro de 2027 14:30"), kinds and statuses in words. A key without a label yet is shown as it
is rather than dropped, so nothing held is ever left out of the readable copy.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from typing import Any

from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Paragraph, Spacer, Table, TableStyle

from core.i18n import N_, Translator
from models.cases.labels import (
    EVENT_LABELS,
    KIND_LABELS,
    OMBUDSMAN_TYPE_LABELS,
    OUTCOME_LABELS,
    RELATION_LABELS,
    SATISFACTION_LABELS,
    STATUS_LABELS,
)
from models.cases.receipt_pdf import pdf_text
from models.pdf_layout import a4_pdf
from models.people import ROLE_LABELS

SECTIONS: dict[str, str] = {
    "person": N_("You"),
    "staff": N_("Your role at the city hall"),
    "form_in_progress": N_("Form in progress"),
    "cases": N_("Your cases"),
    "driver": N_("Your driver registration"),
    "notices": N_("Notices addressed to you"),
    "muted_reminders": N_("Reminders you turned off"),
    "messages_sent_to_you": N_("Messages sent to you"),
}
LABELS: dict[str, str] = {
    "telegram_user_id": N_("Telegram id"), "first_name": N_("Name in Telegram"), "language": N_("Language"),
    "first_contact": N_("First contact"), "privacy_accepted_at": N_("Privacy notice read"),
    "erased_at": N_("Personal data deleted"), "role": N_("Role"), "name": N_("Name"), "active": N_("Active"),
    "form": N_("Form"), "step": N_("Step"), "answers": N_("Answers so far"), "protocol": N_("Protocol"),
    "kind": N_("Kind"), "ombudsman_type": N_("Type of message"), "status": N_("Status"),
    "received_at": N_("Received on"), "due_on": N_("Due by"), "what_happened": N_("What happened"),
    "infraction_code": N_("Infraction"), "legal_refs": N_("Legal basis"), "accused": N_("Who is responsible"),
    "place": N_("Where"), "latitude": N_("Latitude"), "longitude": N_("Longitude"), "occurred_on": N_("When"),
    "evidence": N_("Evidence"), "how_you_learned": N_("How you learned of it"),
    "relation_to_accused": N_("Your relation to the person reported"), "relation_ended_on": N_("Relation ended on"),
    "identity_restricted": N_("Name restricted to the Ombudsman"), "author": N_("Author"),
    "profession": N_("Profession"), "address": N_("Address"), "cpf": N_("CPF"),
    "complement_question": N_("Question from the city hall"), "complement_answer": N_("Your answer"),
    "extension_reason": N_("Reason for the extension"), "outcome": N_("Decision"),
    "outcome_reason": N_("Reason for the decision"), "answer": N_("Answer to you"),
    "satisfaction": N_("Your rating"), "timeline": N_("Timeline"), "at": N_("When"), "event": N_("What happened"),
    "note": N_("Note"), "files": N_("Files"), "type": N_("Type"), "size": N_("Size (bytes)"),
    "sha256": N_("SHA-256 fingerprint"), "phone": N_("Phone"), "cnh_category": N_("CNH category"),
    "cnh_issued_on": N_("CNH issued on"), "linked_at": N_("Linked on"), "authorization": N_("Authorization"),
    "number": N_("Number"), "valid_until": N_("Valid until"), "plate": N_("Plate"), "model_year": N_("Model year"),
    "issued_at": N_("Issued on"), "stage": N_("Stage"), "created_at": N_("Written on"), "sent_at": N_("Sent on"),
}
_WORDS: dict[str, Mapping[str, str]] = {
    "kind": {kind.value: label for kind, label in KIND_LABELS.items()},
    "status": {status.value: label for status, label in STATUS_LABELS.items()},
    "event": {event.value: label for event, label in EVENT_LABELS.items()},
    "ombudsman_type": {kind.value: label for kind, label in OMBUDSMAN_TYPE_LABELS.items()},
    "outcome": {outcome.value: label for outcome, label in OUTCOME_LABELS.items()},
    "relation_to_accused": {relation.value: label for relation, label in RELATION_LABELS.items()},
    "satisfaction": {rating.value: label for rating, label in SATISFACTION_LABELS.items()},
    "role": {role.value: label for role, label in ROLE_LABELS.items()},
}
"""Code words of the export by key, with their names; the caller adds those of the outer layers (``words``)."""


def _value(key: str, value: Any, tr: Translator, words: Mapping[str, Mapping[str, str]] = _WORDS) -> str:
    if value is None or value == "" or value == []:
        return "—"
    if key == "language" and isinstance(value, str):
        return tr.language_name(value)
    if isinstance(value, bool):
        return tr._("yes") if value else tr._("no")
    if isinstance(value, str) and (key.endswith("_at") or key in ("at", "first_contact")):
        return tr.moment(dt.datetime.fromisoformat(value))
    if isinstance(value, str) and key.endswith(("_on", "_until")):
        return tr.date(dt.date.fromisoformat(value))
    if isinstance(value, str) and value in words.get(key, {}):
        return tr._(words[key][value])
    if isinstance(value, list):
        return "; ".join(_value(key, item, tr, words) for item in value)
    if isinstance(value, dict):
        return "; ".join(f"{_label(inner, tr)}: {_value(inner, item, tr, words)}" for inner, item in value.items())
    return str(value)


def _label(key: str, tr: Translator) -> str:
    return tr._(LABELS[key]) if key in LABELS else key


def _table(record: Mapping[str, Any], tr: Translator, style: Any, words: Mapping[str, Mapping[str, str]]) -> Table:
    rows = [[Paragraph(pdf_text(_label(key, tr)), style), Paragraph(pdf_text(_value(key, value, tr, words)), style)]
            for key, value in record.items() if not isinstance(value, list | dict) or key in ("legal_refs",)]
    nested = [(key, value) for key, value in record.items() if isinstance(value, list | dict) and key != "legal_refs"]
    for key, value in nested:
        items = value if isinstance(value, list) else [value]
        text = "<br/>".join(pdf_text(_value(key, item, tr, words)) for item in items) if items else "—"
        rows.append([Paragraph(pdf_text(_label(key, tr)), style), Paragraph(text, style)])
    table = Table(rows, colWidths=[55 * mm, 115 * mm])
    table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
                               ("LINEBELOW", (0, 0), (-1, -1), 0.25, "#cccccc")]))
    return table


def _section(key: str, content: Any, tr: Translator, styles: Any, words: Mapping[str, Mapping[str, str]]
             ) -> Iterator[Flowable]:
    yield Paragraph(pdf_text(tr._(SECTIONS[key]) if key in SECTIONS else key), styles["Heading2"])
    records = [] if content is None else content if isinstance(content, list) else [content]
    if not records:  # "Nada." alone: an empty section printed "None" under it
        yield Paragraph(pdf_text(tr._("Nothing.")), styles["Normal"])
    for record in records:
        if isinstance(record, dict):
            yield _table(record, tr, styles["Normal"], words)
            yield Spacer(1, 3 * mm)
        else:
            yield Paragraph(pdf_text(_value(key, record, tr, words)), styles["Normal"])


def build_data_export_pdf(document: Mapping[str, Any], *, tr: Translator, municipality: str,
                          words: Mapping[str, Mapping[str, str]] | None = None, encarregado: str = "") -> bytes:
    """The person's data export as a readable PDF.

    Args:
        document: what :func:`models.cases.privacy.export_personal_data` returned.
        tr: the person's translator (their language, the deployment's time zone).
        municipality: the city hall's municipality name.
        words: more code words by key, with their msgids: those the outer layers name (message kinds, reminder
            topics, forms), added to the domain's own.
        encarregado: who answers for the personal data (LGPD Art. 41 §1; :mod:`models.encarregado`).

    Returns:
        The PDF bytes.
    """
    styles = getSampleStyleSheet()
    generated = dt.datetime.fromisoformat(document["generated_at"])
    story: list[Flowable] = [
        Paragraph(pdf_text(tr._("City hall of {city}").format(city=municipality)), styles["Title"]),
        Paragraph(pdf_text(tr._("Your data at Balcão")), styles["Heading1"]),
        Paragraph(pdf_text(tr._("Made on {moment}. The attached JSON file has the same data for computers.").format(
            moment=tr.moment(generated))), styles["Normal"]),
        Paragraph(pdf_text(tr._("LGPD, Art. 18")), styles["Italic"]),
        Spacer(1, 4 * mm),
    ]
    known = {key: {**_WORDS.get(key, {}), **(words or {}).get(key, {})} for key in {*_WORDS, *(words or {})}}
    for key, content in document.items():
        if key not in ("format", "generated_at"):
            story += list(_section(key, content, tr, styles, known))
    if encarregado:  # LGPD Art. 41 §1
        story += [Spacer(1, 4 * mm), Paragraph(pdf_text(encarregado), styles["Italic"])]
    return a4_pdf(story, title=tr._("Your data at Balcão"), author=municipality)
