"""The soak test of issue 14: two ``run`` processes and two ``dispatch`` processes over three bots on one PostgreSQL.

Everything is real: the throwaway PostgreSQL cluster of ``--db=postgres`` (a database of its own, migrated with
Alembic as ``db upgrade`` does), the Bot API emulator as an HTTP server, and ``python -m bot run`` / ``python -m bot
dispatch --forever`` as subprocesses with the settings a deployment would give them:

* ``run`` A serves the default bot and Sapezal's own bot, ``run`` B Nova Xavantina's (``--bots``), both with
  ``BALCAO_RUN_DISPATCHER=false``; dispatcher X sends for the default bot, dispatcher Y for the two municipalities'
  bots. Each bot thus has exactly one dispatcher, paced at that bot's cap.
* Many people write to all three bots at the same instant: every update is answered once, in order, per chat.
* A broadcast reaches people of the three bots; Y is killed with SIGKILL mid-broadcast and started again: everyone
  gets it once, except at most the rows Y had claimed and not marked when it died (delivery is at least once), and
  every bot stays under its own caps (``CAP`` per second, 1 per chat per second) in every one-second window, by the
  emulator's clock.

The caps are lowered (``BALCAO_DISPATCH_GLOBAL_RATE``) so that the test takes seconds while each bot still sends at
its cap throughout.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import secrets
import socket
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlmodel import col, select

from bot.sandbox.emulator import BotApiEmulator
from bot.sandbox.state import ApiCall
from core import migrate
from core.db import create_engine, database
from core.settings import load_settings
from models.columns import utcnow
from models.outbox import OutboxMessage, OutboxStatus
from models.people import DEFAULT_BOT_KEY, Person
from notifications.broadcasts import BROADCAST_KIND, AudienceChoice, create_broadcast
from tests.auxil.broadcasts import sent_by
from tests.auxil.municipalities import write_municipalities
from tests.auxil.postgres import ThrowawayCluster
from tests.auxil.processes import clean_env, commands
from tests.notifications.conftest import add_people

CAP = 10
"""Each bot's overall cap in this test, messages per second (Telegram's is 30)."""
LEASE_SECONDS = 3
SECOND = dt.timedelta(seconds=1)
TOKENS = {DEFAULT_BOT_KEY: "111111111:SOAK-default-bot-token", "sapezal": "222222222:SOAK-sapezal-own-bot",
          "nova-xavantina": "333333333:SOAK-nova-xavantina-bot"}
CHATS_PER_BOT = 8
RECIPIENTS_PER_BOT = 30  # plus the chats above: everyone who has used the bots
COMMANDS = {"/ajuda": "Como usar o Balcão", "/privacidade": "Seus dados no Balcão",
            "/cancelar": "Não havia nada em andamento", "/idioma": "Escolha o seu idioma"}
UPDATES_PER_CHAT = 6
NOTICE = "Soak: a coleta de lixo muda de dia na próxima semana."


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _poll(condition: Callable[[], Awaitable[bool]], *, timeout: float, what: str) -> None:  # noqa: ASYNC109
    """Check ``condition`` until it holds, at most ``timeout`` seconds (a database has no change notification)."""
    deadline = time.monotonic() + timeout
    while not await condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {timeout} s")
        await asyncio.sleep(0.2)


def _busiest(times: list[dt.datetime]) -> int:
    """The most calls in any one-second window starting at a call."""
    times = sorted(times)
    return max((sum(1 for t in times[i:] if t < start + SECOND) for i, start in enumerate(times)), default=0)


def _bot_messages(emulator: BotApiEmulator, token: str, chat_id: int) -> list[str]:
    """The bot's answers in a chat, oldest first (the broadcast left out)."""
    chat = emulator.world.chat(emulator.world.bot(token), chat_id)
    return [m.text or "" for m in chat.messages.values() if m.from_bot and NOTICE not in (m.text or "")] if chat else []


@pytest.fixture
async def soak_database(postgres_cluster: ThrowawayCluster | None) -> Any:
    """A database of its own in the throwaway cluster, migrated as ``python -m bot db upgrade`` does."""
    if postgres_cluster is None:
        pytest.skip("the soak test runs several processes against one PostgreSQL: run it with --db=postgres")
    name = f"balcao_soak_{secrets.token_hex(4)}"
    admin = create_engine(postgres_cluster.url("balcao_test")).execution_options(isolation_level="AUTOCOMMIT")
    async with admin.connect() as connection:
        await connection.execute(text(f'CREATE DATABASE "{name}"'))
    url = postgres_cluster.url(name)
    await asyncio.to_thread(migrate.upgrade, url)
    yield url
    async with admin.connect() as connection:
        await connection.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
    await admin.dispose()


async def test_two_run_and_two_dispatch_processes_over_three_bots(soak_database: str, tmp_path: Path) -> None:
    emulator = BotApiEmulator(token=TOKENS[DEFAULT_BOT_KEY])
    root = await emulator.start()
    toml = write_municipalities(tmp_path, sapezal_extra=f'bot_token = "{TOKENS["sapezal"]}"',
                                nx_extra=f'bot_token = "{TOKENS["nova-xavantina"]}"')
    env = clean_env(BALCAO_DATABASE_URL=soak_database, BALCAO_TELEGRAM_TOKEN=TOKENS[DEFAULT_BOT_KEY],
                    BALCAO_TELEGRAM_API_URL=root, BALCAO_MUNICIPALITIES_FILE=str(toml), BALCAO_RUN_DISPATCHER="false",
                    BALCAO_DISPATCH_GLOBAL_RATE=str(CAP), BALCAO_DISPATCH_PER_CHAT_RATE="1",
                    BALCAO_DISPATCH_LEASE_SECONDS=str(LEASE_SECONDS), BALCAO_HTTP_HOST="127.0.0.1")
    try:
        async with commands(tmp_path, env) as processes:
            try:
                await _soak(emulator, processes, soak_database)
            except BaseException as failure:
                failure.add_note(processes.logs())
                raise
    finally:
        await emulator.stop()


async def _soak(emulator: BotApiEmulator, processes: Any, url: str) -> None:
    run_a = await processes.start("run-a", "run", "--bots", "default,sapezal",
                                  env={"BALCAO_HTTP_PORT": str(_free_port())})
    run_b = await processes.start("run-b", "run", "--bots", "nova-xavantina",
                                  env={"BALCAO_HTTP_PORT": str(_free_port())})
    dispatch_x = await processes.start("dispatch-x", "dispatch", "--forever", "--bots", "default")
    dispatch_y_args = ("dispatch", "--forever", "--bots", "sapezal,nova-xavantina")
    dispatch_y = await processes.start("dispatch-y", *dispatch_y_args)
    polling = lambda: {c.token for c in emulator.calls_to("getUpdates")} >= set(TOKENS.values())  # noqa: E731
    await emulator.wait_until(polling, timeout=60)

    # --- every update answered once, in order, per chat: all chats of all bots write at the same instant
    sequences: dict[tuple[str, int], list[str]] = {}
    for index, (key, token) in enumerate(TOKENS.items()):
        for number in range(CHATS_PER_BOT):
            user = emulator.add_user(860_000 + index * 1000 + number, f"Pessoa {key} {number}")
            order = list(COMMANDS)[number % len(COMMANDS):] + list(COMMANDS)
            sequences[(token, user.id)] = [order[i % len(order)] for i in range(UPDATES_PER_CHAT)]
    for (token, chat_id), sent in sequences.items():
        for command in sent:
            emulator.send_text(chat_id, command, to_bot=token)

    def all_answered() -> bool:
        return all(len(_bot_messages(emulator, token, chat_id)) >= UPDATES_PER_CHAT
                   for token, chat_id in sequences)

    await emulator.wait_until(all_answered, timeout=90)
    answers = {chat: _bot_messages(emulator, *chat) for chat in sequences}
    for chat, sent in sequences.items():
        assert [next((c for c, start in COMMANDS.items() if reply.startswith(start)), reply) for reply in answers[chat]
                ] == sent, chat

    # --- a broadcast to the people of the three bots
    async with database(url) as (_engine, sessions):
        for index, key in enumerate(TOKENS):
            people = await add_people(sessions, emulator, RECIPIENTS_PER_BOT, first=870_000 + index * 1000)
            async with sessions() as session:
                for person_id in people:
                    (await session.get(Person, person_id)).bot_key = key  # type: ignore[union-attr]
                await session.commit()
        settings = load_settings(database_url=url,
                                 municipalities_file=Path(processes.env["BALCAO_MUNICIPALITIES_FILE"]))
        emulator.limits(per_chat_per_second=1, global_per_second=CAP)  # Telegram's flood control, per bot
        async with sessions() as session:
            created = await create_broadcast(session=session, **sent_by(settings), choice=AudienceChoice("everyone"),
                                             text=NOTICE, actor="soak", now=utcnow())
            rows = (await session.exec(select(OutboxMessage.id, Person.chat_id, Person.bot_key).join(
                Person, col(Person.id) == col(OutboxMessage.person_id)).where(
                OutboxMessage.kind == BROADCAST_KIND))).all()
        expected = {(TOKENS[bot_key], chat_id) for _id, chat_id, bot_key in rows}
        row_of = {(TOKENS[bot_key], chat_id): row_id for row_id, chat_id, bot_key in rows}
        assert len(expected) == created.recipients == 3 * (RECIPIENTS_PER_BOT + CHATS_PER_BOT)

        def sends(*, ok: bool | None = None) -> list[ApiCall]:
            return [c for c in emulator.calls_to("sendMessage", ok=ok) if NOTICE in str(c.params.get("text", ""))]

        def delivered() -> Counter[tuple[str, int]]:
            return Counter((c.token, int(c.params["chat_id"])) for c in sends(ok=True))

        y_tokens = {TOKENS["sapezal"], TOKENS["nova-xavantina"]}
        y_share = 2 * (RECIPIENTS_PER_BOT + CHATS_PER_BOT)
        await emulator.wait_until(lambda: sum(n for (t, _c), n in delivered().items() if t in y_tokens) >= y_share // 4,
                                  timeout=60)
        await processes.kill(dispatch_y)  # kill -9, mid-broadcast
        async with sessions() as session:  # what Y held and had not marked: the only rows that may go out twice
            held = set((await session.exec(select(OutboxMessage.id).where(
                col(OutboxMessage.claimed_by).contains(f":{dispatch_y.pid}:"),
                OutboxMessage.status == OutboxStatus.SENDING))).all())
        delivered_at_kill = sum(n for (t, _c), n in delivered().items() if t in y_tokens)
        assert delivered_at_kill < y_share, "the broadcast had ended before the kill"
        dispatch_y = await processes.start("dispatch-y-again", *dispatch_y_args)

        await emulator.wait_until(lambda: set(delivered()) >= expected, timeout=60)

        async def all_sent() -> bool:
            async with sessions() as session:
                statuses = Counter((await session.exec(select(OutboxMessage.status).where(
                    OutboxMessage.kind == BROADCAST_KIND))).all())
            return statuses == Counter({OutboxStatus.SENT: len(expected)})

        await _poll(all_sent, timeout=30, what="every broadcast row marked sent")

    counts = delivered()
    assert set(counts) == expected
    twice = {chat for chat, n in counts.items() if n > 1}
    assert all(counts[chat] == 2 for chat in twice)
    assert {row_of[chat] for chat in twice} <= held, "a message not in flight at the kill went out twice"
    for token in TOKENS.values():
        # by the emulator's clock, every call (a refused one too); one call of slack for arrival jitter
        attempts = [c.at for c in sends() if c.token == token]
        assert _busiest(attempts) <= CAP + 1, token
        per_chat: dict[int, list[dt.datetime]] = {}
        for call in sends():
            if call.token == token:
                per_chat.setdefault(int(call.params["chat_id"]), []).append(call.at)
        assert max(_busiest(times) for times in per_chat.values()) == 1, token
    together = [c.at for c in sends(ok=True)]
    assert _busiest(together) > CAP + 1  # the bots sent at once, each at its own cap

    # nothing answered twice meanwhile, and every process stops cleanly on SIGTERM
    assert {chat: _bot_messages(emulator, *chat) for chat in sequences} == answers
    for command in (run_a, run_b, dispatch_x, dispatch_y):
        assert await processes.stop(command) == 0, command.name
    for command in processes.started:  # both runs scan at once (ON CONFLICT dedupe): neither ever failed
        assert "Traceback" not in command.output() and " ERROR " not in command.output(), command.name
