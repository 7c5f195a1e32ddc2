"""The pacer on a fake clock: evenly spaced sends, never over the cap in any second, pauses after a 429."""

from __future__ import annotations

import bisect
import random

import pytest

from notifications.pacing import RateWindow, SendPacer


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += max(seconds, 0.0)


def max_in_any_second(times: list[float]) -> int:
    return max(bisect.bisect_left(times, t + 1.0) - i for i, t in enumerate(times))


async def send_many(pacer: SendPacer, clock: FakeClock, count: int, *, chats: int = 10_000) -> list[float]:
    times = []
    for n in range(count):
        await pacer.wait_global()
        pacer.record(n % chats)
        times.append(clock())
    return times


@pytest.mark.parametrize("rate", [30.0, 1000.0])
async def test_the_achieved_rate_is_close_to_the_cap_and_never_above_it(rate):
    clock = FakeClock()
    pacer = SendPacer(global_rate=rate, per_chat_rate=1.0, clock=clock, sleep=clock.sleep)
    times = await send_many(pacer, clock, int(rate * 5))
    achieved = (len(times) - 1) / (times[-1] - times[0])
    assert 0.98 * rate <= achieved <= rate
    assert max_in_any_second(times) <= rate


async def test_short_late_wake_ups_are_caught_up_but_never_beyond_the_cap():
    clock = FakeClock()
    pacer = SendPacer(global_rate=100.0, per_chat_rate=1.0, clock=clock, sleep=clock.sleep)
    times = []
    stalls = random.Random(7)
    for n in range(2000):
        await pacer.wait_global()
        if stalls.random() < 0.02:
            clock.now += 0.008  # the event loop was busy for 8 ms: this send is late
        pacer.record(n)
        times.append(clock())
    assert max_in_any_second(times) <= 100
    assert (len(times) - 1) / (times[-1] - times[0]) >= 97  # lateness made up


async def test_one_chat_waits_a_second_between_messages():
    clock = FakeClock()
    pacer = SendPacer(global_rate=30.0, per_chat_rate=1.0, clock=clock, sleep=clock.sleep)
    pacer.record(42)
    assert pacer.chat_ready_at(42) >= clock() + 1.0
    assert pacer.chat_ready_at(43) <= clock()


def test_a_fractional_rate_spaces_events_by_its_inverse():
    window = RateWindow(0.5, guard=0.0)
    window.record(10.0)
    assert window.ready_at() == pytest.approx(12.0)


async def test_a_pause_holds_every_send_for_retry_after():
    clock = FakeClock()
    pacer = SendPacer(global_rate=30.0, per_chat_rate=1.0, clock=clock, sleep=clock.sleep)
    start = clock()
    pacer.pause(3.0)
    await pacer.wait_global()
    assert clock() >= start + 3.0


async def test_idle_chats_are_forgotten():
    clock = FakeClock()
    pacer = SendPacer(global_rate=1000.0, per_chat_rate=1.0, clock=clock, sleep=clock.sleep)
    await send_many(pacer, clock, 5000, chats=5000)
    assert len(pacer._chats) < 2100  # only chats of the last ~2 seconds are remembered
