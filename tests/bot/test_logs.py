"""Issue 10 item 1 and issue 14 item 3: a whole journey logged at DEBUG leaks no secret and no personal data;
the JSON format is one object per line with the context fields.

A citizen files a representação (CPF, name, address), a driver links with a one-time link, staff work the case
through the API, an error happens; everything logged, by every logger at the levels ``BALCAO_LOG_LEVEL=DEBUG``
and ``BALCAO_LOG_LIBRARY_LEVEL=DEBUG`` give, goes through Balcão's handler in both formats.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import logging
import re
from collections.abc import Iterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from pydantic import SecretStr
from sqlmodel import select

from bot.logs import LIBRARY_LOGGERS, build_handler, setup_logging
from bot.web import build_web_app
from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.cases.tables import Case
from models.columns import utcnow
from models.drivers.linking import create_link_code
from models.people import Person, Role, add_staff
from models.when import municipal_today
from tests.auxil.bot_harness import running_bot
from tests.auxil.case_chat import Talk
from tests.auxil.case_files import png
from tests.auxil.drivers import MARIA_CPF, driver_row, seed_registry

JOAO, MARIA, CLARA = 831001, 831002, 831101
STAFF_TOKEN = "staff-api-token-Zq8Lw3vN0pR"
WEBHOOK_SECRET = "webhook-secret-Hk2Tj9Xc4Ym"
PERSONAL = ["529.982.247-25", "52998224725", "João Batista Pereira", "Batista", "Rua das Flores", "Pedreiro",
            MARIA_CPF, re.sub(r"\D", "", MARIA_CPF), "Maria Aparecida", "99911-0001"]


@pytest.fixture
def logged(settings: Settings) -> Iterator[tuple[io.StringIO, io.StringIO, Settings]]:
    configured = settings.model_copy(update={
        "log_level": "DEBUG", "log_library_level": "DEBUG",
        "staff_api_token": SecretStr(STAFF_TOKEN), "webhook_secret": SecretStr(WEBHOOK_SECRET),
    })
    text, lines = io.StringIO(), io.StringIO()
    root = logging.getLogger()
    saved = {name: logging.getLogger(name).level for name in ("", *LIBRARY_LOGGERS, "sqlalchemy", "aiosqlite")}
    yield text, lines, configured
    for handler in [h for h in root.handlers if getattr(h, "_test_log", False)]:
        root.removeHandler(handler)
    for name, level in saved.items():
        logging.getLogger(name).setLevel(level)


def _attach(settings: Settings, text: io.StringIO, lines: io.StringIO, emulator_token: str) -> None:
    with_token = settings.model_copy(update={"telegram_token": SecretStr(emulator_token)})
    setup_logging(with_token)  # the levels; pytest's own capture keeps the root handler, so add ours
    for stream, fmt in ((text, "text"), (lines, "json")):
        handler = build_handler(with_token.model_copy(update={"log_format": fmt}), stream)
        handler._test_log = True  # type: ignore[attr-defined]
        logging.getLogger().addHandler(handler)


async def _journey(emulator: Any, settings: Settings, sessions: SessionFactory) -> str:
    async with sessions() as session:
        session.add(Person(telegram_user_id=CLARA, chat_id=CLARA, first_name="Clara", locale="en"))
        await session.commit()
        await add_staff(session=session, telegram_user_id=CLARA, role=Role.CLERK, name="Clara", actor="test")
        today = municipal_today(settings.tz, now=utcnow())
        start = (today - dt.timedelta(days=40)).isoformat()
        await seed_registry(session, settings, [driver_row(autorizacao_emissao=start, vistoria_data=start)],
                            today=today)
        issued = await create_link_code(session=session, cpf=MARIA_CPF, actor="cli", now=utcnow(),
                                        city=cities_of(settings).default)
    joao = Talk(emulator, emulator.add_user(JOAO, "João", last_name="Batista Pereira", language_code="en"))
    kind = await joao.send("/representacao", "What would you like to report?")
    await joao.press(kind, "rep:kind:cp", "What is your full name?")
    await joao.send("João Batista Pereira", "profession")
    await joao.send("Pedreiro", "What is your address")
    await joao.send("Rua das Flores, 123, Centro", "type your CPF")
    await joao.send("529.982.247-25", "Type one or two words")
    results = await joao.send("lixo na rua", "Is it one of these?")
    accused = await joao.press(results, "rep:inf:CP-I-9", "Describe briefly what happened")
    accused = await joao.send("Um caminhão despeja entulho na calçada da Rua das Flores.", "Who is responsible?")
    await joao.press(accused, "rep:skip:accused", "Where did it happen?")
    when = await joao.send("Rua das Flores, em frente ao 123", "When did it happen?")
    evidence = await joao.press(when, "rep:when:1", "Send photos or documents")
    with_file = await joao.photo(png(), "File received (1 of 5)")
    assert evidence
    learned = await joao.press(with_file, "rep:files:done", "How did you learn of it?")
    relation = await joao.press(learned, "rep:learn:saw", "partner, director, agent or employee")
    review = await joao.press(relation, "rep:rel:none", "Please check your report")
    await joao.press(review, "rep:send", "Your protocol number is")
    maria = Talk(emulator, emulator.add_user(MARIA, "Maria", last_name="Aparecida da Silva", language_code="en"))
    await maria.send(f"/start {issued.start_payload}", "Done: your Telegram is linked")
    emulator.fail_next("sendMessage", error_code=400, description="Bad Request: can't parse entities", chat_id=MARIA)
    await maria.send("/situacao", "Sorry, something went wrong")  # an unhandled error, with its reference
    async with sessions() as session:
        case = (await session.exec(select(Case))).one()
    return case.protocol


async def test_a_whole_journey_at_debug_leaks_no_secret_and_no_personal_data(
    emulator: Any, sessions: SessionFactory, logged: tuple[io.StringIO, io.StringIO, Settings]
) -> None:
    text, lines, settings = logged
    _attach(settings, text, lines, emulator.token)
    async with running_bot(settings, sessions, emulator):
        protocol = await _journey(emulator, settings, sessions)
    api = build_web_app(settings, sessions)
    async with TestClient(TestServer(api)) as client:
        staff = {"Authorization": f"Bearer {STAFF_TOKEN}", "X-Balcao-Staff": str(CLARA)}
        assert (await client.get(f"/api/cases/{protocol}", headers=staff)).status == 200
        assert (await client.post(f"/api/cases/{protocol}/assign", json={}, headers=staff)).status == 200
    logging.getLogger("balcao.test").debug("journey done")
    for output in (text.getvalue(), lines.getvalue()):
        assert "journey done" in output and len(output.splitlines()) > 100  # it did log, at DEBUG, a lot
        for secret in (emulator.token, emulator.token.split(":", 1)[1], STAFF_TOKEN, WEBHOOK_SECRET, *PERSONAL):
            assert secret not in output, secret
    records = [json.loads(line) for line in lines.getvalue().splitlines()]
    assert all({"time", "level", "logger", "message"} <= record.keys() for record in records)
    in_update = [r for r in records if "update_id" in r]
    assert in_update and all(re.fullmatch(r"P-[0-9A-F]{8}", r["person"]) for r in in_update if "person" in r)
    assert any("person" in r for r in in_update)
    [error] = [r for r in records if r["level"] == "ERROR" and r["logger"] == "balcao.errors"]
    assert re.fullmatch(r"E-[0-9A-F]{6}", error["error_ref"]) and "update_id" in error
    assert any(r.get("protocol") == protocol for r in records)  # the API's lines carry the case


def test_secrets_are_redacted_from_messages_arguments_and_exceptions(settings: Settings) -> None:
    token = "123456789:AAE-secretPart_xyz0123456789"
    configured = settings.model_copy(update={"telegram_token": SecretStr(token),
                                             "staff_api_token": SecretStr(STAFF_TOKEN)})
    for fmt in ("text", "json"):
        out = io.StringIO()
        handler = build_handler(configured.model_copy(update={"log_format": fmt}), out)
        logger = logging.getLogger("balcao.redaction-test")
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
        logger.propagate = False
        try:
            logger.warning("GET https://api.telegram.org/bot%s/getMe with %s for 529.982.247-25", token, STAFF_TOKEN)
            try:
                raise RuntimeError(f"https://api.telegram.org/bot{token}/sendMessage failed; token {token}")
            except RuntimeError:
                logger.exception("call failed")
            logger.info("another bot's path /bot987654321:ZZZ-unknown_token_123/getMe", extra={"update_id": 5})
            logger.info("a bare token 987654321:AAH-abcdefghijklmnopqrstuvwxyz012345")
        finally:
            logger.removeHandler(handler)
            logger.propagate = True
        written = out.getvalue()
        assert token not in written and token.split(":")[1] not in written and STAFF_TOKEN not in written
        assert "ZZZ-unknown_token_123" not in written and "529.982.247-25" not in written
        assert "abcdefghijklmnopqrstuvwxyz012345" not in written and "a bare token [redacted]" in written
        assert "bot[redacted]/getMe" in written and "RuntimeError" in written
        if fmt == "json":
            assert all(json.loads(line)["logger"] == "balcao.redaction-test" for line in written.splitlines())


def test_the_log_level_setting_is_applied_and_libraries_stay_quiet(settings: Settings) -> None:
    saved = {name: logging.getLogger(name).level for name in ("", *LIBRARY_LOGGERS, "sqlalchemy")}
    try:
        setup_logging(settings.model_copy(update={"log_level": "WARNING"}))
        assert logging.getLogger().level == logging.WARNING
        assert all(logging.getLogger(name).level == logging.WARNING for name in LIBRARY_LOGGERS)
        setup_logging(settings.model_copy(update={"log_level": "DEBUG", "log_library_level": "DEBUG"}))
        assert logging.getLogger().level == logging.DEBUG and logging.getLogger("httpx").level == logging.DEBUG
        assert logging.getLogger("sqlalchemy").level == logging.WARNING  # query parameters are people's data
    finally:
        for name, level in saved.items():
            logging.getLogger(name).setLevel(level)
