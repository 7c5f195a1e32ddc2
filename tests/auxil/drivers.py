"""Helpers for the driver tests: valid identifiers, registry CSV text and a registry seeded through the import."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import Any

import pytest
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import cities_of
from core.settings import Settings, load_settings
from models.drivers.importing import import_drivers
from models.drivers.registry_csv import COLUMNS, ImportReport


def cpf(base: str) -> str:
    """A valid CPF from nine digits (check digits computed)."""
    digits = base
    for weight in (10, 11):
        total = sum(int(d) * (weight - i) for i, d in enumerate(digits))
        remainder = total % 11
        digits += "0" if remainder < 2 else str(11 - remainder)
    return digits


def cnh(base: str) -> str:
    """A valid CNH number from nine digits (bases whose first check digit is below 10)."""
    numbers = [int(d) for d in base]
    first = sum(n * (9 - i) for i, n in enumerate(numbers)) % 11
    second = sum(n * (i + 1) for i, n in enumerate(numbers)) % 11
    assert first < 10, "pick another base"
    return f"{base}{first}{second if second < 10 else 0}"


def renavam(base: str) -> str:
    """A valid 11-digit RENAVAM from ten digits."""
    total = sum(int(d) * w for d, w in zip(base, (3, 2, 9, 8, 7, 6, 5, 4, 3, 2), strict=True))
    check = (total * 10) % 11
    return base + str(0 if check == 10 else check)


MARIA_CPF = cpf("123456789")  # 123.456.789-09: Maria Aparecida, the driver
JORGE_CPF = cpf("987654321")
PAULO_CPF = cpf("111444777")


def driver_row(**overrides: Any) -> dict[str, str]:
    """A valid CSV row for Maria Aparecida (authorized on 2026-03-10, inspected the same day)."""
    row = {
        "cpf": "123.456.789-09",
        "nome": "Maria Aparecida da Silva",
        "telefone": "(65) 99911-0001",
        "cnh_numero": cnh("026503064"),
        "cnh_categoria": "B",
        "cnh_emissao": "2015-06-01",
        "placa": "QBX-1234",
        "renavam": renavam("0123456789"),
        "ano_modelo": "2023",
        "autorizacao_numero": "2026/001",
        "autorizacao_emissao": "2026-03-10",
        "autorizacao_validade": "",
        "vistoria_data": "10/03/2026",
        "vistoria_resultado": "aprovado",
    }
    row.update({key: str(value) for key, value in overrides.items()})
    return row


def csv_text(rows: list[dict[str, str]], *, delimiter: str = ";") -> str:
    """The registry CSV (header + rows) as the SMFO exports it."""
    lines = [delimiter.join(COLUMNS)]
    lines += [delimiter.join(row.get(column, "") for column in COLUMNS) for row in rows]
    return "\n".join(lines) + "\n"


async def seed_registry(
    session: AsyncSession, settings: Settings, rows: list[dict[str, str]], *, today: dt.date | None = None
) -> ImportReport:
    """Import rows through the real import (fails the test on any error)."""
    report = await import_drivers(
        session=session, text=csv_text(rows), actor="test", cities=cities_of(settings), today=today or dt.date(2026,
                                                                                                               3, 20)
    )
    assert not report.errors, report.errors
    return report


def settings_without_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Default settings (no .env, no BALCAO_* variable) for the pure status rules, which need no database."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("BALCAO_"):
            monkeypatch.delenv(name)
    return load_settings(database_url="sqlite+aiosqlite://")
