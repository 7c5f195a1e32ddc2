"""Issuing: every element of CP Art. 25 / Art. 34 (and L1533 Art. 22) checked, the fine, the PDF, delivery."""

from __future__ import annotations

import base64
import datetime as dt
from dataclasses import replace

import pytest
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import translator
from core.settings import Settings, load_settings
from models.drivers.tables import Driver
from models.notices.chain import events_of
from models.notices.codes import code_hash
from models.notices.delivery import cpf_claimant, staff_list
from models.notices.elements import NoticeRefused
from models.notices.tables import DeliveryState, Notice, NoticeDelivery, NoticeType, StaffReason
from models.tlog.coverage import parse_leaf
from models.tlog.proofs import entries_of_row, run
from tests.auxil.notices import (
    JOAO_CPF,
    MARIA_CPF,
    cp_auto,
    cp_preliminar,
    issue,
    l1533_auto,
    opted_in,
    outbox,
    pdf_text,
)
from tests.auxil.tlog import verify
from tests.models.notices.conftest import NOW, Cast


@pytest.mark.parametrize(
    ("missing", "article"),
    [
        ("offender_name", "Art. 25, I"),
        ("drawn_up_on", "Art. 25, II"),
        ("drawn_up_time", "Art. 25, II"),
        ("place", "Art. 25, II"),
        ("facts", "Art. 25, III"),
        ("infraction_code", "Art. 25, III"),
    ],
)
async def test_a_preliminar_missing_an_element_of_cp_art_25_is_refused_naming_the_article(
    session: AsyncSession, settings: Settings, cast: Cast, missing: str, article: str
) -> None:
    with pytest.raises(NoticeRefused) as refused:
        await issue(session, settings, cp_preliminar(**{missing: None}), now=NOW)
    [problem] = refused.value.problems
    assert problem.element == missing
    assert problem.citation.endswith(article) and "Código de Posturas" in problem.citation
    assert (await session.exec(select(Notice))).first() is None


@pytest.mark.parametrize(
    ("missing", "article"),
    [
        ("place", "Art. 34, I"),
        ("drawn_up_time", "Art. 34, I"),
        ("offender_name", "Art. 34, II"),
        ("facts", "Art. 34, III"),
    ],
)
async def test_an_auto_missing_an_element_of_cp_art_34_is_refused_naming_the_article(
    session: AsyncSession, settings: Settings, cast: Cast, missing: str, article: str
) -> None:
    with pytest.raises(NoticeRefused) as refused:
        await issue(session, settings, cp_auto(**{missing: "  "}), now=NOW)
    assert [p.citation.rsplit(", ", 2)[-2:] for p in refused.value.problems] == [article.split(", ")]


async def test_every_missing_element_is_reported_at_once(session: AsyncSession, settings: Settings) -> None:
    with pytest.raises(NoticeRefused) as refused:
        await issue(session, settings, cp_auto(offender_name=None, place=None), now=NOW)
    assert {p.element for p in refused.value.problems} == {"offender_name", "place"}


async def test_a_text_too_long_is_refused_in_the_readers_words(session: AsyncSession, settings: Settings) -> None:
    with pytest.raises(NoticeRefused) as refused:
        await issue(session, settings, cp_auto(offender_name="Maria " * 30), now=NOW)
    [problem] = refused.value.problems
    assert problem.element == "offender_name"
    assert problem.render(translator("pt_BR")) == "Infrator: texto longo demais, use menos de 160 caracteres"


async def test_lei_1533_has_no_preliminar_and_its_auto_cites_art_22(session: AsyncSession, settings: Settings) -> None:
    with pytest.raises(NoticeRefused) as refused:
        await issue(session, settings, l1533_auto(type=NoticeType.PRELIMINAR), now=NOW)
    assert "Art. 22" in refused.value.problems[0].citation
    with pytest.raises(NoticeRefused) as refused:
        await issue(session, settings, l1533_auto(facts=""), now=NOW)
    assert refused.value.problems[0].citation == "Lei nº 1.533/2020 (Sapezal), Art. 22–23"


async def test_an_infraction_of_the_other_law_or_a_law_not_in_force_is_refused(
    session: AsyncSession, settings: Settings
) -> None:
    with pytest.raises(NoticeRefused, match="another law"):
        await issue(session, settings, cp_auto(infraction_code="L1533-26-IV"), now=NOW)
    # A deployment serving only Sapezal: the Código de Posturas is Nova Xavantina's law (CF Art. 30 I).
    only_sapezal = load_settings(database_url=settings.database_url, municipality_name="Sapezal",
                                 unit_values={"URS": {2026: "5.25"}})
    with pytest.raises(NoticeRefused, match="not in force"):
        await issue(session, only_sapezal, cp_auto(), now=NOW)


async def test_a_drawing_up_in_the_future_is_refused(session: AsyncSession, settings: Settings) -> None:
    with pytest.raises(NoticeRefused, match="future"):
        await issue(session, settings, cp_auto(drawn_up_on=dt.date(2026, 3, 3)), now=NOW)


async def test_the_fine_is_the_table_value_times_the_years_unit_value(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    cp = (await issue(session, settings, cp_auto(), now=NOW)).notice
    assert (cp.fine_cents, cp.fine_units, cp.fine_unit, cp.recidivist) == (37800, "9.00", "UPF-NX", False)
    sapezal = (await issue(session, settings, l1533_auto(offender_document=JOAO_CPF), now=NOW)).notice
    assert (sapezal.fine_cents, sapezal.fine_unit) == (10500, "URS")  # Art. 25 III: grave = 20 URS × R$ 5,25


async def test_cp_art_8_a_second_auto_for_the_same_infraction_doubles_the_fine(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    await issue(session, settings, cp_auto(drawn_up_on=dt.date(2026, 2, 2)), now=NOW)
    only_code = settings.model_copy(update={"cp_recidivism_nature": "codigo"})
    other = await issue(session, only_code, cp_auto(infraction_code="CP-I-2"), now=NOW)
    assert not other.notice.recidivist  # BALCAO_CP_RECIDIVISM_NATURE=codigo: another row is another nature
    again = await issue(session, settings, cp_auto(), now=NOW)
    assert again.notice.recidivist and again.notice.fine_cents == 2 * 37800
    assert "doubled for repeat offence (Art. 8)" in pdf_text(again.pdf) or "dobro" in pdf_text(again.pdf)


async def test_a_preliminar_does_not_make_a_repeat_offender(session: AsyncSession, settings: Settings) -> None:
    await issue(session, settings, cp_preliminar(drawn_up_on=dt.date(2026, 2, 2)), now=NOW)
    assert not (await issue(session, settings, cp_auto(), now=NOW)).notice.recidivist


async def test_lei_1533_repeat_keeps_the_fine_and_adds_the_art_26_suspension(
    session: AsyncSession, settings: Settings
) -> None:
    await issue(session, settings, l1533_auto(drawn_up_on=dt.date(2026, 2, 2)), now=NOW)
    again = await issue(session, settings, l1533_auto(), now=NOW)
    assert again.notice.recidivist and again.notice.fine_cents == 10500
    assert again.notice.penalties == "suspension|Art. 26, §1º"


async def test_the_number_the_code_and_the_pdf(session: AsyncSession, settings: Settings, cast: Cast) -> None:
    issued = await issue(session, settings, cp_auto(), now=NOW)
    notice = issued.notice
    assert notice.number == f"AI-2026-{notice.id:06d}"
    assert (await issue(session, settings, cp_preliminar(), now=NOW)).notice.number.startswith("NP-2026-")
    assert len(issued.code) == 14 and issued.code.count("-") == 2
    assert notice.code_hash == code_hash(issued.code) and issued.code not in notice.number
    assert issued.pdf.startswith(b"%PDF") and notice.pdf == issued.pdf
    text = pdf_text(issued.pdf)
    for element in (notice.number, "Maria Aparecida da Silva", "529.982.247-25", "Rua 7 de Setembro, 200",
                    "Art. 53", "09:30", "Inês Fiscal", issued.code, "R$ 378,00", "Art. 37",
                    "Súmula Vinculante 21", f"{settings.http_root}/verificar/{issued.code}"):
        assert element in text, element
    # CP Art. 46 is not a condition of the appeal (STF Súmula Vinculante 21; CF Art. 5 XXXIV, LV)
    assert "sem ele, o recurso não segue" not in text and "não é preciso depositar nada" in text


async def test_issuing_appends_the_notice_its_events_and_delivery_to_the_log(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    notice = (await issue(session, settings, cp_auto(), now=NOW)).notice
    assert notice.id is not None
    [entry] = await run(session, entries_of_row, "notice", notice.id)
    table, row_id, values = parse_leaf(entry.data)
    assert (table, row_id) == ("notice", notice.id) and values is not None
    assert values["number"] == notice.number and values["stage"] == "AWAITING_CIENCIA"
    assert values["pdf"] == notice.pdf_sha256  # the PDF enters as its SHA-256
    report = await verify(session)
    assert report.ok and report.rows == report.entries >= 4  # notice, issued + delivery events, delivery


async def test_an_opted_in_person_gets_the_notice_in_the_bot_as_a_mandatory_message_with_the_pdf(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    issued = await issue(session, settings, cp_auto(person_id=cast.maria.id), now=NOW)
    [message] = await outbox(session, "notice.delivery")
    assert message.person_id == cast.maria.id and message.mandatory
    assert base64.b64decode(message.payload["pdf_b64"]) == issued.pdf
    delivery = (await session.exec(select(NoticeDelivery))).one()
    assert delivery.state is DeliveryState.ELECTRONIC and message.dedupe_key == delivery.outbox_key


async def test_a_notice_to_a_cpf_registered_at_opt_in_goes_to_that_persons_chat_at_once(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Issue 20 §1: Maria typed her CPF at opt-in; an auto issued to that CPF reaches her chat, not paper."""
    by_optin = await issue(session, settings, cp_auto(offender_document=MARIA_CPF), now=NOW)
    assert by_optin.notice.person_id == cast.maria.id
    [message] = await outbox(session, "notice.delivery")
    assert message.person_id == cast.maria.id and message.mandatory
    assert await staff_list(session=session) == []
    [issued] = [e for e in await events_of(session=session, notice_id=by_optin.notice.id or 0) if e.kind == "issued"]
    assert issued.data["person_by_optin_cpf"] is True  # the chain says the person came from their own word
    session.add(Driver(municipality="sapezal", cpf=JOAO_CPF, name="João", cnh_number="1", cnh_category="B",
                       cnh_issued_on=dt.date(2010, 1, 1), person_id=cast.joao.id))
    await session.commit()
    by_driver = await issue(session, settings, cp_auto(offender_document=JOAO_CPF), now=NOW)
    assert by_driver.notice.person_id == cast.joao.id
    by_telegram = await issue(session, settings, cp_auto(offender_document=None, person_telegram_id=9002), now=NOW)
    assert by_telegram.notice.person_id == cast.joao.id


async def test_with_optin_cpf_delivery_staff_a_cpf_typed_at_opt_in_is_only_suggested(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """LEGAL-CHOICES #71's alternative: the CPF typed at opt-in only suggests the person to staff."""
    cautious = settings.model_copy(update={"optin_cpf_delivery": "staff"})
    by_optin = await issue(session, cautious, cp_auto(offender_document=MARIA_CPF), now=NOW)
    assert by_optin.notice.person_id is None and await outbox(session, "notice.delivery") == []
    [item] = await staff_list(session=session)
    assert item.delivery.staff_reason is StaffReason.NO_PERSON
    claimant = await cpf_claimant(session=session, notice=by_optin.notice)
    assert claimant is not None and claimant.id == cast.maria.id


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"offender_document": None}, StaffReason.NO_PERSON),
        ({"offender_document": None, "person_telegram_id": 9002}, StaffReason.NO_OPTIN),
    ],
)
async def test_without_an_opted_in_person_the_notice_goes_to_the_staff_list(
    session: AsyncSession, settings: Settings, cast: Cast, changes: dict[str, object], reason: StaffReason
) -> None:
    issued = await issue(session, settings, replace(cp_auto(), **changes), now=NOW)
    [item] = await staff_list(session=session)
    assert item.notice.id == issued.notice.id and item.delivery.staff_reason is reason
    assert await outbox(session) == []


async def test_an_auto_from_a_representation_case_keeps_the_case_reference(
    session: AsyncSession, settings: Settings
) -> None:
    issued = await issue(session, settings, cp_auto(case_id=42), now=NOW)
    assert issued.notice.case_id == 42


async def test_an_auto_may_follow_only_a_preliminar_cp_art_28(session: AsyncSession, settings: Settings) -> None:
    preliminar = (await issue(session, settings, cp_preliminar(), now=NOW)).notice
    auto = await issue(session, settings, cp_auto(preliminar_id=preliminar.id), now=NOW)
    assert auto.notice.preliminar_id == preliminar.id
    with pytest.raises(NoticeRefused, match="preliminary"):
        await issue(session, settings, cp_auto(preliminar_id=auto.notice.id), now=NOW)


async def test_a_cpf_claimed_at_opt_in_by_two_people_finds_nobody(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    await opted_in(session, cast.joao.id, cpf=MARIA_CPF, now=NOW)
    issued = await issue(session, settings, cp_auto(offender_document=MARIA_CPF), now=NOW)
    assert issued.notice.person_id is None
    [item] = await staff_list(session=session)
    assert item.delivery.staff_reason is StaffReason.NO_PERSON
    assert await cpf_claimant(session=session, notice=issued.notice) is None
