"""What the transparency log covers: every table whose rows carry a legal effect, and how a row becomes a leaf.

A leaf is the state of one row after a commit, as canonical JSON (sorted keys, no spaces, UTF-8)::

    {"id": 7, "row": {"ciencia_at": "2026-03-02T15:00:00+00:00", "ciencia_kind": "EXPLICIT", ...},
     "t": "notice_delivery", "v": 1}

(``"row": null`` when the row was removed through the application). Values are taken from the database as
stored: enums by their stored name, moments as ISO 8601 in UTC, days as ISO dates, JSON as JSON. Free text and
personal data (names, CPF, address, facts, petitions, file names) and binary content (the PDF, an attachment)
enter as the SHA-256 of their bytes, so a leaf shown to the holder of a notice's code reveals nothing the
paper does not, yet any change to them changes the leaf. A column not listed here must be listed in
:data:`NOT_COVERED` with the reason (a test checks that every column of a covered table is one or the other).
A migration that adds or fills a covered column calls :func:`models.tlog.appending.backfill` after its change,
so the rows it changed get their new leaf.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import Boolean, Date, LargeBinary, TableClause, column, table
from sqlalchemy.types import TypeEngine

from models.columns import JSONData, UTCDateTime

Kind = Literal["value", "moment", "day", "flag", "text_digest", "bytes_digest", "json"]
VERSION = 1

_TYPES: dict[Kind, TypeEngine[Any] | None] = {
    "value": None, "text_digest": None, "moment": UTCDateTime(), "day": Date(), "flag": Boolean(),
    "bytes_digest": LargeBinary(), "json": JSONData,
}


@dataclass(frozen=True, slots=True)
class Covered:
    """A covered table and how each of its columns enters a leaf."""

    name: str
    columns: dict[str, Kind]

    def clause(self) -> TableClause:
        """A lightweight table of exactly these columns (independent of later model changes)."""
        return table(self.name, column("id"), *(column(name, _TYPES[kind]) for name, kind in self.columns.items()))


def _text(*names: str) -> dict[str, Kind]:
    return dict.fromkeys(names, "text_digest")


COVERED: dict[str, Covered] = {
    spec.name: spec
    for spec in (
        Covered("notice", {
            "number": "value", "type": "value", "rulebook": "value", "infraction_code": "value",
            "infraction_article": "value", **_text("infraction_description", "offender_name", "offender_document",
                                                  "offender_address", "place", "facts", "witnesses", "penalties"),
            "person_id": "value", "drawn_up_at": "moment", "inspection_term": "value", "issuer_name": "value",
            "issuer_telegram_id": "value", "fine_cents": "value", "fine_units": "value", "fine_unit": "value",
            "recidivist": "flag", "defence_days": "value", "case_id": "value", "preliminar_id": "value",
            "code_hash": "value", "pdf": "bytes_digest", "pdf_sha256": "value", "issued_at": "moment",
            "stage": "value", "outcome": "value", "recidivism_of": "value", "infraction_on": "day",
            "quantity": "value", "warning_only": "flag", "payment_days": "value", "municipality": "value",
            "signer": "json", "signed_at": "moment",
        }),
        Covered("notice_delivery", {
            "notice_id": "value", "document": "value", "filing_id": "value", "state": "value",
            "staff_reason": "value", "sent_at": "moment", "edital_published_on": "day", "ciencia_at": "moment",
            "ciencia_on": "day", "ciencia_kind": "value", "created_at": "moment",
        }),
        Covered("notice_filing", {
            "notice_id": "value", "kind": "value", "text": "text_digest", "person_id": "value",
            "filed_by": "value", "filed_at": "moment", "decided_at": "moment", "decided_by": "value",
            "outcome": "value", "decision_text": "text_digest", "vista_first_on": "day",
            "vista_second_on": "day", "diligencia_text": "text_digest", "diligencia_at": "moment",
            "diligencia_done_at": "moment", "decider": "json",
        }),
        Covered("notice_attachment", {
            "person_id": "value", "filing_id": "value", "file_name": "text_digest", "mime_type": "value",
            "size": "value", "sha256": "value", "content": "bytes_digest", "created_at": "moment",
        }),
        Covered("notice_optin", {
            "person_id": "value", "terms_version": "value", "cpf": "text_digest", "accepted_at": "moment",
            "revoked_at": "moment",
        }),
        Covered("notice_event", {
            "notice_id": "value", "seq": "value", "at": "moment", "kind": "value", "actor": "value",
            "data": "json",
        }),
        Covered("audit_event", {
            "at": "moment", "actor": "value", "action": "value", "entity": "value", "entity_id": "value",
            "details": "json",
        }),
    )
}
"""Every covered table, in the order the migration backfills them."""

NOT_COVERED: dict[tuple[str, str], str] = {
    ("notice_delivery", "outbox_key"): "the dedupe key of the outbox message; it has no legal effect",
}
"""Columns of covered tables deliberately left out, with the reason."""


def _value(kind: Kind, value: Any) -> Any:
    if value is None:
        return None
    if kind == "moment":
        assert isinstance(value, dt.datetime)
        return value.astimezone(dt.UTC).isoformat()
    if kind == "day":
        assert isinstance(value, dt.date)
        return value.isoformat()
    if kind == "flag":
        return bool(value)
    if kind == "text_digest":
        return hashlib.sha256(str(value).encode("utf-8")).hexdigest()
    if kind == "bytes_digest":
        return hashlib.sha256(bytes(value)).hexdigest()
    if kind == "json":
        return json.loads(json.dumps(value, sort_keys=True))
    return value


def row_values(spec: Covered, row: Mapping[Any, Any]) -> dict[str, Any]:
    """The leaf's ``row`` object for a row read through :meth:`Covered.clause`."""
    return {name: _value(kind, row[name]) for name, kind in spec.columns.items()}


def canonical(value: Any) -> bytes:
    """Canonical JSON bytes: sorted keys, no spaces, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def leaf_data(table_name: str, row_id: int, values: dict[str, Any] | None) -> bytes:
    """The bytes of one leaf: the row's values, or ``None`` for a row removed through the application."""
    return canonical({"v": VERSION, "t": table_name, "id": row_id, "row": values})


def parse_leaf(data: bytes) -> tuple[str, int, dict[str, Any] | None]:
    """``(table, row id, values)`` of a leaf.

    Raises:
        ValueError: not a leaf of this log.
    """
    try:
        parsed = json.loads(data.decode("utf-8"))
        if parsed["v"] != VERSION or not isinstance(parsed["t"], str) or not isinstance(parsed["id"], int):
            raise ValueError("unknown leaf version")
        values = parsed["row"]
        if values is not None and not isinstance(values, dict):
            raise ValueError("row is not an object")
        return parsed["t"], parsed["id"], values
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValueError(f"not a leaf: {exc}") from exc
