"""The municipalities of the test deployment: Sapezal and Nova Xavantina, each with its own law and unit values.

The values are the wave-1 defaults the existing tests were written against (URS R$ 5,25 and UPF-NX R$ 42,00 in
2026); they are configured, not illustrative, so fines are issued as in production.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncConnection

from core.municipalities import built_in
from models.columns import utcnow
from models.municipalities import Municipality

TEST_TOML = """
[[municipality]]
slug = "sapezal"
name = "Sapezal"
state = "MT"
ibge_code = "5107875"
rulebooks = ["sapezal-1533"]
unit_values.URS = { 2025 = "5.00", 2026 = "5.25" }
{sapezal_extra}

[[municipality.offices]]
name = "SMFO"
address = "Av. Antonio André Maggi, 1400, Centro"

[municipality.encarregado]
name = "Bruna Encarregada"
contact = "lgpd@sapezal.mt.gov.br"

[[municipality]]
slug = "nova-xavantina"
name = "Nova Xavantina"
state = "MT"
ibge_code = "5106257"
rulebooks = ["nx-posturas"]
unit_values.UPF-NX = { 2025 = "40.00", 2026 = "42.00" }
{nx_extra}

[[municipality.offices]]
name = "Fiscalização de Posturas"
address = "Av. Expedição Roncador Xingú, 249, Setor Xavantina"
hours = "segunda a sexta, 7h às 11h e 13h às 17h"
"""


def write_municipalities(directory: Path, *, sapezal_extra: str = "", nx_extra: str = "") -> Path:
    """Write the test deployment's municipalities file (extra TOML lines go into each table) and return its path."""
    path = directory / "municipalities.toml"
    path.write_text(TEST_TOML.replace("{sapezal_extra}", sapezal_extra).replace("{nx_extra}", nx_extra),
                    encoding="utf-8")
    return path


async def seed_municipality_rows(connection: AsyncConnection) -> None:
    """The ``municipality`` rows the app syncs at start, for tests that write rows without starting it."""
    rows = [{"slug": m.slug, "name": m.name, "state": m.state, "ibge_code": m.ibge_code, "served": True,
             "synced_at": utcnow()}
            for m in built_in().values()]
    await connection.execute(Municipality.__table__.insert(), rows)  # type: ignore[attr-defined]
