"""The driver registry's CSV (the SMFO's file): its columns, and reading and checking every row, nothing written.

The contract (``DESIGN.md``): UTF-8, a header row, ``;`` or ``,`` between fields, the columns ``cpf, nome, telefone,
cnh_numero, cnh_categoria, cnh_emissao, placa, renavam, ano_modelo, autorizacao_numero, autorizacao_emissao,
autorizacao_validade, vistoria_data, vistoria_resultado``; dates ``YYYY-MM-DD`` or ``DD/MM/YYYY``.

Every problem is reported with its line number and reason, a msgid with its parameters that each reader sees in
their language (:meth:`RowProblem.render`). :mod:`models.drivers.importing` applies the rows.

Choices:

- ``telefone``, ``autorizacao_validade`` and the two ``vistoria_*`` columns may be empty; the others may not.
- ``autorizacao_emissao`` is the fee payment that starts the validity (Art. 3 par. único; the authorization is
  issued only after the fees are paid, Art. 10 par. único and Art. 15 par. único VII) and, for a new
  authorization, its approval (Art. 9). A later file with another date is a renewal: a new fee payment.
- ``autorizacao_validade``: with ``BALCAO_DRIVER_CSV_VALIDITY=check`` (default) a given date must be 12 months
  from ``autorizacao_emissao`` or the row is refused; with ``trust`` the registry's date is stored as given.
- CNH (Art. 12 I): a category below B is an error (it does not allow driving a car); a CNH issued less than two
  years before ``autorizacao_emissao`` is a *warning*, not an error: the card's issue date changes at every
  renewal, and the Law may mean the first licence, which the file does not carry.
- ``ultima_infracao_gravissima`` (an addition to the contract, optional: a file without the column is read as
  before): the date of the driver's latest *gravíssima* traffic infraction, empty when none. Art. 12 VII asks for
  none in the 12 months before the request's *protocolo*; the file has no protocolo date, so the 12 months are
  counted back from ``autorizacao_emissao`` (a renewal is checked again). A row inside them is refused, citing
  the article. The date is only checked, never stored.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.i18n import N_, Translator
from core.municipality import Municipality
from models.deadlines import add_months
from models.drivers.identifiers import (
    InvalidIdentifier,
    parse_cnh,
    parse_cnh_category,
    parse_cpf,
    parse_phone,
    parse_plate,
    parse_renavam,
)
from models.drivers.status import validity_end, vehicle_last_day
from models.drivers.tables import InspectionResult
from models.invalid_input import InvalidInput
from models.when import Towards, parse_day

COLUMNS: tuple[str, ...] = (
    "cpf",
    "nome",
    "telefone",
    "cnh_numero",
    "cnh_categoria",
    "cnh_emissao",
    "placa",
    "renavam",
    "ano_modelo",
    "autorizacao_numero",
    "autorizacao_emissao",
    "autorizacao_validade",
    "vistoria_data",
    "vistoria_resultado",
)
GRAVISSIMA = "ultima_infracao_gravissima"
"""Lei 1.533/2020 Art. 12 VII: an optional column, added to the contract (absent from older files)."""
EXTRA_COLUMNS: tuple[str, ...] = (GRAVISSIMA,)
OPTIONAL_COLUMNS = frozenset({"telefone", "autorizacao_validade", "vistoria_data", "vistoria_resultado", GRAVISSIMA})
RESULTS: dict[str, InspectionResult] = {
    "aprovado": InspectionResult.APPROVED,
    "aprovada": InspectionResult.APPROVED,
    "approved": InspectionResult.APPROVED,
    "apto": InspectionResult.APPROVED,
    "reprovado": InspectionResult.FAILED,
    "reprovada": InspectionResult.FAILED,
    "failed": InspectionResult.FAILED,
    "inapto": InspectionResult.FAILED,
}


@dataclass(frozen=True, slots=True)
class RowProblem:
    """A problem found in the file: the line (1 is the header) and the reason (an English msgid and its parameters).

    The console and the CLI show :meth:`render` in their reader's language; the staff API in English.
    """

    line: int
    reason: InvalidInput

    def render(self, tr: Translator) -> str:
        """The reason in ``tr``'s language, with the article it cites."""
        return self.reason.render(tr)


def row_problem(line: int, message: str, **params: Any) -> RowProblem:
    """A problem of the file's ``line``: a msgid (marked with ``N_``) and its parameters."""
    return RowProblem(line, InvalidInput(message, **params))


@dataclass(frozen=True, slots=True)
class DriverRow:
    """A valid row of the file, with canonical values."""

    line: int
    cpf: str
    name: str
    phone: str | None
    cnh_number: str
    cnh_category: str
    cnh_issued_on: dt.date
    plate: str
    renavam: str
    model_year: int
    authorization_number: str
    fee_paid_on: dt.date
    valid_until: dt.date
    inspected_on: dt.date | None
    inspection_result: InspectionResult | None


@dataclass(slots=True)
class ImportReport:
    """What an import found and did.

    Attributes:
        rows: valid data rows read.
        created: drivers added.
        updated: drivers whose records changed.
        unchanged: rows that changed nothing.
        errors: bad rows; when there is any, nothing was applied.
        warnings: rows applied with a remark (e.g. a recent CNH, Art. 12 I).
        applied: whether the changes were committed (False with errors, and in a dry run).
    """

    rows: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    errors: list[RowProblem] = field(default_factory=list)
    warnings: list[RowProblem] = field(default_factory=list)
    applied: bool = False


_NUMERIC_DAY = re.compile(r"\d{1,4}[/.\-]\d{1,2}(?:[/.\-]\d{2,4})?")


def parse_date(value: str, *, today: dt.date, towards: Towards = "past") -> dt.date:
    """A date of the registry file, read by :func:`models.when.parse_day` (``DD/MM/YYYY``, ``YYYY-MM-DD``…).

    Raises:
        InvalidInput: not a day of the calendar (a ``ValueError``; ``render(tr)`` says why).
    """
    text = value.strip()
    try:
        return parse_day(text, today=today, towards=towards)
    except InvalidInput:
        if _NUMERIC_DAY.fullmatch(text):  # written as a date, but no such day (31/02)
            raise InvalidInput(N_('"{text}" is not a day of the calendar'), text=text) from None
        raise InvalidInput(N_('"{text}" is not a date: write YYYY-MM-DD or DD/MM/YYYY'), text=text) from None


def _plain(value: str) -> str:
    decomposed = unicodedata.normalize("NFKD", value.strip().lower())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def _header_name(value: str) -> str:
    return re.sub(r"\s+", "_", _plain(value.replace("\ufeff", "")))


class UnreadableCsv(ValueError):
    """The file stops being CSV at a line (a field over the csv module's 131,072-character limit, a stray quote)."""

    def __init__(self, line: int, reason: InvalidInput) -> None:
        super().__init__(reason.message)
        self.line = line
        self.reason = reason


def _csv_error(error: csv.Error) -> InvalidInput:
    """Why the csv module stopped: its field limit in words; anything else with the module's (English) detail."""
    detail = str(error)
    if detail.startswith("field larger than field limit"):
        return InvalidInput(N_("a field is longer than {limit} characters: the file cannot be read from this line"),
                            limit=csv.field_size_limit())
    return InvalidInput(N_("not readable as CSV from this line ({detail})"), detail=detail)


def _records(text: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and every non-empty record with the line it starts on.

    Raises:
        UnreadableCsv: the line where the file cannot be read as CSV any more.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # Windows and old Mac (CR only) line endings
    first_line = text.split("\n", 1)[0]
    delimiter = ";" if first_line.count(";") >= first_line.count(",") else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    header: list[str] = []
    records: list[tuple[int, list[str]]] = []
    while True:
        start = reader.line_num + 1
        try:
            values = next(reader, None)
        except csv.Error as exc:
            raise UnreadableCsv(start, _csv_error(exc)) from None
        if values is None:
            break
        if not header:
            header = [_header_name(value) for value in values]
            continue
        if any(value.strip() for value in values):
            records.append((start, values))
    return header, records


class _RowReader:
    """Validates one record, collecting every problem of the row."""

    def __init__(self, line: int, values: dict[str, str], city: Municipality, today: dt.date) -> None:
        self.line, self.values, self.city, self.today = line, values, city, today
        self.errors: list[RowProblem] = []
        self.warnings: list[RowProblem] = []

    def _row_error(self, message: str, **params: object) -> None:
        self.errors.append(row_problem(self.line, message, **params))

    def text(self, column: str, max_length: int) -> str:
        value = " ".join(self.values.get(column, "").split())
        if not value and column not in OPTIONAL_COLUMNS:
            self._row_error(N_("{column} is empty"), column=column)
        elif len(value) > max_length:
            self._row_error(N_("{column} is longer than {n} characters"), column=column, n=max_length)
        return value

    def identifier(self, column: str, parse: Callable[[str], str]) -> str:
        value = self.text(column, 64)
        if not value:
            return ""
        try:
            return parse(value)
        except InvalidIdentifier as exc:
            self._row_error(N_("{column}: {reason}"), column=column, reason=exc)
            return ""

    def date(self, column: str) -> dt.date | None:
        value = self.text(column, 32)
        if not value:
            return None
        try:
            day = parse_date(value, today=self.today,
                             towards="future" if column == "autorizacao_validade" else "past")
        except InvalidInput as exc:
            self._row_error(N_("{column}: {reason}"), column=column, reason=exc)
            return None
        if day > self.today and column != "autorizacao_validade":
            self._row_error(N_("{column}: {day} is in the future"), column=column, day=day)
        return day

    def read(self) -> DriverRow | None:
        cpf = self.identifier("cpf", parse_cpf)
        name = self.text("nome", 128)
        phone_text = self.text("telefone", 32)
        phone: str | None = None
        if phone_text:
            try:
                phone = parse_phone(phone_text)
            except InvalidIdentifier as exc:
                self._row_error(N_("{column}: {reason}"), column="telefone", reason=exc)
        cnh_number = self.identifier("cnh_numero", parse_cnh)
        cnh_category = self.identifier("cnh_categoria", parse_cnh_category)
        cnh_issued_on = self.date("cnh_emissao")
        plate = self.identifier("placa", parse_plate)
        renavam = self.identifier("renavam", parse_renavam)
        model_year = self._model_year()
        number = self.text("autorizacao_numero", 32)
        fee_paid_on = self.date("autorizacao_emissao")
        given_validity = self.date("autorizacao_validade")
        inspected_on = self.date("vistoria_data")
        result = self._result()
        valid_until = self._validity(fee_paid_on, given_validity)
        self._gravissima(fee_paid_on)
        if self.errors:
            return None
        assert cnh_issued_on is not None and fee_paid_on is not None and valid_until is not None
        assert model_year is not None
        if add_months(cnh_issued_on, 24) > fee_paid_on:
            self.warnings.append(row_problem(
                self.line, N_("CNH issued less than 2 years before the authorization (Lei 1.533/2020 Art. 12 I)")))
        if vehicle_last_day(model_year, self.city) < fee_paid_on:
            self.warnings.append(row_problem(
                self.line, N_("vehicle over the 5-year age limit at authorization (Lei 1.533/2020 Art. 2 §1)")))
        return DriverRow(
            line=self.line,
            cpf=cpf,
            name=name,
            phone=phone,
            cnh_number=cnh_number,
            cnh_category=cnh_category,
            cnh_issued_on=cnh_issued_on,
            plate=plate,
            renavam=renavam,
            model_year=model_year,
            authorization_number=number,
            fee_paid_on=fee_paid_on,
            valid_until=valid_until,
            inspected_on=inspected_on,
            inspection_result=result,
        )

    def _gravissima(self, fee_paid_on: dt.date | None) -> None:
        """Art. 12 VII: no gravíssima infraction in the 12 months before the request (here, the authorization)."""
        last = self.date(GRAVISSIMA)
        if last is None or fee_paid_on is None:
            return
        if last <= fee_paid_on < add_months(last, 12, month_end_rule=self.city.readings.month_end_rule):
            self._row_error(N_("{column}: a gravíssima infraction on {day}, less than 12 months before the "
                               "authorization (Lei 1.533/2020 Art. 12 VII)"), column=GRAVISSIMA, day=last)

    def _model_year(self) -> int | None:
        value = self.text("ano_modelo", 8)
        if not value:
            return None
        if not value.isdigit() or not 1950 <= int(value) <= self.today.year + 1:
            self._row_error(N_('{column}: "{value}" is not a model year'), column="ano_modelo", value=value)
            return None
        return int(value)

    def _result(self) -> InspectionResult | None:
        value = _plain(self.values.get("vistoria_resultado", ""))
        date_given = bool(self.values.get("vistoria_data", "").strip())
        if not value and not date_given:
            return None
        if not value or not date_given:
            self._row_error(N_("vistoria_data and vistoria_resultado go together: fill both or neither"))
            return None
        if value not in RESULTS:
            self._row_error(N_('{column}: "{value}" is not aprovado or reprovado'), column="vistoria_resultado",
                        value=value)
            return None
        return RESULTS[value]

    def _validity(self, fee_paid_on: dt.date | None, given: dt.date | None) -> dt.date | None:
        if fee_paid_on is None:
            return None
        expected = validity_end(fee_paid_on, self.city)
        if given is None or given == expected:
            return expected
        if self.city.readings.driver_csv_validity == "trust":
            if given <= fee_paid_on:
                self._row_error(N_("autorizacao_validade is not after autorizacao_emissao"))
            return given
        self._row_error(
            N_("autorizacao_validade should be {day}: 12 months from autorizacao_emissao (Lei 1.533/2020 Art. 3 par. "
               "único)"),
            day=expected,
        )
        return None


def read_rows(text: str, *, city: Municipality, today: dt.date) -> tuple[list[DriverRow], ImportReport]:
    """Validate every row of a CSV text (nothing touches the database).

    Returns:
        The valid rows, and a report holding the problems found.
    """
    report = ImportReport()
    try:
        header, records = _records(text)
    except UnreadableCsv as exc:
        report.errors.append(RowProblem(exc.line, exc.reason))
        return [], report
    missing = [column for column in COLUMNS if column not in header]
    if not header or missing:
        report.errors.append(row_problem(1, N_("missing columns: {columns}"), columns=", ".join(missing or COLUMNS)))
        return [], report
    unknown = [name for name in header if name and name not in COLUMNS and name not in EXTRA_COLUMNS]
    if unknown:
        report.warnings.append(row_problem(1, N_("ignored columns: {columns}"), columns=", ".join(unknown)))
    rows: list[DriverRow] = []
    seen: dict[tuple[str, str], int] = {}
    for line, values in records:
        if len(values) > len(header):
            report.errors.append(row_problem(line, N_("{fields} fields, but the header has {header}"),
                                          fields=len(values), header=len(header)))
            continue
        reader = _RowReader(line, dict(zip(header, values, strict=False)), city, today)
        row = reader.read()
        report.errors.extend(reader.errors)
        report.warnings.extend(reader.warnings)
        if row is None:
            continue
        for column, value in (("cpf", row.cpf), ("placa", row.plate), ("renavam", row.renavam),
                              ("autorizacao_numero", row.authorization_number)):
            if (column, value) in seen:
                report.errors.append(row_problem(line, N_("{column} repeats line {first}"), column=column,
                                              first=seen[(column, value)]))
            else:
                seen[(column, value)] = line
        rows.append(row)
    report.rows = len(rows)
    return rows, report
