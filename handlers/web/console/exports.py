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
import io
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import xlsxwriter
from aiohttp import web

from handlers.web.console.forms import city_today, db
from handlers.web.console.guard import console_page
from handlers.web.console.rendering import render
from handlers.web.console.staff import ConsoleStaff, staff_of
from handlers.web.keys import SETTINGS
from models.audit import record
from models.console.exports import Export, cases_export, deliveries_export, notices_export
from models.exports.cells import Cell, cell_text, neutralise
from models.people import Role

routes = web.RouteTableDef()
CHUNK = 64 * 1024
EXPORTS: dict[str, Callable[[Mapping[str, Role]], Export]] = {
    "casos": lambda roles: cases_export(roles=roles),
    "notificacoes": lambda roles: notices_export(roles=roles),
    "entregas": lambda roles: deliveries_export(roles=roles),
}


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
    writer.writerow(export.header)
    await response.write(("\ufeff" + buffer.getvalue()).encode())
    async with db(request)() as session:
        async for batch in export.rows(session):
            buffer.seek(0)
            buffer.truncate()
            writer.writerows([cell_text(_civil(value, tz)) for value in row] for row in batch)
            await response.write(buffer.getvalue().encode())
    await response.write_eof()
    return response


def _write_rows(sheet: Any, first: int, batch: list[list[Cell]], tz: ZoneInfo, formats: dict[str, Any]) -> None:
    for offset, row in enumerate(batch):
        for column, value in enumerate(row):
            value = _civil(value, tz)
            if value is None:
                continue
            if isinstance(value, bool):
                sheet.write_boolean(first + offset, column, value)
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
                   "datetime": book.add_format({"num_format": "dd/mm/yyyy hh:mm"})}
        sheet = book.add_worksheet(export.name)
        sheet.write_row(0, 0, export.header)
        row = 1
        async with db(request)() as session:
            async for batch in export.rows(session):
                await asyncio.to_thread(_write_rows, sheet, row, batch, tz, formats)
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
