"""The infraction catalogues: verbatim copies of the shared CSVs, every row loaded and typed."""

import csv
from decimal import Decimal
from pathlib import Path

import pytest

from models.rulebooks import CP, L1533, CatalogueError, get_infraction, infractions_in_force, load_infractions
from models.rulebooks.catalogue import CP_CSV, L1533_CSV

SHARED_LAW = Path("/work/shared/law")


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.skipif(not SHARED_LAW.exists(), reason="the shared law folder is not mounted here")
@pytest.mark.parametrize("copy", [L1533_CSV, CP_CSV], ids=lambda path: path.name)
def test_the_catalogue_files_are_verbatim_copies_of_the_shared_spec(copy: Path) -> None:
    assert copy.read_bytes() == (SHARED_LAW / copy.name).read_bytes()


def test_every_lei_1533_row_loads_with_its_class_value_of_art_25() -> None:
    rows = _rows(L1533_CSV)
    loaded = load_infractions(L1533)
    assert len(loaded) == len(rows) == 7
    # L1533 Art. 25: leve 5 URS, média 10, grave 20, gravíssima 30.
    by_class = {"leve": Decimal(5), "média": Decimal(10), "grave": Decimal(20), "gravíssima": Decimal(30)}
    for row, infraction in zip(rows, loaded, strict=True):
        assert infraction.code == row["codigo"]
        assert infraction.rulebook == "sapezal-1533"
        assert infraction.unit == "URS"
        assert infraction.units == by_class[infraction.severity or ""] == Decimal(row["urs"])
        assert infraction.article == row["artigo"]
        assert infraction.description == row["descricao"]
        assert infraction.recidivism == row["reincidencia"]


def test_every_codigo_de_posturas_row_loads_and_only_ocr_gaps_have_no_value() -> None:
    rows = _rows(CP_CSV)
    loaded = load_infractions(CP)
    assert len(loaded) == len(rows) == 244
    for row, infraction in zip(rows, loaded, strict=True):
        assert infraction.code == f"CP-{row['tabela']}-{row['item']}"
        assert infraction.unit == "UPF-NX"
        assert infraction.table == row["tabela"]
        assert infraction.item == int(row["item"])
        assert infraction.article == row["artigo_multa"]
        assert infraction.chapter == row["capitulo"]
        if row["upf_nx"]:
            assert infraction.units == Decimal(row["upf_nx"]) > 0
        else:
            assert infraction.units is None
            assert "ausente" in row["nota"] or "ilegível" in row["nota"] or "sem valor" in row["nota"]
    assert len({infraction.code for infraction in loaded}) == len(loaded)


def test_the_26_tables_of_the_codigo_de_posturas_are_all_there() -> None:
    tables = {infraction.table for infraction in load_infractions(CP)}
    assert len(tables) == 26


def test_lookup_by_code_is_case_insensitive_and_unknown_codes_are_refused() -> None:
    assert get_infraction("l1533-26-iv").article == "Art. 26, IV"
    assert get_infraction("CP-I-1").description == "Manter terrenos com vegetação alta"
    assert get_infraction("CP-I-1").citation.endswith("Código de Posturas (Nova Xavantina), Art. 53")
    with pytest.raises(CatalogueError, match="CP-XCIX-1"):
        get_infraction("CP-XCIX-1")


def test_only_the_rulebooks_in_force_are_offered() -> None:
    sapezal = infractions_in_force(["sapezal-1533"])
    assert {infraction.rulebook for infraction in sapezal} == {"sapezal-1533"}
    assert len(infractions_in_force(["sapezal-1533", "nx-posturas"])) == 7 + 244
    assert infractions_in_force([]) == ()
