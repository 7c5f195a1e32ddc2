"""``python -m bot scan``, ``dispatch`` and ``broadcast`` as operators run them (real processes, pt_BR output)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from sqlmodel import select

from bot.sandbox.emulator import BotApiEmulator
from core.db import SessionFactory
from models.broadcasts import Broadcast
from models.outbox import OutboxMessage, OutboxStatus
from tests.notifications.conftest import FIRST_USER_ID, add_people
from tests.notifications.processes import dispatch_env, stamp_head


async def cli(env: dict[str, str], cwd: Path, *args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", *args, cwd=cwd, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode is not None
    return process.returncode, stdout.decode(), stderr.decode()


async def test_broadcast_then_dispatch_from_the_command_line(
    db_url: str, sessions: SessionFactory, emu: BotApiEmulator, tmp_path: Path
) -> None:
    await add_people(sessions, emu, 3)
    await stamp_head(db_url)
    env = dispatch_env(db_url, emu)
    code, out, err = await cli(env, tmp_path, "broadcast", "--help")
    assert code == 0 and "everyone" in out and "drivers " in out  # the contract's audience, registered by drivers
    assert "drivers-expiring" in out and "precisa de --days N" in out

    code, out, err = await cli(env, tmp_path, "broadcast", "--audience", "nobody-knows", "--text", "Oi")
    assert code == 2 and "público desconhecido 'nobody-knows'" in err
    code, out, err = await cli(env, tmp_path, "broadcast", "--audience", "everyone", "--text", "Oi", "--at", "ontem")
    assert code == 2 and "--at 'ontem'" in err
    code, out, err = await cli(env, tmp_path, "broadcast", "--audience", "everyone", "--text", "Oi",
                               "--at", "2020-01-01 08:00")
    assert code == 2 and "--at já passou" in err

    code, out, err = await cli(env, tmp_path, "broadcast", "--audience", "everyone",
                               "--text", "Feira <sábado> & domingo")
    assert code == 0, err
    assert "Aviso nº 1 na fila para 3 pessoas, envio agora." in out
    code, out, err = await cli(env, tmp_path, "dispatch")
    assert code == 0, err
    assert "enviadas 3, sem acesso 0, com falha 0" in out
    assert "Feira &lt;sábado&gt; &amp; domingo" in emu.calls_to("sendMessage")[0].params["text"]  # plain text, escaped
    assert {m.chat_id for m in (emu.messages(FIRST_USER_ID + i)[0] for i in range(3))} == {
        FIRST_USER_ID, FIRST_USER_ID + 1, FIRST_USER_ID + 2}

    code, out, err = await cli(env, tmp_path, "broadcast", "--audience", "everyone", "--text", "Mais tarde",
                               "--at", "31/12/2099 08:00")
    assert code == 0 and "envio em 2099-12-31 08:00" in out
    async with sessions() as session:
        later = (await session.exec(select(Broadcast).where(Broadcast.id == 2))).one()
        pending = (await session.exec(select(OutboxMessage).where(OutboxMessage.broadcast_id == 2))).all()
    assert later.send_at.isoformat() == "2099-12-31T12:00:00+00:00"  # 08:00 in Cuiabá (UTC−4)
    assert {row.status for row in pending} == {OutboxStatus.PENDING}


async def test_scan_runs_every_scan_and_dispatch_needs_a_token(
    db_url: str, emu: BotApiEmulator, tmp_path: Path
) -> None:
    await stamp_head(db_url)
    env = dispatch_env(db_url, emu)
    code, out, err = await cli(env, tmp_path, "scan")
    assert code in (0, 1), err  # 1 only if a scan failed, and it then says which
    assert all(line.endswith("na fila") or "FALHOU" in line for line in out.strip().splitlines())
    code, out, err = await cli({**env, "BALCAO_TELEGRAM_TOKEN": ""}, tmp_path, "dispatch")
    assert code == 2 and "BALCAO_TELEGRAM_TOKEN não está definido" in err
