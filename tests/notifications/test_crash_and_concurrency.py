"""Never lost, never twice: a dispatcher killed mid-broadcast, and two dispatchers on one PostgreSQL."""

from __future__ import annotations

import asyncio
import signal
from collections import Counter
from pathlib import Path

import pytest
from sqlmodel import select

from bot.sandbox.emulator import BotApiEmulator
from core.db import SessionFactory
from core.settings import Settings
from models.columns import utcnow
from models.outbox import OutboxMessage, OutboxStatus
from notifications.broadcasts import AudienceChoice, create_broadcast
from tests.auxil.broadcasts import sent_by
from tests.notifications.conftest import FIRST_USER_ID, add_people
from tests.notifications.processes import dispatch_env, finish, stamp_head, start_dispatch


async def _broadcast_to_everyone(sessions: SessionFactory, settings: Settings) -> int:
    async with sessions() as session:
        created = await create_broadcast(session=session, **sent_by(settings), choice=AudienceChoice("everyone"),
                                         text="Aviso de teste.", actor="test", now=utcnow())
    return created.recipients


async def _outbox(sessions: SessionFactory) -> list[OutboxMessage]:
    async with sessions() as session:
        return list((await session.exec(select(OutboxMessage))).all())


def _received(emu: BotApiEmulator) -> Counter[int]:
    return Counter(call.params["chat_id"] for call in emu.calls_to("sendMessage", ok=True))


async def test_a_dispatcher_killed_mid_broadcast_loses_nothing_after_restart(
    db_url: str, sessions: SessionFactory, settings: Settings, emu: BotApiEmulator, tmp_path: Path
) -> None:
    """SIGKILL during a broadcast, restart: everyone gets the notice; only rows in flight may come twice."""
    await add_people(sessions, emu, 300)
    assert await _broadcast_to_everyone(sessions, settings) == 300
    await stamp_head(db_url)
    env = dispatch_env(db_url, emu, dispatch_global_rate="150", dispatch_lease_seconds="2")
    first = await start_dispatch(env, tmp_path)
    await emu.wait_until(lambda: len(emu.calls_to("sendMessage", ok=True)) >= 100, timeout=30)
    first.send_signal(signal.SIGKILL)
    await first.wait()
    sent_before_kill = set(_received(emu))
    at_kill = await _outbox(sessions)
    person_ids = sorted(row.person_id for row in at_kill)
    chat_of = {person_id: FIRST_USER_ID + index for index, person_id in enumerate(person_ids)}
    in_flight = {chat_of[row.person_id] for row in at_kill if row.status is OutboxStatus.SENDING}
    assert in_flight & sent_before_kill, "the kill should catch messages sent but not yet recorded"
    assert 0 < sum(row.status is OutboxStatus.SENT for row in at_kill) < 300
    leases = [row.lease_until for row in at_kill if row.lease_until is not None]
    await asyncio.sleep(max(0.0, (max(leases) - utcnow()).total_seconds()) + 0.05)  # the dead process's leases run out

    output = await finish(await start_dispatch(env, tmp_path))
    assert "enviadas" in output  # pt_BR, the default BALCAO_CLI_LOCALE
    received = _received(emu)
    assert set(received) == {FIRST_USER_ID + i for i in range(300)}  # everyone got it
    twice = {chat for chat, count in received.items() if count > 1}
    assert twice == in_flight & sent_before_kill  # exactly those sent in the instant before the kill, once more
    assert all(count <= 2 for count in received.values())
    final = await _outbox(sessions)
    assert {row.status for row in final} == {OutboxStatus.SENT}
    assert all(row.attempts == 2 for row in final if chat_of[row.person_id] in in_flight)


async def test_two_dispatchers_on_postgresql_never_send_the_same_row(
    db_kind: str, db_url: str, sessions: SessionFactory, settings: Settings, emu: BotApiEmulator, tmp_path: Path
) -> None:
    if db_kind != "postgres":
        pytest.skip("needs PostgreSQL (FOR UPDATE SKIP LOCKED): run with --db=postgres")
    await add_people(sessions, emu, 600)
    assert await _broadcast_to_everyone(sessions, settings) == 600
    await stamp_head(db_url)
    env = dispatch_env(db_url, emu, dispatch_global_rate="100")
    processes = [await start_dispatch(env, tmp_path) for _ in range(2)]
    await asyncio.gather(*(finish(process) for process in processes))
    received = _received(emu)
    assert received == Counter({FIRST_USER_ID + i: 1 for i in range(600)})
    final = await _outbox(sessions)
    assert {row.status for row in final} == {OutboxStatus.SENT}
    senders = Counter(row.claimed_by for row in final)
    assert len(senders) == 2, f"both processes should have sent a share: {senders}"


async def test_sigterm_stops_dispatch_cleanly_and_gives_back_what_was_not_sent(
    db_url: str, sessions: SessionFactory, settings: Settings, emu: BotApiEmulator, tmp_path: Path
) -> None:
    """SIGTERM mid-broadcast: the process exits 0 within seconds, no row stays claimed, none sent is forgotten."""
    await add_people(sessions, emu, 200)
    assert await _broadcast_to_everyone(sessions, settings) == 200
    await stamp_head(db_url)
    env = dispatch_env(db_url, emu, dispatch_global_rate="50", dispatch_lease_seconds="600")
    process = await start_dispatch(env, tmp_path)
    await emu.wait_until(lambda: len(emu.calls_to("sendMessage", ok=True)) >= 20, timeout=30)
    process.send_signal(signal.SIGTERM)
    output = await finish(process, timeout=10)
    received = _received(emu)
    outbox = await _outbox(sessions)
    by_status = Counter(row.status for row in outbox)
    assert by_status[OutboxStatus.SENDING] == 0  # nothing waits for a 10-minute lease to run out
    assert by_status[OutboxStatus.SENT] == sum(received.values()) == len(received) < 200
    assert by_status[OutboxStatus.PENDING] == 200 - len(received)
    assert all(row.attempts == 0 for row in outbox if row.status is OutboxStatus.PENDING)
    assert f"enviadas {len(received)}," in output
