"""Fines from configured values only (issue 11 item 3): outside the demo, no fine with the demo's illustrative values
or without the year's value of that municipality's unit; the demo says on every fine that its values are
illustrative."""

import datetime as dt

import pytest
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.sandbox.demo import DEMO_MUNICIPALITIES_FILE
from core.i18n import translator
from core.settings import Settings, load_settings
from models.notices.elements import NoticeRefused
from tests.auxil.notices import cp_auto, issue, l1533_auto, pdf_text

NOW = dt.datetime(2026, 3, 2, 14, 0, tzinfo=dt.UTC)


def _demo_file(settings: Settings) -> Settings:
    return load_settings(database_url=settings.database_url, municipalities_file=DEMO_MUNICIPALITIES_FILE)


async def test_outside_the_demo_illustrative_values_are_refused_naming_the_setting(
    session: AsyncSession, settings: Settings
) -> None:
    with pytest.raises(NoticeRefused) as refused:
        await issue(session, _demo_file(settings), cp_auto(), now=NOW)
    text = refused.value.problems[0].render(translator("en"))
    assert "illustrative" in text and "Nova Xavantina" in text
    assert f'{DEMO_MUNICIPALITIES_FILE}: [[municipality]] slug = "nova-xavantina", unit_values.UPF-NX' in text


async def test_the_demo_issues_and_says_the_values_are_illustrative(session: AsyncSession, settings: Settings) -> None:
    demo = _demo_file(settings).as_demo()
    issued = await issue(session, demo, l1533_auto(), now=NOW)
    text = pdf_text(issued.pdf)
    assert "Prefeitura Municipal de Sapezal" in text
    assert "Demonstração: os valores da unidade fiscal são ilustrativos" in text


async def test_a_single_municipality_without_the_years_value_names_balcao_unit_values(
    session: AsyncSession, settings: Settings
) -> None:
    single = load_settings(database_url=settings.database_url, municipality_name="Nova Xavantina",
                           unit_values={"UPF-NX": {2025: "40.00"}})
    with pytest.raises(NoticeRefused) as refused:
        await issue(session, single, cp_auto(), now=NOW)
    text = refused.value.problems[0].render(translator("en"))
    assert "No value of UPF-NX for 2026 is configured for Nova Xavantina" in text and "BALCAO_UNIT_VALUES" in text
