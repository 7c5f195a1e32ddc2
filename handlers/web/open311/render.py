"""GeoReport v2 answers in XML or JSON: UTF-8, W3C datetimes with the offset, errors as the spec shapes them.

The spec's XML and JSON have the same fields: a JSON list of objects is an XML root element holding one element
per object (``<services><service>…``), and a nested list is a wrapper holding one element per item
(``<attributes><attribute>…``, ``<values><value>…``). Errors are ``[{"code": 403, "description": "…"}]`` or
``<errors><error><code>403</code><description>…</description></error></errors>`` with the same HTTP status.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any
from xml.etree import ElementTree as ET
from zoneinfo import ZoneInfo

from aiohttp import web

from core.i18n import Translator, negotiate_locale, translator
from core.references import new_reference
from handlers.web.keys import settings_of
from models.open311.jurisdiction import UnknownJurisdiction

logger = logging.getLogger("balcao.open311")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
ITEM_TAGS = {"attributes": "attribute", "values": "value", "endpoints": "endpoint", "formats": "format",
             "jurisdictions": "jurisdiction"}
"""A nested list's wrapper element → the element of each item (GeoReport v2 XML)."""
XML_TYPE = "text/xml"
JSON_TYPE = "application/json"


def w3c(moment: dt.datetime | None, tz: ZoneInfo) -> str | None:
    """A moment as a W3C datetime with the civil offset, e.g. ``2026-03-02T10:00:00-04:00``."""
    return None if moment is None else moment.astimezone(tz).isoformat(timespec="seconds")


def end_of_day(day: dt.date, tz: ZoneInfo) -> dt.datetime:
    """The last second of a civil day (a deadline lasts until the end of its day)."""
    return dt.datetime.combine(day, dt.time(23, 59, 59), tzinfo=tz)


def reader(request: web.Request) -> Translator:
    """The translator of the client's ``Accept-Language`` (pt_BR when none of ours is asked for)."""
    header = request.headers.get("Accept-Language", "")
    first = header.split(",", 1)[0].split(";", 1)[0].strip()
    return translator(negotiate_locale(first or None), settings_of(request).timezone)


_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
"""Characters XML 1.0 cannot hold: a text stored before they were cleaned (``models.cases.fields.clean_text``)
must not make the whole answer ill-formed."""


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return _NOT_XML.sub("", str(value))


def _fill(element: ET.Element, value: Any, tag: str) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            _fill(ET.SubElement(element, key), inner, key)
    elif isinstance(value, list):
        item_tag = ITEM_TAGS.get(tag, "item")
        for inner in value:
            _fill(ET.SubElement(element, item_tag), inner, item_tag)
    else:
        element.text = _text(value)


def to_xml(root: str, item: str | None, body: Any) -> bytes:
    """``body`` as GeoReport v2 XML: a list under ``root`` with one ``item`` each, or a dict as ``root``."""
    element = ET.Element(root)
    if isinstance(body, list):
        for entry in body:
            _fill(ET.SubElement(element, item or "item"), entry, item or "item")
    else:
        _fill(element, body, root)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(element, encoding="utf-8", xml_declaration=False)


def answer(fmt: str, root: str, item: str | None, body: Any, *, status: int = 200,
           headers: dict[str, str] | None = None) -> web.Response:
    """The answer in the format the path asked for (``.xml`` or ``.json``), UTF-8."""
    if fmt == "json":
        return web.Response(status=status, body=json.dumps(body, ensure_ascii=False).encode(),
                            content_type=JSON_TYPE, charset="utf-8", headers=headers)
    return web.Response(status=status, body=to_xml(root, item, body), content_type=XML_TYPE, charset="utf-8",
                        headers=headers)


class Open311Error(Exception):
    """An error the spec answers with ``{code, description}`` and the same HTTP status."""

    def __init__(self, status: int, description: str) -> None:
        super().__init__(description)
        self.status = status
        self.description = description


def error(fmt: str, status: int, description: str) -> web.Response:
    """The spec's error answer: one ``{code, description}`` in an array (JSON) or ``<errors>`` (XML)."""
    return answer(fmt, "errors", "error", [{"code": status, "description": description}], status=status)


def jurisdiction_error(fmt: str, exc: UnknownJurisdiction, tr: Translator) -> web.Response:
    """GeoReport v2: 400 when ``jurisdiction_id`` was not provided, 404 when the one provided was not found."""
    served = ", ".join(exc.served)
    if exc.missing:
        return error(fmt, 400, tr._("jurisdiction_id is required: this server serves several municipalities "
                                    "({ids}).").format(ids=served))
    return error(fmt, 404, tr._("No jurisdiction {id}; this server serves {ids}.").format(
        id=(exc.given or "")[:40], ids=served))


def fmt_of(request: web.Request) -> str:
    """``json`` or ``xml``, from the path's extension (XML, the spec's required format, otherwise)."""
    fmt = request.match_info.get("fmt") or request.path.rsplit(".", 1)[-1]
    return "json" if fmt == "json" else "xml"


def open311_endpoint(handler: Handler) -> Handler:
    """Turn the spec's errors into its answers, and anything unexpected into a 500 with a logged reference."""
    async def wrapper(request: web.Request) -> web.StreamResponse:
        fmt = fmt_of(request)
        try:
            return await handler(request)
        except Open311Error as exc:
            return error(fmt, exc.status, exc.description)
        except UnknownJurisdiction as exc:
            return jurisdiction_error(fmt, exc, reader(request))
        except web.HTTPException:
            raise
        except Exception:
            reference = new_reference()
            logger.exception("open311 %s %s failed (%s)", request.method, request.path, reference)
            return error(fmt, 500, f"Internal error; quote {reference}.")

    wrapper.__name__ = handler.__name__
    wrapper.__doc__ = handler.__doc__
    return wrapper
