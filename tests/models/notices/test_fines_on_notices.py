"""Fines the catalogue did not compute: CP Art. 57 §§1–3 (warning first), Tabela III per m², the unit value of the
year of the infraction, and recidivism by nature (CP Art. 8 par. único) with the earlier notice shown to staff."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.i18n import translator
from bot.settings import Settings
from models.notices.issuing import NoticeRefused, prepare
from models.notices.recidivism import same_nature_codes
from models.rulebooks import get_infraction
from tests.auxil.notices import cp_auto, issue, pdf_text
from tests.auxil.tlog import verify
from tests.models.notices.conftest import NOW


async def test_cp_art_57_a_first_water_pollution_offence_is_a_warning_and_the_repeat_is_fined(
    session: AsyncSession, settings: Settings
) -> None:
    """Art. 57 §1: warned first (today's main fined 9 UPF-NX at once); §3: fined on repeat; Art. 8 doubles later."""
    water = {"infraction_code": "CP-II-3"}
    first = (await issue(session, settings, cp_auto(drawn_up_on=dt.date(2026, 1, 5), **water), now=NOW)).notice
    assert first.warning_only and first.fine_cents == 0
    assert "advertência" in pdf_text(first.pdf).lower()
    second = (await issue(session, settings, cp_auto(drawn_up_on=dt.date(2026, 2, 2), **water), now=NOW)).notice
    assert not second.warning_only and second.recidivist and second.fine_cents == 9 * 4200  # the table value
    assert second.recidivism_of == first.id
    third = (await issue(session, settings, cp_auto(**water), now=NOW)).notice
    assert third.fine_cents == 2 * 9 * 4200 and third.recidivism_of == second.id  # doubled over an earlier fine
    assert (await verify(session)).ok


async def test_tabela_iii_is_charged_per_square_metre(session: AsyncSession, settings: Settings) -> None:
    """Tabela III item 2 (Art. 68), "por m² de espaço em via pública": units per m² × the area."""
    rubble = {"infraction_code": "CP-III-2", "units": Decimal(2)}  # the published table lost the value
    with pytest.raises(NoticeRefused, match="per m²"):
        await issue(session, settings, cp_auto(**rubble), now=NOW)
    notice = (await issue(session, settings, cp_auto(quantity=Decimal("3.5"), **rubble), now=NOW)).notice
    assert (notice.fine_units, notice.quantity, notice.fine_cents) == ("7.0", "3.5", 7 * 4200)
    assert "3,5 m²" in pdf_text(notice.pdf)
    with pytest.raises(NoticeRefused) as not_per_area:
        await issue(session, settings, cp_auto(quantity=Decimal(2)), now=NOW)
    assert "not charged per m²" in not_per_area.value.problems[0].render(translator("en"))


async def test_the_unit_value_is_that_of_the_year_of_the_infraction(session: AsyncSession, settings: Settings) -> None:
    """CP Art. 12 (UPF-NX): committed 20/12/2025, drawn up 2/3/2026 — the 2025 value (R$ 40,00) applies."""
    notice = (await issue(session, settings, cp_auto(infraction_on=dt.date(2025, 12, 20)), now=NOW)).notice
    assert notice.infraction_on == dt.date(2025, 12, 20) and notice.fine_cents == 9 * 4000
    assert "20 de dezembro de 2025" in pdf_text(notice.pdf)
    with pytest.raises(NoticeRefused, match="after the day it is drawn up"):
        await issue(session, settings, cp_auto(infraction_on=dt.date(2026, 3, 3)), now=NOW)


async def test_cp_art_8_recidivism_is_an_infraction_of_the_same_nature_not_the_same_row(
    session: AsyncSession, settings: Settings
) -> None:
    """Art. 8 par. único "infração da mesma natureza": by default the same fining article (Art. 53, Tabela I)."""
    weeds = (await issue(session, settings, cp_auto(drawn_up_on=dt.date(2026, 2, 2)), now=NOW)).notice
    ready = await prepare(session=session, settings=settings, data=cp_auto(infraction_code="CP-I-2"), now=NOW)
    assert ready.recidivist and ready.fine.doubled  # stagnant water: another row, the same article
    assert ready.recidivism_of is not None and ready.recidivism_of.number == weeds.number  # shown to staff
    other_chapter = await prepare(session=session, settings=settings, data=cp_auto(infraction_code="CP-II-1"),
                                  now=NOW)
    assert not other_chapter.recidivist
    only_code = settings.model_copy(update={"cp_recidivism_nature": "codigo"})
    assert not (await prepare(session=session, settings=only_code, data=cp_auto(infraction_code="CP-I-2"),
                              now=NOW)).recidivist


def test_the_natures_of_the_setting(settings: Settings) -> None:
    """BALCAO_CP_RECIDIVISM_NATURE: codigo ⊆ artigo ⊆ capitulo; Lei 1.533 repeats are per inciso (same row)."""
    row = get_infraction("CP-I-1")
    code = same_nature_codes(row, settings.model_copy(update={"cp_recidivism_nature": "codigo"}))
    article = same_nature_codes(row, settings)
    chapter = same_nature_codes(row, settings.model_copy(update={"cp_recidivism_nature": "capitulo"}))
    assert code == ["CP-I-1"] and set(code) < set(article) <= set(chapter)
    assert same_nature_codes(get_infraction("L1533-26-IV"), settings) == ["L1533-26-IV"]
