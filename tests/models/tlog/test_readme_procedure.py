"""The README's "Verifying a notice" procedure, run as written against what the public endpoints serve."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy import text
from sqlmodel.ext.asyncio.session import AsyncSession

from core.settings import Settings
from tests.auxil.notices import pdf_text
from tests.models.tlog.conftest import Life

README = Path(__file__).resolve().parents[3] / "README.md"


def _script() -> str:
    after = README.read_text(encoding="utf-8").split("<!-- verify-notice -->", 1)[1]
    return after.split("```python\n", 1)[1].split("```", 1)[0]


async def test_the_documented_procedure_verifies_a_real_notice_and_refuses_another_pdf(
    session: AsyncSession, settings: Settings, sessions: Any, life: Life, tmp_path: Path
) -> None:
    from bot.web import build_web_app

    async with TestClient(TestServer(build_web_app(settings=settings, sessions=sessions))) as client:
        (tmp_path / "prova.json").write_bytes(await (await client.get(f"/verificar/{life.code}/prova.json")).read())
        (tmp_path / "chave.pem").write_bytes(await (await client.get("/verificar/chave.pem")).read())
    [pdf] = (await session.exec(text("SELECT pdf FROM notice WHERE id = :n").bindparams(n=life.notice_id))).one()  # type: ignore[call-overload]
    (tmp_path / "notificacao.pdf").write_bytes(bytes(pdf))
    assert f"/verificar/{life.code}/prova.json" in pdf_text(bytes(pdf)).replace("\n", "")  # the PDF points to it
    (tmp_path / "other.pdf").write_bytes(bytes(pdf) + b"\n%forged")
    (tmp_path / "verify_notice.py").write_text(_script(), encoding="utf-8")

    def run(pdf_name: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "verify_notice.py", "prova.json", pdf_name, "chave.pem"],
                              cwd=tmp_path, capture_output=True, text=True, check=False)

    good, bad = await asyncio.gather(asyncio.to_thread(run, "notificacao.pdf"), asyncio.to_thread(run, "other.pdf"))
    assert good.returncode == 0 and "OK: entry" in good.stdout and "stage DECIDED" in good.stdout, good.stderr
    assert bad.returncode != 0 and "this PDF is not the logged notice" in bad.stderr
