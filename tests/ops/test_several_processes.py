"""Issue 22 items 1 and 4: two ``run`` processes of one bot in webhook mode on PostgreSQL, behind a round robin.

Everything is real: the throwaway PostgreSQL cluster of ``--db=postgres`` (a database of its own, migrated as
``db upgrade`` does), the Bot API emulator, ``python -m bot run`` twice as subprocesses with the same settings
(each on its own port), and between them Telegram's side of the webhook (:mod:`tests.auxil.webhook_relay`):
several connections at once, one chat's updates one after another, each to the next process, delivered again
after any answer but a 2xx. The processes reach the emulator through :mod:`tests.auxil.bot_api_proxy`, which can
hold a reply at the moment a test kills a process.

* Albums of 10 distinct photos and people typing four answers at the same instant: every photo is kept and every
  answer lands in its field. Before, each process answered Telegram as soon as the update was queued, so one
  person's updates ran at once in both processes, each rewrote the whole draft, and the last write won (4, 5 and
  5 photos of 10 kept; answers in the wrong field).
* ``kill -9`` between a step's save and its question: the update is delivered again to the other process, which
  asks the question again before it takes anything typed as an answer (before, nothing ever asked it).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlmodel import select

from bot.sandbox.emulator import BotApiEmulator
from bot.sandbox.state import User
from core.db import database
from models.cases.tables import CaseAttachment
from models.drafts import Draft, get_draft
from models.people import Person
from tests.auxil.bot_api_proxy import BotApiProxy
from tests.auxil.case_chat import Talk
from tests.auxil.emulator import tiny_png
from tests.auxil.municipalities import write_municipalities
from tests.auxil.processes import Command, Commands, clean_env, commands
from tests.auxil.webhook_relay import WebhookRelay
from tests.ops.test_soak import _free_port, soak_database

__all__ = ["soak_database"]  # the fixture: a migrated database of its own in the throwaway cluster

TOKEN = "444444444:SEVERAL-processes-bot"
SECRET = "several-Processes_secret"
PHOTOS = 10
ANSWERS = {"name": "João Batista Pereira", "profession": "Pedreiro", "address": "Rua das Flores, 123, Centro",
           "cpf": "529.982.247-25"}


@dataclass
class Deployment:
    """The running pieces of one test."""

    emulator: BotApiEmulator
    relay: WebhookRelay
    proxy: BotApiProxy
    processes: Commands
    runs: list[Command]
    url: str


@asynccontextmanager
async def two_webhook_processes(url: str, tmp_path: Path) -> AsyncIterator[Deployment]:
    """Two ``run`` processes of one bot, webhook mode, behind the relay; stopped (and checked) after the block."""
    emulator = BotApiEmulator(token=TOKEN)
    root = await emulator.start()
    proxy = BotApiProxy(root)
    api = await proxy.start()
    ports = [_free_port(), _free_port()]
    relay = WebhookRelay([f"http://127.0.0.1:{port}" for port in ports])
    relay_url = await relay.start()
    env = clean_env(BALCAO_DATABASE_URL=url, BALCAO_TELEGRAM_TOKEN=TOKEN, BALCAO_TELEGRAM_API_URL=api,
                    BALCAO_WEBHOOK_URL=relay_url, BALCAO_WEBHOOK_SECRET=SECRET, BALCAO_HTTP_HOST="127.0.0.1",
                    BALCAO_MUNICIPALITIES_FILE=str(write_municipalities(tmp_path)), BALCAO_RUN_DISPATCHER="false",
                    BALCAO_CASE_ATTACHMENTS_MAX=str(PHOTOS), BALCAO_CASES_PER_DAY="50")
    try:
        async with commands(tmp_path, env) as processes:
            try:
                runs = [await processes.start(f"run-{n}", "run", env={"BALCAO_HTTP_PORT": str(port)})
                        for n, port in enumerate(ports)]
                await emulator.wait_until(lambda: len(emulator.calls_to("setWebhook", ok=True)) >= 2, timeout=60)
                yield Deployment(emulator, relay, proxy, processes, runs, url)
            except BaseException as failure:
                failure.add_note(processes.logs())
                raise
    finally:
        await relay.stop()
        await proxy.stop()
        await emulator.stop()


async def _draft(url: str, user_id: int) -> Draft | None:
    async with database(url) as (_engine, sessions), sessions() as session:
        person = (await session.exec(select(Person).where(Person.telegram_user_id == user_id))).first()
        return None if person is None else await get_draft(session=session, person_id=person.id)


async def _settled(deployment: Deployment, url: str, user_id: int, done: Any, *, timeout: float) -> Draft | None:  # noqa: ASYNC109
    """The person's draft once ``done(draft)`` holds, or as it is when ``timeout`` ran out (a database has no
    change notification: it is read again after each change the emulator sees)."""
    deadline = time.monotonic() + timeout
    draft = await _draft(url, user_id)
    while not done(draft) and time.monotonic() < deadline:
        first = iter([None])  # None now, True at the next change: wait for the emulator's next change
        with suppress(TimeoutError):
            await deployment.emulator.world.changes.wait_for(lambda seen=first: next(seen, True),
                                                             min(1.0, deadline - time.monotonic()))
        draft = await _draft(url, user_id)
    return draft


async def _to_the_files(talk: Talk) -> None:
    city = await talk.send("/ouvidoria", "Choose your city")
    kinds = await talk.press(city, "city:sapezal:ouvidoria", "What kind of message is it?")
    await talk.press(kinds, "ouv:type:reclamacao", "Write your message")
    await talk.send("O posto de saúde do bairro está sem médico há duas semanas.", "If you want, send")


async def _to_the_name(talk: Talk) -> None:
    kind = await talk.send("/representacao", "What would you like to report?")
    await talk.press(kind, "rep:kind:cp", "What is your full name?")


def _users(emulator: BotApiEmulator, first: int, count: int) -> list[User]:
    return [emulator.add_user(first + n, f"Pessoa {n}", language_code="en") for n in range(count)]


async def test_albums_and_fast_typists_across_two_processes_lose_nothing(soak_database: str, tmp_path: Path) -> None:
    async with two_webhook_processes(soak_database, tmp_path) as deployment:
        emulator = deployment.emulator
        senders, typists = _users(emulator, 890_100, 3), _users(emulator, 890_200, 3)
        await asyncio.gather(*(_to_the_files(Talk(emulator, user)) for user in senders),
                             *(_to_the_name(Talk(emulator, user)) for user in typists))
        photos = {user.id: [tiny_png(2 + n, 2 + index) for n in range(PHOTOS)] for index, user in enumerate(senders)}
        for user in senders:  # every album and every answer at the same instant
            emulator.send_album(user, photos[user.id])
        for user in typists:
            for answer in ANSWERS.values():
                emulator.send_text(user, answer)

        for user in senders:
            draft = await _settled(deployment, soak_database, user.id,
                                   lambda d: d is not None and len(d.data.get("files", [])) >= PHOTOS, timeout=60)
            assert draft is not None and len(draft.data.get("files", [])) == PHOTOS, (user.id, draft and draft.data)
            async with database(soak_database) as (_engine, sessions), sessions() as session:
                kept = (await session.exec(select(CaseAttachment).where(
                    CaseAttachment.id.in_(draft.data["files"])))).all()  # type: ignore[union-attr]
            assert len({attachment.sha256 for attachment in kept}) == PHOTOS  # ten distinct photos, each kept
        for user in typists:
            draft = await _settled(deployment, soak_database, user.id,
                                   lambda d: d is not None and d.step == "what", timeout=60)
            assert draft is not None and draft.step == "what", (user.id, draft and (draft.step, draft.data))
            assert {key: draft.data.get(key) for key in ("name", "profession", "address")} == {
                key: ANSWERS[key] for key in ("name", "profession", "address")}
            assert re.sub(r"\D", "", str(draft.data.get("cpf"))) == re.sub(r"\D", "", ANSWERS["cpf"])
        await emulator.wait_until(lambda: True if deployment.relay.idle() else None, timeout=30)
        for run in deployment.runs:
            assert await deployment.processes.stop(run) == 0, run.name
            assert "Traceback" not in run.output(), run.name


async def test_kill_9_between_a_steps_save_and_its_question_asks_it_again(soak_database: str, tmp_path: Path) -> None:
    async with two_webhook_processes(soak_database, tmp_path) as deployment:
        emulator, relay = deployment.emulator, deployment.relay
        [user] = _users(emulator, 890_300, 1)
        talk = Talk(emulator, user)
        await _to_the_name(talk)
        await talk.send(ANSWERS["name"], "profession")
        await talk.send(ANSWERS["profession"], "What is your address")
        held = deployment.proxy.hold("sendMessage", lambda params: "CPF" in str(params.get("text", "")))
        mark = talk._mark()
        emulator.send_text(user, ANSWERS["address"])
        await asyncio.wait_for(held.arrived.wait(), timeout=30)  # saved at the CPF step; its question not yet sent
        draft = await _draft(soak_database, user.id)
        assert draft is not None and draft.step == "cpf" and draft.data["address"] == ANSWERS["address"]
        # the process handling the address, waiting for its reply (the last to get it, if it answered already)
        [target] = relay.in_flight.values() or [relay.attempts[-1].target]
        holder = deployment.runs[target]
        await deployment.processes.kill(holder)
        held.drop()

        # Telegram delivers the update again, to the other process: the CPF question is asked again
        again = await emulator.wait_for_message(user.id, lambda m: "CPF" in (m.text or ""), after=mark, timeout=30)
        assert "Let's continue from where we stopped:" in talk.since(mark)
        await talk.send(ANSWERS["cpf"], "Type one or two words")
        draft = await _draft(soak_database, user.id)
        assert draft is not None and draft.step == "what" and draft.data["address"] == ANSWERS["address"]
        assert re.sub(r"\D", "", str(draft.data["cpf"])) == re.sub(r"\D", "", ANSWERS["cpf"])
        assert again.message_id > mark

