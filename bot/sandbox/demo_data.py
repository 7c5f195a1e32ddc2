"""Demo drivers for ``python -m bot demo``: one in every interesting state of Lei 1.533/2020.

``demo_drivers.csv`` is a registry file in the import format, written as if today were :data:`REFERENCE_DAY`;
:func:`seed_drivers` moves its dates by the days since then (and model years by the years), imports it through the
real import, then records what a CSV cannot carry (a failed re-inspection, a suspension, a revocation, a
cassação). So on any day the demo shows:

========================  =============================================================================
Carlos Motorista          expiring soon (20 days), inspection due with it; his phone is the web chat's
                          driver persona's: link with "Share my phone number" and the CPF digits 123
Ana Paula Ribeiro         active
Bruno Henrique Costa      awaiting the first inspection (Art. 9: approved 2 days ago)
Denise Almeida            failed a re-inspection 2 days ago: 5 days to fix it, may still work (Art. 16 §2)
Eduardo Lima              expired 12 days ago
Fábio Souza               suspended for 30 days (Art. 26 §1), ending in 5 days
Gustavo Nunes             revoked (Art. 24 I c)
Helena Martins            cassada (Art. 24 I f)
Igor Ferreira             vehicle in its last year under the age limit (Art. 2 §§1–2)
========================  =============================================================================

Running it again on the same day changes nothing (the import and each step are idempotent).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from pathlib import Path

from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import translator
from core.municipality import cities_of
from core.settings import Settings
from models.drivers.importing import import_drivers
from models.drivers.registry import Sanction, apply_sanction, authorization_by_number, record_inspection, registry_city
from models.drivers.registry_csv import COLUMNS, parse_date
from models.drivers.tables import Authorization, InspectionResult

REFERENCE_DAY = dt.date(2026, 6, 1)
"""The day ``demo_drivers.csv`` is written for."""
CSV_PATH = Path(__file__).with_name("demo_drivers.csv")
DATE_COLUMNS = ("cnh_emissao", "autorizacao_emissao", "vistoria_data")
DRIVER_PERSONA_CPF_START = "123"
"""The first three CPF digits the web chat's driver (Carlos) types to link."""


def demo_csv(today: dt.date) -> str:
    """The demo registry with its dates moved from :data:`REFERENCE_DAY` to ``today``."""
    shift = today - REFERENCE_DAY
    years = today.year - REFERENCE_DAY.year
    reader = csv.DictReader(io.StringIO(CSV_PATH.read_text(encoding="utf-8")), delimiter=";")
    output = io.StringIO()
    writer = csv.DictWriter(output, fieldnames=list(COLUMNS), delimiter=";", lineterminator="\n")
    writer.writeheader()
    for row in reader:
        for column in DATE_COLUMNS:
            if row[column]:
                row[column] = (parse_date(row[column], today=REFERENCE_DAY) + shift).isoformat()
        row["ano_modelo"] = str(int(row["ano_modelo"]) + years)
        writer.writerow(row)
    return output.getvalue()


async def seed_drivers(*, session: AsyncSession, settings: Settings, today: dt.date) -> list[str]:
    """Load the demo drivers (idempotent on the same day).

    Args:
        session: database session (committed here).
        settings: the demo's settings.
        today: the civil today.

    Returns:
        One line per hint worth printing when the demo starts, in the CLI locale (BALCAO_CLI_LOCALE).

    Raises:
        RuntimeError: the demo file does not import (a bug in the demo data).
    """
    report = await import_drivers(session=session, text=demo_csv(today), actor="demo", cities=cities_of(settings),
                                  today=today)
    if report.errors:
        raise RuntimeError(f"demo drivers do not import: {report.errors}")

    async def authorization(number: str) -> Authorization:
        found = await authorization_by_number(session=session, number=number)
        assert found is not None
        return found

    bruno = await authorization("2026/0088")
    approved = today - dt.timedelta(days=2)
    if bruno.approved_on != approved:  # a demo database from another day: approved "2 days ago" again (Art. 9)
        bruno.approved_on = bruno.vehicle_since = approved

    denise = await authorization("2026/0012")
    await record_inspection(session=session, vehicle_id=denise.vehicle_id, inspected_on=today - dt.timedelta(days=2),
                            result=InspectionResult.FAILED, actor="demo", notes="Pneu dianteiro careca.")
    sanctions = (
        ("2026/0004", Sanction.SUSPENSION, 25),
        ("2025/0210", Sanction.REVOCATION, 15),
        ("2025/0233", Sanction.CASSACAO, 20),
    )
    for number, sanction, days_ago in sanctions:
        target = await authorization(number)
        since = today - dt.timedelta(days=days_ago)
        already = {
            Sanction.SUSPENSION: target.suspended_since,
            Sanction.REVOCATION: target.revoked_on,
            Sanction.CASSACAO: target.cassada_on,
        }[sanction]
        if already != since:
            await apply_sanction(session=session, authorization=target, sanction=sanction, since=since, actor="demo",
                                 city=registry_city(cities_of(settings)), suspension_rule="l1533-26-1-suspensao")
    await session.commit()
    tr = translator(settings.cli_locale, settings.timezone)  # the language of the CLI that started the demo
    return [
        tr._("Demo drivers: {rows} in the registry (expiring, awaiting inspection, failed, expired, suspended, "
             "revoked, cassada, last vehicle year).").format(rows=report.rows),
        tr._("To link the driver persona (Carlos): /vincular, share the phone number, CPF digits {digits}.").format(
            digits=DRIVER_PERSONA_CPF_START),
    ]
