"""The dispatcher's and the scans' Prometheus counters move with what really happened (sent, 429, unreachable)."""

from __future__ import annotations

from typing import Any

from prometheus_client import REGISTRY

from core.i18n import Translator
from models.outbox import enqueue
from notifications.rendering import Rendered, renderer
from notifications.service import run_scans
from tests.notifications.conftest import FIRST_USER_ID, add_people

KIND = "test.metrics"


@renderer(KIND)
def render_metrics_test(payload: dict[str, Any], tr: Translator) -> Rendered:
    return Rendered(text=f"Aviso #{payload['n']}")


async def enqueue_all(sessions, person_ids: list[int]) -> None:
    async with sessions() as session:
        for n, person_id in enumerate(person_ids):
            await enqueue(session=session, person_id=person_id, kind=KIND, dedupe_key=f"metrics:{person_id}",
                          payload={"n": n})
        await session.commit()


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_sent_unreachable_and_rate_limited_messages_are_counted(sessions, emu, make_dispatcher):
    people = await add_people(sessions, emu, 6)
    emu.block(FIRST_USER_ID + 1)
    await enqueue_all(sessions, people)
    emu.limits(global_per_second=3)  # flood control: some calls are answered 429
    before = {name: value(name) for name in (
        "balcao_messages_sent_total", "balcao_recipients_unreachable_total", "balcao_telegram_rate_limited_total",
        "balcao_telegram_retry_after_seconds_total")}

    stats = await (await make_dispatcher()).run_until_idle()

    assert value("balcao_messages_sent_total") - before["balcao_messages_sent_total"] == stats.sent == 5
    assert value("balcao_recipients_unreachable_total") - before["balcao_recipients_unreachable_total"] == 1
    refused = len([call for call in emu.calls_to("sendMessage", ok=False) if call.error_code == 429])
    assert refused >= 1
    assert value("balcao_telegram_rate_limited_total") - before["balcao_telegram_rate_limited_total"] == refused
    assert value("balcao_telegram_retry_after_seconds_total") > before["balcao_telegram_retry_after_seconds_total"]


async def test_each_scan_is_counted_with_its_outcome_and_timed(sessions, tg_settings):
    outcomes = await run_scans(sessions=sessions, settings=tg_settings)
    assert outcomes
    for outcome in outcomes:
        assert value("balcao_scans_total", scan=outcome.name, outcome="ok" if outcome.error is None else "error") >= 1
        assert value("balcao_scan_seconds_count", scan=outcome.name) >= 1
