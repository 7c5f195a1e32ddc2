"""The per-person inbound limit (issue 23 §6): counted per person in a sliding minute, the first excess answered,
the rest dropped; other people unaffected; end to end through the emulator, 500 updates from one person."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

import time_machine

from core.db import SessionFactory
from core.inbound_limit import InboundLimiter, Verdict
from core.settings import Settings
from handlers.chat.inbound import InboundGate
from tests.auxil.bot_harness import running_bot

FLOODER, NEIGHBOUR = 840001, 840002
START = dt.datetime(2026, 3, 2, 14, 0, tzinfo=dt.UTC)


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_first_update_over_the_limit_is_answered_and_the_rest_dropped_until_the_minute_has_room() -> None:
    clock = _Clock()
    limiter = InboundLimiter(3, clock=clock)
    assert [limiter.check(FLOODER) for _ in range(6)] == [Verdict.ALLOW] * 3 + [Verdict.WARN] + [Verdict.DROP] * 2
    assert limiter.check(NEIGHBOUR) is Verdict.ALLOW  # one person's flood takes nobody else's turn
    clock.now += 30
    assert limiter.check(FLOODER) is Verdict.DROP  # the first three are still inside the minute
    clock.now += 31
    assert limiter.check(FLOODER) is Verdict.ALLOW  # a minute after them: room again, and a later flood is warned
    assert [limiter.check(FLOODER) for _ in range(3)] == [Verdict.ALLOW, Verdict.ALLOW, Verdict.WARN]


def test_idle_people_are_forgotten() -> None:
    clock = _Clock()
    limiter = InboundLimiter(3, clock=clock)
    for person in range(2000):
        limiter.check(person)
    clock.now += 61
    for _ in range(1024):
        limiter.check(FLOODER)
    assert len(limiter) < 50


async def test_500_updates_from_one_person_are_answered_once_and_the_excess_dropped(
    settings: Settings, sessions: SessionFactory, emulator: Any
) -> None:
    """BALCAO_INBOUND_UPDATES_PER_MINUTE (5 here): of 500 /ajuda in a burst, 5 are handled, one is answered "wait a
    minute", 494 are dropped (today's main handled all 500); a neighbour is answered meanwhile."""
    limited = settings.model_copy(update={"inbound_updates_per_minute": 5})
    flooder = emulator.add_user(FLOODER, "Flávio", language_code="pt-br")
    neighbour = emulator.add_user(NEIGHBOUR, "Nair", language_code="pt-br")
    with time_machine.travel(START, tick=False):
        async with running_bot(limited, sessions, emulator) as application:
            gate = next(handler.callback for handler in application.handlers[-105])
            assert isinstance(gate, InboundGate)
            for _ in range(500):
                emulator.send_text(flooder, "/ajuda")
            emulator.send_text(neighbour, "/ajuda")
            await emulator.wait_for_message(NEIGHBOUR, after=0)  # from the chat's start: it may come first
            await emulator.wait_for_message(FLOODER, lambda m: "Espere um minuto" in (m.text or ""), after=0)
            async with asyncio.timeout(20):
                while gate.limiter is None or gate.limiter.stopped < 495:  # noqa: ASYNC110 (no event to await)
                    await asyncio.sleep(0.02)  # the flood is being dropped: wait for its last update
    replies = [m for m in emulator.messages(FLOODER) if m.from_bot]
    warnings = [m for m in replies if "Espere um minuto" in (m.text or "")]
    assert len(warnings) == 1 and replies[-1] is warnings[0]
    assert 5 <= len(replies) - 1 <= 10  # five /ajuda handled (one may answer in more than one message), not 500
