"""Prometheus metrics (a leaf module, like ``core.settings`` and ``core.i18n``: any layer may import it).

Every metric Balcão exports is defined here, once, so that a label set stays the same wherever it is
counted. Labels never carry personal data or protocol numbers: only kinds, outcomes, statuses, scan
names and route templates (``/api/cases/{case_id}``, never ``/api/cases/42``).

``/metrics`` (``handlers.web.metrics``) serves the default registry in the Prometheus text format; the
outbox gauges are read from the database at each scrape, because several dispatcher processes share
the outbox and only the database knows its depth.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable
from contextvars import ContextVar
from typing import Any

from prometheus_client import Counter, Gauge, Histogram

UPDATES = Counter(
    "balcao_updates_total", "Telegram updates handled, by kind and outcome (ok, error).", ["kind", "outcome"]
)
UPDATE_SECONDS = Histogram(
    "balcao_update_handling_seconds",
    "Time to handle one Telegram update, by kind.",
    ["kind"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
UNHANDLED_ERRORS = Counter("balcao_unhandled_errors_total", "Errors that reached the bot's error handler.")

OUTBOX_MESSAGES = Gauge("balcao_outbox_messages", "Outbox rows by status (read at scrape time).", ["status"])
OUTBOX_OLDEST_DUE_SECONDS = Gauge(
    "balcao_outbox_oldest_due_age_seconds", "Age of the oldest pending message that is due (0 when none)."
)
MESSAGES_SENT = Counter("balcao_messages_sent_total", "Outbox messages delivered to Telegram by this process.")
RATE_LIMITED = Counter("balcao_telegram_rate_limited_total", "429 answers (retry_after) from the Bot API.")
RATE_LIMIT_PAUSED_SECONDS = Counter(
    "balcao_telegram_retry_after_seconds_total", "Seconds of sending paused because of retry_after."
)
UNREACHABLE = Counter("balcao_recipients_unreachable_total", "Outbox messages whose recipient is unreachable.")
SEND_FAILED = Counter("balcao_messages_failed_total", "Outbox messages given up as failed.")

SCANS = Counter("balcao_scans_total", "Reminder scans run, by scan and outcome (ok, error).", ["scan", "outcome"])
SCAN_SECONDS = Histogram(
    "balcao_scan_seconds", "Duration of one scan.", ["scan"], buckets=(0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300)
)
WEBHOOK_REFUSED = Counter("balcao_webhook_refused_total", "Webhook requests refused, by reason.", ["reason"])
HTTP_REQUESTS = Counter(
    "balcao_http_requests_total",
    "HTTP requests to the console, the staff API and the public pages, by route template and status.",
    ["route", "method", "status"],
)
HTTP_SECONDS = Histogram(
    "balcao_http_request_seconds", "Time to answer an HTTP request, by route template.", ["route"]
)

_update_outcome: ContextVar[list[str] | None] = ContextVar("balcao_update_outcome", default=None)


def update_kind(update: object) -> str:
    """The kind of a Telegram update as a label: the name of its one filled field (``message``, …)."""
    for kind in (
        "message", "edited_message", "callback_query", "channel_post", "edited_channel_post", "inline_query",
        "my_chat_member", "chat_member", "poll", "poll_answer", "pre_checkout_query", "shipping_query",
    ):
        if getattr(update, kind, None) is not None:
            return kind
    return "other"


async def observe_update(update: object, handling: Awaitable[Any]) -> str:
    """Await the handling of one update, counting it by kind and outcome and timing it; return the outcome.

    The outcome is ``error`` when the error handler ran for this update (it calls :func:`mark_update_failed`),
    ``transient`` when that error's cause may pass (the update may succeed if it comes again), ``ok`` otherwise.
    """
    kind = update_kind(update)
    outcome = ["ok"]
    token = _update_outcome.set(outcome)
    started = time.perf_counter()
    try:
        await handling
    except BaseException:
        outcome[0] = "error"
        raise
    finally:
        UPDATE_SECONDS.labels(kind=kind).observe(time.perf_counter() - started)
        UPDATES.labels(kind=kind, outcome="ok" if outcome[0] == "ok" else "error").inc()
        _update_outcome.reset(token)
    return outcome[0]


def mark_update_failed(*, transient: bool = False) -> None:
    """Count an unhandled error, and mark the update being handled (if any) as failed (``transient``: may pass)."""
    UNHANDLED_ERRORS.inc()
    outcome = _update_outcome.get()
    if outcome is not None:
        outcome[0] = "transient" if transient else "error"
