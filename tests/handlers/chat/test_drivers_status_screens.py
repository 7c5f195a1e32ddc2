"""/situacao reads the one status of models.drivers.status (L1533 Art. 9, 16, 26 II): label, may-drive line and
article come from it, for a failed, a barred and an overdue inspection, and a due day on a weekend."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from core.i18n import translator
from core.municipality import cities_of
from core.settings import Settings
from handlers.chat.driver_texts import steps_text, summary_text
from models.drivers.registry import DriverSituation
from models.drivers.status import authorization_status, validity_end
from models.drivers.tables import Authorization, Inspection, InspectionResult, Vehicle
from tests.auxil.drivers import settings_without_database

D = dt.date


@pytest.fixture
def rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    return settings_without_database(tmp_path, monkeypatch)


APPROVED_ON = D(2026, 3, 10)


def situation(rules: Settings, on: D, inspections: list[tuple[D, InspectionResult]],
              paid: D = APPROVED_ON) -> DriverSituation:
    authorization = Authorization(id=1, number="2026/001", driver_id=1, vehicle_id=7, approved_on=D(2026, 3, 10),
                                  fee_paid_on=paid, valid_until=validity_end(paid, cities_of(rules).default),
                                  vehicle_since=D(2026, 3, 10))
    vehicle = Vehicle(id=7, plate="QBX1234", renavam="01234567897", model_year=2023)
    rows = [Inspection(vehicle_id=7, inspected_on=day, result=result) for day, result in inspections]
    status = authorization_status(authorization=authorization, inspections=rows, vehicle=vehicle, on=on,
                                  city=cities_of(rules).default)
    return DriverSituation(1, 9, "Maria Aparecida", "***.456.789-**", "2026/001", "QBX-1234", 2023, status)


OK, FAILED = InspectionResult.APPROVED, InspectionResult.FAILED


def test_a_failed_extra_inspection_is_not_shown_as_active_art_16_par_2_art_26_ii(rules: Settings) -> None:
    within = summary_text(translator("pt_BR"), situation(rules, D(2026, 6, 2), [(D(2026, 3, 10), OK),
                                                                               (D(2026, 6, 1), FAILED)]))
    assert "— Reprovado na vistoria" in within and "Ativa" not in within and "✅" in within
    barred = summary_text(translator("pt_BR"), situation(rules, D(2026, 6, 20), [(D(2026, 3, 10), OK),
                                                                                (D(2026, 6, 1), FAILED)]))
    assert "— Impedido de trabalhar" in barred and "⛔" in barred and barred.endswith("Art. 26, II</i>")


def test_an_overdue_annual_inspection_says_you_may_not_drive_art_16(rules: Settings) -> None:
    text = summary_text(translator("pt_BR"), situation(rules, D(2027, 3, 31), [(D(2026, 3, 10), OK)],
                                                       paid=D(2026, 12, 1)))
    assert "— Vistoria vencida" in text and "⛔" in text and text.endswith("Lei 1.533/2020, Art. 16</i>")


def test_an_inspection_due_on_a_sunday_gives_the_last_open_day_like_the_validity(rules: Settings) -> None:
    # the steps are one button behind the details (issue 9 item 10); the inspection step says it
    text = steps_text(translator("en"), situation(rules, D(2027, 6, 1), [(D(2026, 6, 13), OK)],
                                                  paid=D(2026, 12, 1)), "SMFO")
    assert "Sunday, June 13, 2027" in text and "The office is closed that day: go by Friday, June 11, 2027." in text
