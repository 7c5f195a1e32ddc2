"""Run modes: polling in a real process that stops cleanly on SIGTERM, and webhook mode with its secret."""

import asyncio
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from bot.running import serve
from core import migrate
from core.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_run_polls_answers_and_exits_cleanly_on_sigterm(emulator: Any, tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'run.db'}"
    await asyncio.to_thread(migrate.upgrade, url)
    env = {key: value for key, value in os.environ.items() if not key.startswith("BALCAO_")}
    env.update(BALCAO_TELEGRAM_TOKEN=emulator.token, BALCAO_TELEGRAM_API_URL=emulator.root_url,
               BALCAO_DATABASE_URL=url, BALCAO_HTTP_PORT=str(_free_port()))
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    try:
        maria = emulator.add_user(830001, "Maria")
        emulator.send_text(maria, "/start")
        await emulator.wait_for_message(maria.id, lambda m: "O que você quer fazer?" in (m.text or ""), timeout=30)
        process.send_signal(signal.SIGTERM)
        _stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=30)
    finally:
        if process.returncode is None:
            process.kill()
    assert process.returncode == 0, stderr.decode()
    assert "stopped" in stderr.decode()
    # issue 20 §1: nobody may read a restricted complaint there (L13460 Art. 10 §7), said at start
    assert "municipality nova-xavantina has no Ombudsman" in stderr.decode()
    assert "alembic" not in stderr.decode()  # its INFO lines stay below BALCAO_LOG_LIBRARY_LEVEL


async def test_run_refuses_an_unmigrated_database_and_says_how_to_fix_it(emulator: Any, tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("BALCAO_")}
    env.update(BALCAO_TELEGRAM_TOKEN=emulator.token, BALCAO_TELEGRAM_API_URL=emulator.root_url,
               BALCAO_DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path / 'empty.db'}", PYTHONPATH=str(ROOT))
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", cwd=tmp_path, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    _stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=30)
    assert process.returncode == 2
    assert "python -m bot db upgrade" in stderr.decode()


async def test_run_without_a_token_explains_botfather_and_the_demo(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("BALCAO_")}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    _stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=30)
    assert process.returncode == 2
    explained = stderr.decode()
    assert "Para conseguir um token" in explained  # pt_BR, the default BALCAO_CLI_LOCALE
    assert "@BotFather" in explained and "/newbot" in explained and "python -m bot demo" in explained


async def test_webhook_mode_registers_the_secret_and_answers_updates(
    emulator: Any, settings: Settings, db_url: str
) -> None:
    port = _free_port()
    webhook_settings = settings.model_copy(update={
        "telegram_token": SecretStr(emulator.token), "telegram_api_url": emulator.root_url,
        "webhook_url": f"http://127.0.0.1:{port}", "webhook_secret": SecretStr("a-Very_secret-123"),
        "http_port": port,
    })
    stop = asyncio.Event()
    serving = asyncio.create_task(serve(webhook_settings, stop=stop, check_schema=False))
    try:
        webhook = await emulator.wait_until(lambda: emulator.webhook, timeout=15)
        assert webhook.url == f"http://127.0.0.1:{port}/telegram/webhook"
        assert webhook.secret_token == "a-Very_secret-123"
        maria = emulator.add_user(830002, "Maria", language_code="en")
        emulator.send_text(maria, "/start")
        await emulator.wait_for_message(maria.id, lambda m: "What would you like to do?" in (m.text or ""))
    finally:
        stop.set()
        await asyncio.wait_for(serving, timeout=30)


@pytest.fixture(autouse=True)
def _no_stray_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("BALCAO_"):
            monkeypatch.delenv(name)
