"""The JSON shapes of the staff API's notices, filings and deliveries (``handlers.web.api_notices``)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from models.deadlines import Window
from models.notices.filings import lapsed
from models.notices.status import NoticeView
from models.notices.tables import NoticeDelivery, NoticeFiling


def window_json(window: Window, today: dt.date) -> dict[str, Any]:
    """A deadline window: its rule and article, last day and days left from ``today``."""
    return {"rule": window.rule.id, "article": window.rule.citation, "final_date": window.final_date.isoformat(),
            "days_left": (window.final_date - today).days, "role": window.role.value}


def delivery_json(delivery: NoticeDelivery) -> dict[str, Any]:
    """A delivery of a document: how, and its ciência."""
    return {
        "id": delivery.id, "document": delivery.document.value, "state": delivery.state.value,
        "staff_reason": delivery.staff_reason.value if delivery.staff_reason else None,
        "sent_at": delivery.sent_at.isoformat() if delivery.sent_at else None,
        "ciencia": delivery.ciencia_kind.value if delivery.ciencia_kind else None,
        "ciencia_at": delivery.ciencia_at.isoformat() if delivery.ciencia_at else None,
        "ciencia_on": delivery.ciencia_on.isoformat() if delivery.ciencia_on else None,
        "edital_published_on": delivery.edital_published_on.isoformat() if delivery.edital_published_on else None,
    }


def notice_json(view: NoticeView, today: dt.date, earlier: str | None = None) -> dict[str, Any]:
    """The notice for staff; ``earlier`` is the number of the notice its recidivism rests on (CP Art. 8)."""
    notice = view.notice
    return {
        "number": notice.number, "type": notice.type.value, "rulebook": notice.rulebook,
        "infraction_code": notice.infraction_code, "article": notice.infraction_article,
        "offender_name": notice.offender_name, "person_id": notice.person_id,
        "fine": str((Decimal(notice.fine_cents) / 100).quantize(Decimal("0.01"))), "recidivist": notice.recidivist,
        "recidivism_of": earlier, "warning_only": notice.warning_only, "quantity": notice.quantity,
        "infraction_date": notice.infraction_on.isoformat() if notice.infraction_on else None,
        "stage": notice.stage.value, "outcome": notice.outcome.value if notice.outcome else None,
        "case_id": notice.case_id, "issued_at": notice.issued_at.isoformat(),
        "suspended": view.suspended,
        "deliveries": [delivery_json(d) for d in [view.delivery, view.decision_delivery] if d is not None],
        "windows": [window_json(w, today) for w in view.windows],
        "filings": [
            {"kind": f.kind.value, "filed_at": f.filed_at.isoformat(), "text": f.text,
             "decided_at": f.decided_at.isoformat() if f.decided_at else None,
             "outcome": f.outcome.value if f.outcome else None, "decision_text": f.decision_text,
             "lapsed": lapsed(f), **review_json(f)}
            for f in view.filings
        ],
    }


def review_json(filing: NoticeFiling) -> dict[str, Any]:
    """Vista (CP Art. 40 §1) and diligência (Art. 42) of a filing."""
    return {
        "id": filing.id,
        "vista_first_on": filing.vista_first_on.isoformat() if filing.vista_first_on else None,
        "vista_second_on": filing.vista_second_on.isoformat() if filing.vista_second_on else None,
        "diligencia_at": filing.diligencia_at.isoformat() if filing.diligencia_at else None,
        "diligencia_text": filing.diligencia_text,
        "diligencia_done_at": filing.diligencia_done_at.isoformat() if filing.diligencia_done_at else None,
    }


def decided_json(filing: NoticeFiling) -> dict[str, Any]:
    """A filing just decided: its outcome and moment."""
    assert filing.decided_at is not None and filing.outcome is not None
    return {"id": filing.id, "outcome": filing.outcome.value, "decided_at": filing.decided_at.isoformat()}
