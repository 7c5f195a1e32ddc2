"""Exports: cases, notices and deliveries as CSV or XLSX, streamed so memory stays flat whatever the size.

CSV goes out batch by batch as it is read (UTF-8 with a BOM and ``;``, as spreadsheets in Brazil expect). XLSX is
written by XlsxWriter in ``constant_memory`` mode (each row flushed to a temporary file), in a worker thread so the
server keeps answering, and the finished file is streamed in chunks. Every text cell is neutralised against
formula injection (:mod:`models.exports.cells`); times are in the deployment's time zone.
"""

from __future__ import annotations

import asyncio
import csv
import datetime as dt
import enum
import io
import tempfile
from collections.abc import Callable, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import xlsxwriter
from aiohttp import web

from core.i18n import Translator
from handlers.web.console.forms import city_today, db
from handlers.web.console.guard import console_page
from handlers.web.console.labels import KIND_NAMES, OUTCOME_NAMES, STATUS_NAMES
from handlers.web.console.notices import STAGE_NAMES
from handlers.web.console.rendering import render
from handlers.web.console.staff import ConsoleStaff, staff_of
from handlers.web.keys import SETTINGS
from models.audit import record
from models.cases.labels import OMBUDSMAN_TYPE_LABELS
from models.cases.tables import CaseKind, CaseStatus, OmbudsmanType, Outcome
from models.console.exports import Export, cases_export, deliveries_export, notices_export
from models.exports.cells import Cell, Names, cell_text, neutralise
from models.notices.labels import (
    CIENCIA_LABELS,
    DELIVERY_STATE_LABELS,
    DOCUMENT_LABELS,
    OUTCOME_LABELS,
    STAFF_REASON_LABELS,
    TYPE_LABELS,
)
from models.notices.tables import (
    CienciaKind,
    DeliveryState,
    DocumentKind,
    NoticeOutcome,
    NoticeStage,
    NoticeType,
    StaffReason,
)
from models.people import ROLE_LABELS, Role

routes = web.RouteTableDef()
CHUNK = 64 * 1024
EXPORTS: dict[str, Callable[[Mapping[str, Role]], Export]] = {
    "casos": lambda roles: cases_export(roles=roles),
    "notificacoes": lambda roles: notices_export(roles=roles),
    "entregas": lambda roles: deliveries_export(roles=roles),
}


NAMES: Names = {
    CaseKind: KIND_NAMES, CaseStatus: STATUS_NAMES, Outcome: OUTCOME_NAMES, OmbudsmanType: OMBUDSMAN_TYPE_LABELS,
    Role: ROLE_LABELS, NoticeType: TYPE_LABELS, NoticeStage: STAGE_NAMES, NoticeOutcome: OUTCOME_LABELS,
    DocumentKind: DOCUMENT_LABELS, DeliveryState: DELIVERY_STATE_LABELS, StaffReason: STAFF_REASON_LABELS,
    CienciaKind: CIENCIA_LABELS,
}
"""What a spreadsheet shows for each code of the exports: the names the console's pages use."""


def _civil(value: Cell, tz: ZoneInfo) -> Cell:
    return value.astimezone(tz) if isinstance(value, dt.datetime) else value


@routes.get("/exportar")
@console_page(Role.CLERK, Role.INSPECTOR, Role.OMBUDSMAN)
async def export_page(request: web.Request) -> web.Response:
    """The list of exports."""
    return render(request, "exports.html", {"title": staff_of(request).tr._("Exports"), "names": list(EXPORTS)})


async def _audit(request: web.Request, staff: ConsoleStaff, name: str, kind: str) -> None:
    async with db(request)() as session:
        await record(session=session, actor=staff.actor, action="console.export", entity="export", entity_id=name,
                     details={"format": kind})
        await session.commit()


def _start(request: web.Request, export: Export, kind: str, content_type: str) -> web.StreamResponse:
    stamp = city_today(request).isoformat()
    response = web.StreamResponse(headers={
        "Content-Type": content_type,
        "Content-Disposition": f'attachment; filename="{export.name}-{stamp}.{kind}"',
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
    })
    return response


async def _csv(request: web.Request, export: Export) -> web.StreamResponse:
    tz = request.config_dict[SETTINGS].tz
    response = _start(request, export, "csv", "text/csv; charset=utf-8")
    await response.prepare(request)
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";", lineterminator="\r\n")
    tr = staff_of(request).tr
    writer.writerow([tr._(column) for column in export.header])
    await response.write(("\ufeff" + buffer.getvalue()).encode())
    async with db(request)() as session:
        async for batch in export.rows(session):
            buffer.seek(0)
            buffer.truncate()
            writer.writerows([cell_text(_civil(value, tz), tr=tr, names=NAMES) for value in row] for row in batch)
            await response.write(buffer.getvalue().encode())
    await response.write_eof()
    return response


def _write_rows(sheet: Any, first: int, batch: list[list[Cell]], tz: ZoneInfo, formats: dict[str, Any],
                tr: Translator) -> None:
    for offset, row in enumerate(batch):
        for column, value in enumerate(row):
            value = _civil(value, tz)
            if value is None:
                continue
            if isinstance(value, enum.Enum | bool):  # codes by their names; yes or no in words
                sheet.write_string(first + offset, column, cell_text(value, tr=tr, names=NAMES))
            elif isinstance(value, Decimal):
                sheet.write_number(first + offset, column, value, formats["money"])
            elif isinstance(value, int | float):
                sheet.write_number(first + offset, column, value)
            elif isinstance(value, dt.datetime):
                sheet.write_datetime(first + offset, column, value, formats["datetime"])
            elif isinstance(value, dt.date):
                sheet.write_datetime(first + offset, column, value, formats["date"])
            else:
                sheet.write_string(first + offset, column, neutralise(value))


async def _xlsx(request: web.Request, export: Export) -> web.StreamResponse:
    tz = request.config_dict[SETTINGS].tz
    with tempfile.TemporaryDirectory(prefix="balcao-export-") as folder:
        path = Path(folder) / "export.xlsx"
        book = xlsxwriter.Workbook(str(path), {"constant_memory": True, "remove_timezone": True,
                                               "tmpdir": folder})
        formats = {"date": book.add_format({"num_format": "dd/mm/yyyy"}),
                   "datetime": book.add_format({"num_format": "dd/mm/yyyy hh:mm"}),
                   "money": book.add_format({"num_format": "#,##0.00"})}  # the reader's spreadsheet shows 504,00
        sheet = book.add_worksheet(export.name)
        tr = staff_of(request).tr
        sheet.write_row(0, 0, [tr._(column) for column in export.header])
        row = 1
        async with db(request)() as session:
            async for batch in export.rows(session):
                await asyncio.to_thread(_write_rows, sheet, row, batch, tz, formats, tr)
                row += len(batch)
        await asyncio.to_thread(book.close)
        response = _start(request, export, "xlsx",
                          "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
        response.content_length = path.stat().st_size
        await response.prepare(request)
        with path.open("rb") as handle:
            while chunk := await asyncio.to_thread(handle.read, CHUNK):
                await response.write(chunk)
    await response.write_eof()
    return response


@routes.get("/exportar/{name:(casos|notificacoes|entregas)}.{kind:(csv|xlsx)}")
@console_page(Role.CLERK, Role.INSPECTOR, Role.OMBUDSMAN)
async def export_file(request: web.Request) -> web.StreamResponse:
    """One export as CSV or XLSX (audited with its actor)."""
    staff = staff_of(request)
    name, kind = request.match_info["name"], request.match_info["kind"]
    export = EXPORTS[name](dict(staff.roles))  # the municipalities shown, each with the role there (CF Art. 30)
    await _audit(request, staff, name, kind)
    return await (_csv(request, export) if kind == "csv" else _xlsx(request, export))
