"""How /situacao reads: the headline step answers the state, and every detail line cites its article."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from core.i18n import translator
from core.municipality import cities_of
from core.settings import Settings
from handlers.chat.driver_texts import details_text, steps_text, summary_text
from models.drivers.registry import DriverSituation
from models.drivers.status import authorization_status, validity_end
from models.drivers.tables import Authorization, Inspection, InspectionResult, Vehicle
from tests.auxil.drivers import settings_without_database

D = dt.date


@pytest.fixture
def rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    return settings_without_database(tmp_path, monkeypatch)


def situation(rules: Settings, on: D, **fields: object) -> DriverSituation:
    paid = D(2026, 3, 10)
    authorization = Authorization(id=1, number="2026/001", driver_id=1, vehicle_id=7, approved_on=paid,
                                  fee_paid_on=paid, valid_until=validity_end(paid, cities_of(rules).default),
                                  vehicle_since=paid,
                                  **fields)
    vehicle = Vehicle(id=7, plate="QBX1234", renavam="01234567897", model_year=2023)
    inspections = [Inspection(vehicle_id=7, inspected_on=paid, result=InspectionResult.APPROVED)]
    status = authorization_status(authorization=authorization, inspections=inspections, vehicle=vehicle, on=on,
                                  city=cities_of(rules).default)
    return DriverSituation(1, 9, "Maria Aparecida", "***.456.789-**", "2026/001", "QBX-1234", 2023, status)


def test_an_expired_authorization_leads_with_renewal(rules: Settings) -> None:
    text = summary_text(translator("en"), situation(rules, D(2027, 3, 20)))
    assert "Authorization nº 2026/001</b> — Expired" in text
    assert "It ended on Wednesday, March 10, 2027." in text and "⛔" in text
    assert "<b>Next:</b> Renew your authorization: it ended on Wednesday, March 10, 2027." in text
    assert text.endswith("<i>Lei 1.533/2020, Art. 3º, par. único</i>")


def test_a_suspension_leads_with_its_end(rules: Settings) -> None:
    text = summary_text(translator("pt_BR"), situation(rules, D(2026, 6, 1), suspended_since=D(2026, 5, 1),
                                                       suspended_until=D(2027, 5, 1)))
    assert "Suspensa até sábado, 1 de maio de 2027" in text
    assert "<b>Próximo passo:</b> Aguarde o fim da suspensão" in text
    assert text.endswith("<i>Lei 1.533/2020, Art. 24, par. único</i>")


def test_every_step_cites_its_article(rules: Settings) -> None:
    text = steps_text(translator("es"), situation(rules, D(2026, 6, 1)), "SMFO")
    lines = text.splitlines()
    bullets = [index for index, line in enumerate(lines) if line.startswith("• ")]
    assert bullets and all(lines[index + 1].strip().startswith("<i>Lei 1.533/2020, Art.") for index in bullets)
    assert "<b>Dónde:</b> SMFO" in text


@pytest.mark.parametrize("on", [D(2026, 6, 1), D(2027, 2, 20), D(2027, 3, 20)])  # active, expiring, expired
def test_the_details_are_short_and_say_the_validity_once(rules: Settings, on: D) -> None:
    """Lei 15.263/2025 (linguagem simples): one idea per line; the details ran to 26 lines and said it twice."""
    text = details_text(translator("pt_BR"), situation(rules, on), "SMFO")
    lines = text.splitlines()
    assert len(lines) <= 10, text
    about_validity = [line for line in lines if line.startswith(("Vale ", "Válida até", "Venceu em"))]
    assert len(about_validity) == 1, text
    assert "***.456.789-**" in text and "<b>Onde:</b> SMFO" in text
    assert lines[-1].startswith("<i>Lei 1.533/2020, Art. 3º, par. único")
