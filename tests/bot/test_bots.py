"""Several bots in one deployment: each answers its own people, sends them what Balcão sends on its own, and
keeps its own Telegram limits (the caps are per bot)."""

from __future__ import annotations

import asyncio
import datetime as dt
import socket
from collections import Counter
from typing import Any

import pytest
from pydantic import SecretStr
from sqlmodel import select

from bot.bots import DEFAULT_BOT, BotIdentity, UnknownBots, choose_bots, configured_bots, scope_of
from bot.running import serve
from core.settings import Settings
from models.columns import utcnow
from models.outbox import OutboxMessage, OutboxStatus, enqueue
from models.people import Person
from notifications.broadcasts import AudienceChoice, create_broadcast
from notifications.outbox_claims import claim_due
from tests.auxil.broadcasts import sent_by
from tests.notifications.conftest import add_people

SAPEZAL_TOKEN = "222222222:SAPEZAL-own-bot-token"
SECOND = dt.timedelta(seconds=1)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_deployment_has_the_default_bot_and_each_municipalitys_own(settings: Settings) -> None:
    with_token = settings.model_copy(update={"telegram_token": SecretStr("111:DEFAULT")})
    bots = configured_bots(with_token, [("sapezal", SecretStr(SAPEZAL_TOKEN)), ("dup", SecretStr("111:DEFAULT"))])
    assert [bot.key for bot in bots] == [DEFAULT_BOT, "sapezal"]  # a token given twice is one bot
    assert [bot.key for bot in choose_bots(bots, ["sapezal"])] == ["sapezal"]
    with pytest.raises(UnknownBots) as refused:
        choose_bots(bots, ["sapezal", "cuiaba"])
    assert refused.value.unknown == ["cuiaba"] and refused.value.known == [DEFAULT_BOT, "sapezal"]


def test_each_dispatcher_claims_its_bots_people_and_the_default_bot_everyone_else() -> None:
    default = BotIdentity(DEFAULT_BOT, SecretStr("111:DEFAULT"))
    sapezal = BotIdentity("sapezal", SecretStr(SAPEZAL_TOKEN))
    assert scope_of(default, [default]) is None  # one bot: no filter at all
    own = scope_of(sapezal, [default, sapezal])
    rest = scope_of(default, [default, sapezal])
    assert own is not None and rest is not None
    assert own.admits("sapezal") and not own.admits(DEFAULT_BOT)
    # a person whose municipality dropped its own bot is still reached, by the default bot
    assert rest.admits(DEFAULT_BOT) and rest.admits("old-bot-of-a-city") and not rest.admits("sapezal")


async def test_claims_take_only_the_rows_of_the_dispatchers_bot(sessions: Any) -> None:
    people = await add_people(sessions, None, 4)
    async with sessions() as session:
        for person_id, key in zip(people, [DEFAULT_BOT, "sapezal", "sapezal", "gone"], strict=True):
            person = await session.get(Person, person_id)
            person.bot_key = key
            await enqueue(session=session, person_id=person_id, kind="test.bots", dedupe_key=f"b:{person_id}")
        await session.commit()
    default = BotIdentity(DEFAULT_BOT, SecretStr("111:DEFAULT"))
    sapezal = BotIdentity("sapezal", SecretStr(SAPEZAL_TOKEN))
    async with sessions() as session:
        own = await claim_due(session=session, worker="w-sapezal", now=utcnow(), limit=10, lease_seconds=60,
                              scope=scope_of(sapezal, [default, sapezal]))
    async with sessions() as session:
        rest = await claim_due(session=session, worker="w-default", now=utcnow(), limit=10, lease_seconds=60,
                               scope=scope_of(default, [default, sapezal]))
    assert sorted(row.person_id for row in own) == people[1:3]
    assert sorted(row.person_id for row in rest) == [people[0], people[3]]


async def test_one_run_process_serves_two_bots_each_with_its_people_and_its_own_limits(
    emulator: Any, settings: Settings, sessions: Any
) -> None:
    emulator.limits(global_per_second=4)  # Telegram-like flood control, per bot
    run_settings = settings.model_copy(update={
        "telegram_token": SecretStr(emulator.token), "telegram_api_url": emulator.root_url,
        "http_port": _free_port(), "dispatch_global_rate": 4.0, "dispatch_per_chat_rate": 50.0,
    })
    stop = asyncio.Event()
    running = asyncio.create_task(serve(run_settings, stop=stop, check_schema=False,
                                        own_bots=[("sapezal", SecretStr(SAPEZAL_TOKEN))]))
    try:
        maria = emulator.add_user(840001, "Maria")
        joaquim = emulator.add_user(840002, "Joaquim")
        emulator.send_text(maria, "/ajuda")
        emulator.send_text(joaquim, "/ajuda", to_bot=SAPEZAL_TOKEN)
        await emulator.wait_for_message(maria.id, lambda m: bool(m.text), timeout=15, after=0)
        await emulator.wait_for_message(joaquim.id, lambda m: bool(m.text), timeout=15, after=0,
                                        from_bot=SAPEZAL_TOKEN)
        async with sessions() as session:
            keys = {p.telegram_user_id: p.bot_key for p in (await session.exec(select(Person))).all()}
        assert keys == {maria.id: DEFAULT_BOT, joaquim.id: "sapezal"}

        # twelve more people on each bot, then one broadcast to everyone
        await add_people(sessions, emulator, 12, first=841000)
        own = await add_people(sessions, emulator, 12, first=842000)
        async with sessions() as session:
            for person_id in own:
                (await session.get(Person, person_id)).bot_key = "sapezal"
            await session.commit()
            await create_broadcast(session=session, **sent_by(run_settings), choice=AudienceChoice("everyone"),
                                   text="Prazo de renovação termina sexta.", actor="test", now=utcnow())

        def delivered(token: str) -> Counter[int]:
            return Counter(call.params["chat_id"] for call in emulator.calls_to("sendMessage", ok=True)
                           if call.token == token and "Prazo" in str(call.params.get("text", "")))

        await emulator.wait_until(lambda: len(delivered(emulator.token)) == 13 and len(delivered(SAPEZAL_TOKEN)) == 13,
                                  timeout=30)
    finally:
        stop.set()
        await asyncio.wait_for(running, timeout=30)

    assert set(delivered(emulator.token)) == {maria.id} | {841000 + i for i in range(12)}
    assert set(delivered(SAPEZAL_TOKEN)) == {joaquim.id} | {842000 + i for i in range(12)}
    assert all(count == 1 for token in (emulator.token, SAPEZAL_TOKEN) for count in delivered(token).values())
    async with sessions() as session:
        statuses = Counter(row.status for row in (await session.exec(select(OutboxMessage))).all())
    assert statuses[OutboxStatus.SENT] == 26
    # each bot was paced at its own cap; together they went past one bot's cap. Counted on every call the
    # dispatchers made (a 429 too): arrival jitter on a loaded machine may push one call into the next window.
    sends = [call for call in emulator.calls_to("sendMessage") if "Prazo" in str(call.params.get("text"))]
    for token in (emulator.token, SAPEZAL_TOKEN):
        times = sorted(call.at for call in sends if call.token == token)
        assert max(sum(1 for t in times if start <= t < start + SECOND) for start in times) <= 4 + 1
    together = sorted(call.at for call in sends if call.error_code is None)
    assert max(sum(1 for t in together if start <= t < start + SECOND) for start in together) > 4 + 1

