"""Fines the catalogue did not compute: CP Art. 57 §§1–3 (warning first), Tabela III per m², the unit value of the
year of the infraction, and recidivism by nature (CP Art. 8 par. único) with the earlier notice shown to staff."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import translator
from core.municipality import Municipality, cities_of
from core.settings import Settings
from models.notices.elements import NoticeRefused
from models.notices.issuing import prepare
from models.notices.recidivism import same_nature_codes
from models.rulebooks import get_infraction
from tests.auxil.notices import cp_auto, cp_preliminar, issue, pdf_text
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
    ready = await prepare(session=session, cities=cities_of(settings), data=cp_auto(infraction_code="CP-I-2"), now=NOW)
    assert ready.recidivist and ready.fine.doubled  # stagnant water: another row, the same article
    assert ready.recidivism_of is not None and ready.recidivism_of.number == weeds.number  # shown to staff
    other_chapter = await prepare(session=session, cities=cities_of(settings), data=cp_auto(infraction_code="CP-II-1"),
                                  now=NOW)
    assert not other_chapter.recidivist
    only_code = settings.model_copy(update={"cp_recidivism_nature": "codigo"})
    assert not (await prepare(session=session, cities=cities_of(only_code), data=cp_auto(infraction_code="CP-I-2"),
                              now=NOW)).recidivist


def test_the_natures_of_the_setting(settings: Settings) -> None:
    """BALCAO_CP_RECIDIVISM_NATURE: codigo ⊆ artigo ⊆ capitulo; Lei 1.533 repeats are per inciso (same row)."""
    row = get_infraction("CP-I-1")
    def city(nature: str) -> Municipality:
        return cities_of(settings.model_copy(update={"cp_recidivism_nature": nature})).default

    code, article, chapter = (same_nature_codes(row, city(nature)) for nature in ("codigo", "artigo", "capitulo"))
    assert code == ["CP-I-1"] and set(code) < set(article) <= set(chapter)
    assert same_nature_codes(get_infraction("L1533-26-IV"), cities_of(settings).default) == ["L1533-26-IV"]


async def test_cp_art_57_an_earlier_sewage_auto_is_no_reason_to_skip_the_warning(
    session: AsyncSession, settings: Settings
) -> None:
    """Art. 57 §1: the first offence *of this provision* is warned; an Art. 61 sewage auto is not that warning.

    Today's main fined the first water-pollution offence and doubled it (2 × 9 UPF-NX × R$ 42 = R$ 756)."""
    sewage = (await issue(session, settings, cp_auto(infraction_code="CP-II-6", drawn_up_on=dt.date(2026, 1, 5)),
                          now=NOW)).notice
    assert sewage.fine_cents == 15 * 4200
    first = (await issue(session, settings, cp_auto(infraction_code="CP-II-3", drawn_up_on=dt.date(2026, 2, 2)),
                         now=NOW)).notice
    assert first.warning_only and first.fine_cents == 0  # R$ 0, a warning (not R$ 756)
    repeat = (await issue(session, settings, cp_auto(infraction_code="CP-II-3"), now=NOW)).notice
    # §3 fined on the repeat; Art. 8 doubles it because an earlier auto of the same nature carried a fine (#13).
    assert not repeat.warning_only and repeat.fine_cents == 2 * 9 * 4200


async def test_cp_art_57_a_warning_on_a_notificacao_preliminar_is_the_first_step(
    session: AsyncSession, settings: Settings
) -> None:
    """Art. 57 §§1–3: warned on a preliminar, the repeat is fined R$ 378 (9 UPF-NX × R$ 42), not warned again."""
    water = {"infraction_code": "CP-II-3"}
    warning = (await issue(session, settings, cp_preliminar(drawn_up_on=dt.date(2026, 1, 5), **water),
                           now=NOW)).notice
    assert warning.warning_only and warning.fine_cents == 0
    repeat = await prepare(session=session, cities=cities_of(settings), data=cp_auto(**water), now=NOW)
    assert not repeat.fine.warning and repeat.fine.amount == Decimal("378.00")  # today's main: R$ 0 again
    assert not repeat.fine.doubled and repeat.recidivism_of is not None and repeat.recidivism_of.id == warning.id
    following = await prepare(session=session, cities=cities_of(settings),
                              data=cp_auto(preliminar_id=warning.id, **water), now=NOW)
    assert following.fine.amount == Decimal("378.00")  # Art. 28: the auto after the preliminar that warned
    notice = (await issue(session, settings, cp_auto(**water), now=NOW)).notice
    assert "dobro" not in pdf_text(notice.pdf).lower()  # the first fine after the warning is not doubled


async def test_cp_art_8_already_autuada_when_the_new_offence_was_committed(
    session: AsyncSession, settings: Settings
) -> None:
    """Art. 8 par. único "já autuada": an offence committed before the earlier auto was drawn up is no repeat.

    Auto of 10/2/2026; a second offence committed on 5/2 and drawn up on 2/3 is fined once (12 UPF-NX, R$ 504),
    not doubled (R$ 1.008) as today's main did (it compared the drawing-up days); one committed on 20/2 is doubled."""
    await issue(session, settings, cp_auto(drawn_up_on=dt.date(2026, 2, 10)), now=NOW)
    before = await prepare(session=session, cities=cities_of(settings),
                           data=cp_auto(infraction_code="CP-I-2", infraction_on=dt.date(2026, 2, 5)), now=NOW)
    assert not before.recidivist and before.recidivism_of is None
    after = await prepare(session=session, cities=cities_of(settings),
                          data=cp_auto(infraction_code="CP-I-2", infraction_on=dt.date(2026, 2, 20)), now=NOW)
    assert after.recidivist and after.fine.doubled
    assert (before.fine.amount, after.fine.amount) == (Decimal("504.00"), Decimal("1008.00"))


async def test_an_auto_after_a_preliminar_takes_the_unit_value_of_the_infractions_year(
    session: AsyncSession, settings: Settings
) -> None:
    """CP Art. 12 and Art. 28 (LEGAL-CHOICES #15): preliminar of 20/12/2025, auto of 2/3/2026 → the 2025 UPF-NX.

    9 UPF-NX × R$ 40,00 = R$ 360,00; today's main priced the auto with the 2026 value (R$ 378,00)."""
    preliminar = (await issue(session, settings, cp_preliminar(drawn_up_on=dt.date(2025, 12, 20)), now=NOW)).notice
    assert preliminar.fine_cents == 9 * 4000
    auto = (await issue(session, settings, cp_auto(preliminar_id=preliminar.id), now=NOW)).notice
    assert auto.fine_cents == 9 * 4000 and auto.infraction_on == dt.date(2025, 12, 20)
    assert "20 de dezembro de 2025" in pdf_text(auto.pdf)


async def test_a_fine_refusal_is_in_the_readers_language(session: AsyncSession, settings: Settings) -> None:
    """CP Art. 34 IV (the fine): the FineError is a msgid like every refusal, not an English reason inside it."""
    with pytest.raises(NoticeRefused) as refused:
        await issue(session, settings, cp_auto(quantity=Decimal(2)), now=NOW)
    portuguese = refused.value.problems[0].render(translator("pt_BR"))
    assert "is not charged" not in portuguese and "não é cobrada por m²" in portuguese
    assert "no se cobra por m²" in refused.value.problems[0].render(translator("es"))
