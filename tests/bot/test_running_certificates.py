"""``run`` checks each municipality's signing certificate at start (L14063 Art. 4; docs/LEGAL-CHOICES.md).

A certificate that is configured but cannot be used stops the start with the reason; a municipality without one
starts, and its PDFs are issued unsigned (``/verificar`` says "não assinada").
"""

import asyncio
import os
import sys
from pathlib import Path

from core.municipality import cities_of
from core.settings import Settings
from models.signatures.pades import check_certificates

ROOT = Path(__file__).resolve().parents[2]


async def test_run_refuses_to_start_with_a_certificate_it_cannot_read(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("BALCAO_")}
    env.update({"PYTHONPATH": str(ROOT), "BALCAO_TELEGRAM_TOKEN": "123456789:ABCDEFGHIJKLMNOP",
                "BALCAO_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'run.db'}",
                "BALCAO_MUNICIPALITY_NAME": "Sapezal", "BALCAO_SIGNING_KEY_FILE": str(tmp_path / "chave.pem"),
                "BALCAO_SIGNING_CERT_FILE": str(tmp_path / "cert.pem")})
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", cwd=tmp_path, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    _stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 2
    explained = stderr.decode()
    assert "certificado de assinatura" in explained and "chave.pem" in explained and "Traceback" not in explained


def test_the_municipalities_without_a_certificate_are_named(settings: Settings, signed_settings: Settings) -> None:
    assert check_certificates(cities_of(settings)) == ["sapezal", "nova-xavantina"]
    assert check_certificates(cities_of(signed_settings)) == []
