"""The registry import: all or nothing, line numbers and reasons, idempotent, audited."""

from __future__ import annotations

import datetime as dt

from sqlmodel import func, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import translator
from core.municipality import cities_of
from core.settings import Settings
from models.audit import AuditEvent
from models.drivers.importing import import_drivers
from models.drivers.registry import authorization_by_number, situation_of
from models.drivers.registry_csv import COLUMNS, GRAVISSIMA
from models.drivers.status import StatusKind
from models.drivers.tables import Authorization, Driver, FeePayment, Inspection, Vehicle
from tests.auxil.drivers import JORGE_CPF, MARIA_CPF, cnh, csv_text, driver_row, renavam

TODAY = dt.date(2026, 3, 20)
EN, PT = translator("en"), translator("pt_BR")


def jorge(**overrides: str) -> dict[str, str]:
    values = {
        "cpf": JORGE_CPF,
        "nome": "Jorge Luiz Pereira",
        "telefone": "65 99922-0002",
        "cnh_numero": cnh("123456780"),
        "placa": "RAB2C34",
        "renavam": renavam("9876543210"),
        "autorizacao_numero": "2026/002",
    }
    values.update(overrides)
    return driver_row(**values)


async def run(session: AsyncSession, settings: Settings, text: str, *, today: dt.date = TODAY,
              dry_run: bool = False):  # type: ignore[no-untyped-def]
    return await import_drivers(session=session, text=text, actor="cli", cities=cities_of(settings), today=today,
                                dry_run=dry_run)


async def count(session: AsyncSession, table: type) -> int:
    return (await session.exec(select(func.count()).select_from(table))).one()


async def audit_actions(session: AsyncSession) -> list[str]:
    return [event.action for event in (await session.exec(select(AuditEvent).order_by(AuditEvent.id))).all()]


async def test_a_good_file_creates_drivers_vehicles_authorizations_fees_and_inspections(
    session: AsyncSession, settings: Settings
) -> None:
    report = await run(session, settings, csv_text([driver_row(), jorge(vistoria_data="", vistoria_resultado="")]))
    assert (report.applied, report.rows, report.created, report.updated, report.errors) == (True, 2, 2, 0, [])
    maria = (await session.exec(select(Driver).where(Driver.cpf == MARIA_CPF))).one()
    assert (maria.phone, maria.cnh_category, maria.cnh_issued_on) == ("+5565999110001", "B", dt.date(2015, 6, 1))
    authorization = await authorization_by_number(session=session, number="2026/001")
    assert authorization is not None
    assert (authorization.fee_paid_on, authorization.valid_until) == (dt.date(2026, 3, 10), dt.date(2027, 3, 10))
    assert (await count(session, FeePayment), await count(session, Inspection), await count(session, Vehicle)) == (
        2, 1, 2,
    )
    situation = await situation_of(session=session, driver=maria, on=TODAY, city=cities_of(settings).default)
    assert situation is not None and situation.status.kind is StatusKind.ACTIVE
    assert situation.plate == "QBX-1234" and situation.cpf_masked == "***.456.789-**"


async def test_reimporting_the_same_file_changes_nothing(session: AsyncSession, settings: Settings) -> None:
    text = csv_text([driver_row(), jorge()])
    await run(session, settings, text)
    events = await audit_actions(session)
    again = await run(session, settings, text)
    assert (again.applied, again.created, again.updated, again.unchanged) == (True, 0, 0, 2)
    assert await audit_actions(session) == events


async def test_a_changed_row_updates_the_record_and_is_audited_without_personal_data(
    session: AsyncSession, settings: Settings
) -> None:
    await run(session, settings, csv_text([driver_row(), jorge()]))
    renewed = driver_row(telefone="65 98888-7777", autorizacao_emissao="2027-03-01", vistoria_data="2027-02-20")
    report = await run(session, settings, csv_text([renewed, jorge()]), today=dt.date(2027, 3, 2))
    assert (report.updated, report.unchanged) == (1, 1)
    authorization = await authorization_by_number(session=session, number="2026/001")
    assert authorization is not None
    assert (authorization.fee_paid_on, authorization.valid_until) == (dt.date(2027, 3, 1), dt.date(2028, 3, 1))
    assert authorization.approved_on == dt.date(2026, 3, 10)  # the first approval stays (Art. 9)
    assert await count(session, FeePayment) == 3  # the renewal is a new payment; history is kept
    update = (await session.exec(select(AuditEvent).where(AuditEvent.action == "driver.import.update"))).one()
    assert update.details["fields"] == ["autorizacao_emissao", "telefone", "vistoria"]
    assert update.actor == "cli"
    all_details = " ".join(str(e.details) for e in (await session.exec(select(AuditEvent))).all())
    assert MARIA_CPF not in all_details and "98888" not in all_details


async def test_every_bad_row_is_reported_with_its_line_and_nothing_is_applied(
    session: AsyncSession, settings: Settings
) -> None:
    rows = [
        driver_row(),
        jorge(cpf="987.654.321-01", placa="XX-12"),
        driver_row(cpf="111.444.777-35", cnh_categoria="A", autorizacao_numero="2026/003", placa="QBX1C34",
                   renavam=renavam("5555555555"), autorizacao_emissao="31/02/2026"),
        driver_row(cpf="529.982.247-25", autorizacao_numero="2026/004", placa="ABC1D23",
                   renavam=renavam("4444444444"), vistoria_resultado=""),
    ]
    report = await run(session, settings, csv_text(rows))
    assert not report.applied
    reasons = {(p.line, p.render(EN).split(":")[0]) for p in report.errors}
    assert reasons == {
        (3, "cpf"),
        (3, "placa"),
        (4, "cnh_categoria"),
        (4, "autorizacao_emissao"),
        (5, "vistoria_data and vistoria_resultado go together"),
    }
    assert "Art. 12 I" in next(p.render(EN) for p in report.errors if p.line == 4 and p.render(EN).startswith("cnh"))
    assert await count(session, Driver) == 0 and await audit_actions(session) == []


async def test_repeated_identifiers_in_one_file_point_to_the_first_line(
    session: AsyncSession, settings: Settings
) -> None:
    report = await run(session, settings, csv_text([driver_row(), jorge(placa="QBX-1234")]))
    assert [(p.line, p.render(EN)) for p in report.errors] == [(3, "placa repeats line 2")]


async def test_commas_brazilian_dates_a_bom_and_quoted_fields_are_read(
    session: AsyncSession, settings: Settings
) -> None:
    text = "\ufeff" + csv_text([driver_row(nome='"Silva, Maria Aparecida"', autorizacao_emissao="10/03/2026")],
                               delimiter=",")
    report = await run(session, settings, text)
    assert report.applied, report.errors
    assert (await session.exec(select(Driver.name))).one() == "Silva, Maria Aparecida"


async def test_missing_columns_are_reported_on_line_1(session: AsyncSession, settings: Settings) -> None:
    report = await run(session, settings, "cpf;nome\n12345678909;Maria\n")
    assert report.errors[0].line == 1 and "cnh_numero" in report.errors[0].render(EN)


async def test_a_validity_that_is_not_twelve_months_from_the_fee_is_refused_art_3(
    session: AsyncSession, settings: Settings
) -> None:
    report = await run(session, settings, csv_text([driver_row(autorizacao_validade="2027-03-09")]))
    assert [(p.line, p.render(PT)[:66]) for p in report.errors] == [
        (2, "autorizacao_validade deveria ser quarta-feira, 10 de março de 2027")]
    trusting = settings.model_copy(update={"driver_csv_validity": "trust"})
    report = await run(session, trusting, csv_text([driver_row(autorizacao_validade="2027-03-09")]))
    assert report.applied
    authorization = (await session.exec(select(Authorization))).one()
    assert authorization.valid_until == dt.date(2027, 3, 9)


async def test_a_recent_cnh_is_a_warning_not_an_error_art_12_i(session: AsyncSession, settings: Settings) -> None:
    report = await run(session, settings, csv_text([driver_row(cnh_emissao="2025-01-10")]))
    assert report.applied
    assert [(w.line, "Art. 12 I" in w.render(EN)) for w in report.warnings] == [(2, True)]


async def test_a_plate_of_a_driver_outside_the_file_cannot_be_taken(session: AsyncSession, settings: Settings) -> None:
    await run(session, settings, csv_text([driver_row(), jorge()]))
    report = await run(session, settings, csv_text([jorge(placa="QBX1234", renavam=renavam("0123456789"))]))
    assert [(p.line, p.render(EN)) for p in report.errors] == [(2, "the vehicle serves another driver's authorization")]
    report = await run(session, settings, csv_text([jorge(autorizacao_numero="2026/001")]))
    assert [(p.line, p.render(EN)) for p in report.errors] == [(2, "autorizacao_numero belongs to another driver")]


async def test_two_drivers_may_swap_authorization_numbers_in_one_file(
    session: AsyncSession, settings: Settings
) -> None:
    await run(session, settings, csv_text([driver_row(), jorge()]))
    report = await run(session, settings, csv_text([driver_row(autorizacao_numero="2026/002"),
                                                    jorge(autorizacao_numero="2026/001")]))
    assert report.applied and report.updated == 2
    maria = (await session.exec(select(Driver).where(Driver.cpf == MARIA_CPF))).one()
    swapped = await authorization_by_number(session=session, number="2026/002")
    assert swapped is not None and swapped.driver_id == maria.id


async def test_a_plate_converted_to_mercosul_keeps_the_vehicle_and_its_inspections(
    session: AsyncSession, settings: Settings
) -> None:
    await run(session, settings, csv_text([driver_row()]))
    report = await run(session, settings, csv_text([driver_row(placa="QBX1C34")]))
    assert report.updated == 1
    vehicle = (await session.exec(select(Vehicle))).one()
    assert vehicle.plate == "QBX1C34" and await count(session, Inspection) == 1


async def test_a_replacement_vehicle_needs_its_own_inspection_art_8_par_2(
    session: AsyncSession, settings: Settings
) -> None:
    await run(session, settings, csv_text([driver_row()]))
    replaced = driver_row(placa="RBC4D56", renavam=renavam("2222222222"), ano_modelo="2025", vistoria_data="",
                          vistoria_resultado="")
    await run(session, settings, csv_text([replaced]))
    maria = (await session.exec(select(Driver))).one()
    situation = await situation_of(session=session, driver=maria, on=TODAY, city=cities_of(settings).default)
    assert situation is not None
    assert (situation.status.kind, situation.plate) == (StatusKind.AWAITING_INSPECTION, "RBC4D56")
    authorization = (await session.exec(select(Authorization))).one()
    assert authorization.vehicle_since == TODAY
    assert situation.status.until == dt.date(2026, 3, 25)  # Art. 9 by analogy: 5 days from the replacement


async def test_a_dry_run_reports_without_changing_anything(session: AsyncSession, settings: Settings) -> None:
    report = await run(session, settings, csv_text([driver_row()]), dry_run=True)
    assert (report.created, report.applied) == (1, False)
    assert await count(session, Driver) == 0


async def test_lei_1533_art_12_vii_a_gravissima_in_the_12_months_before_is_refused(
    session: AsyncSession, settings: Settings
) -> None:
    """Art. 12 VII: no gravíssima infraction in the 12 months before the request; the column is optional."""
    columns = [*COLUMNS, GRAVISSIMA]

    def with_column(rows: list[dict[str, str]]) -> str:
        return "\n".join([";".join(columns), *(";".join(row.get(c, "") for c in columns) for row in rows)]) + "\n"

    recent = driver_row(**{GRAVISSIMA: "15/06/2025"})  # authorization 10/03/2026: less than 12 months
    report = await run(session, settings, with_column([recent]))
    assert not report.applied
    [problem] = report.errors
    assert problem.line == 2 and problem.render(PT) == (
        f"{GRAVISSIMA}: infração gravíssima em domingo, 15 de junho de 2025, menos de 12 meses antes da autorização "
        "(Lei 1.533/2020 Art. 12 VII)")
    old = driver_row(**{GRAVISSIMA: "09/03/2025"})  # 12 months and a day before: allowed
    assert (await run(session, settings, with_column([old]))).applied
    assert not (await run(session, settings, csv_text([driver_row()]))).warnings  # a file without the column


async def test_the_registry_reads_dates_as_every_entry_point_does(session: AsyncSession, settings: Settings) -> None:
    """models/when.py: a dotted date, a two-digit year and a day without a year (the latest not after the import)."""
    text = csv_text([driver_row(autorizacao_emissao="10.03.2026", cnh_emissao="1/6/15", vistoria_data="10/3")])
    report = await run(session, settings, text)
    assert report.applied, [problem.render(EN) for problem in report.errors]
    assert (await session.exec(select(Inspection.inspected_on))).one() == dt.date(2026, 3, 10)
    assert (await session.exec(select(Driver.cnh_issued_on))).one() == dt.date(2015, 6, 1)
