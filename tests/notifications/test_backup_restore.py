"""A backup taken while a broadcast is being sent, restored after the disk "dies": the broadcast completes,
nobody is left out, and only what was in flight or sent after the backup can arrive twice (SQLite)."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections import Counter
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy.engine import make_url
from sqlmodel import select

from bot.backups import backup_sqlite, restore_sqlite
from core.db import create_engine, session_factory
from core.migrate import alembic_config
from models.broadcasts import Broadcast, BroadcastStatus
from models.columns import utcnow
from models.outbox import OutboxMessage, OutboxStatus
from notifications.broadcasts import AudienceChoice, create_broadcast
from notifications.dispatcher import Dispatcher, build_bot
from tests.auxil.broadcasts import sent_by
from tests.notifications.conftest import add_people

RECIPIENTS = 40


def deliveries(emu) -> Counter[int]:
    return Counter(call.params["chat_id"] for call in emu.calls_to("sendMessage", ok=True))


async def test_a_broadcast_restored_from_a_backup_taken_mid_sending_completes_once_per_recipient(
    sessions, emu, tg_settings, db_kind, db_url, tmp_path: Path
) -> None:
    if db_kind != "sqlite":
        pytest.skip("PostgreSQL is backed up with pg_dump (README); this is the SQLite online backup")
    await asyncio.to_thread(command.stamp, alembic_config(db_url), "head")
    settings = tg_settings.model_copy(update={"dispatch_global_rate": 40.0})
    people = await add_people(sessions, emu, RECIPIENTS)
    async with sessions() as session:
        created = await create_broadcast(session=session, **sent_by(settings), choice=AudienceChoice("everyone"),
                                         text="Vistoria anual: traga o veículo até sexta.", actor="test",
                                         now=utcnow())
    chat_of = dict(zip(people, [emu.user(700_000_000 + i).id for i in range(RECIPIENTS)], strict=True))

    bot = build_bot(settings)
    await bot.initialize()
    stop = asyncio.Event()
    first = Dispatcher(sessions=sessions, bot=bot, settings=settings)
    sending = asyncio.create_task(first.run_forever(stop=stop))
    await emu.wait_until(lambda: len(deliveries(emu)) >= RECIPIENTS // 4)
    backup = tmp_path / "mid-broadcast.db"
    await asyncio.to_thread(backup_sqlite, database_url=db_url, target=backup)  # while sending goes on
    await emu.wait_until(lambda: len(deliveries(emu)) >= RECIPIENTS // 2)
    sending.cancel()  # the disk dies: the process goes with it
    with pytest.raises(asyncio.CancelledError):
        await sending
    before_crash = deliveries(emu)

    new_disk = tmp_path / "new-disk" / "balcao.db"
    new_disk.parent.mkdir()
    new_url = str(make_url(db_url).set(database=str(new_disk)))
    await asyncio.to_thread(restore_sqlite, database_url=new_url, backup=backup, now=utcnow())
    engine = create_engine(new_url)
    restored = session_factory(engine)
    async with restored() as session:
        in_backup = {row.person_id: row.status for row in (await session.exec(select(OutboxMessage))).all()}
    later = utcnow() + dt.timedelta(seconds=settings.dispatch_lease_seconds + 1)  # leases of the dead process over
    try:
        second = Dispatcher(sessions=restored, bot=bot, settings=settings, now=lambda: later)
        await second.run_until_idle()
        async with restored() as session:
            statuses = Counter(row.status for row in (await session.exec(select(OutboxMessage))).all())
            broadcast = await session.get(Broadcast, created.id)
    finally:
        await engine.dispose()
        await bot.shutdown()

    final = deliveries(emu)
    assert set(final) == set(chat_of.values())  # nothing lost
    assert statuses == Counter({OutboxStatus.SENT: RECIPIENTS})
    assert broadcast is not None and broadcast.status is BroadcastStatus.FINISHED
    recorded_as_sent = {chat_of[p] for p, status in in_backup.items() if status is OutboxStatus.SENT}
    assert recorded_as_sent and all(final[chat] == 1 for chat in recorded_as_sent)  # never sent twice
    twice = {chat for chat, count in final.items() if count > 1}
    assert twice <= set(before_crash) - recorded_as_sent  # only in flight at, or sent after, the backup
