"""Issue 10 item 3: an update the library cannot read is skipped and recorded; the others are answered.

A poll in the shape an older Bot API server sends (no ``persistent_id``, ``allows_revoting``, ``members_only``)
made every ``getUpdates`` fail: nobody was answered, and the library logged the raw batch with other people's
messages in it.
"""

from __future__ import annotations

import io
import logging
from typing import Any

import pytest

from bot import update_parsing
from bot.logs import build_handler
from bot.update_parsing import SkippedUpdates
from core.settings import Settings

OLD_POLL = {
    "id": "5123",
    "question": "Qual o melhor horário?",
    "options": [{"text": "Manhã", "voter_count": 1}, {"text": "Tarde", "voter_count": 0}],
    "total_voter_count": 1,
    "is_closed": False,
    "is_anonymous": True,
    "type": "regular",
    "allows_multiple_answers": False,
}


async def test_an_unreadable_update_among_good_ones_is_skipped_and_polling_goes_on(
    bot_app: Any, emulator: Any, settings: Settings, caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    maria, carlos = emulator.personas[1], emulator.personas[0]
    skipped = SkippedUpdates()  # this test's own record (the log's rate limit is per process)
    monkeypatch.setattr(update_parsing, "SKIPPED", skipped)
    log = io.StringIO()
    handler = build_handler(settings, log)
    logging.getLogger().addHandler(handler)
    with caplog.at_level(logging.DEBUG):
        first = emulator.send_text(maria, "/ajuda")
        bad = emulator.send_raw_update("poll", OLD_POLL)
        assert bad is not None
        second = emulator.send_text(carlos, "/ajuda")
        await emulator.wait_for_message(maria.user_id, after=first.message_id)
        await emulator.wait_for_message(carlos.user_id, after=second.message_id)
        # the bad update was the last one once: it is confirmed, not fetched forever
        last = emulator.send_raw_update("poll", OLD_POLL)
        assert last is not None
        later = emulator.send_text(maria, "/start")
        await emulator.wait_for_message(maria.user_id, after=later.message_id)
        await emulator.wait_until(lambda: True if not emulator.pending_updates else None)
    logging.getLogger().removeHandler(handler)
    assert skipped.total == 2
    lines = [r.getMessage() for r in caplog.records if r.name == "balcao.updates"]
    assert lines, "the skipped update is recorded"
    assert f"update_id={bad['update_id']}" in lines[0] and "kind=poll" in lines[0] and "bytes" in lines[0]
    everything = log.getvalue()
    assert "skipped an update" in everything
    assert "Qual o melhor horário" not in everything and "Manhã" not in everything
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_repeated_failures_are_rate_limited_in_the_log(caplog: pytest.LogCaptureFixture) -> None:
    now = [1000.0]
    skipped = SkippedUpdates(clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="balcao.updates"):
        for update_id in range(500):
            skipped.record(update_id=update_id, kind="poll", size=321, error=TypeError("x"))
        now[0] += 61
        skipped.record(update_id=999, kind="poll", size=321, error=TypeError("x"))
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2
    assert "and 499 more of this kind" in lines[1]
    assert skipped.total == 501
