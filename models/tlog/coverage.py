"""What the transparency log covers: every table whose rows carry a legal effect, and how a row becomes a leaf.

A leaf is the state of one row after a commit, as canonical JSON (sorted keys, no spaces, UTF-8)::

    {"id": 7, "row": {"ciencia_at": "2026-03-02T15:00:00+00:00", "ciencia_kind": "EXPLICIT", ...},
     "t": "notice_delivery", "v": 1}

(``"row": null`` when the row was removed through the application). Values are taken from the database as
stored: enums by their stored name, moments as ISO 8601 in UTC, days as ISO dates, JSON as JSON. Binary content
(the PDF, an attachment) enters as the SHA-256 of its bytes.

Two leaf versions (issue 23, item 2): a notice's leaf is public to the holder of its code
(``/verificar/<code>/prova.json``), and in version 1 free text and personal data (names, CPF, address, facts)
entered as their plain SHA-256 — a CPF has ~10⁹ values, so its digest gave it away — and the ids of the
person, the case and the inspector's Telegram account in clear. Version 2 (written whenever a leaf key is
installed, :func:`use_leaf_key`) enters them as HMAC-SHA256 under a server secret the public never sees
(kinds ``text_digest`` and ``private``). Version 1 leaves already in the log stay valid: a row is compared with
its latest leaf in that leaf's own version, and the first change after the upgrade (or migration 0011's
backfill) gives every row a version-2 leaf. A column not listed here must be listed in
:data:`NOT_COVERED` with the reason (a test checks that every column of a covered table is one or the other).
A migration that adds or fills a covered column calls :func:`models.tlog.appending.backfill` after its change,
so the rows it changed get their new leaf.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import Boolean, Date, LargeBinary, TableClause, column, table
from sqlalchemy.types import TypeEngine

from models.columns import JSONData, UTCDateTime

Kind = Literal["value", "moment", "day", "flag", "text_digest", "bytes_digest", "json", "private"]
VERSION = 2
VERSIONS = (1, 2)

TYPES: dict[Kind, TypeEngine[Any] | None] = {
    "value": None, "text_digest": None, "private": None, "moment": UTCDateTime(), "day": Date(), "flag": Boolean(),
    "bytes_digest": LargeBinary(), "json": JSONData,
}


@dataclass(frozen=True, slots=True)
class Covered:
    """A covered table and how each of its columns enters a leaf."""

    name: str
    columns: dict[str, Kind]

    def clause(self) -> TableClause:
        """A lightweight table of exactly these columns (independent of later model changes)."""
        return table(self.name, column("id"), *(column(name, TYPES[kind]) for name, kind in self.columns.items()))


def _text(*names: str) -> dict[str, Kind]:
    return dict.fromkeys(names, "text_digest")


COVERED: dict[str, Covered] = {
    spec.name: spec
    for spec in (
        Covered("notice", {
            "number": "value", "type": "value", "rulebook": "value", "infraction_code": "value",
            "infraction_article": "value", **_text("infraction_description", "offender_name", "offender_document",
                                                  "offender_address", "place", "facts", "witnesses", "penalties"),
            "person_id": "private", "drawn_up_at": "moment", "inspection_term": "value", "issuer_name": "value",
            "issuer_telegram_id": "private", "fine_cents": "value", "fine_units": "value", "fine_unit": "value",
            "recidivist": "flag", "defence_days": "value", "case_id": "private", "preliminar_id": "private",
            "code_hash": "value", "pdf": "bytes_digest", "pdf_sha256": "value", "issued_at": "moment",
            "stage": "value", "outcome": "value", "recidivism_of": "private", "infraction_on": "day",
            "quantity": "value", "warning_only": "flag", "payment_days": "value", "municipality": "value",
            "infringed_provision": "value", "issuer_authority": "value", "platform_name": "value",
            # the signer's record names the member's Telegram account: keyed like issuer_telegram_id, so the
            # public leaf proves it without showing it (issue 23 §2); /verificar shows the signer's public name
            "signer": "private", "signed_at": "moment",
        }),
        Covered("notice_delivery", {
            "notice_id": "value", "document": "value", "filing_id": "value", "state": "value",
            "staff_reason": "value", "sent_at": "moment", "edital_published_on": "day", "ciencia_at": "moment",
            "ciencia_on": "day", "ciencia_kind": "value", "created_at": "moment",
        }),
        Covered("notice_platform_delivery", {  # L1533 Art. 22: the platform's copy
            "notice_id": "value", "platform_name": "value", "means": "value", "delivered_on": "day",
            "recorded_by": "value", "created_at": "moment",
        }),
        Covered("notice_filing", {
            "notice_id": "value", "kind": "value", "text": "text_digest", "person_id": "value",
            "filed_by": "value", "filed_at": "moment", "decided_at": "moment", "decided_by": "value",
            "outcome": "value", "decision_text": "text_digest", "vista_first_on": "day",
            "vista_second_on": "day", "diligencia_text": "text_digest", "diligencia_at": "moment",
            "diligencia_done_at": "moment", "decider": "json", "protocol": "value",
            "decision_pdf": "bytes_digest", "decision_pdf_sha256": "value",  # the signed decision (issue 18)
        }),
        Covered("notice_attachment", {
            "person_id": "value", "filing_id": "value", "file_name": "text_digest", "mime_type": "value",
            "size": "value", "sha256": "value", "content": "bytes_digest", "created_at": "moment",
            **_text("caption"),
        }),
        Covered("notice_optin", {
            "person_id": "value", "terms_version": "value", "cpf": "text_digest", "accepted_at": "moment",
            "revoked_at": "moment",
        }),
        Covered("notice_event", {
            "notice_id": "value", "seq": "value", "at": "moment", "kind": "value", "actor": "value",
            "data": "json",
        }),
        Covered("notice_payment", {  # CP Art. 34 IV: the fine paid (models.payments)
            "notice_id": "value", "paid_on": "day", "amount_cents": "value", "reference": "value",
            "source": "value", "recorded_by": "value", "recorded_at": "moment",
        }),
        Covered("audit_event", {
            "at": "moment", "actor": "value", "action": "value", "entity": "value", "entity_id": "value",
            "details": "json",
        }),
        # CP Art. 32 and L13460 Art. 16: the deadlines run from received_at and due_on; the answer and status
        # are the Ombudsman's act (L13460 Art. 12); identity_restricted decides who reads the author (Art. 10 §7).
        Covered("citizen_case", {
            "protocol": "value", "municipality": "value", "kind": "value", "ombudsman_type": "value",
            "status": "value", "handling_role": "value", "infraction_code": "value", "legal_refs": "json",
            "driver_id": "value", "occurred_on": "day", "learned_how": "value", "relation": "value",
            "relation_ended_on": "day", "identity_restricted": "flag", "received_at": "moment", "due_on": "day",
            "extended_at": "moment", "complement_requested_at": "moment", "complement_due_on": "day",
            "complement_answered_at": "moment", "assigned_staff_id": "value", "outcome": "value",
            "satisfaction": "value", "closed_at": "moment", "satisfaction_reason": "text_digest",
            **_text("summary", "accused", "vehicle_ref", "place_text", "latitude", "longitude", "evidence_note",
                    "extension_reason", "complement_question", "complement_answer", "outcome_reason", "answer"),
        }),
        Covered("case_event", {
            "case_id": "value", "at": "moment", "kind": "value", "status": "value", "actor": "value",
            "note": "text_digest", "details": "json",
        }),
        # The citizen's evidence: its stored bytes enter as their SHA-256 (as does the sha256 column beside them).
        Covered("case_attachment", {
            "case_id": "value", "person_id": "value", "mime_type": "value", "size": "value", "sha256": "value",
            "content": "bytes_digest", "created_at": "moment", **_text("file_name", "caption"),
        }),
        Covered("case_author", {
            "case_id": "value", "person_id": "value", **_text("name", "profession", "address", "cpf", "pseudonym"),
        }),
        # Who holds which role decides who reads a restricted author (L13460 Art. 10 §7) and who may act.
        Covered("staff_member", {
            "telegram_user_id": "value", "municipality": "value", "name": "text_digest", "role": "value",
            "active": "flag", "created_at": "moment", "registration": "value",
        }),
        # A personal API credential proves who acts (L13460 Art. 10 §7: the Ombudsman's identity, proven, opens a
        # restricted case): one inserted or revived behind the application's back must show (issue 23 §1–2).
        Covered("staff_api_token", {
            "token_sha256": "value", "telegram_user_id": "value", "created_at": "moment", "revoked_at": "moment",
        }),
        # Who may perform which act (CP Art. 12, 40, 43; L9784 Art. 13 II, 18): a competence decides whether a
        # decision stands, so changing one behind the application's back must show (issue 18 §1, issue 23 §2).
        Covered("staff_authority", {
            "staff_member_id": "value", "act": "value", "municipality": "value", "office": "value",
            "title": "value", "designation_kind": "value", "designation_number": "value", "designation_on": "day",
            "created_at": "moment", "revoked_at": "moment",
        }),
        # The Telegram account a person is: every filing, opt-in and ciência of theirs follows from it.
        Covered("person", {
            "telegram_user_id": "value", "municipality": "value", "created_at": "moment",
            "privacy_accepted_at": "moment", "erased_at": "moment",
        }),
        Covered("open311_client", {
            "name": "text_digest", "key_sha256": "value", "created_at": "moment", "revoked_at": "moment",
        }),
        Covered("open311_submission", {
            "case_id": "value", "client_id": "value", "account_sha256": "value", "service_code": "value",
            "media_url": "text_digest",
        }),
        Covered("driver", {
            "municipality": "value", "cnh_category": "value", "cnh_issued_on": "day", "person_id": "value",
            "linked_at": "moment", "created_at": "moment", **_text("cpf", "name", "phone", "cnh_number"),
        }),
        Covered("driver_authorization", {
            "number": "value", "driver_id": "value", "vehicle_id": "value", "approved_on": "day",
            "fee_paid_on": "day", "valid_until": "day", "vehicle_since": "day", "suspended_since": "day",
            "suspended_until": "day", "revoked_on": "day", "cassada_on": "day", "created_at": "moment",
        }),
        Covered("fee_payment", {
            "authorization_id": "value", "paid_on": "day", "source": "value", "created_at": "moment",
        }),
        Covered("platform", {"name": "text_digest", "accredited_on": "day", "created_at": "moment"}),
        Covered("platform_list_receipt", {
            "platform_id": "value", "received_on": "day", "recorded_by": "value", "created_at": "moment",
        }),
        Covered("vehicle", {"model_year": "value", "created_at": "moment", **_text("plate", "renavam")}),
        Covered("vehicle_inspection", {
            "vehicle_id": "value", "inspected_on": "day", "result": "value", "notes": "text_digest",
            "created_at": "moment",
        }),
    )
}
"""Every covered table, in the order the migration backfills them."""

_BOOKKEEPING = "when the row last changed, for the application; the log's own order and heads say that"
NOT_COVERED: dict[tuple[str, str], str] = {
    ("notice_delivery", "outbox_key"): "the dedupe key of the outbox message; it has no legal effect",
    ("citizen_case", "updated_at"): _BOOKKEEPING,
    ("driver", "updated_at"): _BOOKKEEPING,
    ("driver_authorization", "updated_at"): _BOOKKEEPING,
    ("person", "chat_id"): "where the bot writes (Telegram's chat id); who the person is is telegram_user_id",
    ("person", "first_name"): "the name Telegram shows, refreshed at every update; no act relies on it",
    ("person", "locale"): "the language of the messages; no deadline or right depends on it",
    ("person", "locale_chosen"): "whether the language was picked; no legal effect",
    ("person", "bot_key"): "which of the deployment's bots carries the messages; no legal effect",
    ("staff_api_token", "label"): "the name its holder gave the token; no legal effect",
    ("staff_api_token", "last_used_at"): "rewritten by every request; the acts done with it are covered",
}
"""Columns of covered tables deliberately left out, with the reason."""

UNCOVERED_TABLES: dict[str, str] = {
    "broadcast": "a notice to many people, without legal effect on anyone (its messages are in the outbox)",
    "console_link": "a one-time sign-in link, valid minutes; the role it opens is staff_member, which is covered",
    "console_session": "a sign-in session; the access right it carries is the staff_member row, which is covered",
    "draft": "a form not yet sent: nothing is filed until the case is, and the case is covered",
    "driver_link_attempt": "the rate limit of driver linking; no legal effect",
    "driver_link_code": "a one-time code; the link it makes is driver.person_id, which is covered",
    "driver_reminder_scan": "the last day a reminder scan ran; the reminders have no legal effect",
    "form_submission": "the idempotency key of a form; the case or notice it created is covered",
    "health_probe": "a liveness probe",
    "municipality": "the list of municipalities, from IBGE (seeded); each act names its municipality in its leaf",
    "outbox_message": ("the queue of messages to send, rewritten by every delivery attempt; what a ciência follows "
                       "from is copied into notice_delivery (covered) when the scan first sees it sent, and a "
                       "tacit ciência is derived only from that logged copy, never before the notice's issue"),
    "people_version": "a count of writes of people's rows, telling other processes to drop their cached views",
    "protocol_counter": "the next protocol number; each case's protocol is covered",
    "reminder_mute": "a person's choice not to get reminders; no legal effect",
    "response_template": "a reply template; the answer sent is covered (citizen_case.answer, case_event)",
    "seen_update": "Telegram update ids seen, to drop duplicates",
    "tlog_entry": "the log itself",
    "tlog_node": "the log's stored subtrees (recomputed and checked by verify)",
    "tlog_state": "the log's current head (checked by verify against the entries and the signature)",
    "tlog_head": "every head the head job signed, with its RFC 3161 token (checked by verify: signature, root, token)",
    "tlog_published": "the heads written out (checked by verify against the log, the TSA and the witness)",
}
"""Tables deliberately outside the log, with the reason (the README's security section lists them too)."""


_leaf_key: bytes | None = None


def use_leaf_key(key: bytes | None) -> None:
    """Install the secret of version-2 leaves (at start, with the log key); ``None``: version-1 leaves."""
    global _leaf_key
    _leaf_key = key


def current_version() -> int:
    """The version new leaves are written in: 2 with a leaf key installed, else 1."""
    return VERSION if _leaf_key is not None else 1


def _keyed(text: str) -> str:
    assert _leaf_key is not None
    return hmac.new(_leaf_key, text.encode("utf-8"), hashlib.sha256).hexdigest()


def _value(kind: Kind, value: Any, version: int) -> Any:
    if value is None:
        return None
    if version >= 2 and kind in ("text_digest", "private"):
        return _keyed(str(value))
    if kind == "private":
        return value
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


def row_values(spec: Covered, row: Mapping[Any, Any], version: int | None = None) -> dict[str, Any]:
    """The leaf's ``row`` object for a row read through :meth:`Covered.clause` (in :func:`current_version`).

    Raises:
        ValueError: version 2 without a leaf key, or a stored value of the wrong type (the column's name).
    """
    version = current_version() if version is None else version
    if version >= 2 and _leaf_key is None:
        raise ValueError("version-2 leaves need the leaf key")
    out: dict[str, Any] = {}
    for name, kind in spec.columns.items():
        try:
            out[name] = _value(kind, row[name], version)
        except (AssertionError, TypeError, ValueError, OverflowError) as exc:
            raise ValueError(name) from exc  # the column, for verify to name
    return out


def canonical(value: Any) -> bytes:
    """Canonical JSON bytes: sorted keys, no spaces, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def leaf_data(table_name: str, row_id: int, values: dict[str, Any] | None, version: int | None = None) -> bytes:
    """The bytes of one leaf: the row's values, or ``None`` for a row removed through the application."""
    version = current_version() if version is None else version
    return canonical({"v": version, "t": table_name, "id": row_id, "row": values})


def leaf_version(data: bytes) -> int:
    """The version of a leaf (1 when it cannot be read: :func:`parse_leaf` says why)."""
    try:
        version = json.loads(data.decode("utf-8"))["v"]
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError):
        return 1
    return version if version in VERSIONS else 1


def parse_leaf(data: bytes) -> tuple[str, int, dict[str, Any] | None]:
    """``(table, row id, values)`` of a leaf.

    Raises:
        ValueError: not a leaf of this log.
    """
    try:
        parsed = json.loads(data.decode("utf-8"))
        if parsed["v"] not in VERSIONS or not isinstance(parsed["t"], str) or not isinstance(parsed["id"], int):
            raise ValueError("unknown leaf version")
        values = parsed["row"]
        if values is not None and not isinstance(values, dict):
            raise ValueError("row is not an object")
        return parsed["t"], parsed["id"], values
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValueError(f"not a leaf: {exc}") from exc
