"""The infraction catalogues of the two laws, loaded from the CSV files in ``data/``.

The CSVs are verbatim copies of ``shared/law/`` (the spec); a test checks that they stay equal. Each row
becomes a frozen :class:`Infraction`. The law text is Portuguese and is kept as data (it is not UI text).

- ``sapezal-lei-1533-infracoes.csv``: Sapezal L1533 Art. 26 I–VI and Art. 27, in URS
  (*Unidade de Referência de Sapezal*, Art. 25). Codes as in the CSV, e.g. ``L1533-26-IV``.
- ``nova-xavantina-posturas-infracoes.csv``: Nova Xavantina Lei 1.101/2004 (Código de Posturas), Tabelas I–XXVI,
  in UPF-NX (Art. 12). Codes are ``CP-<tabela>-<item>``, e.g. ``CP-VII-1``. Rows whose value the OCR lost have
  ``units=None``: the fine must then be given explicitly (see :func:`models.fines.compute_fine`).
- ``nova-xavantina-posturas-dispositivos.csv``: ours, not the spec's: for each Código de Posturas row, the provision
  it infringes (CP Art. 25 III, 34 III; L9784 Art. 26 §1 VI), since the spec's ``artigo_multa`` is the penalty
  article (Art. 53, 61…) that only sets the fine. Table I names the inciso of Art. 50 or 52; the other tables name
  the articles of the chapter the penalty article closes ("Na infração de qualquer artigo deste Capítulo"), which
  the inspector may narrow. The "Outros" rows name no conduct: ``exige_dispositivo = sim``, the inspector must give
  the provision (docs/LEGAL-CHOICES.md, item 40).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import cache
from pathlib import Path
from typing import Final, Literal

RulebookId = Literal["sapezal-1533", "nx-posturas"]
FiscalUnit = Literal["URS", "UPF-NX"]

DATA_DIR: Final = Path(__file__).resolve().parent / "data"
L1533_CSV: Final = DATA_DIR / "sapezal-lei-1533-infracoes.csv"
CP_CSV: Final = DATA_DIR / "nova-xavantina-posturas-infracoes.csv"
CP_PROVISIONS_CSV: Final = DATA_DIR / "nova-xavantina-posturas-dispositivos.csv"
L1533_PROVISION_REQUIRED: Final = frozenset({"L1533-26-III"})
"""Lei 1.533 rows that name no conduct of their own: Art. 26 III sends to "regras do art. 13", twenty-five incisos."""

L1533: Final[RulebookId] = "sapezal-1533"
CP: Final[RulebookId] = "nx-posturas"
RULEBOOK_IDS: Final[tuple[RulebookId, ...]] = (L1533, CP)

LAW_TITLES: Final[dict[str, str]] = {
    L1533: "Lei nº 1.533/2020 (Sapezal)",
    CP: "Lei nº 1.101/2004 – Código de Posturas (Nova Xavantina)",
}


class CatalogueError(ValueError):
    """A catalogue file or a lookup is wrong (unknown code, bad row)."""


@dataclass(frozen=True, slots=True)
class Infraction:
    """One row of an infraction table.

    Attributes:
        rulebook: ``"sapezal-1533"`` or ``"nx-posturas"``.
        code: stable id: the CSV ``codigo`` (Lei 1.533) or ``CP-<tabela>-<item>`` (Código de Posturas).
        article: the article that types the infraction / sets its fine (``artigo`` or ``artigo_multa``).
        description: the law's description (Portuguese, as data).
        unit: the fiscal unit the value is in: ``URS`` or ``UPF-NX``.
        units: the value in units, or ``None`` when the published table lost it (OCR gap).
        severity: Lei 1.533 class (``leve``, ``grave``, ``gravíssima``), ``None`` for the Código de Posturas.
        penalties: Lei 1.533 ``penalidades`` column (e.g. ``multa; suspensão…``); ``None`` for the CP.
        table: CP table number in Roman numerals (``VII``); ``None`` for Lei 1.533.
        table_title: CP table title.
        item: CP item number within the table.
        chapter: CP chapter the table closes.
        recidivism: the repeat-offence clause as the CSV records it (``reincidencia``).
        note: editorial note on the row (OCR problems, conflicts).
        infringed: the provision the conduct infringes (CP Art. 25 III, 34 III), e.g. ``Art. 50, I``; for Lei
            1.533 the inciso of Art. 26 that types it. Empty when the row names no conduct.
        provision_required: the row names no conduct ("Outros"; L1533 Art. 26 III): the inspector gives the
            provision infringed, or the notice is refused.
    """

    rulebook: RulebookId
    code: str
    article: str
    description: str
    unit: FiscalUnit
    units: Decimal | None
    severity: str | None = None
    penalties: str | None = None
    table: str | None = None
    table_title: str | None = None
    item: int | None = None
    chapter: str | None = None
    recidivism: str = ""
    note: str = ""
    infringed: str = ""
    provision_required: bool = False

    @property
    def law_title(self) -> str:
        """The law this row belongs to, e.g. ``Lei nº 1.533/2020 (Sapezal)``."""
        return LAW_TITLES[self.rulebook]

    @property
    def citation(self) -> str:
        """Legal reference for a notice's second line, e.g. ``Lei nº 1.533/2020 (Sapezal), Art. 26, IV``."""
        return f"{self.law_title}, {self.article}"

    @property
    def table_item(self) -> str:
        """The table and item of a Código de Posturas row (``Tabela I, item 1``); empty for Lei 1.533."""
        return f"Tabela {self.table}, item {self.item}" if self.table else ""


def _units(raw: str, *, where: str) -> Decimal | None:
    if not raw.strip():
        return None
    try:
        value = Decimal(raw.strip())
    except InvalidOperation as exc:
        raise CatalogueError(f"{where}: value {raw!r} is not a number") from exc
    if value <= 0:
        raise CatalogueError(f"{where}: value {raw!r} is not positive")
    return value


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _l1533(path: Path) -> tuple[Infraction, ...]:
    rows = []
    for line, row in enumerate(_read(path), start=2):
        where = f"{path.name}:{line}"
        rows.append(
            Infraction(
                rulebook=L1533,
                code=row["codigo"].strip(),
                article=row["artigo"].strip(),
                description=row["descricao"].strip(),
                unit="URS",
                units=_units(row["urs"], where=where),
                severity=row["gravidade"].strip() or None,
                penalties=row["penalidades"].strip() or None,
                recidivism=row["reincidencia"].strip(),
                note=row["nota"].strip(),
                infringed=row["artigo"].strip(),  # L1533 Art. 26: the inciso types the conduct
                provision_required=row["codigo"].strip() in L1533_PROVISION_REQUIRED,
            )
        )
    return tuple(rows)


def _cp_provisions(path: Path) -> dict[tuple[str, str], tuple[str, bool]]:
    """(tabela, item) → (provision infringed, whether the inspector must give it)."""
    provisions = {}
    for line, row in enumerate(_read(path), start=2):
        provision, required = row["dispositivo_infringido"].strip(), row["exige_dispositivo"].strip() == "sim"
        if not provision and not required:
            raise CatalogueError(f"{path.name}:{line}: a row without a provision must require one")
        provisions[(row["tabela"].strip(), row["item"].strip())] = (provision, required)
    return provisions


def _cp(path: Path) -> tuple[Infraction, ...]:
    provisions = _cp_provisions(CP_PROVISIONS_CSV)
    rows = []
    for line, row in enumerate(_read(path), start=2):
        where = f"{path.name}:{line}"
        table, item = row["tabela"].strip(), row["item"].strip()
        if not item.isdigit():
            raise CatalogueError(f"{where}: item {item!r} is not a number")
        if (table, item) not in provisions:
            raise CatalogueError(f"{where}: no provision infringed for Tabela {table} item {item} in "
                                 f"{CP_PROVISIONS_CSV.name}")
        infringed, required = provisions[(table, item)]
        rows.append(
            Infraction(
                rulebook=CP,
                code=f"CP-{table}-{item}",
                article=row["artigo_multa"].strip(),
                description=row["descricao"].strip(),
                unit="UPF-NX",
                units=_units(row["upf_nx"], where=where),
                table=table,
                table_title=row["tabela_titulo"].strip(),
                item=int(item),
                chapter=row["capitulo"].strip(),
                recidivism=row["reincidencia"].strip(),
                note=row["nota"].strip(),
                infringed=infringed,
                provision_required=required,
            )
        )
    return tuple(rows)


@cache
def load_infractions(rulebook: RulebookId) -> tuple[Infraction, ...]:
    """Every infraction of one rulebook, in the CSV's order.

    Args:
        rulebook: ``"sapezal-1533"`` or ``"nx-posturas"``.

    Raises:
        CatalogueError: unknown rulebook, a malformed row, or a duplicate code.
    """
    if rulebook == L1533:
        rows = _l1533(L1533_CSV)
    elif rulebook == CP:
        rows = _cp(CP_CSV)
    else:
        raise CatalogueError(f"unknown rulebook {rulebook!r}; use one of {', '.join(RULEBOOK_IDS)}")
    codes = [row.code for row in rows]
    duplicates = sorted({code for code in codes if codes.count(code) > 1})
    if duplicates:
        raise CatalogueError(f"duplicate codes in {rulebook}: {', '.join(duplicates)}")
    return rows


@cache
def _by_code() -> dict[str, Infraction]:
    return {row.code: row for rulebook in RULEBOOK_IDS for row in load_infractions(rulebook)}


def get_infraction(code: str) -> Infraction:
    """The infraction with this code (``L1533-26-IV``, ``CP-VII-1``; case-insensitive).

    Raises:
        CatalogueError: no such code.
    """
    found = _by_code().get(code.strip().upper())
    if found is None:
        raise CatalogueError(f"unknown infraction code {code!r}")
    return found


def infractions_in_force(rulebooks: list[RulebookId] | tuple[RulebookId, ...]) -> tuple[Infraction, ...]:
    """The infractions of the rulebooks a deployment enables (``settings.rulebooks``), in catalogue order."""
    return tuple(row for rulebook in RULEBOOK_IDS if rulebook in rulebooks for row in load_infractions(rulebook))
